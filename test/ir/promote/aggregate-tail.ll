; Promotion with aggregation of a tail-launched chain (pd's and upd's form): the pools go into the
; fire-and-forget stream. A pool tail-launched at the start of its launcher would start only once the whole
; launching grid (the pool before) had completed; the order a tail launch gave between two links is given by
; the slot's release (after every thread of the link returned, and a fence) and its acquire, as between the
; links inside a pool; so the successor is released at the block's end (every thread counted out), not at
; the launch site as a fire-and-forget chain's is. The launch as written, where there is no successor slot,
; stays a tail launch.
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=none;promote=aggregate;no-inline-runtime>' -pass-remarks=klap -pass-remarks-missed=klap -S %s -o %t.ll 2>%t.remarks
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=AT-EXIT %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks

; AT-EXIT: define ptx_kernel void @chain(
; AT-EXIT-NOT: __klap_pool_release
; AT-EXIT-NOT: __klap_pool_take_lone
; REMARK: remark: {{.*}}launch of @chain promoted with aggregation (pool of 128): {{.*}} [KLAP412]
; CHECK-LABEL: define ptx_kernel void @chain(
; CHECK:       klap.promote.launch:
; CHECK:         call i32 @__cudaCDP2LaunchDeviceV2(ptr %{{.*}}, ptr inttoptr (i64 4 to ptr))
; CHECK:       klap.promote.join:
; CHECK:         call ptr @__klap_pool_take(
; CHECK:         call ptr @__cudaCDP2GetParameterBufferV2(ptr @chain,
; CHECK:         call i32 @__cudaCDP2LaunchDeviceV2(ptr %{{.*}}, ptr inttoptr (i64 3 to ptr))
; CHECK-LABEL: define ptx_kernel void @chain__klap_pool(
; CHECK:       klap.promote.launch:
; CHECK:         call i32 @__cudaCDP2LaunchDeviceV2(ptr %{{.*}}, ptr inttoptr (i64 4 to ptr))
; CHECK:         call ptr @__klap_pool_take(
; CHECK:         call i32 @__cudaCDP2LaunchDeviceV2(ptr %{{.*}}, ptr inttoptr (i64 3 to ptr))
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.smin.i32(i32, i32)

define ptx_kernel void @chain(ptr %out, i32 %n, i32 %first, float %acc) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %last = add nsw i32 %first, 64
  %end = call i32 @llvm.smin.i32(i32 %n, i32 %last)
  %i = add i32 %first, %t
  %p = getelementptr inbounds float, ptr %out, i32 %i
  %x = load float, ptr %p, align 4
  %acc2 = fadd float %acc, %x
  store float %acc2, ptr %p, align 4
  %lead = icmp eq i32 %t, 0
  br i1 %lead, label %test, label %done
test:
  %more = icmp slt i32 %end, %n
  br i1 %more, label %launch, label %done
launch:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %g, align 4
  store %struct.dim3 { i32 64, i32 1, i32 1 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @chain, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  %ok = icmp ne ptr %buf, null
  br i1 %ok, label %fill, label %done
fill:
  store ptr %out, ptr %buf, align 8
  %a1 = getelementptr inbounds i8, ptr %buf, i64 8
  store i32 %n, ptr %a1, align 4
  %a2 = getelementptr inbounds i8, ptr %buf, i64 12
  store i32 %end, ptr %a2, align 4
  %a3 = getelementptr inbounds i8, ptr %buf, i64 16
  store float %acc2, ptr %a3, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr inttoptr (i64 3 to ptr))
  br label %done
done:
  ret void
}
