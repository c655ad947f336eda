; A V1 launch in a loop at warp granularity: normalize rewrites it first (splitting blocks), and the
; aggregation step must then see the loop as it is now. With the loop analysis cached from before the
; rewrite it saw no loop and launched where the warp reached the launch, the path that hung in loops
; (found by diffing the IR of test/gpu/divergent_loop.cu before and after the move to one pipeline).
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=warp;no-inline-runtime>' -pass-remarks-analysis=klap -S %s -o %t.ll 2>%t.remarks
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBuffer(i64, i64)
declare i32 @__cudaCDP2LaunchDevice(ptr, ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

define ptx_kernel void @child(ptr %out, i32 %k) {
  %i = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %p = getelementptr inbounds i32, ptr %out, i32 %i
  store i32 %k, ptr %p, align 4
  ret void
}

; REMARK: remark: {{.*}}its kernel launches in a loop: the launches of each warp are made when the warp's last thread returns{{.*}}[KLAP213]
; CHECK-LABEL: define ptx_kernel void @parent(
; CHECK:         call ptr @__klap_warp_enter(
; CHECK-NOT:     __klap_warp_chunk
; CHECK:         call ptr @__klap_scope_register(
; CHECK:         call void @__klap_scope_launch(
define ptx_kernel void @parent(ptr %out, i32 %n) {
entry:
  %grid = alloca %struct.dim3, align 4
  %block = alloca %struct.dim3, align 4
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  br label %loop
loop:
  %k = phi i32 [ 0, %entry ], [ %k1, %after ]
  %buf = call ptr @__cudaCDP2GetParameterBuffer(i64 64, i64 16)
  %isnull = icmp eq ptr %buf, null
  br i1 %isnull, label %after, label %launch
launch:
  store ptr %out, ptr %buf, align 8
  %a1 = getelementptr inbounds i8, ptr %buf, i64 8
  store i32 %k, ptr %a1, align 4
  store i32 4, ptr %grid, align 4
  %gy = getelementptr inbounds i8, ptr %grid, i64 4
  store i32 1, ptr %gy, align 4
  %gz = getelementptr inbounds i8, ptr %grid, i64 8
  store i32 1, ptr %gz, align 4
  store i32 32, ptr %block, align 4
  %by = getelementptr inbounds i8, ptr %block, i64 4
  store i32 1, ptr %by, align 4
  %bz = getelementptr inbounds i8, ptr %block, i64 8
  store i32 1, ptr %bz, align 4
  %r = call i32 @__cudaCDP2LaunchDevice(ptr @child, ptr %buf, ptr byval(%struct.dim3) align 4 %grid, ptr byval(%struct.dim3) align 4 %block, i32 0, ptr null)
  br label %after
after:
  %k1 = add i32 %k, 1
  %more = icmp ult i32 %k1, %tid
  br i1 %more, label %loop, label %exit
exit:
  ret void
}
