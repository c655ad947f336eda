; Coarsening a child launched with a two-dimensional grid and a three-dimensional block: it needs nothing
; of its other threads, so each block of its aggregated launch runs a range of aggregated blocks, and
; every read of threadIdx.y, threadIdx.z and blockIdx.y in the coarsened body goes to the runtime's
; accessors (the record's shape, set again for each aggregated block). The registrations carry all six
; dimensions, constant or known at run time; the launch gives the factor (12 | ARGS_IN_PARAMS | 4 << 16 |
; 32 << 24 = 1610874892).
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=grid;no-inline-runtime;coarsen=4>' -pass-remarks=klap -pass-remarks-missed=klap -S %s -o %t.ll 2>%t.remarks
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=grid;no-inline-runtime>' -S %s -o - | FileCheck --check-prefix=OFF %s

; REMARK: remark: {{.*}}each block of @child's aggregated child runs up to 4 aggregated blocks, one after another, where the aggregated launch has more than 2048 threads a multiprocessor [KLAP620]
; REMARK-NOT: KLAP621

; CHECK-LABEL: define ptx_kernel void @constant(
; CHECK:         call ptr @__klap_scope_register(ptr {{%.*}}, i32 0, i32 1, i32 2, i32 1, i32 4, i32 2, i32 2, i32 0)
; CHECK:         call void @__klap_scope_launch(ptr {{%.*}}, i32 0, ptr @child__klap, ptr @child, i32 1610874892,
; CHECK-LABEL: define ptx_kernel void @varying(
; CHECK:         call ptr @__klap_scope_register(ptr {{%.*}}, i32 0, i32 1, i32 %n, i32 1, i32 4, i32 %n, i32 2, i32 0)
; CHECK:         call void @__klap_scope_launch(ptr {{%.*}}, i32 0, ptr @child__klap, ptr @child, i32 1610874892,
; CHECK-LABEL: define ptx_kernel void @child__klap(
; CHECK:         call i64 @__klap_child_coarse_range(
; CHECK:         %tx.klap = call i32 @__klap_tid_x()
; CHECK-NEXT:    %ty.klap = call i32 @__klap_tid_y()
; CHECK-NEXT:    %tz.klap = call i32 @__klap_tid_z()
; CHECK-NEXT:    %cy.klap = call i32 @__klap_ctaid_y()
; CHECK-NOT:     llvm.nvvm.read.ptx.sreg
; CHECK:         call void @__klap_child_exit()
; CHECK-NEXT:    br label %klap.coarse.latch
; CHECK:       klap.coarse.next:
; Each kernel's launches have one configuration over its scope: a record is a division by the first's blocks.
; CHECK:         call ptr @__klap_child_next(ptr %klap.chunk, i32 {{%.*}}, i32 -1)
; CHECK:       }

; OFF-LABEL: define ptx_kernel void @constant(
; OFF:         call void @__klap_scope_launch(ptr {{%.*}}, i32 0, ptr @child__klap, ptr @child, i32 1073741836,
; OFF-LABEL: define ptx_kernel void @child__klap(
; OFF-NOT:     coarse
; OFF:         call i32 @__klap_tid_y()
; OFF-NOT:     coarse
; OFF:       }

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

; child<<<dim3(1, 2), dim3(4, 2, 2)>>>(out, n)
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

; child<<<dim3(1, n), dim3(4, n, 2)>>>(out, n)
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
