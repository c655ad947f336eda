; A panic in klap (a bug) becomes an LLVM error: opt exits non-zero with klap's message instead of
; aborting. The developer's hook KLAP_INJECT_PANIC=<analysis|normalize|aggregate> makes that part panic.
; RUN: env KLAP_INJECT_PANIC=aggregate not %opt -load-pass-plugin=%plugin -passes='klap<granularity=grid>' \
; RUN:   -disable-output %s 2>&1 | FileCheck --check-prefix=STEP %s
; RUN: env KLAP_INJECT_PANIC=analysis not %opt -load-pass-plugin=%plugin -passes='print<klap-launches>' \
; RUN:   -disable-output %s 2>&1 | FileCheck --check-prefix=ANALYSIS %s

; STEP:     klap: internal error in the klap pipeline: injected by KLAP_INJECT_PANIC=aggregate
; STEP:     error: klap: the klap pipeline failed
; ANALYSIS: klap: internal error in the launch analysis: injected by KLAP_INJECT_PANIC=analysis
; ANALYSIS: error: klap: print<klap-launches> failed
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
