; serialize-warp with a 2-D child grid of 2-D blocks (2x3 blocks of 4x5 threads, 120 threads): each thread
; the lanes take is split into its block and thread indices with the owner lane's configuration (shuffled with
; its arguments), and the thread variant gets them as its index registers; a device function's read of
; blockIdx.x goes through the thread variant too. The result assembles.
; RUN: %opt -load-pass-plugin=%plugin -klap-disable-aggregate -klap-disable-malloc -passes='klap<granularity=grid;serialize;serialize-threshold=256;serialize-warp;no-inline-runtime>' -pass-remarks=klap -S %s -o %t.ll 2>%t.remarks
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks
; RUN: llc-22 -mtriple=nvptx64-nvidia-cuda -mcpu=sm_90 -mattr=+ptx88 %t.ll -o %t.ptx
; RUN: %ptxas -arch=sm_90 -c %t.ptx -o %t.o

; REMARK: launch of @child serialized: the launching thread runs its 120 threads always; the lanes of the launching warp run their children's threads together, shared out evenly [KLAP300]
; CHECK-LABEL: define ptx_kernel void @parent(
; CHECK:         call void @child__klap_warp_serial(ptr %out, i32 %k, i32 2, i32 3, i32 1, i32 4, i32 5, i32 1, i64 -1)
; CHECK-LABEL: define internal void @child__klap_warp_serial(
; The owner's pointer (two pieces), %k and the six dimensions.
; CHECK-COUNT-9: call i32 @llvm.nvvm.shfl.sync.idx.i32(
; CHECK:       run:
; Threads per block from the owner's block dimensions; the block's index and the thread's within it.
; CHECK:         [[XY:%.*]] = mul i32 [[BX:%.*]], [[BY:%.*]]
; CHECK-NEXT:    [[PER:%.*]] = mul i32 [[XY]], [[BZ:%.*]]
; CHECK-NEXT:    udiv i32 %t, [[PER]]
; CHECK-NEXT:    urem i32 %t, [[PER]]
; CHECK:         call void @child__klap_thread(
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.tid.y()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.y()

define internal i32 @block_of() {
  %c = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  ret i32 %c
}

define ptx_kernel void @child(ptr %out, i32 %k) {
  %x = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %y = call i32 @llvm.nvvm.read.ptx.sreg.tid.y()
  %cx = call i32 @block_of()
  %cy = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.y()
  %row = mul i32 %cy, 5
  %r = add i32 %row, %y
  %col0 = mul i32 %cx, 4
  %c = add i32 %col0, %x
  %r8 = mul i32 %r, 8
  %at = add i32 %r8, %c
  %v = add i32 %at, %k
  %p = getelementptr inbounds i32, ptr %out, i32 %at
  store i32 %v, ptr %p, align 4
  ret void
}

define ptx_kernel void @parent(ptr %out, i32 %k) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  store %struct.dim3 { i32 2, i32 3, i32 1 }, ptr %g, align 4
  store %struct.dim3 { i32 4, i32 5, i32 1 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  %ok = icmp ne ptr %buf, null
  br i1 %ok, label %fill, label %done
fill:
  store ptr %out, ptr %buf, align 8
  %a1 = getelementptr inbounds i8, ptr %buf, i64 8
  store i32 %k, ptr %a1, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr inttoptr (i64 4 to ptr))
  br label %done
done:
  ret void
}
