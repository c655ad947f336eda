; Where the threads of a child that reduces within its warp are bounded by a parameter (`i < n`, i the thread's
; blockIdx.x * blockDim.x + threadIdx.x) and a thread at or past the bound gives every reduction its fold's
; neutral value (0 to a sum, a ballot or an or; all ones to an unsigned minimum; INT_MIN to a maximum), the loop
; over a warp's lanes stops at the bound (KLAP321): the lanes past it would change no fold. The lanes below it
; run a copy of the lane's part whose tests of the bound are folded (@K__klap_lane_working). Only where the
; block is one-dimensional and the warp's x indices fit in 32 bits (as the child computes them) is the count
; exact; elsewhere every lane runs, as before. A thread past the bound that gives anything else, or a test
; that does not decide past the bound (`i <= n`), makes no bound: every lane runs.
; RUN: %opt -load-pass-plugin=%plugin -klap-disable-aggregate -klap-disable-malloc -passes='klap<granularity=grid;serialize;no-inline-runtime>' -pass-remarks=klap -S %s -o %t.ll 2>%t.remarks
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=NONE %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks
; RUN: llc-22 -mtriple=nvptx64-nvidia-cuda -mcpu=sm_90 -mattr=+ptx88 %t.ll -o %t.ptx
; RUN: %ptxas -arch=sm_90 -c %t.ptx -o %t.o

; REMARK: launch of @guarded_sum serialized with its warp reductions folded: {{.*}}; a warp's lanes stop at parameter 2 of the child, compared signed: a thread whose blockIdx.x * blockDim.x + threadIdx.x is at or past it changes no reduction (where the child's blocks are one-dimensional) [KLAP321]
; REMARK: launch of @ballot_below serialized {{.*}}; a warp's lanes stop at parameter 1 of the child, compared unsigned: {{.*}} [KLAP321]
; REMARK: launch of @extremes serialized {{.*}}; a warp's lanes stop at parameter 1 of the child, compared signed: {{.*}} [KLAP321]
; REMARK: launch of @not_neutral serialized {{.*}}; any other is launched [KLAP321]
; REMARK: launch of @inclusive serialized {{.*}}; any other is launched [KLAP321]
; NONE-NOT: @not_neutral__klap_lane_working
; NONE-NOT: @inclusive__klap_lane_working

; CHECK-LABEL: define internal void @guarded_sum__klap_lane_working(
; CHECK:         br i1 true, label %load.klap, label %sum.klap
; CHECK:         store i32 %v.klap, ptr
; CHECK-NEXT:    ret void
; A signed test: the bound sign-extended; the lanes below it, at most the warp's.
; CHECK-LABEL: define internal void @guarded_sum__klap_reduced_serial(
; CHECK:       warp:
; CHECK:         [[X0:%x0]] = add i64
; CHECK-NEXT:    [[FITS:%.*]] = icmp ule i64 [[X0]], 2147483615
; CHECK-NEXT:    [[EXACT:%.*]] = and i1 %one.d, [[FITS]]
; CHECK-NEXT:    br i1 [[EXACT]], label %lanes.working, label %lanes.all
; CHECK:       lanes.working:
; CHECK-NEXT:    [[N:%.*]] = sext i32 %2 to i64
; CHECK-NEXT:    [[LEFT:%.*]] = sub i64 [[N]], [[X0]]
; CHECK-NEXT:    [[SOME:%.*]] = icmp sgt i64 [[LEFT]], 0
; CHECK:         [[FEWER:%.*]] = icmp slt i64 [[LEFT]],
; CHECK-NEXT:    [[NARROW:%.*]] = trunc i64 [[LEFT]] to i32
; CHECK-NEXT:    [[CLAMPED:%.*]] = select i1 [[FEWER]], i32 [[NARROW]], i32 %warp.lanes
; CHECK-NEXT:    %lanes.below = select i1 [[SOME]], i32 [[CLAMPED]], i32 0
; CHECK:       lanes:
; CHECK:         icmp ult i32 %{{.*}}, %lanes.below
; CHECK:       lane:
; CHECK:         call void @guarded_sum__klap_lane_working(
; CHECK:         call void @guarded_sum__klap_lane(

; The test is the ballot's predicate: a lane below the bound gives true.
; CHECK-LABEL: define internal void @ballot_below__klap_lane_working(
; CHECK:         store i1 true, ptr
; CHECK-LABEL: define internal void @ballot_below__klap_reduced_serial(
; CHECK:       lanes.working:
; CHECK-NEXT:    zext i32 %1 to i64

; CHECK-LABEL: define internal void @extremes__klap_lane_working(
; CHECK:         %lo.klap = select i1 false, i32 -1, i32 %i.klap
; CHECK-NEXT:    %hi.klap = select i1 false, i32 -2147483648, i32 %i.klap

; No bound: every lane runs.
; CHECK-LABEL: define internal void @not_neutral__klap_reduced_serial(
; CHECK-NOT:     lanes.working
; CHECK:         call void @not_neutral__klap_lane(
; CHECK-LABEL: define internal void @inclusive__klap_reduced_serial(
; CHECK-NOT:     lanes.working
; CHECK:         call void @inclusive__klap_lane(

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.redux.sync.add(i32, i32)
declare i32 @llvm.nvvm.redux.sync.umin(i32, i32)
declare i32 @llvm.nvvm.redux.sync.max(i32, i32)
declare i32 @llvm.nvvm.vote.ballot.sync(i32, i1)

; if (i < n) v = in[i]; the sum over the warp.
define ptx_kernel void @guarded_sum(ptr %out, ptr %in, i32 %n) {
entry:
  %c = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %w = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %base = mul i32 %c, %w
  %i = add i32 %base, %t
  %ok = icmp slt i32 %i, %n
  br i1 %ok, label %load, label %sum
load:
  %p = getelementptr inbounds i32, ptr %in, i32 %i
  %x = load i32, ptr %p, align 4
  br label %sum
sum:
  %v = phi i32 [ %x, %load ], [ 0, %entry ]
  %s = call i32 @llvm.nvvm.redux.sync.add(i32 %v, i32 -1)
  %l = and i32 %t, 31
  %z = icmp eq i32 %l, 0
  br i1 %z, label %write, label %end
write:
  %a = atomicrmw add ptr %out, i32 %s monotonic, align 4
  br label %end
end:
  ret void
}

; The test itself is the ballot's predicate, unsigned, its operands the other way round.
define ptx_kernel void @ballot_below(ptr %out, i32 %n) {
entry:
  %c = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %w = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %base = mul i32 %w, %c
  %i = add i32 %t, %base
  %ok = icmp ugt i32 %n, %i
  %b = call i32 @llvm.nvvm.vote.ballot.sync(i32 -1, i1 %ok)
  %l = and i32 %t, 31
  %z = icmp eq i32 %l, 0
  br i1 %z, label %write, label %end
write:
  %a = atomicrmw or ptr %out, i32 %b monotonic, align 4
  br label %end
end:
  ret void
}

; Past the bound, the minimum gets all ones and the maximum INT_MIN: their folds' neutral values.
define ptx_kernel void @extremes(ptr %out, i32 %n) {
entry:
  %c = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %w = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %base = mul i32 %c, %w
  %i = add i32 %base, %t
  %past = icmp sge i32 %i, %n
  %lo = select i1 %past, i32 -1, i32 %i
  %hi = select i1 %past, i32 -2147483648, i32 %i
  %mn = call i32 @llvm.nvvm.redux.sync.umin(i32 %lo, i32 -1)
  %mx = call i32 @llvm.nvvm.redux.sync.max(i32 %hi, i32 -1)
  %l = and i32 %t, 31
  %z = icmp eq i32 %l, 0
  br i1 %z, label %write, label %end
write:
  %a = atomicrmw umin ptr %out, i32 %mn monotonic, align 4
  %o1 = getelementptr inbounds i32, ptr %out, i32 1
  %b = atomicrmw max ptr %o1, i32 %mx monotonic, align 4
  br label %end
end:
  ret void
}

; Past the bound a thread adds 2: no bound.
define ptx_kernel void @not_neutral(ptr %out, i32 %n) {
entry:
  %c = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %w = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %base = mul i32 %c, %w
  %i = add i32 %base, %t
  %ok = icmp slt i32 %i, %n
  %v = select i1 %ok, i32 1, i32 2
  %s = call i32 @llvm.nvvm.redux.sync.add(i32 %v, i32 -1)
  %l = and i32 %t, 31
  %z = icmp eq i32 %l, 0
  br i1 %z, label %write, label %end
write:
  %a = atomicrmw add ptr %out, i32 %s monotonic, align 4
  br label %end
end:
  ret void
}

; i <= n: the thread at n works, so the test decides nothing past the bound: no bound.
define ptx_kernel void @inclusive(ptr %out, i32 %n) {
entry:
  %c = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %w = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %base = mul i32 %c, %w
  %i = add i32 %base, %t
  %ok = icmp sle i32 %i, %n
  %v = zext i1 %ok to i32
  %s = call i32 @llvm.nvvm.redux.sync.add(i32 %v, i32 -1)
  %l = and i32 %t, 31
  %z = icmp eq i32 %l, 0
  br i1 %z, label %write, label %end
write:
  %a = atomicrmw add ptr %out, i32 %s monotonic, align 4
  br label %end
end:
  ret void
}

define ptx_kernel void @parent(ptr %out, ptr %in, i32 %n) {
entry:
  %g1 = alloca %struct.dim3, align 4
  %k1 = alloca %struct.dim3, align 4
  store %struct.dim3 { i32 3, i32 1, i32 1 }, ptr %g1, align 4
  store %struct.dim3 { i32 64, i32 1, i32 1 }, ptr %k1, align 4
  %b1 = call ptr @__cudaCDP2GetParameterBufferV2(ptr @guarded_sum, ptr byval(%struct.dim3) align 4 %g1, ptr byval(%struct.dim3) align 4 %k1, i32 0)
  store ptr %out, ptr %b1, align 8
  %b1a = getelementptr inbounds i8, ptr %b1, i64 8
  store ptr %in, ptr %b1a, align 8
  %b1b = getelementptr inbounds i8, ptr %b1, i64 16
  store i32 %n, ptr %b1b, align 4
  %r1 = call i32 @__cudaCDP2LaunchDeviceV2(ptr %b1, ptr inttoptr (i64 4 to ptr))
  %g2 = alloca %struct.dim3, align 4
  %k2 = alloca %struct.dim3, align 4
  store %struct.dim3 { i32 3, i32 1, i32 1 }, ptr %g2, align 4
  store %struct.dim3 { i32 64, i32 1, i32 1 }, ptr %k2, align 4
  %b2 = call ptr @__cudaCDP2GetParameterBufferV2(ptr @ballot_below, ptr byval(%struct.dim3) align 4 %g2, ptr byval(%struct.dim3) align 4 %k2, i32 0)
  store ptr %out, ptr %b2, align 8
  %b2a = getelementptr inbounds i8, ptr %b2, i64 8
  store i32 %n, ptr %b2a, align 4
  %r2 = call i32 @__cudaCDP2LaunchDeviceV2(ptr %b2, ptr inttoptr (i64 4 to ptr))
  %g3 = alloca %struct.dim3, align 4
  %k3 = alloca %struct.dim3, align 4
  store %struct.dim3 { i32 3, i32 1, i32 1 }, ptr %g3, align 4
  store %struct.dim3 { i32 64, i32 1, i32 1 }, ptr %k3, align 4
  %b3 = call ptr @__cudaCDP2GetParameterBufferV2(ptr @extremes, ptr byval(%struct.dim3) align 4 %g3, ptr byval(%struct.dim3) align 4 %k3, i32 0)
  store ptr %out, ptr %b3, align 8
  %b3a = getelementptr inbounds i8, ptr %b3, i64 8
  store i32 %n, ptr %b3a, align 4
  %r3 = call i32 @__cudaCDP2LaunchDeviceV2(ptr %b3, ptr inttoptr (i64 4 to ptr))
  %g4 = alloca %struct.dim3, align 4
  %k4 = alloca %struct.dim3, align 4
  store %struct.dim3 { i32 3, i32 1, i32 1 }, ptr %g4, align 4
  store %struct.dim3 { i32 64, i32 1, i32 1 }, ptr %k4, align 4
  %b4 = call ptr @__cudaCDP2GetParameterBufferV2(ptr @not_neutral, ptr byval(%struct.dim3) align 4 %g4, ptr byval(%struct.dim3) align 4 %k4, i32 0)
  store ptr %out, ptr %b4, align 8
  %b4a = getelementptr inbounds i8, ptr %b4, i64 8
  store i32 %n, ptr %b4a, align 4
  %r4 = call i32 @__cudaCDP2LaunchDeviceV2(ptr %b4, ptr inttoptr (i64 4 to ptr))
  %g5 = alloca %struct.dim3, align 4
  %k5 = alloca %struct.dim3, align 4
  store %struct.dim3 { i32 3, i32 1, i32 1 }, ptr %g5, align 4
  store %struct.dim3 { i32 64, i32 1, i32 1 }, ptr %k5, align 4
  %b5 = call ptr @__cudaCDP2GetParameterBufferV2(ptr @inclusive, ptr byval(%struct.dim3) align 4 %g5, ptr byval(%struct.dim3) align 4 %k5, i32 0)
  store ptr %out, ptr %b5, align 8
  %b5a = getelementptr inbounds i8, ptr %b5, i64 8
  store i32 %n, ptr %b5a, align 4
  %r5 = call i32 @__cudaCDP2LaunchDeviceV2(ptr %b5, ptr inttoptr (i64 4 to ptr))
  ret void
}
