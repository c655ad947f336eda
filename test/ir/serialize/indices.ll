; The serial variant gives each child thread its own indices: in two- and three-dimensional blocks and grids
; (x fastest), also where a device function the child calls reads them (a copy of it takes the twelve index
; values as trailing arguments), and a by-value argument is copied per thread.
; RUN: %opt -load-pass-plugin=%plugin -klap-disable-aggregate -klap-disable-malloc -passes='klap<granularity=grid;serialize;serialize-threshold=256;no-inline-runtime>' -S %s -o %t.ll
; RUN: FileCheck %s < %t.ll

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }
%struct.pair = type { i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.y()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)

define internal i32 @block_of() {
  %c = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  ret i32 %c
}

; CHECK-LABEL: define ptx_kernel void @child(
define ptx_kernel void @child(ptr %out, ptr byval(%struct.pair) align 4 %pr) {
  %y = call i32 @llvm.nvvm.read.ptx.sreg.tid.y()
  %c = call i32 @block_of()
  %f = load i32, ptr %pr, align 4
  %s = add i32 %y, %c
  %v = add i32 %s, %f
  store i32 0, ptr %pr, align 4
  %p = getelementptr inbounds i32, ptr %out, i32 %s
  store i32 %v, ptr %p, align 4
  ret void
}

; CHECK-LABEL: define ptx_kernel void @parent(
; CHECK:         [[ARGS:%.*]] = alloca [16 x i8], align 16
; CHECK:         store %struct.pair
; CHECK-NEXT:    [[PR:%.*]] = getelementptr inbounds i8, ptr [[ARGS]], i64 8
; CHECK-NEXT:    call void @child__klap_serial(ptr %out, ptr [[PR]], i32 2, i32 3, i32 1, i32 4, i32 5, i32 1, i64 -1)
define ptx_kernel void @parent(ptr %out, ptr byval(%struct.pair) align 4 %in) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  store %struct.dim3 { i32 2, i32 3, i32 1 }, ptr %g, align 4
  store %struct.dim3 { i32 4, i32 5, i32 1 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  %ok = icmp ne ptr %buf, null
  br i1 %ok, label %fill, label %done
fill:
  store ptr %out, ptr %buf, align 8
  %a1 = getelementptr inbounds i8, ptr %buf, i64 8
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %a1, ptr align 4 %in, i64 8, i1 false)
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  br label %done
done:
  ret void
}

; Each thread's own copy of the by-value pair; tid.y is argument 3, and the device function gets all twelve.
; CHECK-LABEL: define internal void @child__klap_thread(ptr %0, ptr %1, i32 %2, i32 %3, i32 %4, i32 %5, i32 %6, i32 %7, i32 %8, i32 %9, i32 %10, i32 %11, i32 %12, i32 %13)
; CHECK:         [[COPY:%.*]] = alloca %struct.pair, align 4
; CHECK:         [[V:%.*]] = load %struct.pair, ptr %1
; CHECK:         store %struct.pair [[V]], ptr [[COPY]]
; CHECK:         call i32 @block_of__klap_thread(i32 %2, i32 %3, i32 %4, i32 %5, i32 %6, i32 %7, i32 %8, i32 %9, i32 %10, i32 %11, i32 %12, i32 %13)
; CHECK:         add i32 %3,
; CHECK:         store i32 0, ptr [[COPY]]
; CHECK-LABEL: define internal i32 @block_of__klap_thread(i32 %0, i32 %1, i32 %2, i32 %3, i32 %4, i32 %5, i32 %6, i32 %7, i32 %8, i32 %9, i32 %10, i32 %11)
; CHECK-NEXT:    ret i32 %6
; The serial loop counts each thread's indices beside its linear number, x fastest, with no division.
; CHECK-LABEL: define internal void @child__klap_serial(ptr %0, ptr %1, i32 %2, i32 %3, i32 %4, i32 %5, i32 %6, i32 %7, i64 %8)
; CHECK-NOT:     {{udiv|urem}}
; CHECK:       blocks:
; CHECK:         %ctaid.x = phi i32 [ 0, %entry ], [ [[BX:%.*]], %next.block ]
; CHECK:         %ctaid.y = phi i32 [ 0, %entry ], [ [[BY:%.*]], %next.block ]
; CHECK:       threads:
; CHECK:         %tid.x = phi i32 [ 0, %blocks ], [ [[TX:%.*]], %thread ]
; CHECK:         %tid.y = phi i32 [ 0, %blocks ], [ [[TY:%.*]], %thread ]
; CHECK:       thread:
; CHECK-NEXT:    call void @child__klap_thread(ptr %0, ptr %1, i32 %tid.x, i32 %tid.y, i32 %tid.z, i32 %5, i32 %6, i32 %7, i32 %ctaid.x, i32 %ctaid.y, i32 %ctaid.z, i32 %2, i32 %3, i32 %4)
; CHECK:         [[X1:%.*]] = add i32 %tid.x, 1
; CHECK-NEXT:    [[XW:%.*]] = icmp eq i32 [[X1]], %5
; CHECK:         [[TX]] = select i1 [[XW]], i32 0, i32 [[X1]]
; CHECK:       next.block:
; CHECK:         [[B1:%.*]] = add i32 %ctaid.x, 1
; CHECK-NEXT:    [[BW:%.*]] = icmp eq i32 [[B1]], %2
; CHECK:         [[BX]] = select i1 [[BW]], i32 0, i32 [[B1]]
; CHECK-NOT:     {{udiv|urem}}
; CHECK:       }
