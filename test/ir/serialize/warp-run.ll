; A child whose threads talk within their warp (a reduction, shuffles, a ballot) but not beyond it is run by
; the launching warp where all 32 lanes reach the launch together: the lanes whose child has at most
; warp-run-threshold threads (checked at run time) own a child; the warp takes the owners in turn, shuffles
; the owner's arguments and configuration to every lane, and runs each child block a child warp at a time,
; lane l playing the child thread 32 w + l (the child's lane l), with a warp barrier after each child warp.
; Only where the launching grid has at least 65,536 threads (read at run time). Larger children, and every
; lane where the warp is not whole or the grid smaller, launch as written.
; RUN: %opt -load-pass-plugin=%plugin -klap-disable-aggregate -klap-disable-malloc -passes='klap<granularity=grid;serialize;warp-run-threshold=512;no-inline-runtime>' -pass-remarks=klap -pass-remarks-missed=klap -S %s -o %t.ll 2>%t.remarks
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks
; RUN: %opt -load-pass-plugin=%plugin -klap-disable-aggregate -klap-disable-malloc -passes='klap<granularity=grid;serialize;warp-run-threshold=0;no-inline-runtime>' -pass-remarks-missed=klap -S %s -o /dev/null 2>&1 | FileCheck --check-prefix=OFF %s
; RUN: %opt -load-pass-plugin=%plugin -klap-disable-aggregate -klap-disable-malloc -passes='klap<granularity=grid;serialize;warp-run-grid-threads=1000;no-inline-runtime>' -S %s -o - | FileCheck --check-prefix=GRID %s
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=auto>' -S %s -o %t.auto.ll
; RUN: llc-22 -mtriple=nvptx64-nvidia-cuda -mcpu=sm_90 -mattr=+ptx88 %t.auto.ll -o %t.ptx
; RUN: FileCheck --check-prefix=PTX %s < %t.ptx
; RUN: %ptxas -arch=sm_90 -c %t.ptx -o %t.o

; REMARK-DAG: remark: {{.*}}launch of @reduce run by the launching warp: where all 32 lanes reach it together and the launching grid has at least 65536 threads (checked at run time: a grid that large keeps the GPU busy by itself), the warp runs the children of those lanes, children of at most 512 threads (checked at run time), one after another, a child warp at a time, each lane playing the child's lane of its own number (the child's threads talk within their warp, not beyond it); a larger child, a launch that not all 32 lanes reach together, and a launch from a smaller grid are launched; not run by the launching thread with its warp reductions folded: {{.*}} [KLAP308]
; REMARK-DAG: remark: {{.*}}launch not serialized: the child grid has 1024 threads, more than the warp-run threshold 512 [KLAP303]
; REMARK-DAG: remark: {{.*}}launch not serialized: the threads of @reduce_sync cannot run one by one: it reduces within a warp; nor a warp at a time: it waits at a barrier [KLAP301]
; REMARK-DAG: remark: {{.*}}launch of @reduce_byval run by the launching warp: {{.*}}its 32 threads{{.*}} [KLAP308]
; GRID-LABEL: define ptx_kernel void @parent(
; GRID:         icmp uge i64 %{{.*}}, 1000
; GRID:         call void @reduce__klap_warp_run(
; OFF: launch not serialized: the threads of @reduce cannot run one by one: it reduces within a warp; nor a warp at a time: warp runs are off (-klap-warp-run-threshold=0) [KLAP301]

; CHECK-LABEL: define ptx_kernel void @parent(
; CHECK:         [[MINE:%mine.*]] = and i1 %{{.*}}, %{{.*}}
; CHECK:         [[LARGE:%.*]] = icmp uge i64 %{{.*}}, 65536
; CHECK-NEXT:    [[MASK:%.*]] = call i32 @llvm.nvvm.activemask()
; CHECK-NEXT:    [[FULL:%.*]] = icmp eq i32 [[MASK]], -1
; CHECK-NEXT:    [[WHOLE:%.*]] = and i1 [[FULL]], [[LARGE]]
; CHECK-NEXT:    br i1 [[WHOLE]],
; CHECK:         call void @reduce__klap_warp_run(ptr %out, i32 %n, i32 %g, i32 %g, i32 1, i32 1, i32 64, i32 1, i32 1, i1 [[MINE]])
; CHECK:         [[RAN:%.*]] = and i1 [[MINE]], [[WHOLE]]
; CHECK:         xor i1 [[RAN]], true
; CHECK:         call i32 @__cudaCDP2LaunchDeviceV2(
; CHECK-LABEL: define ptx_kernel void @too_large(
; CHECK-NOT:     __klap_warp_run
; CHECK:         call i32 @__cudaCDP2LaunchDeviceV2(
; CHECK-LABEL: define internal void @reduce__klap_thread(
; CHECK:         call i32 @llvm.nvvm.redux.sync.add(
; CHECK-LABEL: define internal void @reduce__klap_warp_run(
; CHECK:         call void @llvm.nvvm.bar.warp.sync(i32 -1)
; CHECK-NEXT:    call i32 @llvm.nvvm.vote.ballot.sync(i32 -1, i1 %9)
; CHECK:       children:
; CHECK:       child:
; CHECK:         [[OWNER:%.*]] = call i32 @llvm.cttz.i32(
; The owner's pointer in two pieces, its two integers, and the six dimensions.
; CHECK-COUNT-10: call i32 @llvm.nvvm.shfl.sync.idx.i32(i32 -1, i32 %{{.*}}, i32 [[OWNER]], i32 31)
; CHECK:       run:
; CHECK:         [[T:%.*]] = add i32 %{{.*}}, %{{.*}}
; CHECK:         icmp ult i32 [[T]],
; CHECK:       call:
; CHECK:         call void @reduce__klap_thread(
; CHECK:       next:
; CHECK-NEXT:    call void @llvm.nvvm.bar.warp.sync(i32 -1)
; A by-value parameter: the owner's bytes shuffled word by word into this lane's copy, which the thread
; variant copies again for each child thread.
; CHECK-LABEL: define internal void @reduce_byval__klap_warp_run(ptr %0, ptr %1,
; CHECK:         [[COPY:%.*]] = alloca %struct.pair, align 4
; CHECK:       child:
; CHECK:         [[W0:%.*]] = load i32, ptr %1, align 4
; CHECK-NEXT:    [[S0:%.*]] = call i32 @llvm.nvvm.shfl.sync.idx.i32(i32 -1, i32 [[W0]],
; CHECK-NEXT:    store i32 [[S0]], ptr [[COPY]], align 4
; CHECK:         [[S1:%.*]] = call i32 @llvm.nvvm.shfl.sync.idx.i32(i32 -1, i32 %{{.*}},
; CHECK:         store i32 [[S1]], ptr %{{.*}}, align 4
; CHECK:         call void @reduce_byval__klap_thread(ptr %{{.*}}, ptr [[COPY]],
; PTX: .entry parent(
; PTX: activemask.b32
; PTX: redux.sync.add.s32
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }
%struct.pair = type { i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare i32 @llvm.nvvm.redux.sync.add(i32, i32)
declare i32 @llvm.nvvm.shfl.sync.down.i32(i32, i32, i32, i32)
declare i32 @llvm.nvvm.vote.ballot.sync(i32, i1)
declare void @llvm.nvvm.barrier0()

; Each warp counts its threads below %k and lane 0 adds the count to %out[0].
define ptx_kernel void @reduce(ptr %out, i32 %k, i32 %m) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %c = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %w = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %base = mul i32 %c, %w
  %i = add i32 %base, %t
  %below = icmp slt i32 %i, %k
  %one = zext i1 %below to i32
  %count = call i32 @llvm.nvvm.redux.sync.add(i32 %one, i32 -1)
  %down = call i32 @llvm.nvvm.shfl.sync.down.i32(i32 -1, i32 %count, i32 16, i32 31)
  %lanes = call i32 @llvm.nvvm.vote.ballot.sync(i32 -1, i1 %below)
  %lane = and i32 %t, 31
  %first = icmp eq i32 %lane, 0
  br i1 %first, label %add, label %done
add:
  %sum = add i32 %down, %lanes
  %r = atomicrmw add ptr %out, i32 %sum monotonic, align 4
  br label %done
done:
  ret void
}

define ptx_kernel void @reduce_sync(ptr %out, i32 %k) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %below = icmp slt i32 %t, %k
  %one = zext i1 %below to i32
  %count = call i32 @llvm.nvvm.redux.sync.add(i32 %one, i32 -1)
  call void @llvm.nvvm.barrier0()
  %r = atomicrmw add ptr %out, i32 %count monotonic, align 4
  ret void
}

define ptx_kernel void @reduce_byval(ptr %out, ptr byval(%struct.pair) align 4 %p) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %k = load i32, ptr %p, align 4
  %below = icmp slt i32 %t, %k
  %one = zext i1 %below to i32
  %count = call i32 @llvm.nvvm.redux.sync.add(i32 %one, i32 -1)
  %r = atomicrmw add ptr %out, i32 %count monotonic, align 4
  ret void
}

; Every thread with a nonzero %n launches %g blocks of 64 threads (a run-time size).
define ptx_kernel void @parent(ptr %out, i32 %n, i32 %g) {
entry:
  %gd = alloca %struct.dim3, align 4
  %bd = alloca %struct.dim3, align 4
  %go = icmp ne i32 %n, 0
  br i1 %go, label %launch, label %done
launch:
  %gv = insertvalue %struct.dim3 { i32 poison, i32 1, i32 1 }, i32 %g, 0
  store %struct.dim3 %gv, ptr %gd, align 4
  store %struct.dim3 { i32 64, i32 1, i32 1 }, ptr %bd, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @reduce, ptr byval(%struct.dim3) align 4 %gd, ptr byval(%struct.dim3) align 4 %bd, i32 0)
  %ok = icmp ne ptr %buf, null
  br i1 %ok, label %fill, label %done
fill:
  store ptr %out, ptr %buf, align 8
  %a1 = getelementptr inbounds i8, ptr %buf, i64 8
  store i32 %n, ptr %a1, align 4
  %a2 = getelementptr inbounds i8, ptr %buf, i64 12
  store i32 %g, ptr %a2, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  br label %done
done:
  ret void
}

; A constant 8 x 128 threads: more than the threshold, launched.
define ptx_kernel void @too_large(ptr %out, i32 %n) {
entry:
  %gd = alloca %struct.dim3, align 4
  %bd = alloca %struct.dim3, align 4
  store %struct.dim3 { i32 8, i32 1, i32 1 }, ptr %gd, align 4
  store %struct.dim3 { i32 128, i32 1, i32 1 }, ptr %bd, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @reduce, ptr byval(%struct.dim3) align 4 %gd, ptr byval(%struct.dim3) align 4 %bd, i32 0)
  %ok = icmp ne ptr %buf, null
  br i1 %ok, label %fill, label %done
fill:
  store ptr %out, ptr %buf, align 8
  %a1 = getelementptr inbounds i8, ptr %buf, i64 8
  store i32 %n, ptr %a1, align 4
  %a2 = getelementptr inbounds i8, ptr %buf, i64 12
  store i32 %n, ptr %a2, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  br label %done
done:
  ret void
}

define ptx_kernel void @sync_parent(ptr %out, i32 %n) {
entry:
  %gd = alloca %struct.dim3, align 4
  %bd = alloca %struct.dim3, align 4
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %gd, align 4
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %bd, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @reduce_sync, ptr byval(%struct.dim3) align 4 %gd, ptr byval(%struct.dim3) align 4 %bd, i32 0)
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

define ptx_kernel void @byval_parent(ptr %out, i32 %n) {
entry:
  %gd = alloca %struct.dim3, align 4
  %bd = alloca %struct.dim3, align 4
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %gd, align 4
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %bd, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @reduce_byval, ptr byval(%struct.dim3) align 4 %gd, ptr byval(%struct.dim3) align 4 %bd, i32 0)
  %ok = icmp ne ptr %buf, null
  br i1 %ok, label %fill, label %done
fill:
  store ptr %out, ptr %buf, align 8
  %a1 = getelementptr inbounds i8, ptr %buf, i64 8
  store i32 %n, ptr %a1, align 4
  %a2 = getelementptr inbounds i8, ptr %buf, i64 12
  store i32 %n, ptr %a2, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  br label %done
done:
  ret void
}
