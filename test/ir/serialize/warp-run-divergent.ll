; A warp-run child (its threads talk within their warp) launched where not all lanes of a warp may be:
; in a loop whose trip count is the thread's own, and past an early return of the threads beyond %n.
; The warp runs the children only where all 32 lanes reach the launch together (__activemask() full,
; checked at the launch, at every iteration of the loop), else each lane launches as written there; the
; early return stays a plain return.
; RUN: %opt -load-pass-plugin=%plugin -klap-disable-aggregate -klap-disable-malloc -passes='klap<granularity=grid;serialize;no-inline-runtime>' -pass-remarks=klap -pass-remarks-missed=klap -S %s -o %t.ll 2>%t.remarks
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks
; RUN: llc-22 -mtriple=nvptx64-nvidia-cuda -mcpu=sm_90 -mattr=+ptx88 %t.ll -o %t.ptx
; RUN: %ptxas -arch=sm_90 -c %t.ptx -o %t.o

; REMARK-COUNT-2: remark: {{.*}}launch of @child run by the launching warp: where all 32 lanes reach it together {{.*}}its 32 threads{{.*}} [KLAP308]
; REMARK-NOT: KLAP300

; CHECK-LABEL: define ptx_kernel void @looped(
; CHECK:       body:
; CHECK-NEXT:    %i = phi i32
; CHECK:         [[MASK:%.*]] = call i32 @llvm.nvvm.activemask()
; CHECK-NEXT:    %warp.whole = icmp eq i32 [[MASK]], -1
; CHECK-NEXT:    [[WHOLE:%.*]] = and i1 %warp.whole, %grid.large
; CHECK-NEXT:    br i1 [[WHOLE]], label %[[BYWARP:.*]], label %{{.*}}
; CHECK:       [[BYWARP]]:
; CHECK-NEXT:    call void @child__klap_warp_run(ptr %out, i32 %i, i32 1, i32 1, i32 1, i32 32, i32 1, i32 1, i1 true)
; CHECK:         [[RAN:%.*]] = and i1 true, [[WHOLE]]
; CHECK:         [[LAUNCH:%.*]] = xor i1 [[RAN]], true
; CHECK-NEXT:    br i1 [[LAUNCH]]
; CHECK:         call i32 @__cudaCDP2LaunchDeviceV2(
; CHECK:       latch:
; CHECK:         br i1 %more, label %body, label %done
; CHECK:       done:
; CHECK-NEXT:    ret void

; CHECK-LABEL: define ptx_kernel void @early(
; CHECK:         [[STOP:%.*]] = icmp uge i32 %t, %n
; CHECK-NEXT:    br i1 [[STOP]], label %done, label %go
; CHECK:       go:
; CHECK:         [[MASK:%.*]] = call i32 @llvm.nvvm.activemask()
; CHECK-NEXT:    %warp.whole = icmp eq i32 [[MASK]], -1
; CHECK:         call void @child__klap_warp_run(ptr %out, i32 %t, i32 1, i32 1, i32 1, i32 32, i32 1, i32 1, i1 true)
; CHECK:         call i32 @__cudaCDP2LaunchDeviceV2(
; CHECK:       done:
; CHECK-NEXT:    ret void

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.shfl.sync.down.i32(i32, i32, i32, i32)

define ptx_kernel void @child(ptr %out, i32 %k) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %v = call i32 @llvm.nvvm.shfl.sync.down.i32(i32 -1, i32 %k, i32 1, i32 31)
  %p = getelementptr inbounds i32, ptr %out, i32 %t
  store i32 %v, ptr %p, align 4
  ret void
}

; for (i = 0; i < threadIdx.x % 4 + n; ++i) child<<<1, 32>>>(out, i);
define ptx_kernel void @looped(ptr %out, i32 %n) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %r4 = and i32 %t, 3
  %trips = add i32 %r4, %n
  %any = icmp sgt i32 %trips, 0
  br i1 %any, label %body, label %done
body:
  %i = phi i32 [ 0, %entry ], [ %i1, %latch ]
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %g, align 4
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  %ok = icmp ne ptr %buf, null
  br i1 %ok, label %fill, label %latch
fill:
  store ptr %out, ptr %buf, align 8
  %a1 = getelementptr inbounds i8, ptr %buf, i64 8
  store i32 %i, ptr %a1, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  br label %latch
latch:
  %i1 = add i32 %i, 1
  %more = icmp slt i32 %i1, %trips
  br i1 %more, label %body, label %done
done:
  ret void
}

; if (threadIdx.x >= n) return; child<<<1, 32>>>(out, threadIdx.x);
define ptx_kernel void @early(ptr %out, i32 %n) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %stop = icmp uge i32 %t, %n
  br i1 %stop, label %done, label %go
go:
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %g, align 4
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  %ok = icmp ne ptr %buf, null
  br i1 %ok, label %fill, label %done
fill:
  store ptr %out, ptr %buf, align 8
  %a1 = getelementptr inbounds i8, ptr %buf, i64 8
  store i32 %t, ptr %a1, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  br label %done
done:
  ret void
}
