; Where promotion with aggregation and overlap cannot overlap, the link waits at its start as without
; overlap (KLAP416 says why): the input is not `noalias` (the chain's writes through %out could reach it);
; the launch condition depends on the work (a link launched speculatively must not read early); the kernel
; writes global memory before it reads anything (nothing worth overlapping).
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=none;promote=all;no-inline-runtime>' -pass-remarks=klap -pass-remarks-missed=klap -S %s -o %t.ll 2>%t.remarks
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks

; REMARK: remark: {{.*}}promoted without overlap: nothing worth overlapping runs before the wait (no read, no barrier): {{.*}}`%x{{.*}} = load float, ptr %pin{{.*}}`: it reads memory that the link before may write {{.*}} [KLAP416]
; REMARK: remark: {{.*}}promoted without overlap: the launch condition is not known at entry: a link launched speculatively must not run its prologue early (it could read past the end of its input) [KLAP416]
; REMARK: remark: {{.*}}promoted without overlap: nothing worth overlapping runs before the wait (no read, no barrier): the wait is before `store float 0.000000e+00, ptr %pfirst{{.*}}`: it writes memory that other blocks can see [KLAP416]
; CHECK-LABEL: define ptx_kernel void @notrestrict__klap_pool(
; CHECK:         call ptr @__klap_pool_enter(ptr %klap.pool, i32 28)
; CHECK-NOT:     __klap_pool_wait
; CHECK-LABEL: define ptx_kernel void @speculative__klap_pool(
; CHECK:         call ptr @__klap_pool_enter(ptr %klap.pool, i32 28)
; CHECK-NOT:     __klap_pool_wait
; CHECK-LABEL: define ptx_kernel void @storefirst__klap_pool(
; CHECK:         call ptr @__klap_pool_enter(ptr %klap.pool, i32 28)
; CHECK-NOT:     __klap_pool_wait
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.smin.i32(i32, i32)
declare void @llvm.nvvm.barrier.cta.sync.aligned.all(i32)

define ptx_kernel void @notrestrict(ptr %in, ptr %out, i32 %n, i32 %first, float %acc) {
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
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @notrestrict, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
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

define ptx_kernel void @speculative(ptr noalias %in, ptr %out, i32 %n, i32 %first, float %acc) {
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
  %pout = getelementptr inbounds float, ptr %out, i32 %i
  store float %acc2, ptr %pout, align 4
  %lead = icmp eq i32 %t, 0
  br i1 %lead, label %test, label %done
test:
  %more = fcmp ogt float %acc2, 0.0
  br i1 %more, label %launch, label %done
launch:
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %g, align 4
  store %struct.dim3 { i32 64, i32 1, i32 1 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @speculative, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
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

define ptx_kernel void @storefirst(ptr noalias %in, ptr %out, i32 %n, i32 %first, float %acc) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %last = add nsw i32 %first, 64
  %end = call i32 @llvm.smin.i32(i32 %n, i32 %last)
  %i = add i32 %first, %t
  %pin = getelementptr inbounds float, ptr %in, i32 %i
  %pfirst = getelementptr inbounds float, ptr %out, i32 %i
  store float 0.0, ptr %pfirst, align 4
  %x = load float, ptr %pin, align 4
  %sq = fmul float %x, %x
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
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
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @storefirst, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
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
