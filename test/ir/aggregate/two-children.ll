; Two different children from one kernel: two launch groups in one grid scope, each with its own
; record size and its own aggregated launch.
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

define ptx_kernel void @child(ptr %out, i32 %n) {
  %i = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %p = getelementptr inbounds i32, ptr %out, i32 %i
  store i32 %n, ptr %p, align 4
  ret void
}
define ptx_kernel void @other(double %x) {
  ret void
}

; CHECK-LABEL: define ptx_kernel void @parent(
; CHECK:         call ptr @__klap_grid_enter(i32 2, i32 12, i32 8, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0)
; CHECK:         call void @__klap_scope_launch(ptr {{%.*}}, i32 0, ptr @child__klap, ptr @child, i32 1073741836, i64 7, ptr null, ptr null)
; CHECK:         call void @__klap_scope_launch(ptr {{%.*}}, i32 1, ptr @other__klap, ptr @other, i32 1073741832, i64 3, ptr null, ptr null)
; CHECK:         call void @__klap_grid_release(
; CHECK-DAG: define ptx_kernel void @child__klap(ptr %out, i32 %n, ptr %klap.chunk)
; CHECK-DAG: define ptx_kernel void @other__klap(double %x, ptr %klap.chunk)
define ptx_kernel void @parent(ptr %out, i32 %n) {
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
  %g2 = alloca %struct.dim3, align 4
  %b2 = alloca %struct.dim3, align 4
  %gv2 = insertvalue %struct.dim3 { i32 poison, i32 1, i32 1 }, i32 %blocks, 0
  store %struct.dim3 %gv2, ptr %g2, align 4
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %b2, align 4
  %buf2 = call ptr @__cudaCDP2GetParameterBufferV2(ptr @other, ptr byval(%struct.dim3) align 4 %g2, ptr byval(%struct.dim3) align 4 %b2, i32 0)
  %ok2 = icmp ne ptr %buf2, null
  br i1 %ok2, label %fill2, label %after2
fill2:
  store double 1.0, ptr %buf2, align 8
  %r2 = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf2, ptr null)
  br label %after2
after2:
  ret void
}
