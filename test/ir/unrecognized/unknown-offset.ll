; An argument store through a GEP with a variable index: klap cannot tell which parameter it writes,
; so the launch is left alone (reason=unknown-offset) and the detail names the GEP. A store at a
; constant offset that falls in no parameter (the padding between an i32 and the following pointer)
; is an unknown offset too.
; RUN: %opt -load-pass-plugin=%plugin -passes='print<klap-launches>' -disable-output %s 2>&1 | FileCheck %s

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBuffer(i64, i64)
declare i32 @__cudaCDP2LaunchDevice(ptr, ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32, ptr)

define ptx_kernel void @child(i32 %a, ptr %b) {
  ret void
}

; CHECK-NOT: klap-launch:
; CHECK: klap-launch-unrecognized: caller=variable_index abi=v1 reason=unknown-offset detail="the parameter buffer is indexed by a non-constant offset in %slot"
define ptx_kernel void @variable_index(i64 %i, i32 %a) {
entry:
  %grid = alloca %struct.dim3, align 8
  %block = alloca %struct.dim3, align 8
  %buf = call ptr @__cudaCDP2GetParameterBuffer(i64 64, i64 16)
  %slot = getelementptr inbounds i32, ptr %buf, i64 %i
  store i32 %a, ptr %slot, align 4
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %grid, align 8
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %block, align 8
  %r = call i32 @__cudaCDP2LaunchDevice(ptr @child, ptr %buf, ptr byval(%struct.dim3) align 4 %grid, ptr byval(%struct.dim3) align 4 %block, i32 0, ptr null)
  ret void
}

; CHECK-NEXT: klap-launch-unrecognized: caller=into_padding abi=v1 reason=unknown-offset detail="a 4-byte write at offset 4 does not fall inside one parameter of the child"
; CHECK-NOT: klap-launch
define ptx_kernel void @into_padding(i32 %a, ptr %b) {
entry:
  %grid = alloca %struct.dim3, align 8
  %block = alloca %struct.dim3, align 8
  %buf = call ptr @__cudaCDP2GetParameterBuffer(i64 64, i64 16)
  store i32 %a, ptr %buf, align 64
  %pad = getelementptr inbounds i8, ptr %buf, i64 4
  store i32 0, ptr %pad, align 4
  %pb = getelementptr inbounds i8, ptr %buf, i64 8
  store ptr %b, ptr %pb, align 8
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %grid, align 8
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %block, align 8
  %r = call i32 @__cudaCDP2LaunchDevice(ptr @child, ptr %buf, ptr byval(%struct.dim3) align 4 %grid, ptr byval(%struct.dim3) align 4 %block, i32 0, ptr null)
  ret void
}
