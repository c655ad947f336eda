; A child whose grid and block come from the parent's arguments: what a launch would check of its
; configuration is checked before the record (a launch that would fail is made, and fails), and the
; block's thread count against the parent block's; the launch as written where a check fails.
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=none;block-reuse;no-inline-runtime>' -pass-remarks=klap -S %s -o %t.ll 2>%t.remarks
; RUN: opt -passes=verify -disable-output %t.ll
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks

; REMARK: launch of @child run by the launching block at its end: {{.*}}its block size is known at run time only, checked at run time: {{.*}} [KLAP310]

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

; CHECK-LABEL: define ptx_kernel void @parent(
; CHECK: zext i32 %bx to i64
; CHECK: %[[WARPS:.*]] = and i64 %[[THREADS:.*]], 31
; CHECK: icmp ult i64 %[[THREADS]], %[[PARENT:.*]]
; CHECK: icmp eq i64 %[[THREADS]], %[[PARENT]]
; CHECK: icmp ne i32 %gx, 0
; CHECK: icmp ule i32 %gx, 2147483647
; CHECK: icmp ule i32 %gy, 65535
; A block of at most the parent block's threads, none of its dimensions zero, has x and y and its threads
; within their limits: only z's is left to check.
; CHECK: icmp ne i32 %bx, 0
; CHECK-NOT: icmp ule i32 %bx, 1024
; CHECK: icmp ne i32 %bz, 0
; CHECK: icmp ule i32 %bz, 64
; CHECK-NEXT: and i1
; CHECK-NEXT: %[[OK:.*]] = and i1
; CHECK-NEXT: %[[CLAIM:.*]] = zext i1 %[[OK]] to i32
; CHECK: atomicrmw add ptr addrspace(3) @parent__klap_reuse_count, i32 %[[CLAIM]] monotonic
; CHECK: call ptr @__cudaCDP2GetParameterBufferV2(ptr @child,
define ptx_kernel void @parent(ptr %out, i32 %gx, i32 %gy, i32 %bx, i32 %by, i32 %bz) {
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
  store i32 %bx, ptr %l.block, align 4
  %l.by = getelementptr inbounds i8, ptr %l.block, i64 4
  store i32 %by, ptr %l.by, align 4
  %l.bz = getelementptr inbounds i8, ptr %l.block, i64 8
  store i32 %bz, ptr %l.bz, align 4
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

