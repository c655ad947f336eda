; A parent's `noalias` pointers passed to children: the one whose child only reads through it is marked
; readonly, the one whose child writes through it is not (KLAP611 names the child and its parameter).
; Launches that stay as written (nothing aggregates them at granularity none; promotion acts only on chains).
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=none;promote=loop>' -pass-remarks=klap -pass-remarks-missed=klap -S %s -o %t.ll 2>%t.remarks
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks

; CHECK-LABEL: define ptx_kernel void @parent(ptr noalias %p, ptr noalias readonly %q)
; CHECK-LABEL: define ptx_kernel void @writer(ptr %w)
; CHECK-LABEL: define ptx_kernel void @reader(ptr %r)
; REMARK-DAG: remark: {{.*}}parameter 1 of @parent marked readonly: the kernel only reads through it and passes it to launches of @reader, which only read through it; it is `noalias`: its loads take the read-only data path (ld.global.nc) [KLAP610]
; REMARK-DAG: remark: {{.*}}parameter not marked readonly: parameter 0 of @parent: it is passed to a launch of a kernel that may write through it (@writer, its parameter 0) [KLAP611]

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

define ptx_kernel void @parent(ptr noalias %p, ptr noalias %q) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %pq = getelementptr inbounds i32, ptr %q, i32 %t
  %x = load i32, ptr %pq, align 4
  %pp = getelementptr inbounds i32, ptr %p, i32 %t
  %y = load i32, ptr %pp, align 4
  %both = add i32 %x, %y
  %go = icmp sgt i32 %both, 0
  br i1 %go, label %launch, label %done
launch:
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %g, align 4
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @writer, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  store ptr %pp, ptr %buf, align 8
  %r1 = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  %buf2 = call ptr @__cudaCDP2GetParameterBufferV2(ptr @reader, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  store ptr %pq, ptr %buf2, align 8
  %r2 = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf2, ptr null)
  br label %done
done:
  ret void
}

define ptx_kernel void @writer(ptr %w) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %pw = getelementptr inbounds i32, ptr %w, i32 %t
  store i32 %t, ptr %pw, align 4
  ret void
}

define ptx_kernel void @reader(ptr %r) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %pr = getelementptr inbounds i32, ptr %r, i32 %t
  %v = load volatile i32, ptr %pr, align 4
  ret void
}
