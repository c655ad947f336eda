; At warp granularity, a kernel gathers each warp's launches in a warp scope, made when the warp's last
; thread returns (KLAP213): launches made where they are reached hung in the device runtime on the GPU,
; first inside loops, then also in kernels without loops (fuzz cases 220-26 and 327-8). The remark says
; what the kernel does.
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=warp;no-inline-runtime>' -pass-remarks-analysis=klap -S %s -o %t.ll 2>%t.remarks
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.tid.y()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.y()
declare i32 @llvm.nvvm.read.ptx.sreg.nctaid.z()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()

define ptx_kernel void @child(ptr %out, i32 %n) {
  %i = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %p = getelementptr inbounds i32, ptr %out, i32 %i
  store i32 %n, ptr %p, align 4
  ret void
}

; CHECK-LABEL: define ptx_kernel void @parent(
; CHECK:         [[SCOPE:%.*]] = call ptr @__klap_warp_enter(i32 {{%.*}}, i32 1, i32 12, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0)
; CHECK:       loop:
; CHECK:         call ptr @__klap_scope_register(ptr [[SCOPE]], i32 0,
; CHECK-NOT:     __klap_warp_chunk
; CHECK:       exit:
; CHECK:         [[THREADS:%.*]] = call i64 @__klap_warp_scope_threads(ptr [[SCOPE]])
; CHECK:         call i1 @__klap_scope_exit(ptr [[SCOPE]], i64 [[THREADS]])
; CHECK:         call void @__klap_scope_launch(
define ptx_kernel void @parent(ptr %out, i32 %n) {
entry:
  %blocks = udiv i32 %n, 32
  br label %loop
loop:
  %k = phi i32 [ 0, %entry ], [ %k1, %after ]
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  %gv = insertvalue %struct.dim3 { i32 poison, i32 1, i32 1 }, i32 %blocks, 0
  store %struct.dim3 %gv, ptr %g, align 4
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  %ok = icmp ne ptr %buf, null
  br i1 %ok, label %fill, label %after
fill:
  store ptr %out, ptr %buf, align 8
  %a1 = getelementptr inbounds i8, ptr %buf, i64 8
  store i32 %k, ptr %a1, align 4
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

; CHECK-LABEL: define ptx_kernel void @straight(
; CHECK:         [[SCOPE:%.*]] = call ptr @__klap_warp_enter(
; CHECK-NOT:     __klap_warp_chunk
; CHECK:         call ptr @__klap_scope_register(ptr [[SCOPE]], i32 0,
; CHECK:         call void @__klap_scope_launch(
define ptx_kernel void @straight(ptr %out, i32 %n) {
entry:
  %blocks = udiv i32 %n, 32
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  %gv = insertvalue %struct.dim3 { i32 poison, i32 1, i32 1 }, i32 %blocks, 0
  store %struct.dim3 %gv, ptr %g, align 4
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  %ok = icmp ne ptr %buf, null
  br i1 %ok, label %fill, label %after
fill:
  store ptr %out, ptr %buf, align 8
  %a1 = getelementptr inbounds i8, ptr %buf, i64 8
  store i32 %n, ptr %a1, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  br label %after
after:
  ret void
}

; REMARK:     its kernel launches in a loop: the launches of each warp are made when the warp's last thread returns (a warp scope) [KLAP213]
; REMARK:     its kernel launches: the launches of each warp are made when the warp's last thread returns (a warp scope) [KLAP213]
; REMARK-NOT: KLAP213
