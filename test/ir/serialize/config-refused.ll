; A launch the device runtime refuses (a block z above 64, a block of more than 1,024 threads, a zero
; dimension, more than 48 KiB of dynamic shared memory) fails as written: serialization and the warp run
; make it as written, so that it still fails, where they would have run its threads. A constant
; configuration is decided here (KLAP318); one known only at run time is checked beside the size.
; RUN: %opt -load-pass-plugin=%plugin -klap-disable-aggregate -klap-disable-malloc -passes='klap<granularity=grid;serialize;serialize-threshold=256;serialize-small-grid-threshold=0;no-inline-runtime>' -pass-remarks=klap -pass-remarks-missed=klap -S %s -o %t.ll 2>%t.remarks
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks

; REMARK-DAG: remark: {{.*}}launch not serialized: the device runtime refuses this launch (its block z is 128, above 64): it is made as written, to fail as written [KLAP318]
; REMARK-DAG: remark: {{.*}}launch not serialized: the device runtime refuses this launch (its grid x is 0): it is made as written, to fail as written [KLAP318]
; REMARK-DAG: remark: {{.*}}launch not serialized: the device runtime refuses this launch (its block has 2048 threads, above 1024): it is made as written, to fail as written [KLAP318]
; REMARK-DAG: remark: {{.*}}launch not serialized: the device runtime refuses this launch (it asks for 65536 bytes of dynamic shared memory, above the 49152 a kernel has unless its host opts it in): it is made as written, to fail as written [KLAP318]
; REMARK-DAG: remark: {{.*}}launch not serialized: the device runtime refuses this launch (its block z is 128, above 64): it is made as written, to fail as written [KLAP318]
; REMARK-DAG: remark: {{.*}}launch of @child serialized: the launching thread runs its threads when there are at most 256 (checked at run time; larger ones are launched) [KLAP300]

; CHECK-LABEL: define ptx_kernel void @deep_block(
; CHECK-NOT:     @child__klap_serial
; CHECK:         call i32 @__cudaCDP2LaunchDeviceV2(
; CHECK-LABEL: define ptx_kernel void @empty_grid(
; CHECK-NOT:     @child__klap_serial
; CHECK:         call i32 @__cudaCDP2LaunchDeviceV2(
; CHECK-LABEL: define ptx_kernel void @wide_block(
; CHECK-NOT:     @child__klap_serial
; CHECK:         call i32 @__cudaCDP2LaunchDeviceV2(
; CHECK-LABEL: define ptx_kernel void @much_smem(
; CHECK-NOT:     @child__klap_serial
; CHECK:         call i32 @__cudaCDP2LaunchDeviceV2(
; Run by its warp where accepted: the same check.
; CHECK-LABEL: define ptx_kernel void @deep_warp_block(
; CHECK-NOT:     @shuffle__klap_warp_run
; CHECK:         call i32 @__cudaCDP2LaunchDeviceV2(
; A block of %bx x 1 x %bz threads and %smem bytes: each checked at run time.
; CHECK-LABEL: define ptx_kernel void @varying(
; CHECK:         [[SMALL:%.*]] = icmp ule i64 {{%.*}}, 256
; CHECK-NEXT:    [[BX0:%.*]] = icmp ne i32 %bx, 0
; CHECK-NEXT:    [[BX1:%.*]] = icmp ule i32 %bx, 1024
; CHECK-NEXT:    [[OK1:%.*]] = and i1 [[BX0]], [[BX1]]
; CHECK-NEXT:    [[BZ0:%.*]] = icmp ne i32 %bz, 0
; CHECK-NEXT:    [[OK2:%.*]] = and i1 [[OK1]], [[BZ0]]
; CHECK-NEXT:    [[BZ1:%.*]] = icmp ule i32 %bz, 64
; CHECK-NEXT:    [[OK3:%.*]] = and i1 [[OK2]], [[BZ1]]
; CHECK:         [[THREADS:%.*]] = mul i64 {{%.*}}, {{%.*}}
; CHECK-NEXT:    [[FEW:%.*]] = icmp ule i64 [[THREADS]], 1024
; CHECK-NEXT:    [[OK4:%.*]] = and i1 [[OK3]], [[FEW]]
; CHECK-NEXT:    [[SMEM:%.*]] = zext i32 %smem to i64
; CHECK-NEXT:    [[FITS:%.*]] = icmp ule i64 [[SMEM]], 49152
; CHECK-NEXT:    [[OK5:%.*]] = and i1 [[OK4]], [[FITS]]
; CHECK-NEXT:    [[SERIAL:%serial.*]] = and i1 [[SMALL]], [[OK5]]
; CHECK-NEXT:    br i1 [[SERIAL]]
; CHECK:         call void @child__klap_serial(
; CHECK:         call i32 @__cudaCDP2LaunchDeviceV2(

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.shfl.sync.bfly.i32(i32, i32, i32, i32)

define ptx_kernel void @child(ptr %out, i32 %k) {
  %tx = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %p = getelementptr inbounds i32, ptr %out, i32 %tx
  store i32 %k, ptr %p, align 4
  ret void
}

; Its threads talk within their warp: a warp run's child.
define ptx_kernel void @shuffle(ptr %out, i32 %k) {
  %tx = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %v = call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %k, i32 1, i32 31)
  %p = getelementptr inbounds i32, ptr %out, i32 %tx
  store i32 %v, ptr %p, align 4
  ret void
}

; child<<<1, dim3(1, 1, 128)>>>: a block z above 64.
define ptx_kernel void @deep_block(ptr %out, i32 %n) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %g, align 4
  store %struct.dim3 { i32 1, i32 1, i32 128 }, ptr %b, align 4
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

; child<<<0, 32>>>: no block.
define ptx_kernel void @empty_grid(ptr %out, i32 %n) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  store %struct.dim3 { i32 0, i32 1, i32 1 }, ptr %g, align 4
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %b, align 4
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

; child<<<1, dim3(64, 32)>>>: 2,048 threads in a block.
define ptx_kernel void @wide_block(ptr %out, i32 %n) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %g, align 4
  store %struct.dim3 { i32 64, i32 32, i32 1 }, ptr %b, align 4
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

; child<<<1, 32, 65536>>>: 64 KiB of dynamic shared memory.
define ptx_kernel void @much_smem(ptr %out, i32 %n) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %g, align 4
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 65536)
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

; shuffle<<<1, dim3(1, 1, 128)>>>: a warp run's child with a block z above 64.
define ptx_kernel void @deep_warp_block(ptr %out, i32 %n) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %g, align 4
  store %struct.dim3 { i32 1, i32 1, i32 128 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @shuffle, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
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

; child<<<1, dim3(bx, 1, bz), smem>>>.
define ptx_kernel void @varying(ptr %out, i32 %n, i32 %bx, i32 %bz, i32 %smem) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %g, align 4
  %bv0 = insertvalue %struct.dim3 { i32 poison, i32 1, i32 poison }, i32 %bx, 0
  %bv = insertvalue %struct.dim3 %bv0, i32 %bz, 2
  store %struct.dim3 %bv, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 %smem)
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

