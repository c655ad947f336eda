; A device function called through a pointer may be called from anywhere, a loop included: the call
; graph bounds the pointer's targets, so the kernel that makes the call is known to run it, and the
; launch joins that kernel's grid scope (KLAP214), as for a device function called in a loop directly.
; Made where it is reached it would hang in a loop (KLAP208's reason); a kernel of another translation
; unit that calls it shares no scope, and there it is made as written.
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=grid;no-inline-runtime>' -S %s -o %t.ll \
; RUN:   -pass-remarks-analysis=klap 2>%t.remarks
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks

; REMARK: remark: parent.cu:12:5: the launch is in a device function: it joins the grid scope of the kernel running it (@parent); run by any other kernel, it is made as written [KLAP214]
; CHECK-LABEL: define internal void @spawn(
; CHECK-NOT:     __klap_warp_chunk
; CHECK:         [[SCOPE:%.*]] = call ptr @__klap_callee_scope()
; CHECK-NEXT:    call ptr @__klap_scope_register(ptr [[SCOPE]], i32 0,
; CHECK:         ret void
; CHECK-LABEL: define ptx_kernel void @parent(
; CHECK:         [[OWN:%.*]] = call ptr @__klap_grid_enter(i32 1, i32 4,
; CHECK-NEXT:    call void @__klap_share_scope(ptr [[OWN]])
; CHECK:         call void @__klap_scope_launch(ptr [[OWN]], i32 0, ptr @child__klap, ptr @child,
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, %struct.dim3, %struct.dim3, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)

define ptx_kernel void @child(i32 %v) {
  ret void
}

define internal void @spawn(i32 %v) !dbg !4 {
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, %struct.dim3 { i32 4, i32 1, i32 1 }, %struct.dim3 { i32 64, i32 1, i32 1 }, i32 0), !dbg !7
  store i32 %v, ptr %buf, align 4, !dbg !7
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null), !dbg !7
  ret void, !dbg !8
}

define internal void @skip(i32 %v) {
  ret void
}

define ptx_kernel void @parent(i32 %n, i1 %which) {
entry:
  %f = select i1 %which, ptr @spawn, ptr @skip
  br label %loop
loop:
  %k = phi i32 [ 0, %entry ], [ %k1, %loop ]
  call void %f(i32 %k)
  %k1 = add i32 %k, 1
  %more = icmp ult i32 %k1, %n
  br i1 %more, label %loop, label %exit
exit:
  ret void
}

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!2}
!0 = distinct !DICompileUnit(language: DW_LANG_C_plus_plus_14, file: !1, producer: "clang", isOptimized: true, runtimeVersion: 0, emissionKind: LineTablesOnly)
!1 = !DIFile(filename: "parent.cu", directory: "/src")
!2 = !{i32 2, !"Debug Info Version", i32 3}
!4 = distinct !DISubprogram(name: "spawn", scope: !1, file: !1, line: 10, type: !5, scopeLine: 10, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!5 = !DISubroutineType(types: !6)
!6 = !{}
!7 = !DILocation(line: 12, column: 5, scope: !4)
!8 = !DILocation(line: 13, column: 1, scope: !4)
