; A recursive kernel: its aggregated variant launches the variant again, and the variant's own grid
; scope waits for the threads that serve records, not for every thread of the aggregated grid. The
; scope lives in the variant's chunk, so its exit comes before the thread counts itself out of its
; record (which may free the chunk). The chunks the variant is launched from count its threads for
; that scope: bit 31 of the group's record size (12 | 1 << 31). The launch sets that scope up before the
; variant's blocks run, from the constant @rec__klap.grid_scope (its groups, then their record sizes);
; the variant's blocks only find it in their chunk.
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=grid;no-inline-runtime>' -S %s -o - | FileCheck %s

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


; CHECK:       @rec__klap.grid_scope = private constant [9 x i32] [i32 1, i32 -2147483636, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0]
; CHECK-LABEL: define ptx_kernel void @rec(
; CHECK:         call ptr @__klap_grid_enter(i32 1, i32 -2147483636, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0)
; CHECK:         call void @__klap_scope_launch(ptr {{%.*}}, i32 0, ptr @rec__klap, ptr @rec, i32 1073741836, i64 7, ptr null, ptr @rec__klap.grid_scope)
; CHECK-LABEL: define ptx_kernel void @rec__klap(ptr %out, i32 %n, ptr %klap.chunk)
; CHECK:         call ptr @__klap_child_enter(ptr %klap.chunk, i32 2)
; CHECK:         call ptr @__klap_child_grid_scope()
; CHECK:         call ptr @__klap_scope_register(
; CHECK:         [[TOTAL:%.*]] = call i64 @__klap_child_grid_threads()
; CHECK:         call i1 @__klap_scope_exit(ptr {{%.*}}, i64 [[TOTAL]])
; CHECK:         call void @__klap_scope_launch(ptr {{%.*}}, i32 0, ptr @rec__klap, ptr @rec, i32 1073741836, i64 7, ptr null, ptr @rec__klap.grid_scope)
; CHECK:         call void @__klap_child_exit()
; CHECK-NEXT:    ret void
define ptx_kernel void @rec(ptr %out, i32 %n) {
entry:
  %blocks = udiv i32 %n, 32
  %more = icmp ugt i32 %n, 1
  br i1 %more, label %go, label %leaf
go:
  %half = lshr i32 %n, 1
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  %gv = insertvalue %struct.dim3 { i32 poison, i32 1, i32 1 }, i32 2, 0
  store %struct.dim3 %gv, ptr %g, align 4
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @rec, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  %ok = icmp ne ptr %buf, null
  br i1 %ok, label %fill, label %after
fill:
  store ptr %out, ptr %buf, align 8
  %a1 = getelementptr inbounds i8, ptr %buf, i64 8
  store i32 %half, ptr %a1, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  br label %after
after:
  br label %leaf
leaf:
  ret void
}
