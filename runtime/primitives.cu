// The special registers, memory orderings and warp shuffles every part of the runtime uses.
#include "klap_rt.h"

HELPER u32 tid_linear() {
  return __nvvm_read_ptx_sreg_tid_x() +
         __nvvm_read_ptx_sreg_ntid_x() *
             (__nvvm_read_ptx_sreg_tid_y() + __nvvm_read_ptx_sreg_ntid_y() * __nvvm_read_ptx_sreg_tid_z());
}
HELPER u32 lane_id() { return __nvvm_read_ptx_sreg_laneid(); }
HELPER u32 lanemask_lt() { return __nvvm_read_ptx_sreg_lanemask_lt(); }
HELPER u64 grid_id() {
  u64 g;
  asm volatile("mov.u64 %0, %%gridid;" : "=l"(g));
  return g;
}
HELPER u32 active_mask() {
  u32 m;
  asm volatile("activemask.b32 %0;" : "=r"(m));
  return m;
}

// Memory ordering at GPU scope. What C++ atomics compile to here is system scope: a compare-and-swap
// became `fence.sc.sys; atom.acquire.sys.cas` and a fence `membar.gl`, on the way of every chunk claim
// and registration. Every ordering this runtime needs is a message passed (a release before a flag,
// an acquire after it), which acquire-release fences give.
HELPER void fence() { asm volatile("fence.acq_rel.gpu;" ::: "memory"); }
// One-way fences (PTX ISA 8.6, sm_90), where a message goes one way only: a registration releasing its
// record, a thread acquiring the chunk another published. fence.acq_rel there also made each side wait for
// what the other direction needs: qt 1.05x to 1.10x slower, mm:powerlaw up to 1.07x (H200, thirty-sixth session).
HELPER void fence_release() { asm volatile("fence.release.gpu;" ::: "memory"); }
HELPER void fence_acquire() { asm volatile("fence.acquire.gpu;" ::: "memory"); }
HELPER u64 load_relaxed(const u64 *p) {
  u64 v;
  asm volatile("ld.relaxed.gpu.b64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}
HELPER u32 load_relaxed(const u32 *p) {
  u32 v;
  asm volatile("ld.relaxed.gpu.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
HELPER void store_relaxed(u64 *p, u64 v) { asm volatile("st.relaxed.gpu.b64 [%0], %1;" ::"l"(p), "l"(v) : "memory"); }
HELPER void store_relaxed(u32 *p, u32 v) { asm volatile("st.relaxed.gpu.b32 [%0], %1;" ::"l"(p), "r"(v) : "memory"); }
HELPER u64 cas_acquire(u64 *p, u64 expected, u64 desired) {
  u64 old;
  asm volatile("atom.acquire.gpu.cas.b64 %0, [%1], %2, %3;" : "=l"(old) : "l"(p), "l"(expected), "l"(desired) : "memory");
  return old;
}
HELPER u32 cas_acquire(u32 *p, u32 expected, u32 desired) {
  u32 old;
  asm volatile("atom.acquire.gpu.cas.b32 %0, [%1], %2, %3;" : "=r"(old) : "l"(p), "r"(expected), "r"(desired) : "memory");
  return old;
}

HELPER u32 shfl_idx(u32 mask, u32 v, u32 src) { return __nvvm_shfl_sync_idx_i32(mask, v, src, 31); }
HELPER u64 shfl_u64(u32 mask, u64 v, u32 src) {
  return (u64)shfl_idx(mask, (u32)(v >> 32), src) << 32 | shfl_idx(mask, (u32)v, src);
}
