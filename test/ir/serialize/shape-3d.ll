; A three-dimensional child (a 4 x 2 x 2 block, a grid two blocks high) is serialized like a flat one: the
; serial variant runs its blocks and threads in x, y and z, and the thread variant reads threadIdx.y,
; threadIdx.z and blockIdx.y from its arguments. With a size known only at run time (a grid %n high, a
; 4 x %n x 2 block), the working threads checked at run time are the product of all six dimensions
; (8 * %n * %n); SPAWN's controller is asked with that product.
; RUN: %opt -load-pass-plugin=%plugin -klap-disable-aggregate -klap-disable-malloc -passes='klap<granularity=grid;serialize;serialize-small-grid-threshold=0;no-inline-runtime>' -pass-remarks=klap -pass-remarks-missed=klap -S %s -o %t.ll 2>%t.remarks
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks
; RUN: %opt -load-pass-plugin=%plugin -klap-disable-aggregate -klap-disable-malloc -passes='klap<granularity=grid;spawn;no-inline-runtime>' -pass-remarks=klap -pass-remarks-missed=klap -S %s -o %t.spawn.ll 2>%t.spawn.remarks
; RUN: FileCheck --check-prefix=SPAWN %s < %t.spawn.ll
; RUN: FileCheck --check-prefix=SPAWN-REMARK %s < %t.spawn.remarks

; REMARK-DAG: remark: {{.*}}launch of @child serialized: the launching thread runs its 32 threads always [KLAP300]
; REMARK-DAG: remark: {{.*}}launch of @child serialized: the launching thread runs its threads when there are at most 32 (checked at run time; larger ones are launched) [KLAP300]
; SPAWN-REMARK-DAG: remark: {{.*}}launch of @child serialized: the launching thread runs its 32 threads always [KLAP300]
; SPAWN-REMARK-DAG: remark: {{.*}}launch of @child serialized: the launching thread runs its threads where SPAWN's controller estimates that sooner than a launch {{.*}} [KLAP309]

; CHECK-LABEL: define ptx_kernel void @constant(
; CHECK-NOT:     __cudaCDP2LaunchDeviceV2
; CHECK:         call void @child__klap_serial(ptr %out, i32 %n, i32 1, i32 2, i32 1, i32 4, i32 2, i32 2, i64 -1)
; CHECK-NOT:     __cudaCDP2LaunchDeviceV2
; CHECK:         ret void
; CHECK-LABEL: define ptx_kernel void @varying(
; CHECK:         [[N1:%.*]] = zext i32 %n to i64
; CHECK-NEXT:    [[BY_N:%.*]] = mul i64 8, [[N1]]
; CHECK:         [[N2:%.*]] = zext i32 %n to i64
; CHECK-NEXT:    mul i64 {{%.*}}, [[N2]]
; CHECK:         [[SMALL:%.*]] = icmp ule i64 {{%.*}}, 32
; CHECK:         [[SERIAL:%serial.*]] = and i1 [[SMALL]], {{%.*}}
; CHECK-NEXT:    br i1 [[SERIAL]]
; CHECK:         call void @child__klap_serial(ptr %out, i32 %n, i32 1, i32 %n, i32 1, i32 4, i32 %n, i32 2, i64 -1)
; CHECK:         call i32 @__cudaCDP2LaunchDeviceV2(
; The thread variant: threadIdx.x, .y, .z are its arguments 2 to 4, blockIdx.y its argument 9.
; CHECK-LABEL: define internal void @child__klap_thread(
; CHECK-NOT:     llvm.nvvm.read.ptx.sreg
; CHECK:         [[A:%.*]] = add i32 %2, %3
; CHECK-NEXT:    [[B:%.*]] = add i32 [[A]], %4
; CHECK-NEXT:    add i32 [[B]], %9
; CHECK-LABEL: define internal void @child__klap_serial(
; CHECK:         %ctaid.y = phi i32
; CHECK:         %tid.z = phi i32
; CHECK:         call void @child__klap_thread(ptr %0, i32 %1, i32 %tid.x, i32 %tid.y, i32 %tid.z, i32 %5, i32 %6, i32 %7, i32 %ctaid.x, i32 %ctaid.y, i32 %ctaid.z, i32 %2, i32 %3, i32 %4)

; SPAWN-LABEL: define ptx_kernel void @constant(
; SPAWN-NOT:     __klap_spawn_serial
; SPAWN:         call void @child__klap_serial(ptr %out, i32 %n, i32 1, i32 2, i32 1, i32 4, i32 2, i32 2, i64 -1)
; SPAWN-LABEL: define ptx_kernel void @varying(
; SPAWN:         [[N1:%.*]] = zext i32 %n to i64
; SPAWN-NEXT:    mul i64 8, [[N1]]
; SPAWN:         [[N2:%.*]] = zext i32 %n to i64
; SPAWN-NEXT:    [[P2:%.*]] = mul i64 {{%.*}}, [[N2]]
; SPAWN-NEXT:    [[OVER:%.*]] = icmp ugt i64 [[P2]], 4097
; SPAWN-NEXT:    [[WORK:%.*]] = select i1 [[OVER]], i64 4097, i64 [[P2]]
; SPAWN:         call i1 @__klap_spawn_serial(i64 [[WORK]], i64
; SPAWN-NEXT:    icmp ule i64 [[WORK]], 4096
; SPAWN:         call void @child__klap_serial(ptr %out, i32 %n, i32 1, i32 %n, i32 1, i32 4, i32 %n, i32 2, i64 -1)
; SPAWN:         call i32 @__cudaCDP2LaunchDeviceV2(

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.tid.y()
declare i32 @llvm.nvvm.read.ptx.sreg.tid.z()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.y()

define ptx_kernel void @child(ptr %out, i32 %k) {
  %tx = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %ty = call i32 @llvm.nvvm.read.ptx.sreg.tid.y()
  %tz = call i32 @llvm.nvvm.read.ptx.sreg.tid.z()
  %cy = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.y()
  %a = add i32 %tx, %ty
  %b = add i32 %a, %tz
  %i = add i32 %b, %cy
  %p = getelementptr inbounds i32, ptr %out, i32 %i
  store i32 %k, ptr %p, align 4
  ret void
}

; child<<<dim3(1, 2), dim3(4, 2, 2)>>>(out, n): 32 threads.
define ptx_kernel void @constant(ptr %out, i32 %n) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  store %struct.dim3 { i32 1, i32 2, i32 1 }, ptr %g, align 4
  store %struct.dim3 { i32 4, i32 2, i32 2 }, ptr %b, align 4
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

; child<<<dim3(1, n), dim3(4, n, 2)>>>(out, n): 8 * n * n threads.
define ptx_kernel void @varying(ptr %out, i32 %n) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  %gv = insertvalue %struct.dim3 { i32 1, i32 poison, i32 1 }, i32 %n, 1
  store %struct.dim3 %gv, ptr %g, align 4
  %bv = insertvalue %struct.dim3 { i32 4, i32 poison, i32 2 }, i32 %n, 1
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
