; A struct passed by value: the variant gives each thread its own copy of the record's bytes, as the
; original parameter was each thread's own.
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

%struct.Pair = type { i32, double }

define ptx_kernel void @child(ptr %out, ptr byval(%struct.Pair) align 8 %pair) {
  %a = load i32, ptr %pair, align 8
  store i32 %a, ptr %out, align 4
  ret void
}

; CHECK-LABEL: define ptx_kernel void @child__klap(
; CHECK:         [[COPY:%.*]] = alloca %struct.Pair, align 8
; CHECK:         [[ARGS:%.*]] = call ptr @__klap_child_enter(
; CHECK:         [[AT:%.*]] = getelementptr inbounds i8, ptr [[ARGS]], i64 8
; CHECK-NEXT:    [[V:%.*]] = load %struct.Pair, ptr [[AT]], align 8
; CHECK-NEXT:    store %struct.Pair [[V]], ptr [[COPY]], align 8
; CHECK:         load i32, ptr [[COPY]], align 8
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
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  store i32 %tid, ptr %a1, align 4
  %a2 = getelementptr inbounds i8, ptr %buf, i64 16
  store double 2.0, ptr %a2, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  br label %after
after:
  ret void
}
