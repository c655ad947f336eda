; A child whose threads meet at a barrier and share memory (each writes its slot of a __shared__ tile,
; waits, and reads its neighbour's) is aggregated at every granularity: unlike serialization, warp runs
; and coarsening, aggregation gives each aggregated block a hardware block of its own, so the barrier and
; the shared memory keep their meaning. The variant returns at once in threads beyond the record's block
; size (%n threads here, the aggregated block the largest of them), before the barrier (an exited
; thread counts as arrived), and keeps the barrier and the tile; blockDim.x is the record's.
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=warp;no-inline-runtime>' -pass-remarks=klap -pass-remarks-missed=klap -S %s -o %t.warp.ll 2>%t.warp.remarks
; RUN: FileCheck --check-prefixes=CHECK,WARP %s < %t.warp.ll
; RUN: FileCheck --check-prefix=WARP-REMARK %s < %t.warp.remarks
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=block;no-inline-runtime>' -pass-remarks=klap -pass-remarks-missed=klap -S %s -o %t.block.ll 2>%t.block.remarks
; RUN: FileCheck --check-prefixes=CHECK,BLOCK %s < %t.block.ll
; RUN: FileCheck --check-prefix=BLOCK-REMARK %s < %t.block.remarks
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=grid;no-inline-runtime>' -pass-remarks=klap -pass-remarks-missed=klap -S %s -o %t.grid.ll 2>%t.grid.remarks
; RUN: FileCheck --check-prefixes=CHECK,GRID %s < %t.grid.ll
; RUN: FileCheck --check-prefix=GRID-REMARK %s < %t.grid.remarks

; WARP-REMARK: remark: {{.*}}launch of @child aggregated at warp granularity (12 argument bytes per record, 8 of them passed once{{.*}} [KLAP200]
; BLOCK-REMARK: remark: {{.*}}launch of @child aggregated at block granularity (12 argument bytes per record, 8 of them passed once{{.*}} [KLAP200]
; GRID-REMARK: remark: {{.*}}launch of @child aggregated at grid granularity (12 argument bytes per record, 8 of them passed once{{.*}} [KLAP200]

; CHECK-LABEL: define ptx_kernel void @parent(
; WARP:          [[SCOPE:%.*]] = call ptr @__klap_warp_enter(
; BLOCK:         [[SCOPE:%.*]] = call ptr @__klap_block_enter(
; GRID:          [[SCOPE:%.*]] = call ptr @__klap_grid_enter(
; CHECK:         call ptr @__klap_scope_register(ptr [[SCOPE]], i32 0, i32 1, i32 1, i32 1, i32 %n, i32 1, i32 1, i32 0)
; CHECK:         call i32 @__cudaCDP2LaunchDeviceV2(
; CHECK:         call void @__klap_scope_launch(ptr [[SCOPE]], i32 0, ptr @child__klap, ptr @child,
; CHECK-LABEL: define ptx_kernel void @child__klap(ptr %out, i32 %k, ptr %klap.chunk)
; CHECK:         [[REC:%.*]] = call ptr @__klap_child_enter(ptr %klap.chunk,
; CHECK-NEXT:    [[MINE:%.*]] = icmp ne ptr [[REC]], null
; CHECK-NEXT:    br i1 [[MINE]], label %{{.*}}, label %klap.masked
; CHECK:         %t.klap = call i32 @__klap_tid_x()
; CHECK-NEXT:    %w.klap = call i32 @__klap_ntid_x()
; CHECK-NEXT:    %sp.klap = getelementptr inbounds [64 x i32], ptr addrspace(3) @tile, i32 0, i32 %t.klap
; CHECK-NEXT:    store i32 {{%.*}}, ptr addrspace(3) %sp.klap
; CHECK-NEXT:    call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
; CHECK:         %j.klap = urem i32 %t1.klap, %w.klap
; CHECK:         load i32, ptr addrspace(3) %sq.klap
; CHECK:         call void @__klap_child_exit()
; CHECK-NEXT:    ret void
; CHECK:       klap.masked:
; CHECK-NEXT:    ret void

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare void @llvm.nvvm.barrier0()

@tile = internal addrspace(3) global [64 x i32] undef, align 4

; Each thread writes tile[t], waits for the block, and stores tile[(t + 1) % blockDim.x].
define ptx_kernel void @child(ptr %out, i32 %k) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %w = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %sp = getelementptr inbounds [64 x i32], ptr addrspace(3) @tile, i32 0, i32 %t
  store i32 %k, ptr addrspace(3) %sp, align 4
  call void @llvm.nvvm.barrier0()
  %t1 = add i32 %t, 1
  %j = urem i32 %t1, %w
  %sq = getelementptr inbounds [64 x i32], ptr addrspace(3) @tile, i32 0, i32 %j
  %v = load i32, ptr addrspace(3) %sq, align 4
  %p = getelementptr inbounds i32, ptr %out, i32 %t
  store i32 %v, ptr %p, align 4
  ret void
}

; Each thread launches one block of %n threads.
define ptx_kernel void @parent(ptr %out, i32 %n) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %bv = insertvalue %struct.dim3 { i32 poison, i32 1, i32 1 }, i32 %n, 0
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %g, align 4
  store %struct.dim3 %bv, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  %ok = icmp ne ptr %buf, null
  br i1 %ok, label %fill, label %done
fill:
  store ptr %out, ptr %buf, align 8
  %a1 = getelementptr inbounds i8, ptr %buf, i64 8
  store i32 %t, ptr %a1, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  br label %done
done:
  ret void
}
