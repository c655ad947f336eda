; A three-dimensional child whose threads talk within their warp is run by the launching warp (KLAP308):
; lane l plays the child thread of linear index 32 w + l of each block, split into x, y and z by the
; block's x and y sizes (the flat path, where the block is one-dimensional, takes it as x alone), and the
; blocks run in x, y, z order. With a size known only at run time (a grid %n high, a 4 x %n x 2 block),
; a lane owns its child where the product of the six dimensions is within the threshold and none is zero.
; RUN: %opt -load-pass-plugin=%plugin -klap-disable-aggregate -klap-disable-malloc -passes='klap<granularity=grid;serialize;no-inline-runtime>' -pass-remarks=klap -pass-remarks-missed=klap -S %s -o %t.ll 2>%t.remarks
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks

; REMARK-DAG: remark: {{.*}}launch of @child run by the launching warp: {{.*}}the warp runs the children of those lanes, its 32 threads, one after another, a child warp at a time{{.*}} [KLAP308]
; REMARK-DAG: remark: {{.*}}launch of @child run by the launching warp: {{.*}}the warp runs the children of those lanes, children of at most 16384 threads (checked at run time), one after another{{.*}} [KLAP308]
; REMARK-NOT: KLAP300

; CHECK-LABEL: define ptx_kernel void @constant(
; CHECK:         call void @child__klap_warp_run(ptr %out, i32 %n, i32 1, i32 2, i32 1, i32 4, i32 2, i32 2, i1 true)
; CHECK:         call i32 @__cudaCDP2LaunchDeviceV2(
; CHECK-LABEL: define ptx_kernel void @varying(
; CHECK:         [[N1:%.*]] = zext i32 %n to i64
; CHECK-NEXT:    mul i64 8, [[N1]]
; CHECK:         [[N2:%.*]] = zext i32 %n to i64
; CHECK-NEXT:    [[P2:%.*]] = mul i64 {{%.*}}, [[N2]]
; CHECK-NEXT:    [[OVER:%.*]] = icmp ugt i64 [[P2]], 16385
; CHECK-NEXT:    [[WORK:%.*]] = select i1 [[OVER]], i64 16385, i64 [[P2]]
; CHECK:         [[NONZERO:%.*]] = icmp ne i32 %n, 0
; CHECK:         [[WITHIN:%.*]] = icmp ule i64 [[WORK]], 16384
; CHECK-NEXT:    %mine = and i1 [[WITHIN]],
; CHECK:         [[MASK:%.*]] = call i32 @llvm.nvvm.activemask()
; CHECK-NEXT:    %warp.whole = icmp eq i32 [[MASK]], -1
; CHECK:         call void @child__klap_warp_run(ptr %out, i32 %n, i32 1, i32 %n, i32 1, i32 4, i32 %n, i32 2, i1 %mine)
; CHECK:         call i32 @__cudaCDP2LaunchDeviceV2(
; CHECK-LABEL: define internal void @child__klap_warp_run(
; CHECK:       child:
; CHECK:         [[BX:%.*]] = call i32 @llvm.nvvm.shfl.sync.idx.i32(i32 -1, i32 %5,
; CHECK-NEXT:    [[BY:%.*]] = call i32 @llvm.nvvm.shfl.sync.idx.i32(i32 -1, i32 %6,
; CHECK-NEXT:    [[BZ:%.*]] = call i32 @llvm.nvvm.shfl.sync.idx.i32(i32 -1, i32 %7,
; CHECK:       run:
; CHECK:         %t = add i32 {{%.*}}, [[LANE:%.*]]
; CHECK:       run.shaped:
; CHECK-NEXT:    [[X:%.*]] = urem i32 %t, [[BX]]
; CHECK-NEXT:    [[YZ:%.*]] = udiv i32 %t, [[BX]]
; CHECK-NEXT:    [[Y:%.*]] = urem i32 [[YZ]], [[BY]]
; CHECK-NEXT:    [[Z:%.*]] = udiv i32 [[YZ]], [[BY]]
; CHECK:       call:
; CHECK-NEXT:    %tid.x = phi i32 [ %t, %run.flat ], [ [[X]], %run.shaped ]
; CHECK-NEXT:    %tid.y = phi i32 [ 0, %run.flat ], [ [[Y]], %run.shaped ]
; CHECK-NEXT:    %tid.z = phi i32 [ 0, %run.flat ], [ [[Z]], %run.shaped ]
; CHECK-NEXT:    call void @child__klap_thread(ptr {{%.*}}, i32 {{%.*}}, i32 %tid.x, i32 %tid.y, i32 %tid.z, i32 [[BX]], i32 [[BY]], i32 [[BZ]], i32 %ctaid.x, i32 %ctaid.y, i32 %ctaid.z,
; CHECK:       next:
; CHECK-NEXT:    call void @llvm.nvvm.bar.warp.sync(i32 -1)
; CHECK:       block.done:
; CHECK:         [[NX:%.*]] = add i32 %ctaid.x, 1
; CHECK:       run.split:
; CHECK-NEXT:    br i1 {{%.*}}, label %run.flat, label %run.shaped

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.tid.y()
declare i32 @llvm.nvvm.read.ptx.sreg.tid.z()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.y()
declare i32 @llvm.nvvm.shfl.sync.down.i32(i32, i32, i32, i32)

; Each thread stores its neighbour's value at x + y + z + blockIdx.y.
define ptx_kernel void @child(ptr %out, i32 %k) {
  %tx = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %ty = call i32 @llvm.nvvm.read.ptx.sreg.tid.y()
  %tz = call i32 @llvm.nvvm.read.ptx.sreg.tid.z()
  %cy = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.y()
  %a = add i32 %tx, %ty
  %b = add i32 %a, %tz
  %i = add i32 %b, %cy
  %v = call i32 @llvm.nvvm.shfl.sync.down.i32(i32 -1, i32 %k, i32 1, i32 31)
  %p = getelementptr inbounds i32, ptr %out, i32 %i
  store i32 %v, ptr %p, align 4
  ret void
}

; child<<<dim3(1, 2), dim3(4, 2, 2)>>>(out, n): 32 threads.
define ptx_kernel void @constant(ptr %out, i32 %n) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  store %struct.dim3 { i32 1, i32 2, i32 1 }, ptr %g, align 4
  store %struct.dim3 { i32 4, i32 2, i32 2 }, ptr %b, align 4
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

; child<<<dim3(1, n), dim3(4, n, 2)>>>(out, n): 8 * n * n threads.
define ptx_kernel void @varying(ptr %out, i32 %n) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  %gv = insertvalue %struct.dim3 { i32 1, i32 poison, i32 1 }, i32 %n, 1
  store %struct.dim3 %gv, ptr %g, align 4
  %bv = insertvalue %struct.dim3 { i32 4, i32 poison, i32 2 }, i32 %n, 1
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
