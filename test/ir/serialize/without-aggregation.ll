; Without aggregation (granularity none), every launch that serialization does not remove stays as written, its
; own launches for larger children too, and lanes making those launches beside warp-mates running a serialized
; child hung on an H200 (test/gpu's devfn_launch, warp_reduce and runtime_calls_beside_serialized, built with
; -klap-serialize at granularity none, killed after 30 s; BENCHMARKS.md, thirty-fourth session). So a kernel
; is serialized there only where each of its launches is, with no check at run time (KLAP323).
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=none;serialize;serialize-threshold=256;serialize-small-grid-threshold=0;no-inline-runtime>' -pass-remarks=klap -pass-remarks-missed=klap -S %s -o %t.ll 2>%t.remarks
; RUN: opt -passes=verify -disable-output %t.ll
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks

; REMARK-DAG: remark: {{.*}}launch not serialized: @runtime_sized {{.*}} that stay as written: {{.*}}; with no aggregation, every launch not serialized with no check at run time stays so, a serialized one's launch for larger children too [KLAP323]
; REMARK-DAG: remark: {{.*}}launch not serialized: @mixed {{.*}} [KLAP323]
; REMARK-DAG: remark: {{.*}}launch of @child serialized: the launching thread runs its 128 threads always [KLAP300]

; CHECK-LABEL: define ptx_kernel void @runtime_sized(
; CHECK-NOT:     call void @child__klap_serial(
; CHECK:         call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
; CHECK-LABEL: define ptx_kernel void @constant_only(
; CHECK-NOT:     __cudaCDP2LaunchDeviceV2
; CHECK:         call void @child__klap_serial(
; CHECK-NOT:     __cudaCDP2LaunchDeviceV2
; CHECK:         ret void
; CHECK-LABEL: define ptx_kernel void @mixed(
; CHECK-NOT:     call void @child__klap_serial(
; CHECK:         call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
; CHECK-NOT:     call void @child__klap_serial(
; CHECK:         call i32 @__cudaCDP2LaunchDeviceV2(ptr %bufr, ptr null)
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

; Its child's blocks are known at run time only: serialized, it would launch the larger ones as written.
define ptx_kernel void @runtime_sized(ptr %out, i32 %n) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  %gx = getelementptr inbounds %struct.dim3, ptr %g, i32 0, i32 0
  store i32 %n, ptr %gx, align 4
  %gy = getelementptr inbounds %struct.dim3, ptr %g, i32 0, i32 1
  store i32 1, ptr %gy, align 4
  %gz = getelementptr inbounds %struct.dim3, ptr %g, i32 0, i32 2
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

; Its one launch is serialized always: nothing of it is left.
define ptx_kernel void @constant_only(ptr %out, i32 %n) {
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

; A launch serialized always beside one of a size known at run time: both stay.
define ptx_kernel void @mixed(ptr %out, i32 %n) {
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
  %gr = alloca %struct.dim3, align 4
  %br = alloca %struct.dim3, align 4
  %grx = getelementptr inbounds %struct.dim3, ptr %gr, i32 0, i32 0
  store i32 %n, ptr %grx, align 4
  %gry = getelementptr inbounds %struct.dim3, ptr %gr, i32 0, i32 1
  store i32 1, ptr %gry, align 4
  %grz = getelementptr inbounds %struct.dim3, ptr %gr, i32 0, i32 2
  store i32 1, ptr %grz, align 4
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %br, align 4
  %bufr = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, ptr byval(%struct.dim3) align 4 %gr, ptr byval(%struct.dim3) align 4 %br, i32 0)
  %okr = icmp ne ptr %bufr, null
  br i1 %okr, label %fillr, label %doner
fillr:
  store ptr %out, ptr %bufr, align 8
  %ar = getelementptr inbounds i8, ptr %bufr, i64 8
  store i32 %n, ptr %ar, align 4
  %rr = call i32 @__cudaCDP2LaunchDeviceV2(ptr %bufr, ptr null)
  br label %doner
doner:
  ret void
}
