; A nested child launch (the child itself launches). Serialization decides from the inside out: @mid's own
; launch of @leaf stays a launch (@leaf waits at a barrier), so @mid's threads launch kernels and @mid
; is launched (KLAP301); @mid2's launch of @plain is serialized, after which each thread of @mid2 runs
; @plain's 32 threads: a loop the threshold, counting @mid2's own 32 threads, would not see (1,024 bodies in
; the launching thread), so @mid2 is launched (KLAP305). The same with aggregation disabled, with SPAWN's
; controller and under auto (where @mid, @leaf and @mid2, launched, are aggregated).
; RUN: %opt -load-pass-plugin=%plugin -klap-disable-aggregate -klap-disable-malloc -passes='klap<granularity=grid;serialize;no-inline-runtime>' -pass-remarks=klap -pass-remarks-missed=klap -S %s -o %t.ll 2>%t.remarks
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks
; RUN: %opt -load-pass-plugin=%plugin -klap-disable-aggregate -klap-disable-malloc -passes='klap<granularity=grid;spawn;no-inline-runtime>' -pass-remarks=klap -pass-remarks-missed=klap -S %s -o %t.spawn.ll 2>%t.spawn.remarks
; RUN: FileCheck %s < %t.spawn.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.spawn.remarks
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=auto;no-inline-runtime>' -pass-remarks=klap -pass-remarks-missed=klap -S %s -o %t.auto.ll 2>%t.auto.remarks
; RUN: FileCheck --check-prefixes=CHECK,AUTO %s < %t.auto.ll
; RUN: FileCheck --check-prefixes=REMARK,AUTO-REMARK %s < %t.auto.remarks

; REMARK-DAG: remark: {{.*}}launch not serialized: the threads of @leaf cannot run one by one, nor a warp at a time: it waits at a barrier [KLAP301]
; REMARK-DAG: remark: {{.*}}launch not serialized: the threads of @mid cannot run one by one, nor a warp at a time: it launches kernels itself (in @mid) [KLAP301]
; REMARK-DAG: remark: {{.*}}launch of @plain serialized: the launching thread runs its 32 threads always [KLAP300]
; REMARK-DAG: remark: {{.*}}launch not serialized: each thread of @mid2 runs the threads of a serialized launch of its own: it is worth a thread of its own [KLAP305]
; REMARK-NOT: launch of @mid2 serialized
; AUTO-REMARK-DAG: remark: {{.*}}launch of @mid aggregated at grid granularity {{.*}} [KLAP200]
; AUTO-REMARK-DAG: remark: {{.*}}launch of @leaf aggregated at grid granularity {{.*}} [KLAP200]
; AUTO-REMARK-DAG: remark: {{.*}}launch of @mid2 aggregated at grid granularity {{.*}} [KLAP200]

; CHECK-LABEL: define ptx_kernel void @mid(
; CHECK-NOT:     __klap_serial
; CHECK:         call i32 @__cudaCDP2LaunchDeviceV2(
; CHECK-LABEL: define ptx_kernel void @mid2(
; CHECK-NOT:     __cudaCDP2LaunchDeviceV2
; CHECK:         call void @plain__klap_serial(ptr %out, i32 %k, i32 1, i32 1, i32 1, i32 32, i32 1, i32 1, i64 -1)
; CHECK-LABEL: define ptx_kernel void @parent(
; CHECK-NOT:     __klap_serial
; CHECK:         call ptr @__cudaCDP2GetParameterBufferV2(ptr @mid,
; CHECK:         call i32 @__cudaCDP2LaunchDeviceV2(
; AUTO:          call void @__klap_scope_launch(ptr {{%.*}}, i32 0, ptr @mid__klap, ptr @mid,
; CHECK-LABEL: define ptx_kernel void @parent2(
; CHECK-NOT:     @mid2__klap_serial
; CHECK:         call ptr @__cudaCDP2GetParameterBufferV2(ptr @mid2,
; CHECK:         call i32 @__cudaCDP2LaunchDeviceV2(
; AUTO:          call void @__klap_scope_launch(ptr {{%.*}}, i32 0, ptr @mid2__klap, ptr @mid2,
; CHECK-NOT:     @mid2__klap_serial
; CHECK-NOT:     @mid__klap_serial
; CHECK-NOT:     @leaf__klap_serial

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare void @llvm.nvvm.barrier0()

define ptx_kernel void @leaf(ptr %out, i32 %k) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  call void @llvm.nvvm.barrier0()
  %p = getelementptr inbounds i32, ptr %out, i32 %t
  store i32 %k, ptr %p, align 4
  ret void
}

define ptx_kernel void @plain(ptr %out, i32 %k) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %p = getelementptr inbounds i32, ptr %out, i32 %t
  store i32 %k, ptr %p, align 4
  ret void
}

define ptx_kernel void @mid(ptr %out, i32 %k) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %g, align 4
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @leaf, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  %ok = icmp ne ptr %buf, null
  br i1 %ok, label %fill, label %done
fill:
  store ptr %out, ptr %buf, align 8
  %a1 = getelementptr inbounds i8, ptr %buf, i64 8
  store i32 %k, ptr %a1, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  br label %done
done:
  ret void
}

define ptx_kernel void @mid2(ptr %out, i32 %k) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %g, align 4
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @plain, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  %ok = icmp ne ptr %buf, null
  br i1 %ok, label %fill, label %done
fill:
  store ptr %out, ptr %buf, align 8
  %a1 = getelementptr inbounds i8, ptr %buf, i64 8
  store i32 %k, ptr %a1, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  br label %done
done:
  ret void
}

define ptx_kernel void @parent(ptr %out, i32 %n) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %g, align 4
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @mid, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
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

define ptx_kernel void @parent2(ptr %out, i32 %n) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %g, align 4
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @mid2, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
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
