; A V1 launch the pass cannot prove safe to rewrite (its parameter buffer escapes into another
; function) is left exactly as it was, with a missed remark saying why.
; RUN: %opt -load-pass-plugin=%plugin -passes=klap-normalize -pass-remarks-missed=klap -S %s -o %t.ll 2>%t.remarks
; RUN: %opt -S %s -o %t.orig.ll
; RUN: diff %t.orig.ll %t.ll
; RUN: FileCheck %s < %t.remarks

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBuffer(i64, i64)
declare i32 @__cudaCDP2LaunchDevice(ptr, ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32, ptr)
declare void @fill(ptr)

define ptx_kernel void @child(i32 %x) {
  ret void
}

; CHECK: remark: <unknown>:0:0: launch left unchanged: the parameter buffer is passed to @fill [KLAP103]
; CHECK: remark: <unknown>:0:0: V1 launch left in the V1 form: it is not recognized (buffer-escapes) [KLAP121]
define ptx_kernel void @parent() {
  %g = alloca %struct.dim3, align 8
  %b = alloca %struct.dim3, align 8
  %buf = call ptr @__cudaCDP2GetParameterBuffer(i64 64, i64 4)
  call void @fill(ptr %buf)
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %g, align 8
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %b, align 8
  %r = call i32 @__cudaCDP2LaunchDevice(ptr @child, ptr %buf, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0, ptr inttoptr (i64 4 to ptr))
  ret void
}
