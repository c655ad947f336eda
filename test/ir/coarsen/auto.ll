; Under auto, without -klap-coarsen: a child whose every launch has a block of one warp is coarsened by 8
; (KLAP620), one with wider blocks is not (KLAP621 says why). -klap-coarsen=0 turns it off under auto too,
; and -klap-coarsen=4 coarsens every child that can be. Parameter sizes: 12 bytes | ARGS_IN_PARAMS, with
; 8 << 16 | (2048 / 64) << 24 where coarsened by 8, 4 << 16 | 32 << 24 by 4.
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=auto;no-inline-runtime>' -pass-remarks=klap -pass-remarks-missed=klap -S %s -o %t.ll 2>%t.remarks
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=auto;no-inline-runtime;coarsen=0>' -S %s -o - | FileCheck --check-prefix=OFF %s
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=auto;no-inline-runtime>' -klap-coarsen=4 -S %s -o - | FileCheck --check-prefix=ALL %s

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()

; REMARK-DAG: remark: <unknown>:0:0: each block of @narrow's aggregated child runs up to 8 aggregated blocks, one after another, where the aggregated launch has more than 2048 threads a multiprocessor [KLAP620]
; REMARK-DAG: remark: <unknown>:0:0: child not coarsened: each block of @wide's aggregated child runs one aggregated block: not every launch of it has a constant block of one warp at most, which is all that auto coarsens [KLAP621]

define ptx_kernel void @narrow(ptr %out, i32 %n) {
  %b = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %d = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %bd = mul i32 %b, %d
  %i = add i32 %bd, %t
  %p = getelementptr inbounds i32, ptr %out, i32 %i
  store i32 %n, ptr %p, align 4
  ret void
}

define ptx_kernel void @wide(ptr %out, i32 %n) {
  %b = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %d = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %bd = mul i32 %b, %d
  %i = add i32 %bd, %t
  %p = getelementptr inbounds i32, ptr %out, i32 %i
  store i32 %n, ptr %p, align 4
  ret void
}

; CHECK-LABEL: define ptx_kernel void @parent(
; CHECK-DAG:     ptr @narrow__klap, ptr @narrow, i32 1611137036,
; CHECK-DAG:     ptr @wide__klap, ptr @wide, i32 1073741836,
; OFF-LABEL:   define ptx_kernel void @parent(
; OFF-DAG:       ptr @narrow__klap, ptr @narrow, i32 1073741836,
; OFF-DAG:       ptr @wide__klap, ptr @wide, i32 1073741836,
; ALL-LABEL:   define ptx_kernel void @parent(
; ALL-DAG:       ptr @narrow__klap, ptr @narrow, i32 1610874892,
; ALL-DAG:       ptr @wide__klap, ptr @wide, i32 1610874892,
define ptx_kernel void @parent(ptr %out, i32 %n) {
entry:
  %grid = alloca %struct.dim3, align 8
  %block = alloca %struct.dim3, align 8
  %wblock = alloca %struct.dim3, align 8
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %mine = add i32 %n, %tid
  %blocks = udiv i32 %mine, 32
  store i32 %blocks, ptr %grid, align 8
  %gy = getelementptr inbounds i8, ptr %grid, i64 4
  store i32 1, ptr %gy, align 4
  %gz = getelementptr inbounds i8, ptr %grid, i64 8
  store i32 1, ptr %gz, align 8
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %block, align 8
  store %struct.dim3 { i32 64, i32 1, i32 1 }, ptr %wblock, align 8
  %b1 = call ptr @__cudaCDP2GetParameterBufferV2(ptr @narrow, ptr byval(%struct.dim3) align 4 %grid, ptr byval(%struct.dim3) align 4 %block, i32 0)
  store ptr %out, ptr %b1, align 8
  %b1n = getelementptr inbounds i8, ptr %b1, i64 8
  store i32 %mine, ptr %b1n, align 8
  %r1 = call i32 @__cudaCDP2LaunchDeviceV2(ptr %b1, ptr inttoptr (i64 4 to ptr))
  %b2 = call ptr @__cudaCDP2GetParameterBufferV2(ptr @wide, ptr byval(%struct.dim3) align 4 %grid, ptr byval(%struct.dim3) align 4 %wblock, i32 0)
  store ptr %out, ptr %b2, align 8
  %b2n = getelementptr inbounds i8, ptr %b2, i64 8
  store i32 %mine, ptr %b2n, align 8
  %r2 = call i32 @__cudaCDP2LaunchDeviceV2(ptr %b2, ptr inttoptr (i64 4 to ptr))
  ret void
}
