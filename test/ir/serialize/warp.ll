; serialize-warp: the serialized children of the lanes of a warp that reach the launch together are run by
; those lanes together. Each lane's thread count (at most the threshold, below 2^7 for 64) is summed over the
; warp by one ballot per bit; the lanes take the children's threads in turn, find the owning lane by a binary
; search over those sums, and take its arguments and configuration by shuffles (a pointer in two 32-bit
; pieces). A child too large is launched as written, as without it.
; RUN: %opt -load-pass-plugin=%plugin -klap-disable-aggregate -klap-disable-malloc -passes='klap<granularity=grid;serialize;serialize-threshold=64;serialize-small-grid-threshold=0;serialize-warp;no-inline-runtime>' -pass-remarks=klap -S %s -o %t.ll 2>%t.remarks
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks
; RUN: %opt -load-pass-plugin=%plugin -klap-serialize-warp -passes='klap<granularity=auto>' -S %s -o %t.auto.ll
; RUN: llc-22 -mtriple=nvptx64-nvidia-cuda -mcpu=sm_90 -mattr=+ptx88 %t.auto.ll -o %t.ptx
; RUN: FileCheck --check-prefix=PTX %s < %t.ptx
; RUN: %ptxas -arch=sm_90 -c %t.ptx -o %t.o

; REMARK: remark: {{.*}}launch of @child serialized: the launching thread runs its threads when there are at most 64 (checked at run time; larger ones are launched); the lanes of the launching warp run their children's threads together, shared out evenly [KLAP300]
; CHECK-LABEL: define ptx_kernel void @parent(
; CHECK:         call void @child__klap_warp_serial(ptr %out, i32 %n, i32 %n, i32 1, i32 1, i32 32, i32 1, i32 1, i64 -1)
; CHECK:         call i32 @__cudaCDP2LaunchDeviceV2(
; CHECK-LABEL: define internal void @child__klap_warp_serial(
; CHECK:         [[MASK:%.*]] = call i32 @llvm.nvvm.activemask()
; CHECK-NEXT:    call void @llvm.nvvm.bar.warp.sync(i32 [[MASK]])
; CHECK-COUNT-7: call i32 @llvm.nvvm.vote.ballot.sync(i32 [[MASK]], i1
; CHECK:       items:
; CHECK:       item:
; The owner's pointer in two pieces, %n, and the six dimensions.
; CHECK-COUNT-9: call i32 @llvm.nvvm.shfl.sync.idx.i32(i32 [[MASK]],
; CHECK:       run:
; CHECK:         call void @child__klap_thread(
; PTX: .entry parent(
; PTX: shfl.sync.idx.b32
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.tid.y()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare void @llvm.nvvm.barrier0()
define ptx_kernel void @child(ptr %out, i32 %k) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %c = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %w = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %base = mul i32 %c, %w
  %i = add i32 %base, %t

  %p = getelementptr inbounds i32, ptr %out, i32 %i
  store i32 %k, ptr %p, align 4
  ret void
}
define ptx_kernel void @parent(ptr %out, i32 %n) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  %gv = insertvalue %struct.dim3 { i32 poison, i32 1, i32 1 }, i32 %n, 0
  store %struct.dim3 %gv, ptr %g, align 4
  %bv = insertvalue %struct.dim3 { i32 poison, i32 1, i32 1 }, i32 32, 0
  store %struct.dim3 %bv, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
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
