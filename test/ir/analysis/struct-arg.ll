; A child taking a struct by value (a byval parameter) gets the struct's bytes in the parameter
; buffer. clang at -O2 writes them field by field (two stores into one parameter: {2 writes}); at -O0
; or for larger structs, with one llvm.memcpy from the caller's copy (copy(src)). Both must be taken as
; writes of that one parameter, at the struct's alignment (8 here, for the double).
; RUN: %opt -load-pass-plugin=%plugin -passes='print<klap-launches>' -disable-output %s 2>&1 | FileCheck %s

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }
%struct.S = type { i32, double }

declare ptr @__cudaCDP2GetParameterBuffer(i64, i64)
declare i32 @__cudaCDP2LaunchDevice(ptr, ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32, ptr)
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)

define ptx_kernel void @child(i32 %tag, ptr byval(%struct.S) align 8 %s) {
  ret void
}

; CHECK: klap-launch: caller=by_fields child=child abi=v1 grid=(1,1,1) block=(1,1,1) dims=byval smem=0 stream=null args=2 [0:i32=%tag 8:byval(%struct.S)={2 writes}] loop=0 divergent=no
define ptx_kernel void @by_fields(i32 %tag, i32 %a, double %b) {
entry:
  %grid = alloca %struct.dim3, align 8
  %block = alloca %struct.dim3, align 8
  %buf = call ptr @__cudaCDP2GetParameterBuffer(i64 64, i64 24)
  %isnull = icmp eq ptr %buf, null
  br i1 %isnull, label %done, label %launch

launch:
  store i32 %tag, ptr %buf, align 64
  %sa = getelementptr inbounds i8, ptr %buf, i64 8
  store i32 %a, ptr %sa, align 8
  %sb = getelementptr inbounds i8, ptr %buf, i64 16
  store double %b, ptr %sb, align 16
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %grid, align 8
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %block, align 8
  %r = call i32 @__cudaCDP2LaunchDevice(ptr @child, ptr %buf, ptr byval(%struct.dim3) align 4 %grid, ptr byval(%struct.dim3) align 4 %block, i32 0, ptr null)
  br label %done

done:
  ret void
}

; CHECK: klap-launch: caller=by_copy child=child abi=v1 grid=(1,1,1) block=(1,1,1) dims=byval smem=0 stream=null args=2 [0:i32=%tag 8:byval(%struct.S)=copy(%local)] loop=0 divergent=no
; CHECK-NOT: klap-launch
define ptx_kernel void @by_copy(i32 %tag, i32 %a, double %b) {
entry:
  %local = alloca %struct.S, align 8
  %grid = alloca %struct.dim3, align 8
  %block = alloca %struct.dim3, align 8
  store i32 %a, ptr %local, align 8
  %lb = getelementptr inbounds i8, ptr %local, i64 8
  store double %b, ptr %lb, align 8
  %buf = call ptr @__cudaCDP2GetParameterBuffer(i64 64, i64 24)
  %isnull = icmp eq ptr %buf, null
  br i1 %isnull, label %done, label %launch

launch:
  store i32 %tag, ptr %buf, align 64
  %s = getelementptr inbounds i8, ptr %buf, i64 8
  call void @llvm.memcpy.p0.p0.i64(ptr align 8 %s, ptr align 8 %local, i64 16, i1 false)
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %grid, align 8
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %block, align 8
  %r = call i32 @__cudaCDP2LaunchDevice(ptr @child, ptr %buf, ptr byval(%struct.dim3) align 4 %grid, ptr byval(%struct.dim3) align 4 %block, i32 0, ptr null)
  br label %done

done:
  ret void
}
