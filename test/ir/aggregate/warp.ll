; The warp path, what a launch in a device function that no kernel's scope takes gets at every
; granularity (here one no kernel of this module calls; another translation unit's may): the lanes that
; reach the launch together share a chunk; each arrives once it has registered (or launched on its own),
; and the last to arrive launches, right at the launch site.
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=warp;no-inline-runtime>' -S %s -o - | FileCheck %s

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

; CHECK-LABEL: define void @spawn(
; CHECK-NOT:     __klap_grid_enter
; CHECK-NOT:     __klap_block_enter
; CHECK:         [[CHUNK:%.*]] = call ptr @__klap_warp_chunk(i32 12)
; CHECK:         call ptr @__klap_register(ptr [[CHUNK]],
; CHECK:         [[LAST:%.*]] = call i1 @__klap_warp_arrive(ptr [[CHUNK]])
; CHECK-NEXT:    br i1 [[LAST]]
; CHECK:         call void @__klap_launch_chunk(ptr [[CHUNK]], ptr @child__klap, ptr @child, i32 12, i64 0, ptr null, ptr null)
; CHECK-NOT:     __klap_scope_exit
; CHECK:         ret void
define void @spawn(ptr %out, i32 %n) {
entry:
  %blocks = udiv i32 %n, 32
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
  store i32 %n, ptr %a1, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  br label %after
after:
  ret void
}
