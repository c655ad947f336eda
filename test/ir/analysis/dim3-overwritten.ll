; The x, y, z of a dim3 in memory are the last values stored over them before the launch. Here the
; dim3 first gets i32 stores of 7 into x and y, then one i64 store over both x and y (as a copy of a
; dim3 lowered to i64 + i32 does): x and y are no longer the 7s, and no SSA value holds either of them
; as an i32, so klap must print them as unknown (and klap-normalize must then load the dim3 from
; memory) rather than report the stale stores.
; RUN: %opt -load-pass-plugin=%plugin -passes='print<klap-launches>' -disable-output %s 2>&1 | FileCheck %s

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBuffer(i64, i64)
declare i32 @__cudaCDP2LaunchDevice(ptr, ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32, ptr)

define ptx_kernel void @child(i32 %v) {
  ret void
}

; CHECK-NOT: grid=(7
; CHECK: klap-launch: caller=parent child=child abi=v1 grid=(?,?,1) block=(32,1,1) dims=byval smem=0 stream=null args=1 [0:i32=1] loop=0 divergent=no
; CHECK-NOT: klap-launch
define ptx_kernel void @parent(i64 %xy) {
entry:
  %grid = alloca %struct.dim3, align 8
  %block = alloca %struct.dim3, align 8
  %buf = call ptr @__cudaCDP2GetParameterBuffer(i64 64, i64 4)
  store i32 1, ptr %buf, align 64
  store i32 7, ptr %grid, align 8
  %gy = getelementptr inbounds i8, ptr %grid, i64 4
  store i32 7, ptr %gy, align 4
  store i64 %xy, ptr %grid, align 8
  %gz = getelementptr inbounds i8, ptr %grid, i64 8
  store i32 1, ptr %gz, align 8
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %block, align 8
  %r = call i32 @__cudaCDP2LaunchDevice(ptr @child, ptr %buf, ptr byval(%struct.dim3) align 4 %grid, ptr byval(%struct.dim3) align 4 %block, i32 0, ptr null)
  ret void
}
