; SPAWN's controller (-klap-spawn): a launch serialization could run in the launching thread asks the
; runtime at run time (runtime/spawn.cu), but for a constant size within the threshold (always serialized);
; the serialized run is timed around the call; the launch that remains is aggregated. Without aggregation the controller is linked
; alone (no aggregated child times its blocks: the thresholds' answer holds).
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=grid;spawn;spawn-launch-cycles=3000;spawn-max-threads=512;no-inline-runtime>' -pass-remarks=klap -S %s -o %t.ll 2>%t.remarks
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks
; RUN: %opt -load-pass-plugin=%plugin -klap-disable-aggregate -klap-disable-malloc -passes='klap<granularity=grid;spawn;no-inline-runtime>' -S %s -o %t.none.ll
; RUN: FileCheck --check-prefix=NONE %s < %t.none.ll
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=grid;serialize;no-inline-runtime>' -S %s -o %t.off.ll
; RUN: FileCheck --check-prefix=OFF %s < %t.off.ll

; REMARK: remark: {{.*}}launch of @child serialized: the launching thread runs its threads where SPAWN's controller estimates that sooner than a launch (decided at run time, at most 512 threads or what the thresholds take; until a child block has been timed, at most 32 (1024 where {{.*}})) [KLAP309]
; REMARK: remark: {{.*}}launch of @child serialized: the launching thread runs its 8 threads always [KLAP300]

; CHECK-DAG: @klap_spawn = internal addrspace(1) constant i32 1
; CHECK-DAG: @klap_spawn_state = internal addrspace(1)
; CHECK-LABEL: define ptx_kernel void @parent(
; CHECK:         [[THRESHOLDS:%.*]] = select i1 {{.*}}, i1 {{.*}}, i1
; CHECK:         [[ASKED:%.*]] = call i1 @__klap_spawn_serial(i64 [[WORK:%.*]], i64 [[BLOCKS:%.*]], i32 32, i1 [[THRESHOLDS]], i64 3000)
; CHECK-NEXT:    [[BOUND:%.*]] = icmp ule i64 [[WORK]], 512
; CHECK-NEXT:    [[WITHIN:%.*]] = or i1 [[BOUND]], [[THRESHOLDS]]
; CHECK-NEXT:    [[CHOSEN:%.*]] = and i1 [[ASKED]], [[WITHIN]]
; CHECK-NEXT:    [[SERIAL:%serial.*]] = and i1 [[CHOSEN]], {{%.*}}
; CHECK-NEXT:    br i1 [[SERIAL]]
; CHECK:         [[START:%.*]] = call i64 @__klap_spawn_run_start()
; CHECK-NEXT:    call void @child__klap_serial(
; CHECK-NEXT:    call void @__klap_spawn_run_end(i64 [[START]], i64 [[WORK]])
; CHECK:         call ptr @__klap_scope_register(
; A constant size within the threshold is serialized always, without asking.
; CHECK-NOT:     call i1 @__klap_spawn_serial(
; CHECK:         call void @child__klap_serial(ptr %out, i32 %n, i32 1, i32 1, i32 1, i32 8,
; CHECK-NOT:     call i1 @__klap_spawn_serial(
; The aggregated child times a sample of its blocks; registrations count what they queue.
; CHECK-LABEL: define internal ptr @__klap_child_enter(
; CHECK:         @klap_spawn_started
; CHECK-LABEL: define internal void @__klap_child_exit(
; CHECK:         red.relaxed.gpu.add.u64
; CHECK-LABEL: define internal zeroext i1 @__klap_spawn_serial(

; NONE-LABEL: define ptx_kernel void @parent(
; NONE:         call i1 @__klap_spawn_serial(
; NONE:         call i32 @__cudaCDP2LaunchDeviceV2(
; NONE-LABEL: define internal zeroext i1 @__klap_spawn_serial(
; NONE-NOT:     @klap_spawn =

; Without -klap-spawn: the thresholds alone; the runtime's counting is off (and folds away once inlined).
; OFF: @klap_spawn = internal addrspace(1) constant i32 0
; OFF-NOT: call {{.*}}@__klap_spawn_
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
define ptx_kernel void @child(ptr %out, i32 %k) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %c = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %w = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %base = mul i32 %c, %w
  %i = add i32 %base, %t
  %p = getelementptr inbounds i32, ptr %out, i32 %i
  store i32 %k, ptr %p, align 4
  ret void
}
define ptx_kernel void @parent(ptr %out, i32 %n) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  %gv = insertvalue %struct.dim3 { i32 poison, i32 1, i32 1 }, i32 %n, 0
  store %struct.dim3 %gv, ptr %g, align 4
  %bv = insertvalue %struct.dim3 { i32 poison, i32 1, i32 1 }, i32 32, 0
  store %struct.dim3 %bv, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  %ok = icmp ne ptr %buf, null
  br i1 %ok, label %fill, label %second
fill:
  store ptr %out, ptr %buf, align 8
  %a1 = getelementptr inbounds i8, ptr %buf, i64 8
  store i32 %n, ptr %a1, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  br label %second
second:
  %g2 = alloca %struct.dim3, align 4
  %b2 = alloca %struct.dim3, align 4
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %g2, align 4
  store %struct.dim3 { i32 8, i32 1, i32 1 }, ptr %b2, align 4
  %buf2 = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, ptr byval(%struct.dim3) align 4 %g2, ptr byval(%struct.dim3) align 4 %b2, i32 0)
  %ok2 = icmp ne ptr %buf2, null
  br i1 %ok2, label %fill2, label %done
fill2:
  store ptr %out, ptr %buf2, align 8
  %a2 = getelementptr inbounds i8, ptr %buf2, i64 8
  store i32 %n, ptr %a2, align 4
  %r2 = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf2, ptr null)
  br label %done
done:
  ret void
}
