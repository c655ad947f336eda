; Per-thread-default-stream builds (nvcc --default-stream per-thread) launch through
; __cudaCDP2LaunchDeviceV2_ptsz; the parameter buffer call keeps its plain name. klap must recognize
; the _ptsz launch as V2 and say so on the line (abi=v2 ptsz), since a rewrite must keep that entry.
; RUN: %opt -load-pass-plugin=%plugin -passes='print<klap-launches>' -disable-output %s 2>&1 | FileCheck %s

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, %struct.dim3, %struct.dim3, i32)
declare i32 @__cudaCDP2LaunchDeviceV2_ptsz(ptr, ptr)

define ptx_kernel void @child(i32 %v) {
  ret void
}

; CHECK: klap-launch: caller=parent child=child abi=v2 ptsz grid=(1,1,1) block=(256,1,1) dims=value smem=0 stream=null args=1 [0:i32=%v] loop=0 divergent=no
; CHECK-NOT: klap-launch
define ptx_kernel void @parent(i32 %v) {
entry:
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, %struct.dim3 { i32 1, i32 1, i32 1 }, %struct.dim3 { i32 256, i32 1, i32 1 }, i32 0)
  %isnull = icmp eq ptr %buf, null
  br i1 %isnull, label %done, label %launch

launch:
  store i32 %v, ptr %buf, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2_ptsz(ptr %buf, ptr null)
  br label %done

done:
  ret void
}
