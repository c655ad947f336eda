; The V2 form nvcc emits with CUDA 12+ headers: __cudaCDP2GetParameterBufferV2 names the kernel and
; the configuration, with the two dim3s passed by value (here constants), the arguments are stored
; into the buffer, and __cudaCDP2LaunchDeviceV2 takes only the buffer and the stream. The grid, block
; and shared-memory size must be read from the buffer call, not from the launch.
; RUN: %opt -load-pass-plugin=%plugin -passes='print<klap-launches>' -disable-output %s 2>&1 | FileCheck %s

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, %struct.dim3, %struct.dim3, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)

define ptx_kernel void @child(ptr %out, float %x, i32 %n) {
  ret void
}

; CHECK: klap-launch: caller=parent child=child abi=v2 grid=(16,4,1) block=(32,8,2) dims=value smem=128 stream=null args=3 [0:ptr=%out 8:float=%x 12:i32=7] loop=0 divergent=no
; CHECK-NOT: klap-launch
define ptx_kernel void @parent(ptr %out, float %x) {
entry:
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, %struct.dim3 { i32 16, i32 4, i32 1 }, %struct.dim3 { i32 32, i32 8, i32 2 }, i32 128)
  %ok = icmp ne ptr %buf, null
  br i1 %ok, label %launch, label %done

launch:
  store ptr %out, ptr %buf, align 8
  %p1 = getelementptr inbounds i8, ptr %buf, i64 8
  store float %x, ptr %p1, align 4
  %p2 = getelementptr inbounds i8, ptr %buf, i64 12
  store i32 7, ptr %p2, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  br label %done

done:
  ret void
}
