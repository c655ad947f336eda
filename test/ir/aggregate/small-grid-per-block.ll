; At auto, a kernel launched as written enters its grid scope with __klap_grid_enter_per_block, which
; makes the scope each block's own where the runtime finds the flags' conditions: blocks of 1024 threads or
; more (flag 2, every kernel), and, for a kernel whose every launch is what serialization left for children
; above its run-time threshold, a grid of at most 16384 threads (flag 1). A kernel with another launch
; besides takes flag 2 alone. At grid granularity the scope is the grid's (__klap_grid_enter).
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=auto;no-inline-runtime>' -pass-remarks=klap -S %s -o %t.ll 2>%t.remarks
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=grid;no-inline-runtime>' -S %s -o - | FileCheck --check-prefix=GRID %s

; GRID-LABEL: define ptx_kernel void @only_fallback(
; GRID:         call ptr @__klap_grid_enter(i32 1,
; GRID-LABEL: define ptx_kernel void @also_synced(
; GRID:         call ptr @__klap_grid_enter(i32 2,
; GRID-NOT:     __klap_grid_enter_per_block

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare void @llvm.nvvm.barrier0()

define ptx_kernel void @child(ptr %out, i32 %k) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %p = getelementptr inbounds i32, ptr %out, i32 %t
  store i32 %k, ptr %p, align 4
  ret void
}

; Its threads wait for each other: never serialized.
define ptx_kernel void @synced(ptr %out, i32 %k) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  call void @llvm.nvvm.barrier0()
  %p = getelementptr inbounds i32, ptr %out, i32 %t
  store i32 %k, ptr %p, align 4
  ret void
}

; REMARK: launch of @child aggregated at grid granularity {{.*}}; per block where the launching grid has at most 16384 threads (checked at run time): every launch of its kernel is what serialization left for larger children; per block where the launching blocks have 1024 threads or more (checked at run time): such a block gathers enough launches by itself, and its children start when it ends [KLAP200]
; CHECK-LABEL: define ptx_kernel void @only_fallback(
; CHECK:         call ptr @__klap_grid_enter_per_block(i32 3, i32 1,
; CHECK:         call void @child__klap_serial(
; CHECK:         call ptr @__klap_scope_register(
define ptx_kernel void @only_fallback(ptr %out, i32 %n) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  %gv = insertvalue %struct.dim3 { i32 poison, i32 1, i32 1 }, i32 %n, 0
  store %struct.dim3 %gv, ptr %g, align 4
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  %ok = icmp ne ptr %buf, null
  br i1 %ok, label %fill, label %done
fill:
  store ptr %out, ptr %buf, align 8
  %a1 = getelementptr inbounds i8, ptr %buf, i64 8
  store i32 %n, ptr %a1, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  br label %done
done:
  ret void
}

; CHECK-LABEL: define ptx_kernel void @also_synced(
; CHECK:         call ptr @__klap_grid_enter_per_block(i32 2, i32 2,
; CHECK:         ret void
define ptx_kernel void @also_synced(ptr %out, i32 %n) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  %gv = insertvalue %struct.dim3 { i32 poison, i32 1, i32 1 }, i32 %n, 0
  store %struct.dim3 %gv, ptr %g, align 4
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  store ptr %out, ptr %buf, align 8
  %a1 = getelementptr inbounds i8, ptr %buf, i64 8
  store i32 %n, ptr %a1, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  %buf2 = call ptr @__cudaCDP2GetParameterBufferV2(ptr @synced, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  store ptr %out, ptr %buf2, align 8
  %a2 = getelementptr inbounds i8, ptr %buf2, i64 8
  store i32 %n, ptr %a2, align 4
  %r2 = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf2, ptr null)
  ret void
}
