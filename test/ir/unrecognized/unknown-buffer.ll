; The buffer handed to the launch must be the result of that ABI's parameter-buffer call: klap reads
; the layout and (in V2) the configuration from that one call. A buffer that is a phi of two
; parameter-buffer calls, or the result of some unrelated call, is left alone (reason=unknown-buffer).
; RUN: %opt -load-pass-plugin=%plugin -passes='print<klap-launches>' -disable-output %s 2>&1 | FileCheck %s

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBuffer(i64, i64)
declare i32 @__cudaCDP2LaunchDevice(ptr, ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32, ptr)
declare ptr @__cudaCDP2GetParameterBufferV2(ptr, %struct.dim3, %struct.dim3, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare ptr @malloc(i64)

define ptx_kernel void @child(i32 %v) {
  ret void
}

; CHECK-NOT: klap-launch:
; CHECK: klap-launch-unrecognized: caller=phi_of_buffers abi=v1 reason=unknown-buffer detail="the parameter buffer %buf is not the result of a v1 parameter-buffer call"
define ptx_kernel void @phi_of_buffers(i32 %v, i1 %which) {
entry:
  %grid = alloca %struct.dim3, align 8
  %block = alloca %struct.dim3, align 8
  br i1 %which, label %a, label %b

a:
  %buf.a = call ptr @__cudaCDP2GetParameterBuffer(i64 64, i64 4)
  br label %launch

b:
  %buf.b = call ptr @__cudaCDP2GetParameterBuffer(i64 64, i64 4)
  br label %launch

launch:
  %buf = phi ptr [ %buf.a, %a ], [ %buf.b, %b ]
  store i32 %v, ptr %buf, align 64
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %grid, align 8
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %block, align 8
  %r = call i32 @__cudaCDP2LaunchDevice(ptr @child, ptr %buf, ptr byval(%struct.dim3) align 4 %grid, ptr byval(%struct.dim3) align 4 %block, i32 0, ptr null)
  ret void
}

; CHECK-NEXT: klap-launch-unrecognized: caller=unrelated_call abi=v2 reason=unknown-buffer detail="the parameter buffer %buf is not the result of a v2 parameter-buffer call"
define ptx_kernel void @unrelated_call(i32 %v) {
entry:
  %buf = call ptr @malloc(i64 4)
  store i32 %v, ptr %buf, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  ret void
}

; A V1 buffer handed to a V2 launch is no V2 buffer either.
; CHECK-NEXT: klap-launch-unrecognized: caller=other_abi abi=v2 reason=unknown-buffer detail="the parameter buffer %buf is not the result of a v2 parameter-buffer call"
; CHECK-NOT: klap-launch
define ptx_kernel void @other_abi(i32 %v) {
entry:
  %buf = call ptr @__cudaCDP2GetParameterBuffer(i64 64, i64 4)
  store i32 %v, ptr %buf, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  ret void
}
