; Coarsening takes only children whose threads need nothing of each other. Not coarsened (KLAP621 says
; why), their aggregated launches without the factor (12 | ARGS_IN_PARAMS = 1073741836): a child with
; shared memory, a child that launches a kernel itself (a nested launch), and a kernel that launches
; itself (recursion). The nested child's own child, which needs nothing, is coarsened (KLAP620), its
; launch from @mid's aggregated variant with the factor (1610874892).
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=grid;no-inline-runtime;coarsen=4>' -pass-remarks=klap -pass-remarks-missed=klap -S %s -o %t.ll 2>%t.remarks
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks

; REMARK-DAG: remark: {{.*}}child not coarsened: each block of @shared_child's aggregated child runs one aggregated block: it uses shared memory [KLAP621]
; REMARK-DAG: remark: {{.*}}child not coarsened: each block of @mid's aggregated child runs one aggregated block: it launches kernels itself (in @mid) [KLAP621]
; REMARK-DAG: remark: {{.*}}child not coarsened: each block of @rec's aggregated child runs one aggregated block: it launches kernels itself (in @rec) [KLAP621]
; REMARK-DAG: remark: {{.*}}each block of @leaf's aggregated child runs up to 4 aggregated blocks, one after another{{.*}} [KLAP620]
; REMARK-NOT: KLAP620

; CHECK-LABEL: define ptx_kernel void @mid(
; CHECK:         call void @__klap_scope_launch(ptr {{%.*}}, i32 0, ptr @leaf__klap, ptr @leaf, i32 1610874892,
; CHECK-LABEL: define ptx_kernel void @rec(
; CHECK:         call void @__klap_scope_launch(ptr {{%.*}}, i32 0, ptr @rec__klap, ptr @rec, i32 1073741836,
; CHECK-LABEL: define ptx_kernel void @parent(
; CHECK-DAG:     call void @__klap_scope_launch(ptr {{%.*}}, i32 {{[0-9]}}, ptr @shared_child__klap, ptr @shared_child, i32 1073741836,
; CHECK-DAG:     call void @__klap_scope_launch(ptr {{%.*}}, i32 {{[0-9]}}, ptr @mid__klap, ptr @mid, i32 1073741836,
; CHECK-LABEL: define ptx_kernel void @leaf__klap(
; CHECK:         call i64 @__klap_child_coarse_range(
; CHECK-LABEL: define ptx_kernel void @rec__klap(
; CHECK-NOT:     coarse
; CHECK:         call void @__klap_scope_launch(ptr {{%.*}}, i32 0, ptr @rec__klap, ptr @rec, i32 1073741836,
; CHECK-NOT:     coarse
; CHECK-LABEL: define ptx_kernel void @shared_child__klap(
; CHECK-NOT:     coarse
; CHECK:         store i32 %k, ptr addrspace(3)
; CHECK-NOT:     coarse
; CHECK-LABEL: define ptx_kernel void @mid__klap(
; CHECK-NOT:     coarse
; CHECK:         call void @__klap_scope_launch(ptr {{%.*}}, i32 0, ptr @leaf__klap, ptr @leaf, i32 1610874892,
; CHECK-NOT:     coarse
; CHECK:       }

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

@tile = internal addrspace(3) global [32 x i32] undef, align 4

define ptx_kernel void @leaf(ptr %out, i32 %k) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %p = getelementptr inbounds i32, ptr %out, i32 %t
  store i32 %k, ptr %p, align 4
  ret void
}

define ptx_kernel void @shared_child(ptr %out, i32 %k) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %sp = getelementptr inbounds [32 x i32], ptr addrspace(3) @tile, i32 0, i32 %t
  store i32 %k, ptr addrspace(3) %sp, align 4
  %p = getelementptr inbounds i32, ptr %out, i32 %t
  store i32 %k, ptr %p, align 4
  ret void
}

define ptx_kernel void @mid(ptr %out, i32 %k) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  store %struct.dim3 { i32 2, i32 1, i32 1 }, ptr %g, align 4
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

define ptx_kernel void @rec(ptr %out, i32 %k) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %p = getelementptr inbounds i32, ptr %out, i32 %t
  store i32 %k, ptr %p, align 4
  %more = icmp sgt i32 %k, 0
  br i1 %more, label %go, label %done
go:
  %k1 = sub i32 %k, 1
  store %struct.dim3 { i32 2, i32 1, i32 1 }, ptr %g, align 4
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

define ptx_kernel void @parent(ptr %out, i32 %n) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  store %struct.dim3 { i32 2, i32 1, i32 1 }, ptr %g, align 4
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %b, align 4
  %b1 = call ptr @__cudaCDP2GetParameterBufferV2(ptr @shared_child, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  %ok1 = icmp ne ptr %b1, null
  br i1 %ok1, label %fill1, label %next
fill1:
  store ptr %out, ptr %b1, align 8
  %a1 = getelementptr inbounds i8, ptr %b1, i64 8
  store i32 %n, ptr %a1, align 4
  %r1 = call i32 @__cudaCDP2LaunchDeviceV2(ptr %b1, ptr null)
  br label %next
next:
  %b2 = call ptr @__cudaCDP2GetParameterBufferV2(ptr @mid, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  %ok2 = icmp ne ptr %b2, null
  br i1 %ok2, label %fill2, label %done
fill2:
  store ptr %out, ptr %b2, align 8
  %a2 = getelementptr inbounds i8, ptr %b2, i64 8
  store i32 %n, ptr %a2, align 4
  %r2 = call i32 @__cudaCDP2LaunchDeviceV2(ptr %b2, ptr null)
  br label %done
done:
  ret void
}
