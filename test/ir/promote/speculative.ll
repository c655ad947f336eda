; Basic promotion with a launch condition computed by the body (%acc2 > 0): the next instance is launched at
; the start whenever thread 0 runs (speculatively), and ends at once where its parent did not reach the launch.
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=none;promote=basic;no-inline-runtime>' -pass-remarks=klap -pass-remarks-missed=klap -S %s -o %t.ll 2>%t.remarks
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks

; REMARK: remark: {{.*}}launch of @chain promoted (basic): arguments available at entry: #0 #1 #2; postponed: #3; launch condition: not known at entry (the kernel's work decides it, or a branch above a join that some path from the entry avoids): launched speculatively, ended where the launch is not reached [KLAP400]
; CHECK-LABEL: define ptx_kernel void @chain(
; CHECK:       klap.promote:
; CHECK:         [[LEAD:%.*]] = call i1 @__klap_promote_leader()
; CHECK-NEXT:    br i1 [[LEAD]], label %klap.promote.slot, label %klap.promote.join
; CHECK-NOT:   fcmp
; CHECK:       klap.promote.join:
; CHECK:       fcmp ogt float
; CHECK:         call ptr @__klap_promote_take(
; CHECK-LABEL: define ptx_kernel void @chain__klap_promoted(
; CHECK:         call ptr @__klap_promote_enter(
; CHECK:       klap.promote.aborted:
; CHECK-NEXT:    ret void
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.smin.i32(i32, i32)

define ptx_kernel void @chain(ptr %out, i32 %n, i32 %first, float %acc) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %last = add nsw i32 %first, 64
  %end = call i32 @llvm.smin.i32(i32 %n, i32 %last)
  %i = add i32 %first, %t
  %p = getelementptr inbounds float, ptr %out, i32 %i
  %x = load float, ptr %p, align 4
  %acc2 = fadd float %acc, %x
  store float %acc2, ptr %p, align 4
  %lead = icmp eq i32 %t, 0
  br i1 %lead, label %test, label %done
test:
  %more = fcmp ogt float %acc2, 0.0
  br i1 %more, label %launch, label %done
launch:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %g, align 4
  store %struct.dim3 { i32 64, i32 1, i32 1 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @chain, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  %ok = icmp ne ptr %buf, null
  br i1 %ok, label %fill, label %done
fill:
  store ptr %out, ptr %buf, align 8
  %a1 = getelementptr inbounds i8, ptr %buf, i64 8
  store i32 %n, ptr %a1, align 4
  %a2 = getelementptr inbounds i8, ptr %buf, i64 12
  store i32 %end, ptr %a2, align 4
  %a3 = getelementptr inbounds i8, ptr %buf, i64 16
  store float %acc2, ptr %a3, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr inttoptr (i64 4 to ptr))
  br label %done
done:
  ret void
}
