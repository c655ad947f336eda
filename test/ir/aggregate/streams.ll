; Streams: a tail launch is aggregated into a tail launch (it still runs after the whole grid); a
; per-thread-stream launch keeps its stream's order and is left alone; with no-merge-null-stream a
; NULL-stream launch is left alone too.
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=grid;no-inline-runtime>' -pass-remarks-missed=klap -S %s -o %t.ll 2>%t.remarks
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=grid;no-merge-null-stream;no-inline-runtime>' -pass-remarks-missed=klap -disable-output %s 2>&1 | FileCheck --check-prefix=NULL %s

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

; REMARK: launch not aggregated: launches into a per-thread stream keep their stream's order [KLAP201]
; NULL: launch not aggregated: NULL-stream launches are kept in order (-klap-merge-null-stream=false) [KLAP202]

; CHECK-LABEL: define ptx_kernel void @parent(
; CHECK:         call void @__klap_scope_launch(ptr {{%.*}}, i32 0, ptr @child__klap, ptr @child, i32 1073741836, i64 7, ptr inttoptr (i64 3 to ptr), ptr null)
; CHECK-LABEL: define ptx_kernel void @per_thread(
; CHECK-NOT:     __klap
; CHECK:         call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr inttoptr (i64 2 to ptr))
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
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr inttoptr (i64 3 to ptr))
  br label %after
after:
  ret void
}

define ptx_kernel void @per_thread(ptr %out, i32 %n) {
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
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr inttoptr (i64 2 to ptr))
  br label %after
after:
  ret void
}

define ptx_kernel void @null_stream(ptr %out, i32 %n) {
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
