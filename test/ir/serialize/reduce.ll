; A child whose threads talk within their warp only to reduce (clang's __reduce_add_sync and a 64-bit
; __shfl_down_sync tree, split into 32-bit shuffles whose joins instcombine rewrote), then write in lane 0
; alone, is run by the launching thread a child warp at a time (KLAP321): each lane's part up to the
; reductions (@join__klap_lane, which stores what it gives them) in a loop that folds each value in, then lane
; 0's part (@join__klap_lane0) once with the folds: the match count and the sum of the terms over the lanes.
; Larger children are run by the launching warp (KLAP308's conditions) or launched.
; RUN: %opt -load-pass-plugin=%plugin -klap-disable-aggregate -klap-disable-malloc -passes='klap<granularity=grid;serialize;no-inline-runtime>' -pass-remarks=klap -S %s -o %t.ll 2>%t.remarks
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks
; RUN: %opt -load-pass-plugin=%plugin -klap-disable-aggregate -klap-disable-malloc -passes='klap<granularity=grid;serialize;reduce-threshold=0;no-inline-runtime>' -pass-remarks=klap -S %s -o /dev/null 2>&1 | FileCheck --check-prefix=OFF %s
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=auto>' -S %s -o %t.auto.ll
; RUN: llc-22 -mtriple=nvptx64-nvidia-cuda -mcpu=sm_90 -mattr=+ptx88 %t.auto.ll -o %t.ptx
; RUN: %ptxas -arch=sm_90 -c %t.ptx -o %t.o

; REMARK: launch of @join serialized with its warp reductions folded: the launching thread runs each child warp's threads one after another, adding each lane's reduced values up as it goes, then lane 0's code after the reductions once with the sums (the child's threads talk within their warp only to reduce, and write only in lane 0 after that); children of at most 768 (1024 where the launching grid has at most 16384 threads and its threads times the child's are at most 4194304) threads (checked at run time); a larger child of at most 16384 threads is run by the launching warp where all 32 lanes reach the launch together in a grid of at least 65536 threads (KLAP308; the sum over the warp lane 0 takes from the child's shuffle tree is added up by whole-warp reductions (redux.sync) instead); any other is launched; a warp's lanes stop at parameter 2 of the child, compared signed: a thread whose blockIdx.x * blockDim.x + threadIdx.x is at or past it changes no reduction (where the child's blocks are one-dimensional) [KLAP321]
; OFF: launch of @join run by the launching warp: {{.*}}; the sum over the warp lane 0 takes from the child's shuffle tree is added up by whole-warp reductions (redux.sync) instead [KLAP308]

; CHECK-LABEL: define ptx_kernel void @parent(
; The warp runs the lanes not serialized, first; then the serialized ones; the rest launch.
; CHECK:         [[SERIAL:%serial.*]] = and i1
; CHECK:         [[MINE:%warp.mine.*]] = and i1 %{{.*}}, %{{.*}}
; CHECK:         call void @join__klap_warp_run(ptr %key, ptr %pay, i32 %n, i32 %s_key, i32 %s_pay, ptr %count, ptr %sum, i32 %blocks, i32 1, i32 1, i32 128, i32 1, i32 1, i1 [[MINE]])
; CHECK:         br i1 [[SERIAL]],
; CHECK:         call void @join__klap_reduced_serial(ptr %key, ptr %pay, i32 %n, i32 %s_key, i32 %s_pay, ptr %count, ptr %sum, i32 %blocks, i32 1, i32 1, i32 128, i32 1, i32 1, i64 -1)
; CHECK:         call i32 @__cudaCDP2LaunchDeviceV2(

; A larger child is run by the launching warp (KLAP308) through a copy of its thread code whose shuffle tree is
; gone: the 64-bit term's three 27-bit pieces added over the warp (redux.sync), their sums joined, lane 0 adding
; that up. The match count's reduction stays as written.
; CHECK-LABEL: define internal void @join__klap_warp_thread(
; CHECK-NOT:     @llvm.nvvm.shfl
; CHECK:         [[COUNT:%.*]] = call i32 @llvm.nvvm.redux.sync.add(i32 %{{.*}}, i32 -1)
; CHECK:         [[LO:%.*]] = and i64 [[TERM:%[0-9]+]], 134217727
; CHECK-NEXT:    [[P0:%piece]] = trunc i64 [[LO]] to i32
; CHECK-NEXT:    [[S0:%.*]] = call i32 @llvm.nvvm.redux.sync.add(i32 [[P0]], i32 -1)
; CHECK-NEXT:    [[W0:%.*]] = zext i32 [[S0]] to i64
; CHECK-NEXT:    [[MID:%.*]] = lshr i64 [[TERM]], 27
; CHECK:         call i32 @llvm.nvvm.redux.sync.add(i32 %piece1, i32 -1)
; CHECK:         [[HI:%.*]] = lshr i64 [[TERM]], 54
; CHECK:         call i32 @llvm.nvvm.redux.sync.add(i32 %piece2, i32 -1)
; CHECK:         [[SUM:%.*]] = add i64 %{{.*}}, %{{.*}}
; CHECK-NOT:     @llvm.nvvm.shfl
; CHECK:         atomicrmw add ptr %5, i32 [[COUNT]] seq_cst
; CHECK-NEXT:    atomicrmw add ptr %6, i64 [[SUM]] seq_cst
; CHECK-LABEL: define internal void @join__klap_warp_run(
; CHECK:         call void @join__klap_warp_thread(

; Each lane's part: no collective left, its two values stored.
; CHECK-LABEL: define internal void @join__klap_lane(
; CHECK-NOT:     @llvm.nvvm.redux
; CHECK-NOT:     @llvm.nvvm.shfl
; CHECK:         [[AT0:%.*]] = getelementptr inbounds nuw { i32, i64 }, ptr %{{.*}}, i32 0, i32 0
; CHECK-NEXT:    store i32 %{{.*}}, ptr [[AT0]]
; CHECK-NEXT:    [[AT1:%.*]] = getelementptr inbounds nuw { i32, i64 }, ptr %{{.*}}, i32 0, i32 1
; CHECK-NEXT:    store i64 %{{.*}}, ptr [[AT1]]
; CHECK-NEXT:    ret void

; Lane 0's part: the count and the sum are the folds, given.
; CHECK-LABEL: define internal void @join__klap_lane0(
; CHECK-SAME:    i32 [[COUNT:%[0-9]+]], i64 [[SUM:%[0-9]+]])
; CHECK-NOT:     @llvm.nvvm.redux
; CHECK-NOT:     @llvm.nvvm.shfl
; CHECK:         atomicrmw add ptr %5, i32 [[COUNT]] seq_cst
; CHECK-NEXT:    atomicrmw add ptr %6, i64 [[SUM]] seq_cst

; The loop over a block's warps and their lanes: the lanes below the bound %n only where the block is
; one-dimensional (reduce-bound.ll), else every lane.
; CHECK-LABEL: define internal void @join__klap_reduced_serial(
; CHECK:         br i1 %{{.*}}, label %lanes.working, label %lanes.all
; CHECK:       lanes.folded:
; CHECK-NEXT:    [[CF:%.*]] = phi i32 [ [[C:%fold.*]], %warp.done ], [ [[CA:%fold.*]], %warp.done{{[0-9]+}} ]
; CHECK-NEXT:    [[SF:%.*]] = phi i64 [ [[S:%fold.*]], %warp.done ], [ [[SA:%fold.*]], %warp.done{{[0-9]+}} ]
; CHECK:       lanes:
; CHECK:         [[C]] = phi i32 [ 0, %lanes.working ], [ [[C2:%.*]], %lane ]
; CHECK-NEXT:    [[S]] = phi i64 [ 0, %lanes.working ], [ [[S2:%.*]], %lane ]
; CHECK:       lane:
; CHECK:         call void @join__klap_lane_working(
; CHECK:         [[C2]] = add i32 [[C]],
; CHECK:         [[S2]] = add i64 [[S]],
; CHECK:         [[CA]] = phi i32 [ 0, %lanes.all ]
; CHECK-NEXT:    [[SA]] = phi i64 [ 0, %lanes.all ]
; CHECK:         call void @join__klap_lane(
; CHECK:       lane0.tid.index:
; CHECK:         call void @join__klap_lane0({{.*}}, i32 [[CF]], i64 [[SF]])

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare i32 @llvm.nvvm.redux.sync.add(i32, i32)
declare i32 @llvm.nvvm.shfl.sync.down.i32(i32, i32, i32, i32)

; join's child as clang -O2 emits it.
define ptx_kernel void @join(ptr readonly %0, ptr readonly %1, i32 %2, i32 %3, i32 %4, ptr %5, ptr %6) {
  %8 = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %9 = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %10 = mul i32 %8, %9
  %11 = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %12 = add i32 %10, %11
  %13 = icmp slt i32 %12, %2
  br i1 %13, label %14, label %19

14:
  %15 = sext i32 %12 to i64
  %16 = getelementptr inbounds i32, ptr %0, i64 %15
  %17 = load i32, ptr %16, align 4
  %18 = icmp eq i32 %17, %3
  br label %19

19:
  %20 = phi i1 [ false, %7 ], [ %18, %14 ]
  br i1 %20, label %21, label %30

21:
  %22 = zext i32 %4 to i64
  %23 = shl nuw nsw i64 %22, 1
  %24 = or disjoint i64 %23, 1
  %25 = sext i32 %12 to i64
  %26 = getelementptr inbounds i32, ptr %1, i64 %25
  %27 = load i32, ptr %26, align 4
  %28 = zext i32 %27 to i64
  %29 = mul i64 %24, %28
  br label %30

30:
  %31 = phi i64 [ %29, %21 ], [ 0, %19 ]
  %32 = zext i1 %20 to i32
  %33 = call i32 @llvm.nvvm.redux.sync.add(i32 %32, i32 -1)
  %34 = trunc i64 %31 to i32
  %35 = lshr i64 %31, 32
  %36 = trunc nuw i64 %35 to i32
  %37 = call i32 @llvm.nvvm.shfl.sync.down.i32(i32 -1, i32 %34, i32 16, i32 31)
  %38 = call i32 @llvm.nvvm.shfl.sync.down.i32(i32 -1, i32 %36, i32 16, i32 31)
  %39 = zext i32 %38 to i64
  %40 = shl nuw i64 %39, 32
  %41 = zext i32 %37 to i64
  %42 = add i64 %31, %41
  %43 = add i64 %42, %40
  %44 = trunc i64 %42 to i32
  %45 = lshr i64 %43, 32
  %46 = trunc nuw i64 %45 to i32
  %47 = call i32 @llvm.nvvm.shfl.sync.down.i32(i32 -1, i32 %44, i32 8, i32 31)
  %48 = call i32 @llvm.nvvm.shfl.sync.down.i32(i32 -1, i32 %46, i32 8, i32 31)
  %49 = zext i32 %48 to i64
  %50 = shl nuw i64 %49, 32
  %51 = zext i32 %47 to i64
  %52 = add i64 %43, %51
  %53 = add i64 %52, %50
  %54 = trunc i64 %52 to i32
  %55 = lshr i64 %53, 32
  %56 = trunc nuw i64 %55 to i32
  %57 = call i32 @llvm.nvvm.shfl.sync.down.i32(i32 -1, i32 %54, i32 4, i32 31)
  %58 = call i32 @llvm.nvvm.shfl.sync.down.i32(i32 -1, i32 %56, i32 4, i32 31)
  %59 = zext i32 %58 to i64
  %60 = shl nuw i64 %59, 32
  %61 = zext i32 %57 to i64
  %62 = add i64 %53, %61
  %63 = add i64 %62, %60
  %64 = trunc i64 %62 to i32
  %65 = lshr i64 %63, 32
  %66 = trunc nuw i64 %65 to i32
  %67 = call i32 @llvm.nvvm.shfl.sync.down.i32(i32 -1, i32 %64, i32 2, i32 31)
  %68 = call i32 @llvm.nvvm.shfl.sync.down.i32(i32 -1, i32 %66, i32 2, i32 31)
  %69 = zext i32 %68 to i64
  %70 = shl nuw i64 %69, 32
  %71 = zext i32 %67 to i64
  %72 = add i64 %63, %71
  %73 = add i64 %72, %70
  %74 = trunc i64 %72 to i32
  %75 = lshr i64 %73, 32
  %76 = trunc nuw i64 %75 to i32
  %77 = call i32 @llvm.nvvm.shfl.sync.down.i32(i32 -1, i32 %74, i32 1, i32 31)
  %78 = call i32 @llvm.nvvm.shfl.sync.down.i32(i32 -1, i32 %76, i32 1, i32 31)
  %79 = and i32 %11, 31
  %80 = icmp eq i32 %79, 0
  %81 = icmp ne i32 %33, 0
  %82 = and i1 %80, %81
  br i1 %82, label %83, label %91

83:
  %84 = zext i32 %77 to i64
  %85 = add i64 %73, %84
  %86 = zext i32 %78 to i64
  %87 = shl nuw i64 %86, 32
  %88 = add i64 %85, %87
  %89 = atomicrmw add ptr %5, i32 %33 seq_cst, align 4
  %90 = atomicrmw add ptr %6, i64 %88 seq_cst, align 8
  br label %91

91:
  ret void
}

define ptx_kernel void @parent(ptr %key, ptr %pay, i32 %n, i32 %s_key, i32 %s_pay, ptr %count, ptr %sum, i32 %blocks) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  store i32 %blocks, ptr %g, align 4
  %gy = getelementptr inbounds i8, ptr %g, i64 4
  store i32 1, ptr %gy, align 4
  %gz = getelementptr inbounds i8, ptr %g, i64 8
  store i32 1, ptr %gz, align 4
  store %struct.dim3 { i32 128, i32 1, i32 1 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @join, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  %ok = icmp ne ptr %buf, null
  br i1 %ok, label %fill, label %done
fill:
  store ptr %key, ptr %buf, align 8
  %a1 = getelementptr inbounds i8, ptr %buf, i64 8
  store ptr %pay, ptr %a1, align 8
  %a2 = getelementptr inbounds i8, ptr %buf, i64 16
  store i32 %n, ptr %a2, align 4
  %a3 = getelementptr inbounds i8, ptr %buf, i64 20
  store i32 %s_key, ptr %a3, align 4
  %a4 = getelementptr inbounds i8, ptr %buf, i64 24
  store i32 %s_pay, ptr %a4, align 4
  %a5 = getelementptr inbounds i8, ptr %buf, i64 32
  store ptr %count, ptr %a5, align 8
  %a6 = getelementptr inbounds i8, ptr %buf, i64 40
  store ptr %sum, ptr %a6, align 8
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr inttoptr (i64 4 to ptr))
  br label %done
done:
  ret void
}
