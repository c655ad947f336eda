; A child block of 48 threads: it is queued only in a parent block of 48 threads (a part of a larger
; block must be whole warps, and 48 is not); in any other parent block the launch is made as written.
; The record is written where the check passes, the original launch is the other branch.
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=none;block-reuse;no-inline-runtime>' -pass-remarks=klap -S %s -o %t.ll 2>%t.remarks
; RUN: opt -passes=verify -disable-output %t.ll
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks

; REMARK: launch of @child run by the launching block at its end: {{.*}}its block is constant (48, 1, 1) and the parent's size unknown{{.*}} [KLAP310]

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
; CHECK: %[[PX:.*]] = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
; CHECK: %[[PARENT:.*]] = zext i32 %{{.*}} to i64
; CHECK: %[[FEWER:.*]] = icmp ult i64 48, %[[PARENT]]
; CHECK: %[[PART:.*]] = and i1 %[[FEWER]], false
; CHECK: %[[SAME:.*]] = icmp eq i64 48, %[[PARENT]]
; CHECK: %[[FITS:.*]] = or i1 %[[SAME]], %[[PART]]
; CHECK: %[[SLOT:.*]] = atomicrmw add ptr addrspace(3) @parent__klap_reuse_count
; CHECK: %[[ROOM:.*]] = icmp ult i32 %[[SLOT]], 32
; CHECK: %[[TAKE:.*]] = and i1 %{{.*}}, %[[ROOM]]
; CHECK: br i1 %[[TAKE]], label %[[RECORD:.*]], label %[[AFTER:.*]]
; CHECK: [[RECORD]]:
; CHECK: store i32 48, ptr addrspace(3)
; CHECK: [[AFTER]]:
; CHECK: %[[NOT:.*]] = xor i1 %[[TAKE]], true
; CHECK: br i1 %[[NOT]], label %[[LAUNCH:.*]], label
; CHECK: [[LAUNCH]]:
; CHECK: call ptr @__cudaCDP2GetParameterBufferV2(ptr @child,
; CHECK: call i32 @__cudaCDP2LaunchDeviceV2(
define ptx_kernel void @parent(ptr %out) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %w = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %lone = icmp eq i32 %t, 0
  br i1 %lone, label %launch, label %done
launch:
  %grid = alloca %struct.dim3, align 4
  %block = alloca %struct.dim3, align 4
  store i32 2, ptr %grid, align 4
  %gy = getelementptr inbounds i8, ptr %grid, i64 4
  store i32 1, ptr %gy, align 4
  %gz = getelementptr inbounds i8, ptr %grid, i64 8
  store i32 1, ptr %gz, align 4
  store i32 48, ptr %block, align 4
  %by = getelementptr inbounds i8, ptr %block, i64 4
  store i32 1, ptr %by, align 4
  %bz = getelementptr inbounds i8, ptr %block, i64 8
  store i32 1, ptr %bz, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, ptr byval(%struct.dim3) align 4 %grid, ptr byval(%struct.dim3) align 4 %block, i32 0)
  %ok = icmp ne ptr %buf, null
  br i1 %ok, label %fill, label %done
fill:
  store ptr %out, ptr %buf, align 8
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  br label %done
done:
  ret void
}

