; Recursion (a kernel that launches itself): its threads launch kernels of their own, so serialization
; cannot run them one by one in the launching thread (KLAP301 names the launch), with aggregation disabled,
; with SPAWN's controller and under auto; the launch stays a launch (no serial variant of @rec is made). Under
; auto, what serialization leaves is aggregated at grid granularity: the aggregated variant @rec__klap
; launches itself again through its own scope, and it is not coarsened (KLAP621: it launches).
; RUN: %opt -load-pass-plugin=%plugin -klap-disable-aggregate -klap-disable-malloc -passes='klap<granularity=grid;serialize;no-inline-runtime>' -pass-remarks=klap -pass-remarks-missed=klap -S %s -o %t.ll 2>%t.remarks
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks
; RUN: %opt -load-pass-plugin=%plugin -klap-disable-aggregate -klap-disable-malloc -passes='klap<granularity=grid;spawn;no-inline-runtime>' -pass-remarks=klap -pass-remarks-missed=klap -S %s -o %t.spawn.ll 2>%t.spawn.remarks
; RUN: FileCheck %s < %t.spawn.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.spawn.remarks
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=auto;no-inline-runtime>' -pass-remarks=klap -pass-remarks-missed=klap -S %s -o %t.auto.ll 2>%t.auto.remarks
; RUN: FileCheck --check-prefix=AUTO %s < %t.auto.ll
; RUN: FileCheck --check-prefixes=REMARK,AUTO-REMARK %s < %t.auto.remarks

; REMARK: remark: {{.*}}launch not serialized: the threads of @rec cannot run one by one, nor a warp at a time: it launches kernels itself (in @rec) [KLAP301]
; REMARK-NOT: KLAP300
; REMARK-NOT: KLAP309
; AUTO-REMARK-DAG: remark: {{.*}}child not coarsened: each block of @rec's aggregated child runs one aggregated block: it launches kernels itself (in @rec) [KLAP621]
; AUTO-REMARK-DAG: remark: {{.*}}launch of @rec aggregated at grid granularity {{.*}} [KLAP200]

; CHECK-NOT:     __klap_serial
; CHECK-NOT:     __klap_spawn_serial
; CHECK-LABEL: define ptx_kernel void @rec(
; CHECK:         call ptr @__cudaCDP2GetParameterBufferV2(ptr @rec,
; CHECK:         call i32 @__cudaCDP2LaunchDeviceV2(
; CHECK:         ret void
; CHECK-NOT:     __klap_serial
; CHECK-NOT:     __klap_spawn_serial

; AUTO-NOT:      __klap_serial
; AUTO-LABEL: define ptx_kernel void @rec(
; AUTO:          [[SCOPE:%.*]] = call ptr @__klap_grid_enter_per_block(
; AUTO:          call ptr @__klap_scope_register(ptr [[SCOPE]], i32 0, i32 1, i32 1, i32 1, i32 32, i32 1, i32 1, i32 0)
; AUTO:          call ptr @__cudaCDP2GetParameterBufferV2(ptr @rec,
; AUTO:          call void @__klap_scope_launch(ptr [[SCOPE]], i32 0, ptr @rec__klap, ptr @rec,
; AUTO-LABEL: define ptx_kernel void @rec__klap(
; AUTO-NOT:      coarse
; AUTO:          call ptr @__klap_scope_register(
; AUTO:          call void @__klap_scope_launch(ptr {{%.*}}, i32 0, ptr @rec__klap, ptr @rec,
; AUTO-NOT:      __klap_serial

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

; Each thread writes its depth; while %n is positive, every thread launches the next level, 32 threads.
define ptx_kernel void @rec(ptr %out, i32 %n) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %p = getelementptr inbounds i32, ptr %out, i32 %t
  store i32 %n, ptr %p, align 4
  %more = icmp sgt i32 %n, 0
  br i1 %more, label %go, label %done
go:
  %n1 = sub i32 %n, 1
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %g, align 4
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @rec, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  %ok = icmp ne ptr %buf, null
  br i1 %ok, label %fill, label %done
fill:
  store ptr %out, ptr %buf, align 8
  %a1 = getelementptr inbounds i8, ptr %buf, i64 8
  store i32 %n1, ptr %a1, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  br label %done
done:
  ret void
}
