; A chain (a kernel launching itself) passes its `noalias` input on unchanged and never writes through it:
; the input is marked readonly, so that its loads take the read-only data path (`ld.global.nc`); the launch's
; store of the pointer into the parameter buffer kept LLVM from inferring it. The output, written, is not.
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=grid;no-inline-runtime>' -pass-remarks=klap -S %s -o %t.ll 2>%t.remarks
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks
; Where klap only normalizes launches (granularity none, nothing else), the kernel stays as written.
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=none>' -S %s | FileCheck --check-prefix=NONE %s
; `-klap-disable-read-only` skips the step.
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=grid;no-inline-runtime>' -klap-disable-read-only -S %s | FileCheck --check-prefix=NONE %s
; RUN: llc-22 -mtriple=nvptx64-nvidia-cuda -mcpu=sm_90 -mattr=+ptx88 %t.ll -o - | FileCheck --check-prefix=PTX %s

; CHECK-LABEL: define ptx_kernel void @chain(ptr noalias readonly %in, ptr noalias %out, i32 %n, i32 %first)
; NONE-LABEL: define ptx_kernel void @chain(ptr noalias %in, ptr noalias %out, i32 %n, i32 %first)
; REMARK: remark: {{.*}}parameter 0 of @chain marked readonly: the kernel only reads through it and passes it to launches of @chain, which only read through it; it is `noalias`: its loads take the read-only data path (ld.global.nc) [KLAP610]
; REMARK-NOT: parameter 1 of @chain
; PTX-LABEL: .entry chain(
; PTX: ld.global.nc.b32
; PTX-NOT: ld.global.b32

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

define ptx_kernel void @chain(ptr noalias %in, ptr noalias %out, i32 %n, i32 %first) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = add i32 %first, %t
  %pin = getelementptr inbounds float, ptr %in, i32 %i
  %x = load float, ptr %pin, align 4
  %pout = getelementptr inbounds float, ptr %out, i32 %i
  store float %x, ptr %pout, align 4
  %end = add i32 %first, 64
  %lead = icmp eq i32 %t, 0
  %more = icmp slt i32 %end, %n
  %go = and i1 %lead, %more
  br i1 %go, label %launch, label %done
launch:
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %g, align 4
  store %struct.dim3 { i32 64, i32 1, i32 1 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @chain, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  store ptr %in, ptr %buf, align 8
  %a1 = getelementptr inbounds i8, ptr %buf, i64 8
  store ptr %out, ptr %a1, align 8
  %a2 = getelementptr inbounds i8, ptr %buf, i64 16
  store i32 %n, ptr %a2, align 4
  %a3 = getelementptr inbounds i8, ptr %buf, i64 20
  store i32 %end, ptr %a3, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr inttoptr (i64 4 to ptr))
  br label %done
done:
  ret void
}
