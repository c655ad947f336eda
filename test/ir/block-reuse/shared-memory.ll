; A child with static and dynamic shared memory is run by the launching block: its static `__shared__`
; array stays shared memory (the block variant uses the same global), and a launch asking for dynamic
; shared memory is queued only when it is no larger than the parent block's (%dynamic_smem_size),
; checked at run time.
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=none;block-reuse;no-inline-runtime>' -pass-remarks=klap -S %s -o %t.ll 2>%t.remarks
; RUN: opt -passes=verify -disable-output %t.ll
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks

; REMARK: launch of @child run by the launching block at its end: its threads need each other ({{.*}}); {{.*}}; its dynamic shared memory within the parent block's (checked at run time); a NULL-stream launch; {{.*}} [KLAP310]

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

@tile = internal addrspace(3) global [256 x i32] undef, align 4
@dyn = external addrspace(3) global [0 x i32], align 4

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare void @llvm.nvvm.barrier.cta.sync.aligned.all(i32)

define ptx_kernel void @child(ptr %out) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %w = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %s = getelementptr inbounds [256 x i32], ptr addrspace(3) @tile, i32 0, i32 %t
  store i32 %t, ptr addrspace(3) %s, align 4
  %d = getelementptr inbounds [0 x i32], ptr addrspace(3) @dyn, i32 0, i32 %t
  store i32 %t, ptr addrspace(3) %d, align 4
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %last = sub i32 %w, 1
  %o = sub i32 %last, %t
  %r = getelementptr inbounds [256 x i32], ptr addrspace(3) @tile, i32 0, i32 %o
  %v = load i32, ptr addrspace(3) %r, align 4
  %p = getelementptr inbounds i32, ptr %out, i32 %t
  store i32 %v, ptr %p, align 4
  ret void
}

; The dynamic shared memory the launch asks for (a parameter) against the parent block's.
; CHECK-LABEL: define ptx_kernel void @parent(
; CHECK: %[[DYN:.*]] = call i32 @llvm.nvvm.read.ptx.sreg.dynamic_smem_size()
; CHECK: icmp ule i32 %smem, %[[DYN]]
; CHECK: atomicrmw add ptr addrspace(3) @parent__klap_reuse_count
; CHECK: call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, {{.*}}, i32 %smem)
; CHECK: call void @child__klap_block(
define ptx_kernel void @parent(ptr %out, i32 %smem) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %w = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %lone = icmp eq i32 %t, 0
  br i1 %lone, label %launch, label %done
launch:
  %grid = alloca %struct.dim3, align 4
  %block = alloca %struct.dim3, align 4
  store i32 1, ptr %grid, align 4
  %gy = getelementptr inbounds i8, ptr %grid, i64 4
  store i32 1, ptr %gy, align 4
  %gz = getelementptr inbounds i8, ptr %grid, i64 8
  store i32 1, ptr %gz, align 4
  store i32 %w, ptr %block, align 4
  %by = getelementptr inbounds i8, ptr %block, i64 4
  store i32 1, ptr %by, align 4
  %bz = getelementptr inbounds i8, ptr %block, i64 8
  store i32 1, ptr %bz, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, ptr byval(%struct.dim3) align 4 %grid, ptr byval(%struct.dim3) align 4 %block, i32 %smem)
  %ok = icmp ne ptr %buf, null
  br i1 %ok, label %fill, label %done
fill:
  store ptr %out, ptr %buf, align 8
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  br label %done
done:
  ret void
}

; The block variant writes and reads the same shared variables as the child.
; CHECK-LABEL: define internal void @child__klap_block(
; CHECK: getelementptr inbounds [256 x i32], ptr addrspace(3) @tile
; CHECK: getelementptr inbounds [0 x i32], ptr addrspace(3) @dyn
; CHECK: call i1 @__klap_child_barrier(i32 %klap.threads, i1 false)
; CHECK: getelementptr inbounds [256 x i32], ptr addrspace(3) @tile
