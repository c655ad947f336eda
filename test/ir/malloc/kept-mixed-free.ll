; A cudaFree that may receive a pointer klap did not allocate keeps every allocation whose pointer
; reaches it as written (KLAP503), and a free shared with such an allocation keeps the next one too:
; klap's free takes only what klap allocated (and null).
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=warp;no-inline-runtime>' -pass-remarks-missed=klap \
; RUN:   -S %s -o - 2>%t.remarks | FileCheck %s
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

declare i32 @__cudaCDP2Malloc(ptr, i64)
declare i32 @__cudaCDP2Free(ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

; The free receives the allocation's pointer or the argument %other.
; CHECK-LABEL: define ptx_kernel void @or_argument(
; CHECK:         call i32 @__cudaCDP2Malloc(ptr %slot, i64 8)
; CHECK:         call i32 @__cudaCDP2Free(ptr %q)
; REMARK: remark: {{.*}}cudaMalloc not aggregated: a cudaFree its pointer reaches may also receive %other (not a pointer klap allocated) [KLAP503]
define ptx_kernel void @or_argument(ptr %other) {
  %slot = alloca ptr, align 8
  %err = call i32 @__cudaCDP2Malloc(ptr %slot, i64 8)
  %p = load ptr, ptr %slot, align 8
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %bit = and i32 %tid, 1
  %odd = icmp ne i32 %bit, 0
  %q = select i1 %odd, ptr %p, ptr %other
  %f = call i32 @__cudaCDP2Free(ptr %q)
  ret void
}

; %a's variable also holds %other; %b's pointer shares a free with %a's: both stay.
; CHECK-LABEL: define ptx_kernel void @chain(
; CHECK:         call i32 @__cudaCDP2Malloc(ptr %a, i64 8)
; CHECK:         call i32 @__cudaCDP2Malloc(ptr %b, i64 8)
; CHECK:         call i32 @__cudaCDP2Free(ptr %either)
; CHECK:         call i32 @__cudaCDP2Free(ptr %pb)
; REMARK: remark: {{.*}}cudaMalloc not aggregated: a cudaFree its pointer reaches may also receive %other, stored into the variable %a [KLAP503]
; REMARK: remark: {{.*}}cudaMalloc not aggregated: a cudaFree its pointer reaches may also receive %other, stored into the variable %a [KLAP503]
define ptx_kernel void @chain(ptr %other, i1 %which) {
  %a = alloca ptr, align 8
  %b = alloca ptr, align 8
  store ptr %other, ptr %a, align 8
  %e1 = call i32 @__cudaCDP2Malloc(ptr %a, i64 8)
  %e2 = call i32 @__cudaCDP2Malloc(ptr %b, i64 8)
  %pa = load ptr, ptr %a, align 8
  %pb = load ptr, ptr %b, align 8
  %either = select i1 %which, ptr %pa, ptr %pb
  %f1 = call i32 @__cudaCDP2Free(ptr %either)
  %f2 = call i32 @__cudaCDP2Free(ptr %pb)
  ret void
}

; A free of a pointer inside the allocation (undefined as written) keeps it as written.
; CHECK-LABEL: define ptx_kernel void @inside(
; CHECK:         call i32 @__cudaCDP2Malloc(ptr %slot, i64 8)
; REMARK: remark: {{.*}}cudaMalloc not aggregated: a cudaFree may receive a pointer inside the allocation, not its start{{.*}}[KLAP503]
define ptx_kernel void @inside() {
  %slot = alloca ptr, align 8
  %err = call i32 @__cudaCDP2Malloc(ptr %slot, i64 8)
  %p = load ptr, ptr %slot, align 8
  %r = getelementptr inbounds i8, ptr %p, i64 4
  %f = call i32 @__cudaCDP2Free(ptr %r)
  ret void
}
