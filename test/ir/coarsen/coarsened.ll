; Coarsening (-klap-coarsen): each block of the aggregated child runs a range of aggregated blocks, one after
; another. The runtime gives the block its range; the first block of it is entered as usual (record lookup,
; barrier), each next one after the lanes of each warp meet (bar.warp.sync over the lanes at the kernel's start)
; in __klap_child_next, which skips the lookup where the block is in the same record. A thread beyond the
; record's block size, and every return of the child's code (counted out of its block first), goes to the
; latch. The grid, %n / 32, is one over the scope: a record is a division by the first's blocks (-1). The
; launch gives the runtime the factor in bits 16 to 23 of the parameter size and the threads a
; multiprocessor to keep, in 64s, in bits 24 to 29: 12 bytes | ARGS_IN_PARAMS | 4 << 16 | (2048 / 64) << 24 =
; 1610874892.
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=grid;no-inline-runtime;coarsen=4>' -pass-remarks=klap -S %s -o %t.ll 2>%t.remarks
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks
; The same from the command line, with another floor: 12 | ARGS_IN_PARAMS | 16 << 16 | 0 << 24 = 1074790412.
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=grid;no-inline-runtime>' -klap-coarsen=16 -klap-coarsen-sm-threads=0 -S %s -o - | FileCheck --check-prefix=CLI %s
; Off (the default): the aggregated child as always.
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=grid;no-inline-runtime>' -S %s -o - | FileCheck --check-prefix=OFF %s

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()

; REMARK: remark: <unknown>:0:0: each block of @child's aggregated child runs up to 4 aggregated blocks, one after another, where the aggregated launch has more than 2048 threads a multiprocessor [KLAP620]

; CHECK-LABEL: define ptx_kernel void @parent(
; CHECK:         call void @__klap_scope_launch(ptr {{%.*}}, i32 0, ptr @child__klap, ptr @child, i32 1610874892,
; CLI-LABEL:   define ptx_kernel void @parent(
; CLI:           call void @__klap_scope_launch(ptr {{%.*}}, i32 0, ptr @child__klap, ptr @child, i32 1074790412,
; OFF-LABEL:   define ptx_kernel void @parent(
; OFF:           call void @__klap_scope_launch(ptr {{%.*}}, i32 0, ptr @child__klap, ptr @child, i32 1073741836,
define ptx_kernel void @parent(ptr %out, i32 %n) {
entry:
  %grid = alloca %struct.dim3, align 8
  %block = alloca %struct.dim3, align 8
  %blocks = udiv i32 %n, 32
  store i32 %blocks, ptr %grid, align 8
  %gy = getelementptr inbounds i8, ptr %grid, i64 4
  store i32 1, ptr %gy, align 4
  %gz = getelementptr inbounds i8, ptr %grid, i64 8
  store i32 1, ptr %gz, align 8
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %block, align 8
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, ptr byval(%struct.dim3) align 4 %grid, ptr byval(%struct.dim3) align 4 %block, i32 0)
  %isnull = icmp eq ptr %buf, null
  br i1 %isnull, label %done, label %launch

launch:
  store ptr %out, ptr %buf, align 8
  %p1 = getelementptr inbounds i8, ptr %buf, i64 8
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %mine = add i32 %n, %tid
  store i32 %mine, ptr %p1, align 8
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr inttoptr (i64 4 to ptr))
  br label %done

done:
  ret void
}

; CHECK-LABEL: define ptx_kernel void @child__klap(ptr %out, i32 %n, ptr %klap.chunk)
; CHECK:       klap.entry:
; CHECK-NEXT:    [[LANES:%.*]] = call i32 @llvm.nvvm.activemask()
; CHECK-NEXT:    [[RANGE:%.*]] = call i64 @__klap_child_coarse_range(ptr %klap.chunk)
; CHECK-NEXT:    [[FIRST:%.*]] = trunc i64 [[RANGE]] to i32
; CHECK-NEXT:    [[HIGH:%.*]] = lshr i64 [[RANGE]], 32
; CHECK-NEXT:    [[END:%.*]] = trunc i64 [[HIGH]] to i32
; CHECK-NEXT:    [[ANY:%.*]] = icmp ult i32 [[FIRST]], [[END]]
; CHECK-NEXT:    br i1 [[ANY]], label %klap.coarse.enter, label %klap.coarse.done
; CHECK:       [[BODY:[0-9]+]]:
; CHECK-NEXT:    [[N:%.*]] = getelementptr inbounds i8, ptr %klap.coarse.args, i64 8
; CHECK-NEXT:    [[NV:%.*]] = load i32, ptr [[N]], align 4
; CHECK:         call i32 @__klap_ctaid_x()
; CHECK:         icmp slt i32 {{%.*}}, [[NV]]
; CHECK:         call void @__klap_child_exit()
; CHECK-NEXT:    br label %klap.coarse.latch
; CHECK:       klap.coarse.enter:
; CHECK-NEXT:    [[ARGS0:%.*]] = call ptr @__klap_child_enter_first(ptr %klap.chunk, i32 [[FIRST]], i32 -1)
; CHECK-NEXT:    br label %klap.coarse.run
; CHECK:       klap.coarse.run:
; CHECK-NEXT:    %klap.coarse.block = phi i32 [ [[FIRST]], %klap.coarse.enter ], [ [[NEXT:%.*]], %klap.coarse.next ]
; CHECK-NEXT:    %klap.coarse.args = phi ptr [ [[ARGS0]], %klap.coarse.enter ], [ [[ARGS1:%.*]], %klap.coarse.next ]
; CHECK-NEXT:    [[ACTIVE:%.*]] = icmp ne ptr %klap.coarse.args, null
; CHECK-NEXT:    br i1 [[ACTIVE]], label %[[BODY]], label %klap.coarse.latch
; CHECK:       klap.coarse.latch:
; CHECK-NEXT:    [[NEXT]] = add i32 %klap.coarse.block, 1
; CHECK-NEXT:    [[MORE:%.*]] = icmp ult i32 [[NEXT]], [[END]]
; CHECK-NEXT:    br i1 [[MORE]], label %klap.coarse.next, label %klap.coarse.done
; CHECK:       klap.coarse.next:
; CHECK-NEXT:    call void @llvm.nvvm.bar.warp.sync(i32 [[LANES]])
; CHECK-NEXT:    [[ARGS1]] = call ptr @__klap_child_next(ptr %klap.chunk, i32 [[NEXT]], i32 -1)
; CHECK-NEXT:    br label %klap.coarse.run
; CHECK:       klap.coarse.done:
; CHECK-NEXT:    ret void
; CHECK-NOT:     ret void
; CHECK:       }
; OFF-LABEL:   define ptx_kernel void @child__klap(
; OFF-NOT:       coarse
; OFF:           call ptr @__klap_child_enter(ptr %klap.chunk, i32 -1)
; OFF-NOT:       coarse
; OFF:         }
define ptx_kernel void @child(ptr %out, i32 %n) {
  %b = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %d = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %bd = mul i32 %b, %d
  %i = add i32 %bd, %t
  %in = icmp slt i32 %i, %n
  br i1 %in, label %store, label %done
store:
  %p = getelementptr inbounds i32, ptr %out, i32 %i
  store i32 1, ptr %p, align 4
  ret void
done:
  ret void
}
