; klap_prologue_end() (runtime/klap.h), the programmer's mark of the prologue's end, overrides the analysis of
; memory: @marked reads %in, which is not `noalias`, so the analysis alone would wait before that read; the mark
; says the read needs nothing from the link before, and the wait goes at the mark. A use of a parameter the link
; before computes must still come after it: in @marklate it comes before, and the link waits at its start.
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=none;promote=all;no-inline-runtime>' -pass-remarks=klap -pass-remarks-missed=klap -S %s -o %t.ll 2>%t.remarks
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks

; REMARK: remark: {{.*}}the prologue of @marked__klap_pool overlaps the link before: {{[0-9]+}} instructions run before the wait; arguments published at a link's start: #3; taken after the wait: #4; the wait is at klap_prologue_end(), the programmer's mark, which overrides the analysis of what may run before it [KLAP415]
; REMARK: remark: {{.*}}promoted without overlap: klap_prologue_end() cannot be the wait: `%acc2{{.*}} = fadd float %acc, %sq{{.*}}` comes before it: it uses parameter #4, which the link before computes [KLAP416]
; CHECK-LABEL: define ptx_kernel void @marked__klap_pool(
; CHECK:         call ptr @__klap_pool_enter_early(
; CHECK:         load float, ptr
; CHECK:         call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
; CHECK-NEXT:    call ptr @__klap_pool_wait_word(i32 24)
; CHECK-LABEL: define ptx_kernel void @marklate__klap_pool(
; CHECK:         call ptr @__klap_pool_enter(
; CHECK-NOT:     __klap_pool_wait
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.smin.i32(i32, i32)
declare void @llvm.nvvm.barrier.cta.sync.aligned.all(i32)

define ptx_kernel void @marked(ptr %in, ptr %out, i32 %n, i32 %first, float %acc) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %last = add nsw i32 %first, 64
  %end = call i32 @llvm.smin.i32(i32 %n, i32 %last)
  %i = add i32 %first, %t
  %pin = getelementptr inbounds float, ptr %in, i32 %i
  %x = load float, ptr %pin, align 4
  %sq = fmul float %x, %x
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  call void asm sideeffect "// klap_prologue_end", "~{memory}"()
  %acc2 = fadd float %acc, %sq
  %pout = getelementptr inbounds float, ptr %out, i32 %i
  store float %acc2, ptr %pout, align 4
  %lead = icmp eq i32 %t, 0
  br i1 %lead, label %test, label %done
test:
  %more = icmp slt i32 %end, %n
  br i1 %more, label %launch, label %done
launch:
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %g, align 4
  store %struct.dim3 { i32 64, i32 1, i32 1 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @marked, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  %ok = icmp ne ptr %buf, null
  br i1 %ok, label %fill, label %done
fill:
  store ptr %in, ptr %buf, align 8
  %a1 = getelementptr inbounds i8, ptr %buf, i64 8
  store ptr %out, ptr %a1, align 8
  %a2 = getelementptr inbounds i8, ptr %buf, i64 16
  store i32 %n, ptr %a2, align 4
  %a3 = getelementptr inbounds i8, ptr %buf, i64 20
  store i32 %end, ptr %a3, align 4
  %a4 = getelementptr inbounds i8, ptr %buf, i64 24
  store float %acc2, ptr %a4, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr inttoptr (i64 4 to ptr))
  br label %done
done:
  ret void
}

define ptx_kernel void @marklate(ptr %in, ptr %out, i32 %n, i32 %first, float %acc) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %last = add nsw i32 %first, 64
  %end = call i32 @llvm.smin.i32(i32 %n, i32 %last)
  %i = add i32 %first, %t
  %pin = getelementptr inbounds float, ptr %in, i32 %i
  %x = load float, ptr %pin, align 4
  %sq = fmul float %x, %x
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %acc2 = fadd float %acc, %sq
  call void asm sideeffect "// klap_prologue_end", "~{memory}"()
  %pout = getelementptr inbounds float, ptr %out, i32 %i
  store float %acc2, ptr %pout, align 4
  %lead = icmp eq i32 %t, 0
  br i1 %lead, label %test, label %done
test:
  %more = icmp slt i32 %end, %n
  br i1 %more, label %launch, label %done
launch:
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %g, align 4
  store %struct.dim3 { i32 64, i32 1, i32 1 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @marklate, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  %ok = icmp ne ptr %buf, null
  br i1 %ok, label %fill, label %done
fill:
  store ptr %in, ptr %buf, align 8
  %a1 = getelementptr inbounds i8, ptr %buf, i64 8
  store ptr %out, ptr %a1, align 8
  %a2 = getelementptr inbounds i8, ptr %buf, i64 16
  store i32 %n, ptr %a2, align 4
  %a3 = getelementptr inbounds i8, ptr %buf, i64 20
  store i32 %end, ptr %a3, align 4
  %a4 = getelementptr inbounds i8, ptr %buf, i64 24
  store float %acc2, ptr %a4, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr inttoptr (i64 4 to ptr))
  br label %done
done:
  ret void
}
