; An aggregated child's block finds its record by a division where every launch of the child in the
; module has one constant number of blocks (then so does every record of its chunks): the runtime's
; lookup gets that number, 0 where the launches differ or one is neither a constant nor uniform.
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=grid;no-inline-runtime>' -S %s -o - | FileCheck %s

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

define ptx_kernel void @same(ptr %out) {
  store i32 1, ptr %out, align 4
  ret void
}

define ptx_kernel void @differ(ptr %out) {
  store i32 2, ptr %out, align 4
  ret void
}

define ptx_kernel void @planes(ptr %out) {
  store i32 3, ptr %out, align 4
  ret void
}

define ptx_kernel void @unknown(ptr %out) {
  store i32 4, ptr %out, align 4
  ret void
}


define ptx_kernel void @parent(ptr %out) {
entry:
  %n = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %g1 = alloca %struct.dim3, align 4
  %g2 = alloca %struct.dim3, align 4
  %g3 = alloca %struct.dim3, align 4
  %g4 = alloca %struct.dim3, align 4
  %g5 = alloca %struct.dim3, align 4
  %g6 = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %b, align 4
  store %struct.dim3 { i32 4, i32 1, i32 1 }, ptr %g1, align 4
  %p1 = call ptr @__cudaCDP2GetParameterBufferV2(ptr @same, ptr byval(%struct.dim3) align 4 %g1, ptr byval(%struct.dim3) align 4 %b, i32 0)
  store ptr %out, ptr %p1, align 8
  %r1 = call i32 @__cudaCDP2LaunchDeviceV2(ptr %p1, ptr null)
  store %struct.dim3 { i32 2, i32 2, i32 1 }, ptr %g2, align 4
  %p2 = call ptr @__cudaCDP2GetParameterBufferV2(ptr @same, ptr byval(%struct.dim3) align 4 %g2, ptr byval(%struct.dim3) align 4 %b, i32 0)
  store ptr %out, ptr %p2, align 8
  %r2 = call i32 @__cudaCDP2LaunchDeviceV2(ptr %p2, ptr null)
  store %struct.dim3 { i32 4, i32 1, i32 1 }, ptr %g3, align 4
  %p3 = call ptr @__cudaCDP2GetParameterBufferV2(ptr @differ, ptr byval(%struct.dim3) align 4 %g3, ptr byval(%struct.dim3) align 4 %b, i32 0)
  store ptr %out, ptr %p3, align 8
  %r3 = call i32 @__cudaCDP2LaunchDeviceV2(ptr %p3, ptr null)
  store %struct.dim3 { i32 3, i32 1, i32 1 }, ptr %g4, align 4
  %p4 = call ptr @__cudaCDP2GetParameterBufferV2(ptr @differ, ptr byval(%struct.dim3) align 4 %g4, ptr byval(%struct.dim3) align 4 %b, i32 0)
  store ptr %out, ptr %p4, align 8
  %r4 = call i32 @__cudaCDP2LaunchDeviceV2(ptr %p4, ptr null)
  store %struct.dim3 { i32 2, i32 3, i32 1 }, ptr %g5, align 4
  %p5 = call ptr @__cudaCDP2GetParameterBufferV2(ptr @planes, ptr byval(%struct.dim3) align 4 %g5, ptr byval(%struct.dim3) align 4 %b, i32 0)
  store ptr %out, ptr %p5, align 8
  %r5 = call i32 @__cudaCDP2LaunchDeviceV2(ptr %p5, ptr null)
  %gx = getelementptr inbounds i8, ptr %g6, i64 0
  store i32 %n, ptr %gx, align 4
  %gy = getelementptr inbounds i8, ptr %g6, i64 4
  store i32 1, ptr %gy, align 4
  %gz = getelementptr inbounds i8, ptr %g6, i64 8
  store i32 1, ptr %gz, align 4
  %p6 = call ptr @__cudaCDP2GetParameterBufferV2(ptr @unknown, ptr byval(%struct.dim3) align 4 %g6, ptr byval(%struct.dim3) align 4 %b, i32 0)
  store ptr %out, ptr %p6, align 8
  %r6 = call i32 @__cudaCDP2LaunchDeviceV2(ptr %p6, ptr null)
  ret void
}

; Four blocks at both launches, one of (4,1,1) and one of (2,2,1).
; CHECK-LABEL: define ptx_kernel void @same__klap(
; CHECK:         call ptr @__klap_child_enter(ptr %klap.chunk, i32 4)
; Four and three.
; CHECK-LABEL: define ptx_kernel void @differ__klap(
; CHECK:         call ptr @__klap_child_enter(ptr %klap.chunk, i32 0)
; CHECK-LABEL: define ptx_kernel void @planes__klap(
; CHECK:         call ptr @__klap_child_enter(ptr %klap.chunk, i32 6)
; %tid blocks (a count uniform over the scope, a kernel parameter, is uniform-config-lookup.ll's).
; CHECK-LABEL: define ptx_kernel void @unknown__klap(
; CHECK:         call ptr @__klap_child_enter(ptr %klap.chunk, i32 0)
