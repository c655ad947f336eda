; A kernel's tail launch takes a group of its scope before its other launches do, and the scope makes
; it last: made before the launches its scope makes at its end (where it found no group, or launched
; first), its child did not see theirs (fuzz case 220-20 at grid granularity, five launch groups when
; a scope held four: a wrong checksum in 3 runs of 3 on an H200; right after this change). Here nine
; groups: the tail launch is the last site, yet takes group 0; the ninth group's launch is made as
; written, where it is reached (KLAP205), before the scope's launches and so before the tail launch.
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=grid;no-inline-runtime>' -pass-remarks-missed=klap -S %s -o %t.ll 2>%t.remarks
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)

define ptx_kernel void @a(i32 %n) {
  ret void
}
define ptx_kernel void @b(i32 %n) {
  ret void
}
define ptx_kernel void @c(i32 %n) {
  ret void
}
define ptx_kernel void @d(i32 %n) {
  ret void
}
define ptx_kernel void @e(i32 %n) {
  ret void
}
define ptx_kernel void @f(i32 %n) {
  ret void
}
define ptx_kernel void @g(i32 %n) {
  ret void
}
define ptx_kernel void @h(i32 %n) {
  ret void
}
define ptx_kernel void @observe(i32 %n) {
  ret void
}

; REMARK: launch not aggregated: in a function that also tail-launches, where launches made where they are reached hung in the device runtime, and no scope can take it (a device function, or past eight launch groups) [KLAP205]
; REMARK-NOT: KLAP205
; CHECK-LABEL: define ptx_kernel void @parent(
; CHECK:         [[SCOPE:%.*]] = call ptr @__klap_grid_enter(i32 8,
; CHECK:         call ptr @__klap_scope_register(ptr [[SCOPE]], i32 1,
; CHECK:         call ptr @__klap_scope_register(ptr [[SCOPE]], i32 2,
; CHECK:         call ptr @__klap_scope_register(ptr [[SCOPE]], i32 3,
; CHECK:         call ptr @__klap_scope_register(ptr [[SCOPE]], i32 4,
; CHECK:         call ptr @__klap_scope_register(ptr [[SCOPE]], i32 5,
; CHECK:         call ptr @__klap_scope_register(ptr [[SCOPE]], i32 6,
; CHECK:         call ptr @__klap_scope_register(ptr [[SCOPE]], i32 7,
; CHECK:         call ptr @__cudaCDP2GetParameterBufferV2(ptr @h,
; CHECK:         call ptr @__klap_scope_register(ptr [[SCOPE]], i32 0,
; CHECK:         call i1 @__klap_scope_exit(
; CHECK:         call void @__klap_scope_launch(ptr [[SCOPE]], i32 1, ptr @a__klap,
; CHECK-NEXT:    call void @__klap_scope_launch(ptr [[SCOPE]], i32 2, ptr @b__klap,
; CHECK-NEXT:    call void @__klap_scope_launch(ptr [[SCOPE]], i32 3, ptr @c__klap,
; CHECK-NEXT:    call void @__klap_scope_launch(ptr [[SCOPE]], i32 4, ptr @d__klap,
; CHECK-NEXT:    call void @__klap_scope_launch(ptr [[SCOPE]], i32 5, ptr @e__klap,
; CHECK-NEXT:    call void @__klap_scope_launch(ptr [[SCOPE]], i32 6, ptr @f__klap,
; CHECK-NEXT:    call void @__klap_scope_launch(ptr [[SCOPE]], i32 7, ptr @g__klap,
; CHECK-NEXT:    call void @__klap_scope_launch(ptr [[SCOPE]], i32 0, ptr @observe__klap, ptr @observe, i32 1073741828, i64 1, ptr inttoptr (i64 3 to ptr), ptr null)
define ptx_kernel void @parent(i32 %n) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %g, align 4
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %b, align 4
  %pa = call ptr @__cudaCDP2GetParameterBufferV2(ptr @a, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  store i32 %n, ptr %pa, align 4
  %ra = call i32 @__cudaCDP2LaunchDeviceV2(ptr %pa, ptr null)
  %pb = call ptr @__cudaCDP2GetParameterBufferV2(ptr @b, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  store i32 %n, ptr %pb, align 4
  %rb = call i32 @__cudaCDP2LaunchDeviceV2(ptr %pb, ptr null)
  %pc = call ptr @__cudaCDP2GetParameterBufferV2(ptr @c, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  store i32 %n, ptr %pc, align 4
  %rc = call i32 @__cudaCDP2LaunchDeviceV2(ptr %pc, ptr null)
  %pd = call ptr @__cudaCDP2GetParameterBufferV2(ptr @d, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  store i32 %n, ptr %pd, align 4
  %rd = call i32 @__cudaCDP2LaunchDeviceV2(ptr %pd, ptr null)
  %pe = call ptr @__cudaCDP2GetParameterBufferV2(ptr @e, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  store i32 %n, ptr %pe, align 4
  %re = call i32 @__cudaCDP2LaunchDeviceV2(ptr %pe, ptr null)
  %pf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @f, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  store i32 %n, ptr %pf, align 4
  %rf = call i32 @__cudaCDP2LaunchDeviceV2(ptr %pf, ptr null)
  %pg = call ptr @__cudaCDP2GetParameterBufferV2(ptr @g, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  store i32 %n, ptr %pg, align 4
  %rg = call i32 @__cudaCDP2LaunchDeviceV2(ptr %pg, ptr null)
  %ph = call ptr @__cudaCDP2GetParameterBufferV2(ptr @h, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  store i32 %n, ptr %ph, align 4
  %rh = call i32 @__cudaCDP2LaunchDeviceV2(ptr %ph, ptr null)
  %po = call ptr @__cudaCDP2GetParameterBufferV2(ptr @observe, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  store i32 %n, ptr %po, align 4
  %ro = call i32 @__cudaCDP2LaunchDeviceV2(ptr %po, ptr inttoptr (i64 3 to ptr))
  ret void
}
