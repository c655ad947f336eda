// Survey propagation on a random k-SAT formula: a fixed number of message-passing sweeps. Each sweep has
//   a variable step: for each occurrence of variable j in clause a, the fraction of j's surveyed states that leave
//     a to j alone, from the surveys eta of all *other* clauses j occurs in (one parent thread per variable; the
//     occurrences go to a child grid in sp.cu, to a loop in sp_flat.cu);
//   a clause step: eta of a to i becomes the product of those fractions over a's other variables.
// Every value is computed by one thread in a fixed order with unfused float operations, so the CPU reference and
// both variants agree to the bit.
#pragma once

#include "../common/children.h"

constexpr int kParentBlock = 384;
constexpr int kChildBlock = 64;

struct Cnf {
  int vars = 0;
  std::vector<int> clause_off;  // clause a's literals are lit[clause_off[a] .. clause_off[a + 1])
  std::vector<int> lit;         // +v or -v, v in 1..vars; the index of a literal names the (clause, variable) edge
  int clauses() const { return (int)clause_off.size() - 1; }
};

inline Cnf read_cnf(const std::string &path) {
  FILE *f = open_input(path);
  Cnf cnf;
  long long declared = -1;
  cnf.clause_off.push_back(0);
  char *line = nullptr;
  size_t cap = 0;
  bool open_clause = false;
  while (getline(&line, &cap, f) > 0) {
    char *s = line + strspn(line, " \t");
    if (*s == 'c' || *s == '\n' || *s == '\r' || *s == '\0') continue;
    if (*s == '%') break;  // SATLIB end marker
    if (*s == 'p') {
      long long v, c;
      if (declared >= 0 || sscanf(s, "p cnf %lld %lld", &v, &c) != 2 || v < 1 || v >= INT_MAX || c < 0 || c >= INT_MAX)
        die("%s: bad problem line '%s'", path.c_str(), s);
      cnf.vars = (int)v;
      declared = c;
      continue;
    }
    if (declared < 0) die("%s: clause before the 'p cnf' line", path.c_str());
    for (char *end;; s = end) {
      long x = strtol(s, &end, 10);
      if (end == s) {
        if (*s && !strchr(" \t\r\n", *s)) die("%s: unexpected text '%s'", path.c_str(), s);
        break;
      }
      if (x == 0) {
        if (!open_clause) die("%s: empty clause", path.c_str());
        cnf.clause_off.push_back((int)cnf.lit.size());
        open_clause = false;
      } else {
        if (x < -cnf.vars || x > cnf.vars) die("%s: literal %ld out of range", path.c_str(), x);
        cnf.lit.push_back((int)x);
        open_clause = true;
      }
    }
  }
  free(line);
  fclose(f);
  if (open_clause) die("%s: last clause not terminated by 0", path.c_str());
  if (cnf.clauses() != declared) die("%s: %d clauses, header says %lld", path.c_str(), cnf.clauses(), declared);
  return cnf;
}

// For occurrence k of a variable whose occurrences are the edges occ[0 .. deg): with `same` / `other` the
// products of (1 - eta) over the other clauses where the variable has the same / the opposite sign,
// returns pi_u / (pi_u + pi_s + pi_0) with pi_u = (1 - other) same, pi_s = (1 - same) other, pi_0 = same other.
__host__ __device__ inline float sp_ratio(const int *occ, int deg, int k, const int *lit, const float *eta) {
  bool pos = lit[occ[k]] > 0;
  float same = 1.0f, other = 1.0f;
  for (int i = 0; i < deg; i++) {
    if (i == k) continue;
    float m = xsub(1.0f, eta[occ[i]]);
    if ((lit[occ[i]] > 0) == pos)
      same = xmul(same, m);
    else
      other = xmul(other, m);
  }
  float pu = xmul(xsub(1.0f, other), same), ps = xmul(xsub(1.0f, same), other), p0 = xmul(same, other);
  float sum = xadd(xadd(pu, ps), p0);
  return sum > 0.0f ? xdiv(pu, sum) : 0.0f;
}

__host__ __device__ inline void sp_clause(int begin, int end, const float *ratio, float *eta) {
  for (int k = begin; k < end; k++) {
    float p = 1.0f;
    for (int i = begin; i < end; i++)
      if (i != k) p = xmul(p, ratio[i]);
    eta[k] = p;
  }
}

__global__ void sp_clause_step(const int *clause_off, const float *ratio, float *eta, int clauses) {
  int a = blockIdx.x * blockDim.x + threadIdx.x;
  if (a < clauses) sp_clause(clause_off[a], clause_off[a + 1], ratio, eta);
}

struct SpDev {
  const int *var_off, *occ;  // occurrences (edge indices) of each variable, in increasing order
  const int *lit;
  const float *eta;
  float *ratio;
};

// Computes d.ratio for every edge (defined by each variant).
void sp_variable_step(const SpDev &d, int vars);

inline int sp_main(int argc, char **argv, bool cdp) {
  Options opt(argc, argv,
              "usage: sp [--reps N] [--input FILE.cnf] [--iters K] [--seed S]\n"
              "  K survey-propagation sweeps (default 10) over a DIMACS CNF formula\n"
              "  (default ../shared/data/random-42000-10000-3.cnf), surveys start random\n");
  int reps = (int)opt.num("--reps", 5, 0, 1000000);
  std::string path = opt.str("--input", "../shared/data/random-42000-10000-3.cnf");
  int iters = (int)opt.num("--iters", 10, 1, 1000000);
  uint64_t seed = (uint64_t)opt.num("--seed", 1, 0, LLONG_MAX);
  opt.done();

  Cnf cnf = read_cnf(path);
  int vars = cnf.vars, clauses = cnf.clauses(), edges = (int)cnf.lit.size();
  std::vector<int> var_off(vars + 2, 0), occ(edges);  // variables are 1-based: row 0 stays empty
  for (int x : cnf.lit) var_off[std::abs(x) + 1]++;
  for (int v = 0; v <= vars; v++) var_off[v + 1] += var_off[v];
  {
    std::vector<int> fill(var_off.begin(), var_off.end() - 1);
    for (int e = 0; e < edges; e++) occ[fill[std::abs(cnf.lit[e])]++] = e;
  }
  std::vector<float> eta0(edges);
  Rng rng(seed);
  for (float &x : eta0) x = rng.unit();

  std::vector<float> ref = eta0, ratio(edges);
  for (int it = 0; it < iters; it++) {
    for (int v = 1; v <= vars; v++)
      for (int k = 0, deg = var_off[v + 1] - var_off[v]; k < deg; k++)
        ratio[occ[var_off[v] + k]] = sp_ratio(&occ[var_off[v]], deg, k, cnf.lit.data(), ref.data());
    for (int a = 0; a < clauses; a++) sp_clause(cnf.clause_off[a], cnf.clause_off[a + 1], ratio.data(), ref.data());
  }
  int max_occ = 0;
  for (int v = 1; v <= vars; v++) max_occ = std::max(max_occ, var_off[v + 1] - var_off[v]);
  printf("# sp %s: %s, %d variables, %d clauses, %d literals, max occurrences %d, %d sweeps\n", cdp ? "cdp" : "flat",
         path.c_str(), vars, clauses, edges, max_occ, iters);
  ChildGrids children;  // every sweep, one child per variable that occurs, over its occurrences
  for (int it = 0; it < iters; it++)
    for (int v = 1; v <= vars; v++)
      if (int deg = var_off[v + 1] - var_off[v]) children.add(blocks_for(deg, kChildBlock), kChildBlock);
  children.print();

  if (cdp) reserve_device_launches(vars + 1);  // at most one child per variable
  DevArray<int> d_var_off, d_occ, d_lit, d_clause_off;
  d_var_off.upload(var_off);
  d_occ.upload(occ);
  d_lit.upload(cnf.lit);
  d_clause_off.upload(cnf.clause_off);
  DevArray<float> eta(edges), d_ratio(edges), d_eta0;
  d_eta0.upload(eta0);
  SpDev d{d_var_off.get(), d_occ.get(), d_lit.get(), eta.get(), d_ratio.get()};

  std::vector<float> got;
  BenchHooks h;
  h.reset = [&] {
    eta.copy_from(d_eta0);
    d_ratio.fill_bytes(0xff);
  };
  h.run = [&] {
    for (int it = 0; it < iters; it++) {
      sp_variable_step(d, vars + 1);
      sp_clause_step<<<blocks_for(clauses, kParentBlock), kParentBlock>>>(d_clause_off.get(), d_ratio.get(),
                                                                          eta.get(), clauses);
      CK_LAUNCH(sp_clause_step);
    }
  };
  h.check = [&]() -> std::string {
    got = eta.download();
    int bad = 0, first = -1;
    for (int e = 0; e < edges; e++)
      if (!(fabsf(got[e] - ref[e]) <= 1e-6f) && bad++ == 0) first = e;
    if (bad) return strf("%d surveys differ, first edge %d: gpu %.9g, cpu %.9g", bad, first, got[first], ref[first]);
    return "";
  };
  h.result = [&] {
    double sum = 0;
    float top = 0;
    int big = 0;
    for (float x : got) sum += x, top = std::max(top, x), big += x > 0.01f;
    return strf("sweeps=%d eta_sum=%.6f eta_max=%.6f eta_over_0.01=%d", iters, sum, top, big);
  };
  return bench_run("sp", reps, h);
}
