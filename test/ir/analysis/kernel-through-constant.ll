; The launched kernel is not always the function itself at the launch: frontends pass it through an
; addrspacecast constant expression, or load it from an internal constant global that holds it (a
; kernel-pointer table, here in the global address space and read through a cast). klap must see
; through both to the child.
; RUN: %opt -load-pass-plugin=%plugin -passes='print<klap-launches>' -disable-output %s 2>&1 | FileCheck %s

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

@child_ptr = internal addrspace(1) constant ptr @child, align 8

declare ptr @__cudaCDP2GetParameterBuffer(i64, i64)
declare i32 @__cudaCDP2LaunchDevice(ptr, ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32, ptr)
; The same entry point seen through a declaration whose kernel parameter is a global-space pointer,
; so that the cast at the call is not folded away.
declare i32 @cudaLaunchDevice(ptr addrspace(1), ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32, ptr)

define ptx_kernel void @child(i32 %v) {
  ret void
}

; CHECK: klap-launch: caller=through_cast child=child abi=v1 grid=(1,1,1) block=(32,1,1) dims=byval smem=0 stream=null args=1 [0:i32=%v] loop=0 divergent=no
define ptx_kernel void @through_cast(i32 %v) {
entry:
  %grid = alloca %struct.dim3, align 8
  %block = alloca %struct.dim3, align 8
  %buf = call ptr @__cudaCDP2GetParameterBuffer(i64 64, i64 4)
  store i32 %v, ptr %buf, align 64
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %grid, align 8
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %block, align 8
  %r = call i32 @cudaLaunchDevice(ptr addrspace(1) addrspacecast (ptr @child to ptr addrspace(1)), ptr %buf, ptr byval(%struct.dim3) align 4 %grid, ptr byval(%struct.dim3) align 4 %block, i32 0, ptr null)
  ret void
}

; CHECK: klap-launch: caller=through_global child=child abi=v1 grid=(1,1,1) block=(32,1,1) dims=byval smem=0 stream=null args=1 [0:i32=%v] loop=0 divergent=no
; CHECK-NOT: klap-launch
define ptx_kernel void @through_global(i32 %v) {
entry:
  %grid = alloca %struct.dim3, align 8
  %block = alloca %struct.dim3, align 8
  %k = load ptr, ptr addrspacecast (ptr addrspace(1) @child_ptr to ptr), align 8
  %buf = call ptr @__cudaCDP2GetParameterBuffer(i64 64, i64 4)
  store i32 %v, ptr %buf, align 64
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %grid, align 8
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %block, align 8
  %r = call i32 @__cudaCDP2LaunchDevice(ptr %k, ptr %buf, ptr byval(%struct.dim3) align 4 %grid, ptr byval(%struct.dim3) align 4 %block, i32 0, ptr null)
  ret void
}
