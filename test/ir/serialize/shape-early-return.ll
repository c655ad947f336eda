; An early return in the parent (threads past %n return before they reach the launch): the launch is
; serialized where it is, on the path that reaches it, and the early return stays a plain return. With a
; size known only at run time (%m blocks of 32 threads), the check and the launch for a larger child are
; on that path too; under auto that launch registers into the grid scope, and both the early return and
; the end of the launching path go through the scope's exit (every thread counts itself out), where the
; last thread launches the aggregated child.
; RUN: %opt -load-pass-plugin=%plugin -klap-disable-aggregate -klap-disable-malloc -passes='klap<granularity=grid;serialize;serialize-small-grid-threshold=0;no-inline-runtime>' -pass-remarks=klap -pass-remarks-missed=klap -S %s -o %t.ll 2>%t.remarks
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=auto;no-inline-runtime>' -pass-remarks=klap -pass-remarks-missed=klap -S %s -o %t.auto.ll 2>%t.auto.remarks
; RUN: FileCheck --check-prefix=AUTO %s < %t.auto.ll
; RUN: FileCheck --check-prefix=AUTO-REMARK %s < %t.auto.remarks

; REMARK: remark: {{.*}}launch of @child serialized: the launching thread runs its threads when there are at most 32 (checked at run time; larger ones are launched) [KLAP300]
; AUTO-REMARK-DAG: remark: {{.*}}launch of @child serialized: {{.*}}(checked at run time; larger ones are launched) [KLAP300]
; AUTO-REMARK-DAG: remark: {{.*}}launch of @child aggregated at grid granularity {{.*}} [KLAP200]

; CHECK-LABEL: define ptx_kernel void @parent(
; CHECK:         [[STOP:%.*]] = icmp uge i32 %t, %n
; CHECK-NEXT:    br i1 [[STOP]], label %done, label %go
; CHECK:       go:
; CHECK:         [[SMALL:%.*]] = icmp ule i64 {{%.*}}, 32
; CHECK:         [[SERIAL:%serial.*]] = and i1 [[SMALL]], {{%.*}}
; CHECK-NEXT:    br i1 [[SERIAL]]
; CHECK:         call void @child__klap_serial(ptr %out, i32 %t, i32 %m, i32 1, i32 1, i32 32, i32 1, i32 1, i64 -1)
; CHECK:         call i32 @__cudaCDP2LaunchDeviceV2(
; CHECK:       done:
; CHECK-NOT:     call
; CHECK:         ret void
; CHECK-NEXT:  }

; AUTO-LABEL: define ptx_kernel void @parent(
; AUTO:          [[SCOPE:%.*]] = call ptr @__klap_grid_enter_per_block(
; AUTO:          [[STOP:%.*]] = icmp uge i32 %t, %n
; AUTO-NEXT:     br i1 [[STOP]], label %done, label %go
; AUTO:        go:
; AUTO:          call void @child__klap_serial(ptr %out, i32 %t, i32 %m,
; AUTO:          call ptr @__klap_scope_register(ptr [[SCOPE]],
; AUTO:          call i32 @__cudaCDP2LaunchDeviceV2(
; AUTO:        done:
; AUTO:          [[LAST:%.*]] = call i1 @__klap_scope_exit(ptr [[SCOPE]],
; AUTO-NEXT:     br i1 [[LAST]]
; AUTO:          call void @__klap_scope_launch(ptr [[SCOPE]], i32 0, ptr @child__klap, ptr @child,
; AUTO:          ret void
; AUTO-NOT:      ret void
; AUTO:        }

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
  %c = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %w = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %base = mul i32 %c, %w
  %i = add i32 %base, %t
  %p = getelementptr inbounds i32, ptr %out, i32 %i
  store i32 %k, ptr %p, align 4
  ret void
}

define ptx_kernel void @parent(ptr %out, i32 %n, i32 %m) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %stop = icmp uge i32 %t, %n
  br i1 %stop, label %done, label %go
go:
  %gv = insertvalue %struct.dim3 { i32 poison, i32 1, i32 1 }, i32 %m, 0
  store %struct.dim3 %gv, ptr %g, align 4
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  %ok = icmp ne ptr %buf, null
  br i1 %ok, label %fill, label %done
fill:
  store ptr %out, ptr %buf, align 8
  %a1 = getelementptr inbounds i8, ptr %buf, i64 8
  store i32 %t, ptr %a1, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  br label %done
done:
  ret void
}
