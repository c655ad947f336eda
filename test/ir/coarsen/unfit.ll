; A child whose threads need something of each other is not coarsened (KLAP621 says why): a thread done with
; one aggregated block would wait at the next one's entry while others of its block still wait at a barrier
; of the child, or its warp's lanes at a collective. Neither is a child that launches kernels itself (its
; launches are aggregated in a scope of its own) or takes stack of a size known only as it runs. Each keeps
; the aggregated variant as it is, its launch the parameter size without the factor (12 | ARGS_IN_PARAMS).
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=grid;no-inline-runtime;coarsen=4>' -pass-remarks-missed=klap -S %s -o %t.ll 2>%t.remarks
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare void @llvm.nvvm.barrier0()
declare i32 @llvm.nvvm.shfl.sync.down.i32(i32, i32, i32, i32)

; REMARK-DAG: remark: <unknown>:0:0: child not coarsened: each block of @with_barrier's aggregated child runs one aggregated block: it waits at a barrier [KLAP621]
; REMARK-DAG: remark: <unknown>:0:0: child not coarsened: each block of @with_shuffle's aggregated child runs one aggregated block: it exchanges values within a warp [KLAP621]
; REMARK-DAG: remark: <unknown>:0:0: child not coarsened: each block of @with_vla's aggregated child runs one aggregated block: @with_vla takes stack of a size known only as it runs [KLAP621]

define ptx_kernel void @with_barrier(ptr %out, i32 %n) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  call void @llvm.nvvm.barrier0()
  %p = getelementptr inbounds i32, ptr %out, i32 %t
  store i32 %n, ptr %p, align 4
  ret void
}

define ptx_kernel void @with_shuffle(ptr %out, i32 %n) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %v = call i32 @llvm.nvvm.shfl.sync.down.i32(i32 -1, i32 %n, i32 1, i32 31)
  %p = getelementptr inbounds i32, ptr %out, i32 %t
  store i32 %v, ptr %p, align 4
  ret void
}

define ptx_kernel void @with_vla(ptr %out, i32 %n) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %a = alloca i32, i32 %n, align 4
  store volatile i32 %t, ptr %a, align 4
  %v = load volatile i32, ptr %a, align 4
  %p = getelementptr inbounds i32, ptr %out, i32 %t
  store i32 %v, ptr %p, align 4
  ret void
}

; CHECK-LABEL: define ptx_kernel void @parent(
; CHECK:         call void @__klap_scope_launch(ptr {{%.*}}, i32 {{[0-9]}}, ptr @with_barrier__klap, ptr @with_barrier, i32 1073741836,
; CHECK:         call void @__klap_scope_launch(ptr {{%.*}}, i32 {{[0-9]}}, ptr @with_shuffle__klap, ptr @with_shuffle, i32 1073741836,
; CHECK:         call void @__klap_scope_launch(ptr {{%.*}}, i32 {{[0-9]}}, ptr @with_vla__klap, ptr @with_vla, i32 1073741836,
define ptx_kernel void @parent(ptr %out, i32 %n) {
entry:
  %grid = alloca %struct.dim3, align 8
  %block = alloca %struct.dim3, align 8
  store %struct.dim3 { i32 4, i32 1, i32 1 }, ptr %grid, align 8
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %block, align 8
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %mine = add i32 %n, %tid
  %b1 = call ptr @__cudaCDP2GetParameterBufferV2(ptr @with_barrier, ptr byval(%struct.dim3) align 4 %grid, ptr byval(%struct.dim3) align 4 %block, i32 0)
  store ptr %out, ptr %b1, align 8
  %b1n = getelementptr inbounds i8, ptr %b1, i64 8
  store i32 %mine, ptr %b1n, align 8
  %r1 = call i32 @__cudaCDP2LaunchDeviceV2(ptr %b1, ptr inttoptr (i64 4 to ptr))
  %b2 = call ptr @__cudaCDP2GetParameterBufferV2(ptr @with_shuffle, ptr byval(%struct.dim3) align 4 %grid, ptr byval(%struct.dim3) align 4 %block, i32 0)
  store ptr %out, ptr %b2, align 8
  %b2n = getelementptr inbounds i8, ptr %b2, i64 8
  store i32 %mine, ptr %b2n, align 8
  %r2 = call i32 @__cudaCDP2LaunchDeviceV2(ptr %b2, ptr inttoptr (i64 4 to ptr))
  %b3 = call ptr @__cudaCDP2GetParameterBufferV2(ptr @with_vla, ptr byval(%struct.dim3) align 4 %grid, ptr byval(%struct.dim3) align 4 %block, i32 0)
  store ptr %out, ptr %b3, align 8
  %b3n = getelementptr inbounds i8, ptr %b3, i64 8
  store i32 %mine, ptr %b3n, align 8
  %r3 = call i32 @__cudaCDP2LaunchDeviceV2(ptr %b3, ptr inttoptr (i64 4 to ptr))
  ret void
}

; CHECK-LABEL: define ptx_kernel void @with_barrier__klap(
; CHECK-NOT:     coarse
; CHECK:         call ptr @__klap_child_enter(
; CHECK-NOT:     coarse
; CHECK:       }
