// Device-side cudaMalloc and cudaFree, aggregated per warp (KLAP, MICRO 2016, section II): the lanes
// that reach an allocation together make one device-heap allocation of the sum of their sizes, and
// each takes its part of it. The device heap serializes its allocations; a warp's thirty-two become one.
//
// An aggregate is one allocation of the device heap:
//   [AggregateHeader][PartHeader][part of lane a][PartHeader][part of lane b]...
// every part rounded up to 16 bytes, the device heap's own alignment, so that every pointer handed out
// is 16-byte aligned like the device heap's. The aggregate counts the parts not yet freed; the free of
// the last one gives the whole allocation back. A lane alone, one asking for more than JOIN_LIMIT
// bytes, or one whose warp's aggregate could not be had, allocates an aggregate of one part: every
// pointer this file hands out has a PartHeader before it, and __klap_free can tell its own pointers
// from others (the pass sends it only this file's pointers and null; any other goes to cudaFree as
// written).
//
// Under independent thread scheduling (sm_70+) the lanes that reach a call together are those of
// activemask at the call: each of them runs the same straight-line code to the same warp-synchronous
// steps, so none waits for a lane that is not coming.
#include "klap_rt.h"

// The device runtime's allocation entry points (libcudadevrt), as CUDA 13's headers call them for
// device-side cudaMalloc and cudaFree when __CUDACC_RDC__ is defined.
extern "C" __attribute__((device)) int __cudaCDP2Malloc(void **ptr, u64 size);
extern "C" __attribute__((device)) int __cudaCDP2Free(void *ptr);

struct AggregateHeader {
  u32 parts_left;
  u32 unused[3];
};
// `check` is `aggregate ^ PART_MAGIC`: the mark of a part this file handed out.
struct PartHeader {
  u64 aggregate;
  u64 check;
};
enum : u64 { PART_MAGIC = 0x6b6c61702d706172ull, ALIGN = 16 };
// A lane asking for more allocates on its own; below it, 32 lanes' parts and headers fit in 32 bits.
enum : u64 { JOIN_LIMIT = 1ull << 26 };
// cudaErrorMemoryAllocation: a size that no allocation with headers can hold.
enum { MEMORY_ALLOCATION_ERROR = 2 };

INLINE u64 round_up(u64 n) { return (n + ALIGN - 1) & ~(ALIGN - 1); }

INLINE void mark_part(char *part, char *aggregate) {
  PartHeader *h = (PartHeader *)part;
  h->aggregate = (u64)aggregate;
  h->check = (u64)aggregate ^ PART_MAGIC;
}

// The aggregate's parts count, set before any lane can free its part: the lanes learn the aggregate's
// address through a shuffle, after this store and a fence.
INLINE void init_aggregate(char *aggregate, u32 parts) {
  store_relaxed(&((AggregateHeader *)aggregate)->parts_left, parts);
  fence();
}

// The lane `n`th (from 0) among the lanes of `mask`.
INLINE u32 nth_lane(u32 mask, u32 n) {
  // The highest lane with at most n lanes of mask below it.
  u32 lane = 0;
  for (u32 step = 16; step; step >>= 1)
    if ((u32)__builtin_popcount(mask & ((1u << (lane + step)) - 1)) <= n)
      lane += step;
  return lane;
}

// An aggregate of one part: the allocation as the program wrote it, with the headers in front. The
// program's own pointer variable takes the device heap's answer, so that a failure leaves in it what
// the unaggregated call would have.
INLINE int allocate_alone(void **slot, u64 size) {
  const u64 headers = sizeof(AggregateHeader) + sizeof(PartHeader);
  if (size > ~0ull - headers - ALIGN)
    return MEMORY_ALLOCATION_ERROR;
  int err = __cudaCDP2Malloc(slot, headers + round_up(size));
  if (err != 0)
    return err;
  char *aggregate = (char *)*slot;
  init_aggregate(aggregate, 1);
  mark_part(aggregate + sizeof(AggregateHeader), aggregate);
  *slot = aggregate + headers;
  return 0;
}

// cudaMalloc(slot, size), the lanes of the warp that call it together taken as one allocation.
DEVICE int __klap_malloc(void **slot, u64 size) {
  u32 mask = active_mask();
  u32 lanes = __builtin_popcount(mask);
  bool joins = size <= JOIN_LIMIT;
  u32 part = joins ? (u32)(sizeof(PartHeader) + round_up(size)) : 0;
  // Inclusive prefix sum of the parts over the lanes of mask, in lane order: the steps are the same in
  // every lane (they depend on `lanes` alone), each lane reading the lane d ranks below it.
  u32 rank = __builtin_popcount(mask & lanemask_lt());
  u32 end = part;
  for (u32 d = 1; d < lanes; d <<= 1) {
    u32 below = shfl_idx(mask, end, nth_lane(mask, rank >= d ? rank - d : rank));
    if (rank >= d)
      end += below;
  }
  u32 total = shfl_idx(mask, end, 31 - __builtin_clz(mask));
  u32 joined = __builtin_popcount(__nvvm_vote_ballot_sync(mask, joins));
  u32 leader = __builtin_ctz(mask);
  char *aggregate = 0;
  if (joined > 1) {
    // What a failed allocation leaves in its pointer is not an aggregate.
    void *heap = 0;
    if (lane_id() == leader && __cudaCDP2Malloc(&heap, sizeof(AggregateHeader) + total) == 0) {
      aggregate = (char *)heap;
      init_aggregate(aggregate, joined);
    }
    aggregate = (char *)shfl_u64(mask, (u64)aggregate, leader);
  }
  if (!joins || !aggregate)
    return allocate_alone(slot, size);
  char *mine = aggregate + sizeof(AggregateHeader) + (end - part);
  mark_part(mine, aggregate);
  *slot = mine + sizeof(PartHeader);
  return 0;
}

// The aggregate `p` is a part of, or null where this file did not hand `p` out.
INLINE char *aggregate_of(void *p) {
  if (!p)
    return 0;
  const PartHeader *h = (const PartHeader *)p - 1;
  u64 aggregate = h->aggregate;
  bool marked = h->check == (aggregate ^ PART_MAGIC) && aggregate < (u64)p &&
                (u64)p - aggregate <= sizeof(AggregateHeader) + 32 * (JOIN_LIMIT + sizeof(PartHeader));
  return marked ? (char *)aggregate : 0;
}

INLINE u32 sub_acq_rel(u32 *p, u32 n) {
  u32 old;
  asm volatile("atom.acq_rel.gpu.add.u32 %0, [%1], %2;" : "=r"(old) : "l"(p), "r"(0u - n) : "memory");
  return old;
}

// cudaFree(p): a part goes back to its aggregate, and the last part of an aggregate gives the
// aggregate back to the device heap. The lanes freeing parts of one aggregate together count them out
// with one atomic.
DEVICE int __klap_free(void *p) {
  char *aggregate = aggregate_of(p);
  u32 mask = active_mask();
  u32 ours = __nvvm_vote_ballot_sync(mask, aggregate != 0);
  u32 together = __nvvm_match_any_sync_i64(mask, (u64)aggregate) & ours;
  if (!aggregate)
    return __cudaCDP2Free(p);
  u32 leader = __builtin_ctz(together);
  int err = 0;
  if (lane_id() == leader) {
    u32 parts = __builtin_popcount(together);
    if (sub_acq_rel(&((AggregateHeader *)aggregate)->parts_left, parts) == parts)
      err = __cudaCDP2Free(aggregate);
  }
  return (int)shfl_idx(together, (u32)err, leader);
}
