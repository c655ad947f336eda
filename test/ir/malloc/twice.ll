; A module klap aggregated already is left as it is: the runtime's own cudaMalloc, inlined where the
; program's was, must not be aggregated in turn (the module records the step in !klap.transformed).
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=warp>' -S %s -o %t.once.ll
; RUN: FileCheck %s < %t.once.ll
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=warp>' -S %t.once.ll -o %t.again.ll
; RUN: sed -e 1d -e 's/; preds.*//' %t.once.ll > %t.once.body
; RUN: sed -e 1d -e 's/; preds.*//' %t.again.ll > %t.again.body
; RUN: diff %t.once.body %t.again.body

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

declare i32 @__cudaCDP2Malloc(ptr, i64)
declare i32 @__cudaCDP2Free(ptr)

; CHECK-LABEL: define ptx_kernel void @scratch(
; CHECK-NOT:     call {{.*}}@__klap_malloc
; CHECK:         activemask.b32
; CHECK:         call i32 @__cudaCDP2Malloc(
; CHECK:         match.any.sync
; CHECK:         call i32 @__cudaCDP2Free(
; CHECK: !klap.transformed = !{![[MARK:[0-9]+]]}
; CHECK: ![[MARK]] = !{!"malloc"}
define ptx_kernel void @scratch(i64 %bytes) {
  %slot = alloca ptr, align 8
  %err = call i32 @__cudaCDP2Malloc(ptr %slot, i64 %bytes)
  %p = load ptr, ptr %slot, align 8
  store i8 1, ptr %p, align 1
  %f = call i32 @__cudaCDP2Free(ptr %p)
  ret void
}
