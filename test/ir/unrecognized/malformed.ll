; IR that does not parse (a store with its operands missing) never reaches klap: opt must fail with
; its own parse error, and loading the plugin must not turn that into a crash (no stack dump).
; RUN: not %opt -load-pass-plugin=%plugin -passes='print<klap-launches>' -disable-output %s 2>&1 | FileCheck %s

; CHECK: {{.*}}malformed.ll:{{[0-9]+}}:{{[0-9]+}}: error: expected type
; CHECK-NOT: PLEASE submit a bug report
; CHECK-NOT: Stack dump
; CHECK-NOT: klap-launch

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, { i32, i32, i32 }, { i32, i32, i32 }, i32)

define ptx_kernel void @parent(i32 %v) {
entry:
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @parent, { i32, i32, i32 } { i32 1, i32 1, i32 1 }, { i32, i32, i32 } { i32 1, i32 1, i32 1 }, i32 0)
  store , ptr %buf
  ret void
}
