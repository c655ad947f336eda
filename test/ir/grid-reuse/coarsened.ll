; Grid reuse leaves a child that aggregation coarsens to coarsening: under `auto`, a child whose every launch
; has one constant block of a warp at most gets aggregated blocks that each run several child blocks, which
; blocks taken by parents would undo (an aggregated child whose first blocks parents may have run is not
; coarsened; bfs ran 1.6x slower so on an H200). With coarsening off (`coarsen=0`) the same launch is
; reused. A child with a barrier is not coarsened, and parents take its blocks (take-blocks.ll).
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=auto;grid-reuse-blocks=1;no-inline-runtime>' -pass-remarks=klap -pass-remarks-missed=klap -S %s -o %t.ll 2>%t.remarks
; RUN: opt -passes=verify -disable-output %t.ll
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=auto;grid-reuse-blocks=1;coarsen=0;no-inline-runtime>' -pass-remarks=klap -disable-output %s 2>&1 \
; RUN:   | FileCheck --check-prefix=UNCOARSENED %s

; REMARK: child grids not run by parent blocks: the aggregated blocks of @child are coarsened (8 child blocks a block at most), which blocks taken by parents would undo [KLAP320]
; REMARK-NOT: KLAP319
; UNCOARSENED: child blocks, one at a time, of @child run by the blocks of @parent that are done{{.*}}[KLAP319]

; CHECK-LABEL: define ptx_kernel void @parent(
; CHECK-NOT: __klap_grid_take
; CHECK-NOT: klap.reuse
; CHECK: ret void

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare void @llvm.nvvm.barrier.cta.sync.aligned.all(i32)

define ptx_kernel void @child(ptr %out, i32 %v) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %c = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %w = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %base = mul i32 %c, %w
  %i = add i32 %base, %t
  %p = getelementptr inbounds i32, ptr %out, i32 %i
  store i32 %v, ptr %p, align 4
  ret void
}


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
  store i32 32, ptr %block, align 4
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
