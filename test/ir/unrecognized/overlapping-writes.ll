; Two writes into the parameter buffer that cover the same bytes (an i64 over both fields of a struct
; argument, then an i32 over its second field): which value the child sees depends on their order,
; which klap does not model, so it leaves the launch alone (reason=overlapping-writes).
; RUN: %opt -load-pass-plugin=%plugin -passes='print<klap-launches>' -disable-output %s 2>&1 | FileCheck %s

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }
%struct.pair = type { i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, %struct.dim3, %struct.dim3, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)

define ptx_kernel void @child(ptr byval(%struct.pair) align 4 %pair) {
  ret void
}

; CHECK-NOT: klap-launch:
; CHECK: klap-launch-unrecognized: caller=parent abi=v2 reason=overlapping-writes detail="the writes at offsets 0 and 4 overlap"
; CHECK-NOT: klap-launch
define ptx_kernel void @parent(i64 %both, i32 %second) {
entry:
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, %struct.dim3 { i32 1, i32 1, i32 1 }, %struct.dim3 { i32 1, i32 1, i32 1 }, i32 0)
  store i64 %both, ptr %buf, align 8
  %p1 = getelementptr inbounds i8, ptr %buf, i64 4
  store i32 %second, ptr %p1, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  ret void
}
