; A cudaMalloc whose pointer is only dereferenced and freed: the call goes to klap's warp-aggregated
; allocation and its free to klap's free; a free of another pointer stays the device runtime's.
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=warp;no-inline-runtime>' -pass-remarks=klap \
; RUN:   -S %s -o - 2>%t.remarks | FileCheck %s
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks
; Every granularity aggregates per warp, and says so; none leaves the calls alone.
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=grid;no-inline-runtime>' -pass-remarks=klap \
; RUN:   -S %s -o - 2>&1 >/dev/null | FileCheck --check-prefix=GRID %s
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=none>' -S %s -o - | FileCheck --check-prefix=NONE %s
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=warp>' -klap-disable-malloc -S %s -o - \
; RUN:   | FileCheck --check-prefix=NONE %s

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

declare i32 @__cudaCDP2Malloc(ptr, i64)
declare i32 @__cudaCDP2Free(ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

; CHECK-LABEL: define ptx_kernel void @scratch(
; CHECK:         %err = call i32 @__klap_malloc(ptr %slot, i64 %bytes)
; CHECK:         call i32 @__klap_free(ptr %p)
; CHECK:         call i32 @__cudaCDP2Free(ptr %other)
; CHECK:         ret void
; REMARK: remark: {{.*}}cudaMalloc aggregated per warp: the lanes that reach it together share one allocation; its cudaFree gives the part back [KLAP500]
; GRID: cudaMalloc aggregated per warp (asked for grid: an allocation returns at once and cannot wait for other warps){{.*}}[KLAP500]
; NONE-NOT: __klap_malloc
; NONE-NOT: __klap_free
define ptx_kernel void @scratch(ptr %out, ptr %other, i64 %bytes) {
entry:
  %slot = alloca ptr, align 8
  call void @llvm.lifetime.start.p0(ptr %slot)
  store ptr null, ptr %slot, align 8
  %err = call i32 @__cudaCDP2Malloc(ptr %slot, i64 %bytes)
  %ok = icmp eq i32 %err, 0
  br i1 %ok, label %use, label %done

use:
  %p = load ptr, ptr %slot, align 8
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  store i32 %tid, ptr %p, align 4
  %v = load i32, ptr %p, align 4
  %q = getelementptr inbounds i32, ptr %out, i32 %tid
  store i32 %v, ptr %q, align 4
  call void @llvm.memset.p0.i64(ptr %p, i8 0, i64 4, i1 false)
  %f = call i32 @__cudaCDP2Free(ptr %p)
  %g = call i32 @__cudaCDP2Free(ptr %other)
  br label %done

done:
  call void @llvm.lifetime.end.p0(ptr %slot)
  ret void
}

; The pointer's integer value tested for alignment (device_malloc.cu does) goes nowhere: aggregated.
; CHECK-LABEL: define ptx_kernel void @alignment_test(
; CHECK:         call i32 @__klap_malloc(ptr %slot, i64 64)
; CHECK:         call i32 @__klap_free(ptr %p)
define ptx_kernel void @alignment_test(ptr %out) {
entry:
  %slot = alloca ptr, align 8
  %err = call i32 @__cudaCDP2Malloc(ptr %slot, i64 64)
  %p = load ptr, ptr %slot, align 8
  %i = ptrtoint ptr %p to i64
  %low = and i64 %i, 15
  %aligned = icmp eq i64 %low, 0
  %flag = zext i1 %aligned to i32
  store i32 %flag, ptr %out, align 4
  %f = call i32 @__cudaCDP2Free(ptr %p)
  ret void
}

; The runtime's entry points, linked in with the signatures of the device runtime's.
; CHECK: define internal i32 @__klap_malloc(ptr {{.*}}, i64 {{.*}})
; CHECK: define internal i32 @__klap_free(ptr {{.*}})

declare void @llvm.lifetime.start.p0(ptr)
declare void @llvm.lifetime.end.p0(ptr)
declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)

