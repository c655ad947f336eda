; Children whose threads talk within their warp but also need something beyond it are not run by the
; launching warp (nor serialized): one that uses shared memory, one that launches a kernel itself (a
; nested launch), and a kernel that launches itself (recursion). Each stays a launch, and KLAP301 says
; why the warp cannot run it. No warp-run or serial variant is made.
; RUN: %opt -load-pass-plugin=%plugin -klap-disable-aggregate -klap-disable-malloc -passes='klap<granularity=grid;serialize;no-inline-runtime>' -pass-remarks=klap -pass-remarks-missed=klap -S %s -o %t.ll 2>%t.remarks
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks

; REMARK-DAG: remark: {{.*}}launch not serialized: the threads of @shared_child cannot run one by one: it exchanges values within a warp; nor a warp at a time: it uses shared memory [KLAP301]
; REMARK-DAG: remark: {{.*}}launch not serialized: the threads of @nesting cannot run one by one, nor a warp at a time: it launches kernels itself (in @nesting) [KLAP301]
; REMARK-DAG: remark: {{.*}}launch not serialized: the threads of @rec cannot run one by one, nor a warp at a time: it launches kernels itself (in @rec) [KLAP301]
; REMARK-DAG: remark: {{.*}}launch of @leaf run by the launching warp: {{.*}}its 32 threads{{.*}} [KLAP308]
; REMARK-NOT: KLAP300

; CHECK-NOT:     __klap_warp_run
; CHECK-NOT:     __klap_serial
; The nested child's own launch of @leaf is run by its warp (a launch as written remains for when the
; warp cannot), so @nesting still launches.
; CHECK-LABEL: define ptx_kernel void @nesting(
; CHECK:         call void @leaf__klap_warp_run(
; CHECK:         call ptr @__cudaCDP2GetParameterBufferV2(ptr @leaf,
; CHECK:         call i32 @__cudaCDP2LaunchDeviceV2(
; CHECK-LABEL: define ptx_kernel void @rec(
; CHECK-NOT:     __klap_warp_run
; CHECK:         call ptr @__cudaCDP2GetParameterBufferV2(ptr @rec,
; CHECK:         call i32 @__cudaCDP2LaunchDeviceV2(
; CHECK-LABEL: define ptx_kernel void @parent_shared(
; CHECK-NOT:     __klap_warp_run
; CHECK:         call ptr @__cudaCDP2GetParameterBufferV2(ptr @shared_child,
; CHECK:         call i32 @__cudaCDP2LaunchDeviceV2(
; CHECK-LABEL: define ptx_kernel void @parent_nesting(
; CHECK-NOT:     __klap_warp_run
; CHECK:         call ptr @__cudaCDP2GetParameterBufferV2(ptr @nesting,
; CHECK:         call i32 @__cudaCDP2LaunchDeviceV2(
; CHECK-NOT:     @shared_child__klap
; CHECK-NOT:     @nesting__klap
; CHECK-NOT:     @rec__klap
; CHECK-LABEL: define internal void @leaf__klap_warp_run(

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.shfl.sync.down.i32(i32, i32, i32, i32)

@tile = internal addrspace(3) global [32 x i32] undef, align 4

define ptx_kernel void @leaf(ptr %out, i32 %k) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %v = call i32 @llvm.nvvm.shfl.sync.down.i32(i32 -1, i32 %k, i32 1, i32 31)
  %p = getelementptr inbounds i32, ptr %out, i32 %t
  store i32 %v, ptr %p, align 4
  ret void
}

define ptx_kernel void @shared_child(ptr %out, i32 %k) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %v = call i32 @llvm.nvvm.shfl.sync.down.i32(i32 -1, i32 %k, i32 1, i32 31)
  %sp = getelementptr inbounds [32 x i32], ptr addrspace(3) @tile, i32 0, i32 %t
  store i32 %v, ptr addrspace(3) %sp, align 4
  %p = getelementptr inbounds i32, ptr %out, i32 %t
  store i32 %v, ptr %p, align 4
  ret void
}

; Shuffles, then launches @leaf: a nested launch.
define ptx_kernel void @nesting(ptr %out, i32 %k) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  %v = call i32 @llvm.nvvm.shfl.sync.down.i32(i32 -1, i32 %k, i32 1, i32 31)
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %g, align 4
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @leaf, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  %ok = icmp ne ptr %buf, null
  br i1 %ok, label %fill, label %done
fill:
  store ptr %out, ptr %buf, align 8
  %a1 = getelementptr inbounds i8, ptr %buf, i64 8
  store i32 %v, ptr %a1, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  br label %done
done:
  ret void
}

; Shuffles, then launches itself while %k is positive.
define ptx_kernel void @rec(ptr %out, i32 %k) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %v = call i32 @llvm.nvvm.shfl.sync.down.i32(i32 -1, i32 %k, i32 1, i32 31)
  %p = getelementptr inbounds i32, ptr %out, i32 %t
  store i32 %v, ptr %p, align 4
  %more = icmp sgt i32 %k, 0
  br i1 %more, label %go, label %done
go:
  %k1 = sub i32 %k, 1
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %g, align 4
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @rec, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  %ok = icmp ne ptr %buf, null
  br i1 %ok, label %fill, label %done
fill:
  store ptr %out, ptr %buf, align 8
  %a1 = getelementptr inbounds i8, ptr %buf, i64 8
  store i32 %k1, ptr %a1, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  br label %done
done:
  ret void
}

define ptx_kernel void @parent_shared(ptr %out, i32 %n) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %g, align 4
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @shared_child, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
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

define ptx_kernel void @parent_nesting(ptr %out, i32 %n) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %g, align 4
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @nesting, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
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
