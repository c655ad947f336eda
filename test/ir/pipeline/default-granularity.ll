; The granularity klap takes when none is given is auto, in opt's `klap` and in clang's -klap-granularity: a
; child of one warp is run by its launching thread (serialized, KLAP300), which only auto does; at grid
; granularity, asked for either way, the same launch is aggregated (KLAP200) and nothing is serialized.
; RUN: %opt -load-pass-plugin=%plugin -passes=klap -pass-remarks=klap -pass-remarks-missed=klap -S %s -o %t.default.ll 2>%t.default.remarks
; RUN: FileCheck --check-prefix=AUTO %s < %t.default.ll
; RUN: FileCheck --check-prefix=AUTO-REMARK %s < %t.default.remarks
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=grid>' -pass-remarks=klap -pass-remarks-missed=klap -S %s -o %t.grid.ll 2>%t.grid.remarks
; RUN: FileCheck --check-prefix=GRID %s < %t.grid.ll
; RUN: FileCheck --check-prefix=GRID-REMARK %s < %t.grid.remarks
; RUN: %opt -load-pass-plugin=%plugin -klap-granularity=grid -passes=klap -pass-remarks=klap -pass-remarks-missed=klap -S %s -o %t.option.ll 2>%t.option.remarks
; RUN: FileCheck --check-prefix=GRID %s < %t.option.ll
; RUN: FileCheck --check-prefix=GRID-REMARK %s < %t.option.remarks

; AUTO-REMARK: launch of @child serialized: {{.*}}[KLAP300]
; The serial variant is inlined: the child's store runs in the parent, and nothing is launched.
; AUTO-LABEL: define ptx_kernel void @parent(
; AUTO-NOT:     __cudaCDP2LaunchDeviceV2
; AUTO:         child__klap_serial.exit:
; AUTO-NOT:     __cudaCDP2LaunchDeviceV2
; AUTO:         ret void

; GRID-REMARK-NOT: KLAP300
; GRID-REMARK: launch of @child aggregated at grid granularity{{.*}}[KLAP200]
; GRID-REMARK-NOT: KLAP300
; GRID-LABEL: define ptx_kernel void @parent(
; GRID-NOT:     child__klap_serial
; GRID:         ret void
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()

define ptx_kernel void @child(ptr %out, i32 %k) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %p = getelementptr inbounds i32, ptr %out, i32 %t
  store i32 %k, ptr %p, align 4
  ret void
}

define ptx_kernel void @parent(ptr %out) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %c = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %w = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %base = mul i32 %c, %w
  %i = add i32 %base, %t
  %off = mul i32 %i, 32
  %row = getelementptr inbounds i32, ptr %out, i32 %off
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %g, align 4
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  %ok = icmp ne ptr %buf, null
  br i1 %ok, label %fill, label %done
fill:
  store ptr %row, ptr %buf, align 8
  %a1 = getelementptr inbounds i8, ptr %buf, i64 8
  store i32 %i, ptr %a1, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  br label %done
done:
  ret void
}
