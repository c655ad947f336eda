// Pattern: structs passed by value to a child kernel: one with mixed
// int/double/float2/char members (32 bytes, 8-byte aligned), one larger than
// 16 bytes made of ints (40 bytes, 4-byte aligned), a small 8-byte one, plus a
// leading char, a float2, a pointer and a scalar, in an order that forces
// padding between parameters. Every member is copied out by a child thread.
#include "check.cuh"

#include <vector>

constexpr int N = 100;  // parent threads
constexpr int PB = 64;  // parent block size (last block: 36 threads)
constexpr int IW = 16;  // ints per parent
constexpr int DW = 8;   // doubles per parent

struct Mixed {
  int a;
  double d;
  float2 f;
  char c;
};

struct Big {
  int v[10];
};

struct Small {
  short s;
  float x;
};

static_assert(sizeof(Mixed) == 32, "Mixed layout");
static_assert(sizeof(Big) == 40, "Big layout");
static_assert(sizeof(Small) == 8, "Small layout");

__device__ __host__ inline Mixed mixedOf(int i) {
  Mixed m;
  m.a = -7 * i - 1;
  m.d = 0.25 * i + 1e10;
  m.f = make_float2(1.5f * i, -0.5f * i);
  m.c = (char)(i % 100 + 1);
  return m;
}
__device__ __host__ inline Big bigOf(int i) {
  Big b;
  for (int k = 0; k < 10; ++k)
    b.v[k] = i * 1000 + k * k;
  return b;
}
__device__ __host__ inline Small smallOf(int i) {
  Small s;
  s.s = (short)(-3 * i);
  s.x = 0.125f * i;
  return s;
}

__global__ void child(char tag, Mixed m, float2 f, int *iout, Big big,
                      int scalar, Small sm, double *dout) {
  int t = threadIdx.x;
  if (t < 10)
    iout[t] = big.v[t] + scalar;
  else if (t == 10)
    iout[t] = m.a;
  else if (t == 11)
    iout[t] = m.c;
  else if (t == 12)
    iout[t] = sm.s;
  else if (t == 13)
    iout[t] = tag;
  else if (t == 16)
    dout[0] = m.d;
  else if (t == 17)
    dout[1] = m.f.x;
  else if (t == 18)
    dout[2] = m.f.y;
  else if (t == 19)
    dout[3] = sm.x;
  else if (t == 20)
    dout[4] = f.x;
  else if (t == 21)
    dout[5] = f.y;
}

__global__ void parent(int *iout, double *dout, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && i % 4 != 1) {
    char tag = (char)('A' + i % 26);
    float2 f = make_float2(2.0f * i, 3.0f + i);
    child<<<1, 32>>>(tag, mixedOf(i), f, iout + i * IW, bigOf(i), 5 * i,
                     smallOf(i), dout + i * DW);
  }
}

int main() {
  setPendingLaunchLimit(1 << 15);

  std::vector<int> wantI(N * IW, -1);
  std::vector<double> wantD(N * DW, -1.0);
  for (int i = 0; i < N; ++i) {
    if (i % 4 == 1)
      continue;
    Mixed m = mixedOf(i);
    Big b = bigOf(i);
    Small s = smallOf(i);
    int *wi = &wantI[i * IW];
    double *wd = &wantD[i * DW];
    for (int k = 0; k < 10; ++k)
      wi[k] = b.v[k] + 5 * i;
    wi[10] = m.a;
    wi[11] = m.c;
    wi[12] = s.s;
    wi[13] = 'A' + i % 26;
    wd[0] = m.d;
    wd[1] = m.f.x;
    wd[2] = m.f.y;
    wd[3] = s.x;
    wd[4] = 2.0f * i;
    wd[5] = 3.0f + i;
  }

  int *dI;
  double *dD;
  CK(cudaMalloc(&dI, N * IW * sizeof(int)));
  CK(cudaMalloc(&dD, N * DW * sizeof(double)));
  std::vector<int> initI(N * IW, -1);
  std::vector<double> initD(N * DW, -1.0);
  CK(cudaMemcpy(dI, initI.data(), N * IW * sizeof(int), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dD, initD.data(), N * DW * sizeof(double),
                cudaMemcpyHostToDevice));

  parent<<<(N + PB - 1) / PB, PB>>>(dI, dD, N);
  CK_LAUNCH();
  CK(cudaDeviceSynchronize());

  std::vector<int> gotI(N * IW);
  std::vector<double> gotD(N * DW);
  CK(cudaMemcpy(gotI.data(), dI, N * IW * sizeof(int), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(gotD.data(), dD, N * DW * sizeof(double),
                cudaMemcpyDeviceToHost));

  long long sumI = 0;
  double sumD = 0;
  for (int k = 0; k < N * IW; ++k) {
    sumI += gotI[k];
    if (gotI[k] != wantI[k])
      mismatch("parent %d int %d: %d (want %d)", k / IW, k % IW, gotI[k],
               wantI[k]);
  }
  for (int k = 0; k < N * DW; ++k) {
    sumD += gotD[k];
    if (gotD[k] != wantD[k])
      mismatch("parent %d double %d: %.17g (want %.17g)", k / DW, k % DW,
               gotD[k], wantD[k]);
  }

  std::printf("sum_ints=%lld\n", sumI);
  std::printf("sum_doubles=%.6f\n", sumD);

  CK(cudaFree(dI));
  CK(cudaFree(dD));
  return finish();
}
