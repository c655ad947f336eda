; Grid reuse: the parent's blocks, once done, run whole child grids registered in the grid scope, with all
; their threads, before the scope's aggregated launch (runtime/reuse.cu). Block reuse gives the parent its
; one exit; aggregation makes the marker there the loop that takes records and runs their grids, gives the
; group's records a ready flag after their arguments, and gives the aggregated child an entry past the
; records taken.
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=grid;grid-reuse;no-inline-runtime>' -pass-remarks=klap -pass-remarks-missed=klap -S %s -o %t.ll 2>%t.remarks
; RUN: opt -passes=verify -disable-output %t.ll
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks

; REMARK: launch of @child aggregated at grid granularity (12 argument bytes per record, 8 of them passed once, as the aggregated kernel's parameters) [KLAP200]
; REMARK: child grids of @child run by the blocks of @parent that are done, with all their threads, in the order they were registered in the grid scope {{.*}} [KLAP319]
; REMARK-NOT: KLAP310

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare void @llvm.nvvm.barrier.cta.sync.aligned.all(i32)

; A child whose threads meet at a barrier; its first argument is the parent's (uniform), its second each
; launching thread's.
define ptx_kernel void @child(ptr %out, i32 %v) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %c = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %w = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %base = mul i32 %c, %w
  %i = add i32 %base, %t
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %p = getelementptr inbounds i32, ptr %out, i32 %i
  store i32 %v, ptr %p, align 4
  ret void
}

; The registration: the group's record size has room for the ready flag (12 bytes of arguments, the flag
; at 16: 32 bytes) and the runtime's READY_FLAGS (1 << 30); the flag is set after the arguments. Each
; block counts itself in at entry (COUNT_ENTERED, 4): blocks take grids once every block has started.
; CHECK-LABEL: define ptx_kernel void @parent(
; CHECK: %[[SCOPE:.*]] = call ptr @__klap_grid_enter_per_block(i32 4, i32 1, i32 1073741856,
; CHECK: %[[TAGGED:.*]] = call ptr @__klap_scope_register_flagged(
; CHECK: call void @__klap_record_written()
; CHECK-NEXT: call void @__klap_record_ready(ptr %[[TAGGED]], i32 24)
; The one exit: every thread waits, then the block takes records and runs their grids.
; CHECK: klap.reuse.wait:
; CHECK: klap.reuse.run:
; CHECK-NOT: klap.reuse.records
; The block's threads have done their own work; while another block's have not, it takes grids.
; CHECK: call void @__klap_grid_at_end(ptr %[[SCOPE]], i32 %[[THREADS:.*]])
; CHECK-NEXT: br label %klap.grid.reuse.take
; CHECK: call i1 @__klap_scope_exit(
; CHECK: klap.grid.reuse.take:
; CHECK-NEXT: %[[ARGS:.*]] = call ptr @__klap_grid_take(ptr %[[SCOPE]], i32 0, i32 %[[THREADS]], i32 0)
; CHECK-NEXT: %[[NONE:.*]] = icmp eq ptr %[[ARGS]], null
; CHECK-NEXT: br i1 %[[NONE]], label %{{.*}}, label %klap.grid.reuse.run
; CHECK: klap.grid.reuse.run:
; CHECK: call i32 @__klap_taken_dim(i32 0)
; CHECK: call i32 @__klap_taken_dim(i32 5)
; The uniform argument from the chunk's first record, the other from the taken record.
; CHECK: %[[UNIFORM:.*]] = call ptr @__klap_taken_uniform_args()
; CHECK: load ptr, ptr %[[UNIFORM]]
; CHECK: %[[V:.*]] = getelementptr inbounds i8, ptr %[[ARGS]], i64 8
; CHECK: load i32, ptr %[[V]]
; CHECK: klap.reuse.child:
; CHECK: call void @child__klap_block(
; CHECK: klap.reuse.block.done:
; CHECK-NEXT: call void @llvm.nvvm.barrier.cta.sync.all(i32 0)
; CHECK-NOT: klap.grid.reuse

; The aggregated child starts past the records parent blocks ran.
; CHECK-LABEL: define ptx_kernel void @child__klap(ptr %out, i32 %v, ptr %klap.chunk)
; CHECK: call ptr @__klap_child_enter_after_taken(ptr %klap.chunk,
define ptx_kernel void @parent(ptr %out, i32 %n) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %b = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %w = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %bw = mul i32 %b, %w
  %i = add i32 %bw, %t
  %in = icmp ult i32 %i, %n
  br i1 %in, label %launch, label %done
launch:
  %grid = alloca %struct.dim3, align 4
  %block = alloca %struct.dim3, align 4
  %rem = urem i32 %i, 3
  %blocks = add i32 %rem, 1
  store i32 %blocks, ptr %grid, align 4
  %gy = getelementptr inbounds i8, ptr %grid, i64 4
  store i32 1, ptr %gy, align 4
  %gz = getelementptr inbounds i8, ptr %grid, i64 8
  store i32 1, ptr %gz, align 4
  store i32 64, ptr %block, align 4
  %by = getelementptr inbounds i8, ptr %block, i64 4
  store i32 1, ptr %by, align 4
  %bz = getelementptr inbounds i8, ptr %block, i64 8
  store i32 1, ptr %bz, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, ptr byval(%struct.dim3) align 4 %grid, ptr byval(%struct.dim3) align 4 %block, i32 0)
  %ok = icmp ne ptr %buf, null
  br i1 %ok, label %fill, label %done
fill:
  store ptr %out, ptr %buf, align 8
  %vp = getelementptr inbounds i8, ptr %buf, i64 8
  store i32 %i, ptr %vp, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  br label %done
done:
  ret void
}
