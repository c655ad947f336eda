; A launch condition decided above a join: the link returns early where %end reaches %n, then takes one of
; two paths that join before the launch. The walk up from the launch meets the join, which the early return
; avoids, so the condition is not known at entry: the pool's links are launched speculatively, and none reads
; its input before the link before has ended (no overlap). Taking the join for the start, as klap did before,
; published the successor's early arguments where the link returned early, and that successor read past the
; end of its input in its prologue.
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=none;promote=all;no-inline-runtime>' -pass-remarks=klap -pass-remarks-missed=klap -S %s -o %t.ll 2>%t.remarks
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks

; REMARK: remark: {{.*}}launch of @chain promoted with aggregation (pool of 128): {{.*}}; launch condition: not known at entry (the kernel's work decides it, or a branch above a join that some path from the entry avoids): launched speculatively, ended where the launch is not reached [KLAP412]
; REMARK: remark: {{.*}}promoted without overlap: the launch condition is not known at entry: a link launched speculatively must not run its prologue early (it could read past the end of its input) [KLAP416]
; CHECK-LABEL: define ptx_kernel void @chain__klap_pool(
; CHECK:         call ptr @__klap_pool_enter(ptr %klap.pool,
; CHECK-NOT:     call ptr @__klap_pool_wait
; CHECK-NOT:     call void @__klap_pool_publish
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare void @llvm.nvvm.barrier.cta.sync.aligned.all(i32)

define ptx_kernel void @chain(ptr noalias %in, ptr %out, i32 %n, i32 %first, float %acc) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %end = add nsw i32 %first, 64
  %i = add i32 %first, %t
  %pin = getelementptr inbounds float, ptr %in, i32 %i
  %x = load float, ptr %pin, align 4
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %acc2 = fadd float %acc, %x
  %pout = getelementptr inbounds float, ptr %out, i32 %i
  %last = icmp sge i32 %end, %n
  br i1 %last, label %done, label %work
work:
  %big = fcmp ogt float %x, 1.0
  br i1 %big, label %store.big, label %store.small
store.big:
  store float %acc2, ptr %pout, align 4
  br label %join
store.small:
  store float %acc, ptr %pout, align 4
  br label %join
join:
  %lead = icmp eq i32 %t, 0
  br i1 %lead, label %launch, label %done
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
  store float %acc2, ptr %a4, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr inttoptr (i64 4 to ptr))
  br label %done
done:
  ret void
}
