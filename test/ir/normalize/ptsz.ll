; A per-thread-default-stream build's V1 launch (__cudaCDP2LaunchDevice_ptsz) becomes
; __cudaCDP2LaunchDeviceV2_ptsz; the parameter buffer has no _ptsz variant.
; RUN: %opt -load-pass-plugin=%plugin -passes=klap-normalize -S %s -o - | FileCheck %s

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBuffer(i64, i64)
declare i32 @__cudaCDP2LaunchDevice_ptsz(ptr, ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32, ptr)

define ptx_kernel void @child() {
  ret void
}

; CHECK-LABEL: define ptx_kernel void @parent(
; CHECK:         [[BUF:%.*]] = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child,
; CHECK:         call i32 @__cudaCDP2LaunchDeviceV2_ptsz(ptr [[BUF]], ptr null)
define ptx_kernel void @parent() {
  %g = alloca %struct.dim3, align 8
  %b = alloca %struct.dim3, align 8
  %buf = call ptr @__cudaCDP2GetParameterBuffer(i64 64, i64 0)
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %g, align 8
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %b, align 8
  %r = call i32 @__cudaCDP2LaunchDevice_ptsz(ptr @child, ptr %buf, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0, ptr null)
  ret void
}
