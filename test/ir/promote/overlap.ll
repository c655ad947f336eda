; Promotion with aggregation and overlap (promote=all, KLAP's PAO): a pool's link waits at its start only
; for the arguments the link before knows at its own start (%first: computed from parameters every link
; passes on and from %first itself), which that link publishes right after its own start; it then runs its
; prologue (the read of the `noalias` input %in, which no link writes through, a barrier) and waits for the
; link before to end only where it first needs what that link computes at its end (%acc).
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=none;promote=all;no-inline-runtime>' -pass-remarks=klap -pass-remarks-missed=klap -S %s -o %t.ll 2>%t.remarks
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks
; `auto` runs the chain in a loop by its block, and takes this form for a copy of the kernel that the loop
; hands a long chain of slow links over to (into-loop-auto.ll).
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=auto;no-inline-runtime>' -pass-remarks=klap -S %s -o /dev/null 2>&1 \
; RUN:   | FileCheck --check-prefix=AUTO %s
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=none;promote=all>' -S %s -o %t.inlined.ll
; RUN: llc-22 -mtriple=nvptx64-nvidia-cuda -mcpu=sm_90 -mattr=+ptx88 %t.inlined.ll -o %t.ptx
; RUN: %ptxas -arch=sm_90 -c %t.ptx -o %t.o
; RUN: %nvlink -arch=sm_90 %t.o %cudadevrt -o %t.cubin

; AUTO: remark: {{.*}}launch of @chain promoted into a loop: {{.*}} [KLAP418]
; AUTO: remark: {{.*}}launch of @chain__klap_chain promoted with aggregation (pool of 128): {{.*}} [KLAP412]
; AUTO: remark: {{.*}}the prologue of @chain__klap_chain__klap_pool overlaps the link before: {{.*}} [KLAP415]
; REMARK: remark: {{.*}}launch of @chain promoted with aggregation (pool of 128): {{.*}} [KLAP412]
; REMARK: remark: {{.*}}the prologue of @chain__klap_pool overlaps the link before: {{[0-9]+}} instructions run before the wait; arguments published at a link's start: #3; taken after the wait: #4; the wait is before `%acc2{{.*}} = fadd float %acc, %sq{{.*}}`: it uses parameter #4, which the link before computes [KLAP415]

; The host's entry launches the first pool, then publishes the first link's early argument (%end, into
; slot 0 at %first's offset) where the launch condition holds; at the launch site %acc2, the one late
; argument, is released in the slot's word, in the same atomic as the state.
; CHECK-LABEL: define ptx_kernel void @chain(ptr noalias readonly %in, ptr %out, i32 %n, i32 %first, float %acc)
; CHECK:       klap.promote.join:
; CHECK:         [[NEXT:%.*]] = call ptr @__klap_pool_share(ptr null, ptr
; CHECK-NEXT:    [[TO:%.*]] = call ptr @__klap_pool_early_args(ptr [[NEXT]])
; CHECK:       klap.promote.publish:
; CHECK:         [[E:%.*]] = getelementptr inbounds i8, ptr [[TO]], i64 20
; CHECK-NEXT:    store i32 {{%.*}}, ptr [[E]], align 4
; CHECK-NEXT:    call void @__klap_pool_publish(ptr [[NEXT]])
; CHECK:         [[SLOT:%.*]] = call ptr @__klap_pool_take_lone(ptr [[NEXT]])
; CHECK-NOT:     store
; CHECK:         [[W:%.*]] = bitcast float %acc2 to i32
; CHECK-NEXT:    call void @__klap_pool_release_word(ptr [[SLOT]], i32 [[W]])

; A pool's link: the early argument at its start, its own successor's published, the prologue, then the wait
; and the late argument.
; CHECK-LABEL: define ptx_kernel void @chain__klap_pool(ptr noalias readonly %in, ptr %out, i32 %n, i32 %first, float %acc, ptr %klap.pool)
; CHECK:         [[ARGS:%.*]] = call ptr @__klap_pool_enter_early(ptr %klap.pool, i32 28)
; CHECK:       klap.promote.run:
; CHECK-NEXT:    [[AF:%.*]] = getelementptr inbounds i8, ptr [[ARGS]], i64 20
; CHECK-NEXT:    [[FIRST:%.*]] = load i32, ptr [[AF]], align 4
; CHECK-NEXT:    call i1 @__klap_promote_leader()
; CHECK:         [[NEXT2:%.*]] = call ptr @__klap_pool_share(ptr %klap.pool, ptr
; CHECK:         call ptr @__klap_pool_early_args(ptr [[NEXT2]])
; CHECK:         call void @__klap_pool_publish(ptr [[NEXT2]])
; CHECK:       klap.promote.prologue:
; CHECK:         add i32 [[FIRST]],
; CHECK:         [[X:%.*]] = load float, ptr
; CHECK:         call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
; CHECK-NEXT:    [[LATE:%.*]] = call ptr @__klap_pool_wait_word(i32 24)
; CHECK-NEXT:    [[GO:%.*]] = icmp ne ptr [[LATE]], null
; CHECK-NEXT:    br i1 [[GO]], label %klap.promote.late, label %klap.promote.aborted{{[0-9]+}}
; CHECK:       klap.promote.late:
; CHECK-NEXT:    [[AA:%.*]] = getelementptr inbounds i8, ptr [[LATE]], i64 24
; CHECK-NEXT:    [[ACC:%.*]] = load float, ptr [[AA]], align 4
; CHECK-NEXT:    br label %klap.promote.waited
; The chain ended before this link's end: it ends without counting out.
; CHECK:       klap.promote.aborted{{[0-9]+}}:
; CHECK-NEXT:    ret void
; CHECK:       klap.promote.waited:
; CHECK-NEXT:    fadd float [[ACC]],
; CHECK:         [[SLOT2:%.*]] = call ptr @__klap_pool_take_lone(ptr [[NEXT2]])
; CHECK:         call void @__klap_pool_release_word(ptr [[SLOT2]],
; CHECK:         call void @__klap_pool_exit(ptr [[NEXT2]])
; The chain ended before this link's start.
; CHECK:       klap.promote.aborted:
; CHECK-NEXT:    ret void
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
