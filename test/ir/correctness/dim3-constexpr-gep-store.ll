; A store into a dim3 field through a constant-expression GEP is a store into that field: offsets are
; accumulated through constant expressions as through instructions (the module's data layout), so the
; launch gets grid (1,9,3), as the program set it, not the (1,2,3) stored before.
; (Reproducer ../shared/repro/dim3-constexpr-gep-store.ll of issue 16, as it was found.)
; RUN: %opt -load-pass-plugin=%plugin -passes='print<klap-launches>,klap-normalize' -S %s -o %t.ll 2>%t.out
; RUN: FileCheck --check-prefix=PRINT %s < %t.out
; RUN: FileCheck %s < %t.ll

; PRINT: klap-launch: caller=parent child=child abi=v1 grid=(1,9,3) block=(32,1,1)
; CHECK-LABEL: define ptx_kernel void @parent(
; CHECK:         store i32 9, ptr getelementptr inbounds (i8, ptr @g, i64 4), align 4
; CHECK:         store %struct.dim3 { i32 1, i32 9, i32 3 }, ptr [[GRID:%.*]], align 4
; CHECK:         call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, ptr byval(%struct.dim3) align 4 [[GRID]],
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"
%struct.dim3 = type { i32, i32, i32 }
@g = internal addrspace(0) global %struct.dim3 zeroinitializer, align 4
declare ptr @cudaGetParameterBuffer(i64, i64)
declare i32 @cudaLaunchDevice(ptr, ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32, ptr)
define ptx_kernel void @child(i32 %v) {
  ret void
}
define ptx_kernel void @parent(i32 %n) {
entry:
  %b = alloca %struct.dim3, align 4
  %buf = call ptr @cudaGetParameterBuffer(i64 64, i64 4)
  store %struct.dim3 { i32 1, i32 2, i32 3 }, ptr @g, align 4
  store i32 9, ptr getelementptr inbounds (i8, ptr @g, i64 4), align 4
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %b, align 4
  store i32 %n, ptr %buf, align 4
  %r = call i32 @cudaLaunchDevice(ptr @child, ptr %buf, ptr byval(%struct.dim3) align 4 @g, ptr byval(%struct.dim3) align 4 %b, i32 0, ptr null)
  ret void
}
