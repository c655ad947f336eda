; A child whose own launch of a reducing child was serialized with its reductions folded (always: 32 threads,
; KLAP321) runs that child's threads in a loop: serialized in turn, the loop would be work the threshold does
; not count, so @mid is launched (KLAP305), as after a plain serialized launch (shape-nested.ll).
; RUN: %opt -load-pass-plugin=%plugin -klap-disable-aggregate -klap-disable-malloc -passes='klap<granularity=grid;serialize;no-inline-runtime>' -pass-remarks=klap -pass-remarks-missed=klap -S %s -o %t.ll 2>%t.remarks
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks

; REMARK-DAG: remark: {{.*}}launch of @red serialized with its warp reductions folded: {{.*}}; its 32 threads always [KLAP321]
; REMARK-DAG: remark: {{.*}}launch not serialized: each thread of @mid runs the threads of a serialized launch of its own: it is worth a thread of its own [KLAP305]

; CHECK-LABEL: define ptx_kernel void @mid(
; CHECK-NOT:     __cudaCDP2LaunchDeviceV2
; CHECK:         call void @red__klap_reduced_serial(ptr %out, i32 1, i32 1, i32 1, i32 32, i32 1, i32 1, i64 -1)
; CHECK-LABEL: define ptx_kernel void @parent(
; CHECK:         call i32 @__cudaCDP2LaunchDeviceV2(

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.redux.sync.add(i32, i32)

define ptx_kernel void @red(ptr %out) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %s = call i32 @llvm.nvvm.redux.sync.add(i32 %t, i32 -1)
  %l = and i32 %t, 31
  %z = icmp eq i32 %l, 0
  br i1 %z, label %w, label %e
w:
  %r = atomicrmw add ptr %out, i32 %s monotonic, align 4
  br label %e
e:
  ret void
}

define ptx_kernel void @mid(ptr %out) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %g, align 4
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @red, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  %ok = icmp ne ptr %buf, null
  br i1 %ok, label %fill, label %done
fill:
  store ptr %out, ptr %buf, align 8
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr inttoptr (i64 4 to ptr))
  br label %done
done:
  ret void
}

define ptx_kernel void @parent(ptr %out) {
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
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr inttoptr (i64 4 to ptr))
  br label %done
done:
  ret void
}
