; A nested child launch under block reuse: @parent's block runs @mid's blocks at its end (KLAP310: its
; threads "need each other" in that they launch kernels). @mid's block variant is made from @mid as
; written, so a block of @mid run by @parent makes its launch of @leaf as a launch (one generation per
; block, as for recursion), not a queued record of @parent's queue. @mid, launched as written where the
; queue is full, has a queue of its own and runs @leaf's blocks (which wait at a barrier) at its end.
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=none;block-reuse;no-inline-runtime>' -pass-remarks=klap -pass-remarks-missed=klap -S %s -o %t.ll 2>%t.remarks
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks

; REMARK-DAG: remark: {{.*}}launch of @mid run by the launching block at its end: its threads need each other (it launches kernels itself (in @mid)); {{.*}} [KLAP310]
; REMARK-DAG: remark: {{.*}}launch of @leaf run by the launching block at its end: its threads need each other (it waits at a barrier); {{.*}}its 1 barrier(s) kept among the threads that run a child block{{.*}} [KLAP310]
; REMARK-NOT: KLAP31{{[1-6]}}

; CHECK-DAG: @mid__klap_reuse_count = internal addrspace(3) global i32 undef
; CHECK-DAG: @parent__klap_reuse_count = internal addrspace(3) global i32 undef
; CHECK-LABEL: define ptx_kernel void @mid(
; CHECK:         atomicrmw add ptr addrspace(3) @mid__klap_reuse_count
; CHECK:         call i32 @__cudaCDP2LaunchDeviceV2(
; CHECK:         call void @leaf__klap_block(
; CHECK-LABEL: define ptx_kernel void @parent(
; CHECK:         atomicrmw add ptr addrspace(3) @parent__klap_reuse_count
; CHECK:         call ptr @__cudaCDP2GetParameterBufferV2(ptr @mid,
; CHECK:         call i32 @__cudaCDP2LaunchDeviceV2(
; CHECK:         call void @mid__klap_block(
; CHECK-LABEL: define internal void @leaf__klap_block(
; CHECK:         call i1 @__klap_child_barrier(
; The block variant of @mid launches @leaf: no queue, no run loop of its own.
; CHECK-LABEL: define internal void @mid__klap_block(
; CHECK-NOT:     __klap_reuse
; CHECK-NOT:     @leaf__klap_block
; CHECK:         call ptr @__cudaCDP2GetParameterBufferV2(ptr @leaf,
; CHECK:         call i32 @__cudaCDP2LaunchDeviceV2(
; CHECK-NOT:     __klap_reuse
; CHECK-NOT:     @leaf__klap_block
; CHECK:         ret void
; CHECK-NEXT:  }

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare void @llvm.nvvm.barrier0()

define ptx_kernel void @leaf(ptr %out, i32 %k) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  call void @llvm.nvvm.barrier0()
  %p = getelementptr inbounds i32, ptr %out, i32 %t
  store i32 %k, ptr %p, align 4
  ret void
}

define ptx_kernel void @mid(ptr %out, i32 %k) {
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
  %a1 = getelementptr inbounds i8, ptr %buf, i64 8
  store i32 %k, ptr %a1, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  br label %done
done:
  ret void
}

define ptx_kernel void @parent(ptr %out, i32 %n) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %g, align 4
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @mid, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  %ok = icmp ne ptr %buf, null
  br i1 %ok, label %fill, label %done
fill:
  store ptr %out, ptr %buf, align 8
  %a1 = getelementptr inbounds i8, ptr %buf, i64 8
  store i32 %n, ptr %a1, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  br label %done
done:
  ret void
}
