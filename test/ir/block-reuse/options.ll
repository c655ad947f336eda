; The options: -klap-block-reuse turns the step on as klap<block-reuse> does, klap<no-block-reuse> turns
; it off again, -klap-disable-block-reuse skips it, and a queue must hold at least one record.
; RUN: %opt -load-pass-plugin=%plugin -klap-block-reuse -passes='klap<granularity=none;no-inline-runtime>' -S %s \
; RUN:   | FileCheck --check-prefix=REUSED %s
; RUN: %opt -load-pass-plugin=%plugin -klap-block-reuse -passes='klap<granularity=none;no-block-reuse;no-inline-runtime>' \
; RUN:   -S %s | FileCheck --check-prefix=KEPT %s
; RUN: %opt -load-pass-plugin=%plugin -klap-disable-block-reuse -passes='klap<granularity=none;block-reuse;no-inline-runtime>' \
; RUN:   -S %s | FileCheck --check-prefix=KEPT %s
; RUN: %opt -load-pass-plugin=%plugin -klap-block-reuse-queue=8 -passes='klap<granularity=none;block-reuse;no-inline-runtime>' \
; RUN:   -S %s | FileCheck --check-prefix=EIGHT %s
; RUN: not %opt -load-pass-plugin=%plugin -passes='klap<block-reuse;block-reuse-queue=0>' -S %s -o /dev/null 2>&1 \
; RUN:   | FileCheck --check-prefix=ZERO %s

; REUSED: @parent__klap_reuse_queue = internal addrspace(3) global [1536 x i8] undef, align 16
; REUSED: call void @child__klap_block(
; KEPT-NOT: __klap_reuse
; KEPT-NOT: __klap_block
; EIGHT: @parent__klap_reuse_queue = internal addrspace(3) global [384 x i8] undef, align 16
; ZERO: klap: block-reuse-queue needs a positive number

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

define ptx_kernel void @parent(ptr %out) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %w = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %lone = icmp eq i32 %t, 0
  br i1 %lone, label %launch, label %done
launch:
  %l.grid = alloca %struct.dim3, align 4
  %l.block = alloca %struct.dim3, align 4
  store i32 1, ptr %l.grid, align 4
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

