// amr, flat version: the host launches one grid per level, a thread per cell that the previous level refined into;
// a cell to be refined goes on the next level's work list.
#include "amr.h"

struct AmrWork {
  int2 *next;       // cells of this level to refine
  int *next_count;
  int capacity;     // of `next`; the CPU reference says how many are needed
};

__device__ inline void amr_visit(const AmrParams &p, int level, bool active, int ix, int iy, const AmrWork &w) {
  const AmrCell c = active ? amr_eval(p, level, ix, iy) : AmrCell{0.0f, false};
  if (c.refine) {
    int at = atomicAdd(w.next_count, 1);
    if (at < w.capacity) w.next[at] = make_int2(ix, iy);
  }
  amr_tally(p.stats, level, active, ix, iy, c);
}

__global__ void amr_base_flat(AmrParams p, AmrWork w) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  amr_visit(p, 0, i < p.base * p.base, i % p.base, i / p.base, w);
}

__global__ void amr_level_flat(AmrParams p, int level, const int2 *cells, int count, AmrWork w) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const int per_cell = p.factor * p.factor;
  const bool active = i < (long long)count * per_cell;
  const int2 parent = active ? cells[i / per_cell] : make_int2(0, 0);
  const int sub = (int)(i % per_cell);
  amr_visit(p, level, active, parent.x * p.factor + sub % p.factor, parent.y * p.factor + sub / p.factor, w);
}

void amr_run(const AmrParams &p, const std::vector<long long> &refined_per_level) {
  // Allocated in the untimed warm-up run, then reused.
  static DevArray<int2> lists[2];
  static DevArray<int> count(1);
  const long long most = *std::max_element(refined_per_level.begin(), refined_per_level.end());
  for (DevArray<int2> &l : lists)
    if ((long long)l.size() < most) l.alloc((size_t)most);
  int cur = 0, n = 0;
  for (int level = 0; level <= p.max_level; level++) {
    AmrWork w{lists[1 - cur].get(), count.get(), (int)lists[1 - cur].size()};
    CK(cudaMemsetAsync(count.get(), 0, sizeof(int)));
    if (level == 0) {
      amr_base_flat<<<blocks_for((long long)p.base * p.base, kParentBlock), kParentBlock>>>(p, w);
      CK_LAUNCH(amr_base_flat);
    } else {
      if (n == 0) break;
      amr_level_flat<<<blocks_for((long long)n * p.factor * p.factor, kParentBlock), kParentBlock>>>(
          p, level, lists[cur].get(), n, w);
      CK_LAUNCH(amr_level_flat);
    }
    CK(cudaMemcpy(&n, count.get(), sizeof(int), cudaMemcpyDeviceToHost));
    if (n > w.capacity) die("level %d refined %d cells, more than the CPU reference's %d", level, n, w.capacity);
    cur = 1 - cur;
  }
}

int main(int argc, char **argv) { return amr_main(argc, argv, false); }
