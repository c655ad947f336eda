; The coarsening options' bounds (the runtime takes the factor in 8 bits, the threads a multiprocessor in 64s in 6):
; a value past them is an error, not a silently different build.
; RUN: not %opt -load-pass-plugin=%plugin -passes='klap<granularity=grid;coarsen=256>' -disable-output %s 2>&1 | FileCheck --check-prefix=FACTOR %s
; RUN: not %opt -load-pass-plugin=%plugin -passes='klap<granularity=grid;coarsen-sm-threads=100>' -disable-output %s 2>&1 | FileCheck --check-prefix=PERSM %s
; RUN: not %opt -load-pass-plugin=%plugin -passes='klap<granularity=grid>' -klap-coarsen=1000 -disable-output %s 2>&1 | FileCheck --check-prefix=CLI %s
; RUN: not %opt -load-pass-plugin=%plugin -passes='klap<granularity=grid>' -klap-coarsen-sm-threads=4096 -disable-output %s 2>&1 | FileCheck --check-prefix=CLIPERSM %s
; FACTOR: klap: coarsen needs a number from 0 to 255
; PERSM: klap: coarsen-sm-threads needs a multiple of 64 from 0 to 4032
; CLI: klap: -klap-coarsen must be 0 to 255, not 1000
; CLIPERSM: klap: -klap-coarsen-sm-threads must be a multiple of 64 from 0 to 4032, not 4096

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @k() {
  ret void
}
