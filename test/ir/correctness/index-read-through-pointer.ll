; A child whose code may call, through a pointer, a function that reads an index register cannot be
; aggregated: its variant remaps the reads in the functions it calls directly, and the call through the
; pointer would reach the original, which reads the physical thread index. The launch is left as
; written, with a missed remark [KLAP211].
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=grid;no-inline-runtime>' -S %s -o %t.ll \
; RUN:   -pass-remarks-missed=klap 2>%t.remarks
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks

; REMARK: remark: parent.cu:12:5: launch not aggregated: @child makes a call through a pointer that may reach a function reading an index register, which the aggregated variant of @child cannot remap [KLAP211]
; CHECK-NOT: define {{.*}}@child__klap(
; CHECK-LABEL: define ptx_kernel void @parent(
; CHECK-NOT:     __klap_
; CHECK:         call i32 @__cudaCDP2LaunchDeviceV2(
; CHECK-NOT:     __klap_
; CHECK:         ret void
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, %struct.dim3, %struct.dim3, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

define internal i32 @lane() {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  ret i32 %t
}

define internal i32 @zero() {
  ret i32 0
}

define ptx_kernel void @child(ptr %out, i1 %which) {
  %f = select i1 %which, ptr @lane, ptr @zero
  %b = call i32 %f()
  %p = getelementptr inbounds i32, ptr %out, i32 %b
  store i32 1, ptr %p, align 4
  ret void
}

define ptx_kernel void @parent(ptr %out) !dbg !4 {
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, %struct.dim3 { i32 4, i32 1, i32 1 }, %struct.dim3 { i32 64, i32 1, i32 1 }, i32 0), !dbg !7
  store ptr %out, ptr %buf, align 8, !dbg !7
  %w = getelementptr inbounds i8, ptr %buf, i64 8, !dbg !7
  store i1 true, ptr %w, align 1, !dbg !7
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null), !dbg !7
  ret void, !dbg !8
}

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!2}
!0 = distinct !DICompileUnit(language: DW_LANG_C_plus_plus_14, file: !1, producer: "clang", isOptimized: true, runtimeVersion: 0, emissionKind: LineTablesOnly)
!1 = !DIFile(filename: "parent.cu", directory: "/src")
!2 = !{i32 2, !"Debug Info Version", i32 3}
!4 = distinct !DISubprogram(name: "parent", scope: !1, file: !1, line: 10, type: !5, scopeLine: 10, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!5 = !DISubroutineType(types: !6)
!6 = !{}
!7 = !DILocation(line: 12, column: 5, scope: !4)
!8 = !DILocation(line: 13, column: 1, scope: !4)
