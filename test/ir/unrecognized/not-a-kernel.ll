; The launch names a function that is neither a ptx_kernel nor annotated as a kernel in
; !nvvm.annotations (a plain device function): no such launch can succeed, and klap must leave it
; alone (reason=not-a-kernel) naming the function.
; RUN: %opt -load-pass-plugin=%plugin -passes='print<klap-launches>' -disable-output %s 2>&1 | FileCheck %s

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, %struct.dim3, %struct.dim3, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)

define void @helper(i32 %v) {
  ret void
}

; CHECK-NOT: klap-launch:
; CHECK: klap-launch-unrecognized: caller=parent abi=v2 reason=not-a-kernel detail="@helper is launched but is not a kernel"
; CHECK-NOT: klap-launch
define ptx_kernel void @parent(i32 %v) {
entry:
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @helper, %struct.dim3 { i32 1, i32 1, i32 1 }, %struct.dim3 { i32 1, i32 1, i32 1 }, i32 0)
  store i32 %v, ptr %buf, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  ret void
}

; An annotation that is not a kernel mark does not make @helper a kernel.
!nvvm.annotations = !{!0}
!0 = !{ptr @helper, !"maxntidx", i32 64}
