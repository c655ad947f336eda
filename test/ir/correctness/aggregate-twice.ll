; klap's aggregation runs once per module: it records itself in !klap.transformed, and a second
; klap<...> on the module (a pipeline that runs klap twice, as a compile plus device LTO may) skips the
; step with an analysis remark [KLAP210]: the module is the same as after one run, with one runtime and
; one pool, and the fallback launches of the first run are not aggregated again.
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=grid>' -S %s -o %t.once.ll
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=grid>,klap<granularity=grid>' -S %s -o %t.twice.ll \
; RUN:   -pass-remarks-analysis=klap 2>%t.remarks
; RUN: diff %t.once.ll %t.twice.ll
; RUN: FileCheck %s < %t.twice.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks

; CHECK:     @klap_pool = internal addrspace(1) global [268435456 x i8] zeroinitializer
; CHECK-NOT: @klap_pool{{.*}} = {{.*}}global [268435456 x i8]
; CHECK: !klap.transformed = !{![[MARK:[0-9]+]]}
; CHECK: ![[MARK]] = !{!"aggregate"}

; The first run's analysis of the launch, and the second run's skip at the same launch (the second
; analysis also sees the launches of the first run's inlined runtime: not checked here).
; REMARK:     remark: parent.cu:12:5: launch of @child recognized (v2 form, grid (4,1,1), block (64,1,1), stream null, 1 arguments) [KLAP100]
; REMARK:     remark: parent.cu:12:5: klap's aggregate step transformed this module already: it is skipped [KLAP210]
; REMARK-NOT: remark:
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, %struct.dim3, %struct.dim3, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)

define ptx_kernel void @child(i32 %v) {
  ret void
}

define ptx_kernel void @parent(i32 %v) !dbg !4 {
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
