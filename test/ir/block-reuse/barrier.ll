; A child whose threads meet at a barrier is run by the launching block at its end: the launching thread
; queues the launch (the launch as written where the checks fail or the queue is full), every thread of
; the block runs the queued child blocks, and the child's barrier becomes barrier 1 among the threads that
; run the child block.
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=none;block-reuse;no-inline-runtime>' -pass-remarks=klap -S %s -o %t.ll 2>%t.remarks
; RUN: opt -passes=verify -disable-output %t.ll
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks

; REMARK: launch of @child run by the launching block at its end: its threads need each other (it waits at a barrier); its block is the parent's blockDim.x: equal where the parent's blocks are one-dimensional, checked at run time: the child block must have the parent block's thread count, or fewer in whole warps; its 1 barrier(s) kept among the threads that run a child block; a NULL-stream launch; queue of 32 records in shared memory (the launch as written when it is full) [KLAP310]

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare void @llvm.nvvm.barrier.cta.sync.aligned.all(i32)

; CHECK-LABEL: @parent__klap_reuse_queue = internal addrspace(3) global [1536 x i8] undef, align 16
; CHECK-LABEL: @parent__klap_reuse_count = internal addrspace(3) global i32 undef, align 4

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

; The queue is emptied before any thread can write a record.
; CHECK-LABEL: define ptx_kernel void @parent(
; CHECK: store i32 0, ptr addrspace(3) @parent__klap_reuse_count
; CHECK: call void @llvm.nvvm.barrier.cta.sync.all(i32 0)
; The parent's own barrier: a reduction the waiting threads take part in.
; CHECK: call i1 @__klap_reuse_barrier(i1 false)
; At the launch: the checks, a slot, the record, or the launch as written.
; CHECK: call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
; CHECK: %[[SLOT:.*]] = atomicrmw add ptr addrspace(3) @parent__klap_reuse_count, i32 %{{.*}} monotonic
; CHECK: icmp ult i32 %[[SLOT]], 32
; CHECK: getelementptr inbounds i8, ptr addrspace(3) @parent__klap_reuse_queue
; CHECK: call ptr @__cudaCDP2GetParameterBufferV2(ptr @child
; CHECK: call i32 @__cudaCDP2LaunchDeviceV2(
; CHECK-NOT: ret void
; CHECK: klap.reuse.wait:
; CHECK-NEXT: %[[HERE:.*]] = call i1 @__klap_reuse_barrier(i1 true)
; CHECK-NEXT: br i1 %[[HERE]], label %klap.reuse.run, label %klap.reuse.wait
; CHECK: klap.reuse.record:
; CHECK: switch i32 %{{.*}}, label %klap.reuse.next [
; CHECK: klap.reuse.done:
; CHECK-NEXT: ret void
; CHECK: klap.reuse.child:
; CHECK: call void @child__klap_block(
; CHECK: klap.reuse.block.done:
; CHECK-NEXT: call void @llvm.nvvm.barrier.cta.sync.all(i32 0)
define ptx_kernel void @parent(ptr %out, i32 %n) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %w = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  br label %work
work:
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %last = add i32 %w, -1
  %lone = icmp eq i32 %t, %last
  br i1 %lone, label %launch, label %done
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
  br i1 %ok, label %fill, label %done
fill:
  store ptr %out, ptr %buf, align 8
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  br label %done
done:
  ret void
}

; The child's thread code takes its index registers and the threads of the child block.
; CHECK-LABEL: define internal void @child__klap_block(ptr %0, i32 %1, i32 %2, i32 %3, i32 %4, i32 %5, i32 %6, i32 %7, i32 %8, i32 %9, i32 %10, i32 %11, i32 %12, i32 %klap.threads)
; CHECK: %base.klap = mul i32 %7, %4
; CHECK: call i1 @__klap_child_barrier(i32 %klap.threads, i1 false)
; CHECK-NOT: llvm.nvvm.barrier.cta.sync.aligned.all
; CHECK: klap.child.returned:
; CHECK-NEXT: %[[ALL:.*]] = call i1 @__klap_child_barrier(i32 %klap.threads, i1 true)
; CHECK-NEXT: br i1 %[[ALL]], label %klap.child.done, label %klap.child.returned

; Each barrier is one instruction, in a function that is never inlined: lanes of a warp at the exit and
; lanes at a barrier of the parent (or of the child) wait at the same instruction.
; CHECK-LABEL: define internal i1 @__klap_child_barrier(i32 %0, i1 %1)
; CHECK-SAME: #[[NOINLINE:[0-9]+]] {
; CHECK: call i1 @llvm.nvvm.barrier.cta.red.and.all(i32 1, i1 %1)
; CHECK: call i1 @llvm.nvvm.barrier.cta.red.and.count(i32 1, i32 %0, i1 %1)
; CHECK-LABEL: define internal i1 @__klap_reuse_barrier(i1 %0)
; CHECK-SAME: #[[NOINLINE]] {
; CHECK-NEXT: entry:
; CHECK-NEXT: call i1 @llvm.nvvm.barrier.cta.red.and.all(i32 0, i1 %0)
; CHECK: attributes #[[NOINLINE]] = { convergent noinline "klap-barrier" }
