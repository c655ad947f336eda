; An instruction with a metadata operand in a child (here the scope declaration that inlining a function of
; `__restrict__` parameters leaves, as clang's -O0 always-inline does) does not stop the analyses that read
; every operand: the child is serialized as without it (every example of nested at -O0 under `auto` was an
; internal error, "The given type is not a basic type", before operands were read as values only where
; they are values).
; RUN: %opt -load-pass-plugin=%plugin -klap-disable-aggregate -klap-disable-malloc -passes='klap<granularity=grid;serialize;serialize-threshold=256;serialize-small-grid-threshold=0;no-inline-runtime>' -pass-remarks=klap -S %s -o %t.ll 2>%t.remarks
; RUN: opt -passes=verify -disable-output %t.ll
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks

; REMARK: launch of @child serialized: the launching thread runs its 128 threads always [KLAP300]

; CHECK-LABEL: define ptx_kernel void @small(
; CHECK:         call void @child__klap_serial(
; CHECK-LABEL: define internal void @child__klap_thread(
; CHECK:         call void @llvm.experimental.noalias.scope.decl(metadata !{{[0-9]+}})

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.tid.y()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare void @llvm.nvvm.barrier0()
declare void @llvm.experimental.noalias.scope.decl(metadata)
define ptx_kernel void @child(ptr %out, i32 %k) {
  call void @llvm.experimental.noalias.scope.decl(metadata !0)
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %c = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %w = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %base = mul i32 %c, %w
  %i = add i32 %base, %t

  %p = getelementptr inbounds i32, ptr %out, i32 %i
  store i32 %k, ptr %p, align 4
  ret void
}
define ptx_kernel void @small(ptr %out, i32 %n) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  %gv = insertvalue %struct.dim3 { i32 poison, i32 1, i32 1 }, i32 4, 0
  store %struct.dim3 %gv, ptr %g, align 4
  %bv = insertvalue %struct.dim3 { i32 poison, i32 1, i32 1 }, i32 32, 0
  store %struct.dim3 %bv, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  %ok = icmp ne ptr %buf, null
  br i1 %ok, label %fill, label %done
fill:
  store ptr %out, ptr %buf, align 8
  %a1 = getelementptr inbounds i8, ptr %buf, i64 8
  store i32 %n, ptr %a1, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  br label %done
done:
  ret void
}

!0 = !{!1}
!1 = distinct !{!1, !2, !"child: %out"}
!2 = distinct !{!2, !"child"}
