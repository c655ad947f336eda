; A launch in a device function shares its kernel's chunks (KLAP214): an argument is passed once per
; chunk (in its first record) only where every launch of the child passes the same value. Here the
; kernel passes 1 and the device function 2, both constants: neither is passed once. (Taken as uniform,
; the chunk's first record gave every launch one of them: fuzz cases 223-21 and 230-25 printed wrong
; checksums at every granularity, 232-19 read an illegal address.) The pointer, the device function's
; own parameter, is not uniform either.
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=grid;no-inline-runtime>' -pass-remarks=klap -S %s -o %t.ll 2>%t.remarks
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, %struct.dim3, %struct.dim3, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

define ptx_kernel void @child(ptr %out, i32 %v) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %p = getelementptr inbounds i32, ptr %out, i32 %t
  store i32 %v, ptr %p, align 4
  ret void
}

; REMARK-COUNT-2: launch of @child aggregated at grid granularity (12 argument bytes per record) [KLAP200]
; REMARK-NOT: passed once
define void @helper(ptr %out) {
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, %struct.dim3 { i32 1, i32 1, i32 1 }, %struct.dim3 { i32 32, i32 1, i32 1 }, i32 0)
  store ptr %out, ptr %buf, align 8
  %a = getelementptr inbounds i8, ptr %buf, i64 8
  store i32 2, ptr %a, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  ret void
}

; CHECK-LABEL: define ptx_kernel void @parent(
; CHECK:         call void @__klap_scope_launch(ptr {{%.*}}, i32 0, ptr @child__klap, ptr @child, i32 12, i64 0, ptr null, ptr null)
define ptx_kernel void @parent(ptr %out) {
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, %struct.dim3 { i32 1, i32 1, i32 1 }, %struct.dim3 { i32 32, i32 1, i32 1 }, i32 0)
  store ptr %out, ptr %buf, align 8
  %a = getelementptr inbounds i8, ptr %buf, i64 8
  store i32 1, ptr %a, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  call void @helper(ptr %out)
  ret void
}
