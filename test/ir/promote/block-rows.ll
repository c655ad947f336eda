; Not promoted (KLAP405): a thread of each row of the child's (4, 2, 2) block passes the launch's test of
; threadIdx.x, and launches: a tree of launches, not a chain (fuzz case 234-9 at auto, promoted, lost 76
; of 81 grids). At run time, the promoted forms' leader is thread 0 of a block of one row only: where
; the host launches the first instance with more rows, each thread that passes the test launches as
; written (the RUNTIME lines: __klap_promote_leader reads ntid.y and ntid.z).
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=none;promote=basic;no-inline-runtime>' -pass-remarks=klap -pass-remarks-missed=klap -S %s -o %t.ll 2>%t.remarks
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=none;promote=aggregate;no-inline-runtime>' -S %S/aggregate.ll -o - | FileCheck --check-prefix=RUNTIME %s

; REMARK: remark: {{.*}}launch not promoted: the child's block (4,2,2) may have more than one row: a thread of each row passes the test of threadIdx.x [KLAP405]
; RUNTIME-LABEL: define internal {{.*}}i1 @__klap_promote_leader(
; RUNTIME-DAG:     call i32 @llvm.nvvm.read.ptx.sreg.ntid.y()
; RUNTIME-DAG:     call i32 @llvm.nvvm.read.ptx.sreg.ntid.z()
; RUNTIME:       {{^}}}
; CHECK-LABEL: define ptx_kernel void @chain(
; CHECK-NOT:     __klap_promote
; CHECK:         call i32 @__cudaCDP2LaunchDeviceV2(
; CHECK-NOT:     __klap_promote
; CHECK:         ret void
; CHECK-NOT:   define {{.*}}@chain__klap_promoted
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
  %lead = icmp eq i32 %t, 0
  %last = add nsw i32 %first, 64
  %end = call i32 @llvm.smin.i32(i32 %n, i32 %last)
  %i = add i32 %first, %t
  %p = getelementptr inbounds float, ptr %out, i32 %i
  %x = load float, ptr %p, align 4
  %acc2 = fadd float %acc, %x
  store float %acc2, ptr %p, align 4
  br label %test
test:
  %more = icmp slt i32 %end, %n
  %go = and i1 %more, %lead
  br i1 %go, label %launch, label %done
launch:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %g, align 4
  store %struct.dim3 { i32 4, i32 2, i32 2 }, ptr %b, align 4
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
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr inttoptr (i64 4 to ptr))
  br label %done
done:
  ret void
}
