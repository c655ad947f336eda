; The V1 form under the plain entry-point names cudaGetParameterBuffer / cudaLaunchDevice (what code
; built against pre-CUDA-12 headers calls), instead of the __cudaCDP2 names of CUDA 12+: klap must
; recognize both spellings, and report the launch exactly as it reports the prefixed one.
; RUN: %opt -load-pass-plugin=%plugin -passes='print<klap-launches>' -disable-output %s 2>&1 | FileCheck %s

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @cudaGetParameterBuffer(i64, i64)
declare i32 @cudaLaunchDevice(ptr, ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32, ptr)

define ptx_kernel void @child(i32 %a, ptr %p, i64 %b) {
  ret void
}

; CHECK: klap-launch: caller=parent child=child abi=v1 grid=(8,2,1) block=(128,1,1) dims=byval smem=256 stream=null args=3 [0:i32=%a 8:ptr=%p 16:i64=42] loop=0 divergent=no
; CHECK-NOT: klap-launch
define ptx_kernel void @parent(i32 %a, ptr %p) {
entry:
  %grid = alloca %struct.dim3, align 8
  %block = alloca %struct.dim3, align 8
  %buf = call ptr @cudaGetParameterBuffer(i64 64, i64 24)
  %isnull = icmp eq ptr %buf, null
  br i1 %isnull, label %done, label %launch

launch:
  store i32 %a, ptr %buf, align 64
  %p1 = getelementptr inbounds i8, ptr %buf, i64 8
  store ptr %p, ptr %p1, align 8
  %p2 = getelementptr inbounds i8, ptr %buf, i64 16
  store i64 42, ptr %p2, align 16
  store i32 8, ptr %grid, align 8
  %gy = getelementptr inbounds i8, ptr %grid, i64 4
  store i32 2, ptr %gy, align 4
  %gz = getelementptr inbounds i8, ptr %grid, i64 8
  store i32 1, ptr %gz, align 8
  store i32 128, ptr %block, align 8
  %by = getelementptr inbounds i8, ptr %block, i64 4
  store i32 1, ptr %by, align 4
  %bz = getelementptr inbounds i8, ptr %block, i64 8
  store i32 1, ptr %bz, align 8
  %r = call i32 @cudaLaunchDevice(ptr @child, ptr %buf, ptr byval(%struct.dim3) align 4 %grid, ptr byval(%struct.dim3) align 4 %block, i32 256, ptr null)
  br label %done

done:
  ret void
}
