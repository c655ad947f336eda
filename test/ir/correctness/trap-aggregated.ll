; A trap (llvm.trap, CUDA's failed assert, PTX's `trap`) aborts the whole grid with an error: no launch
; of it runs, transformed or not, so a trap in the launching kernel or in the child does not keep the
; launch from being aggregated (unlike an exit, which ends one thread while the grid goes on: KLAP212).
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=grid;no-inline-runtime>' -S %s -o %t.ll \
; RUN:   -pass-remarks=klap -pass-remarks-missed=klap 2>%t.remarks
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks

; REMARK: remark: parent.cu:12:5: launch of @child aggregated at grid granularity ({{.*}}) [KLAP200]
; REMARK-NOT: KLAP212
; CHECK-LABEL: define ptx_kernel void @parent(
; CHECK:         call ptr @__klap_grid_enter(
; CHECK:         call ptr @__klap_scope_register(
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, %struct.dim3, %struct.dim3, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)

declare void @llvm.trap()
declare void @__assertfail(ptr, ptr, i32, ptr, i64) noreturn

define ptx_kernel void @child(i32 %v) {
  %bad = icmp slt i32 %v, 0
  br i1 %bad, label %fail, label %ok
fail:
  call void @__assertfail(ptr null, ptr null, i32 0, ptr null, i64 1)
  unreachable
ok:
  call void asm sideeffect "@%p1 trap;", ""()
  ret void
}

define ptx_kernel void @parent(i32 %v, i1 %bad) !dbg !4 {
  br i1 %bad, label %fail, label %launch
fail:
  call void @llvm.trap()
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
