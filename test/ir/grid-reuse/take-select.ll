; Grid reuse with Free Launch's device-side selector between T2 and T1 (`grid-reuse-select`): the take loop
; passes SELECT_PER_TAKE (-1) to the runtime, which takes a whole grid where it has at most a parent block's
; share of its chunk's child blocks and that share at a time of a larger one; the loop runs the blocks it was
; handed, as with a fixed count (take-blocks.ll).
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=grid;grid-reuse-select;no-inline-runtime>' -pass-remarks=klap -S %s -o %t.ll 2>%t.remarks
; RUN: opt -passes=verify -disable-output %t.ll
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks
; The command-line form implies grid reuse.
; RUN: %opt -load-pass-plugin=%plugin -klap-grid-reuse-select -passes='klap<granularity=grid;no-inline-runtime>' -S %s \
; RUN:   | FileCheck %s
; A fixed count per take and the selector exclude each other.
; RUN: not %opt -load-pass-plugin=%plugin -passes='klap<granularity=grid;grid-reuse-blocks=2;grid-reuse-select>' -disable-output %s 2>&1 \
; RUN:   | FileCheck --check-prefix=BOTH %s
; RUN: not %opt -load-pass-plugin=%plugin -passes='klap<granularity=block;grid-reuse-select>' -disable-output %s 2>&1 \
; RUN:   | FileCheck --check-prefix=GRANULARITY %s

; REMARK: child grids (whole, where a grid has at most a parent block's share of the child blocks registered in its chunk, else that share of its blocks at a time: Free Launch's selector between T2 and T1) of @child run by the blocks of @parent that are done, {{.*}} [KLAP319]
; BOTH: klap: grid-reuse-select chooses the blocks per take itself: not with grid-reuse-blocks
; GRANULARITY: klap: grid-reuse needs granularity=grid or auto

; CHECK-LABEL: define ptx_kernel void @parent(
; CHECK: klap.grid.reuse.take:
; CHECK-NEXT: %[[ARGS:.*]] = call ptr @__klap_grid_take(ptr %{{.*}}, i32 0, i32 %{{.*}}, i32 -1)
; CHECK: klap.grid.reuse.run:
; CHECK: %[[FIRST:.*]] = call i32 @__klap_taken_dim(i32 6)
; CHECK: %[[COUNT:.*]] = call i32 @__klap_taken_dim(i32 7)
; CHECK: klap.reuse.blocks:
; CHECK: call void @child__klap_block(

; CHECK-LABEL: define ptx_kernel void @child__klap(ptr %out, i32 %v, ptr %klap.chunk)
; CHECK: call ptr @__klap_child_enter_after_taken(ptr %klap.chunk,

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

; at 16: 32 bytes) and the runtime's READY_FLAGS (1 << 30); the flag is set after the arguments. Each
; block counts itself in at entry (COUNT_ENTERED, 4): blocks take grids once every block has started.

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
