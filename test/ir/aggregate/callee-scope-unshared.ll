; A device function run by two kernels: one shares its scope, the other can end a thread without
; returning (KLAP212: no scope) and shares none. The launch joins the scope where it is run by the first
; (the remark names only it); run by the second, it finds no scope at run time (that kernel never writes
; its warps' keys) and is made as written.
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=block;no-inline-runtime>' -pass-remarks-analysis=klap -S %s -o %t.ll 2>%t.remarks
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, %struct.dim3, %struct.dim3, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare void @llvm.nvvm.exit()

define ptx_kernel void @child(ptr %out, i32 %v) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %p = getelementptr inbounds i32, ptr %out, i32 %t
  store i32 %v, ptr %p, align 4
  ret void
}

; REMARK: the launch is in a device function: it joins the block scope of the kernel running it (@shares); run by any other kernel, it is made as written [KLAP214]
; CHECK-LABEL: define void @helper(
; CHECK:         [[SCOPE:%.*]] = call ptr @__klap_callee_scope()
; CHECK-NEXT:    call ptr @__klap_scope_register(ptr [[SCOPE]], i32 0,
; CHECK:         call i32 @__cudaCDP2LaunchDeviceV2(
define void @helper(ptr %out, i32 %v) {
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, %struct.dim3 { i32 1, i32 1, i32 1 }, %struct.dim3 { i32 32, i32 1, i32 1 }, i32 0)
  store ptr %out, ptr %buf, align 8
  %a = getelementptr inbounds i8, ptr %buf, i64 8
  store i32 %v, ptr %a, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  ret void
}

; CHECK-LABEL: define ptx_kernel void @shares(
; CHECK-NEXT:    [[OWN:%.*]] = call ptr @__klap_block_enter(i32 1, i32 12,
; CHECK-NEXT:    call void @__klap_share_scope(ptr [[OWN]])
; CHECK:         call void @__klap_scope_launch(ptr [[OWN]], i32 0, ptr @child__klap, ptr @child,
define ptx_kernel void @shares(ptr %out) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  call void @helper(ptr %out, i32 %t)
  ret void
}

; CHECK-LABEL: define ptx_kernel void @exits(
; CHECK-NOT:     __klap_
; CHECK:         ret void
define ptx_kernel void @exits(ptr %out) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  call void @helper(ptr %out, i32 %t)
  %quit = icmp ugt i32 %t, 1000
  br i1 %quit, label %stop, label %done
stop:
  call void @llvm.nvvm.exit()
  unreachable
done:
  ret void
}
