; The V2 protocol reads grid and block at __cudaCDP2GetParameterBufferV2. A store to the grid dim3
; between that call and the launch must not change the launch: the aggregated launch registers the
; grid the buffer call saw (4 or 8, known only at run time), read before the buffer call, and the
; fallback launch passes the same value, not the 99 stored afterwards.
; (Reproducer ../shared/repro/v2-dim3-overwritten.ll of issue 16, as it was found.)
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=grid;no-inline-runtime>' -S %s | FileCheck %s

; CHECK-LABEL: define ptx_kernel void @parent(
; CHECK:       m:
; CHECK-NEXT:    [[GRID:%.*]] = load %struct.dim3, ptr %g, align 4
; CHECK-NEXT:    [[FALLBACK_GRID:%.*]] = load %struct.dim3, ptr %g, align 4
; CHECK-NEXT:    store %struct.dim3 { i32 99, i32 1, i32 1 }, ptr %g, align 4
; CHECK-NEXT:    [[X:%.*]] = extractvalue %struct.dim3 [[GRID]], 0
; CHECK-NEXT:    [[Y:%.*]] = extractvalue %struct.dim3 [[GRID]], 1
; CHECK-NEXT:    [[Z:%.*]] = extractvalue %struct.dim3 [[GRID]], 2
; CHECK-NEXT:    call ptr @__klap_scope_register(ptr {{%.*}}, i32 0, i32 [[X]], i32 [[Y]], i32 [[Z]], i32 32, i32 1, i32 1, i32 0)
; CHECK:         store %struct.dim3 [[FALLBACK_GRID]], ptr [[SLOT:%.*]], align 4
; CHECK:         call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, ptr byval(%struct.dim3) align 4 [[SLOT]],
; CHECK-NOT:     load %struct.dim3, ptr %g
; CHECK:         ret void
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"
%struct.dim3 = type { i32, i32, i32 }
declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
define ptx_kernel void @child(i32 %v) {
  ret void
}
define ptx_kernel void @parent(i32 %n, i1 %c) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  br i1 %c, label %a, label %o
a:
  store %struct.dim3 { i32 4, i32 1, i32 1 }, ptr %g, align 4
  br label %m
o:
  store %struct.dim3 { i32 8, i32 1, i32 1 }, ptr %g, align 4
  br label %m
m:
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  store i32 %n, ptr %buf, align 4
  store %struct.dim3 { i32 99, i32 1, i32 1 }, ptr %g, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  ret void
}
