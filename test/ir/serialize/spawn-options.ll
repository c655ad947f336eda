; SPAWN's controller from the command line (-klap-spawn and its two settings) as from klap<...>'s parameters, and
; the parameters' errors.
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=grid;no-inline-runtime>' -klap-spawn -klap-spawn-launch-cycles=1234 -klap-spawn-max-threads=99 -pass-remarks=klap -S %s -o %t.ll 2>%t.remarks
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks
; RUN: not %opt -load-pass-plugin=%plugin -passes='klap<granularity=grid;spawn;spawn-launch-cycles=many>' -disable-output %s 2>&1 | FileCheck --check-prefix=CYCLES %s
; RUN: not %opt -load-pass-plugin=%plugin -passes='klap<granularity=grid;spawn;spawn-max-threads=-1>' -disable-output %s 2>&1 | FileCheck --check-prefix=MOST %s

; REMARK: launch of @child serialized: the launching thread runs its threads where SPAWN's controller estimates that sooner than a launch (decided at run time, at most 99 threads or what the thresholds take; {{.*}} [KLAP309]
; CHECK-LABEL: define ptx_kernel void @parent(
; CHECK:         call i1 @__klap_spawn_serial(i64 [[WORK:%.*]], i64 {{%.*}}, i32 32, i1 {{%.*}}, i64 1234)
; CHECK-NEXT:    icmp ule i64 [[WORK]], 99
; CYCLES: klap: spawn-launch-cycles needs a number
; MOST: klap: spawn-max-threads needs a number
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
