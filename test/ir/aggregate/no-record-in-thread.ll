; In a kernel whose lanes run children on their own (serialization's serial and reduced-serial runs), a launch
; that finds no record (the record pool is short) is not made as written: the launching thread runs the child's
; threads itself (KLAP215), through a call the inliner leaves a call (its code stays out of the kernel's). A lane
; in the device runtime, launching as written beside warp-mates running a child, hung on an H200
; (test/gpu/warp_reduce.cu at `auto` with a 1 MiB pool, thirty-fourth session). A launch the device runtime
; would refuse is still made, to fail as written. A kernel whose lanes run no child keeps the launch as written.
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=grid;serialize;serialize-threshold=256;serialize-small-grid-threshold=0;no-inline-runtime>' -pass-remarks-analysis=klap -S %s -o %t.ll 2>%t.remarks
; RUN: opt -passes=verify -disable-output %t.ll
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=auto>' -S %s -o %t.auto.ll
; RUN: llc-22 -mtriple=nvptx64-nvidia-cuda -mcpu=sm_90 -mattr=+ptx88 %t.auto.ll -o %t.ptx
; RUN: %ptxas -arch=sm_90 -c %t.ptx -o %t.o

; REMARK-DAG: remark: {{.*}}where no record can be had (the record pool is short{{.*}}), the launching thread runs @child's threads itself instead of launching it as written: @serialized runs children in its lanes, {{.*}} [KLAP215]
; REMARK-DAG: remark: {{.*}}where no record can be had (the record pool is short{{.*}}), the launching thread runs @sum_child's threads itself instead of launching it as written: @reduced runs children in its lanes, {{.*}} [KLAP215]
; REMARK-DAG: remark: {{.*}}where no record can be had (the record pool is short{{.*}}), the launching thread runs @loop_child's threads itself instead of launching it as written: @with_helper runs children in its lanes, {{.*}} [KLAP215]
; REMARK-NOT: @looping runs children in its lanes

; CHECK-LABEL: define ptx_kernel void @serialized(
; CHECK:         call void @child__klap_serial(ptr %out, i32 %n, i32 %n, i32 1, i32 1, i32 32, i32 1, i32 1, i64 -1){{$}}
; CHECK:         [[TAGGED:%.*]] = call ptr @__klap_scope_register(
; CHECK:         [[RECORD:%.*]] = icmp ne ptr [[TAGGED]], null
; CHECK:         [[TAKEN:%.*]] = or i1 [[RECORD]], [[ACCEPTED:%.*]]
; CHECK:         br i1 [[TAKEN]], label %[[TAKEN_BB:.*]], label %[[ELSE:.*]]
; CHECK:       [[TAKEN_BB]]:
; CHECK-NEXT:    br i1 [[RECORD]],
; CHECK:         call ptr @__klap_record_args(ptr [[TAGGED]])
; CHECK:         [[NONE:%.*]] = xor i1 [[RECORD]], true
; CHECK-NEXT:    br i1 [[NONE]],
; CHECK:         call void @child__klap_serial(ptr %out, i32 %n, i32 %n, i32 1, i32 1, i32 32, i32 1, i32 1, i64 -1) [[NOINLINE:#[0-9]+]]
; CHECK:         call i32 @__cudaCDP2LaunchDeviceV2(
; CHECK:         ret void

; CHECK-LABEL: define ptx_kernel void @reduced(
; CHECK:         call ptr @__klap_scope_register(
; CHECK:         call void @sum_child__klap_reduced_serial(ptr %out, i32 %n, i32 %n, i32 1, i32 1, i32 64, i32 1, i32 1, i64 -1) [[NOINLINE]]
; CHECK:         ret void

; CHECK-LABEL: define ptx_kernel void @looping(
; CHECK-NOT:     __klap_serial
; CHECK:         call ptr @__klap_scope_register(
; CHECK-NOT:     __klap_serial
; CHECK:         ret void

; A device function's launch, registered in the scope of the kernel that runs it, beside that kernel's runs.
; CHECK-LABEL: define internal void @helper(
; CHECK:         call ptr @__klap_scope_register(
; CHECK:         call void @loop_child__klap_serial(ptr %out, i32 %n, i32 %n, i32 1, i32 1, i32 32, i32 1, i32 1, i64 -1) [[NOINLINE]]
; CHECK:         ret void

; CHECK: attributes [[NOINLINE]] = { noinline }
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare i32 @llvm.nvvm.redux.sync.add(i32, i32)

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

; Each warp adds its threads' products up; lane 0 adds the sum to out[0].
define ptx_kernel void @sum_child(ptr %out, i32 %k) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %v = mul i32 %t, %k
  %s = call i32 @llvm.nvvm.redux.sync.add(i32 %v, i32 -1)
  %l = urem i32 %t, 32
  %z = icmp eq i32 %l, 0
  br i1 %z, label %w, label %e
w:
  %old = atomicrmw add ptr %out, i32 %s monotonic, align 4
  br label %e
e:
  ret void
}

; Each thread loops: worth a thread of its own, not serialized (KLAP305).
define ptx_kernel void @loop_child(ptr %out, i32 %k) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %p = getelementptr inbounds i32, ptr %out, i32 %t
  br label %loop
loop:
  %j = phi i32 [ 0, %entry ], [ %j1, %loop ]
  store i32 %j, ptr %p, align 4
  %j1 = add i32 %j, 1
  %more = icmp slt i32 %j1, %k
  br i1 %more, label %loop, label %done
done:
  ret void
}

; @child, %n blocks of 32 threads: serialized where at most 256 threads, else registered.
define ptx_kernel void @serialized(ptr %out, i32 %n) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  store i32 %n, ptr %g, align 4
  %gy = getelementptr inbounds i8, ptr %g, i64 4
  store i32 1, ptr %gy, align 4
  %gz = getelementptr inbounds i8, ptr %g, i64 8
  store i32 1, ptr %gz, align 4
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  %ok = icmp ne ptr %buf, null
  br i1 %ok, label %fill, label %done
fill:
  store ptr %out, ptr %buf, align 8
  %a = getelementptr inbounds i8, ptr %buf, i64 8
  store i32 %n, ptr %a, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  br label %done
done:
  ret void
}

; @sum_child, %n blocks of 64 threads: serialized with its reductions folded, else registered.
define ptx_kernel void @reduced(ptr %out, i32 %n) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  store i32 %n, ptr %g, align 4
  %gy = getelementptr inbounds i8, ptr %g, i64 4
  store i32 1, ptr %gy, align 4
  %gz = getelementptr inbounds i8, ptr %g, i64 8
  store i32 1, ptr %gz, align 4
  store %struct.dim3 { i32 64, i32 1, i32 1 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @sum_child, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  %ok = icmp ne ptr %buf, null
  br i1 %ok, label %fill, label %done
fill:
  store ptr %out, ptr %buf, align 8
  %a = getelementptr inbounds i8, ptr %buf, i64 8
  store i32 %n, ptr %a, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  br label %done
done:
  ret void
}

; @loop_child, %n blocks of 32 threads: registered.
define ptx_kernel void @looping(ptr %out, i32 %n) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  store i32 %n, ptr %g, align 4
  %gy = getelementptr inbounds i8, ptr %g, i64 4
  store i32 1, ptr %gy, align 4
  %gz = getelementptr inbounds i8, ptr %g, i64 8
  store i32 1, ptr %gz, align 4
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @loop_child, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  %ok = icmp ne ptr %buf, null
  br i1 %ok, label %fill, label %done
fill:
  store ptr %out, ptr %buf, align 8
  %a = getelementptr inbounds i8, ptr %buf, i64 8
  store i32 %n, ptr %a, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  br label %done
done:
  ret void
}

; @loop_child, %n blocks of 32 threads, from a device function.
define internal void @helper(ptr %out, i32 %n) noinline {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  store i32 %n, ptr %g, align 4
  %gy = getelementptr inbounds i8, ptr %g, i64 4
  store i32 1, ptr %gy, align 4
  %gz = getelementptr inbounds i8, ptr %g, i64 8
  store i32 1, ptr %gz, align 4
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @loop_child, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  %ok = icmp ne ptr %buf, null
  br i1 %ok, label %fill, label %done
fill:
  store ptr %out, ptr %buf, align 8
  %a = getelementptr inbounds i8, ptr %buf, i64 8
  store i32 %n, ptr %a, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  br label %done
done:
  ret void
}

; @child (serialized where small) and @helper's launch.
define ptx_kernel void @with_helper(ptr %out, i32 %n) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  store i32 %n, ptr %g, align 4
  %gy = getelementptr inbounds i8, ptr %g, i64 4
  store i32 1, ptr %gy, align 4
  %gz = getelementptr inbounds i8, ptr %g, i64 8
  store i32 1, ptr %gz, align 4
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  %ok = icmp ne ptr %buf, null
  br i1 %ok, label %fill, label %next
fill:
  store ptr %out, ptr %buf, align 8
  %a = getelementptr inbounds i8, ptr %buf, i64 8
  store i32 %n, ptr %a, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  br label %next
next:
  call void @helper(ptr %out, i32 %n)
  ret void
}
