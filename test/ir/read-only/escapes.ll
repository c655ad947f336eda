; A launching kernel's `noalias` pointer that escapes other than into a launch's parameter buffer stays
; as written, with a missed remark saying where: stored to a global, passed to a function of another unit.
; Launches that stay as written (nothing aggregates them at granularity none; promotion acts only on chains).
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=none;promote=loop>' -pass-remarks-missed=klap -S %s -o %t.ll 2>%t.remarks
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks

; CHECK-LABEL: define ptx_kernel void @stored(ptr noalias %p)
; CHECK-LABEL: define ptx_kernel void @called(ptr noalias %p)
; REMARK-DAG: remark: {{.*}}parameter not marked readonly: parameter 0 of @called: it is passed to a call that may write through it or keep it [KLAP611]
; REMARK-DAG: remark: {{.*}}parameter not marked readonly: parameter 0 of @stored: it is stored to memory other than a recognized launch's parameter buffer [KLAP611]

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

@kept = addrspace(1) global ptr null

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare void @elsewhere(ptr)

define ptx_kernel void @stored(ptr noalias %p) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  store ptr %p, ptr addrspacecast (ptr addrspace(1) @kept to ptr), align 8
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %g, align 4
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @reader, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  store ptr %p, ptr %buf, align 8
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  ret void
}

define ptx_kernel void @called(ptr noalias %p) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  call void @elsewhere(ptr %p)
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %g, align 4
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @reader, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  store ptr %p, ptr %buf, align 8
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  ret void
}

define ptx_kernel void @reader(ptr %r) {
  %v = load volatile i32, ptr %r, align 4
  ret void
}
