; Serialization keeps its runs in the launching thread out of a kernel that makes a launch aggregation registers
; whose child no thread can run (here one with a barrier), and aggregates that kernel's launches instead
; (KLAP323): where no record can be had (the record pool is short) that launch is made as written, and a lane in
; the device runtime beside warp-mates running a child in their lanes hung on an H200 (test/gpu/warp_reduce.cu at
; `auto` with a 1 MiB pool, thirty-fourth session). That holds for a launch serialized with no check at run time
; too. A kernel whose launches can all be run in the launching thread keeps its serialization.
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=grid;serialize;serialize-threshold=256;serialize-small-grid-threshold=0;no-inline-runtime>' -pass-remarks=klap -pass-remarks-missed=klap -S %s -o %t.ll 2>%t.remarks
; RUN: opt -passes=verify -disable-output %t.ll
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks

; REMARK-DAG: remark: {{.*}}launch not serialized: @beside_barrier launches @bar_child, whose threads no thread can run (the threads of @bar_child cannot run one by one ({{.*}}barrier{{.*}}), nor with their warp reductions folded ({{.*}})): where no record can be had (the record pool is short), that launch is made as written, {{.*}} [KLAP323]
; REMARK-DAG: remark: {{.*}}launch of @child serialized: the launching thread runs its threads when there are at most 256 {{.*}} [KLAP300]
; REMARK-DAG: remark: {{.*}}launch not serialized: @beside_constant launches @bar_child, whose threads no thread can run {{.*}} [KLAP323]

; CHECK-LABEL: define ptx_kernel void @beside_barrier(
; CHECK-NOT:     call void @child__klap_serial(
; CHECK:         call ptr @__klap_scope_register(
; CHECK-NOT:     call void @child__klap_serial(
; CHECK:         call ptr @__klap_scope_register(
; CHECK-NOT:     call void @child__klap_serial(
; CHECK:         ret void
; CHECK-LABEL: define ptx_kernel void @beside_constant(
; CHECK-NOT:     call void @child__klap_serial(
; CHECK:         ret void
; CHECK-LABEL: define ptx_kernel void @alone(
; CHECK:         call void @child__klap_serial(
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare void @llvm.nvvm.barrier.cta.sync.aligned.all(i32)

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

define ptx_kernel void @bar_child(ptr %out, i32 %k) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %p = getelementptr inbounds i32, ptr %out, i32 %t
  store i32 %k, ptr %p, align 4
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %q = getelementptr inbounds i32, ptr %p, i32 1
  store i32 %k, ptr %q, align 4
  ret void
}

; @child (%n blocks of 32 threads, checked at run time), then @bar_child.
define ptx_kernel void @beside_barrier(ptr %out, i32 %n) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  %g2 = alloca %struct.dim3, align 4
  %b2 = alloca %struct.dim3, align 4
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
  store %struct.dim3 { i32 2, i32 1, i32 1 }, ptr %g2, align 4
  store %struct.dim3 { i32 64, i32 1, i32 1 }, ptr %b2, align 4
  %buf2 = call ptr @__cudaCDP2GetParameterBufferV2(ptr @bar_child, ptr byval(%struct.dim3) align 4 %g2, ptr byval(%struct.dim3) align 4 %b2, i32 0)
  %ok2 = icmp ne ptr %buf2, null
  br i1 %ok2, label %fill2, label %done
fill2:
  store ptr %out, ptr %buf2, align 8
  %a2 = getelementptr inbounds i8, ptr %buf2, i64 8
  store i32 %n, ptr %a2, align 4
  %r2 = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf2, ptr null)
  br label %done
done:
  ret void
}

; @child (4 blocks of 32 threads: serialized with no check, nothing left to register), then @bar_child.
define ptx_kernel void @beside_constant(ptr %out, i32 %n) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  %g2 = alloca %struct.dim3, align 4
  %b2 = alloca %struct.dim3, align 4
  store %struct.dim3 { i32 4, i32 1, i32 1 }, ptr %g, align 4
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
  store %struct.dim3 { i32 2, i32 1, i32 1 }, ptr %g2, align 4
  store %struct.dim3 { i32 64, i32 1, i32 1 }, ptr %b2, align 4
  %buf2 = call ptr @__cudaCDP2GetParameterBufferV2(ptr @bar_child, ptr byval(%struct.dim3) align 4 %g2, ptr byval(%struct.dim3) align 4 %b2, i32 0)
  %ok2 = icmp ne ptr %buf2, null
  br i1 %ok2, label %fill2, label %done
fill2:
  store ptr %out, ptr %buf2, align 8
  %a2 = getelementptr inbounds i8, ptr %buf2, i64 8
  store i32 %n, ptr %a2, align 4
  %r2 = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf2, ptr null)
  br label %done
done:
  ret void
}

; @child alone (%n blocks of 32 threads).
define ptx_kernel void @alone(ptr %out, i32 %n) {
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
