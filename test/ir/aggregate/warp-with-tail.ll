; At warp granularity a kernel that also tail-launches gathers each warp's launches, the tail launch
; and those into other streams, in a warp scope made when the warp's last thread returns (KLAP213):
; made where they are reached, NULL-stream and fire-and-forget launches in such kernels hung in the
; device runtime (test/gpu/streams.cu).
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=warp;no-inline-runtime>' -pass-remarks-analysis=klap -pass-remarks-missed=klap -S %s -o %t.ll 2>%t.remarks
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)

define ptx_kernel void @child(i32 %n) {
  ret void
}

; REMARK-COUNT-3: its kernel also tail-launches: the launches of each warp are made when the warp's last thread returns (a warp scope) [KLAP213]
; REMARK-NOT:     KLAP205
; CHECK-LABEL: define ptx_kernel void @parent(
; CHECK:         [[SCOPE:%.*]] = call ptr @__klap_warp_enter(i32 {{%.*}}, i32 3, i32 4, i32 4, i32 4, i32 0, i32 0, i32 0, i32 0, i32 0)
; CHECK:         call ptr @__klap_scope_register(ptr [[SCOPE]], i32 0,
; CHECK:         call ptr @__klap_scope_register(ptr [[SCOPE]], i32 1,
; CHECK:         call ptr @__klap_scope_register(ptr [[SCOPE]], i32 2,
; CHECK-NOT:     call ptr @__klap_warp_chunk
; CHECK:         [[THREADS:%.*]] = call i64 @__klap_warp_scope_threads(ptr [[SCOPE]])
; CHECK:         [[LAST:%.*]] = call i1 @__klap_scope_exit(ptr [[SCOPE]], i64 [[THREADS]])
; CHECK-NEXT:    br i1 [[LAST]]
; CHECK:         call void @__klap_scope_launch(ptr [[SCOPE]], i32 1, ptr @child__klap, ptr @child, i32 1073741828, i64 1, ptr null, ptr null)
; CHECK:         call void @__klap_scope_launch(ptr [[SCOPE]], i32 2, ptr @child__klap, ptr @child, i32 1073741828, i64 1, ptr inttoptr (i64 4 to ptr), ptr null)
; CHECK-NEXT:    call void @__klap_scope_launch(ptr [[SCOPE]], i32 0, ptr @child__klap, ptr @child, i32 1073741828, i64 1, ptr inttoptr (i64 3 to ptr), ptr null)
; CHECK:         ret void
define ptx_kernel void @parent(i32 %n) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %g, align 4
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %b, align 4
  %t = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  store i32 %n, ptr %t, align 4
  %rt = call i32 @__cudaCDP2LaunchDeviceV2(ptr %t, ptr inttoptr (i64 3 to ptr))
  %u = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  store i32 %n, ptr %u, align 4
  %ru = call i32 @__cudaCDP2LaunchDeviceV2(ptr %u, ptr null)
  %v = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  store i32 %n, ptr %v, align 4
  %rv = call i32 @__cudaCDP2LaunchDeviceV2(ptr %v, ptr inttoptr (i64 4 to ptr))
  ret void
}
