; A kernel whose threads can end without returning (here PTX's `exit` in inline assembly, on one path)
; keeps its launches as written at block and grid granularity: its scope launches once every thread of
; the block (or grid) has left through a return, which a thread that exits never does, so its launches
; would be lost. A missed remark [KLAP212] says so. At warp granularity too: there a kernel's launches
; go to a warp scope, which launches once every thread of the warp has returned.
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=block;no-inline-runtime>' -S %s -o %t.ll \
; RUN:   -pass-remarks-missed=klap 2>%t.remarks
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=warp;no-inline-runtime>' -S %s \
; RUN:   | FileCheck --check-prefix=WARP %s

; REMARK: remark: parent.cu:12:5: launch not aggregated: a thread of @parent can end without returning (`exit` in inline assembly in @parent), and its block scope launches once every thread has returned [KLAP212]
; CHECK-LABEL: define ptx_kernel void @parent(
; CHECK-NOT:     __klap_
; CHECK:         call i32 @__cudaCDP2LaunchDeviceV2(
; CHECK-NOT:     __klap_
; CHECK:         ret void
; WARP-LABEL: define ptx_kernel void @parent(
; WARP-NOT:     __klap_
; WARP:         call i32 @__cudaCDP2LaunchDeviceV2(
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, %struct.dim3, %struct.dim3, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)

define ptx_kernel void @child(i32 %v) {
  ret void
}

define ptx_kernel void @parent(i32 %v, i1 %done) !dbg !4 {
  br i1 %done, label %leave, label %launch
leave:
  call void asm sideeffect "exit;", ""()
  unreachable
launch:
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, %struct.dim3 { i32 4, i32 1, i32 1 }, %struct.dim3 { i32 64, i32 1, i32 1 }, i32 0), !dbg !7
  store i32 %v, ptr %buf, align 4, !dbg !7
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
