; serialize-warp where the child takes a parameter by value (a pointer into the launching thread's own
; memory, which no other lane can read): each thread runs its child alone, as without serialize-warp, and the
; remark says why.
; RUN: %opt -load-pass-plugin=%plugin -klap-disable-aggregate -klap-disable-malloc -passes='klap<granularity=grid;serialize;serialize-threshold=256;serialize-warp;no-inline-runtime>' -pass-remarks=klap -S %s -o %t.ll 2>%t.remarks
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks

; REMARK: launch of @child serialized: the launching thread runs its 120 threads always; each thread alone (a parameter is by value or an aggregate: it cannot be shuffled between lanes) [KLAP300]
; CHECK-NOT: __klap_warp_serial
; CHECK: call void @child__klap_serial(
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }
%struct.pair = type { i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.y()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)

define internal i32 @block_of() {
  %c = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  ret i32 %c
}

define ptx_kernel void @child(ptr %out, ptr byval(%struct.pair) align 4 %pr) {
  %y = call i32 @llvm.nvvm.read.ptx.sreg.tid.y()
  %c = call i32 @block_of()
  %f = load i32, ptr %pr, align 4
  %s = add i32 %y, %c
  %v = add i32 %s, %f
  store i32 0, ptr %pr, align 4
  %p = getelementptr inbounds i32, ptr %out, i32 %s
  store i32 %v, ptr %p, align 4
  ret void
}

define ptx_kernel void @parent(ptr %out, ptr byval(%struct.pair) align 4 %in) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  store %struct.dim3 { i32 2, i32 3, i32 1 }, ptr %g, align 4
  store %struct.dim3 { i32 4, i32 5, i32 1 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  %ok = icmp ne ptr %buf, null
  br i1 %ok, label %fill, label %done
fill:
  store ptr %out, ptr %buf, align 8
  %a1 = getelementptr inbounds i8, ptr %buf, i64 8
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %a1, ptr align 4 %in, i64 8, i1 false)
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  br label %done
done:
  ret void
}

; Each thread's own copy of the by-value pair; tid.y is argument 3, and the device function gets all twelve.
