; The kernels that share their scope with a device function start it with the same groups, the device
; function's launches (tail launches first), so that each of its launches has one group whichever kernel
; runs it; a kernel's own launches take the groups after them. A tail group is launched last. The
; group of a child whose variant has a grid scope of its own carries the thread count bit (@mid:
; 12 | 1 << 31), as it would in the kernel's own launches.
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=grid;no-inline-runtime>' -S %s -o - | FileCheck %s

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, %struct.dim3, %struct.dim3, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

define ptx_kernel void @leaf(ptr %out, i32 %i) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %j = add i32 %i, %t
  %p = getelementptr inbounds i32, ptr %out, i32 %j
  store i32 1, ptr %p, align 4
  ret void
}

define ptx_kernel void @mid(ptr %out, i32 %i) {
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @leaf, %struct.dim3 { i32 1, i32 1, i32 1 }, %struct.dim3 { i32 32, i32 1, i32 1 }, i32 0)
  store ptr %out, ptr %buf, align 8
  %a = getelementptr inbounds i8, ptr %buf, i64 8
  store i32 %i, ptr %a, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  ret void
}

; CHECK-LABEL: define void @helper(
; CHECK:         [[S1:%.*]] = call ptr @__klap_callee_scope()
; CHECK-NEXT:    call ptr @__klap_scope_register(ptr [[S1]], i32 1,
; CHECK:         [[S0:%.*]] = call ptr @__klap_callee_scope()
; CHECK-NEXT:    call ptr @__klap_scope_register(ptr [[S0]], i32 0,
; CHECK:         ret void
define void @helper(ptr %out, i32 %i) {
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @mid, %struct.dim3 { i32 2, i32 1, i32 1 }, %struct.dim3 { i32 32, i32 1, i32 1 }, i32 0)
  store ptr %out, ptr %buf, align 8
  %a = getelementptr inbounds i8, ptr %buf, i64 8
  store i32 %i, ptr %a, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  %buf2 = call ptr @__cudaCDP2GetParameterBufferV2(ptr @leaf, %struct.dim3 { i32 1, i32 1, i32 1 }, %struct.dim3 { i32 32, i32 1, i32 1 }, i32 0)
  store ptr %out, ptr %buf2, align 8
  %a2 = getelementptr inbounds i8, ptr %buf2, i64 8
  store i32 %i, ptr %a2, align 4
  %r2 = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf2, ptr inttoptr (i64 3 to ptr))
  ret void
}

; CHECK-LABEL: define ptx_kernel void @with_own(
; CHECK:         [[K1:%.*]] = call ptr @__klap_grid_enter(i32 3, i32 12, i32 -2147483636, i32 12, i32 0, i32 0, i32 0, i32 0, i32 0)
; CHECK-NEXT:    call void @__klap_share_scope(ptr [[K1]])
; CHECK:         call ptr @__klap_scope_register(ptr [[K1]], i32 2,
; CHECK:         call void @__klap_scope_launch(ptr [[K1]], i32 1, ptr @mid__klap, ptr @mid,
; CHECK-NEXT:    call void @__klap_scope_launch(ptr [[K1]], i32 2, ptr @leaf__klap, ptr @leaf, i32 12, i64 0, ptr null, ptr null)
; CHECK-NEXT:    call void @__klap_scope_launch(ptr [[K1]], i32 0, ptr @leaf__klap, ptr @leaf, i32 12, i64 0, ptr inttoptr (i64 3 to ptr), ptr null)
define ptx_kernel void @with_own(ptr %out) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  call void @helper(ptr %out, i32 %t)
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @leaf, %struct.dim3 { i32 1, i32 1, i32 1 }, %struct.dim3 { i32 32, i32 1, i32 1 }, i32 0)
  store ptr %out, ptr %buf, align 8
  %a = getelementptr inbounds i8, ptr %buf, i64 8
  store i32 %t, ptr %a, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  ret void
}

; CHECK-LABEL: define ptx_kernel void @helper_only(
; CHECK-NEXT:    [[K2:%.*]] = call ptr @__klap_grid_enter(i32 2, i32 12, i32 -2147483636, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0)
; CHECK-NEXT:    call void @__klap_share_scope(ptr [[K2]])
; CHECK:         call void @__klap_scope_launch(ptr [[K2]], i32 1, ptr @mid__klap, ptr @mid,
; CHECK-NEXT:    call void @__klap_scope_launch(ptr [[K2]], i32 0, ptr @leaf__klap, ptr @leaf, i32 12, i64 0, ptr inttoptr (i64 3 to ptr), ptr null)
define ptx_kernel void @helper_only(ptr %out) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  call void @helper(ptr %out, i32 %t)
  ret void
}
