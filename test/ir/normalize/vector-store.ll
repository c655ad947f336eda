; Two adjacent `short` arguments written by one `<2 x i16>` store (clang's vectorizer merges them at -O2):
; each element is the write of one parameter. Before, the launch was unrecognized (KLAP104) and stayed in the
; V1 form, which CUDA 13 drops for tail and fire-and-forget launches (found by the fuzzer, fuzz/).
; RUN: %opt -load-pass-plugin=%plugin -passes='print<klap-launches>' -disable-output %s 2>&1 | FileCheck --check-prefix=MODEL %s
; RUN: %opt -load-pass-plugin=%plugin -passes=klap-normalize -S %s | FileCheck %s

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.dim3 = type { i32, i32, i32 }

declare ptr @__cudaCDP2GetParameterBuffer(i64, i64)
declare i32 @__cudaCDP2LaunchDevice(ptr, ptr, ptr byval(%struct.dim3) align 4, ptr byval(%struct.dim3) align 4, i32, ptr)

define ptx_kernel void @child(ptr %out, i16 %a, i16 %b) {
  ret void
}

; MODEL: klap-launch: caller=parent child=child abi=v1 grid=(1,1,1) block=(32,1,1) dims=byval smem=0 stream=tail args=3 [0:ptr=%out 8:i16=%v[0] 10:i16=%v[1]]
; CHECK-LABEL: define ptx_kernel void @parent(
; CHECK-DAG:     [[A:%.*]] = extractelement <2 x i16> %v, i32 0
; CHECK-DAG:     [[B:%.*]] = extractelement <2 x i16> %v, i32 1
; CHECK:         [[BUF:%.*]] = call ptr @__cudaCDP2GetParameterBufferV2(ptr @child
; CHECK:         [[P8:%.*]] = getelementptr inbounds i8, ptr [[BUF]], i64 8
; CHECK-NEXT:    store i16 [[A]], ptr [[P8]], align 2
; CHECK-NEXT:    [[P10:%.*]] = getelementptr inbounds i8, ptr [[BUF]], i64 10
; CHECK-NEXT:    store i16 [[B]], ptr [[P10]], align 2
; CHECK:         call i32 @__cudaCDP2LaunchDeviceV2(ptr [[BUF]], ptr inttoptr (i64 3 to ptr))
; CHECK-NOT:     store <2 x i16>
define ptx_kernel void @parent(ptr %out, <2 x i16> %v) {
entry:
  %grid = alloca %struct.dim3, align 4
  %block = alloca %struct.dim3, align 4
  %buf = call ptr @__cudaCDP2GetParameterBuffer(i64 64, i64 16)
  %isnull = icmp eq ptr %buf, null
  br i1 %isnull, label %done, label %launch
launch:
  store ptr %out, ptr %buf, align 8
  %p8 = getelementptr inbounds i8, ptr %buf, i64 8
  store <2 x i16> %v, ptr %p8, align 8
  store %struct.dim3 { i32 1, i32 1, i32 1 }, ptr %grid, align 4
  store %struct.dim3 { i32 32, i32 1, i32 1 }, ptr %block, align 4
  %r = call i32 @__cudaCDP2LaunchDevice(ptr @child, ptr %buf, ptr byval(%struct.dim3) align 4 %grid, ptr byval(%struct.dim3) align 4 %block, i32 0, ptr inttoptr (i64 3 to ptr))
  br label %done
done:
  ret void
}
