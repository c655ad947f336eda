; Allocations whose pointer leaves what klap can follow stay as written (KLAP502): another cudaFree,
; in a function or translation unit klap does not rewrite, could receive an aggregated part.
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=warp;no-inline-runtime>' -pass-remarks-missed=klap \
; RUN:   -S %s -o - 2>%t.remarks | FileCheck %s
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

declare i32 @__cudaCDP2Malloc(ptr, i64)
declare i32 @__cudaCDP2Free(ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

@sink = addrspace(1) global ptr null
declare void @use(ptr)

; CHECK-LABEL: define ptx_kernel void @stored(
; CHECK:         call i32 @__cudaCDP2Malloc(ptr %slot, i64 16)
; CHECK-NOT:     __klap
; CHECK:         ret void
; REMARK: remark: {{.*}}cudaMalloc not aggregated: its pointer is stored to memory in `store ptr %p, ptr addrspace(1) @sink, align 8`, where klap cannot see every cudaFree it may reach [KLAP502]
define ptx_kernel void @stored() {
  %slot = alloca ptr, align 8
  %err = call i32 @__cudaCDP2Malloc(ptr %slot, i64 16)
  %p = load ptr, ptr %slot, align 8
  store ptr %p, ptr addrspace(1) @sink, align 8
  ret void
}

; A pointer inside the allocation passed on escapes as well; so does its integer value where it is kept
; (an alignment test or a comparison of it does not: test/ir/malloc/aggregated.ll).
; CHECK-LABEL: define ptx_kernel void @passed(
; CHECK:         call i32 @__cudaCDP2Malloc(ptr %slot, i64 16)
; CHECK:         call i32 @__cudaCDP2Free(ptr %p)
; REMARK: remark: {{.*}}cudaMalloc not aggregated: its pointer is passed to a call in `call void @use(ptr %inside)`{{.*}}[KLAP502]
define ptx_kernel void @passed() {
  %slot = alloca ptr, align 8
  %err = call i32 @__cudaCDP2Malloc(ptr %slot, i64 16)
  %p = load ptr, ptr %slot, align 8
  %inside = getelementptr inbounds i8, ptr %p, i64 8
  call void @use(ptr %inside)
  %f = call i32 @__cudaCDP2Free(ptr %p)
  ret void
}

; CHECK-LABEL: define ptx_kernel void @as_integer(
; CHECK:         call i32 @__cudaCDP2Malloc(ptr %slot, i64 16)
; REMARK: remark: {{.*}}cudaMalloc not aggregated: its pointer becomes an integer that is kept or turned back into a pointer in `store i64 %i, ptr addrspace(1) %out, align 8`{{.*}}[KLAP502]
define ptx_kernel void @as_integer(ptr addrspace(1) %out) {
  %slot = alloca ptr, align 8
  %err = call i32 @__cudaCDP2Malloc(ptr %slot, i64 16)
  %p = load ptr, ptr %slot, align 8
  %i = ptrtoint ptr %p to i64
  store i64 %i, ptr addrspace(1) %out, align 8
  ret void
}
