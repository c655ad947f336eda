// Pattern: children with large argument lists, launched from divergent code.
//   childA  4,092 bytes of parameters, near the 4,096 a device launch may pass: a char, a 2 KiB table the
//           parent got by value from the host and passes on unchanged, a 2,000-byte 16-aligned struct of the
//           launching thread's own (doubles, long longs, unsigneds, shorts, chars), a short, the parent's output
//           pointer, a double and an int. Were any of it passed once (uniform over the scope), the aggregated
//           child could not take it as parameters beside the chunk pointer (4,092 + 8 > 4,096 bytes) and would
//           read it from the chunk's first record (docs/aggregation.md, "The parent side"); klap as of this
//           writing passes all 4,092 bytes in every record (KLAP200), the table being copied by an aggregate
//           load and store.
//   childB  mixed sizes and alignments: a 24-byte struct with padding, a float4, a char, a long long, a
//           6-byte struct of shorts, a bool, a double2, launched 1 to 3 times in a loop.
// About a third of the parent threads launch childA, a third childB in a loop, the rest (and the last five,
// which return at once) nothing. Each child thread folds the arguments it reads into a checksum word of its own slot;
// the host checks every slot, those no child may write included.
#include "check.cuh"

#include <vector>

constexpr int PG = 8, PB = 96;  // parent blocks and threads (768 parents)
constexpr int N = PG * PB;
constexpr int TW = 512;          // words of the table
constexpr int AT = 64;           // childA threads
constexpr int BT = 32;           // childB threads
constexpr int BK = 3;            // most childB launches per parent

struct Table {
  unsigned t[TW];
};
struct alignas(16) Blob {
  double d[40];           // 320
  long long ll[30];       // 240
  unsigned u[300];        // 1200
  short s[97];            // 194
  char c[46];             // 46
};
struct Pad {
  char a;
  double d;
  char b;
};
struct Shorts {
  short x, y, z;
};
static_assert(sizeof(Table) == 2048, "Table layout");
static_assert(sizeof(Blob) == 2000, "Blob layout");
static_assert(sizeof(Pad) == 24, "Pad layout");
static_assert(sizeof(Shorts) == 6, "Shorts layout");

__device__ __host__ inline unsigned mixw(unsigned a, unsigned b) {
  unsigned x = a * 0x9e3779b1u + b * 0x85ebca77u;
  x ^= x >> 13;
  x *= 0xc2b2ae3du;
  return x ^ (x >> 16);
}
__device__ __host__ inline int kindOf(int i) { return mixw(i, 7) % 3; }
__device__ __host__ inline Blob blobOf(int i) {
  Blob b;
  for (int k = 0; k < 40; ++k)
    b.d[k] = 0.5 * i + k;
  for (int k = 0; k < 30; ++k)
    b.ll[k] = ((long long)i << 32) - k;
  for (int k = 0; k < 300; ++k)
    b.u[k] = mixw(i, k);
  for (int k = 0; k < 97; ++k)
    b.s[k] = (short)(i - 50 * k);
  for (int k = 0; k < 46; ++k)
    b.c[k] = (char)(i + k);
  return b;
}
__device__ __host__ inline unsigned dbits(double d) {
  unsigned long long u;
  memcpy(&u, &d, 8);
  return (unsigned)u ^ (unsigned)(u >> 32);
}

// What childA's thread t folds: table words t, t + 64, ...; its blob's words likewise.
__device__ __host__ inline unsigned foldA(int t, char tag, const Table &tab, const Blob &b, short s, double d,
                                          int n) {
  unsigned acc = (unsigned)tag * 3u + (unsigned)(int)s * 5u + dbits(d) + (unsigned)n * 7u;
  for (int k = t; k < TW; k += AT)
    acc = acc * 31 + tab.t[k];
  for (int k = t; k < 300; k += AT)
    acc = acc * 37 + b.u[k];
  acc += dbits(b.d[t % 40]) ^ (unsigned)b.ll[t % 30] ^ (unsigned)b.s[t % 97] ^ (unsigned)(unsigned char)b.c[t % 46];
  return acc;
}
__device__ __host__ inline unsigned foldB(int t, Pad p, float4 f, char c, long long ll, Shorts sh, bool flag,
                                          double2 d2) {
  float fs[4] = {f.x, f.y, f.z, f.w};
  unsigned fb;
  memcpy(&fb, &fs[t % 4], 4);
  return (unsigned)p.a * 11u + dbits(p.d) + (unsigned)p.b * 13u + fb + (unsigned)c * 17u + (unsigned)ll +
         (unsigned)(ll >> 40) + (unsigned)sh.x * 19u + (unsigned)sh.y * 23u + (unsigned)sh.z * 29u + (flag ? 1u : 2u) +
         dbits(t % 2 ? d2.x : d2.y) + (unsigned)t;
}

__global__ void childA(char tag, Table tab, Blob b, short s, unsigned *out, double d, int n) {
  int t = threadIdx.x;
  out[n * AT + t] = foldA(t, tag, tab, b, s, d, n);
}

__global__ void childB(Pad p, float4 f, char c, long long ll, Shorts sh, bool flag, double2 d2, unsigned *out) {
  int t = threadIdx.x;
  out[t] = foldB(t, p, f, c, ll, sh, flag, d2);
}

__device__ __host__ inline Pad padOf(int i, int k) { return Pad{(char)(i % 90 + k), 1.0 / (i + 1) + k, (char)(-i % 50)}; }
__device__ __host__ inline float4 f4Of(int i, int k) { return float4{0.25f * i, -1.5f * k, (float)(i * k), 3.0f}; }
__device__ __host__ inline Shorts shortsOf(int i, int k) { return Shorts{(short)i, (short)(-i - k), (short)(k * 1000)}; }
__device__ __host__ inline double2 d2Of(int i, int k) { return double2{i * 1e-3, -(double)k * i}; }

__global__ void parent(Table tab, unsigned *outA, unsigned *outB, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  int kind = kindOf(i);
  if (kind == 0) {
    childA<<<1, AT>>>((char)('a' + i % 26), tab, blobOf(i), (short)(-3 * i), outA, 0.125 * i, i);
  } else if (kind == 1) {
    int trips = 1 + mixw(i, 3) % BK;
    for (int k = 0; k < trips; ++k)
      childB<<<1, BT>>>(padOf(i, k), f4Of(i, k), (char)(i ^ k), ((long long)i << 40) + k, shortsOf(i, k), (i + k) % 2,
                        d2Of(i, k), outB + (i * BK + k) * BT);
  }
}

int main() {
  setPendingLaunchLimit(1 << 15);
  Table tab;
  for (int k = 0; k < TW; ++k)
    tab.t[k] = mixw(k, 0x5eed);
  std::vector<unsigned> wantA((size_t)N * AT, 0xffffffffu), wantB((size_t)N * BK * BT, 0xffffffffu);
  int launchesA = 0, launchesB = 0;
  for (int i = 0; i < N; ++i) {
    int kind = kindOf(i);
    if (kind == 0) {
      ++launchesA;
      Blob b = blobOf(i);
      for (int t = 0; t < AT; ++t)
        wantA[(size_t)i * AT + t] = foldA(t, (char)('a' + i % 26), tab, b, (short)(-3 * i), 0.125 * i, i);
    } else if (kind == 1) {
      int trips = 1 + mixw(i, 3) % BK;
      for (int k = 0; k < trips; ++k) {
        ++launchesB;
        for (int t = 0; t < BT; ++t)
          wantB[(size_t)(i * BK + k) * BT + t] = foldB(t, padOf(i, k), f4Of(i, k), (char)(i ^ k),
                                                       ((long long)i << 40) + k, shortsOf(i, k), (i + k) % 2, d2Of(i, k));
      }
    }
  }
  unsigned *outA, *outB;
  CK(cudaMalloc(&outA, wantA.size() * sizeof(unsigned)));
  CK(cudaMalloc(&outB, wantB.size() * sizeof(unsigned)));
  CK(cudaMemset(outA, 0xff, wantA.size() * sizeof(unsigned)));
  CK(cudaMemset(outB, 0xff, wantB.size() * sizeof(unsigned)));
  parent<<<PG, PB>>>(tab, outA, outB, N - 5);
  CK_LAUNCH();
  CK(cudaDeviceSynchronize());
  // The last 5 parents (n = N - 5) return at once.
  for (int i = N - 5; i < N; ++i) {
    for (int t = 0; t < AT; ++t)
      wantA[(size_t)i * AT + t] = 0xffffffffu;
    for (int k = 0; k < BK * BT; ++k)
      wantB[(size_t)i * BK * BT + k] = 0xffffffffu;
  }
  std::vector<unsigned> gotA(wantA.size()), gotB(wantB.size());
  CK(cudaMemcpy(gotA.data(), outA, gotA.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(gotB.data(), outB, gotB.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
  unsigned long long sumA = checksumWords(gotA.data(), wantA.data(), gotA.size(), [&](size_t k) {
    mismatch("childA of parent %zu thread %zu: %08x (want %08x)", k / AT, k % AT, gotA[k], wantA[k]);
  });
  unsigned long long sumB = checksumWords(gotB.data(), wantB.data(), gotB.size(), [&](size_t k) {
    mismatch("childB of parent %zu launch %zu thread %zu: %08x (want %08x)", k / (BK * BT), k / BT % BK, k % BT,
             gotB[k], wantB[k]);
  });
  std::printf("childA: checksum=%llu\n", sumA);
  std::printf("childB: checksum=%llu\n", sumB);
  CK(cudaFree(outA));
  CK(cudaFree(outB));
  return finish();
}
