; The stream of a launch decides its ordering (see the device-launch ABI notes), so klap must name it
; from the handle at the launch: NULL, cudaStreamTailLaunch (0x3), cudaStreamFireAndForget (0x4),
; cudaStreamPerThread (0x2), and a stream known only at run time (here a kernel argument) as other.
; The printer writes one line per launch in module order, so each line is checked in turn.
; RUN: %opt -load-pass-plugin=%plugin -passes='print<klap-launches>' -disable-output %s 2>&1 | FileCheck %s

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, %struct.dim3, %struct.dim3, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)

define ptx_kernel void @child(i32 %v) {
  ret void
}

; CHECK: klap-launch: caller=null_stream child=child abi=v2 grid=(1,1,1) block=(1,1,1) dims=value smem=0 stream=null args=1 [0:i32=%v] loop=0 divergent=no
define ptx_kernel void @null_stream(i32 %v) {
entry:
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, %struct.dim3 { i32 1, i32 1, i32 1 }, %struct.dim3 { i32 1, i32 1, i32 1 }, i32 0)
  store i32 %v, ptr %buf, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  ret void
}

; CHECK: klap-launch: caller=tail_stream child=child abi=v2 grid=(1,1,1) block=(1,1,1) dims=value smem=0 stream=tail args=1 [0:i32=%v] loop=0 divergent=no
define ptx_kernel void @tail_stream(i32 %v) {
entry:
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, %struct.dim3 { i32 1, i32 1, i32 1 }, %struct.dim3 { i32 1, i32 1, i32 1 }, i32 0)
  store i32 %v, ptr %buf, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr inttoptr (i64 3 to ptr))
  ret void
}

; CHECK: klap-launch: caller=fire_and_forget_stream child=child abi=v2 grid=(1,1,1) block=(1,1,1) dims=value smem=0 stream=fire-and-forget args=1 [0:i32=%v] loop=0 divergent=no
define ptx_kernel void @fire_and_forget_stream(i32 %v) {
entry:
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, %struct.dim3 { i32 1, i32 1, i32 1 }, %struct.dim3 { i32 1, i32 1, i32 1 }, i32 0)
  store i32 %v, ptr %buf, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr inttoptr (i64 4 to ptr))
  ret void
}

; CHECK: klap-launch: caller=per_thread_stream child=child abi=v2 grid=(1,1,1) block=(1,1,1) dims=value smem=0 stream=per-thread args=1 [0:i32=%v] loop=0 divergent=no
define ptx_kernel void @per_thread_stream(i32 %v) {
entry:
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, %struct.dim3 { i32 1, i32 1, i32 1 }, %struct.dim3 { i32 1, i32 1, i32 1 }, i32 0)
  store i32 %v, ptr %buf, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr inttoptr (i64 2 to ptr))
  ret void
}

; CHECK: klap-launch: caller=created_stream child=child abi=v2 grid=(1,1,1) block=(1,1,1) dims=value smem=0 stream=other args=1 [0:i32=%v] loop=0 divergent=no
; CHECK-NOT: klap-launch
define ptx_kernel void @created_stream(i32 %v, ptr %s) {
entry:
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, %struct.dim3 { i32 1, i32 1, i32 1 }, %struct.dim3 { i32 1, i32 1, i32 1 }, i32 0)
  store i32 %v, ptr %buf, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr %s)
  ret void
}
