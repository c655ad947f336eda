; Serialization is kept out of a kernel that creates or destroys streams in the device runtime that stay as
; written (KLAP323): a warp whose lanes were inside those calls while their warp-mates ran a serialized child
; stopped for good on an H200 (fuzz case 3301-0; the case passed with serialization off, BENCHMARKS.md,
; thirty-second session). Launches in the device functions such a kernel calls are kept too. A stream that
; carries one launch alone is not kept (the launch's transformation drops it), nor is a kernel without one.
; RUN: %opt -load-pass-plugin=%plugin -klap-disable-aggregate -klap-disable-malloc -passes='klap<granularity=grid;serialize;serialize-threshold=256;serialize-small-grid-threshold=0;no-inline-runtime>' -pass-remarks=klap -pass-remarks-missed=klap -S %s -o %t.ll 2>%t.remarks
; RUN: opt -passes=verify -disable-output %t.ll
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks

; REMARK-COUNT-2: remark: {{.*}}launch not serialized: @streams creates or destroys streams or events in the device runtime, or makes launches, that stay as written: {{.*}} [KLAP323]
; REMARK-COUNT-2: remark: {{.*}}launch of @child serialized: {{.*}} [KLAP300]
; REMARK-NOT: KLAP323

; CHECK-LABEL: define void @helper(
; CHECK:         call i32 @__cudaCDP2LaunchDeviceV2(
; CHECK-LABEL: define ptx_kernel void @streams(
; CHECK:         call i32 @__cudaCDP2LaunchDeviceV2(
; CHECK:         call i32 @__cudaCDP2StreamCreateWithFlags(
; CHECK:         call i32 @__cudaCDP2StreamDestroy(
; CHECK-LABEL: define ptx_kernel void @plain(
; CHECK-NOT:     __cudaCDP2LaunchDeviceV2
; CHECK:         call void @child__klap_serial(
; CHECK:         ret void
; CHECK-LABEL: define ptx_kernel void @single(
; CHECK-NOT:     __cudaCDP2StreamCreateWithFlags
; CHECK:         call void @child__klap_serial(
; CHECK:         ret void
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.tid.y()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare void @llvm.nvvm.barrier0()
declare i32 @__cudaCDP2StreamCreateWithFlags(ptr, i32)
declare i32 @__cudaCDP2StreamDestroy(ptr)

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
; A device function whose launch only @streams runs.
define void @helper(ptr %out, i32 %n) noinline {
entry:
  %gh = alloca %struct.dim3, align 4
  %bh = alloca %struct.dim3, align 4
  store %struct.dim3 { i32 4, i32 1, i32 1 }, ptr %gh, align 4
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %bh, align 4
  %bufh = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, ptr byval(%struct.dim3) align 4 %gh, ptr byval(%struct.dim3) align 4 %bh, i32 0)
  %okh = icmp ne ptr %bufh, null
  br i1 %okh, label %fillh, label %doneh
fillh:
  store ptr %out, ptr %bufh, align 8
  %ah = getelementptr inbounds i8, ptr %bufh, i64 8
  store i32 %n, ptr %ah, align 4
  %rh = call i32 @__cudaCDP2LaunchDeviceV2(ptr %bufh, ptr null)
  br label %doneh
doneh:
  ret void
}

; Its own launch and @helper's are kept: it creates and destroys a stream no launch takes.
define ptx_kernel void @streams(ptr %out, i32 %n) {
entry:
  call void @helper(ptr %out, i32 %n)
  %gs = alloca %struct.dim3, align 4
  %bs = alloca %struct.dim3, align 4
  store %struct.dim3 { i32 4, i32 1, i32 1 }, ptr %gs, align 4
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %bs, align 4
  %bufs = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, ptr byval(%struct.dim3) align 4 %gs, ptr byval(%struct.dim3) align 4 %bs, i32 0)
  %oks = icmp ne ptr %bufs, null
  br i1 %oks, label %fills, label %dones
fills:
  store ptr %out, ptr %bufs, align 8
  %as = getelementptr inbounds i8, ptr %bufs, i64 8
  store i32 %n, ptr %as, align 4
  %rs = call i32 @__cudaCDP2LaunchDeviceV2(ptr %bufs, ptr null)
  br label %dones
dones:
  %slot = alloca ptr, align 8
  %c = call i32 @__cudaCDP2StreamCreateWithFlags(ptr %slot, i32 1)
  %st = load ptr, ptr %slot, align 8
  %d = call i32 @__cudaCDP2StreamDestroy(ptr %st)
  ret void
}

define ptx_kernel void @plain(ptr %out, i32 %n) {
entry:
  %gp = alloca %struct.dim3, align 4
  %bp = alloca %struct.dim3, align 4
  store %struct.dim3 { i32 4, i32 1, i32 1 }, ptr %gp, align 4
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %bp, align 4
  %bufp = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, ptr byval(%struct.dim3) align 4 %gp, ptr byval(%struct.dim3) align 4 %bp, i32 0)
  %okp = icmp ne ptr %bufp, null
  br i1 %okp, label %fillp, label %donep
fillp:
  store ptr %out, ptr %bufp, align 8
  %ap = getelementptr inbounds i8, ptr %bufp, i64 8
  store i32 %n, ptr %ap, align 4
  %rp = call i32 @__cudaCDP2LaunchDeviceV2(ptr %bufp, ptr null)
  br label %donep
donep:
  ret void
}

; A stream created for one launch alone: serialization drops it.
define ptx_kernel void @single(ptr %out, i32 %n) {
entry:
  %slot = alloca ptr, align 8
  %c = call i32 @__cudaCDP2StreamCreateWithFlags(ptr %slot, i32 1)
  %st = load ptr, ptr %slot, align 8
  %go = alloca %struct.dim3, align 4
  %bo = alloca %struct.dim3, align 4
  store %struct.dim3 { i32 4, i32 1, i32 1 }, ptr %go, align 4
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %bo, align 4
  %bufo = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, ptr byval(%struct.dim3) align 4 %go, ptr byval(%struct.dim3) align 4 %bo, i32 0)
  %oko = icmp ne ptr %bufo, null
  br i1 %oko, label %fillo, label %doneo
fillo:
  store ptr %out, ptr %bufo, align 8
  %ao = getelementptr inbounds i8, ptr %bufo, i64 8
  store i32 %n, ptr %ao, align 4
  %ro = call i32 @__cudaCDP2LaunchDeviceV2(ptr %bufo, ptr %st)
  br label %doneo
doneo:
  %st2 = load ptr, ptr %slot, align 8
  %d = call i32 @__cudaCDP2StreamDestroy(ptr %st2)
  ret void
}
