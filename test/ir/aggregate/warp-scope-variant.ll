; At warp granularity a kernel that launches itself in a loop takes a warp scope (KLAP213) in its
; aggregated variant as well: there the warp's threads are those serving the record's block (the
; child's block size, not the launch's physical block), and the scope's launches are made once they
; have all returned.
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=warp;no-inline-runtime>' -S %s -o - | FileCheck %s

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

; CHECK-LABEL: define ptx_kernel void @rec(
; CHECK:         [[THREADS:%.*]] = trunc i64 {{%.*}} to i32
; CHECK-NEXT:    [[SCOPE:%.*]] = call ptr @__klap_warp_enter(i32 [[THREADS]], i32 1, i32 4, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0)
; CHECK:       loop:
; CHECK:         call ptr @__klap_scope_register(ptr [[SCOPE]], i32 0,
; CHECK:         call i64 @__klap_warp_scope_threads(ptr [[SCOPE]])
; CHECK:         call void @__klap_scope_launch(ptr [[SCOPE]], i32 0, ptr @rec__klap, ptr @rec,

; CHECK-LABEL: define ptx_kernel void @rec__klap(
; CHECK:         [[VTHREADS:%.*]] = call i64 @__klap_child_block_threads()
; CHECK-NEXT:    [[VT32:%.*]] = trunc i64 [[VTHREADS]] to i32
; CHECK-NEXT:    [[VSCOPE:%.*]] = call ptr @__klap_warp_enter(i32 [[VT32]], i32 1, i32 4,
; CHECK:         call ptr @__klap_scope_register(ptr [[VSCOPE]], i32 0,
; CHECK:         call i64 @__klap_warp_scope_threads(ptr [[VSCOPE]])
; CHECK:         call void @__klap_scope_launch(ptr [[VSCOPE]], i32 0, ptr @rec__klap, ptr @rec,
define ptx_kernel void @rec(i32 %depth) {
entry:
  %stop = icmp eq i32 %depth, 0
  br i1 %stop, label %exit, label %loop
loop:
  %k = phi i32 [ 0, %entry ], [ %k1, %after ]
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %g, align 4
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @rec, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  %ok = icmp ne ptr %buf, null
  br i1 %ok, label %fill, label %after
fill:
  %d1 = sub i32 %depth, 1
  store i32 %d1, ptr %buf, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  br label %after
after:
  %k1 = add i32 %k, 1
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %more = icmp ult i32 %k1, %tid
  br i1 %more, label %loop, label %exit
exit:
  ret void
}
