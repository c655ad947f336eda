; Where a launch sits in its caller's control flow: loop= is the loop depth of the launch (a launch in
; a loop makes one child per iteration), divergent= whether threads of one warp can disagree on
; reaching it (a branch or loop exit that depends on threadIdx.x), as opposed to a branch on a value
; every thread shares (a kernel argument). The parameter-buffer null check itself never counts.
; Divergence comes from LLVM's uniformity analysis, which needs the NVPTX target of the triple.
; RUN: %opt -load-pass-plugin=%plugin -passes='print<klap-launches>' -disable-output %s 2>&1 | FileCheck %s

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, %struct.dim3, %struct.dim3, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

define ptx_kernel void @child(i32 %v) {
  ret void
}

; A loop whose trip count every thread shares: loop=1, not divergent.
; CHECK: klap-launch: caller=in_loop child=child abi=v2 grid=(1,1,1) block=(32,1,1) dims=value smem=0 stream=null args=1 [0:i32=%i] loop=1 divergent=no
define ptx_kernel void @in_loop(i32 %n) {
entry:
  %any = icmp sgt i32 %n, 0
  br i1 %any, label %body, label %exit

body:
  %i = phi i32 [ 0, %entry ], [ %next, %latch ]
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, %struct.dim3 { i32 1, i32 1, i32 1 }, %struct.dim3 { i32 32, i32 1, i32 1 }, i32 0)
  %isnull = icmp eq ptr %buf, null
  br i1 %isnull, label %latch, label %store

store:
  store i32 %i, ptr %buf, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  br label %latch

latch:
  %next = add nuw nsw i32 %i, 1
  %more = icmp slt i32 %next, %n
  br i1 %more, label %body, label %exit

exit:
  ret void
}

; Only thread 0 of each block launches: divergent.
; CHECK: klap-launch: caller=tid_branch child=child abi=v2 grid=(1,1,1) block=(32,1,1) dims=value smem=0 stream=null args=1 [0:i32=%tid] loop=0 divergent=yes
define ptx_kernel void @tid_branch() {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %first = icmp eq i32 %tid, 0
  br i1 %first, label %then, label %exit

then:
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, %struct.dim3 { i32 1, i32 1, i32 1 }, %struct.dim3 { i32 32, i32 1, i32 1 }, i32 0)
  %isnull = icmp eq ptr %buf, null
  br i1 %isnull, label %exit, label %store

store:
  store i32 %tid, ptr %buf, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  br label %exit

exit:
  ret void
}

; A branch on a kernel argument: every thread of the grid goes the same way.
; CHECK: klap-launch: caller=arg_branch child=child abi=v2 grid=(1,1,1) block=(32,1,1) dims=value smem=0 stream=null args=1 [0:i32=%v] loop=0 divergent=no
define ptx_kernel void @arg_branch(i32 %v, i1 %flag) {
entry:
  br i1 %flag, label %then, label %exit

then:
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, %struct.dim3 { i32 1, i32 1, i32 1 }, %struct.dim3 { i32 32, i32 1, i32 1 }, i32 0)
  %isnull = icmp eq ptr %buf, null
  br i1 %isnull, label %exit, label %store

store:
  store i32 %v, ptr %buf, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  br label %exit

exit:
  ret void
}

; Thread t launches t + 1 times: the loop is entered by every thread, only its exit is divergent.
; CHECK: klap-launch: caller=tid_loop child=child abi=v2 grid=(1,1,1) block=(32,1,1) dims=value smem=0 stream=null args=1 [0:i32=%i] loop=1 divergent=yes
; CHECK-NOT: klap-launch
define ptx_kernel void @tid_loop() {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  br label %body

body:
  %i = phi i32 [ 0, %entry ], [ %next, %latch ]
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, %struct.dim3 { i32 1, i32 1, i32 1 }, %struct.dim3 { i32 32, i32 1, i32 1 }, i32 0)
  %isnull = icmp eq ptr %buf, null
  br i1 %isnull, label %latch, label %store

store:
  store i32 %i, ptr %buf, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  br label %latch

latch:
  %next = add nuw i32 %i, 1
  %more = icmp ule i32 %next, %tid
  br i1 %more, label %body, label %exit

exit:
  ret void
}
