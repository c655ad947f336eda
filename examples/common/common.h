// Helpers shared by the klap benchmark programs: CUDA error checks, command-line options, a seeded RNG,
// device arrays, float operations that are never fused, and the warm-up / time / check loop.
// Every program is a single translation unit, so the definitions here need no separate object file.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdarg>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

[[noreturn]] inline void die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "error: ");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
  va_end(ap);
  exit(2);
}

inline void ck_cuda(cudaError_t e, const char *what, const char *file, int line) {
  if (e != cudaSuccess)
    die("CUDA %s (%s) from %s at %s:%d", cudaGetErrorName(e), cudaGetErrorString(e), what, file, line);
}
#define CK(call) ck_cuda((call), #call, __FILE__, __LINE__)
// Configuration errors show at once; faults inside the grid show at the next synchronization.
#define CK_LAUNCH(kernel) ck_cuda(cudaGetLastError(), "launch of " #kernel, __FILE__, __LINE__)

__host__ __device__ inline unsigned blocks_for(long long n, int block) { return (unsigned)((n + block - 1) / block); }

// ---------------------------------------------------------------------------------------------------------------
// Device-side launches. A failed child launch (a full pending-launch buffer, say) is invisible to the host, so
// parents record the first failure here and the host reports it after every run.
__device__ int g_cdp_launch_error;

#define CDP_CHECK_LAUNCH()                                                                                        \
  do {                                                                                                            \
    cudaError_t cdp_err_ = cudaGetLastError();                                                                    \
    if (cdp_err_ != cudaSuccess) atomicCAS(&g_cdp_launch_error, 0, (int)cdp_err_);                                \
  } while (0)

inline void check_device_launch_errors() {
  int e = 0;
  CK(cudaMemcpyFromSymbol(&e, g_cdp_launch_error, sizeof e));
  if (e != 0)
    die("a device-side kernel launch failed: %s (%s)", cudaGetErrorName((cudaError_t)e),
        cudaGetErrorString((cudaError_t)e));
}

// Plain CDP keeps every child launch pending in a fixed buffer (no overflow pool in CDP2): size it for the most
// launches that can be in flight at once, with room to spare (join's 1,048,576 launches failed with
// cudaErrorLaunchPendingCountExceeded under a limit of exactly that many, on an H100).
inline void reserve_device_launches(size_t n) {
  CK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, std::max<size_t>(n + n / 4, 2048)));
}

// ---------------------------------------------------------------------------------------------------------------
// Command-line options, all of the form `--name value` or `--name=value`.
class Options {
 public:
  Options(int argc, char **argv, const char *usage) : usage_(usage) {
    for (int i = 1; i < argc; i++) {
      std::string a = argv[i];
      if (a == "--help" || a == "-h") {
        printf("%s", usage);
        exit(0);
      }
      if (a.compare(0, 2, "--") != 0) bad("unexpected argument '%s'", a.c_str());
      size_t eq = a.find('=');
      if (eq != std::string::npos) {
        names_.push_back(a.substr(0, eq));
        values_.push_back(a.substr(eq + 1));
      } else {
        if (i + 1 >= argc) bad("option %s needs a value", a.c_str());
        names_.push_back(a);
        values_.push_back(argv[++i]);
      }
      used_.push_back(false);
    }
  }

  std::string str(const char *name, const std::string &def) {
    const std::string *v = find(name);
    return v ? *v : def;
  }

  long long num(const char *name, long long def, long long lo, long long hi) {
    const std::string *v = find(name);
    if (!v) return def;
    char *end = nullptr;
    long long x = strtoll(v->c_str(), &end, 10);
    if (v->empty() || *end != '\0') bad("option %s: '%s' is not an integer", name, v->c_str());
    if (x < lo || x > hi) bad("option %s: %lld is outside [%lld, %lld]", name, x, lo, hi);
    return x;
  }

  double real(const char *name, double def, double lo, double hi) {
    const std::string *v = find(name);
    if (!v) return def;
    char *end = nullptr;
    double x = strtod(v->c_str(), &end);
    if (v->empty() || *end != '\0') bad("option %s: '%s' is not a number", name, v->c_str());
    if (!(x >= lo && x <= hi)) bad("option %s: %g is outside [%g, %g]", name, x, lo, hi);
    return x;
  }

  // Call after reading every option: rejects the ones no one asked for (typos).
  void done() const {
    for (size_t i = 0; i < names_.size(); i++)
      if (!used_[i]) bad("unknown option %s", names_[i].c_str());
  }

 private:
  const std::string *find(const char *name) {
    const std::string *v = nullptr;
    for (size_t i = 0; i < names_.size(); i++)  // the last occurrence wins
      if (names_[i] == name) {
        used_[i] = true;
        v = &values_[i];
      }
    return v;
  }

  [[noreturn]] void bad(const char *fmt, ...) const {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "error: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n%s", usage_);
    va_end(ap);
    exit(2);
  }

  const char *usage_;
  std::vector<std::string> names_, values_;
  std::vector<bool> used_;
};

// The default input path is relative to the project root; say so when it is not there.
inline FILE *open_input(const std::string &path) {
  FILE *f = fopen(path.c_str(), "rb");
  if (!f) die("cannot open input '%s' (run from the project root, or pass --input PATH)", path.c_str());
  return f;
}

// A Matrix Market coordinate file opened past its header and size line, the entries next.
struct MtxFile {
  FILE *f;
  std::string field, symmetry;  // as the header names them: real, integer, pattern, ...; general, symmetric, ...
  long long rows, cols, nnz;
};

inline MtxFile open_mtx(const std::string &path) {
  MtxFile m{open_input(path), "", "", -1, -1, -1};
  char line[1024];
  if (!fgets(line, sizeof line, m.f) || strncmp(line, "%%MatrixMarket", 14) != 0)
    die("%s: no %%%%MatrixMarket header", path.c_str());
  char obj[64], fmt[64], field[64], sym[64];
  if (sscanf(line, "%%%%MatrixMarket %63s %63s %63s %63s", obj, fmt, field, sym) != 4 || strcmp(obj, "matrix") != 0 ||
      strcmp(fmt, "coordinate") != 0)
    die("%s: only 'matrix coordinate' files are supported", path.c_str());
  m.field = field;
  m.symmetry = sym;
  while (fgets(line, sizeof line, m.f)) {
    if (line[0] == '%' || line[strspn(line, " \t\r\n")] == '\0') continue;
    if (sscanf(line, "%lld %lld %lld", &m.rows, &m.cols, &m.nnz) != 3) die("%s: bad size line", path.c_str());
    break;
  }
  return m;
}

// ---------------------------------------------------------------------------------------------------------------
// splitmix64: tiny, seedable, and the same sequence everywhere.
struct Rng {
  uint64_t s;
  explicit Rng(uint64_t seed) : s(seed) {}
  uint64_t next() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  uint32_t below(uint32_t n) { return (uint32_t)(((next() >> 32) * n) >> 32); }
  float unit() { return (float)(next() >> 40) * (1.0f / 16777216.0f); }  // [0, 1), 24 random bits
};

// ---------------------------------------------------------------------------------------------------------------
// Single correctly rounded float operations that are never contracted into FMAs, on the GPU (__f*_rn) and on the
// host, so the CPU reference and both GPU variants compute bit-identical floats whatever the code generator does.
__host__ __device__ inline float xadd(float a, float b) {
#ifdef __CUDA_ARCH__
  return __fadd_rn(a, b);
#else
#pragma clang fp contract(off)
  return a + b;
#endif
}
__host__ __device__ inline float xsub(float a, float b) {
#ifdef __CUDA_ARCH__
  return __fsub_rn(a, b);
#else
#pragma clang fp contract(off)
  return a - b;
#endif
}
__host__ __device__ inline float xmul(float a, float b) {
#ifdef __CUDA_ARCH__
  return __fmul_rn(a, b);
#else
#pragma clang fp contract(off)
  return a * b;
#endif
}
__host__ __device__ inline float xdiv(float a, float b) {
#ifdef __CUDA_ARCH__
  return __fdiv_rn(a, b);
#else
#pragma clang fp contract(off)
  return a / b;
#endif
}

// ---------------------------------------------------------------------------------------------------------------
template <class T>
class DevArray {
 public:
  DevArray() = default;
  explicit DevArray(size_t n) { alloc(n); }
  DevArray(const DevArray &) = delete;
  DevArray &operator=(const DevArray &) = delete;
  ~DevArray() {
    if (p_) cudaFree(p_);  // at exit; an error here has nowhere useful to go
  }

  void alloc(size_t n) {
    if (p_) CK(cudaFree(p_));
    n_ = n;
    CK(cudaMalloc((void **)&p_, std::max<size_t>(n, 1) * sizeof(T)));
  }
  void upload(const std::vector<T> &v) {
    if (!p_ || v.size() != n_) alloc(v.size());
    CK(cudaMemcpy(p_, v.data(), n_ * sizeof(T), cudaMemcpyHostToDevice));
  }
  std::vector<T> download() const {
    std::vector<T> v(n_);
    CK(cudaMemcpy(v.data(), p_, n_ * sizeof(T), cudaMemcpyDeviceToHost));
    return v;
  }
  void copy_from(const DevArray &o) {
    if (o.n_ != n_) die("DevArray::copy_from: size mismatch");
    CK(cudaMemcpy(p_, o.p_, n_ * sizeof(T), cudaMemcpyDeviceToDevice));
  }
  void fill_bytes(int byte) { CK(cudaMemset(p_, byte, n_ * sizeof(T))); }
  T read(size_t i) const {
    T x;
    CK(cudaMemcpy(&x, p_ + i, sizeof(T), cudaMemcpyDeviceToHost));
    return x;
  }
  void write(size_t i, const T &x) { CK(cudaMemcpy(p_ + i, &x, sizeof(T), cudaMemcpyHostToDevice)); }
  T *get() const { return p_; }
  size_t size() const { return n_; }

 private:
  T *p_ = nullptr;
  size_t n_ = 0;
};

// ---------------------------------------------------------------------------------------------------------------
struct BenchHooks {
  std::function<void()> reset;          // restores the device state the run starts from (not timed)
  std::function<void()> run;            // the timed GPU part; may synchronize with the host inside
  std::function<std::string()> check;   // "" when the GPU result matches the CPU reference, else what differs
  std::function<std::string()> result;  // summary of the GPU result that must not depend on the variant
};

// One untimed warm-up run, then `reps` timed runs; every run is checked against the CPU reference.
// Prints `time_ms X` per rep, then `CHECK PASS` and `RESULT name ...`; returns the exit status.
inline int bench_run(const char *name, int reps, const BenchHooks &h) {
  cudaEvent_t t0, t1;
  CK(cudaEventCreate(&t0));
  CK(cudaEventCreate(&t1));
  for (int rep = -1; rep < reps; rep++) {
    h.reset();
    CK(cudaDeviceSynchronize());
    CK(cudaEventRecord(t0));
    h.run();
    CK(cudaEventRecord(t1));
    CK(cudaEventSynchronize(t1));
    CK(cudaDeviceSynchronize());
    CK(cudaGetLastError());
    check_device_launch_errors();
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, t0, t1));
    if (rep >= 0) printf("time_ms %.4f\n", ms);
    std::string err = h.check();
    if (!err.empty()) {
      if (rep < 0)
        printf("CHECK FAIL warm-up run: %s\n", err.c_str());
      else
        printf("CHECK FAIL rep %d: %s\n", rep, err.c_str());
      fflush(stdout);
      return 1;
    }
    fflush(stdout);
  }
  printf("CHECK PASS\n");
  printf("RESULT %s %s\n", name, h.result().c_str());
  CK(cudaEventDestroy(t0));
  CK(cudaEventDestroy(t1));
  return 0;
}

inline std::string strf(const char *fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return buf;
}
