; A kernel that runs its children's blocks at its end (block reuse) calls klap's barrier functions, which
; stay calls (one barrier instruction for lanes that arrive from different places) and take a few
; registers: it is capped all the same, at 64 as every kernel that runs children's threads itself. Before,
; such a call kept the kernel's registers (KLAP601) like any call that is not inlined.
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=auto;block-reuse;max-registers=48>' -pass-remarks=klap -pass-remarks-missed=klap -S %s -o %t.ll 2>%t.remarks
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks

; CHECK-LABEL: define ptx_kernel void @parent(
; CHECK-SAME:    #[[PARENT:[0-9]+]]
; CHECK:         call i1 @__klap_reuse_barrier(i1 true)
; CHECK-LABEL: define internal i1 @__klap_reuse_barrier(
; CHECK-SAME:    #[[BARRIER:[0-9]+]]
; CHECK-DAG:   attributes #[[PARENT]] = { {{.*}}"nvvm.maxnreg"="64"
; CHECK-DAG:   attributes #[[BARRIER]] = { convergent noinline "klap-barrier" }

; REMARK-DAG: remark: {{.*}}launch of @child run by the launching block at its end{{.*}} [KLAP310]
; REMARK-DAG: remark: {{.*}}@parent has klap's device runtime in it: at most 64 registers per thread {{.*}} [KLAP600]
; REMARK-NOT: [KLAP601]

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.tid.y()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.y()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare void @llvm.nvvm.barrier.cta.sync.aligned.all(i32)

define ptx_kernel void @child(ptr %out) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %c = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %w = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %base = mul i32 %c, %w
  %i = add i32 %base, %t
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %p = getelementptr inbounds i32, ptr %out, i32 %i
  store i32 %i, ptr %p, align 4
  ret void
}

define ptx_kernel void @plain(ptr %out) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %p = getelementptr inbounds i32, ptr %out, i32 %t
  store i32 %t, ptr %p, align 4
  ret void
}

define ptx_kernel void @parent(ptr %out, i32 %n) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %w = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %lone = icmp eq i32 %t, 0
  br i1 %lone, label %launch, label %done
launch:
  %l.grid = alloca %struct.dim3, align 4
  %l.block = alloca %struct.dim3, align 4
  store i32 %n, ptr %l.grid, align 4
  %l.gy = getelementptr inbounds i8, ptr %l.grid, i64 4
  store i32 1, ptr %l.gy, align 4
  %l.gz = getelementptr inbounds i8, ptr %l.grid, i64 8
  store i32 1, ptr %l.gz, align 4
  store i32 %w, ptr %l.block, align 4
  %l.by = getelementptr inbounds i8, ptr %l.block, i64 4
  store i32 1, ptr %l.by, align 4
  %l.bz = getelementptr inbounds i8, ptr %l.block, i64 8
  store i32 1, ptr %l.bz, align 4
  %l.buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, ptr byval(%struct.dim3) align 4 %l.grid, ptr byval(%struct.dim3) align 4 %l.block, i32 0)
  %l.ok = icmp ne ptr %l.buf, null
  br i1 %l.ok, label %fill, label %done
fill:
  store ptr %out, ptr %l.buf, align 8
  %l.r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %l.buf, ptr null)
  br label %done
done:
  ret void
}

