; Grid reuse in a module with debug info (as -g, or -Rpass, which tracks locations, makes it): the loop
; at the parent's end calls the child's block variant, whose instructions carry the child's locations, and
; the runtime is inlined after klap's steps. A call klap made gets a location of line 0 in its caller's
; subprogram, so that the inlined child code is inlined at it; without one the inlined instructions kept the
; child's subprogram as their scope and the verifier rejected the parent ("!dbg attachment points at wrong
; subprogram"; found by the fuzzer with -klap-grid-reuse).
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=grid;grid-reuse>' -S %s -o %t.ll
; RUN: opt -passes=verify -disable-output %t.ll
; RUN: FileCheck %s < %t.ll
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=grid;grid-reuse-blocks=1>' -S %s | opt -passes=verify -disable-output

; The child's code, inlined into the parent's loop, is in a child scope inlined at line 0 of the parent.
; CHECK-LABEL: define ptx_kernel void @parent(
; CHECK: klap.reuse.child:
; CHECK: !dbg ![[INLINED:[0-9]+]]
; CHECK-DAG: ![[INLINED]] = !DILocation(line: 2, column: 3, scope: !{{[0-9]+}}, inlinedAt: ![[AT:[0-9]+]])
; CHECK-DAG: ![[AT]] = distinct !DILocation(line: 0, scope: ![[PARENT:[0-9]+]])
; CHECK-DAG: ![[PARENT]] = distinct !DISubprogram(name: "parent"

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare void @llvm.nvvm.barrier.cta.sync.aligned.all(i32)

define ptx_kernel void @child(ptr %out, i32 %v) !dbg !10 {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x(), !dbg !12
  %c = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x(), !dbg !12
  %w = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x(), !dbg !12
  %base = mul i32 %c, %w, !dbg !12
  %i = add i32 %base, %t, !dbg !12
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0), !dbg !12
  %p = getelementptr inbounds i32, ptr %out, i32 %i, !dbg !12
  store i32 %v, ptr %p, align 4, !dbg !12
  ret void, !dbg !12
}


define ptx_kernel void @parent(ptr %out, i32 %n) !dbg !20 {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x(), !dbg !21
  %b = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x(), !dbg !21
  %w = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x(), !dbg !21
  %bw = mul i32 %b, %w, !dbg !21
  %i = add i32 %bw, %t, !dbg !21
  %in = icmp ult i32 %i, %n, !dbg !21
  br i1 %in, label %launch, label %done
launch:
  %grid = alloca %struct.dim3, align 4, !dbg !21
  %block = alloca %struct.dim3, align 4, !dbg !21
  %rem = urem i32 %i, 3, !dbg !21
  %blocks = add i32 %rem, 1, !dbg !21
  store i32 %blocks, ptr %grid, align 4, !dbg !21
  %gy = getelementptr inbounds i8, ptr %grid, i64 4, !dbg !21
  store i32 1, ptr %gy, align 4, !dbg !21
  %gz = getelementptr inbounds i8, ptr %grid, i64 8, !dbg !21
  store i32 1, ptr %gz, align 4, !dbg !21
  store i32 64, ptr %block, align 4, !dbg !21
  %by = getelementptr inbounds i8, ptr %block, i64 4, !dbg !21
  store i32 1, ptr %by, align 4, !dbg !21
  %bz = getelementptr inbounds i8, ptr %block, i64 8, !dbg !21
  store i32 1, ptr %bz, align 4, !dbg !21
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, ptr byval(%struct.dim3) align 4 %grid, ptr byval(%struct.dim3) align 4 %block, i32 0), !dbg !21
  %ok = icmp ne ptr %buf, null, !dbg !21
  br i1 %ok, label %fill, label %done
fill:
  store ptr %out, ptr %buf, align 8, !dbg !21
  %vp = getelementptr inbounds i8, ptr %buf, i64 8, !dbg !21
  store i32 %i, ptr %vp, align 4, !dbg !21
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null), !dbg !21
  br label %done
done:
  ret void, !dbg !21
}

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!2, !3}
!0 = distinct !DICompileUnit(language: DW_LANG_C_plus_plus, file: !1, emissionKind: LineTablesOnly)
!1 = !DIFile(filename: "grid_reuse.cu", directory: "/")
!2 = !{i32 2, !"Debug Info Version", i32 3}
!3 = !{i32 7, !"Dwarf Version", i32 5}
!10 = distinct !DISubprogram(name: "child", scope: !1, file: !1, line: 1, type: !11, scopeLine: 1, spFlags: DISPFlagDefinition, unit: !0)
!11 = !DISubroutineType(types: !{})
!12 = !DILocation(line: 2, column: 3, scope: !10)
!20 = distinct !DISubprogram(name: "parent", scope: !1, file: !1, line: 10, type: !11, scopeLine: 10, spFlags: DISPFlagDefinition, unit: !0)
!21 = !DILocation(line: 11, column: 3, scope: !20)
