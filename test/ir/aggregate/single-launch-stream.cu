// A stream a thread creates for one launch (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), the
// launch, cudaStreamDestroy(s)) orders that launch after nothing, like fire-and-forget: the model calls
// it single-launch and it is aggregated (KLAP209 beside KLAP200), its aggregated launch going into the
// fire-and-forget stream (4), and so does the fallback launch (no record): nothing needs the created
// stream, and its create and destroy calls are removed (device-runtime calls that hung beside klap's
// runtime in a warp, fuzz case 223-31). Every other use
// keeps the stream's order (KLAP201): a second launch into it, the handle passed to a function, a stream
// created before a loop that launches in it, a stream never destroyed, one destroyed before the launch.
// RUN: %clang %cudaflags -O2 --cuda-device-only -emit-llvm -S %s -o %t.ll
// RUN: %opt -load-pass-plugin=%plugin -passes='print<klap-launches>' -disable-output %t.ll 2>&1 | FileCheck --check-prefix=MODEL %s
// RUN: %clang %cudaflags -O2 --cuda-device-only -emit-llvm -S -fpass-plugin=%plugin -mllvm -klap-granularity=grid -mllvm -klap-inline-runtime=false -Rpass=klap -Rpass-missed=klap %s -o %t.grid.ll 2> %t.remarks
// RUN: FileCheck --check-prefix=REMARK %s < %t.remarks
// RUN: FileCheck --check-prefix=KEPT %s < %t.remarks
// RUN: FileCheck --check-prefix=IR %s < %t.grid.ll
// Serialization takes it as it takes fire-and-forget (KLAP300), and keeps the others launched (KLAP302).
// RUN: %clang %cudaflags -O2 --cuda-device-only -emit-llvm -S -fpass-plugin=%plugin -mllvm -klap-granularity=none -mllvm -klap-serialize -Rpass=klap -Rpass-missed=klap %s -o %t.serial.ll 2> %t.serial.remarks
// RUN: FileCheck --check-prefix=SERIAL %s < %t.serial.remarks
// RUN: FileCheck --check-prefix=SERIALIR %s < %t.serial.ll
// RUN: %clang %cudaflags -O2 --cuda-device-only -S -fpass-plugin=%plugin -mllvm -klap-granularity=warp %s -o %t.warp.ptx
// RUN: %ptxas -arch=sm_90 -c %t.warp.ptx -o %t.warp.o
// RUN: %clang %cudaflags -O2 --cuda-device-only -S -fpass-plugin=%plugin -mllvm -klap-granularity=grid %s -o %t.grid.ptx
// RUN: %ptxas -arch=sm_90 -c %t.grid.ptx -o %t.grid.o

// MODEL: caller=_Z6singlePi child=_Z5childPii {{.*}} stream=single-launch
// MODEL: caller=_Z7in_loopPii child=_Z5childPii {{.*}} stream=single-launch
// MODEL: caller=_Z10used_twicePi child=_Z5childPii {{.*}} stream=other
// MODEL: caller=_Z10used_twicePi child=_Z5childPii {{.*}} stream=other
// MODEL: caller=_Z16passed_elsewherePi child=_Z5childPii {{.*}} stream=other
// MODEL: caller=_Z16reused_in_a_loopPii child=_Z5childPii {{.*}} stream=other
// MODEL: caller=_Z13not_destroyedPi child=_Z5childPii {{.*}} stream=other
// MODEL: caller=_Z19destroyed_too_earlyPi child=_Z5childPii {{.*}} stream=other
// MODEL: caller=_Z8blockingPi child=_Z5childPii {{.*}} stream=other

// KEPT-COUNT-7: launches into a other stream keep their stream's order [KLAP201]
// KEPT-NOT: KLAP201
// SERIAL-COUNT-2: launch of @_Z5childPii serialized: the launching thread runs its 32 threads always; its stream was created for this launch alone {{.*}} [KLAP300]
// SERIAL-COUNT-7: a launch into a other stream is ordered after other work: it is launched [KLAP302]
// SERIAL-NOT: KLAP30{{[0-9]}}

// Serialized, `single` launches nothing, and its stream's create and destroy calls are gone too.
// SERIALIR-LABEL: define {{.*}} @_Z6singlePi(
// SERIALIR-NOT: @__cudaCDP2Stream
// SERIALIR: {{^}}}

// The grid scope of `single` launches its records into the fire-and-forget stream, the fallback launch
// (no record) goes there too, and the stream's create and destroy calls are gone.
// IR-LABEL: define {{.*}} @_Z6singlePi(
// IR-NOT: @__cudaCDP2StreamCreateWithFlags(
// IR: call i32 @__cudaCDP2LaunchDeviceV2(ptr {{%.*}}, ptr inttoptr (i64 4 to ptr))
// IR-NOT: @__cudaCDP2StreamDestroy(
// IR: call void @__klap_scope_launch(ptr {{%.*}}, i32 0, ptr @_Z5childPii__klap, ptr @_Z5childPii, i32 12, i64 0, ptr inttoptr (i64 4 to ptr), ptr null)
// IR: {{^}}}

#include <cuda_runtime.h>

__device__ __noinline__ void note_stream(cudaStream_t s);

__global__ void child(int *out, int n) {
  if (threadIdx.x < n)
    out[threadIdx.x] = n;
}

__global__ void single(int *out) {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  // REMARK: single-launch-stream.cu:[[#@LINE+2]]:{{.*}} launch of @_Z5childPii aggregated into the fire-and-forget stream: its stream was created for this launch alone {{.*}} [KLAP209]
  // REMARK: single-launch-stream.cu:[[#@LINE+1]]:{{.*}} launch of @_Z5childPii aggregated at grid granularity {{.*}} [KLAP200]
  child<<<1, 32, 0, s>>>(out + 32 * threadIdx.x, threadIdx.x);
  cudaStreamDestroy(s);
}

// A new stream in every iteration: each launch has its own.
__global__ void in_loop(int *out, int n) {
  for (int i = 0; i < n; ++i) {
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    // REMARK: single-launch-stream.cu:[[#@LINE+2]]:{{.*}} [KLAP209]
    // REMARK: single-launch-stream.cu:[[#@LINE+1]]:{{.*}} [KLAP200]
    child<<<1, 32, 0, s>>>(out + 32 * i, i);
    cudaStreamDestroy(s);
  }
}
// REMARK-NOT: KLAP209
// REMARK-NOT: KLAP200

__global__ void used_twice(int *out) {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  child<<<1, 32, 0, s>>>(out, 1);
  child<<<1, 32, 0, s>>>(out, 2);
  cudaStreamDestroy(s);
}

__global__ void passed_elsewhere(int *out) {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  child<<<1, 32, 0, s>>>(out, 1);
  note_stream(s);
  cudaStreamDestroy(s);
}

__global__ void reused_in_a_loop(int *out, int n) {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  for (int i = 0; i < n; ++i)
    child<<<1, 32, 0, s>>>(out + 32 * i, i);
  cudaStreamDestroy(s);
}

__global__ void not_destroyed(int *out) {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  child<<<1, 32, 0, s>>>(out, 1);
}

__global__ void destroyed_too_early(int *out) {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  cudaStreamDestroy(s);
  child<<<1, 32, 0, s>>>(out, 1);
}

// Created without cudaStreamNonBlocking (which device code requires: the creation fails).
__global__ void blocking(int *out) {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamDefault);
  child<<<1, 32, 0, s>>>(out, 1);
  cudaStreamDestroy(s);
}
