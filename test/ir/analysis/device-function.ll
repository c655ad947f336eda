; A launch inside a __device__ function rather than a kernel: the caller is the device function, and
; klap must say so and name every kernel whose calls reach it (in the module order of the kernels),
; since what a rewrite may assume about the launching grid depends on those kernels. A kernel that
; does not call the function (@k3) is not listed.
; RUN: %opt -load-pass-plugin=%plugin -passes='print<klap-launches>' -disable-output %s 2>&1 | FileCheck %s

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBuffer(i64, i64)
declare i32 @__cudaCDP2LaunchDevice(ptr, ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32, ptr)

define ptx_kernel void @child(ptr %p) {
  ret void
}

; CHECK: klap-launch: caller=spawn child=child abi=v1 grid=(1,1,1) block=(32,1,1) dims=byval smem=0 stream=null args=1 [0:ptr=%p] loop=0 divergent=no device-function reached-from=k1,k2{{$}}
; CHECK-NOT: klap-launch
define void @spawn(ptr %p) {
entry:
  %grid = alloca %struct.dim3, align 8
  %block = alloca %struct.dim3, align 8
  %buf = call ptr @__cudaCDP2GetParameterBuffer(i64 64, i64 8)
  %isnull = icmp eq ptr %buf, null
  br i1 %isnull, label %done, label %launch

launch:
  store ptr %p, ptr %buf, align 64
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %grid, align 8
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %block, align 8
  %r = call i32 @__cudaCDP2LaunchDevice(ptr @child, ptr %buf, ptr byval(%struct.dim3) align 4 %grid, ptr byval(%struct.dim3) align 4 %block, i32 0, ptr null)
  br label %done

done:
  ret void
}

; @k1 reaches @spawn through another device function, @k2 calls it directly.
define void @helper(ptr %p) {
  call void @spawn(ptr %p)
  ret void
}

define ptx_kernel void @k1(ptr %p) {
  call void @helper(ptr %p)
  ret void
}

define ptx_kernel void @k2(ptr %p) {
  call void @spawn(ptr %p)
  call void @spawn(ptr %p)
  ret void
}

define ptx_kernel void @k3(ptr %p) {
  ret void
}
