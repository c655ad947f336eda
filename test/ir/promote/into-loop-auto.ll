; Promotion at `auto` of a chain whose links can overlap (overlap.ll's kernel: its prologue reads the
; `noalias` input %in, which no link writes): the chain runs in a loop by its block (KLAP418), and a copy of
; the kernel, launching itself, is promoted with aggregation and overlap (KLAP412, KLAP415). The loop goes
; on while it has run fewer than 8 links or its links took at most 4 us each on average, and fewer than 64 or
; at most 2.5 us each (the globaltimer read at the kernel's start); else, and in a first link of another
; shape, the launch is made as written, of the copy: a long chain of slow links goes on as pools whose links'
; prologues overlap.
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=auto;no-inline-runtime>' -pass-remarks=klap -pass-remarks-missed=klap -S %s -o %t.ll 2>%t.remarks
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks
; The hand-over's rules as the option sets them (one rule here).
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=auto;no-inline-runtime>' -klap-promote-hand-over=16:3000 -S %s \
; RUN:   | FileCheck --check-prefix=OPTION %s
; OPTION: icmp ult i32 {{.*}}, 16
; OPTION-NEXT: mul i64 {{.*}}, 3000
; OPTION-NOT: icmp ult i32 {{.*}}, 64
; OPTION: klap.loop.latch:

; REMARK: remark: {{.*}}launch of @chain promoted into a loop: {{.*}} [KLAP418]
; REMARK: remark: {{.*}}launch of @chain__klap_chain promoted with aggregation (pool of 128): {{.*}} [KLAP412]
; REMARK: remark: {{.*}}the prologue of @chain__klap_chain__klap_pool overlaps the link before: {{.*}} [KLAP415]

; CHECK-LABEL: define ptx_kernel void @chain(
; CHECK:       klap.loop.start:
; CHECK:         [[STARTED:%.*]] = call i64 @llvm.nvvm.read.ptx.sreg.globaltimer()
; CHECK:         %klap.loop.same.shape = and i1
; CHECK-NEXT:    [[FOLLOWING:%.*]] = add i32 %klap.loop.link, 1
; CHECK-NEXT:    [[NOW:%.*]] = call i64 @llvm.nvvm.read.ptx.sreg.globaltimer()
; CHECK-NEXT:    [[ELAPSED:%.*]] = sub i64 [[NOW]], [[STARTED]]
; CHECK-NEXT:    [[LINKS:%.*]] = zext i32 [[FOLLOWING]] to i64
; CHECK-NEXT:    [[SHORT:%.*]] = icmp ult i32 [[FOLLOWING]], 8
; CHECK-NEXT:    [[BUDGET:%.*]] = mul i64 [[LINKS]], 4000
; CHECK-NEXT:    [[FAST:%.*]] = icmp ult i64 [[ELAPSED]], [[BUDGET]]
; CHECK-NEXT:    %klap.loop.stay = or i1 [[SHORT]], [[FAST]]
; CHECK-NEXT:    [[TAKE:%.*]] = and i1 %klap.loop.same.shape, %klap.loop.stay
; The second rule, for long chains: 64 links at more than 2.5 us each.
; CHECK-NEXT:    [[SHORT2:%.*]] = icmp ult i32 [[FOLLOWING]], 64
; CHECK-NEXT:    [[BUDGET2:%.*]] = mul i64 [[LINKS]], 2500
; CHECK-NEXT:    [[FAST2:%.*]] = icmp ult i64 [[ELAPSED]], [[BUDGET2]]
; CHECK-NEXT:    [[STAY2:%.*]] = or i1 [[SHORT2]], [[FAST2]]
; CHECK-NEXT:    [[TAKE2:%.*]] = and i1 [[TAKE]], [[STAY2]]
; CHECK-NEXT:    br i1 [[TAKE2]],
; CHECK:         store i32 {{.*}}, ptr addrspace(3) @chain__klap_loop_next
; CHECK:         call ptr @__cudaCDP2GetParameterBufferV2(ptr @chain__klap_chain,
; CHECK:         call i32 @__cudaCDP2LaunchDeviceV2(
; CHECK:       klap.loop.latch:
; CHECK-LABEL: define ptx_kernel void @chain__klap_chain(
; CHECK:         call ptr @__klap_pool_alloc(i32 128,
; CHECK:         call ptr @__cudaCDP2GetParameterBufferV2(ptr @chain__klap_chain__klap_pool,
; CHECK-LABEL: define ptx_kernel void @chain__klap_chain__klap_pool(
; CHECK:         call ptr @__klap_pool_enter_early(
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.smin.i32(i32, i32)
declare void @llvm.nvvm.barrier.cta.sync.aligned.all(i32)

define ptx_kernel void @chain(ptr noalias %in, ptr %out, i32 %n, i32 %first, float %acc) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %last = add nsw i32 %first, 64
  %end = call i32 @llvm.smin.i32(i32 %n, i32 %last)
  %i = add i32 %first, %t
  %pin = getelementptr inbounds float, ptr %in, i32 %i
  %x = load float, ptr %pin, align 4
  %sq = fmul float %x, %x
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %acc2 = fadd float %acc, %sq
  %pout = getelementptr inbounds float, ptr %out, i32 %i
  store float %acc2, ptr %pout, align 4
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
  store ptr %in, ptr %buf, align 8
  %a1 = getelementptr inbounds i8, ptr %buf, i64 8
  store ptr %out, ptr %a1, align 8
  %a2 = getelementptr inbounds i8, ptr %buf, i64 16
  store i32 %n, ptr %a2, align 4
  %a3 = getelementptr inbounds i8, ptr %buf, i64 20
  store i32 %end, ptr %a3, align 4
  %a4 = getelementptr inbounds i8, ptr %buf, i64 24
  store float %acc2, ptr %a4, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr inttoptr (i64 4 to ptr))
  br label %done
done:
  ret void
}
