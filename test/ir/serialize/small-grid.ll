; Where the launching grid is small (at most 16384 threads) a larger child is serialized: up to
; serialize-small-grid-threshold working threads, and as long as the launching grid's threads times the
; child's are at most 4194304, checked at run time from the launching grid's size; elsewhere
; serialize-threshold holds. A constant child between the two thresholds is checked on the
; launching grid alone; one above both is launched, with a missed remark naming both.
; RUN: %opt -load-pass-plugin=%plugin -klap-disable-aggregate -klap-disable-malloc -passes='klap<granularity=grid;serialize;serialize-threshold=32;serialize-small-grid-threshold=1024;no-inline-runtime>' -pass-remarks=klap -pass-remarks-missed=klap -S %s -o %t.ll 2>%t.remarks
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks
; RUN: %opt -load-pass-plugin=%plugin -klap-disable-aggregate -klap-disable-malloc -passes='klap<granularity=grid;serialize;serialize-threshold=32;serialize-small-grid-threshold=0;no-inline-runtime>' -pass-remarks=klap -pass-remarks-missed=klap -S %s -o %t.off.ll 2>%t.off.remarks
; RUN: FileCheck --check-prefix=OFF %s < %t.off.ll
; RUN: FileCheck --check-prefix=OFF-REMARK %s < %t.off.remarks

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()

define ptx_kernel void @child(ptr %out, i32 %n) {
entry:
  %c = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %w = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %base = mul nuw i32 %w, %c
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = add nuw i32 %base, %t
  %in = icmp slt i32 %i, %n
  br i1 %in, label %work, label %done
work:
  %p = getelementptr inbounds i32, ptr %out, i32 %i
  store i32 1, ptr %p, align 4
  br label %done
done:
  ret void
}

; Every thread of @plain works (no guard).
define ptx_kernel void @plain(ptr %out, i32 %k) {
  %c = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %w = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %base = mul nuw i32 %w, %c
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = add nuw i32 %base, %t
  %p = getelementptr inbounds i32, ptr %out, i32 %i
  store i32 %k, ptr %p, align 4
  ret void
}

; REMARK: launch of @child serialized: the launching thread runs its working threads (those below its guard's bound) when there are at most 32 (1024 where the launching grid has at most 16384 threads and its threads times the child's are at most 4194304) (checked at run time; larger ones are launched) [KLAP300]
; OFF-REMARK: launch of @child serialized: the launching thread runs its working threads (those below its guard's bound) when there are at most 32 (checked at run time; larger ones are launched) [KLAP300]
; The launching grid's threads (block, then grid dimensions), capped past 16384, choose the threshold.
; CHECK-LABEL: define ptx_kernel void @guarded(
; CHECK:         [[WORK:%.*]] = select i1 {{.*}}, i64 [[LIMIT:%.*]], i64
; CHECK:         call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
; CHECK:         call i32 @llvm.nvvm.read.ptx.sreg.nctaid.z()
; CHECK:         [[FEW:%.*]] = icmp ule i64 [[LAUNCHING:%.*]], 16384
; CHECK-NEXT:    [[TOGETHER:%.*]] = mul i64 [[WORK]], [[LAUNCHING]]
; CHECK-NEXT:    [[WITHIN:%.*]] = icmp ule i64 [[TOGETHER]], 4194304
; CHECK-NEXT:    [[UNDER:%.*]] = icmp ule i64 [[WORK]], 1024
; CHECK-NEXT:    [[IN_SMALL:%.*]] = and i1 [[UNDER]], [[WITHIN]]
; CHECK-NEXT:    [[ANYWHERE:%.*]] = icmp ule i64 [[WORK]], 32
; CHECK-NEXT:    [[SMALL:%.*]] = select i1 [[FEW]], i1 [[IN_SMALL]], i1 [[ANYWHERE]]
; CHECK-NEXT:    [[NONZERO:%.*]] = icmp ne i32 %blocks, 0
; CHECK-NEXT:    [[BELOW:%.*]] = icmp ule i32 %blocks, 2147483647
; CHECK-NEXT:    [[ACCEPTED:%.*]] = and i1 [[NONZERO]], [[BELOW]]
; CHECK-NEXT:    [[SERIAL:%serial.*]] = and i1 [[SMALL]], [[ACCEPTED]]
; CHECK-NEXT:    br i1 [[SERIAL]]
; CHECK:         call void @child__klap_serial_in_bound(ptr %out, i32 %n, i32 %blocks, i32 1, i32 1, i32 256, i32 1, i32 1, i64 [[LIMIT]])
; CHECK:         call i32 @__cudaCDP2LaunchDeviceV2(
; OFF-LABEL: define ptx_kernel void @guarded(
; OFF-NOT:       sreg.nctaid
; OFF:           [[SMALL:%.*]] = icmp ule i64 {{.*}}, 32
; OFF:           [[SERIAL:%serial.*]] = and i1 [[SMALL]], {{%.*}}
; OFF-NEXT:      br i1 [[SERIAL]]
define ptx_kernel void @guarded(ptr %out, i32 %n) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  %n255 = add i32 %n, 255
  %blocks = udiv i32 %n255, 256
  %gv = insertvalue %struct.dim3 { i32 poison, i32 1, i32 1 }, i32 %blocks, 0
  store %struct.dim3 %gv, ptr %g, align 4
  store %struct.dim3 { i32 256, i32 1, i32 1 }, ptr %b, align 4
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

; REMARK: launch of @plain serialized: the launching thread runs its threads when there are at most 32 (1024 where the launching grid has at most 16384 threads and its threads times the child's are at most 4194304) (checked at run time; larger ones are launched) [KLAP300]
; OFF-REMARK: launch not serialized: the child grid has 512 threads, more than the threshold 32 [KLAP303]
; A constant 512-thread child (no guard's bound to pass): run serially where the launching grid is small
; (8192 threads at most, for 512 x 8192 = 4194304).
; CHECK-LABEL: define ptx_kernel void @constant_between(
; CHECK:         [[FEW:%.*]] = icmp ule i64 [[LAUNCHING:%.*]], 16384
; CHECK-NEXT:    [[TOGETHER:%.*]] = mul i64 512, [[LAUNCHING]]
; CHECK-NEXT:    [[WITHIN:%.*]] = icmp ule i64 [[TOGETHER]], 4194304
; CHECK-NEXT:    [[IN_SMALL:%.*]] = and i1 true, [[WITHIN]]
; CHECK-NEXT:    [[SMALL:%.*]] = select i1 [[FEW]], i1 [[IN_SMALL]], i1 false
; CHECK-NEXT:    br i1 [[SMALL]]
; CHECK:         call void @plain__klap_serial(ptr %out, i32 %n, i32 2, i32 1, i32 1, i32 256, i32 1, i32 1, i64 -1)
; CHECK:         call i32 @__cudaCDP2LaunchDeviceV2(
; OFF-LABEL: define ptx_kernel void @constant_between(
; OFF-NOT:       @plain__klap_serial
; OFF:           call i32 @__cudaCDP2LaunchDeviceV2(
define ptx_kernel void @constant_between(ptr %out, i32 %n) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  store %struct.dim3 { i32 2, i32 1, i32 1 }, ptr %g, align 4
  store %struct.dim3 { i32 256, i32 1, i32 1 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @plain, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
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

; REMARK: launch not serialized: the child grid has 2048 threads, more than the threshold 32 (1024 where the launching grid has at most 16384 threads and its threads times the child's are at most 4194304) [KLAP303]
; CHECK-LABEL: define ptx_kernel void @constant_above(
; CHECK-NOT:     @plain__klap_serial
; CHECK:         call i32 @__cudaCDP2LaunchDeviceV2(
define ptx_kernel void @constant_above(ptr %out, i32 %n) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  store %struct.dim3 { i32 8, i32 1, i32 1 }, ptr %g, align 4
  store %struct.dim3 { i32 256, i32 1, i32 1 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @plain, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
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
