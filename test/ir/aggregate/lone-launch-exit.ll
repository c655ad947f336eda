; A grid scope whose every launch only one threadIdx.x of a block reaches (qt's `threadIdx.x ==
; blockDim.x - 1`) counts its exits per block first: the registering thread marks its lane
; (__klap_record_written_in_block), its warp counts itself into the scope, and the block's last warp
; adds the other warps, which release nothing, without a fence (__klap_grid_scope_exit). The block
; zeroes its count before its entry's barrier (__klap_grid_exits_reset). The variant of a
; recursive kernel counts the same way: judged on the kernel as written, since in the variant threadIdx
; is the runtime's. Where every thread may launch, each warp counts itself into the scope.
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=grid;no-inline-runtime>' -S %s -o - | FileCheck %s

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)

; CHECK-LABEL: define ptx_kernel void @node(
; CHECK:         call void @__klap_grid_exits_reset()
; CHECK-NEXT:    call ptr @__klap_grid_enter(
; CHECK:         call void @__klap_record_written_in_block()
; CHECK:         call i1 @__klap_grid_scope_exit(ptr {{%.*}}, i64 {{%.*}}, i64 {{%.*}})
; CHECK-NOT:     call i1 @__klap_scope_exit(
; CHECK-LABEL: define ptx_kernel void @every(
; CHECK-NOT:     call void @__klap_grid_exits_reset()
; CHECK:         call void @__klap_record_written()
; CHECK:         call i1 @__klap_scope_exit(
; CHECK-NOT:     call i1 @__klap_grid_scope_exit(
; CHECK-LABEL: define ptx_kernel void @node__klap(
; CHECK:         call void @__klap_grid_exits_reset()
; CHECK-NEXT:    call ptr @__klap_child_enter(
; CHECK:         call void @__klap_record_written_in_block()
; CHECK:         [[GRID:%.*]] = call i64 @__klap_child_grid_threads()
; CHECK-NEXT:    [[BLOCK:%.*]] = call i64 @__klap_child_block_threads()
; CHECK-NEXT:    call i1 @__klap_grid_scope_exit(ptr {{%.*}}, i64 [[GRID]], i64 [[BLOCK]])
define ptx_kernel void @node(ptr %out, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %first = icmp eq i32 %tid, 0
  %more = icmp ugt i32 %n, 1
  %go = and i1 %first, %more
  br i1 %go, label %launch, label %done
launch:
  %half = lshr i32 %n, 1
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  store %struct.dim3 { i32 2, i32 1, i32 1 }, ptr %g, align 4
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @node, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  %ok = icmp ne ptr %buf, null
  br i1 %ok, label %fill, label %done
fill:
  store ptr %out, ptr %buf, align 8
  %a1 = getelementptr inbounds i8, ptr %buf, i64 8
  store i32 %half, ptr %a1, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  br label %done
done:
  ret void
}

define ptx_kernel void @every(ptr %out, i32 %n) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %g, align 4
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @leaf, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  %ok = icmp ne ptr %buf, null
  br i1 %ok, label %fill, label %done
fill:
  store ptr %out, ptr %buf, align 8
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  br label %done
done:
  ret void
}

define ptx_kernel void @leaf(ptr %out) {
entry:
  ret void
}
