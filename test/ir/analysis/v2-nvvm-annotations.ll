; What NVVM-IR producers (libNVVM users, CUDA.jl) emit: the plain cudaGetParameterBufferV2 /
; cudaLaunchDeviceV2 names, each dim3 built with insertvalue from values computed at run time, and
; kernels marked only by !nvvm.annotations metadata, without the ptx_kernel calling convention. klap
; must take both the parent and the child for kernels, and follow the insertvalue chains to the fields.
; RUN: %opt -load-pass-plugin=%plugin -passes='print<klap-launches>' -disable-output %s 2>&1 | FileCheck %s

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @cudaGetParameterBufferV2(ptr, %struct.dim3, %struct.dim3, i32)
declare i32 @cudaLaunchDeviceV2(ptr, ptr)

define void @child(ptr %data, i64 %len) {
  ret void
}

; The parent is a kernel only through its annotation: the line has no device-function suffix.
; CHECK: klap-launch: caller=parent child=child abi=v2 grid=(%gx,%gy,1) block=(%bx,1,1) dims=value smem=0 stream=null args=2 [0:ptr=%data 8:i64=%len] loop=0 divergent=no{{$}}
; CHECK-NOT: klap-launch
define void @parent(ptr %data, i64 %len, i32 %gx, i32 %gy, i32 %bx) {
entry:
  %g0 = insertvalue %struct.dim3 poison, i32 %gx, 0
  %g1 = insertvalue %struct.dim3 %g0, i32 %gy, 1
  %grid = insertvalue %struct.dim3 %g1, i32 1, 2
  %b0 = insertvalue %struct.dim3 poison, i32 %bx, 0
  %b1 = insertvalue %struct.dim3 %b0, i32 1, 1
  %block = insertvalue %struct.dim3 %b1, i32 1, 2
  %buf = call ptr @cudaGetParameterBufferV2(ptr @child, %struct.dim3 %grid, %struct.dim3 %block, i32 0)
  store ptr %data, ptr %buf, align 8
  %p1 = getelementptr inbounds i8, ptr %buf, i64 8
  store i64 %len, ptr %p1, align 8
  %r = call i32 @cudaLaunchDeviceV2(ptr %buf, ptr null)
  ret void
}

; Other annotations of the same functions are not kernel marks and must not confuse the reader.
!nvvm.annotations = !{!0, !1, !2}
!0 = !{ptr @child, !"kernel", i32 1}
!1 = !{ptr @parent, !"maxntidx", i32 256}
!2 = !{ptr @parent, !"kernel", i32 1}
