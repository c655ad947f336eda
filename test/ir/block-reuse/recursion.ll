; qt's shape: a kernel whose last thread launches the same kernel, 4 blocks of its own block size, and
; whose threads meet at a barrier. The kernel gets a queue and runs the queued blocks at its end through
; its block variant, built from the kernel as written: a child block run by its parent keeps its own
; launch as a launch (it does not queue again), so a parent block runs one generation of the tree, and
; the next generation is launched (a grid of its own, which aggregation may take).
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=none;block-reuse;no-inline-runtime>' -pass-remarks=klap -S %s -o %t.ll 2>%t.remarks
; RUN: opt -passes=verify -disable-output %t.ll
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks

; REMARK: launch of @qt run by the launching block at its end: its threads need each other ({{.*}}); its block is the parent's blockDim.x: {{.*}}; recursion (@qt launches its own kernel again): the child blocks the block runs keep their own launches as launches; a NULL-stream launch; {{.*}} [KLAP310]

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

; CHECK-LABEL: define ptx_kernel void @qt(
; CHECK: atomicrmw add ptr addrspace(3) @qt__klap_reuse_count
; CHECK: call ptr @__cudaCDP2GetParameterBufferV2(ptr @qt,
; CHECK: klap.reuse.child:
; CHECK: call void @qt__klap_block(
; The block variant launches the kernel: no queue, no run loop of its own.
; CHECK-LABEL: define internal void @qt__klap_block(
; CHECK-NOT: __klap_reuse
; CHECK: call ptr @__cudaCDP2GetParameterBufferV2(ptr @qt,
; CHECK-NOT: __klap_reuse
; CHECK: call i32 @__cudaCDP2LaunchDeviceV2(
; CHECK-NOT: __klap_reuse
; CHECK: ret void
define ptx_kernel void @qt(ptr %out, i32 %depth) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %c = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %w = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %p = getelementptr inbounds i32, ptr %out, i32 %t
  %old = load i32, ptr %p, align 4
  %new = add i32 %old, 1
  store i32 %new, ptr %p, align 4
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %last = add i32 %w, -1
  %is.last = icmp eq i32 %t, %last
  %deeper = icmp sgt i32 %depth, 0
  %go = and i1 %is.last, %deeper
  br i1 %go, label %launch, label %done
launch:
  %d = add i32 %depth, -1
  %l.grid = alloca %struct.dim3, align 4
  %l.block = alloca %struct.dim3, align 4
  store i32 4, ptr %l.grid, align 4
  %l.gy = getelementptr inbounds i8, ptr %l.grid, i64 4
  store i32 1, ptr %l.gy, align 4
  %l.gz = getelementptr inbounds i8, ptr %l.grid, i64 8
  store i32 1, ptr %l.gz, align 4
  store i32 %w, ptr %l.block, align 4
  %l.by = getelementptr inbounds i8, ptr %l.block, i64 4
  store i32 1, ptr %l.by, align 4
  %l.bz = getelementptr inbounds i8, ptr %l.block, i64 8
  store i32 1, ptr %l.bz, align 4
  %l.buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @qt, ptr byval(%struct.dim3) align 4 %l.grid, ptr byval(%struct.dim3) align 4 %l.block, i32 0)
  %l.ok = icmp ne ptr %l.buf, null
  br i1 %l.ok, label %fill, label %done
fill:
  store ptr %out, ptr %l.buf, align 8
  %l.a1 = getelementptr inbounds i8, ptr %l.buf, i64 8
  store i32 %d, ptr %l.a1, align 4
  %l.r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %l.buf, ptr null)
  br label %done
done:
  ret void
}
