; In a kernel that makes a call klap cannot see into (here CUDA's device runtime's stream creation), each
; branch to the kernel's one return block gets a return of its own before the scope's exit goes in at
; every return: threads that return early count themselves out and end there, instead of waiting where
; the warp reconverges at a shared exit (fuzz case 1953-8: such a call made meanwhile by the rest of the
; warp hung). Not past 8 branches to one return (the exit is copied to each), and not in a kernel whose
; calls are all klap's or launches (@plain: its returns stay one).
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=block;no-inline-runtime>' -S %s -o - | FileCheck %s

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @__cudaCDP2StreamCreateWithFlags(ptr, i32)

define ptx_kernel void @child(ptr %out) {
  %i = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %p = getelementptr inbounds i32, ptr %out, i32 %i
  store i32 %i, ptr %p, align 4
  ret void
}

; CHECK-LABEL: define ptx_kernel void @parent(
; CHECK:       entry:
; CHECK:         br i1 %early, label %[[RETURN:.*]], label %work
; CHECK:       work:
; CHECK:         br label %[[OWN:klap.return[0-9]*]]
; CHECK:       [[OWN]]:
; CHECK:         {{.*}} = call i1 @__klap_scope_exit(
; CHECK:         ret void
; CHECK:       [[RETURN]]:
; CHECK:         {{.*}} = call i1 @__klap_scope_exit(
; CHECK:         ret void
define ptx_kernel void @parent(ptr %out, i32 %n) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %early = icmp uge i32 %t, %n
  br i1 %early, label %done, label %work
work:
  %s = alloca ptr, align 8
  %c = call i32 @__cudaCDP2StreamCreateWithFlags(ptr %s, i32 1)
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %g, align 4
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  store ptr %out, ptr %buf, align 8
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  br label %done
done:
  ret void
}

; CHECK-LABEL: define ptx_kernel void @plain(
; CHECK-NOT:     klap.return
; CHECK:         call i1 @__klap_scope_exit(
; CHECK-NOT:     call i1 @__klap_scope_exit(
; CHECK:       }
define ptx_kernel void @plain(ptr %out, i32 %n) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %early = icmp uge i32 %t, %n
  br i1 %early, label %done, label %work
work:
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %g, align 4
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  store ptr %out, ptr %buf, align 8
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  br label %done
done:
  ret void
}
