// Reports, with device printf, of what the program would not otherwise see: every fallback to an
// unaggregated launch when the pass was asked to trace them, and every launch that was lost.
#include "klap_rt.h"

// Set by the pass (-klap-trace): report every fallback to an unaggregated launch, the first
// hundred of them, with device printf.
extern "C" GLOBAL_VAR u32 klap_trace;
GLOBAL_VAR u32 klap_trace_count;
extern "C" __attribute__((device)) int vprintf(const char *format, const char *args);

INLINE void report(bool always, const char *format, u32 a, u32 b) {
  if ((!always && !klap_trace) || __nvvm_atom_add_gen_i((int *)&klap_trace_count, 1) >= 100)
    return;
  u32 args[2] = {a, b};
  vprintf(format, (const char *)args);
}

HELPER void trace(const char *format, u32 a, u32 b) { report(false, format, a, b); }
HELPER void error(const char *format, u32 a, u32 b) { report(true, format, a, b); }

// The device runtime's error for a launch beyond its pending launches (cudaErrorLaunchPendingCountExceeded).
enum { LAUNCH_PENDING_COUNT_EXCEEDED = 69 };

// After a launch made as written because no record could be had (the record pool was short, or the
// chunk full): `err`, its result, which the launch's caller no longer sees (the pass makes it success).
// A launch refused for want of room is lost there as it would have been as written, but not silently.
ACCESSOR void __klap_as_written_result(u32 err) {
  if (err == LAUNCH_PENDING_COUNT_EXCEEDED)
    error("klap: error: a launch made as written (no record: the record pool was short, -klap-pool-size) was refused: "
          "the device runtime's pending launches were taken (error %u); it is lost\n", err, 0);
}
