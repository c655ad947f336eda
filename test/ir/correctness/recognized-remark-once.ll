; klap<...> analyses the module once for its remarks: a launch gets one analysis remark [KLAP100] even
; when the normalize step rewrites it (V1 here) and aggregation looks at the module again.
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=grid>' -disable-output \
; RUN:   -pass-remarks-analysis=klap %s 2>&1 | FileCheck %s

; CHECK:     remark: <unknown>:0:0: launch of @child recognized (v1 form, grid (4,1,1), block (64,1,1), stream null, 1 arguments) [KLAP100]
; CHECK-NOT: [KLAP100]
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @cudaGetParameterBuffer(i64, i64)
declare i32 @cudaLaunchDevice(ptr, ptr, %struct.dim3, %struct.dim3, i32, ptr)

define ptx_kernel void @child(i32 %v) {
  ret void
}

define ptx_kernel void @parent(i32 %v) {
  %buf = call ptr @cudaGetParameterBuffer(i64 64, i64 4)
  store i32 %v, ptr %buf, align 4
  %r = call i32 @cudaLaunchDevice(ptr @child, ptr %buf, %struct.dim3 { i32 4, i32 1, i32 1 }, %struct.dim3 { i32 64, i32 1, i32 1 }, i32 0, ptr null)
  ret void
}
