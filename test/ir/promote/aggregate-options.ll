; The options of promotion with aggregation: promote=aggregate and -klap-promote=aggregate take it (pools of
; 128 by default), klap<promote=basic> after the command line's aggregate takes basic, a pool must have 1 to
; 65,536 links, and a promotion form that does not exist is refused.
; RUN: %opt -load-pass-plugin=%plugin -klap-promote=aggregate -passes='klap<granularity=none;no-inline-runtime>' -S %s \
; RUN:   | FileCheck --check-prefix=POOL128 %s
; RUN: %opt -load-pass-plugin=%plugin -klap-promote=aggregate -passes='klap<granularity=none;promote=basic;no-inline-runtime>' \
; RUN:   -S %s | FileCheck --check-prefix=BASIC %s
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=none;promote=aggregate;promote-pool=65536;no-inline-runtime>' \
; RUN:   -S %s | FileCheck --check-prefix=POOLMAX %s
; RUN: not %opt -load-pass-plugin=%plugin -passes='klap<promote=aggregate;promote-pool=0>' -S %s -o /dev/null 2>&1 \
; RUN:   | FileCheck --check-prefix=ZERO %s
; RUN: not %opt -load-pass-plugin=%plugin -passes='klap<promote=aggregate;promote-pool=65537>' -S %s -o /dev/null 2>&1 \
; RUN:   | FileCheck --check-prefix=ZERO %s
; RUN: not %opt -load-pass-plugin=%plugin -klap-promote-pool=0 -passes='klap<promote=aggregate>' -S %s -o /dev/null 2>&1 \
; RUN:   | FileCheck --check-prefix=ZERO-CL %s
; RUN: not %opt -load-pass-plugin=%plugin -passes='klap<promote=pao>' -S %s -o /dev/null 2>&1 \
; RUN:   | FileCheck --check-prefix=UNKNOWN %s
; RUN: not %opt -load-pass-plugin=%plugin -klap-promote=pao -passes='klap' -S %s -o /dev/null 2>&1 \
; RUN:   | FileCheck --check-prefix=UNKNOWN-CL %s

; POOL128: call ptr @__klap_pool_alloc(i32 128, i32 20)
; POOL128: define ptx_kernel void @chain__klap_pool(
; BASIC-NOT: __klap_pool
; BASIC: define ptx_kernel void @chain__klap_promoted(
; POOLMAX: call ptr @__klap_pool_alloc(i32 65536, i32 20)
; ZERO: klap: promote-pool needs a number from 1 to 65536
; ZERO-CL: klap: -klap-promote-pool must be 1 to 65536, not 0
; UNKNOWN: klap: promote must be none, basic, aggregate, overlap, all, loop or auto, not 'pao'
; UNKNOWN-CL: klap: -klap-promote must be none, basic, aggregate, overlap, all, loop or auto, not 'pao'
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.smin.i32(i32, i32)

define ptx_kernel void @chain(ptr %out, i32 %n, i32 %first, float %acc) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %last = add nsw i32 %first, 64
  %end = call i32 @llvm.smin.i32(i32 %n, i32 %last)
  %i = add i32 %first, %t
  %p = getelementptr inbounds float, ptr %out, i32 %i
  %x = load float, ptr %p, align 4
  %acc2 = fadd float %acc, %x
  store float %acc2, ptr %p, align 4
  %lead = icmp eq i32 %t, 0
  br i1 %lead, label %test, label %done
test:
  %more = icmp slt i32 %end, %n
  br i1 %more, label %launch, label %done
launch:
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %g, align 4
  store %struct.dim3 { i32 64, i32 1, i32 1 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @chain, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  %ok = icmp ne ptr %buf, null
  br i1 %ok, label %fill, label %done
fill:
  store ptr %out, ptr %buf, align 8
  %a1 = getelementptr inbounds i8, ptr %buf, i64 8
  store i32 %n, ptr %a1, align 4
  %a2 = getelementptr inbounds i8, ptr %buf, i64 12
  store i32 %end, ptr %a2, align 4
  %a3 = getelementptr inbounds i8, ptr %buf, i64 16
  store float %acc2, ptr %a3, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr inttoptr (i64 4 to ptr))
  br label %done
done:
  ret void
}
