; Arguments the same for every launch of a scope are written once, into the chunk's first record, and
; every block of the aggregated child reads them there: a parameter of the launching kernel, a copy of
; a `byval` parameter it never writes. Not passed once: a value that differs per thread, different
; constants from two launches of one child, a copy of a `byval` parameter the kernel writes, a
; parameter past the first 256 bytes (records launched one by one take only those from the first).
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=grid;no-inline-runtime>' -pass-remarks=klap -S %s -o %t.ll 2>%t.remarks
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }
%struct.Cfg = type { i32, float }
%struct.Big = type { [64 x i32] }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)

; REMARK: launch of @child aggregated at grid granularity (20 argument bytes per record, 16 of them passed once, as the aggregated kernel's parameters) [KLAP200]
; REMARK: launch of @child2 aggregated at grid granularity (4 argument bytes per record) [KLAP200]
; REMARK: launch of @child2 aggregated at grid granularity (4 argument bytes per record) [KLAP200]
; REMARK: launch of @child3 aggregated at grid granularity (8 argument bytes per record) [KLAP200]
; REMARK: launch of @child4 aggregated at grid granularity (264 argument bytes per record, 256 of them passed once, as the aggregated kernel's parameters) [KLAP200]

define ptx_kernel void @child(ptr %out, ptr byval(%struct.Cfg) align 4 %cfg, i32 %x) {
  %v = load i32, ptr %cfg, align 4
  %s = add i32 %v, %x
  store i32 %s, ptr %out, align 4
  ret void
}

define ptx_kernel void @child2(i32 %k) {
  ret void
}

define ptx_kernel void @child3(ptr byval(%struct.Cfg) align 4 %cfg) {
  ret void
}

; CHECK-LABEL: define ptx_kernel void @parent(
; CHECK:         [[TAGGED:%.*]] = call ptr @__klap_scope_register(
; CHECK:         [[REC:%.*]] = call ptr @__klap_record_args(ptr [[TAGGED]])
; CHECK-NEXT:    [[X:%.*]] = getelementptr inbounds i8, ptr [[REC]], i64 16
; CHECK-NEXT:    store i32 %tid, ptr [[X]], align
; CHECK-NEXT:    [[FIRST:%.*]] = call i1 @__klap_record_first(ptr [[TAGGED]])
; CHECK-NEXT:    br i1 [[FIRST]], label %[[ONCE:.*]], label
; CHECK:       [[ONCE]]:
; CHECK-NEXT:    store ptr %out, ptr [[REC]], align 8
; CHECK-NEXT:    [[C:%.*]] = getelementptr inbounds i8, ptr [[REC]], i64 8
; CHECK-NEXT:    store %struct.Cfg {{%.*}}, ptr [[C]], align
; CHECK:         call void @__klap_scope_launch(ptr {{%.*}}, i32 0, ptr @child__klap, ptr @child, i32 1073741844, i64 15, ptr null, ptr null)
define ptx_kernel void @parent(ptr %out, ptr byval(%struct.Cfg) align 4 %cfg) {
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
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %a1, ptr align 4 %cfg, i64 8, i1 false)
  %a2 = getelementptr inbounds i8, ptr %buf, i64 16
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  store i32 %tid, ptr %a2, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  br label %after
after:
  ret void
}

; CHECK-LABEL: define ptx_kernel void @two_sites(
; CHECK-NOT:     call i1 @__klap_record_first(
; CHECK:         call void @__klap_scope_launch(ptr {{%.*}}, i32 0, ptr @child2__klap, ptr @child2, i32 4, i64 0, ptr null, ptr null)
define ptx_kernel void @two_sites(i1 %c) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %g, align 4
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %b, align 4
  br i1 %c, label %one, label %two
one:
  %buf1 = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child2, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  store i32 1, ptr %buf1, align 4
  %r1 = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf1, ptr null)
  br label %after
two:
  %buf2 = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child2, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  store i32 2, ptr %buf2, align 4
  %r2 = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf2, ptr null)
  br label %after
after:
  ret void
}

; CHECK-LABEL: define ptx_kernel void @writer(
; CHECK-NOT:     call i1 @__klap_record_first(
; CHECK:         call void @__klap_scope_launch(ptr {{%.*}}, i32 0, ptr @child3__klap, ptr @child3, i32 8, i64 0, ptr null, ptr null)
define ptx_kernel void @writer(ptr byval(%struct.Cfg) align 4 %cfg) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  store i32 %tid, ptr %cfg, align 4
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %g, align 4
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child3, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %buf, ptr align 4 %cfg, i64 8, i1 false)
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  ret void
}

define ptx_kernel void @child4(ptr byval(%struct.Big) align 4 %big, ptr %out) {
  ret void
}

; CHECK-LABEL: define ptx_kernel void @late(
; CHECK:         call void @__klap_scope_launch(ptr {{%.*}}, i32 0, ptr @child4__klap, ptr @child4, i32 1073742088, i64 -1, ptr null, ptr null)
define ptx_kernel void @late(ptr %out, ptr byval(%struct.Big) align 4 %big) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %g, align 4
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child4, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %buf, ptr align 4 %big, i64 256, i1 false)
  %a1 = getelementptr inbounds i8, ptr %buf, i64 256
  store ptr %out, ptr %a1, align 8
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  ret void
}

; The variant takes the child's parameters before the chunk (the launch copies the first record into
; them) and reads the uniform ones there, the by-value struct in place; the others from its record.
; CHECK-LABEL: define ptx_kernel void @child__klap(ptr %out, ptr byval(%struct.Cfg) align 4 %cfg, i32 %x, ptr %klap.chunk)
; CHECK:         [[ARGS:%.*]] = call ptr @__klap_child_enter(
; CHECK-NOT:     @__klap_child_uniform_args
; CHECK:         [[X:%.*]] = getelementptr inbounds i8, ptr [[ARGS]], i64 16
; CHECK-NEXT:    [[XV:%.*]] = load i32, ptr [[X]], align
; CHECK-NEXT:    [[V:%.*]] = load i32, ptr %cfg
; CHECK-NEXT:    [[S:%.*]] = add i32 [[V]], [[XV]]
; CHECK-NEXT:    store i32 [[S]], ptr %out
