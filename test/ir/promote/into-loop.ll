; Promotion into a loop (promote=loop) of a chain link (chain.ll's kernel, with the error check after its
; launch): the block runs the next link itself. A barrier where its threads return; then, where the link
; reached its launch, the parameters it changes (%first, %acc) come from the launch's arguments, stored in
; shared memory by the launching thread (two buffers used in turn, by the link's parity); %out and %n are
; passed on unchanged and stay the parameters. In a grid of several blocks, a block of several rows or one of
; another width (a first link launched so by the host) the launch is made as written; the error check after it
; enters the device runtime only then.
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=none;promote=loop>' -pass-remarks=klap -pass-remarks-missed=klap -S %s -o %t.ll 2>%t.remarks
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks

; REMARK: remark: {{.*}}launch of @chain promoted into a loop: where its threads return, the block runs the next link itself after a barrier (2 of its parameters carried through shared memory) [KLAP418]
; REMARK: remark: {{.*}}@__cudaCDP2GetLastError is called only once a launch made as written {{.*}} [KLAP307]

; CHECK: @chain__klap_loop_next = internal addrspace(3) global i32 undef, align 4
; CHECK: @chain__klap_loop_args = internal addrspace(3) global [64 x i8] undef, align 16
; CHECK-LABEL: define ptx_kernel void @chain(ptr %out, i32 %n, i32 %first, float %acc)
; CHECK:       klap.loop.start:
; CHECK:         store i32 0, ptr addrspace(3) @chain__klap_loop_next, align 4
; CHECK-NEXT:    call void @llvm.nvvm.barrier.cta.sync.all(i32 0)
; CHECK-NEXT:    [[LANES:%.*]] = call i32 @llvm.nvvm.activemask()
; CHECK:       klap.loop.head:
; CHECK-NEXT:    [[LINK:%.*]] = phi i32 [ 0, %klap.loop.start ], [ [[NEXTLINK:%.*]], %klap.loop.next ]
; CHECK-NEXT:    [[FIRST:%.*]] = phi i32 [ %first, %klap.loop.start ], [ [[NEWFIRST:%.*]], %klap.loop.next ]
; CHECK-NEXT:    [[ACC:%.*]] = phi float [ %acc, %klap.loop.start ], [ [[NEWACC:%.*]], %klap.loop.next ]
; CHECK:         add nsw i32 [[FIRST]], 64
; CHECK:         fadd float [[ACC]],
; The launch: where the grid is one block of one row 64 threads wide (what the launch asks for), this link's
; values of the changed arguments into the buffer of its parity, then its number.
; CHECK:         [[ROWS:%.*]] = mul i32
; CHECK-NEXT:    [[ONEROW:%.*]] = icmp eq i32 [[ROWS]], 1
; CHECK:         call i32 @llvm.nvvm.read.ptx.sreg.nctaid.z()
; CHECK-NEXT:    [[BLOCKS:%.*]] = mul i32
; CHECK-NEXT:    [[ONEBLOCK:%.*]] = icmp eq i32 [[BLOCKS]], 1
; CHECK-NEXT:    [[WIDTH:%.*]] = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
; CHECK-NEXT:    [[ASWIDE:%.*]] = icmp eq i32 [[WIDTH]], 64
; CHECK-NEXT:    [[BOTH:%.*]] = and i1 [[ONEROW]], [[ONEBLOCK]]
; CHECK-NEXT:    %klap.loop.same.shape = and i1 [[BOTH]], [[ASWIDE]]
; CHECK-NEXT:    br i1 %klap.loop.same.shape,
; CHECK:         [[PARITY:%.*]] = and i32 [[LINK]], 1
; CHECK-NEXT:    [[AT:%.*]] = mul i32 [[PARITY]], 32
; CHECK-NEXT:    [[BUF:%.*]] = getelementptr inbounds i8, ptr addrspace(3) @chain__klap_loop_args, i32 [[AT]]
; CHECK-NEXT:    [[P1:%.*]] = getelementptr inbounds i8, ptr addrspace(3) [[BUF]], i64 12
; CHECK-NEXT:    store i32 %end, ptr addrspace(3) [[P1]], align 4
; CHECK-NEXT:    [[P2:%.*]] = getelementptr inbounds i8, ptr addrspace(3) [[BUF]], i64 16
; CHECK-NEXT:    store float %acc2, ptr addrspace(3) [[P2]], align 4
; CHECK-NEXT:    [[FOLLOWING:%.*]] = add i32 [[LINK]], 1
; CHECK-NEXT:    store i32 [[FOLLOWING]], ptr addrspace(3) @chain__klap_loop_next, align 4
; Elsewhere the launch as written, and only then the error query.
; CHECK:         call ptr @__cudaCDP2GetParameterBufferV2(ptr @chain,
; CHECK:         call i32 @__cudaCDP2LaunchDeviceV2(
; CHECK:         %launched = load i1
; CHECK:         call i32 @__cudaCDP2GetLastError()
; The threads of each warp meet (the lanes read at the start), then the block's aligned barrier: ptxas then
; knows the warp converged for the next link's votes and shuffles.
; CHECK:       klap.loop.latch:
; CHECK-NEXT:    call void @llvm.nvvm.bar.warp.sync(i32 [[LANES]])
; CHECK-NEXT:    call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
; CHECK-NEXT:    [[ASKED:%.*]] = load i32, ptr addrspace(3) @chain__klap_loop_next, align 4
; CHECK-NEXT:    [[GO:%.*]] = icmp ne i32 [[ASKED]], [[LINK]]
; CHECK-NEXT:    br i1 [[GO]], label %klap.loop.next, label %klap.loop.exit
; CHECK:       klap.loop.next:
; CHECK:         [[NEWFIRST]] = load i32, ptr addrspace(3)
; CHECK:         [[NEWACC]] = load float, ptr addrspace(3)
; CHECK:         [[NEXTLINK]] = add i32 [[LINK]], 1
; CHECK-NEXT:    br label %klap.loop.head
; CHECK:       klap.loop.exit:
; CHECK-NEXT:    ret void
; CHECK-NOT:   define {{.*}}@chain__klap
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare i32 @__cudaCDP2GetLastError()
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.smin.i32(i32, i32)

@error = global i32 0

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
  %err = call i32 @__cudaCDP2GetLastError()
  store i32 %err, ptr @error, align 4
  br label %done
done:
  ret void
}
