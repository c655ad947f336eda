; On a pointer parameter that is not byval, `align 16` says how the pointee is aligned, not where the
; pointer lies in the parameter buffer: clang puts it on a kernel's reference parameters
; (`const V &r` with an alignas(16) V) and still places the pointer at its natural 8-byte offset in a
; 16-byte buffer. klap's layout of the child must agree: the pointer is at offset 8 and the
; parameters take 16 bytes (only a byval parameter's align moves its offset).
; RUN: %opt -load-pass-plugin=%plugin -passes='print<klap-launches>' -disable-output %s 2>&1 | FileCheck %s

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBuffer(i64, i64)
declare i32 @__cudaCDP2LaunchDevice(ptr, ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32, ptr)

define ptx_kernel void @child(i32 %n, ptr nonnull align 16 dereferenceable(16) %r) {
  ret void
}

; CHECK-NOT: klap-launch-unrecognized
; CHECK: klap-launch: caller=parent child=child abi=v1 grid=(1,1,1) block=(1,1,1) dims=byval smem=0 stream=null args=2 [0:i32=%n 8:ptr=%v] loop=0 divergent=no
; CHECK-NOT: klap-launch
define ptx_kernel void @parent(i32 %n, ptr %v) {
entry:
  %grid = alloca %struct.dim3, align 8
  %block = alloca %struct.dim3, align 8
  %buf = call ptr @__cudaCDP2GetParameterBuffer(i64 64, i64 16)
  %isnull = icmp eq ptr %buf, null
  br i1 %isnull, label %done, label %launch

launch:
  store i32 %n, ptr %buf, align 64
  %p1 = getelementptr inbounds i8, ptr %buf, i64 8
  store ptr %v, ptr %p1, align 8
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %grid, align 8
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %block, align 8
  %r = call i32 @__cudaCDP2LaunchDevice(ptr @child, ptr %buf, ptr byval(%struct.dim3) align 4 %grid, ptr byval(%struct.dim3) align 4 %block, i32 0, ptr null)
  br label %done

done:
  ret void
}
