; In the V1 form the caller asks for the buffer size itself: a size smaller than the child's
; parameters need (8 bytes for a ptr and an i32 at offset 8, which take 12) means the caller and the
; child disagree about the layout, and klap leaves the launch alone (reason=layout-mismatch).
; RUN: %opt -load-pass-plugin=%plugin -passes='print<klap-launches>' -disable-output %s 2>&1 | FileCheck %s

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBuffer(i64, i64)
declare i32 @__cudaCDP2LaunchDevice(ptr, ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32, ptr)

define ptx_kernel void @child(ptr %p, i32 %v) {
  ret void
}

; CHECK-NOT: klap-launch:
; CHECK: klap-launch-unrecognized: caller=parent abi=v1 reason=layout-mismatch detail="the buffer holds 8 bytes but the parameters of @child take 12"
; CHECK-NOT: klap-launch
define ptx_kernel void @parent(ptr %p) {
entry:
  %grid = alloca %struct.dim3, align 8
  %block = alloca %struct.dim3, align 8
  %buf = call ptr @__cudaCDP2GetParameterBuffer(i64 64, i64 8)
  store ptr %p, ptr %buf, align 64
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %grid, align 8
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %block, align 8
  %r = call i32 @__cudaCDP2LaunchDevice(ptr @child, ptr %buf, ptr byval(%struct.dim3) align 4 %grid, ptr byval(%struct.dim3) align 4 %block, i32 0, ptr null)
  ret void
}
