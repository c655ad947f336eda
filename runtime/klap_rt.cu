// klap's device runtime as one translation unit, for a program that compiles it into itself
// (test/gpu-race's racecheck harness, which defines KLAP_RT_NO_LAUNCH to leave out what calls the device
// runtime library: launches and allocations).
// The plugin's copy is built from the same parts by pass/build.rs, which checks that every part of
// runtime/ is included here. What each part does: klap_rt.h.
#define KLAP_RT_ONE_FILE
#include "klap_rt.h"

#include "primitives.cu"
#include "trace.cu"
#include "pool.cu"
#include "register.cu"
#include "scope.cu"
#include "lookup.cu"
#include "reuse.cu"
#include "promote.cu"
#include "spawn.cu"
#ifndef KLAP_RT_NO_LAUNCH
#include "launch.cu"
#include "malloc.cu"
#endif
