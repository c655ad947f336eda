; An aggregated child's block finds its record by a division by the chunk's first record's blocks where
; every launch of the child registers one configuration over its scope: grid, block and dynamic shared
; memory each computed from constants and the launching kernel's parameters (uniform, as arguments passed
; once are), and the launches that may share a chunk giving the very same values. The runtime's lookup
; then gets UNIFORM_RECORDS (-1). Not uniform: a value of the thread in the grid, the block or the shared
; memory; two launches in one kernel with different parameters; a launch in a device function (its
; parameters differ between callers).
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=grid;no-inline-runtime>' -pass-remarks=klap -S %s -o %t.ll 2>%t.remarks
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

; REMARK: launch of @by_param aggregated at grid granularity (8 argument bytes per record, 8 of them passed once, as the aggregated kernel's parameters, one configuration over the scope: records found by a division) [KLAP200]
; REMARK: launch of @by_tid aggregated at grid granularity (8 argument bytes per record, 8 of them passed once, as the aggregated kernel's parameters) [KLAP200]

define ptx_kernel void @by_param(ptr %out) {
  store i32 0, ptr %out, align 4
  ret void
}

define ptx_kernel void @by_tid(ptr %out) {
  store i32 1, ptr %out, align 4
  ret void
}

define ptx_kernel void @block_by_tid(ptr %out) {
  store i32 2, ptr %out, align 4
  ret void
}

define ptx_kernel void @smem_by_tid(ptr %out) {
  store i32 3, ptr %out, align 4
  ret void
}

define ptx_kernel void @two_params(ptr %out) {
  store i32 4, ptr %out, align 4
  ret void
}

define ptx_kernel void @same_param_twice(ptr %out) {
  store i32 5, ptr %out, align 4
  ret void
}

define ptx_kernel void @across(ptr %out) {
  store i32 6, ptr %out, align 4
  ret void
}

define ptx_kernel void @in_devfn(ptr %out) {
  store i32 7, ptr %out, align 4
  ret void
}

define ptx_kernel void @parent(ptr %out, i32 %n, i32 %m) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %n2 = shl i32 %n, 1
  %g1 = alloca %struct.dim3, align 4
  %b1 = alloca %struct.dim3, align 4
  store i32 %n2, ptr %g1, align 4
  %g1y = getelementptr inbounds i8, ptr %g1, i64 4
  store i32 1, ptr %g1y, align 4
  %g1z = getelementptr inbounds i8, ptr %g1, i64 8
  store i32 1, ptr %g1z, align 4
  store i32 32, ptr %b1, align 4
  %b1y = getelementptr inbounds i8, ptr %b1, i64 4
  store i32 1, ptr %b1y, align 4
  %b1z = getelementptr inbounds i8, ptr %b1, i64 8
  store i32 1, ptr %b1z, align 4
  %p1 = call ptr @__cudaCDP2GetParameterBufferV2(ptr @by_param, ptr byval(%struct.dim3) align 4 %g1, ptr byval(%struct.dim3) align 4 %b1, i32 0)
  store ptr %out, ptr %p1, align 8
  %r1 = call i32 @__cudaCDP2LaunchDeviceV2(ptr %p1, ptr null)
  %g2 = alloca %struct.dim3, align 4
  %b2 = alloca %struct.dim3, align 4
  store i32 %tid, ptr %g2, align 4
  %g2y = getelementptr inbounds i8, ptr %g2, i64 4
  store i32 1, ptr %g2y, align 4
  %g2z = getelementptr inbounds i8, ptr %g2, i64 8
  store i32 1, ptr %g2z, align 4
  store i32 32, ptr %b2, align 4
  %b2y = getelementptr inbounds i8, ptr %b2, i64 4
  store i32 1, ptr %b2y, align 4
  %b2z = getelementptr inbounds i8, ptr %b2, i64 8
  store i32 1, ptr %b2z, align 4
  %p2 = call ptr @__cudaCDP2GetParameterBufferV2(ptr @by_tid, ptr byval(%struct.dim3) align 4 %g2, ptr byval(%struct.dim3) align 4 %b2, i32 0)
  store ptr %out, ptr %p2, align 8
  %r2 = call i32 @__cudaCDP2LaunchDeviceV2(ptr %p2, ptr null)
  %g3 = alloca %struct.dim3, align 4
  %b3 = alloca %struct.dim3, align 4
  store i32 %n, ptr %g3, align 4
  %g3y = getelementptr inbounds i8, ptr %g3, i64 4
  store i32 1, ptr %g3y, align 4
  %g3z = getelementptr inbounds i8, ptr %g3, i64 8
  store i32 1, ptr %g3z, align 4
  store i32 %tid, ptr %b3, align 4
  %b3y = getelementptr inbounds i8, ptr %b3, i64 4
  store i32 1, ptr %b3y, align 4
  %b3z = getelementptr inbounds i8, ptr %b3, i64 8
  store i32 1, ptr %b3z, align 4
  %p3 = call ptr @__cudaCDP2GetParameterBufferV2(ptr @block_by_tid, ptr byval(%struct.dim3) align 4 %g3, ptr byval(%struct.dim3) align 4 %b3, i32 0)
  store ptr %out, ptr %p3, align 8
  %r3 = call i32 @__cudaCDP2LaunchDeviceV2(ptr %p3, ptr null)
  %g4 = alloca %struct.dim3, align 4
  %b4 = alloca %struct.dim3, align 4
  store i32 %n, ptr %g4, align 4
  %g4y = getelementptr inbounds i8, ptr %g4, i64 4
  store i32 1, ptr %g4y, align 4
  %g4z = getelementptr inbounds i8, ptr %g4, i64 8
  store i32 1, ptr %g4z, align 4
  store i32 32, ptr %b4, align 4
  %b4y = getelementptr inbounds i8, ptr %b4, i64 4
  store i32 1, ptr %b4y, align 4
  %b4z = getelementptr inbounds i8, ptr %b4, i64 8
  store i32 1, ptr %b4z, align 4
  %p4 = call ptr @__cudaCDP2GetParameterBufferV2(ptr @smem_by_tid, ptr byval(%struct.dim3) align 4 %g4, ptr byval(%struct.dim3) align 4 %b4, i32 %tid)
  store ptr %out, ptr %p4, align 8
  %r4 = call i32 @__cudaCDP2LaunchDeviceV2(ptr %p4, ptr null)
  %g5 = alloca %struct.dim3, align 4
  %b5 = alloca %struct.dim3, align 4
  store i32 %n, ptr %g5, align 4
  %g5y = getelementptr inbounds i8, ptr %g5, i64 4
  store i32 1, ptr %g5y, align 4
  %g5z = getelementptr inbounds i8, ptr %g5, i64 8
  store i32 1, ptr %g5z, align 4
  store i32 32, ptr %b5, align 4
  %b5y = getelementptr inbounds i8, ptr %b5, i64 4
  store i32 1, ptr %b5y, align 4
  %b5z = getelementptr inbounds i8, ptr %b5, i64 8
  store i32 1, ptr %b5z, align 4
  %p5 = call ptr @__cudaCDP2GetParameterBufferV2(ptr @two_params, ptr byval(%struct.dim3) align 4 %g5, ptr byval(%struct.dim3) align 4 %b5, i32 0)
  store ptr %out, ptr %p5, align 8
  %r5 = call i32 @__cudaCDP2LaunchDeviceV2(ptr %p5, ptr null)
  %g6 = alloca %struct.dim3, align 4
  %b6 = alloca %struct.dim3, align 4
  store i32 %m, ptr %g6, align 4
  %g6y = getelementptr inbounds i8, ptr %g6, i64 4
  store i32 1, ptr %g6y, align 4
  %g6z = getelementptr inbounds i8, ptr %g6, i64 8
  store i32 1, ptr %g6z, align 4
  store i32 32, ptr %b6, align 4
  %b6y = getelementptr inbounds i8, ptr %b6, i64 4
  store i32 1, ptr %b6y, align 4
  %b6z = getelementptr inbounds i8, ptr %b6, i64 8
  store i32 1, ptr %b6z, align 4
  %p6 = call ptr @__cudaCDP2GetParameterBufferV2(ptr @two_params, ptr byval(%struct.dim3) align 4 %g6, ptr byval(%struct.dim3) align 4 %b6, i32 0)
  store ptr %out, ptr %p6, align 8
  %r6 = call i32 @__cudaCDP2LaunchDeviceV2(ptr %p6, ptr null)
  %g7 = alloca %struct.dim3, align 4
  %b7 = alloca %struct.dim3, align 4
  store i32 %n, ptr %g7, align 4
  %g7y = getelementptr inbounds i8, ptr %g7, i64 4
  store i32 1, ptr %g7y, align 4
  %g7z = getelementptr inbounds i8, ptr %g7, i64 8
  store i32 1, ptr %g7z, align 4
  store i32 32, ptr %b7, align 4
  %b7y = getelementptr inbounds i8, ptr %b7, i64 4
  store i32 1, ptr %b7y, align 4
  %b7z = getelementptr inbounds i8, ptr %b7, i64 8
  store i32 1, ptr %b7z, align 4
  %p7 = call ptr @__cudaCDP2GetParameterBufferV2(ptr @same_param_twice, ptr byval(%struct.dim3) align 4 %g7, ptr byval(%struct.dim3) align 4 %b7, i32 0)
  store ptr %out, ptr %p7, align 8
  %r7 = call i32 @__cudaCDP2LaunchDeviceV2(ptr %p7, ptr null)
  %g8 = alloca %struct.dim3, align 4
  %b8 = alloca %struct.dim3, align 4
  store i32 %n, ptr %g8, align 4
  %g8y = getelementptr inbounds i8, ptr %g8, i64 4
  store i32 1, ptr %g8y, align 4
  %g8z = getelementptr inbounds i8, ptr %g8, i64 8
  store i32 1, ptr %g8z, align 4
  store i32 32, ptr %b8, align 4
  %b8y = getelementptr inbounds i8, ptr %b8, i64 4
  store i32 1, ptr %b8y, align 4
  %b8z = getelementptr inbounds i8, ptr %b8, i64 8
  store i32 1, ptr %b8z, align 4
  %p8 = call ptr @__cudaCDP2GetParameterBufferV2(ptr @same_param_twice, ptr byval(%struct.dim3) align 4 %g8, ptr byval(%struct.dim3) align 4 %b8, i32 0)
  store ptr %out, ptr %p8, align 8
  %r8 = call i32 @__cudaCDP2LaunchDeviceV2(ptr %p8, ptr null)
  %g9 = alloca %struct.dim3, align 4
  %b9 = alloca %struct.dim3, align 4
  store i32 %n, ptr %g9, align 4
  %g9y = getelementptr inbounds i8, ptr %g9, i64 4
  store i32 1, ptr %g9y, align 4
  %g9z = getelementptr inbounds i8, ptr %g9, i64 8
  store i32 1, ptr %g9z, align 4
  store i32 32, ptr %b9, align 4
  %b9y = getelementptr inbounds i8, ptr %b9, i64 4
  store i32 1, ptr %b9y, align 4
  %b9z = getelementptr inbounds i8, ptr %b9, i64 8
  store i32 1, ptr %b9z, align 4
  %p9 = call ptr @__cudaCDP2GetParameterBufferV2(ptr @across, ptr byval(%struct.dim3) align 4 %g9, ptr byval(%struct.dim3) align 4 %b9, i32 0)
  store ptr %out, ptr %p9, align 8
  %r9 = call i32 @__cudaCDP2LaunchDeviceV2(ptr %p9, ptr null)
  call void @launch_in_devfn(ptr %out, i32 %n)
  ret void
}

define ptx_kernel void @other(ptr %out, i32 %k) {
entry:
  %g10 = alloca %struct.dim3, align 4
  %b10 = alloca %struct.dim3, align 4
  store i32 %k, ptr %g10, align 4
  %g10y = getelementptr inbounds i8, ptr %g10, i64 4
  store i32 1, ptr %g10y, align 4
  %g10z = getelementptr inbounds i8, ptr %g10, i64 8
  store i32 1, ptr %g10z, align 4
  store i32 32, ptr %b10, align 4
  %b10y = getelementptr inbounds i8, ptr %b10, i64 4
  store i32 1, ptr %b10y, align 4
  %b10z = getelementptr inbounds i8, ptr %b10, i64 8
  store i32 1, ptr %b10z, align 4
  %p10 = call ptr @__cudaCDP2GetParameterBufferV2(ptr @across, ptr byval(%struct.dim3) align 4 %g10, ptr byval(%struct.dim3) align 4 %b10, i32 0)
  store ptr %out, ptr %p10, align 8
  %r10 = call i32 @__cudaCDP2LaunchDeviceV2(ptr %p10, ptr null)
  call void @launch_in_devfn(ptr %out, i32 %k)
  ret void
}

define internal void @launch_in_devfn(ptr %out, i32 %n) noinline {
entry:
  %g11 = alloca %struct.dim3, align 4
  %b11 = alloca %struct.dim3, align 4
  store i32 %n, ptr %g11, align 4
  %g11y = getelementptr inbounds i8, ptr %g11, i64 4
  store i32 1, ptr %g11y, align 4
  %g11z = getelementptr inbounds i8, ptr %g11, i64 8
  store i32 1, ptr %g11z, align 4
  store i32 32, ptr %b11, align 4
  %b11y = getelementptr inbounds i8, ptr %b11, i64 4
  store i32 1, ptr %b11y, align 4
  %b11z = getelementptr inbounds i8, ptr %b11, i64 8
  store i32 1, ptr %b11z, align 4
  %p11 = call ptr @__cudaCDP2GetParameterBufferV2(ptr @in_devfn, ptr byval(%struct.dim3) align 4 %g11, ptr byval(%struct.dim3) align 4 %b11, i32 0)
  store ptr %out, ptr %p11, align 8
  %r11 = call i32 @__cudaCDP2LaunchDeviceV2(ptr %p11, ptr null)
  ret void
}

; CHECK-LABEL: define ptx_kernel void @by_param__klap(
; CHECK:         call ptr @__klap_child_enter(ptr %klap.chunk, i32 -1)
; CHECK-LABEL: define ptx_kernel void @by_tid__klap(
; CHECK:         call ptr @__klap_child_enter(ptr %klap.chunk, i32 0)
; CHECK-LABEL: define ptx_kernel void @block_by_tid__klap(
; CHECK:         call ptr @__klap_child_enter(ptr %klap.chunk, i32 0)
; CHECK-LABEL: define ptx_kernel void @smem_by_tid__klap(
; CHECK:         call ptr @__klap_child_enter(ptr %klap.chunk, i32 0)
; CHECK-LABEL: define ptx_kernel void @two_params__klap(
; CHECK:         call ptr @__klap_child_enter(ptr %klap.chunk, i32 0)
; CHECK-LABEL: define ptx_kernel void @same_param_twice__klap(
; CHECK:         call ptr @__klap_child_enter(ptr %klap.chunk, i32 -1)
; Each kernel's launches are uniform over its own scope; the two never share a chunk.
; CHECK-LABEL: define ptx_kernel void @across__klap(
; CHECK:         call ptr @__klap_child_enter(ptr %klap.chunk, i32 -1)
; CHECK-LABEL: define ptx_kernel void @in_devfn__klap(
; CHECK:         call ptr @__klap_child_enter(ptr %klap.chunk, i32 0)
