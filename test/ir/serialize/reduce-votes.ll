; Votes and the other whole-warp reductions, folded lane by lane where one thread runs a child warp (KLAP321):
; a ballot sets bit l for lane l, any and all fold a predicate, min and max start from the type's extremes, and
; a 32-bit butterfly (__shfl_xor_sync) sums every lane once for lane 0 (a constant added in each lane counts 32
; times). A child block of 96 threads is three warps, the last flushed like the others.
; RUN: %opt -load-pass-plugin=%plugin -klap-disable-aggregate -klap-disable-malloc -passes='klap<granularity=grid;serialize;no-inline-runtime>' -pass-remarks=klap -S %s -o %t.ll 2>%t.remarks
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks
; RUN: llc-22 -mtriple=nvptx64-nvidia-cuda -mcpu=sm_90 -mattr=+ptx88 %t.ll -o %t.ptx
; RUN: %ptxas -arch=sm_90 -c %t.ptx -o %t.o

; REMARK: launch of @votes serialized with its warp reductions folded: {{.*}} [KLAP321]

; Run by the warp, the butterfly is whole-warp additions of its 32-bit value's two 27-bit pieces; lane 0 adds 160.
; CHECK-LABEL: define internal void @votes__klap_warp_thread(
; CHECK-NOT:     @llvm.nvvm.shfl
; CHECK:         call i32 @llvm.nvvm.redux.sync.add(i32 %piece, i32 -1)
; CHECK:         call i32 @llvm.nvvm.redux.sync.add(i32 %piece1, i32 -1)
; CHECK:         [[S:%lane0.sum]] = add i64 160, %{{.*}}
; CHECK-NEXT:    [[S32:%.*]] = trunc i64 [[S]] to i32
; CHECK:         atomicrmw add ptr %{{.*}}, i32 [[S32]] monotonic
; CHECK-LABEL: define internal void @votes__klap_lane0(
; CHECK-SAME:    i32 [[BAL:%[0-9]+]], i1 [[ANY:%[0-9]+]], i1 [[ALL:%[0-9]+]], i32 [[MIN:%[0-9]+]], i32 [[MAX:%[0-9]+]], i64 [[X:%[0-9]+]])
; CHECK:         [[X32:%.*]] = add i64 160, [[X]]
; CHECK-NEXT:    trunc i64 [[X32]] to i32
; CHECK-LABEL: define internal void @votes__klap_reduced_serial(
; CHECK:       lanes:
; CHECK-NEXT:    [[L:%lane.*]] = phi i32 [ 0, %warp ]
; CHECK-NEXT:    phi i32 [ 0, %warp ]
; CHECK-NEXT:    phi i1 [ false, %warp ]
; CHECK-NEXT:    phi i1 [ true, %warp ]
; CHECK-NEXT:    phi i32 [ -1, %warp ]
; CHECK-NEXT:    phi i32 [ -2147483648, %warp ]
; CHECK-NEXT:    phi i64 [ 0, %warp ]
; CHECK:         shl i32 %{{.*}}, [[L]]
; CHECK:         or i1
; CHECK:         and i1
; CHECK:         icmp ult i32
; CHECK:         icmp sgt i32

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.vote.ballot.sync(i32, i1)
declare i1 @llvm.nvvm.vote.any.sync(i32, i1)
declare i1 @llvm.nvvm.vote.all.sync(i32, i1)
declare i32 @llvm.nvvm.redux.sync.umin(i32, i32)
declare i32 @llvm.nvvm.redux.sync.max(i32, i32)
declare i32 @llvm.nvvm.shfl.sync.bfly.i32(i32, i32, i32, i32)

define ptx_kernel void @votes(ptr %out, i32 %k) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %v = mul i32 %t, %k
  %odd = trunc i32 %v to i1
  %bal = call i32 @llvm.nvvm.vote.ballot.sync(i32 -1, i1 %odd)
  %big = icmp ugt i32 %v, 100
  %any = call i1 @llvm.nvvm.vote.any.sync(i32 -1, i1 %big)
  %all = call i1 @llvm.nvvm.vote.all.sync(i32 -1, i1 %big)
  %min = call i32 @llvm.nvvm.redux.sync.umin(i32 %v, i32 -1)
  %max = call i32 @llvm.nvvm.redux.sync.max(i32 %v, i32 -1)
  %x0 = add i32 %v, 5
  %h1 = call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %x0, i32 1, i32 31)
  %x1 = add i32 %x0, %h1
  %h2 = call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %x1, i32 2, i32 31)
  %x2 = add i32 %x1, %h2
  %h4 = call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %x2, i32 4, i32 31)
  %x4 = add i32 %x2, %h4
  %h8 = call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %x4, i32 8, i32 31)
  %x8 = add i32 %x4, %h8
  %h16 = call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %x8, i32 16, i32 31)
  %x16 = add i32 %x8, %h16
  %l = urem i32 %t, 32
  %z = icmp eq i32 %l, 0
  br i1 %z, label %w, label %e
w:
  %w0 = atomicrmw or ptr %out, i32 %bal monotonic, align 4
  %p1 = getelementptr inbounds i32, ptr %out, i32 1
  %sel = select i1 %any, i32 1, i32 0
  %sel2 = select i1 %all, i32 2, i32 0
  %flags = or i32 %sel, %sel2
  %w1 = atomicrmw or ptr %p1, i32 %flags monotonic, align 4
  %p2 = getelementptr inbounds i32, ptr %out, i32 2
  %w2 = atomicrmw umin ptr %p2, i32 %min monotonic, align 4
  %p3 = getelementptr inbounds i32, ptr %out, i32 3
  %w3 = atomicrmw max ptr %p3, i32 %max monotonic, align 4
  %p4 = getelementptr inbounds i32, ptr %out, i32 4
  %w4 = atomicrmw add ptr %p4, i32 %x16 monotonic, align 4
  br label %e
e:
  ret void
}

define ptx_kernel void @parent(ptr %out, i32 %k) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  store %struct.dim3 { i32 2, i32 1, i32 1 }, ptr %g, align 4
  store %struct.dim3 { i32 96, i32 1, i32 1 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @votes, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
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
