; Every return of a parent kernel goes to the one exit where the block runs its queued child blocks:
; threads that return after the kernel's last barrier (in either branch, before or after the launch)
; wait there. A thread that can return while others of its block still have a barrier to reach is not
; allowed: it would wait at the exit, at another barrier instruction than the lanes of its warp at the
; kernel's barrier, which an H100 stops with an illegal instruction (or, with both in one function, lets
; the warp through the barrier early): such a parent keeps its launches (KLAP313), whatever the branch's
; condition (threadIdx here) makes of it.
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=none;block-reuse;no-inline-runtime>' -pass-remarks=klap -pass-remarks-missed=klap -S %s -o %t.ll 2>%t.remarks
; RUN: opt -passes=verify -disable-output %t.ll
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks

; REMARK-DAG: launch of @child run by the launching block at its end: {{.*}} [KLAP310]
; REMARK-DAG: launch not reused by its block: a thread of @parent_early can end while others of its block still have a barrier to reach (a branch the threads may disagree on), and it would wait at the end at another barrier instruction than its warp [KLAP313]

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.tid.y()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.y()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare void @llvm.nvvm.barrier.cta.sync.aligned.all(i32)

define ptx_kernel void @child(ptr %out) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %c = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %w = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %base = mul i32 %c, %w
  %i = add i32 %base, %t
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %p = getelementptr inbounds i32, ptr %out, i32 %i
  store i32 %i, ptr %p, align 4
  ret void
}

; CHECK-LABEL: define ptx_kernel void @parent_late(
; CHECK-COUNT-2: br label %klap.reuse.converge
; CHECK-NOT: ret void
; The lanes of each warp meet before the barrier (the warp's existing lanes: a partial last warp too).
; CHECK: klap.reuse.converge:
; CHECK: %[[LANES:.*]] = select i1 %{{.*}}, i32 -1, i32 %{{.*}}
; CHECK-NEXT: call void @llvm.nvvm.bar.warp.sync(i32 %[[LANES]])
; CHECK-NEXT: br label %klap.reuse.wait
; CHECK: klap.reuse.wait:
; CHECK-NEXT: %[[HERE:.*]] = call i1 @__klap_reuse_barrier(i1 true)
; CHECK-NEXT: br i1 %[[HERE]], label %klap.reuse.run, label %klap.reuse.wait
; CHECK-NOT: ret void
; CHECK: klap.reuse.done:
; CHECK-NEXT: ret void
define ptx_kernel void @parent_late(ptr %out) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %w = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %odd = and i32 %t, 1
  %is.odd = icmp ne i32 %odd, 0
  br i1 %is.odd, label %out.odd, label %even
out.odd:
  ret void
even:
  %lone = icmp eq i32 %t, 0
  br i1 %lone, label %launch, label %out.late
launch:
  %grid = alloca %struct.dim3, align 4
  %block = alloca %struct.dim3, align 4
  store i32 4, ptr %grid, align 4
  %gy = getelementptr inbounds i8, ptr %grid, i64 4
  store i32 1, ptr %gy, align 4
  %gz = getelementptr inbounds i8, ptr %grid, i64 8
  store i32 1, ptr %gz, align 4
  store i32 %w, ptr %block, align 4
  %by = getelementptr inbounds i8, ptr %block, i64 4
  store i32 1, ptr %by, align 4
  %bz = getelementptr inbounds i8, ptr %block, i64 8
  store i32 1, ptr %bz, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, ptr byval(%struct.dim3) align 4 %grid, ptr byval(%struct.dim3) align 4 %block, i32 0)
  %ok = icmp ne ptr %buf, null
  br i1 %ok, label %fill, label %out.late
fill:
  store ptr %out, ptr %buf, align 8
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  br label %out.late
out.late:
  ret void
}

; The launch stays as written: no queue, no exit.
; CHECK-LABEL: define ptx_kernel void @parent_early(
; CHECK-NOT: klap.reuse
; CHECK: call i32 @__cudaCDP2LaunchDeviceV2(
; CHECK-NOT: klap.reuse
; CHECK: ret void
define ptx_kernel void @parent_early(ptr %out, i32 %n) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %w = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %early = icmp uge i32 %t, %n
  br i1 %early, label %out.early, label %work
out.early:
  ret void
work:
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %lone = icmp eq i32 %t, 0
  br i1 %lone, label %launch, label %out.late
launch:
  %grid = alloca %struct.dim3, align 4
  %block = alloca %struct.dim3, align 4
  store i32 4, ptr %grid, align 4
  %gy = getelementptr inbounds i8, ptr %grid, i64 4
  store i32 1, ptr %gy, align 4
  %gz = getelementptr inbounds i8, ptr %grid, i64 8
  store i32 1, ptr %gz, align 4
  store i32 %w, ptr %block, align 4
  %by = getelementptr inbounds i8, ptr %block, i64 4
  store i32 1, ptr %by, align 4
  %bz = getelementptr inbounds i8, ptr %block, i64 8
  store i32 1, ptr %bz, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, ptr byval(%struct.dim3) align 4 %grid, ptr byval(%struct.dim3) align 4 %block, i32 0)
  %ok = icmp ne ptr %buf, null
  br i1 %ok, label %fill, label %out.late
fill:
  store ptr %out, ptr %buf, align 8
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  br label %out.late
out.late:
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  ret void
}
