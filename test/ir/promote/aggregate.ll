; Promotion with aggregation of a chain link (los's form, reduced; test/ir/promote/chain.ll for basic
; promotion): the host's entry launches a pool of 128 links (one grid of 128 blocks of @chain__klap_pool) at
; its start, fire-and-forget; each block of the pool takes a logical index, waits for the release of the link
; before it and takes the arguments a link changes from its slot (those every link passes on unchanged,
; %out and %n, are arguments of the pool's grid); the block with the
; pool's last index launches the next pool. Every thread counts itself out at its return (the last releases
; the successor's slot); a block whose predecessor never reached the launch ends at once (the abort path).
; The output with the runtime inlined assembles and links.
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=none;promote=aggregate;no-inline-runtime>' -pass-remarks=klap -pass-remarks-missed=klap -pass-remarks-analysis=klap -S %s -o %t.ll 2>%t.remarks
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=none;promote=aggregate>' -S %s -o %t.inlined.ll
; RUN: llc-22 -mtriple=nvptx64-nvidia-cuda -mcpu=sm_90 -mattr=+ptx88 %t.inlined.ll -o %t.ptx
; RUN: FileCheck --check-prefix=PTX %s < %t.ptx
; RUN: %ptxas -arch=sm_90 -c %t.ptx -o %t.o
; RUN: %nvlink -arch=sm_90 %t.o %cudadevrt -o %t.cubin

; REMARK: remark: {{.*}}launch of @chain promoted with aggregation (pool of 128): arguments available at entry: #0 #1 #2; postponed: #3; launch condition: computed at entry from the parameters [KLAP412]

; The host's entry: thread 0 launches the first pool where the launch condition holds, into the
; fire-and-forget stream, with the pool's record (128 slots of 20 argument bytes) and the parameters every link
; passes on unchanged (%out, %n) as the pool grid's own arguments.
; CHECK-LABEL: define ptx_kernel void @chain(ptr %out, i32 %n, i32 %first, float %acc)
; CHECK:       klap.promote:
; CHECK:         call i1 @__klap_promote_leader()
; CHECK:         icmp slt i32
; CHECK:       klap.promote.slot:
; CHECK:         [[POOL:%.*]] = call ptr @__klap_pool_alloc(i32 128, i32 20)
; CHECK:         store i32 128, ptr [[GRID:%.*]], align 4
; CHECK:       klap.promote.buffer:
; CHECK:         [[BUF:%.*]] = call ptr @__cudaCDP2GetParameterBufferV2(ptr @chain__klap_pool, ptr byval(%struct.dim3) align 4 [[GRID]],
; CHECK:       klap.promote.launch:
; CHECK-NEXT:    [[OUT0:%.*]] = freeze ptr %out
; CHECK-NEXT:    store ptr [[OUT0]], ptr [[BUF]], align 8
; CHECK-NEXT:    [[N0:%.*]] = freeze i32 %n
; CHECK-NEXT:    [[AN0:%.*]] = getelementptr inbounds i8, ptr [[BUF]], i64 8
; CHECK-NEXT:    store i32 [[N0]], ptr [[AN0]], align 4
; CHECK-NEXT:    [[AT:%.*]] = getelementptr inbounds i8, ptr [[BUF]], i64 24
; CHECK-NEXT:    store ptr [[POOL]], ptr [[AT]], align 8
; CHECK-NEXT:    call i32 @__cudaCDP2LaunchDeviceV2(ptr [[BUF]], ptr inttoptr (i64 4 to ptr))
; CHECK:       klap.promote.failed:
; CHECK:         call void @__klap_promote_cancel(ptr [[POOL]])
; CHECK:       klap.promote.join:
; CHECK:         [[NEXT:%.*]] = call ptr @__klap_pool_share(ptr null, ptr
; At the launch site: the arguments a link changes into slot 0 of the pool, released there (a
; fire-and-forget launch: the one launching thread takes the slot without an atomic); the launch as written
; where there is no slot.
; CHECK:         [[SLOT:%.*]] = call ptr @__klap_pool_take_lone(ptr [[NEXT]])
; CHECK:         [[A2:%.*]] = getelementptr inbounds i8, ptr [[SLOT]], i64 12
; CHECK-NEXT:    store i32 %end, ptr [[A2]]
; CHECK-NEXT:    [[A3:%.*]] = getelementptr inbounds i8, ptr [[SLOT]], i64 16
; CHECK-NEXT:    store float %acc2, ptr [[A3]]
; CHECK-NEXT:    call void @__klap_pool_release(ptr [[SLOT]])
; CHECK:         call ptr @__cudaCDP2GetParameterBufferV2(ptr @chain,
; CHECK:         call i32 @__cudaCDP2LaunchDeviceV2(
; CHECK:         call void @__klap_pool_exit(ptr [[NEXT]])
; CHECK-NEXT:    ret void

; A block of a pool: its index and its wait in the runtime's enter, the parameters a link changes from the
; slot; only the leader of the block with the pool's last index launches the next pool.
; CHECK-LABEL: define ptx_kernel void @chain__klap_pool(ptr %out, i32 %n, i32 %first, float %acc, ptr %klap.pool)
; CHECK:         [[ARGS:%.*]] = call ptr @__klap_pool_enter(ptr %klap.pool, i32 20)
; CHECK:         icmp ne ptr [[ARGS]], null
; CHECK:       klap.promote.run:
; CHECK-NEXT:    [[AF:%.*]] = getelementptr inbounds i8, ptr [[ARGS]], i64 12
; CHECK-NEXT:    [[FIRST:%.*]] = load i32, ptr [[AF]], align 4
; CHECK-NEXT:    [[AA:%.*]] = getelementptr inbounds i8, ptr [[ARGS]], i64 16
; CHECK-NEXT:    [[ACC:%.*]] = load float, ptr [[AA]], align 4
; CHECK-NEXT:    [[LEAD:%.*]] = call i1 @__klap_promote_leader()
; CHECK-NEXT:    [[LAST:%.*]] = call i1 @__klap_pool_last()
; CHECK-NEXT:    and i1 [[LEAD]], [[LAST]]
; CHECK:         call ptr @__klap_pool_alloc(i32 128, i32 20)
; CHECK:         call ptr @__cudaCDP2GetParameterBufferV2(ptr @chain__klap_pool,
; CHECK:         store ptr {{%.*}},
; CHECK:         call i32 @__cudaCDP2LaunchDeviceV2(ptr %{{.*}}, ptr inttoptr (i64 4 to ptr))
; CHECK:         [[NEXT2:%.*]] = call ptr @__klap_pool_share(ptr %klap.pool, ptr
; The body reads the taken values, and the parameters passed on unchanged.
; CHECK:         add nsw i32 [[FIRST]], 64
; CHECK:         call i32 @llvm.smin.i32(i32 %n,
; CHECK:         getelementptr inbounds float, ptr %out,
; CHECK:         fadd float [[ACC]],
; CHECK:         [[SLOT2:%.*]] = call ptr @__klap_pool_take_lone(ptr [[NEXT2]])
; CHECK:         store i32 %end.klap,
; CHECK:         store float %acc2.klap,
; CHECK-NEXT:    call void @__klap_pool_release(ptr [[SLOT2]])
; Where there is no successor slot: the host's entry, launched as written.
; CHECK:         call ptr @__cudaCDP2GetParameterBufferV2(ptr @chain,
; CHECK:         store ptr %out,
; CHECK:         call void @__klap_pool_exit(ptr [[NEXT2]])
; CHECK-NEXT:    ret void
; The chain ended before this link: the block ends at once, without counting out.
; CHECK:       klap.promote.aborted:
; CHECK-NEXT:    ret void

; With the runtime inlined: both entries, the pool's blocks see a grid of one block.
; PTX-LABEL: .entry chain(
; PTX:       .entry chain__klap_pool(
; PTX:       atom.add.u32
; PTX:       ld.relaxed.gpu.b32
; PTX:       bar.sync 0;
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
