; At warp granularity the NULL-stream and fire-and-forget launches of a kernel that also tail-launches
; stay as written (measured hangs, not yet understood); the tail launch itself is aggregated.
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=warp;no-inline-runtime>' -pass-remarks-missed=klap -S %s -o %t.ll 2>%t.remarks
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)

define ptx_kernel void @child(i32 %n) {
  ret void
}

; REMARK-COUNT-2: launch not aggregated: in a kernel that also tail-launches, a launch into another stream is not aggregated at warp granularity (known hang) [KLAP205]
; CHECK-LABEL: define ptx_kernel void @parent(
; CHECK:         call void @__klap_launch_chunk(ptr {{%.*}}, ptr @child__klap, ptr @child, i32 4, i64 1, ptr inttoptr (i64 3 to ptr))
; CHECK:         call i32 @__cudaCDP2LaunchDeviceV2(ptr {{%.*}}, ptr null)
; CHECK:         call i32 @__cudaCDP2LaunchDeviceV2(ptr {{%.*}}, ptr inttoptr (i64 4 to ptr))
; CHECK-NOT:     call void @__klap_launch_chunk
; CHECK:         ret void
define ptx_kernel void @parent(i32 %n) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %g, align 4
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %b, align 4
  %t = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  store i32 %n, ptr %t, align 4
  %rt = call i32 @__cudaCDP2LaunchDeviceV2(ptr %t, ptr inttoptr (i64 3 to ptr))
  %u = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  store i32 %n, ptr %u, align 4
  %ru = call i32 @__cudaCDP2LaunchDeviceV2(ptr %u, ptr null)
  %v = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  store i32 %n, ptr %v, align 4
  %rv = call i32 @__cudaCDP2LaunchDeviceV2(ptr %v, ptr inttoptr (i64 4 to ptr))
  ret void
}
