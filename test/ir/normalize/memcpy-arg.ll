; A struct argument copied into the V1 buffer with llvm.memcpy (as clang does for larger structs and
; at -O0): the bytes are read where the copy was and stored into the V2 buffer at the launch.
; RUN: %opt -load-pass-plugin=%plugin -passes=klap-normalize -S %s -o - | FileCheck %s

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }
%struct.Big = type { i32, double, [4 x float] }

declare ptr @__cudaCDP2GetParameterBuffer(i64, i64)
declare i32 @__cudaCDP2LaunchDevice(ptr, ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32, ptr)
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)

define ptx_kernel void @child(i32 %k, ptr byval(%struct.Big) align 8 %big) {
  ret void
}

; CHECK-LABEL: define ptx_kernel void @parent(
; CHECK:         [[V:%.*]] = load %struct.Big, ptr %src, align 8
; CHECK:         store i32 7, ptr %src, align 4
; CHECK:         [[BUF:%.*]] = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child,
; CHECK:         store i32 %k, ptr [[BUF]], align 4
; CHECK-NEXT:    [[P:%.*]] = getelementptr inbounds i8, ptr [[BUF]], i64 8
; CHECK-NEXT:    store %struct.Big [[V]], ptr [[P]], align 8
; CHECK-NEXT:    call i32 @__cudaCDP2LaunchDeviceV2(ptr [[BUF]], ptr null)
; CHECK-NOT:     llvm.memcpy
define ptx_kernel void @parent(i32 %k, ptr %src) {
entry:
  %g = alloca %struct.dim3, align 8
  %b = alloca %struct.dim3, align 8
  %buf = call ptr @__cudaCDP2GetParameterBuffer(i64 64, i64 40)
  store i32 %k, ptr %buf, align 64
  %p = getelementptr inbounds i8, ptr %buf, i64 8
  call void @llvm.memcpy.p0.p0.i64(ptr align 8 %p, ptr align 8 %src, i64 32, i1 false)
  ; A later change to the source must not reach the child.
  store i32 7, ptr %src, align 4
  store %struct.dim3 { i32 2, i32 1, i32 1 }, ptr %g, align 8
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %b, align 8
  %r = call i32 @__cudaCDP2LaunchDevice(ptr @child, ptr %buf, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0, ptr null)
  ret void
}
