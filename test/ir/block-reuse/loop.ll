; A launch in a loop writes a record at each iteration: a thread can queue several child grids, as
; long as the queue (here of 4 records) has room; the launch as written once it is full.
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=none;block-reuse;block-reuse-queue=4;no-inline-runtime>' -pass-remarks=klap -S %s -o %t.ll 2>%t.remarks
; RUN: opt -passes=verify -disable-output %t.ll
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks

; REMARK: launch of @child run by the launching block at its end: {{.*}}; queue of 4 records in shared memory (the launch as written when it is full) [KLAP310]

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

; A queue of 4 records of 32 header bytes and 8 argument bytes, 48 bytes aligned.
; CHECK: @parent__klap_reuse_queue = internal addrspace(3) global [192 x i8] undef, align 16
; CHECK-LABEL: define ptx_kernel void @parent(
; CHECK: loop:
; CHECK: %[[SLOT:.*]] = atomicrmw add ptr addrspace(3) @parent__klap_reuse_count, i32 %{{.*}} monotonic
; CHECK: icmp ult i32 %[[SLOT]], 4
; CHECK: %[[AT:.*]] = mul i64 %{{.*}}, 48
; CHECK: getelementptr inbounds i8, ptr addrspace(3) @parent__klap_reuse_queue, i64 %[[AT]]
; CHECK: call i32 @__cudaCDP2LaunchDeviceV2(
; CHECK: br label %latch
; The run loop reads no more records than the queue holds (the count goes on past it when it is full).
; CHECK: klap.reuse.run:
; CHECK: %[[FULL:.*]] = icmp ugt i32 %[[N:.*]], 4
; CHECK: select i1 %[[FULL]], i32 4, i32 %[[N]]
define ptx_kernel void @parent(ptr %out, i32 %n) {
entry:
  %w = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %latch ]
  %grid = alloca %struct.dim3, align 4
  %block = alloca %struct.dim3, align 4
  store i32 1, ptr %grid, align 4
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
  br i1 %ok, label %fill, label %latch
fill:
  store ptr %out, ptr %buf, align 8
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  br label %latch
latch:
  %i.next = add i32 %i, 1
  %more = icmp ult i32 %i.next, %n
  br i1 %more, label %loop, label %done
done:
  ret void
}
