; A child whose threads can end without returning (here through a call of a `noreturn` function in a
; device function it calls) cannot be aggregated at any granularity: the aggregated variant counts each
; thread out of its record where it returns, and the chunk of records is freed (and a grid scope in the
; variant completes) only when every thread is counted. The launch is left as written, with a missed
; remark [KLAP212].
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=warp;no-inline-runtime>' -S %s -o %t.ll \
; RUN:   -pass-remarks-missed=klap 2>%t.remarks
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks

; REMARK: remark: parent.cu:12:5: launch not aggregated: a thread of @child can end without returning (the call of @stop in @check), and the aggregated variant counts its threads out where they return [KLAP212]
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

declare void @stop() noreturn

define internal void @check(i32 %v) {
  %bad = icmp slt i32 %v, 0
  br i1 %bad, label %fail, label %ok
fail:
  call void @stop()
  unreachable
ok:
  ret void
}

define ptx_kernel void @child(i32 %v) {
  call void @check(i32 %v)
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
