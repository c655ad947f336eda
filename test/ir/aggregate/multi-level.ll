; Three levels at grid granularity: @top launches @mid, whose aggregated variant launches @leaf. The
; variant of @mid has a grid scope of its own, which waits for the threads the chunks of @mid count:
; @top's group for @mid sets bit 31 of its record size (12 | 1 << 31). @leaf launches nothing, so the
; group of @mid__klap for @leaf does not, and @leaf__klap has no scope.
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=grid;no-inline-runtime>' -S %s -o - | FileCheck %s

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

; CHECK-LABEL: define ptx_kernel void @top(
; CHECK:         call ptr @__klap_grid_enter(i32 1, i32 -2147483636, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0)
; CHECK:         call void @__klap_scope_launch(ptr {{%.*}}, i32 0, ptr @mid__klap, ptr @mid,
define ptx_kernel void @top(ptr %out, i32 %n) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  store %struct.dim3 { i32 2, i32 1, i32 1 }, ptr %g, align 4
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @mid, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  %ok = icmp ne ptr %buf, null
  br i1 %ok, label %fill, label %done
fill:
  store ptr %out, ptr %buf, align 8
  %a1 = getelementptr inbounds i8, ptr %buf, i64 8
  store i32 %t, ptr %a1, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  br label %done
done:
  ret void
}

; CHECK-LABEL: define ptx_kernel void @mid__klap(ptr %out, i32 %base, ptr %klap.chunk)
; CHECK:         call ptr @__klap_child_grid_scope()
; CHECK:         call void @__klap_scope_launch(ptr {{%.*}}, i32 0, ptr @leaf__klap, ptr @leaf,
define ptx_kernel void @mid(ptr %out, i32 %base) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = add i32 %base, %t
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
  store i32 %i, ptr %a1, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  br label %done
done:
  ret void
}

; CHECK-LABEL: define ptx_kernel void @leaf__klap(ptr %out, i32 %i, ptr %klap.chunk)
; CHECK-NOT:     @__klap_grid_enter
; CHECK:         ret void
define ptx_kernel void @leaf(ptr %out, i32 %i) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %j = add i32 %i, %t
  %p = getelementptr inbounds i32, ptr %out, i32 %j
  store i32 1, ptr %p, align 4
  ret void
}
