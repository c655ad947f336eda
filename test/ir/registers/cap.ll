; A kernel that klap puts its device runtime's code into (a parent with a grid scope, the aggregated
; child) gets at most max-registers registers per thread (`.maxnreg`): the runtime's paths, inlined, would
; otherwise set its register count. A kernel whose author bounded it (`__launch_bounds__`, `__maxnreg__`)
; keeps that bound, and a kernel without the runtime in it is left alone. A device function its author kept
; out of line but that klap put the runtime into (its launch now registers) is inlined, so that its kernels
; take the cap: out of line it kept them from it, and at 102 registers a kernel of 1,024-thread blocks calling
; it failed to launch (test/gpu/devfn_launch.cu). max-registers=0: no cap.
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=grid;max-registers=48>' -pass-remarks=klap -pass-remarks-missed=klap -S %s -o %t.ll 2>%t.remarks
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks
; RUN: llc-22 -mtriple=nvptx64-nvidia-cuda -mcpu=sm_90 -mattr=+ptx88 %t.ll -o %t.ptx
; RUN: FileCheck --check-prefix=PTX %s < %t.ptx
; RUN: %ptxas -arch=sm_90 -c %t.ptx -o %t.o
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=grid;max-registers=0>' -S %s -o - | FileCheck --check-prefix=OFF %s
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=none>' -S %s -o - | FileCheck --check-prefix=NONE %s
; RUN: not %opt -load-pass-plugin=%plugin -passes='klap<max-registers=8>' -disable-output %s 2>&1 | FileCheck --check-prefix=BAD %s
; RUN: not %opt -load-pass-plugin=%plugin -passes=klap -klap-max-registers=300 -disable-output %s 2>&1 | FileCheck --check-prefix=BADCL %s

; CHECK-LABEL: define ptx_kernel void @child(ptr %out, i32 %n) {
; CHECK-LABEL: define ptx_kernel void @parent(
; CHECK-SAME:    #[[CAPPED:[0-9]+]]
; CHECK-LABEL: define ptx_kernel void @bounded(
; CHECK-SAME:    #[[BOUNDED:[0-9]+]]
; CHECK-LABEL: define ptx_kernel void @calls_helper(ptr %out, i32 %n) {
; CHECK-LABEL: define ptx_kernel void @calls_recursive(ptr %out, i32 %n) {
; CHECK-LABEL: define ptx_kernel void @calls_launcher(
; CHECK-SAME:    #[[CAPPED]]
; CHECK-NOT:     call void @out_of_line_launch(
; CHECK:         ret void
; CHECK-LABEL: define ptx_kernel void @child__klap(
; CHECK-SAME:    #[[CAPPED]]
; CHECK-DAG:   attributes #[[CAPPED]] = { {{.*}}"nvvm.maxnreg"="48"
; CHECK-DAG:   attributes #[[BOUNDED]] = { "nvvm.maxntid"="256" }

; REMARK-DAG: remark: {{.*}}@parent has klap's device runtime in it: at most 48 registers per thread (.maxnreg, -klap-max-registers){{.*}} [KLAP600]
; REMARK-DAG: remark: {{.*}}@child__klap has klap's device runtime in it: at most 48 registers per thread {{.*}} [KLAP600]
; REMARK-DAG: remark: {{.*}}registers not capped: @calls_helper has klap's device runtime in it, but it calls @helper, which is not inlined: ptxas refuses a capped kernel whose callee takes more [KLAP601]
; REMARK-DAG: remark: {{.*}}registers not capped: @calls_recursive has klap's device runtime in it, but it calls @countdown, which is not inlined: {{.*}} [KLAP601]
; REMARK-DAG: remark: {{.*}}@calls_launcher has klap's device runtime in it: at most 48 registers per thread {{.*}} [KLAP600]
; REMARK-DAG: remark: {{.*}}registers not capped: @bounded has klap's device runtime in it, but its author bounded it ("nvvm.maxntid"="256", from __launch_bounds__ or __maxnreg__): ptxas keeps to that [KLAP601]

; PTX-LABEL: .entry parent(
; PTX:       .maxnreg 48
; PTX-LABEL: .entry bounded(
; PTX-NOT:   .maxnreg
; PTX:       .maxntid 256

; OFF-NOT: maxnreg
; NONE-NOT: maxnreg
; BAD: klap: max-registers needs 0 or a number from 16 to 255
; BADCL: klap: -klap-max-registers must be 0 or a number from 16 to 255, not 300

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
  call void @launch(ptr %out, i32 %n)
  ret void
}

define ptx_kernel void @bounded(ptr %out, i32 %n) #0 {
  call void @launch(ptr %out, i32 %n)
  ret void
}

; A helper that stays a call, and one that calls itself (no inliner inlines it, alwaysinline or not).
define ptx_kernel void @calls_helper(ptr %out, i32 %n) {
  call void @helper(ptr %out)
  call void @launch(ptr %out, i32 %n)
  ret void
}

define ptx_kernel void @calls_recursive(ptr %out, i32 %n) {
  call void @countdown(ptr %out, i32 %n)
  call void @launch(ptr %out, i32 %n)
  ret void
}

; A device function that launches, kept out of line by its author.
define ptx_kernel void @calls_launcher(ptr %out, i32 %n) {
  call void @out_of_line_launch(ptr %out, i32 %n)
  ret void
}

define internal void @out_of_line_launch(ptr %out, i32 %n) noinline {
  call void @launch(ptr %out, i32 %n)
  ret void
}

define internal void @helper(ptr %out) noinline {
  store i32 7, ptr %out, align 4
  ret void
}

define internal void @countdown(ptr %out, i32 %n) alwaysinline {
entry:
  %more = icmp sgt i32 %n, 0
  br i1 %more, label %again, label %done
again:
  %m = sub i32 %n, 1
  store i32 %m, ptr %out, align 4
  call void @countdown(ptr %out, i32 %m)
  br label %done
done:
  ret void
}

define internal void @launch(ptr %out, i32 %n) alwaysinline {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  store %struct.dim3 { i32 4, i32 1, i32 1 }, ptr %g, align 4
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %b, align 4
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

attributes #0 = { "nvvm.maxntid"="256" }
