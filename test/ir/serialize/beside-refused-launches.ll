; Serialization is kept out of a kernel that makes a launch aggregation will leave as written (KLAP323): the
; pattern of test/gpu/runtime_calls_beside_serialized.cu with a launch of a child that reads %tid in inline
; assembly (KLAP211) hung at `auto` on an H200 in 3 of 3 runs, beside the children serialized in its device
; function, and passed at granularity none (BENCHMARKS.md, thirty-fourth session). Serialization asks
; aggregation which launches it will refuse: a child it cannot remap (KLAP211) or one defined in another
; translation unit (KLAP203). The kernels' other launches are aggregated instead.
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=grid;serialize;serialize-threshold=256;serialize-small-grid-threshold=0;no-inline-runtime>' -pass-remarks=klap -pass-remarks-missed=klap -S %s -o %t.ll 2>%t.remarks
; RUN: opt -passes=verify -disable-output %t.ll
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks

; REMARK-DAG: remark: {{.*}}launch not serialized: @asm_index creates or destroys streams or events in the device runtime, or makes launches, that stay as written: {{.*}} [KLAP323]
; REMARK-DAG: remark: {{.*}}launch not serialized: @elsewhere creates or destroys streams or events in the device runtime, or makes launches, that stay as written: {{.*}} [KLAP323]
; REMARK-DAG: remark: {{.*}}launch not aggregated: @asm_child reads %tid in inline assembly, {{.*}} [KLAP211]
; REMARK-DAG: remark: {{.*}}launch not aggregated: @remote is defined in another translation unit [KLAP203]
; REMARK-DAG: remark: {{.*}}launch of @child serialized: {{.*}} [KLAP300]

; CHECK-LABEL: define internal void @launch_child(
; CHECK-NOT:     call void @child__klap_serial(
; CHECK:         ret void
; CHECK-LABEL: define ptx_kernel void @asm_index(
; CHECK-NOT:     call void @child__klap_serial(
; CHECK:         call i32 @__cudaCDP2LaunchDeviceV2(ptr %bufa, ptr null)
; CHECK-LABEL: define ptx_kernel void @elsewhere(
; CHECK-NOT:     call void @child__klap_serial(
; CHECK:         call i32 @__cudaCDP2LaunchDeviceV2(ptr %bufr, ptr null)
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
declare ptx_kernel void @remote(ptr, i32)

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

define ptx_kernel void @asm_child(ptr %out, i32 %k) {
  %t = call i32 asm "mov.u32 $0, %tid.x;", "=r"()
  %p = getelementptr inbounds i32, ptr %out, i32 %t
  store i32 %k, ptr %p, align 4
  ret void
}

; Launches @child (4 x 32 threads).
define internal void @launch_child(ptr %out, i32 %n) {
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

; Its launch of @child is kept from serialization: it also launches @asm_child, which aggregation refuses.
define ptx_kernel void @asm_index(ptr %out, i32 %n) {
entry:
  call void @launch_child(ptr %out, i32 %n)
  %ga = alloca %struct.dim3, align 4
  %ba = alloca %struct.dim3, align 4
  store %struct.dim3 { i32 2, i32 1, i32 1 }, ptr %ga, align 4
  store %struct.dim3 { i32 64, i32 1, i32 1 }, ptr %ba, align 4
  %bufa = call ptr @__cudaCDP2GetParameterBufferV2(ptr @asm_child, ptr byval(%struct.dim3) align 4 %ga, ptr byval(%struct.dim3) align 4 %ba, i32 0)
  %oka = icmp ne ptr %bufa, null
  br i1 %oka, label %filla, label %donea
filla:
  store ptr %out, ptr %bufa, align 8
  %aa = getelementptr inbounds i8, ptr %bufa, i64 8
  store i32 %n, ptr %aa, align 4
  %ra = call i32 @__cudaCDP2LaunchDeviceV2(ptr %bufa, ptr null)
  br label %donea
donea:
  ret void
}

; The same with its launch of @child in the kernel and a launch of @remote, defined in another translation unit.
define ptx_kernel void @elsewhere(ptr %out, i32 %n) {
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
  store %struct.dim3 { i32 2, i32 1, i32 1 }, ptr %gr, align 4
  store %struct.dim3 { i32 64, i32 1, i32 1 }, ptr %br, align 4
  %bufr = call ptr @__cudaCDP2GetParameterBufferV2(ptr @remote, ptr byval(%struct.dim3) align 4 %gr, ptr byval(%struct.dim3) align 4 %br, i32 0)
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
