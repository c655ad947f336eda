; klap's device runtime needs PTX ISA 8.6 (its one-way fences). A module compiled for an older PTX version
; (clang sets it from the CUDA tree, in every function's target features) gets an error at the pass that
; would link the runtime, naming both versions, instead of a ptxas error about code the user never wrote.
; At 8.6 the launch is aggregated.
; RUN: not %opt -load-pass-plugin=%plugin -passes='klap<granularity=grid>' -disable-output %s 2>&1 | FileCheck --check-prefix=OLD %s
; RUN: sed 's/+ptx84/+ptx86/' %s | %opt -load-pass-plugin=%plugin -passes='klap<granularity=grid>' -pass-remarks=klap -disable-output 2>&1 | FileCheck --check-prefix=NEW %s
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=none>' -S %s | FileCheck --check-prefix=NONE %s

; OLD: klap: error: klap's device runtime needs PTX ISA 8.6 or later, and this module is compiled for PTX 8.4
; NEW: launch of @child aggregated at grid granularity
; At granularity none nothing links the runtime: the launch is normalized and kept.
; NONE-LABEL: define ptx_kernel void @parent(
; NONE: call i32 @__cudaCDP2LaunchDeviceV2(
; NONE-NOT: @klap_pool

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBuffer(i64, i64)
declare i32 @__cudaCDP2LaunchDevice(ptr, ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

define ptx_kernel void @child(ptr %out) #0 {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %p = getelementptr inbounds i32, ptr %out, i32 %t
  store i32 1, ptr %p, align 4
  ret void
}

define ptx_kernel void @parent(ptr %out) #0 {
entry:
  %grid = alloca %struct.dim3, align 8
  %block = alloca %struct.dim3, align 8
  %buf = call ptr @__cudaCDP2GetParameterBuffer(i64 64, i64 8)
  %isnull = icmp eq ptr %buf, null
  br i1 %isnull, label %done, label %launch

launch:
  store ptr %out, ptr %buf, align 64
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %grid, align 8
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %block, align 8
  %r = call i32 @__cudaCDP2LaunchDevice(ptr @child, ptr %buf, ptr byval(%struct.dim3) align 4 %grid, ptr byval(%struct.dim3) align 4 %block, i32 0, ptr null)
  br label %done

done:
  ret void
}

attributes #0 = { "target-cpu"="sm_90" "target-features"="+ptx84,+sm_90" }
