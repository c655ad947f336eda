; Serialization is kept out of a kernel that makes a launch klap leaves as written (KLAP323): fuzz case 3301-0
; with its created stream's launch made into cudaStreamPerThread instead (KLAP201: left as written) hung at
; `auto` on an H200 in every run, beside the children serialized in its device function, and passed at
; granularity none (BENCHMARKS.md, thirty-third session). A launch into the per-thread stream or a stream other
; than a single launch's stays as written, as does one the analysis cannot read.
; RUN: %opt -load-pass-plugin=%plugin -klap-disable-aggregate -klap-disable-malloc -passes='klap<granularity=grid;serialize;serialize-threshold=256;serialize-small-grid-threshold=0;no-inline-runtime>' -pass-remarks=klap -pass-remarks-missed=klap -S %s -o %t.ll 2>%t.remarks
; RUN: opt -passes=verify -disable-output %t.ll
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks

; REMARK-DAG: remark: {{.*}}launch not serialized: a launch into a per-thread stream is ordered after other work: it is launched [KLAP302]
; REMARK-DAG: remark: {{.*}}launch not serialized: @per_thread creates or destroys streams or events in the device runtime, or makes launches, that stay as written: {{.*}} [KLAP323]
; REMARK-DAG: remark: {{.*}}launch of @child serialized: {{.*}} [KLAP300]

; CHECK-LABEL: define ptx_kernel void @per_thread(
; CHECK:         call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
; CHECK:         call i32 @__cudaCDP2LaunchDeviceV2(ptr %bufp, ptr inttoptr (i64 2 to ptr))
; CHECK-LABEL: define ptx_kernel void @plain(
; CHECK-NOT:     __cudaCDP2LaunchDeviceV2
; CHECK:         call void @child__klap_serial(
; CHECK:         ret void
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()

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

; Its NULL-stream launch is kept: the kernel also launches into cudaStreamPerThread.
define ptx_kernel void @per_thread(ptr %out, i32 %n) {
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
  %rp = call i32 @__cudaCDP2LaunchDeviceV2(ptr %bufp, ptr inttoptr (i64 2 to ptr))
  br label %donep
donep:
  ret void
}

define ptx_kernel void @plain(ptr %out, i32 %n) {
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
  ret void
}
