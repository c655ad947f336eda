; An allocation in a loop whose trip count differs between lanes: each time a lane reaches the call it
; joins the lanes that reach it with it (the runtime takes activemask there), whatever their iteration.
; The pointer of the previous iteration, carried in a phi with null, is freed by klap's free.
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=warp;no-inline-runtime>' -pass-remarks=klap \
; RUN:   -S %s -o - 2>%t.remarks | FileCheck %s
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

declare i32 @__cudaCDP2Malloc(ptr, i64)
declare i32 @__cudaCDP2Free(ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

; CHECK-LABEL: define ptx_kernel void @rounds(
; CHECK:       loop:
; CHECK:         %err = call i32 @__klap_malloc(ptr %slot, i64 %bytes)
; CHECK:         call i32 @__klap_free(ptr %prev)
; CHECK:       exit:
; CHECK:         call i32 @__klap_free(ptr %last)
; REMARK: remark: {{.*}}cudaMalloc aggregated per warp: the lanes that reach it together share one allocation; its 2 cudaFree calls give the part back [KLAP500]
define ptx_kernel void @rounds(ptr %out, i32 %n) {
entry:
  %slot = alloca ptr, align 8
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %extra = and i32 %tid, 3
  %trips = add i32 %n, %extra
  br label %loop

loop:
  %i = phi i32 [ 0, %entry ], [ %next, %loop ]
  %prev = phi ptr [ null, %entry ], [ %p, %loop ]
  %i64 = zext i32 %i to i64
  %bytes = shl i64 %i64, 2
  %err = call i32 @__cudaCDP2Malloc(ptr %slot, i64 %bytes)
  %f = call i32 @__cudaCDP2Free(ptr %prev)
  %p = load ptr, ptr %slot, align 8
  store i32 %i, ptr %p, align 4
  %next = add i32 %i, 1
  %more = icmp ult i32 %next, %trips
  br i1 %more, label %loop, label %exit

exit:
  %last = phi ptr [ %p, %loop ]
  %v = load i32, ptr %last, align 4
  %q = getelementptr inbounds i32, ptr %out, i32 %tid
  store i32 %v, ptr %q, align 4
  %g = call i32 @__cudaCDP2Free(ptr %last)
  ret void
}
