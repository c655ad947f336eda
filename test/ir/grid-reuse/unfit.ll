; Launches whose child grids parent blocks do not run, each with a missed remark saying why; they are
; aggregated as before.
; RUN: %opt -load-pass-plugin=%plugin -passes='klap<granularity=grid;grid-reuse;no-inline-runtime>' -pass-remarks-missed=klap -S %s -o %t.ll 2>%t.remarks
; RUN: opt -passes=verify -disable-output %t.ll
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks
; Grid reuse takes grids from a grid scope: at another granularity it is an error.
; RUN: not %opt -load-pass-plugin=%plugin -passes='klap<granularity=block;grid-reuse>' -disable-output %s 2>&1 | FileCheck --check-prefix=ERROR %s
; ERROR: klap: grid-reuse needs granularity=grid or auto

; A child that launches kernels of its own.
; REMARK-DAG: child grids not run by parent blocks: @tree launches @tree itself: run by a parent block at its end, that launch would be made as written, outside any scope [KLAP320]
; A tail launch, and a parent with one (block reuse's own checks, KLAP311's and KLAP313's reasons).
; REMARK-DAG: child grids not run by parent blocks: a launch into the tail stream (it waits for the whole parent grid) is ordered after other work: it is launched [KLAP320]
; REMARK-DAG: child grids not run by parent blocks: @tailing launches into the tail stream: {{.*}} [KLAP320]

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBufferV2(ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32)
declare i32 @__cudaCDP2LaunchDeviceV2(ptr, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

define ptx_kernel void @leaf(ptr %out) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %p = getelementptr inbounds i32, ptr %out, i32 %t
  store i32 %t, ptr %p, align 4
  ret void
}

; CHECK-LABEL: define ptx_kernel void @tree(
; CHECK-NOT: klap.grid.reuse
; CHECK-NOT: __klap_grid_take
; CHECK: ret void
define ptx_kernel void @tree(ptr %out, i32 %depth) {
entry:
  %more = icmp ugt i32 %depth, 0
  br i1 %more, label %launch, label %done
launch:
  %grid = alloca %struct.dim3, align 4
  %block = alloca %struct.dim3, align 4
  store i32 2, ptr %grid, align 4
  %gy = getelementptr inbounds i8, ptr %grid, i64 4
  store i32 1, ptr %gy, align 4
  %gz = getelementptr inbounds i8, ptr %grid, i64 8
  store i32 1, ptr %gz, align 4
  store i32 32, ptr %block, align 4
  %by = getelementptr inbounds i8, ptr %block, i64 4
  store i32 1, ptr %by, align 4
  %bz = getelementptr inbounds i8, ptr %block, i64 8
  store i32 1, ptr %bz, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @tree, ptr byval(%struct.dim3) align 4 %grid, ptr byval(%struct.dim3) align 4 %block, i32 0)
  %ok = icmp ne ptr %buf, null
  br i1 %ok, label %fill, label %done
fill:
  store ptr %out, ptr %buf, align 8
  %dp = getelementptr inbounds i8, ptr %buf, i64 8
  %d1 = sub i32 %depth, 1
  store i32 %d1, ptr %dp, align 4
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr null)
  br label %done
done:
  ret void
}

; CHECK-LABEL: define ptx_kernel void @tailing(
; CHECK-NOT: __klap_grid_take
; CHECK: ret void
define ptx_kernel void @tailing(ptr %out) {
entry:
  %grid = alloca %struct.dim3, align 4
  %block = alloca %struct.dim3, align 4
  store i32 1, ptr %grid, align 4
  %gy = getelementptr inbounds i8, ptr %grid, i64 4
  store i32 1, ptr %gy, align 4
  %gz = getelementptr inbounds i8, ptr %grid, i64 8
  store i32 1, ptr %gz, align 4
  store i32 32, ptr %block, align 4
  %by = getelementptr inbounds i8, ptr %block, i64 4
  store i32 1, ptr %by, align 4
  %bz = getelementptr inbounds i8, ptr %block, i64 8
  store i32 1, ptr %bz, align 4
  %buf = call ptr @__cudaCDP2GetParameterBufferV2(ptr @leaf, ptr byval(%struct.dim3) align 4 %grid, ptr byval(%struct.dim3) align 4 %block, i32 0)
  store ptr %out, ptr %buf, align 8
  %r = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf, ptr inttoptr (i64 3 to ptr))
  %buf2 = call ptr @__cudaCDP2GetParameterBufferV2(ptr @leaf, ptr byval(%struct.dim3) align 4 %grid, ptr byval(%struct.dim3) align 4 %block, i32 0)
  store ptr %out, ptr %buf2, align 8
  %r2 = call i32 @__cudaCDP2LaunchDeviceV2(ptr %buf2, ptr null)
  ret void
}
