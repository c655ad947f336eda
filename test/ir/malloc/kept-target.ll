; Allocations whose pointer goes where klap cannot follow it stay as written (KLAP501): into memory
; that is not a local variable, or into a local variable something else uses.
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=warp;no-inline-runtime>' -pass-remarks-missed=klap \
; RUN:   -S %s -o - 2>%t.remarks | FileCheck %s
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

declare i32 @__cudaCDP2Malloc(ptr, i64)
declare i32 @__cudaCDP2Free(ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

declare void @fill(ptr)

; CHECK-LABEL: define ptx_kernel void @into_array(
; CHECK:         call i32 @__cudaCDP2Malloc(ptr %at, i64 32)
; REMARK: remark: {{.*}}cudaMalloc not aggregated: its pointer is written to %at, not to a local variable klap can follow [KLAP501]
define ptx_kernel void @into_array(ptr %slots) {
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %at = getelementptr inbounds ptr, ptr %slots, i32 %tid
  %err = call i32 @__cudaCDP2Malloc(ptr %at, i64 32)
  ret void
}

; CHECK-LABEL: define ptx_kernel void @variable_passed(
; CHECK:         call i32 @__cudaCDP2Malloc(ptr %slot, i64 32)
; CHECK:         call i32 @__cudaCDP2Free(ptr %p)
; REMARK: remark: {{.*}}cudaMalloc not aggregated: its variable %slot is also used by `call void @fill(ptr %slot)` [KLAP501]
define ptx_kernel void @variable_passed() {
  %slot = alloca ptr, align 8
  %err = call i32 @__cudaCDP2Malloc(ptr %slot, i64 32)
  call void @fill(ptr %slot)
  %p = load ptr, ptr %slot, align 8
  %f = call i32 @__cudaCDP2Free(ptr %p)
  ret void
}
