; The aggregated child takes the child's parameters before the chunk, and the launch copies the first
; record into them, only where they fit beside the chunk in a device launch's 4096 bytes of parameters.
; @child's 4092 bytes do not: its uniform %out stays in the first record, read from there (and the
; parameter size given to the launch has no ARGS_IN_PARAMS bit, 1 << 30).
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=grid;no-inline-runtime>' -pass-remarks=klap -S %s -o %t.ll 2>%t.remarks
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }
%struct.Huge = type { [1021 x i32] }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)

; REMARK: launch of @child aggregated at grid granularity (4092 argument bytes per record, 8 of them passed once, in the first record) [KLAP200]

define ptx_kernel void @child(ptr %out, ptr byval(%struct.Huge) align 4 %h) {
  %v = load i32, ptr %h, align 4
  store i32 %v, ptr %out, align 4
  ret void
}

; CHECK-LABEL: define ptx_kernel void @parent(
; CHECK:         call void @__klap_scope_launch(ptr {{%.*}}, i32 0, ptr @child__klap, ptr @child, i32 4092, i64 3, ptr null, ptr null)
define ptx_kernel void @parent(ptr %out, ptr byval(%struct.Huge) align 4 %h) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %g, align 4
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  store ptr %out, ptr %buf, align 8
  %a1 = getelementptr inbounds i8, ptr %buf, i64 8
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %a1, ptr align 4 %h, i64 4084, i1 false)
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  ret void
}

; CHECK-LABEL: define ptx_kernel void @child__klap(ptr %klap.chunk)
; CHECK:         [[ARGS:%.*]] = call ptr @__klap_child_enter(ptr %klap.chunk, i32 1)
; CHECK:         [[ONCE:%.*]] = call ptr @__klap_child_uniform_args()
; CHECK-NEXT:    [[OUT:%.*]] = load ptr, ptr [[ONCE]], align 8
; CHECK:         store i32 {{%.*}}, ptr [[OUT]]
