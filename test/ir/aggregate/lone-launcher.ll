; A launch only one threadIdx.x reaches (threadIdx.x == blockDim.x - 1, threadIdx.x == 0 && more, or
; past `if (threadIdx.x != 0 || more) return`) has one launching thread per one-dimensional block:
; nothing to aggregate at warp or block granularity, so it stays as written (KLAP206). Grid
; granularity aggregates it, and so does `no-skip-lone-launches`. A launch threadIdx.x < 4 reaches is
; aggregated.
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=block;no-inline-runtime>' -pass-remarks-missed=klap -S %s -o %t.ll 2>%t.remarks
; RUN: FileCheck --check-prefix=KEEP %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=warp;no-inline-runtime>' -S %s -o - | FileCheck --check-prefix=KEEP %s
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=grid;no-inline-runtime>' -S %s -o - | FileCheck --check-prefix=AGG %s
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=block;no-skip-lone-launches;no-inline-runtime>' -S %s -o - | FileCheck --check-prefix=AGG %s

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()

define ptx_kernel void @child(ptr %out, i32 %n) {
  %i = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %p = getelementptr inbounds i32, ptr %out, i32 %i
  store i32 %n, ptr %p, align 4
  ret void
}

; KEEP-LABEL: define ptx_kernel void @last_thread(
; KEEP-NOT:     @__klap
; KEEP:         call i32 @__cudaCDP2LaunchDeviceV2(
; KEEP-NEXT:    br label
; AGG-LABEL:  define ptx_kernel void @last_thread(
; AGG:          call {{.*}}@__klap_
define ptx_kernel void @last_thread(ptr %out, i32 %n) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %d = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %last = add nsw i32 %d, -1
  %is_last = icmp eq i32 %t, %last
  br i1 %is_last, label %go, label %after
go:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  store %struct.dim3 { i32 4, i32 1, i32 1 }, ptr %g, align 4
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  %ok = icmp ne ptr %buf, null
  br i1 %ok, label %fill, label %after
fill:
  store ptr %out, ptr %buf, align 8
  %a1 = getelementptr inbounds i8, ptr %buf, i64 8
  store i32 %n, ptr %a1, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  br label %after
after:
  ret void
}

; KEEP-LABEL: define ptx_kernel void @first_thread_with_work(
; KEEP-NOT:     @__klap
; KEEP:         call i32 @__cudaCDP2LaunchDeviceV2(
; KEEP-NEXT:    br label
; AGG-LABEL:  define ptx_kernel void @first_thread_with_work(
; AGG:          call {{.*}}@__klap_
define ptx_kernel void @first_thread_with_work(ptr %out, i32 %n) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %first = icmp eq i32 %t, 0
  %work = icmp sgt i32 %n, 0
  %both = select i1 %first, i1 %work, i1 false
  br i1 %both, label %go, label %after
go:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  store %struct.dim3 { i32 4, i32 1, i32 1 }, ptr %g, align 4
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  %ok = icmp ne ptr %buf, null
  br i1 %ok, label %fill, label %after
fill:
  store ptr %out, ptr %buf, align 8
  %a1 = getelementptr inbounds i8, ptr %buf, i64 8
  store i32 %n, ptr %a1, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  br label %after
after:
  ret void
}

; KEEP-LABEL: define ptx_kernel void @others_return(
; KEEP-NOT:     @__klap
; KEEP:         call i32 @__cudaCDP2LaunchDeviceV2(
; KEEP-NEXT:    br label
; AGG-LABEL:  define ptx_kernel void @others_return(
; AGG:          call {{.*}}@__klap_
define ptx_kernel void @others_return(ptr %out, i32 %n) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %other = icmp ne i32 %t, 0
  %none = icmp slt i32 %n, 1
  %skip = or i1 %other, %none
  br i1 %skip, label %after, label %go
go:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  store %struct.dim3 { i32 4, i32 1, i32 1 }, ptr %g, align 4
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  %ok = icmp ne ptr %buf, null
  br i1 %ok, label %fill, label %after
fill:
  store ptr %out, ptr %buf, align 8
  %a1 = getelementptr inbounds i8, ptr %buf, i64 8
  store i32 %n, ptr %a1, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  br label %after
after:
  ret void
}

; KEEP-LABEL: define ptx_kernel void @first_four(
; KEEP:         call {{.*}}@__klap_
; AGG-LABEL:  define ptx_kernel void @first_four(
; AGG:          call {{.*}}@__klap_
define ptx_kernel void @first_four(ptr %out, i32 %n) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %few = icmp ult i32 %t, 4
  br i1 %few, label %go, label %after
go:
  %g = alloca %struct.dim3, align 4
  %b = alloca %struct.dim3, align 4
  store %struct.dim3 { i32 4, i32 1, i32 1 }, ptr %g, align 4
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %b, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child, ptr byval(%struct.dim3) align 4 %g, ptr byval(%struct.dim3) align 4 %b, i32 0)
  %ok = icmp ne ptr %buf, null
  br i1 %ok, label %fill, label %after
fill:
  store ptr %out, ptr %buf, align 8
  %a1 = getelementptr inbounds i8, ptr %buf, i64 8
  store i32 %n, ptr %a1, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  br label %after
after:
  ret void
}

; REMARK-COUNT-3: launch not aggregated: only threads with one threadIdx.x reach it, one per one-dimensional block: nothing to aggregate at block granularity (-klap-skip-lone-launches=false aggregates it anyway) [KLAP206]
; REMARK-NOT:     KLAP206
