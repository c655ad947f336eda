; A child whose size is only known at run time: serialized when the grid has at most the threshold's threads
; (checked at run time), launched as written otherwise, so that no launch is lost. Under
; granularity=auto the launch that remains is aggregated per grid.
; RUN: %opt -load-pass-plugin=%plugin -klap-disable-aggregate -klap-disable-malloc -passes='klap<granularity=grid;serialize;serialize-threshold=64;serialize-small-grid-threshold=0;no-inline-runtime>' -pass-remarks=klap -S %s -o %t.ll 2>%t.remarks
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=auto;no-inline-runtime>' -pass-remarks=klap -S %s -o %t.auto.ll 2>%t.auto.remarks
; RUN: FileCheck --check-prefix=AUTO %s < %t.auto.ll
; RUN: FileCheck --check-prefix=AUTO-REMARK %s < %t.auto.remarks

; REMARK: remark: {{.*}}launch of @child serialized: the launching thread runs its threads when there are at most 64 (checked at run time; larger ones are launched) [KLAP300]
; CHECK-LABEL: define ptx_kernel void @parent(
; CHECK:         [[WIDE:%.*]] = zext i32 %n to i64
; CHECK-NEXT:    [[PRODUCT:%.*]] = mul i64 32, [[WIDE]]
; CHECK-NEXT:    [[OVER:%.*]] = icmp ugt i64 [[PRODUCT]], 65
; CHECK-NEXT:    [[TOTAL:%.*]] = select i1 [[OVER]], i64 65, i64 [[PRODUCT]]
; CHECK-NEXT:    [[SMALL:%.*]] = icmp ule i64 [[TOTAL]], 64
; CHECK-NEXT:    [[NONZERO:%.*]] = icmp ne i32 %n, 0
; CHECK-NEXT:    [[WITHIN:%.*]] = icmp ule i32 %n, 2147483647
; CHECK-NEXT:    [[ACCEPTED:%.*]] = and i1 [[NONZERO]], [[WITHIN]]
; CHECK-NEXT:    [[TAKEN:%.*]] = and i1 [[SMALL]], [[ACCEPTED]]
; CHECK:         br i1 [[TAKEN]]
; CHECK:         call void @child__klap_serial(ptr %out, i32 %n, i32 %n, i32 1, i32 1, i32 32, i32 1, i32 1, i64 -1)
; CHECK:         call ptr @__cudaCDP2GetParameterBufferV2(ptr @child
; CHECK:         call i32 @__cudaCDP2LaunchDeviceV2(

; The launch left for larger children is the kernel's only one: its scope is each block's own where the
; grid is small (the runtime checks), as the remark says.
; AUTO-REMARK: [KLAP300]
; AUTO-REMARK: launch of @child aggregated at grid granularity {{.*}}; per block where the launching grid has at most 16384 threads (checked at run time): every launch of its kernel is what serialization left for larger children; per block where the launching blocks have 1024 threads or more {{.*}} [KLAP200]
; AUTO-LABEL: define ptx_kernel void @parent(
; AUTO:         call ptr @__klap_grid_enter_per_block(i32 3,
; AUTO:         [[FEW:%.*]] = icmp ule i64 [[LAUNCHING:%.*]], 16384
; AUTO-NEXT:    mul i64 [[WORK:%.*]], [[LAUNCHING]]
; AUTO-NEXT:    icmp ule i64 {{.*}}, 4194304
; AUTO-NEXT:    icmp ule i64 [[WORK]], 1024
; AUTO:         select i1 [[FEW]], i1
; AUTO:         call void @child__klap_serial(
; AUTO:         call ptr @__klap_scope_register(
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.tid.y()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare void @llvm.nvvm.barrier0()
define ptx_kernel void @child(ptr %out, i32 %k) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %c = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %w = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %base = mul i32 %c, %w
  %i = add i32 %base, %t

  %p = getelementptr inbounds i32, ptr %out, i32 %i
  store i32 %k, ptr %p, align 4
  ret void
}
define ptx_kernel void @parent(ptr %out, i32 %n) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  %gv = insertvalue %struct.dim3 { i32 poison, i32 1, i32 1 }, i32 %n, 0
  store %struct.dim3 %gv, ptr %g, align 4
  %bv = insertvalue %struct.dim3 { i32 poison, i32 1, i32 1 }, i32 32, 0
  store %struct.dim3 %bv, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  %ok = icmp ne ptr %buf, null
  br i1 %ok, label %fill, label %done
fill:
  store ptr %out, ptr %buf, align 8
  %a1 = getelementptr inbounds i8, ptr %buf, i64 8
  store i32 %n, ptr %a1, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  br label %done
done:
  ret void
}
