; Grid granularity: the parent sets up its grid's scope at entry, registers each launch (the
; original launch is kept for when no record can be had), and the thread that completes the grid's
; exit count launches the aggregated child. The child gets a variant taking the record chunk. The
; parent's own parameter %out is the same for the whole grid: only the chunk's first record holds it.
; The registering thread releases its record once written (__klap_record_written): the exit count
; takes no fence of its own.
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=grid;no-inline-runtime>' -pass-remarks=klap -S %s -o %t.ll 2>%t.remarks
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks
; RUN: FileCheck --check-prefix=RUNTIME %s < %t.ll
; RUNTIME: define internal {{.*}}@__klap_scope_register(
; RUNTIME-NOT: define {{.*}}@__klap_warp_chunk(

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBuffer(i64, i64)
declare i32 @__cudaCDP2LaunchDevice(ptr, ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()

; The pool and the runtime, linked in as this module's own.
; CHECK: @klap_pool = internal addrspace(1) global [268435456 x i8] zeroinitializer

; REMARK: remark: <unknown>:0:0: launch of @child aggregated at grid granularity (12 argument bytes per record, 8 of them passed once, as the aggregated kernel's parameters, one configuration over the scope: records found by a division) [KLAP200]

define ptx_kernel void @child(ptr %out, i32 %n) {
  %b = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %d = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %bd = mul i32 %b, %d
  %i = add i32 %bd, %t
  %in = icmp slt i32 %i, %n
  br i1 %in, label %store, label %done
store:
  %p = getelementptr inbounds i32, ptr %out, i32 %i
  store i32 1, ptr %p, align 4
  br label %done
done:
  ret void
}

; CHECK-LABEL: define ptx_kernel void @parent(
; CHECK:         [[SCOPE:%.*]] = call ptr @__klap_grid_enter(i32 1, i32 12, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0)
; CHECK:         [[TAGGED:%.*]] = call ptr @__klap_scope_register(ptr [[SCOPE]], i32 0, i32 %blocks, i32 1, i32 1, i32 32, i32 1, i32 1, i32 0)
; CHECK-NEXT:    [[HAS:%.*]] = icmp ne ptr [[TAGGED]], null
; CHECK-NEXT:    br i1 [[HAS]], label %[[STORE:.*]], label %[[AFTER:.*]]
; CHECK:       [[STORE]]:
; CHECK-NEXT:    [[REC:%.*]] = call ptr @__klap_record_args(ptr [[TAGGED]])
; CHECK-NEXT:    [[P1:%.*]] = getelementptr inbounds i8, ptr [[REC]], i64 8
; CHECK-NEXT:    store i32 %mine, ptr [[P1]], align 4
; CHECK-NEXT:    [[FIRST:%.*]] = call i1 @__klap_record_first(ptr [[TAGGED]])
; CHECK-NEXT:    br i1 [[FIRST]], label %[[ONCE:.*]], label
; CHECK:       [[ONCE]]:
; CHECK-NEXT:    store ptr %out, ptr [[REC]], align 8
; The record written, both ways, is released before the thread's exit counts.
; CHECK:         call void @__klap_record_written()
; CHECK-NEXT:    br label
; The original launch, for a thread that got no record.
; CHECK:         call ptr @__cudaCDP2GetParameterBufferV2(ptr @child,
; CHECK:         call i32 @__cudaCDP2LaunchDeviceV2(
; The exit: the last thread of the grid launches the aggregated child into the launch's stream.
; CHECK:         [[LAST:%.*]] = call i1 @__klap_scope_exit(ptr [[SCOPE]], i64 {{%.*}})
; CHECK-NEXT:    br i1 [[LAST]]
; Words 0 and 1 of the parameter buffer (%out) are in the first record only.
; CHECK:         call void @__klap_scope_launch(ptr [[SCOPE]], i32 0, ptr @child__klap, ptr @child, i32 1073741836, i64 3, ptr inttoptr (i64 4 to ptr), ptr null)
; CHECK-NEXT:    call void @__klap_grid_release(ptr [[SCOPE]])
; CHECK:         ret void
; CHECK-NOT:     @__cudaCDP2LaunchDevice(
define ptx_kernel void @parent(ptr %out, i32 %n) {
entry:
  %grid = alloca %struct.dim3, align 8
  %block = alloca %struct.dim3, align 8
  %buf = call ptr @__cudaCDP2GetParameterBuffer(i64 64, i64 12)
  %isnull = icmp eq ptr %buf, null
  br i1 %isnull, label %done, label %launch

launch:
  store ptr %out, ptr %buf, align 64
  %p1 = getelementptr inbounds i8, ptr %buf, i64 8
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %mine = add i32 %n, %tid
  store i32 %mine, ptr %p1, align 8
  %blocks = udiv i32 %n, 32
  store i32 %blocks, ptr %grid, align 8
  %gy = getelementptr inbounds i8, ptr %grid, i64 4
  store i32 1, ptr %gy, align 4
  %gz = getelementptr inbounds i8, ptr %grid, i64 8
  store i32 1, ptr %gz, align 8
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %block, align 8
  %r = call i32 @__cudaCDP2LaunchDevice(ptr @child, ptr %buf, ptr byval(%struct.dim3) align 4 %grid, ptr byval(%struct.dim3) align 4 %block, i32 0, ptr inttoptr (i64 4 to ptr))
  br label %done

done:
  ret void
}

; The variant: record lookup, argument loads, remapped indices. %out, uniform, is the variant's own
; parameter (the launch copies the first record there); %n comes from the block's record. The grid, %n / 32,
; is one over the scope: a record is a division by the first record's blocks (-1).
; CHECK-LABEL: define ptx_kernel void @child__klap(ptr %out, i32 %n, ptr %klap.chunk)
; CHECK:       klap.entry:
; CHECK-NEXT:    [[ARGS:%.*]] = call ptr @__klap_child_enter(ptr %klap.chunk, i32 -1)
; CHECK-NEXT:    [[ACTIVE:%.*]] = icmp ne ptr [[ARGS]], null
; CHECK-NEXT:    br i1 [[ACTIVE]], label %[[BODY:.*]], label %klap.masked
; CHECK:       [[BODY]]:
; CHECK-NEXT:    [[N:%.*]] = getelementptr inbounds i8, ptr [[ARGS]], i64 8
; CHECK-NEXT:    [[NV:%.*]] = load i32, ptr [[N]], align 4
; CHECK-NOT:     sreg.ctaid
; CHECK-NOT:     sreg.ntid
; CHECK-NOT:     @__klap_child_uniform_args
; CHECK:         icmp slt i32 {{%.*}}, [[NV]]
; CHECK:         getelementptr inbounds i32, ptr %out
; CHECK:         ret void
; CHECK:       klap.masked:
; CHECK-NEXT:    ret void
