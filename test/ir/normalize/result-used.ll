; When the launch's cudaError_t is used, it becomes a phi of the V2 launch's result and
; cudaErrorMemoryAllocation (2) for the path where no parameter buffer was had.
; RUN: %opt -load-pass-plugin=%plugin -passes=klap-normalize -S %s -o - | FileCheck %s

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBuffer(i64, i64)
declare i32 @__cudaCDP2LaunchDevice(ptr, ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32, ptr)

define ptx_kernel void @child() {
  ret void
}

; CHECK-LABEL: define ptx_kernel void @parent(
; CHECK:       go:
; CHECK:         [[BUF:%.*]] = call ptr @__cudaCDP2GetParameterBufferV2(
; CHECK:         br i1 {{%.*}}, label %[[THEN:.*]], label %[[JOIN:.*]]
; CHECK:       [[THEN]]:
; CHECK-NEXT:    [[R:%.*]] = call i32 @__cudaCDP2LaunchDeviceV2(ptr [[BUF]], ptr null)
; CHECK:       [[JOIN]]:
; CHECK-NEXT:    [[E:%.*]] = phi i32 [ [[R]], %[[THEN]] ], [ 2, %go ]
; CHECK-NEXT:    store i32 [[E]], ptr %err, align 4
define ptx_kernel void @parent(ptr %err) {
entry:
  %g = alloca %struct.dim3, align 8
  %b = alloca %struct.dim3, align 8
  %buf = call ptr @__cudaCDP2GetParameterBuffer(i64 64, i64 0)
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %g, align 8
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %b, align 8
  br label %go

go:
  %r = call i32 @__cudaCDP2LaunchDevice(ptr @child, ptr %buf, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0, ptr null)
  store i32 %r, ptr %err, align 4
  ret void
}
