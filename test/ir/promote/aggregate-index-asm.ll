; Not promoted with aggregation (KLAP414): the kernel reads %ctaid in inline assembly, which the pool form
; cannot remap to a one-block grid's 0. The launch stays as written.
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=none;promote=aggregate;no-inline-runtime>' -pass-remarks=klap -pass-remarks-missed=klap -S %s -o %t.ll 2>%t.remarks
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks

; REMARK: remark: {{.*}}launch not promoted with aggregation: @chain reads %ctaid in inline assembly: the links of a pool are blocks of one grid, whose blockIdx and gridDim must read as a one-block grid's [KLAP414]
; CHECK-LABEL: define ptx_kernel void @chain(
; CHECK-NOT:     __klap_
; CHECK:         call i32 @__cudaCDP2LaunchDeviceV2(
; CHECK-NOT:   define {{.*}}@chain__klap_pool
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.y()
declare i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()

define internal i32 @row() {
  %y = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.y()
  %w = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %r = mul i32 %y, %w
  ret i32 %r
}

define ptx_kernel void @chain(ptr %out, i32 %n, i32 %first, i32 %bs) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %bx = call i32 asm "mov.u32 $0, %ctaid.x;", "=r"()
  %gx = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
  %r = call i32 @row()
  %i0 = add i32 %first, %t
  %i1 = add i32 %i0, %bx
  %i2 = mul i32 %i1, %gx
  %i = add i32 %i2, %r
  %p = getelementptr inbounds i32, ptr %out, i32 %i
  store i32 %t, ptr %p, align 4
  %lead = icmp eq i32 %t, 0
  %next = add nsw i32 %first, 64
  %more = icmp slt i32 %next, %n
  %go = and i1 %lead, %more
  br i1 %go, label %launch, label %done
launch:
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %g, align 4
  store i32 %bs, ptr %b, align 4
  %by = getelementptr inbounds i8, ptr %b, i64 4
  store i32 1, ptr %by, align 4
  %bz = getelementptr inbounds i8, ptr %b, i64 8
  store i32 1, ptr %bz, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @chain, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  %ok = icmp ne ptr %buf, null
  br i1 %ok, label %fill, label %done
fill:
  store ptr %out, ptr %buf, align 8
  %a1 = getelementptr inbounds i8, ptr %buf, i64 8
  store i32 %n, ptr %a1, align 4
  %a2 = getelementptr inbounds i8, ptr %buf, i64 12
  store i32 %next, ptr %a2, align 4
  %a3 = getelementptr inbounds i8, ptr %buf, i64 16
  store i32 %bs, ptr %a3, align 4
  %r0 = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr inttoptr (i64 4 to ptr))
  br label %done
done:
  ret void
}
