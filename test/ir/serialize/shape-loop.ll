; A launch in a loop, of a child whose size changes each iteration (%i blocks of 32 threads): the size is
; checked at run time at every iteration, in the loop, and the child is serialized or launched there
; (aggregation disabled), or SPAWN's controller asks there; under auto the launch for a larger child
; registers into the grid scope at every iteration (records, one per iteration), launched once at the
; scope's end, after the loop.
; RUN: %opt -load-pass-plugin=%plugin -klap-disable-aggregate -klap-disable-malloc -passes='klap<granularity=grid;serialize;serialize-small-grid-threshold=0;no-inline-runtime>' -pass-remarks=klap -pass-remarks-missed=klap -S %s -o %t.ll 2>%t.remarks
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks
; RUN: %opt -load-pass-plugin=%plugin -klap-disable-aggregate -klap-disable-malloc -passes='klap<granularity=grid;spawn;no-inline-runtime>' -pass-remarks=klap -pass-remarks-missed=klap -S %s -o %t.spawn.ll 2>%t.spawn.remarks
; RUN: FileCheck --check-prefix=SPAWN %s < %t.spawn.ll
; RUN: FileCheck --check-prefix=SPAWN-REMARK %s < %t.spawn.remarks
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=auto;no-inline-runtime>' -pass-remarks=klap -pass-remarks-missed=klap -S %s -o %t.auto.ll 2>%t.auto.remarks
; RUN: FileCheck --check-prefix=AUTO %s < %t.auto.ll
; RUN: FileCheck --check-prefix=AUTO-REMARK %s < %t.auto.remarks

; REMARK: remark: {{.*}}launch of @child serialized: the launching thread runs its threads when there are at most 32 (checked at run time; larger ones are launched) [KLAP300]
; SPAWN-REMARK: remark: {{.*}}launch of @child serialized: the launching thread runs its threads where SPAWN's controller estimates that sooner than a launch {{.*}} [KLAP309]
; AUTO-REMARK-DAG: remark: {{.*}}launch of @child serialized: {{.*}}(checked at run time; larger ones are launched) [KLAP300]
; AUTO-REMARK-DAG: remark: {{.*}}launch of @child aggregated at grid granularity (12 argument bytes per record, 8 of them passed once{{.*}} [KLAP200]

; CHECK-LABEL: define ptx_kernel void @parent(
; CHECK:       body:
; CHECK-NEXT:    %i = phi i32
; CHECK:         [[WIDE:%.*]] = zext i32 %i to i64
; CHECK-NEXT:    [[PRODUCT:%.*]] = mul i64 32, [[WIDE]]
; CHECK:         [[SMALL:%.*]] = icmp ule i64 {{%.*}}, 32
; CHECK:         [[SERIAL:%serial.*]] = and i1 [[SMALL]], {{%.*}}
; CHECK-NEXT:    br i1 [[SERIAL]]
; CHECK:         call void @child__klap_serial(ptr %out, i32 %i, i32 %i, i32 1, i32 1, i32 32, i32 1, i32 1, i64 -1)
; CHECK:         call i32 @__cudaCDP2LaunchDeviceV2(
; CHECK:       latch:
; CHECK:         br i1 %more, label %body, label %done

; SPAWN-LABEL: define ptx_kernel void @parent(
; SPAWN:       body:
; SPAWN:         call i1 @__klap_spawn_serial(
; SPAWN:         call void @child__klap_serial(ptr %out, i32 %i, i32 %i,
; SPAWN:         call i32 @__cudaCDP2LaunchDeviceV2(
; SPAWN:       latch:
; SPAWN:         br i1 %more, label %body, label %done

; AUTO-LABEL: define ptx_kernel void @parent(
; AUTO:          [[SCOPE:%.*]] = call ptr @__klap_grid_enter_per_block(
; AUTO:        body:
; AUTO:          call void @child__klap_serial(ptr %out, i32 %i, i32 %i,
; AUTO:          call ptr @__klap_scope_register(ptr [[SCOPE]], i32 0, i32 %i, i32 1, i32 1, i32 32, i32 1, i32 1, i32 0)
; AUTO:        latch:
; AUTO:          br i1 %more, label %body, label %done
; AUTO:        done:
; AUTO-NOT:      __klap_scope_register
; AUTO:          call i1 @__klap_scope_exit(ptr [[SCOPE]],
; AUTO:          call void @__klap_scope_launch(ptr [[SCOPE]], i32 0, ptr @child__klap, ptr @child,

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

; for (i = 1; i < n; ++i) child<<<i, 32>>>(out, i);
define ptx_kernel void @parent(ptr %out, i32 %n) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  %any = icmp sgt i32 %n, 1
  br i1 %any, label %body, label %done
body:
  %i = phi i32 [ 1, %entry ], [ %i1, %latch ]
  %gv = insertvalue %struct.dim3 { i32 poison, i32 1, i32 1 }, i32 %i, 0
  store %struct.dim3 %gv, ptr %g, align 4
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  %ok = icmp ne ptr %buf, null
  br i1 %ok, label %fill, label %latch
fill:
  store ptr %out, ptr %buf, align 8
  %a1 = getelementptr inbounds i8, ptr %buf, i64 8
  store i32 %i, ptr %a1, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  br label %latch
latch:
  %i1 = add i32 %i, 1
  %more = icmp slt i32 %i1, %n
  br i1 %more, label %body, label %done
done:
  ret void
}
