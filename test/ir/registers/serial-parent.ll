; A kernel that runs its children's threads itself (here serialized: a child of at most 32 threads, known
; at run time, runs in the launching thread; larger ones are aggregated) is capped at 64 registers at
; least, not at max-registers: the serialized child's loop is hot code that a lower cap would make spill,
; and 64 is what a block of 1024 threads needs to launch. Its aggregated child is capped at max-registers.
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=auto;max-registers=48>' -pass-remarks=klap -pass-remarks-missed=klap -S %s -o %t.ll 2>%t.remarks
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks

; CHECK-LABEL: define ptx_kernel void @parent(
; CHECK-SAME:    #[[PARENT:[0-9]+]]
; CHECK-LABEL: define ptx_kernel void @child__klap(
; CHECK-SAME:    #[[CAPPED:[0-9]+]]
; CHECK-DAG:   attributes #[[PARENT]] = { {{.*}}"nvvm.maxnreg"="64"
; CHECK-DAG:   attributes #[[CAPPED]] = { {{.*}}"nvvm.maxnreg"="48"

; REMARK-DAG: remark: {{.*}}launch of @child serialized{{.*}} [KLAP300]
; REMARK-DAG: remark: {{.*}}@parent has klap's device runtime in it: at most 64 registers per thread (.maxnreg, -klap-max-registers): it runs children's threads itself (serialized, or run by its warps or blocks), in loops that a lower cap would make spill, so at most 64: a block of 1024 threads still launches, and one of 256 keeps 4 blocks a multiprocessor [KLAP600]
; REMARK-DAG: remark: {{.*}}@child__klap has klap's device runtime in it: at most 48 registers per thread {{.*}} [KLAP600]

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

define ptx_kernel void @child(ptr %out, i32 %n) {
  %i = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %p = getelementptr inbounds i32, ptr %out, i32 %i
  store i32 %n, ptr %p, align 4
  ret void
}

define ptx_kernel void @parent(ptr %out, i32 %n) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %g, align 4
  %bv = insertvalue %struct.dim3 { i32 poison, i32 1, i32 1 }, i32 %n, 0
  store %struct.dim3 %bv, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  %ok = icmp ne ptr %buf, null
  br i1 %ok, label %fill, label %after
fill:
  store ptr %out, ptr %buf, align 8
  %a1 = getelementptr inbounds i8, ptr %buf, i64 8
  store i32 %n, ptr %a1, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  br label %after
after:
  ret void
}
