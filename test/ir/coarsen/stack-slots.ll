; A coarsened child runs its body once per aggregated block: a fixed-size stack slot that the body takes
; outside its entry (here in a branch) moves to the variant's entry, so that the loop does not take a new
; one on every turn.
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=grid;no-inline-runtime;coarsen=4>' -S %s -o - | FileCheck %s

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

; CHECK-LABEL: define ptx_kernel void @child__klap(
; CHECK:       klap.entry:
; CHECK-NEXT:    {{%.*}} = alloca [4 x i32], align 4
; CHECK:         call i64 @__klap_child_coarse_range(
; CHECK-NOT:     alloca
; CHECK:       }
define ptx_kernel void @child(ptr %out, i32 %n) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %in = icmp slt i32 %t, %n
  br i1 %in, label %work, label %done
work:
  %slot = alloca [4 x i32], align 4
  store volatile i32 %t, ptr %slot, align 4
  %v = load volatile i32, ptr %slot, align 4
  %p = getelementptr inbounds i32, ptr %out, i32 %t
  store i32 %v, ptr %p, align 4
  br label %done
done:
  ret void
}

define ptx_kernel void @parent(ptr %out, i32 %n) {
entry:
  %grid = alloca %struct.dim3, align 8
  %block = alloca %struct.dim3, align 8
  store %struct.dim3 { i32 4, i32 1, i32 1 }, ptr %grid, align 8
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %block, align 8
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %mine = add i32 %n, %tid
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, ptr byval(%struct.dim3) align 4 %grid, ptr byval(%struct.dim3) align 4 %block, i32 0)
  store ptr %out, ptr %buf, align 8
  %bn = getelementptr inbounds i8, ptr %buf, i64 8
  store i32 %mine, ptr %bn, align 8
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr inttoptr (i64 4 to ptr))
  ret void
}
