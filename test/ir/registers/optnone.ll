; Code built at -O0, where clang makes every function `noinline optnone` and inlines nothing: a kernel klap's
; runtime went into calls its device functions out of line, so it could not take the register cap, and the
; runtime's registers made kernels of 1024-thread blocks fail to launch (test/gpu's chunk_chain and
; devfn_launch at -O0 on an H200). The device functions of such a kernel are made `alwaysinline` and lose
; `noinline` and `optnone` together (`optnone` without `noinline` is invalid IR: the verifier rejected
; devfn_launch at -O0), and the kernel is capped. klap's own copies of the child (its serial and thread
; variants under `auto`) drop both too.
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=grid>' -pass-remarks=klap -S %s -o %t.ll 2>%t.remarks
; RUN: opt -passes=verify -disable-output %t.ll
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=auto>' -S %s | opt -passes=verify -disable-output
; klap's barrier functions stay calls there too (lanes of a warp must wait at one barrier instruction:
; docs/block-reuse.md), as the block-reuse exit of a kernel built at -O0 shows.
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=none;block-reuse>' -S %s -o %t.reuse.ll
; RUN: opt -passes=verify -disable-output %t.reuse.ll
; RUN: FileCheck --check-prefix=REUSE %s < %t.reuse.ll

; REMARK: @parent has klap's device runtime in it: at most 48 registers per thread {{.*}}[KLAP600]

; REUSE-LABEL: define ptx_kernel void @reuser(
; REUSE: call {{.*}}@__klap_reuse_barrier(
; REUSE: define internal {{.*}}@__klap_reuse_barrier({{.*}} #[[BARRIER:[0-9]+]]
; REUSE: attributes #[[BARRIER]] = { {{.*}}noinline

; CHECK-LABEL: define ptx_kernel void @parent(
; CHECK-NOT: call void @launch(
; CHECK: ret void
; CHECK-LABEL: define void @launch(
; CHECK-SAME: #[[INLINED:[0-9]+]]
; CHECK: attributes #[[INLINED]] = { alwaysinline }

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

define ptx_kernel void @child(ptr %out, i32 %k) #0 {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %p = getelementptr inbounds i32, ptr %out, i32 %t
  store i32 %k, ptr %p, align 4
  ret void
}

define ptx_kernel void @parent(ptr %out, i32 %n) #0 {
  call void @launch(ptr %out, i32 %n)
  ret void
}

; The launch in the kernel's own code, where block reuse takes it.
define ptx_kernel void @reuser(ptr %out, i32 %n) #0 {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %g, align 4
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

define void @launch(ptr %out, i32 %n) #0 {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  store %struct.dim3 { i32 4, i32 1, i32 1 }, ptr %g, align 4
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

attributes #0 = { noinline optnone }
