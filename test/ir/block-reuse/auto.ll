; -klap-granularity=auto with -klap-block-reuse: serialization first (a child whose threads can run one by
; one, in grids of at most 32 threads), then block reuse for what is left (a child whose threads need each
; other, KLAP301, and serialization's run-time fallback), then aggregation for what block reuse launches
; (its own fallback: a full queue, a child block it cannot run). Beside aggregation since the sixteenth
; session (a warp barrier at the exit fixed test/gpu/block_reuse.cu's wrong sums there; KLAP317 retired).
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=auto;block-reuse;no-inline-runtime>' -pass-remarks=klap -pass-remarks-missed=klap -pass-remarks-analysis=klap -S %s -o %t.ll 2>%t.remarks
; Plain auto leaves block reuse out (test/gpu/block_reuse.cu failed on the GPU with it: plugin.rs).
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=auto;no-inline-runtime>' -S %s -o - | FileCheck --check-prefix=PLAIN %s
; PLAIN-NOT: __klap_block
; RUN: opt -passes=verify -disable-output %t.ll
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks

; REMARK-DAG: launch of @child run by the launching block at its end: its threads need each other (it waits at a barrier){{.*}} [KLAP310]
; REMARK-DAG: launch of @plain run by the launching block at its end: {{.*}} [KLAP310]
; REMARK-DAG: launch not serialized: {{.*}}@child{{.*}} [KLAP301]
; REMARK-DAG: launch of @plain serialized: {{.*}} [KLAP300]
; REMARK-DAG: launch of @plain aggregated at grid granularity {{.*}} [KLAP200]
; REMARK-DAG: launch of @child aggregated at grid granularity {{.*}} [KLAP200]

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

define ptx_kernel void @plain(ptr %out) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %p = getelementptr inbounds i32, ptr %out, i32 %t
  store i32 %t, ptr %p, align 4
  ret void
}

; CHECK-LABEL: define ptx_kernel void @parent(
; CHECK: atomicrmw add ptr addrspace(3) @parent__klap_reuse_count
; CHECK: call i1 @__klap_reuse_barrier(i1 true)
; CHECK: call void @child__klap_block(
; CHECK-LABEL: define ptx_kernel void @other(
; CHECK: call void @plain__klap_serial(
; CHECK: atomicrmw add ptr addrspace(3) @other__klap_reuse_count
; CHECK: call i1 @__klap_reuse_barrier(i1 true)
; CHECK: call void @plain__klap_block(
define ptx_kernel void @parent(ptr %out, i32 %n) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %w = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %lone = icmp eq i32 %t, 0
  br i1 %lone, label %launch, label %done
launch:
  %l.grid = alloca %struct.dim3, align 4
  %l.block = alloca %struct.dim3, align 4
  store i32 %n, ptr %l.grid, align 4
  %l.gy = getelementptr inbounds i8, ptr %l.grid, i64 4
  store i32 1, ptr %l.gy, align 4
  %l.gz = getelementptr inbounds i8, ptr %l.grid, i64 8
  store i32 1, ptr %l.gz, align 4
  store i32 %w, ptr %l.block, align 4
  %l.by = getelementptr inbounds i8, ptr %l.block, i64 4
  store i32 1, ptr %l.by, align 4
  %l.bz = getelementptr inbounds i8, ptr %l.block, i64 8
  store i32 1, ptr %l.bz, align 4
  %l.buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, ptr byval(%struct.dim3) align 4 %l.grid, ptr byval(%struct.dim3) align 4 %l.block, i32 0)
  %l.ok = icmp ne ptr %l.buf, null
  br i1 %l.ok, label %fill, label %done
fill:
  store ptr %out, ptr %l.buf, align 8
  %l.r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %l.buf, ptr null)
  br label %done
done:
  ret void
}

define ptx_kernel void @other(ptr %out, i32 %n) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %w = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %lone = icmp eq i32 %t, 0
  br i1 %lone, label %launch, label %done
launch:
  %l.grid = alloca %struct.dim3, align 4
  %l.block = alloca %struct.dim3, align 4
  store i32 %n, ptr %l.grid, align 4
  %l.gy = getelementptr inbounds i8, ptr %l.grid, i64 4
  store i32 1, ptr %l.gy, align 4
  %l.gz = getelementptr inbounds i8, ptr %l.grid, i64 8
  store i32 1, ptr %l.gz, align 4
  store i32 %w, ptr %l.block, align 4
  %l.by = getelementptr inbounds i8, ptr %l.block, i64 4
  store i32 1, ptr %l.by, align 4
  %l.bz = getelementptr inbounds i8, ptr %l.block, i64 8
  store i32 1, ptr %l.bz, align 4
  %l.buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @plain, ptr byval(%struct.dim3) align 4 %l.grid, ptr byval(%struct.dim3) align 4 %l.block, i32 0)
  %l.ok = icmp ne ptr %l.buf, null
  br i1 %l.ok, label %fill, label %done
fill:
  store ptr %out, ptr %l.buf, align 8
  %l.r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %l.buf, ptr null)
  br label %done
done:
  ret void
}

