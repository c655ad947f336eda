; klap's optimization remarks under the "klap" remark name: an analysis remark [KLAP100] for each
; recognized launch, a second analysis remark [KLAP110] when the launch is in a device function (with
; the kernels that reach it), and a missed remark naming the reason for a launch left alone (here
; [KLAP105], the launched kernel is a function argument). The analysis emits them in module order,
; before the printer's lines. Without -pass-remarks-* nothing is printed.
; RUN: %opt -load-pass-plugin=%plugin -passes='print<klap-launches>' -disable-output \
; RUN:   -pass-remarks-analysis=klap -pass-remarks-missed=klap %s 2>&1 | FileCheck %s
; RUN: %opt -load-pass-plugin=%plugin -passes='print<klap-launches>' -disable-output %s 2>&1 \
; RUN:   | FileCheck %s --check-prefix=QUIET

; QUIET-NOT: remark:
; QUIET-NOT: KLAP1

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, %struct.dim3, %struct.dim3, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)

define ptx_kernel void @child(i32 %v) {
  ret void
}

; CHECK: remark: {{.*}}launch of @child recognized (v2 form, grid (4,1,1), block (64,1,1), stream null, 1 arguments) [KLAP100]
define ptx_kernel void @parent(i32 %v) {
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, %struct.dim3 { i32 4, i32 1, i32 1 }, %struct.dim3 { i32 64, i32 1, i32 1 }, i32 0)
  store i32 %v, ptr %buf, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  ret void
}

; CHECK-NEXT: remark: {{.*}}launch of @child recognized (v2 form, grid (1,1,1), block (1,1,1), stream tail, 1 arguments) [KLAP100]
; CHECK-NEXT: remark: {{.*}}launch in device function @spawn reached from @via_device [KLAP110]
define void @spawn(i32 %v) {
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, %struct.dim3 { i32 1, i32 1, i32 1 }, %struct.dim3 { i32 1, i32 1, i32 1 }, i32 0)
  store i32 %v, ptr %buf, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr inttoptr (i64 3 to ptr))
  ret void
}

define ptx_kernel void @via_device(i32 %v) {
  call void @spawn(i32 %v)
  ret void
}

; CHECK-NEXT: remark: {{.*}}launch left unchanged: the launched kernel %k is not a known function [KLAP105]
; CHECK-NOT: remark:
define ptx_kernel void @unknown(ptr %k, i32 %v) {
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr %k, %struct.dim3 { i32 1, i32 1, i32 1 }, %struct.dim3 { i32 1, i32 1, i32 1 }, i32 0)
  store i32 %v, ptr %buf, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  ret void
}
