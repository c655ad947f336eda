// mandel, flat version: the host launches one grid per level, a block per rectangle of that level; a block whose
// rectangle must be split appends its kSubdiv x kSubdiv sub-rectangles to the next level's list.
#include "mandel.h"

__global__ void mandel_level(MandelParams p, const int2 *rects, int side, int depth, int2 *next, int *next_count) {
  int2 r = rects[blockIdx.x];
  if (mandel_rect(p, r.x, r.y, side, depth) && threadIdx.x == 0) {
    int sub = side / kSubdiv, at = atomicAdd(next_count, kSubdiv * kSubdiv);
    for (int i = 0; i < kSubdiv * kSubdiv; i++)
      next[at + i] = make_int2(r.x + (i % kSubdiv) * sub, r.y + (i / kSubdiv) * sub);
  }
}

void mandel_render(const MandelParams &p, int init, const MandelLists &lists) {
  const int2 *rects = lists.top;
  int n = init * init, side = p.size / init;
  for (int depth = 0; n > 0; depth++, side /= kSubdiv) {
    int2 *next = lists.level[depth % 2];
    CK(cudaMemsetAsync(lists.count, 0, sizeof(int)));
    mandel_level<<<n, kBlock>>>(p, rects, side, depth, next, lists.count);
    CK_LAUNCH(mandel_level);
    CK(cudaMemcpy(&n, lists.count, sizeof(int), cudaMemcpyDeviceToHost));
    rects = next;
  }
}

int main(int argc, char **argv) { return mandel_main(argc, argv, false); }
