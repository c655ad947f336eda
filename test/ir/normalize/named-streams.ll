; The launches clang 22 loses on CUDA 13: into cudaStreamTailLaunch (0x3) and cudaStreamFireAndForget
; (0x4). Normalized, each goes through __cudaCDP2LaunchDeviceV2 with its stream handle kept, and the
; remark says so.
; RUN: %opt -load-pass-plugin=%plugin -passes=klap-normalize -pass-remarks=klap -S %s -o - 2>%t.remarks | FileCheck %s
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBuffer(i64, i64)
declare i32 @__cudaCDP2LaunchDevice(ptr, ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32, ptr)

define ptx_kernel void @count(ptr %counter) {
  ret void
}

; REMARK: remark: <unknown>:0:0: V1 launch of @count rewritten into the V2 form [KLAP120]
; REMARK: remark: <unknown>:0:0: V1 launch of @count rewritten into the V2 form [KLAP120]

; CHECK-LABEL: define ptx_kernel void @parent(
; CHECK:         call i32 @__cudaCDP2LaunchDeviceV2(ptr {{%.*}}, ptr inttoptr (i64 4 to ptr))
; CHECK:         call i32 @__cudaCDP2LaunchDeviceV2(ptr {{%.*}}, ptr inttoptr (i64 3 to ptr))
; CHECK-NOT:     call i32 @__cudaCDP2LaunchDevice(
define ptx_kernel void @parent(ptr %counters) {
entry:
  %g = alloca %struct.dim3, align 8
  %b = alloca %struct.dim3, align 8
  %buf = call ptr @__cudaCDP2GetParameterBuffer(i64 64, i64 8)
  store ptr %counters, ptr %buf, align 64
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %g, align 8
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %b, align 8
  %r0 = call i32 @__cudaCDP2LaunchDevice(ptr @count, ptr %buf, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0, ptr inttoptr (i64 4 to ptr))
  %second = getelementptr inbounds i8, ptr %counters, i64 4
  %buf2 = call ptr @__cudaCDP2GetParameterBuffer(i64 64, i64 8)
  store ptr %second, ptr %buf2, align 64
  %r1 = call i32 @__cudaCDP2LaunchDevice(ptr @count, ptr %buf2, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0, ptr inttoptr (i64 3 to ptr))
  ret void
}
