; V2 with the dim3s passed as byval pointers to memory rather than as %struct.dim3 values (what a
; frontend that lowers dim3 like clang's V1 does for the V2 entry points). klap reads x, y, z from the
; stores into that memory before the buffer call: field by field in one launch, as a whole struct in
; the other; a field it cannot see (one written by a call) prints as ?.
; RUN: %opt -load-pass-plugin=%plugin -passes='print<klap-launches>' -disable-output %s 2>&1 | FileCheck %s

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @cudaGetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @cudaLaunchDeviceV2(ptr, ptr)
declare void @fill_dim3(ptr)

define ptx_kernel void @child(ptr %p) {
  ret void
}

; CHECK: klap-launch: caller=by_fields child=child abi=v2 grid=(%n,2,1) block=(64,1,1) dims=byval smem=0 stream=null args=1 [0:ptr=%p] loop=0 divergent=no
define ptx_kernel void @by_fields(ptr %p, i32 %n) {
entry:
  %grid = alloca %struct.dim3, align 4
  %block = alloca %struct.dim3, align 4
  store i32 %n, ptr %grid, align 4
  %gy = getelementptr inbounds i8, ptr %grid, i64 4
  store i32 2, ptr %gy, align 4
  %gz = getelementptr inbounds i8, ptr %grid, i64 8
  store i32 1, ptr %gz, align 4
  store i32 64, ptr %block, align 4
  %by = getelementptr inbounds i8, ptr %block, i64 4
  store i32 1, ptr %by, align 4
  %bz = getelementptr inbounds i8, ptr %block, i64 8
  store i32 1, ptr %bz, align 4
  %buf = call ptr @cudaGetParameterBufferV2(ptr @child, ptr byval(%struct.dim3) align 4 %grid, ptr byval(%struct.dim3) align 4 %block, i32 0)
  store ptr %p, ptr %buf, align 8
  %r = call i32 @cudaLaunchDeviceV2(ptr %buf, ptr null)
  ret void
}

; CHECK: klap-launch: caller=whole_struct child=child abi=v2 grid=(3,3,3) block=(?,?,?) dims=byval smem=0 stream=null args=1 [0:ptr=%p] loop=0 divergent=no
; CHECK-NOT: klap-launch
define ptx_kernel void @whole_struct(ptr %p) {
entry:
  %grid = alloca %struct.dim3, align 4
  %block = alloca %struct.dim3, align 4
  call void @fill_dim3(ptr %block)
  store %struct.dim3 { i32 3, i32 3, i32 3 }, ptr %grid, align 4
  %buf = call ptr @cudaGetParameterBufferV2(ptr @child, ptr byval(%struct.dim3) align 4 %grid, ptr byval(%struct.dim3) align 4 %block, i32 0)
  store ptr %p, ptr %buf, align 8
  %r = call i32 @cudaLaunchDeviceV2(ptr %buf, ptr null)
  ret void
}
