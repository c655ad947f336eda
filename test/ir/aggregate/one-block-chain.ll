; A kernel whose one launch is a launch of itself as one block by one thread (a chain of one-block
; grids, like KLAP's los and sc) is left as written at grid granularity and under auto: every grid
; of the chain makes one launch, so a grid scope would aggregate nothing and cost each link (KLAP206).
; The same kernel launching itself as two blocks is aggregated.
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=grid;no-inline-runtime>' -pass-remarks=klap -pass-remarks-missed=klap -S %s -o %t.ll 2>%t.remarks
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=auto;promote=none;no-inline-runtime>' -pass-remarks-missed=klap -S %s -o /dev/null 2>&1 | FileCheck --check-prefix=REMARK %s
; Plain auto runs such a chain in a loop by its block (test/ir/promote/into-loop*.ll) before aggregation sees it.
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=auto;no-inline-runtime>' -pass-remarks=klap -S %s -o /dev/null 2>&1 | FileCheck --check-prefix=AUTO %s
; AUTO: [KLAP418]

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

; REMARK: @chain launches itself as one block from one thread, its only launch: every grid of the chain makes one launch, nothing to aggregate [KLAP206]
; REMARK-NOT: @chain launches itself

; CHECK-LABEL: define ptx_kernel void @chain(
; CHECK-NOT:     __klap
; CHECK:         call i32 @__cudaCDP2LaunchDeviceV2(
; CHECK:         ret void
define ptx_kernel void @chain(ptr %out, i32 %n) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %p = getelementptr inbounds i32, ptr %out, i32 %t
  store i32 %n, ptr %p, align 4
  %first = icmp eq i32 %t, 0
  %more = icmp sgt i32 %n, 0
  %go = and i1 %first, %more
  br i1 %go, label %launch, label %done
launch:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %g, align 4
  store %struct.dim3 { i32 256, i32 1, i32 1 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @chain, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  %ok = icmp ne ptr %buf, null
  br i1 %ok, label %fill, label %done
fill:
  %next = getelementptr inbounds i32, ptr %out, i32 256
  store ptr %next, ptr %buf, align 8
  %a1 = getelementptr inbounds i8, ptr %buf, i64 8
  %m = sub i32 %n, 1
  store i32 %m, ptr %a1, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  br label %done
done:
  ret void
}

; CHECK-LABEL: define ptx_kernel void @pair_chain(
; CHECK:         call ptr @__klap_grid_enter(
define ptx_kernel void @pair_chain(ptr %out, i32 %n) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %first = icmp eq i32 %t, 0
  %more = icmp sgt i32 %n, 0
  %go = and i1 %first, %more
  br i1 %go, label %launch, label %done
launch:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  store %struct.dim3 { i32 2, i32 1, i32 1 }, ptr %g, align 4
  store %struct.dim3 { i32 256, i32 1, i32 1 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @pair_chain, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  %ok = icmp ne ptr %buf, null
  br i1 %ok, label %fill, label %done
fill:
  store ptr %out, ptr %buf, align 8
  %a1 = getelementptr inbounds i8, ptr %buf, i64 8
  %m = sub i32 %n, 1
  store i32 %m, ptr %a1, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  br label %done
done:
  ret void
}
