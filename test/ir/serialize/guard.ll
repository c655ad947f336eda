; A child whose threads past its one-dimensional guard (`if (blockIdx.x * blockDim.x + threadIdx.x < n)`)
; do nothing: only its working threads count toward the threshold, and only they are run.
; RUN: %opt -load-pass-plugin=%plugin -klap-disable-aggregate -klap-disable-malloc -passes='klap<granularity=grid;serialize;serialize-threshold=64;serialize-small-grid-threshold=0;no-inline-runtime>' -pass-remarks=klap -S %s -o %t.ll 2>%t.remarks
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()

define ptx_kernel void @child(ptr %out, i32 %n) {
entry:
  %c = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %w = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %base = mul nuw i32 %w, %c
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = add nuw i32 %base, %t
  %in = icmp slt i32 %i, %n
  br i1 %in, label %work, label %done
work:
  %p = getelementptr inbounds i32, ptr %out, i32 %i
  store i32 1, ptr %p, align 4
  br label %done
done:
  ret void
}

; REMARK: launch of @child serialized: the launching thread runs its working threads (those below its guard's bound) when there are at most 64 (checked at run time; larger ones are launched) [KLAP300]
; A grid of 256-thread blocks, of which only the first n threads work: n (not below zero) is the limit,
; and the smaller of it and the grid's threads is held against the threshold.
; CHECK-LABEL: define ptx_kernel void @parent(
; CHECK:         [[N:%.*]] = sext i32 %n to i64
; CHECK-NEXT:    [[NEG:%.*]] = icmp slt i64 [[N]], 0
; CHECK-NEXT:    [[LIMIT:%.*]] = select i1 [[NEG]], i64 0, i64 [[N]]
; CHECK:         [[FEWER:%.*]] = icmp ult i64 [[LIMIT]], [[TOTAL:%.*]]
; CHECK-NEXT:    [[WORK:%.*]] = select i1 [[FEWER]], i64 [[LIMIT]], i64 [[TOTAL]]
; CHECK-NEXT:    [[SMALL:%.*]] = icmp ule i64 [[WORK]], 64
; CHECK:         call void @child__klap_serial_in_bound(ptr %out, i32 %n, i32 %blocks, i32 1, i32 1, i32 256, i32 1, i32 1, i64 [[LIMIT]])
define ptx_kernel void @parent(ptr %out, i32 %n) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  %n255 = add i32 %n, 255
  %blocks = udiv i32 %n255, 256
  %gv = insertvalue %struct.dim3 { i32 poison, i32 1, i32 1 }, i32 %blocks, 0
  store %struct.dim3 %gv, ptr %g, align 4
  store %struct.dim3 { i32 256, i32 1, i32 1 }, ptr %b, align 4
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

; The other form of the guard, `if (idx >= n) return;`: its copy goes on to the work too, never to the return.
define ptx_kernel void @child_ret(ptr %out, i32 %n) {
entry:
  %c = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %w = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %base = mul nuw i32 %w, %c
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = add nuw i32 %base, %t
  %past = icmp uge i32 %i, %n
  br i1 %past, label %out_of_range, label %work
out_of_range:
  ret void
work:
  %p = getelementptr inbounds i32, ptr %out, i32 %i
  store i32 2, ptr %p, align 4
  ret void
}

; CHECK-LABEL: define ptx_kernel void @parent_ret(
; CHECK:         call void @child_ret__klap_serial_in_bound(
define ptx_kernel void @parent_ret(ptr %out, i32 %n) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  %n255 = add i32 %n, 255
  %blocks = udiv i32 %n255, 256
  %gv = insertvalue %struct.dim3 { i32 poison, i32 1, i32 1 }, i32 %blocks, 0
  store %struct.dim3 %gv, ptr %g, align 4
  store %struct.dim3 { i32 256, i32 1, i32 1 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child_ret, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
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

; Every thread the loop runs is below the guard's bound: its copy of the child's code goes straight to the
; work, without the guard's test (a compare and a branch per serialized thread).
; CHECK-LABEL: define internal void @child__klap_thread_in_bound(
; CHECK:       klap.entry:
; CHECK-NEXT:    br label %entry.klap
; CHECK:       entry.klap:
; CHECK-NOT:     icmp
; CHECK:         br label %work.klap
; CHECK:       work.klap:
; CHECK:         store i32 1, ptr

; The serial loop stops at the limit: a block starts only below it, and runs only its threads below it
; (the fewer of its threads and those left below the limit, counted once per block).
; CHECK-LABEL: define internal void @child__klap_serial_in_bound(
; CHECK:       blocks:
; CHECK:         [[BASE:%.*]] = mul i64
; CHECK:         icmp ult i64 [[BASE]], %8
; CHECK:         [[LEFT:%.*]] = sub i64 %8, [[BASE]]
; CHECK-NEXT:    [[FEWER:%.*]] = icmp ult i64 [[LEFT]], [[THREADS:%.*]]
; CHECK-NEXT:    [[COUNT:%.*]] = select i1 [[FEWER]], i64 [[LEFT]], i64 [[THREADS]]
; CHECK-NEXT:    %in.block = trunc i64 [[COUNT]] to i32
; CHECK:       threads:
; CHECK:         icmp ult i32 %t, %in.block
; CHECK:         call void @child__klap_thread_in_bound(

; CHECK-LABEL: define internal void @child_ret__klap_thread_in_bound(
; CHECK:       entry.klap:
; CHECK-NOT:     icmp
; CHECK:         br label %work.klap
; CHECK:       work.klap:
; CHECK:         store i32 2, ptr
