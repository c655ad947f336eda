; A branch whose two sides join again before the launch decides nothing about reaching the launch,
; even when it is divergent: every thread that takes either side gets to the launch (the launch's own
; parameter-buffer null check, which follows the join, must not hide that). Two cases clang emits all
; the time: a divergent if-then on threadIdx.x before the launch (@after_tid_if), and two launches
; one after the other (@sequential), where the first launch's null check comes before the second.
; None of these launches is divergent.
; RUN: %opt -load-pass-plugin=%plugin -passes='print<klap-launches>' -disable-output %s 2>&1 | FileCheck %s

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBuffer(i64, i64)
declare i32 @__cudaCDP2LaunchDevice(ptr, ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

define ptx_kernel void @child(i32 %v) {
  ret void
}

; CHECK: klap-launch: caller=after_tid_if child=child abi=v1 grid=(1,1,1) block=(32,1,1) dims=byval smem=0 stream=null args=1 [0:i32=0] loop=0 divergent=no
define ptx_kernel void @after_tid_if(ptr %flag) {
entry:
  %grid = alloca %struct.dim3, align 8
  %block = alloca %struct.dim3, align 8
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %first = icmp eq i32 %tid, 0
  br i1 %first, label %set, label %join

set:
  store i32 1, ptr %flag, align 4
  br label %join

join:
  %buf = call ptr @__cudaCDP2GetParameterBuffer(i64 64, i64 4)
  %isnull = icmp eq ptr %buf, null
  br i1 %isnull, label %done, label %launch

launch:
  store i32 0, ptr %buf, align 64
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %grid, align 8
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %block, align 8
  %r = call i32 @__cudaCDP2LaunchDevice(ptr @child, ptr %buf, ptr byval(%struct.dim3) align 4 %grid, ptr byval(%struct.dim3) align 4 %block, i32 0, ptr null)
  br label %done

done:
  ret void
}

; CHECK-NEXT: klap-launch: caller=sequential child=child abi=v1 grid=(1,1,1) block=(32,1,1) dims=byval smem=0 stream=null args=1 [0:i32=1] loop=0 divergent=no
; CHECK-NEXT: klap-launch: caller=sequential child=child abi=v1 grid=(1,1,1) block=(32,1,1) dims=byval smem=0 stream=null args=1 [0:i32=2] loop=0 divergent=no
; CHECK-NOT: klap-launch
define ptx_kernel void @sequential() {
entry:
  %grid = alloca %struct.dim3, align 8
  %block = alloca %struct.dim3, align 8
  %buf1 = call ptr @__cudaCDP2GetParameterBuffer(i64 64, i64 4)
  %isnull1 = icmp eq ptr %buf1, null
  br i1 %isnull1, label %second, label %launch1

launch1:
  store i32 1, ptr %buf1, align 64
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %grid, align 8
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %block, align 8
  %r1 = call i32 @__cudaCDP2LaunchDevice(ptr @child, ptr %buf1, ptr byval(%struct.dim3) align 4 %grid, ptr byval(%struct.dim3) align 4 %block, i32 0, ptr null)
  br label %second

second:
  %buf2 = call ptr @__cudaCDP2GetParameterBuffer(i64 64, i64 4)
  %isnull2 = icmp eq ptr %buf2, null
  br i1 %isnull2, label %done, label %launch2

launch2:
  store i32 2, ptr %buf2, align 64
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %grid, align 8
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %block, align 8
  %r2 = call i32 @__cudaCDP2LaunchDevice(ptr @child, ptr %buf2, ptr byval(%struct.dim3) align 4 %grid, ptr byval(%struct.dim3) align 4 %block, i32 0, ptr null)
  br label %done

done:
  ret void
}
