; A launch after a loop that is left in its middle and also returns from it (`%stop`, which the loop's work
; decides): the branch out of the loop towards the launch is not the loop's only way out, so it decides whether
; the launch comes, and its test (a loop counter) is the kernel's work: the condition is not known at entry, the
; links are launched speculatively and wait at their start (no overlap). condition-loop-exit.ll is the same loop
; with one way out.
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=none;promote=all;no-inline-runtime>' -pass-remarks=klap -pass-remarks-missed=klap -S %s -o %t.ll 2>%t.remarks
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks

; REMARK: remark: {{.*}}launch of @chain promoted with aggregation (pool of 128): {{.*}}; launch condition: not known at entry {{.*}}[KLAP412]
; REMARK: remark: {{.*}}promoted without overlap: the launch condition is not known at entry: {{.*}}[KLAP416]
; CHECK-LABEL: define ptx_kernel void @chain__klap_pool(
; CHECK:         call ptr @__klap_pool_enter(ptr %klap.pool,
; CHECK-NOT:     call ptr @__klap_pool_wait
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare void @llvm.nvvm.barrier.cta.sync.aligned.all(i32)

define ptx_kernel void @chain(ptr noalias %in, ptr %out, i32 %n, i32 %first, i32 %tiles, float %acc) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %end = add nsw i32 %first, 64
  %i0 = add i32 %first, %t
  %p0 = getelementptr inbounds float, ptr %in, i32 %i0
  %x0 = load float, ptr %p0, align 4
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  br label %tile
tile:
  %k = phi i32 [ 0, %entry ], [ %k1, %next ]
  %x = phi float [ %x0, %entry ], [ %xn, %next ]
  %j = add i32 %i0, %k
  %y = fadd float %acc, %x
  %pout = getelementptr inbounds float, ptr %out, i32 %j
  store float %y, ptr %pout, align 4
  %k1 = add nuw nsw i32 %k, 1
  %more.tiles = icmp slt i32 %k1, %tiles
  br i1 %more.tiles, label %next, label %after
next:
  %jn = add i32 %i0, %k1
  %pn = getelementptr inbounds float, ptr %in, i32 %jn
  %xn = load float, ptr %pn, align 4
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %stop = icmp eq i32 %jn, %n
  br i1 %stop, label %done, label %tile
after:
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
  store i32 %tiles, ptr %a4, align 4
  %a5 = getelementptr inbounds i8, ptr %buf, i64 28
  store float %acc, ptr %a5, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr inttoptr (i64 4 to ptr))
  br label %done
done:
  ret void
}
