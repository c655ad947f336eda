; A kernel launched here but defined in another translation unit comes out of clang as a plain function
; declaration (no ptx_kernel): its PTX would say `.extern .func` and nvlink would refuse the program.
; klap-normalize declares it a kernel (KLAP122). A declared function that is only called stays as it is.
; RUN: %opt -load-pass-plugin=%plugin -passes=klap-normalize -pass-remarks=klap -S %s -o - 2> %t.remarks | FileCheck %s
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks
; RUN: %opt -load-pass-plugin=%plugin -passes=klap-normalize -S %s -o %t.ll
; RUN: llc-22 -mtriple=nvptx64-nvidia-cuda -mcpu=sm_90 -mattr=+ptx88 %t.ll -o - | FileCheck --check-prefix=PTX %s

; REMARK: remark: {{.*}}@fill_row, launched here and defined in another translation unit, is declared as a kernel [KLAP122]
; REMARK-NOT: KLAP122

; PTX: .extern .entry fill_row
; PTX-NOT: .func fill_row
; PTX: .extern .func helper

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBuffer(i64, i64)
declare i32 @__cudaCDP2LaunchDevice(ptr, ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32, ptr)

; CHECK: declare ptx_kernel void @fill_row(ptr, i32)
declare void @fill_row(ptr, i32)

; CHECK: declare void @helper(ptr)
declare void @helper(ptr)

define ptx_kernel void @parent(ptr %out, i32 %n) {
entry:
  %grid = alloca %struct.dim3, align 8
  %block = alloca %struct.dim3, align 8
  call void @helper(ptr %out)
  %buf = call ptr @__cudaCDP2GetParameterBuffer(i64 64, i64 12)
  %isnull = icmp eq ptr %buf, null
  br i1 %isnull, label %done, label %launch

launch:
  store ptr %out, ptr %buf, align 8
  %p1 = getelementptr inbounds i8, ptr %buf, i64 8
  store i32 %n, ptr %p1, align 4
  store i32 1, ptr %grid, align 8
  %gy = getelementptr inbounds i8, ptr %grid, i64 4
  store i32 1, ptr %gy, align 4
  %gz = getelementptr inbounds i8, ptr %grid, i64 8
  store i32 1, ptr %gz, align 8
  store i32 32, ptr %block, align 8
  %by = getelementptr inbounds i8, ptr %block, i64 4
  store i32 1, ptr %by, align 4
  %bz = getelementptr inbounds i8, ptr %block, i64 8
  store i32 1, ptr %bz, align 8
  %r = call i32 @__cudaCDP2LaunchDevice(ptr @fill_row, ptr %buf, ptr byval(%struct.dim3) align 4 %grid, ptr byval(%struct.dim3) align 4 %block, i32 0, ptr null)
  br label %done

done:
  ret void
}
