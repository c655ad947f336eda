; A launch in a device function that loops, or that is called in a loop, joins the scope of the kernel
; running it (KLAP214): a grid scope at grid granularity, a warp scope at warp granularity (the kernel
; takes one because the device function it runs launches in a loop; made where they are reached, such
; launches hung in the device runtime). A device function that no kernel of the module runs has no
; scope to join: its launch in a loop stays as written (KLAP208).
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=grid;no-inline-runtime>' -pass-remarks-missed=klap -S %s -o %t.ll 2>%t.remarks
; RUN: FileCheck --check-prefixes=CHECK,GRID %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=warp;no-inline-runtime>' -S %s -o - | FileCheck --check-prefixes=CHECK,WARP %s

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.tid.y()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.y()
declare i32 @llvm.nvvm.read.ptx.sreg.nctaid.z()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()

define ptx_kernel void @child(ptr %out, i32 %n) {
  %i = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %p = getelementptr inbounds i32, ptr %out, i32 %i
  store i32 %n, ptr %p, align 4
  ret void
}

; REMARK-COUNT-1: launch not aggregated: made in a loop, where launches made where they are reached hung in the device runtime, and no scope can take it (a device function, or past eight launch groups) [KLAP208]
; REMARK-NOT: KLAP208
; CHECK-LABEL: define void @helper(
; CHECK-NOT:     __klap_warp_chunk
; CHECK:         [[SCOPE:%.*]] = call ptr @__klap_callee_scope()
; CHECK-NEXT:    call ptr @__klap_scope_register(ptr [[SCOPE]], i32 0,
; CHECK-LABEL: define ptx_kernel void @parent(
; GRID-NEXT:     [[OWN:%.*]] = call ptr @__klap_grid_enter(i32 1, i32 12,
; WARP:          [[OWN:%.*]] = call ptr @__klap_warp_enter(i32 {{%.*}}, i32 1, i32 12,
; CHECK-NEXT:    call void @__klap_share_scope(ptr [[OWN]])
; CHECK:         call void @__klap_scope_launch(ptr [[OWN]], i32 0, ptr @child__klap, ptr @child,
; CHECK:         ret void
define void @helper(ptr %out, i32 %n) {
entry:
  %blocks = udiv i32 %n, 32
  br label %loop
loop:
  %k = phi i32 [ 0, %entry ], [ %k1, %after ]
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  %gv = insertvalue %struct.dim3 { i32 poison, i32 1, i32 1 }, i32 %blocks, 0
  store %struct.dim3 %gv, ptr %g, align 4
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  %ok = icmp ne ptr %buf, null
  br i1 %ok, label %fill, label %after
fill:
  store ptr %out, ptr %buf, align 8
  %a1 = getelementptr inbounds i8, ptr %buf, i64 8
  store i32 %k, ptr %a1, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  br label %after
after:
  %k1 = add i32 %k, 1
  %more = icmp ult i32 %k1, %n
  br i1 %more, label %loop, label %exit
exit:
  ret void
}

define ptx_kernel void @parent(ptr %out, i32 %n) {
  call void @helper(ptr %out, i32 %n)
  ret void
}

; CHECK-LABEL: define void @straight_helper(
; CHECK:         [[SCOPE:%.*]] = call ptr @__klap_callee_scope()
; CHECK-NEXT:    call ptr @__klap_scope_register(ptr [[SCOPE]], i32 0,
; CHECK-LABEL: define ptx_kernel void @calls_in_loop(
; GRID-NEXT:   entry:
; GRID-NEXT:     [[OWN:%.*]] = call ptr @__klap_grid_enter(i32 1, i32 12,
; WARP:          [[OWN:%.*]] = call ptr @__klap_warp_enter(i32 {{%.*}}, i32 1, i32 12,
; CHECK-NEXT:    call void @__klap_share_scope(ptr [[OWN]])
; CHECK:         ret void
define void @straight_helper(ptr %out, i32 %n) {
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

define ptx_kernel void @calls_in_loop(ptr %out, i32 %n) {
entry:
  br label %loop
loop:
  %k = phi i32 [ 0, %entry ], [ %k1, %loop ]
  call void @straight_helper(ptr %out, i32 %k)
  %k1 = add i32 %k, 1
  %more = icmp ult i32 %k1, %n
  br i1 %more, label %loop, label %exit
exit:
  ret void
}

; CHECK-LABEL: define void @orphan(
; CHECK-NOT:     @__klap
; CHECK:         call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
; CHECK:         ret void
define void @orphan(ptr %out, i32 %n) {
entry:
  br label %loop
loop:
  %k = phi i32 [ 0, %entry ], [ %k1, %after ]
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
  store i32 %k, ptr %a1, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  br label %after
after:
  %k1 = add i32 %k, 1
  %more = icmp ult i32 %k1, %n
  br i1 %more, label %loop, label %exit
exit:
  ret void
}
