; Promotion with aggregation and overlap where the late argument is wider than the slot's word (a double):
; it goes through the slot's arguments (stored at the launch site, released there), and the second wait copies
; them (__klap_pool_wait), not the word.
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=none;promote=all;no-inline-runtime>' -pass-remarks=klap -S %s -o %t.ll 2>%t.remarks
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks

; REMARK: [KLAP415]
; CHECK-LABEL: define ptx_kernel void @chain(
; CHECK:         [[SLOT:%.*]] = call ptr @__klap_pool_take_lone(ptr
; CHECK:         [[A:%.*]] = getelementptr inbounds i8, ptr [[SLOT]], i64 24
; CHECK-NEXT:    store double %acc2, ptr [[A]]
; CHECK-NEXT:    call void @__klap_pool_release(ptr [[SLOT]])
; CHECK-LABEL: define ptx_kernel void @chain__klap_pool(
; CHECK:         call ptr @__klap_pool_wait(i32 32)
; CHECK-NOT:     __klap_pool_wait_word
; CHECK-NOT:     __klap_pool_release_word
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.smin.i32(i32, i32)
declare void @llvm.nvvm.barrier.cta.sync.aligned.all(i32)

define ptx_kernel void @chain(ptr noalias %in, ptr %out, i32 %n, i32 %first, double %acc) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %last = add nsw i32 %first, 64
  %end = call i32 @llvm.smin.i32(i32 %n, i32 %last)
  %i = add i32 %first, %t
  %pin = getelementptr inbounds float, ptr %in, i32 %i
  %x = load float, ptr %pin, align 4
  %sq = fmul float %x, %x
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %sqd = fpext float %sq to double
  %acc2 = fadd double %acc, %sqd
  %pout = getelementptr inbounds double, ptr %out, i32 %i
  store double %acc2, ptr %pout, align 8
  %lead = icmp eq i32 %t, 0
  br i1 %lead, label %test, label %done
test:
  %more = icmp slt i32 %end, %n
  br i1 %more, label %launch, label %done
launch:
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %g, align 4
  store %struct.dim3 { i32 64, i32 1, i32 1 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @chain, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  %ok = icmp ne ptr %buf, null
  br i1 %ok, label %fill, label %done
fill:
  store ptr %in, ptr %buf, align 8
  %a1 = getelementptr inbounds i8, ptr %buf, i64 8
  store ptr %out, ptr %a1, align 8
  %a2 = getelementptr inbounds i8, ptr %buf, i64 16
  store i32 %n, ptr %a2, align 4
  %a3 = getelementptr inbounds i8, ptr %buf, i64 20
  store i32 %end, ptr %a3, align 4
  %a4 = getelementptr inbounds i8, ptr %buf, i64 24
  store double %acc2, ptr %a4, align 8
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr inttoptr (i64 4 to ptr))
  br label %done
done:
  ret void
}
