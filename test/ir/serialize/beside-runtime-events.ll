; Serialization is kept out of a kernel that creates or destroys events in the device runtime (KLAP323), as
; out of one that does so with streams: fuzz case 3301-0 with its streams' create and destroy turned into an
; event's hung at `auto` on an H200 in every run, and passed at granularity none (BENCHMARKS.md, thirty-third
; session). Recording an event needs one created in the same block, so the create alone decides; device
; `cudaMalloc`/`cudaFree` in the same place did not hang and keep nothing.
; RUN: %opt -load-pass-plugin=%plugin -klap-disable-aggregate -klap-disable-malloc -passes='klap<granularity=grid;serialize;serialize-threshold=256;serialize-small-grid-threshold=0;no-inline-runtime>' -pass-remarks=klap -pass-remarks-missed=klap -S %s -o %t.ll 2>%t.remarks
; RUN: opt -passes=verify -disable-output %t.ll
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks

; REMARK: remark: {{.*}}launch not serialized: @events creates or destroys streams or events in the device runtime, or makes launches, that stay as written: {{.*}} [KLAP323]
; REMARK: remark: {{.*}}launch of @child serialized: {{.*}} [KLAP300]
; REMARK-NOT: KLAP323

; CHECK-LABEL: define ptx_kernel void @events(
; CHECK:         call i32 @__cudaCDP2LaunchDeviceV2(
; CHECK:         call i32 @__cudaCDP2EventCreateWithFlags(
; CHECK:         call i32 @__cudaCDP2EventDestroy(
; CHECK-LABEL: define ptx_kernel void @heap(
; CHECK-NOT:     __cudaCDP2LaunchDeviceV2
; CHECK:         call void @child__klap_serial(
; CHECK:         call i32 @__cudaCDP2Malloc(
; CHECK:         ret void
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare i32 @__cudaCDP2EventCreateWithFlags(ptr, i32)
declare i32 @__cudaCDP2EventDestroy(ptr)
declare i32 @__cudaCDP2Malloc(ptr, i64)
declare i32 @__cudaCDP2Free(ptr)

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

; Its launch is kept: it creates and destroys an event (cudaEventDisableTiming).
define ptx_kernel void @events(ptr %out, i32 %n) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  store %struct.dim3 { i32 4, i32 1, i32 1 }, ptr %g, align 4
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
  %slot = alloca ptr, align 8
  %c = call i32 @__cudaCDP2EventCreateWithFlags(ptr %slot, i32 2)
  %ev = load ptr, ptr %slot, align 8
  %d = call i32 @__cudaCDP2EventDestroy(ptr %ev)
  ret void
}

; Device cudaMalloc/cudaFree keep nothing: the same case with them ran at `auto`.
define ptx_kernel void @heap(ptr %out, i32 %n) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  store %struct.dim3 { i32 4, i32 1, i32 1 }, ptr %g, align 4
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
  %slot = alloca ptr, align 8
  %m = call i32 @__cudaCDP2Malloc(ptr %slot, i64 64)
  %p = load ptr, ptr %slot, align 8
  %f = call i32 @__cudaCDP2Free(ptr %p)
  ret void
}
