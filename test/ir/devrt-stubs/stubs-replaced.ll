; klap-devrt-stubs: the stubs CUDA 13's header defines for device code without __CUDACC_RDC__ (they return
; cudaErrorUnknown, 999, and do nothing; unoptimized, they keep their parameters in stack slots) become
; declarations of the device runtime's entry points; a definition that does anything else under such a
; name is left alone, and so is a function of another name.
; RUN: %opt -load-pass-plugin=%plugin -passes=klap-devrt-stubs -pass-remarks=klap -S %s -o - 2> %t.remarks | FileCheck %s
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

$__cudaCDP2Malloc = comdat any

; REMARK: remark: <unknown>:0:0: device-side cudaMalloc calls the device runtime's @__cudaCDP2Malloc (libcudadevrt), {{.*}} [KLAP130]
; REMARK: remark: <unknown>:0:0: device-side cudaGetDevice calls the device runtime's @__cudaCDP2GetDevice (libcudadevrt), {{.*}} [KLAP130]
; REMARK-NOT: KLAP130

; CHECK-LABEL: define ptx_kernel void @use(
; CHECK: call i32 @__cudaCDP2Malloc(ptr %p, i64 64)
; CHECK: call i32 @__cudaCDP2GetDevice(ptr %d)
; CHECK: call i32 @__cudaCDP2DeviceGetAttribute(ptr %d, i32 1, i32 0)
; CHECK: call i32 @not_a_stub(ptr %d)
define ptx_kernel void @use(ptr %p, ptr %d) {
  %1 = call i32 @__cudaCDP2Malloc(ptr %p, i64 64)
  %2 = call i32 @__cudaCDP2GetDevice(ptr %d)
  %3 = call i32 @__cudaCDP2DeviceGetAttribute(ptr %d, i32 1, i32 0)
  %4 = call i32 @not_a_stub(ptr %d)
  ret void
}

; CHECK-DAG: declare i32 @__cudaCDP2Malloc(ptr noundef, i64 noundef)
define linkonce_odr i32 @__cudaCDP2Malloc(ptr noundef %0, i64 noundef %1) comdat {
  %3 = alloca ptr, align 8
  %4 = alloca i64, align 8
  store ptr %0, ptr %3, align 8
  store i64 %1, ptr %4, align 8
  ret i32 999
}

; CHECK-DAG: declare i32 @__cudaCDP2GetDevice(ptr)
define linkonce_odr i32 @__cudaCDP2GetDevice(ptr %0) {
  ret i32 999
}

; Someone's own definition: it does something, so it is not the header's stub.
; CHECK-DAG: define linkonce_odr i32 @__cudaCDP2DeviceGetAttribute(ptr %v, i32 %a, i32 %dev) {
define linkonce_odr i32 @__cudaCDP2DeviceGetAttribute(ptr %v, i32 %a, i32 %dev) {
  store i32 0, ptr %v, align 4
  ret i32 999
}

; CHECK-DAG: define i32 @not_a_stub(ptr %0) {
define i32 @not_a_stub(ptr %0) {
  ret i32 999
}
