; A launch made as written because no record could be had (the record pool short, the chunk full): its
; result goes to the runtime, which reports a refusal for want of room (the launch's users see success).
; Only that launch: the registered path has no launch of its own.
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=block;no-inline-runtime>' -S %s -o - | FileCheck %s
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=warp;no-inline-runtime>' -S %s -o - | FileCheck %s
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=grid;no-inline-runtime>' -S %s -o - | FileCheck %s

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

define ptx_kernel void @child(ptr %out, i32 %n) {
  %i = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %p = getelementptr inbounds i32, ptr %out, i32 %i
  store i32 %n, ptr %p, align 4
  ret void
}

; CHECK-LABEL: define ptx_kernel void @parent(
; CHECK:         [[REC:%.*]] = call ptr @__klap_scope_register(
; CHECK:         icmp ne ptr [[REC]], null
; CHECK:         [[R:%.*]] = call i32 @__cudaCDP2LaunchDeviceV2(
; CHECK-NEXT:    call void @__klap_as_written_result(i32 [[R]])
; CHECK-NOT:     __cudaCDP2LaunchDeviceV2
; CHECK-NOT:     __klap_as_written_result
; CHECK:         ret void
define ptx_kernel void @parent(ptr %out, i32 %n) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %g, align 4
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  %ok = icmp ne ptr %buf, null
  br i1 %ok, label %fill, label %after
fill:
  store ptr %out, ptr %buf, align 8
  %a1 = getelementptr inbounds i8, ptr %buf, i64 8
  store i32 %n, ptr %a1, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  br label %after
after:
  ret void
}
