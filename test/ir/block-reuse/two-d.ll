; A two-dimensional child (a 16 x 16 block, a gx x gy grid): the parent thread of linear index i plays
; the child thread (i mod 16, i / 16), and the child blocks run in order, x fastest.
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=none;block-reuse;no-inline-runtime>' -pass-remarks=klap -S %s -o %t.ll 2>%t.remarks
; RUN: opt -passes=verify -disable-output %t.ll
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks

; REMARK: launch of @child run by the launching block at its end: {{.*}}its block is constant (16, 16, 1) and the parent's size unknown, checked at run time: the child block must have the parent block's thread count, or fewer in whole warps; {{.*}} [KLAP310]

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
  %tx = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %ty = call i32 @llvm.nvvm.read.ptx.sreg.tid.y()
  %cx = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %cy = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.y()
  %row = mul i32 %cy, 16
  %r = add i32 %row, %ty
  %col = mul i32 %cx, 16
  %c = add i32 %col, %tx
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %rw = mul i32 %r, 4096
  %i = add i32 %rw, %c
  %p = getelementptr inbounds i32, ptr %out, i32 %i
  store i32 %i, ptr %p, align 4
  ret void
}

; The record holds the grid and the block; the child thread's index from the parent's linear one.
; CHECK-LABEL: define ptx_kernel void @parent(
; CHECK: klap.reuse.record:
; CHECK: load i32, ptr addrspace(3) %{{.*}}, align 4
; CHECK: load i32, ptr addrspace(3) %{{.*}}, align 4
; CHECK: load i32, ptr addrspace(3) %{{.*}}, align 4
; CHECK: %[[BX:.*]] = load i32, ptr addrspace(3) %{{.*}}, align 4
; CHECK: %[[BY:.*]] = load i32, ptr addrspace(3) %{{.*}}, align 4
; CHECK: %[[TX:.*]] = urem i32 %[[ME:.*]], %[[BX]]
; CHECK: %[[REST:.*]] = udiv i32 %[[ME]], %[[BX]]
; CHECK: %[[TY:.*]] = urem i32 %[[REST]], %[[BY]]
; CHECK: klap.reuse.child:
; The child block's index, split from a 64-bit count of blocks.
; CHECK: %[[CX:.*]] = urem i64
; CHECK: %[[CY:.*]] = urem i64
; CHECK: %[[CX32:.*]] = trunc i64 %[[CX]] to i32
; CHECK: %[[CY32:.*]] = trunc i64 %[[CY]] to i32
; CHECK: call void @child__klap_block(ptr %{{.*}}, i32 %[[TX]], i32 %[[TY]], i32 %{{.*}}, i32 %[[BX]], i32 %[[BY]], i32 %{{.*}}, i32 %[[CX32]], i32 %[[CY32]], i32 %{{.*}}, i32 %{{.*}}, i32 %{{.*}}, i32 %{{.*}}, i32 %{{.*}})
define ptx_kernel void @parent(ptr %out, i32 %gx, i32 %gy) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %w = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %lone = icmp eq i32 %t, 0
  br i1 %lone, label %launch, label %done
launch:
  %l.grid = alloca %struct.dim3, align 4
  %l.block = alloca %struct.dim3, align 4
  store i32 %gx, ptr %l.grid, align 4
  %l.gy = getelementptr inbounds i8, ptr %l.grid, i64 4
  store i32 %gy, ptr %l.gy, align 4
  %l.gz = getelementptr inbounds i8, ptr %l.grid, i64 8
  store i32 1, ptr %l.gz, align 4
  store i32 16, ptr %l.block, align 4
  %l.by = getelementptr inbounds i8, ptr %l.block, i64 4
  store i32 16, ptr %l.by, align 4
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

