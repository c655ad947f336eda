; NVVM producers call the plain V2 names with dim3 by value. CUDA 13's libcudadevrt defines the
; __cudaCDP2 names: normalize re-emits the launch with those, the dim3s passed byval, and removes
; the old declarations.
; RUN: %opt -load-pass-plugin=%plugin -passes=klap-normalize -S %s -o - | FileCheck %s

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @cudaGetParameterBufferV2(ptr, %struct.dim3, %struct.dim3, i32)
declare i32 @cudaLaunchDeviceV2(ptr, ptr)

define void @child(i32 %x) {
  ret void
}

; The IR reader upgrades !nvvm.annotations kernels to the ptx_kernel calling convention.
; CHECK-LABEL: define ptx_kernel void @parent(
; CHECK:         %grid = insertvalue %struct.dim3 { i32 poison, i32 1, i32 1 }, i32 %n, 0
; CHECK-NEXT:    store %struct.dim3 %grid, ptr [[GRID:%.*]], align 4
; CHECK-NEXT:    store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr [[BLOCK:%.*]], align 4
; CHECK-NEXT:    [[BUF:%.*]] = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, ptr byval(%struct.dim3) align 4 [[GRID]], ptr byval(%struct.dim3) align 4 [[BLOCK]], i32 0)
; CHECK:         store i32 %x, ptr [[BUF]], align 4
; CHECK-NEXT:    call i32 @__cudaCDP2LaunchDeviceV2(ptr [[BUF]], ptr inttoptr (i64 4 to ptr))
; CHECK-NOT:     @cudaLaunchDeviceV2
; CHECK-NOT:     @cudaGetParameterBufferV2
define void @parent(i32 %x, i32 %n) {
  %grid = insertvalue %struct.dim3 { i32 poison, i32 1, i32 1 }, i32 %n, 0
  %buf = call ptr @cudaGetParameterBufferV2(ptr @child, %struct.dim3 %grid, %struct.dim3 { i32 32, i32 1, i32 1 }, i32 0)
  store i32 %x, ptr %buf, align 4
  %r = call i32 @cudaLaunchDeviceV2(ptr %buf, ptr inttoptr (i64 4 to ptr))
  ret void
}

!nvvm.annotations = !{!0, !1}
!0 = !{ptr @child, !"kernel", i32 1}
!1 = !{ptr @parent, !"kernel", i32 1}
