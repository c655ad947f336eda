; A parameter buffer that is used for anything but argument writes, null checks and its own launch
; may be read or written where klap cannot see it: passed to another function, or its address stored
; to memory. klap must leave such a launch alone (reason=buffer-escapes) and name the use.
; RUN: %opt -load-pass-plugin=%plugin -passes='print<klap-launches>' -disable-output %s 2>&1 | FileCheck %s

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBuffer(i64, i64)
declare i32 @__cudaCDP2LaunchDevice(ptr, ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32, ptr)
declare void @fill_args(ptr)

define ptx_kernel void @child(i32 %v) {
  ret void
}

; CHECK-NOT: klap-launch:
; CHECK: klap-launch-unrecognized: caller=passed_to_call abi=v1 reason=buffer-escapes detail="the parameter buffer is passed to @fill_args"
define ptx_kernel void @passed_to_call() {
entry:
  %grid = alloca %struct.dim3, align 8
  %block = alloca %struct.dim3, align 8
  %buf = call ptr @__cudaCDP2GetParameterBuffer(i64 64, i64 4)
  call void @fill_args(ptr %buf)
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %grid, align 8
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %block, align 8
  %r = call i32 @__cudaCDP2LaunchDevice(ptr @child, ptr %buf, ptr byval(%struct.dim3) align 4 %grid, ptr byval(%struct.dim3) align 4 %block, i32 0, ptr null)
  ret void
}

; The detail must name the store (a void instruction has no operand name to print: not <badref>).
; CHECK-NEXT: klap-launch-unrecognized: caller=address_stored abi=v1 reason=buffer-escapes detail="the parameter buffer is used by {{.*}}store{{.*}}"
; CHECK-NOT: klap-launch
define ptx_kernel void @address_stored(ptr %slot, i32 %v) {
entry:
  %grid = alloca %struct.dim3, align 8
  %block = alloca %struct.dim3, align 8
  %buf = call ptr @__cudaCDP2GetParameterBuffer(i64 64, i64 4)
  store i32 %v, ptr %buf, align 64
  store ptr %buf, ptr %slot, align 8
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %grid, align 8
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %block, align 8
  %r = call i32 @__cudaCDP2LaunchDevice(ptr @child, ptr %buf, ptr byval(%struct.dim3) align 4 %grid, ptr byval(%struct.dim3) align 4 %block, i32 0, ptr null)
  ret void
}
