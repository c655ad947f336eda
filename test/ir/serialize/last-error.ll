; In a kernel whose launch was serialized always, cudaGetLastError (cudaPeekAtLastError) returns
; cudaSuccess where no call that may reach the device runtime comes before it in its thread, on any path
; from the kernel's entry: the query is folded (KLAP307). Kept after a call of an unknown function, a
; device function that calls one, assembly with a PTX `call`, and where a later part of its loop (the
; next iteration's past) makes such a call. Assembly without a call (CUDA's math headers) does not count.
; RUN: %opt -load-pass-plugin=%plugin -klap-disable-aggregate -klap-disable-malloc -passes='klap<granularity=grid;serialize;serialize-threshold=256;serialize-small-grid-threshold=0;no-inline-runtime>' -pass-remarks=klap -S %s -o %t.ll 2>%t.remarks
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare i32 @__cudaCDP2GetLastError()
declare i32 @__cudaCDP2PeekAtLastError()
declare i32 @__cudaCDP2Malloc(ptr, i64)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

define ptx_kernel void @child(ptr %out, i32 %k) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %p = getelementptr inbounds i32, ptr %out, i32 %t
  store i32 %k, ptr %p, align 4
  ret void
}

define internal void @allocates(ptr %slot) {
  %r = call i32 @__cudaCDP2Malloc(ptr %slot, i64 64)
  ret void
}

; REMARK: remark: {{.*}}@__cudaCDP2GetLastError returns cudaSuccess here: no call that may reach the device runtime comes before it in its thread [KLAP307]
; CHECK-LABEL: define ptx_kernel void @folded(
; CHECK:         call void @child__klap_serial(
; CHECK-NOT:     @__cudaCDP2GetLastError
; CHECK:         [[FAILED:%.*]] = icmp ne i32 0, 0
; CHECK:         ret void
define ptx_kernel void @folded(ptr %out, ptr %errors, i32 %n) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  %x = call float asm "add.rn.f32 $0, $1, $1;", "=f,f"(float 1.0)
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %g, align 4
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
  %e = call i32 @__cudaCDP2GetLastError()
  %failed = icmp ne i32 %e, 0
  br i1 %failed, label %report, label %end
report:
  store i32 %e, ptr %errors, align 4
  br label %end
end:
  ret void
}

; CHECK-LABEL: define ptx_kernel void @after_malloc(
; CHECK:         call void @allocates(
; CHECK:         call void @child__klap_serial(
; CHECK:         call i32 @__cudaCDP2PeekAtLastError()
define ptx_kernel void @after_malloc(ptr %out, ptr %errors, ptr %slot, i32 %n) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  call void @allocates(ptr %slot)
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %g, align 4
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
  %e = call i32 @__cudaCDP2PeekAtLastError()
  store i32 %e, ptr %errors, align 4
  ret void
}

; CHECK-LABEL: define ptx_kernel void @asm_call(
; CHECK:         call void @child__klap_serial(
; CHECK:         call i32 @__cudaCDP2GetLastError()
define ptx_kernel void @asm_call(ptr %out, ptr %errors, i32 %n) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  call void asm sideeffect "call.uni external_thing;", ""()
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %g, align 4
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
  %e = call i32 @__cudaCDP2GetLastError()
  store i32 %e, ptr %errors, align 4
  ret void
}

; The query comes first in the loop's body, and the body's later cudaMalloc precedes it in the next
; iteration: kept.
; CHECK-LABEL: define ptx_kernel void @loop(
; CHECK:       body:
; CHECK:         call void @child__klap_serial(
; CHECK:         call i32 @__cudaCDP2GetLastError()
; CHECK:         call i32 @__cudaCDP2Malloc(
define ptx_kernel void @loop(ptr %out, ptr %errors, ptr %slot, i32 %n) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  br label %body
body:
  %i = phi i32 [ 0, %entry ], [ %next, %body ]
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %g, align 4
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  store ptr %out, ptr %buf, align 8
  %a1 = getelementptr inbounds i8, ptr %buf, i64 8
  store i32 %i, ptr %a1, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  %e = call i32 @__cudaCDP2GetLastError()
  store i32 %e, ptr %errors, align 4
  %m = call i32 @__cudaCDP2Malloc(ptr %slot, i64 64)
  %next = add i32 %i, 1
  %more = icmp ult i32 %next, %n
  br i1 %more, label %body, label %exit
exit:
  ret void
}

; A run-time check: the query follows only the launch made for a child too large to serialize, so it is
; made only once that launch ran (a flag it sets); before, it is cudaSuccess.
; REMARK: remark: {{.*}}@__cudaCDP2GetLastError is called only once a launch made as written where the transformation did not take it (a child too large to serialize, a chain that left its loop) ran: before, it returns cudaSuccess (no other call that may reach the device runtime comes before it) [KLAP307]
; CHECK-LABEL: define ptx_kernel void @checked(
; CHECK:         [[FLAG:%.*]] = alloca i1, align 1
; CHECK:         store i1 false, ptr [[FLAG]]
; CHECK:         call void @child__klap_serial(
; CHECK:         store i1 true, ptr [[FLAG]]
; CHECK-NEXT:    call ptr @__cudaCDP2GetParameterBufferV2(ptr @child
; CHECK:         call i32 @__cudaCDP2LaunchDeviceV2(
; CHECK:         [[RAN:%.*]] = load i1, ptr [[FLAG]]
; CHECK-NEXT:    br i1 [[RAN]], label %[[CALL:.*]], label %[[JOIN:.*]]
; CHECK:       [[CALL]]:
; CHECK-NEXT:    [[E:%.*]] = call i32 @__cudaCDP2GetLastError()
; CHECK:       [[JOIN]]:
; CHECK-NEXT:    %last.error = phi i32 [ 0, %{{.*}} ], [ [[E]], %[[CALL]] ]
; CHECK-NEXT:    store i32 %last.error, ptr %errors
define ptx_kernel void @checked(ptr %out, ptr %errors, i32 %n) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  %gv = insertvalue %struct.dim3 { i32 poison, i32 1, i32 1 }, i32 %n, 0
  store %struct.dim3 %gv, ptr %g, align 4
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
  %e = call i32 @__cudaCDP2GetLastError()
  store i32 %e, ptr %errors, align 4
  ret void
}

; Two launches checked at run time before the query: one flag, set by either fallback, and the query made
; once (each kernel's queries are folded once).
; CHECK-LABEL: define ptx_kernel void @two_checked(
; CHECK:         [[FLAG:%.*]] = alloca i1, align 1
; CHECK-NOT:     alloca i1
; CHECK:         store i1 false, ptr [[FLAG]]
; CHECK:         store i1 true, ptr [[FLAG]]
; CHECK:         store i1 true, ptr [[FLAG]]
; CHECK:         [[RAN:%.*]] = load i1, ptr [[FLAG]]
; CHECK-NEXT:    br i1 [[RAN]]
; CHECK:         call i32 @__cudaCDP2GetLastError()
; CHECK-NOT:     load i1, ptr [[FLAG]]
; CHECK:         ret void
define ptx_kernel void @two_checked(ptr %out, ptr %errors, i32 %n, i32 %m) {
entry:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  %gv = insertvalue %struct.dim3 { i32 poison, i32 1, i32 1 }, i32 %n, 0
  store %struct.dim3 %gv, ptr %g, align 4
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  store ptr %out, ptr %buf, align 8
  %a1 = getelementptr inbounds i8, ptr %buf, i64 8
  store i32 %n, ptr %a1, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  %g2 = alloca %struct.dim3, align 4
  %gv2 = insertvalue %struct.dim3 { i32 poison, i32 1, i32 1 }, i32 %m, 0
  store %struct.dim3 %gv2, ptr %g2, align 4
  %buf2 = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, ptr byval(%struct.dim3) align 4 %g2, ptr byval(%struct.dim3) align 4 %b, i32 0)
  store ptr %out, ptr %buf2, align 8
  %a2 = getelementptr inbounds i8, ptr %buf2, i64 8
  store i32 %m, ptr %a2, align 4
  %r2 = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf2, ptr null)
  %e = call i32 @__cudaCDP2GetLastError()
  store i32 %e, ptr %errors, align 4
  ret void
}
