; Promotion into a loop and the kernel's stack slots: %slot, a fixed-size alloca that is not in the entry
; block, moves to the loop's entry with the others, so that the links do not take a new slot each.
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=none;promote=loop>' -pass-remarks=klap -S %s -o %t.ll 2>%t.remarks
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks

; REMARK: remark: {{.*}}launch of @stacked promoted into a loop: {{.*}} [KLAP418]

; CHECK-LABEL: define ptx_kernel void @stacked(
; CHECK:       klap.loop.start:
; CHECK:         {{%.*}} = alloca i32, align 4
; CHECK:       klap.loop.head:
; CHECK-NOT:     alloca
; CHECK:       klap.loop.exit:
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

define ptx_kernel void @stacked(ptr %out, i32 %n, i32 %first) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  br label %body
body:
  %slot = alloca i32, align 4
  store volatile i32 %t, ptr %slot, align 4
  %x = load volatile i32, ptr %slot, align 4
  %i = add i32 %first, %x
  %p = getelementptr inbounds i32, ptr %out, i32 %i
  store i32 %i, ptr %p, align 4
  %end = add nsw i32 %first, 64
  %lead = icmp eq i32 %t, 0
  %more = icmp slt i32 %end, %n
  %go = and i1 %lead, %more
  br i1 %go, label %launch, label %done
launch:
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %g, align 4
  store %struct.dim3 { i32 64, i32 1, i32 1 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @stacked, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  %ok = icmp ne ptr %buf, null
  br i1 %ok, label %fill, label %done
fill:
  store ptr %out, ptr %buf, align 8
  %a1 = getelementptr inbounds i8, ptr %buf, i64 8
  store i32 %n, ptr %a1, align 4
  %a2 = getelementptr inbounds i8, ptr %buf, i64 12
  store i32 %end, ptr %a2, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr inttoptr (i64 4 to ptr))
  br label %done
done:
  ret void
}
