; The host side of a CUDA program can have functions with the launch entry points' names (the host
; runtime's own cudaLaunchDevice stubs, or a user's). klap works only on NVPTX modules: on any other
; triple print<klap-launches> says so and reports no launch, and klap-normalize changes nothing at all.
; RUN: %opt -load-pass-plugin=%plugin -passes='print<klap-launches>' -disable-output %s 2>&1 | FileCheck %s
; RUN: %opt -load-pass-plugin=%plugin -passes=klap-normalize -S %s -o %t.out.ll
; RUN: %opt -S %s -o %t.in.ll
; RUN: diff %t.in.ll %t.out.ll

; CHECK: klap-launches: not an NVPTX module (triple 'x86_64-unknown-linux-gnu'): nothing to do
; CHECK-NOT: klap-launch

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @cudaGetParameterBuffer(i64, i64)
declare i32 @cudaLaunchDevice(ptr, ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32, ptr)
declare ptr @__cudaCDP2GetParameterBufferV2(ptr, %struct.dim3, %struct.dim3, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)

; @child carries the ptx_kernel convention so that, but for the triple, klap-normalize would rewrite
; the V1 launch below (the same IR with an NVPTX triple is rewritten).
define ptx_kernel void @child(i32 %v) {
  ret void
}

define void @launch_v1(i32 %v) {
entry:
  %grid = alloca %struct.dim3, align 8
  %block = alloca %struct.dim3, align 8
  %buf = call ptr @cudaGetParameterBuffer(i64 64, i64 4)
  store i32 %v, ptr %buf, align 64
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %grid, align 8
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %block, align 8
  %r = call i32 @cudaLaunchDevice(ptr @child, ptr %buf, ptr byval(%struct.dim3) align 4 %grid, ptr byval(%struct.dim3) align 4 %block, i32 0, ptr inttoptr (i64 4 to ptr))
  ret void
}

define void @launch_v2(i32 %v) {
entry:
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, %struct.dim3 { i32 1, i32 1, i32 1 }, %struct.dim3 { i32 1, i32 1, i32 1 }, i32 0)
  store i32 %v, ptr %buf, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  ret void
}
