; Entry points with a launch name but not the launch ABI's signature: a cudaLaunchDevice declared
; with five parameters instead of six, a V2 parameter-buffer entry with three instead of four, and a
; V1 launch whose dim3 pointers are not byval. klap must not guess what such calls mean: each launch
; is left alone with reason=bad-signature.
; RUN: %opt -load-pass-plugin=%plugin -passes='print<klap-launches>' -disable-output %s 2>&1 | FileCheck %s

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @cudaGetParameterBuffer(i64, i64)
declare i32 @cudaLaunchDevice(ptr, ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare ptr @__cudaCDP2GetParameterBufferV2(ptr, %struct.dim3, %struct.dim3)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare ptr @__cudaCDP2GetParameterBuffer(i64, i64)
declare i32 @__cudaCDP2LaunchDevice(ptr, ptr, ptr, ptr, i32, ptr)

define ptx_kernel void @child(i32 %v) {
  ret void
}

; CHECK-NOT: klap-launch:
; CHECK: klap-launch-unrecognized: caller=five_parameters abi=v1 reason=bad-signature detail="launch entry takes 5 arguments, expected 6"
define ptx_kernel void @five_parameters(i32 %v) {
entry:
  %grid = alloca %struct.dim3, align 8
  %block = alloca %struct.dim3, align 8
  %buf = call ptr @cudaGetParameterBuffer(i64 64, i64 4)
  store i32 %v, ptr %buf, align 64
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %grid, align 8
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %block, align 8
  %r = call i32 @cudaLaunchDevice(ptr @child, ptr %buf, ptr byval(%struct.dim3) align 4 %grid, ptr byval(%struct.dim3) align 4 %block, i32 0)
  ret void
}

; CHECK-NEXT: klap-launch-unrecognized: caller=short_buffer_call abi=v2 reason=bad-signature detail="parameter-buffer entry takes 3 arguments, expected 4"
define ptx_kernel void @short_buffer_call(i32 %v) {
entry:
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, %struct.dim3 { i32 1, i32 1, i32 1 }, %struct.dim3 { i32 1, i32 1, i32 1 })
  store i32 %v, ptr %buf, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  ret void
}

; CHECK-NEXT: klap-launch-unrecognized: caller=dim3_not_byval abi=v1 reason=bad-signature detail="a dim3 is passed as a pointer without byval"
; CHECK-NOT: klap-launch
define ptx_kernel void @dim3_not_byval(i32 %v) {
entry:
  %grid = alloca %struct.dim3, align 8
  %block = alloca %struct.dim3, align 8
  %buf = call ptr @__cudaCDP2GetParameterBuffer(i64 64, i64 4)
  store i32 %v, ptr %buf, align 64
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %grid, align 8
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %block, align 8
  %r = call i32 @__cudaCDP2LaunchDevice(ptr @child, ptr %buf, ptr %grid, ptr %block, i32 0, ptr null)
  ret void
}
