; klap-normalize re-emits a V1 launch in the V2 form at the launch point: the V2 parameter buffer with
; the grid and block passed byval (as clang passes a dim3), a null check, the argument stores,
; __cudaCDP2LaunchDeviceV2.
; The V1 calls, their stores and the dim3 stack objects are gone.
; RUN: %opt -load-pass-plugin=%plugin -passes=klap-normalize -S %s -o - | FileCheck %s

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBuffer(i64, i64)
declare i32 @__cudaCDP2LaunchDevice(ptr, ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32, ptr)

define ptx_kernel void @child(ptr %out, i32 %n) {
  ret void
}

; CHECK-LABEL: define ptx_kernel void @parent(
; CHECK-NEXT:  entry:
; CHECK-NEXT:    [[BLOCK:%.*]] = alloca %struct.dim3, align 4
; CHECK-NEXT:    [[GRID:%.*]] = alloca %struct.dim3, align 4
; CHECK-NOT:     @__cudaCDP2GetParameterBuffer(
; CHECK:         %blocks = udiv i32 %n, 64
; CHECK-NEXT:    [[G:%.*]] = insertvalue %struct.dim3 poison, i32 %blocks, 0
; CHECK-NEXT:    [[G1:%.*]] = insertvalue %struct.dim3 [[G]], i32 1, 1
; CHECK-NEXT:    [[G2:%.*]] = insertvalue %struct.dim3 [[G1]], i32 1, 2
; CHECK-NEXT:    store %struct.dim3 [[G2]], ptr [[GRID]], align 4
; CHECK-NEXT:    store %struct.dim3 { i32 64, i32 1, i32 1 }, ptr [[BLOCK]], align 4
; CHECK-NEXT:    [[BUF:%.*]] = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, ptr byval(%struct.dim3) align 4 [[GRID]], ptr byval(%struct.dim3) align 4 [[BLOCK]], i32 0)
; CHECK-NEXT:    [[OK:%.*]] = icmp ne ptr [[BUF]], null
; CHECK-NEXT:    br i1 [[OK]], label %[[THEN:.*]], label %[[JOIN:.*]]
; CHECK:       [[THEN]]:
; CHECK-NEXT:    store ptr %out, ptr [[BUF]], align 8
; CHECK-NEXT:    [[P1:%.*]] = getelementptr inbounds i8, ptr [[BUF]], i64 8
; CHECK-NEXT:    store i32 %n, ptr [[P1]], align 4
; CHECK-NEXT:    call i32 @__cudaCDP2LaunchDeviceV2(ptr [[BUF]], ptr null)
; CHECK-NEXT:    br label %[[JOIN]]
; CHECK-NOT:     @__cudaCDP2LaunchDevice(
; CHECK:         ret void
; CHECK: declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
define ptx_kernel void @parent(ptr %out, i32 %n) {
entry:
  %grid = alloca %struct.dim3, align 8
  %block = alloca %struct.dim3, align 8
  %buf = call ptr @__cudaCDP2GetParameterBuffer(i64 64, i64 12)
  %isnull = icmp eq ptr %buf, null
  br i1 %isnull, label %done, label %launch

launch:
  store ptr %out, ptr %buf, align 64
  %p1 = getelementptr inbounds i8, ptr %buf, i64 8
  store i32 %n, ptr %p1, align 8
  %blocks = udiv i32 %n, 64
  store i32 %blocks, ptr %grid, align 8
  %gy = getelementptr inbounds i8, ptr %grid, i64 4
  store i32 1, ptr %gy, align 4
  %gz = getelementptr inbounds i8, ptr %grid, i64 8
  store i32 1, ptr %gz, align 8
  store i32 64, ptr %block, align 8
  %by = getelementptr inbounds i8, ptr %block, i64 4
  store i32 1, ptr %by, align 4
  %bz = getelementptr inbounds i8, ptr %block, i64 8
  store i32 1, ptr %bz, align 8
  %r = call i32 @__cudaCDP2LaunchDevice(ptr @child, ptr %buf, ptr byval(%struct.dim3) align 4 %grid, ptr byval(%struct.dim3) align 4 %block, i32 0, ptr null)
  br label %done

done:
  ret void
}
