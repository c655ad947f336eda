; A device runtime klap cannot use (KLAP_RUNTIME_BITCODE naming a truncated file, or bitcode that lacks
; entry points of klap's table) is refused before the module is changed: an LLVM error, and opt exits
; non-zero. Without a launch to aggregate the runtime is not needed and not read.
; RUN: llvm-as %s -o %t.bc
; RUN: head -c 300 %t.bc > %t.cut.bc
; RUN: KLAP_RUNTIME_BITCODE=%t.cut.bc not %opt -load-pass-plugin=%plugin -passes='klap<granularity=grid>' \
; RUN:   -disable-output %s 2>&1 | FileCheck --check-prefix=CORRUPT %s
; RUN: KLAP_RUNTIME_BITCODE=%t.bc not %opt -load-pass-plugin=%plugin -passes='klap<granularity=grid>' \
; RUN:   -disable-output %s 2>&1 | FileCheck --check-prefix=INCOMPLETE %s
; RUN: KLAP_RUNTIME_BITCODE=%t.cut.bc %opt -load-pass-plugin=%plugin -passes='klap<granularity=none>' -disable-output %s

; CORRUPT:    klap: error: KLAP_RUNTIME_BITCODE={{.*}}.cut.bc: not LLVM bitcode klap can read:
; CORRUPT:    error: klap: the klap pipeline failed
; INCOMPLETE: klap: error: KLAP_RUNTIME_BITCODE={{.*}}: the runtime does not define __klap_register
; INCOMPLETE: error: klap: the klap pipeline failed
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, %struct.dim3, %struct.dim3, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)

define ptx_kernel void @child(i32 %v) {
  ret void
}

define ptx_kernel void @parent(i32 %v) {
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, %struct.dim3 { i32 4, i32 1, i32 1 }, %struct.dim3 { i32 64, i32 1, i32 1 }, i32 0)
  store i32 %v, ptr %buf, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  ret void
}
