; An allocation under divergent control flow, its pointer merged with null after the branch and
; selected before the free: only the lanes that take the branch share an allocation, and the free,
; which receives the pointer or null, is klap's (it hands null to the device runtime's cudaFree).
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=warp;no-inline-runtime>' -pass-remarks=klap \
; RUN:   -S %s -o - 2>%t.remarks | FileCheck %s
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

declare i32 @__cudaCDP2Malloc(ptr, i64)
declare i32 @__cudaCDP2Free(ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

; CHECK-LABEL: define ptx_kernel void @odd_lanes(
; CHECK:       odd:
; CHECK:         call i32 @__klap_malloc(ptr %slot, i64 64)
; CHECK:       join:
; CHECK:         call i32 @__klap_free(ptr %freed)
; REMARK: [KLAP500]
define ptx_kernel void @odd_lanes(ptr %out) {
entry:
  %slot = alloca ptr, align 8
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %bit = and i32 %tid, 1
  %is_odd = icmp ne i32 %bit, 0
  br i1 %is_odd, label %odd, label %join

odd:
  %err = call i32 @__cudaCDP2Malloc(ptr %slot, i64 64)
  %ok = icmp eq i32 %err, 0
  %loaded = load ptr, ptr %slot, align 8
  %p = select i1 %ok, ptr %loaded, ptr null
  br label %join

join:
  %m = phi ptr [ %p, %odd ], [ null, %entry ]
  %has = icmp ne ptr %m, null
  %freed = select i1 %has, ptr %m, ptr null
  %f = call i32 @__cudaCDP2Free(ptr %freed)
  ret void
}
