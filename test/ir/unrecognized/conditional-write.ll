; An argument written on only one side of a branch before the launch: on the other path the child
; would get whatever the buffer held. klap cannot move or rewrite such writes, so it leaves the launch
; alone (reason=conditional-write) naming the offset of the write.
; RUN: %opt -load-pass-plugin=%plugin -passes='print<klap-launches>' -disable-output %s 2>&1 | FileCheck %s

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBuffer(i64, i64)
declare i32 @__cudaCDP2LaunchDevice(ptr, ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32, ptr)

define ptx_kernel void @child(ptr %p, i32 %v) {
  ret void
}

; CHECK-NOT: klap-launch:
; CHECK: klap-launch-unrecognized: caller=parent abi=v1 reason=conditional-write detail="the write of the argument at offset 8 does not always happen before the launch"
; CHECK-NOT: klap-launch
define ptx_kernel void @parent(ptr %p, i32 %v, i1 %set) {
entry:
  %grid = alloca %struct.dim3, align 8
  %block = alloca %struct.dim3, align 8
  %buf = call ptr @__cudaCDP2GetParameterBuffer(i64 64, i64 12)
  store ptr %p, ptr %buf, align 64
  %pv = getelementptr inbounds i8, ptr %buf, i64 8
  br i1 %set, label %write, label %launch

write:
  store i32 %v, ptr %pv, align 8
  br label %launch

launch:
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %grid, align 8
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %block, align 8
  %r = call i32 @__cudaCDP2LaunchDevice(ptr @child, ptr %buf, ptr byval(%struct.dim3) align 4 %grid, ptr byval(%struct.dim3) align 4 %block, i32 0, ptr null)
  ret void
}
