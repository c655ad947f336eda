; Promotion into a loop and the kernel's barriers: the block's threads meet at a barrier where they return,
; so no thread may return while others of the block still have a barrier to reach.
; @bounded skips its barrier on a branch every thread takes alike (%first < min(%n, %first + 64): the
; parameters, through llvm.smin): promoted into a loop. @early returns early in the threads past %n, before
; the barrier the others reach: not promoted (KLAP419), its launch stays as written. @elsewhere does the same
; before a call to a function of another translation unit, which may wait at a barrier: not promoted either.
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=none;promote=loop>' -pass-remarks=klap -pass-remarks-missed=klap -S %s -o %t.ll 2>%t.remarks
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks

; REMARK-DAG: remark: {{.*}}launch of @bounded promoted into a loop: {{.*}} [KLAP418]
; REMARK-DAG: remark: {{.*}}launch not promoted into a loop: a thread of @elsewhere can return while others of its block still have a barrier to reach {{.*}} [KLAP419]
; REMARK-DAG: remark: {{.*}}launch not promoted into a loop: a thread of @early can return while others of its block still have a barrier to reach (a branch the threads may disagree on): it would wait at the link's end while they wait at the barrier [KLAP419]

; CHECK-LABEL: define ptx_kernel void @bounded(
; CHECK:       klap.loop.start:
; CHECK:       klap.loop.latch:
; CHECK-LABEL: define ptx_kernel void @early(
; CHECK-NOT:   klap.loop
; CHECK:         call i32 @__cudaCDP2LaunchDeviceV2(
; CHECK-NOT:   klap.loop
; CHECK-LABEL: define ptx_kernel void @elsewhere(
; CHECK-NOT:   klap.loop
; CHECK:         call i32 @__cudaCDP2LaunchDeviceV2(
; CHECK-NOT:   klap.loop
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.smin.i32(i32, i32)
declare void @llvm.nvvm.barrier0()
declare void @other_unit_step(i32)

@part = internal addrspace(3) global [64 x i32] undef, align 4

define ptx_kernel void @bounded(ptr %out, i32 %n, i32 %first) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %last = add nsw i32 %first, 64
  %end = call i32 @llvm.smin.i32(i32 %n, i32 %last)
  %work = icmp slt i32 %first, %end
  br i1 %work, label %body, label %tail
body:
  %slot = getelementptr inbounds i32, ptr addrspace(3) @part, i32 %t
  store i32 %t, ptr addrspace(3) %slot, align 4
  call void @llvm.nvvm.barrier0()
  %x = load i32, ptr addrspace(3) @part, align 4
  %i = add i32 %first, %t
  %p = getelementptr inbounds i32, ptr %out, i32 %i
  store i32 %x, ptr %p, align 4
  br label %tail
tail:
  %lead = icmp eq i32 %t, 0
  %more = icmp slt i32 %end, %n
  %go = and i1 %lead, %more
  br i1 %go, label %launch, label %done
launch:
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %g, align 4
  store %struct.dim3 { i32 64, i32 1, i32 1 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @bounded, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  %ok = icmp ne ptr %buf, null
  br i1 %ok, label %fill, label %done
fill:
  store ptr %out, ptr %buf, align 8
  %a1 = getelementptr inbounds i8, ptr %buf, i64 8
  store i32 %n, ptr %a1, align 4
  %a2 = getelementptr inbounds i8, ptr %buf, i64 12
  store i32 %end, ptr %a2, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr inttoptr (i64 4 to ptr))
  br label %done
done:
  ret void
}

define ptx_kernel void @early(ptr %out, i32 %n, i32 %first) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = add i32 %first, %t
  %past = icmp sge i32 %i, %n
  br i1 %past, label %done, label %body
body:
  %slot = getelementptr inbounds i32, ptr addrspace(3) @part, i32 %t
  store i32 %t, ptr addrspace(3) %slot, align 4
  call void @llvm.nvvm.barrier0()
  %x = load i32, ptr addrspace(3) @part, align 4
  %p = getelementptr inbounds i32, ptr %out, i32 %i
  store i32 %x, ptr %p, align 4
  %end = add nsw i32 %first, 64
  %lead = icmp eq i32 %t, 0
  %more = icmp slt i32 %end, %n
  %go = and i1 %lead, %more
  br i1 %go, label %launch, label %done
launch:
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %g, align 4
  store %struct.dim3 { i32 64, i32 1, i32 1 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @early, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  %ok = icmp ne ptr %buf, null
  br i1 %ok, label %fill, label %done
fill:
  store ptr %out, ptr %buf, align 8
  %a1 = getelementptr inbounds i8, ptr %buf, i64 8
  store i32 %n, ptr %a1, align 4
  %a2 = getelementptr inbounds i8, ptr %buf, i64 12
  store i32 %end, ptr %a2, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr inttoptr (i64 4 to ptr))
  br label %done
done:
  ret void
}

define ptx_kernel void @elsewhere(ptr %out, i32 %n, i32 %first) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = add i32 %first, %t
  %past = icmp sge i32 %i, %n
  br i1 %past, label %done, label %body
body:
  call void @other_unit_step(i32 %i)
  %end = add nsw i32 %first, 64
  %lead = icmp eq i32 %t, 0
  %more = icmp slt i32 %end, %n
  %go = and i1 %lead, %more
  br i1 %go, label %launch, label %done
launch:
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %g, align 4
  store %struct.dim3 { i32 64, i32 1, i32 1 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @elsewhere, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  %ok = icmp ne ptr %buf, null
  br i1 %ok, label %fill, label %done
fill:
  store ptr %out, ptr %buf, align 8
  %a1 = getelementptr inbounds i8, ptr %buf, i64 8
  store i32 %n, ptr %a1, align 4
  %a2 = getelementptr inbounds i8, ptr %buf, i64 12
  store i32 %end, ptr %a2, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr inttoptr (i64 4 to ptr))
  br label %done
done:
  ret void
}
