// The kernels of examples/overhead.rs, plain (double, float) and with CADNA's stochastic types
// (double_st, float_st), from one template source each, timed in one process (median of RUNS
// interleaved runs, thread CPU time). Written for this comparison from the algorithms'
// published descriptions (the Benchmarks Game's n-body and spectral norm), not from CADNA's code.
//
//   kernels on|off [RUNS] [--quick]
//
// `on`: every CADNA check (cadna_init(-1)); `off`: none (cadna_init(-1, CADNA_ALL)). CADNA
// cannot switch its checks back on within a process, so run.sh runs each mode in its own.
#include <cadna.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

using std::vector;

// Keeps the compiler from folding or hoisting a value (the C++ counterpart of black_box).
template <class T> static inline void escape(T &x) { asm volatile("" : : "r"(&x) : "memory"); }

static double cpu_seconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

// SplitMix64 values in [lo, hi), as examples/overhead.rs draws them.
static vector<double> values(size_t n, uint64_t seed, double lo, double hi) {
  vector<double> v(n);
  uint64_t s = seed;
  for (auto &x : v) {
    s += 0x9E3779B97F4A7C15ull;
    uint64_t z = s;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    x = lo + (hi - lo) * (double)(z >> 11) / (double)(1ull << 53);
  }
  return v;
}

template <class T, class S> static vector<T> conv(const vector<S> &v) {
  return vector<T>(v.begin(), v.end());
}

template <class D> __attribute__((noinline)) D dot(const vector<D> &a, const vector<D> &b) {
  D acc = 0.0;
  for (size_t i = 0; i < a.size(); i++) acc = acc + a[i] * b[i];
  return acc;
}

// c = a·b for n×n row-major a, with bt the transpose of b.
template <class D>
__attribute__((noinline)) void matmul(const vector<D> &a, const vector<D> &bt, vector<D> &c,
                                      size_t n) {
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < n; j++) {
      D acc = 0.0;
      for (size_t k = 0; k < n; k++) acc = acc + a[i * n + k] * bt[j * n + k];
      c[i * n + j] = acc;
    }
}

template <class F> __attribute__((noinline)) F sum(const vector<F> &x) {
  F acc = 0.0f;
  for (auto &v : x) acc = acc + v;
  return acc;
}

// ---- n-body (Benchmarks Game, 5 bodies) ----
template <class D> struct Body {
  D x[3], v[3], m;
};

static const double PI = 3.141592653589793;
static const double SOLAR_MASS = 4 * PI * PI;
static const double DAYS_PER_YEAR = 365.24;

template <class D> static void jovian(Body<D> *b) {
  static const double init[5][7] = {
      {0, 0, 0, 0, 0, 0, 1},
      {4.84143144246472090e+00, -1.16032004402742839e+00, -1.03622044471123109e-01,
       1.66007664274403694e-03, 7.69901118419740425e-03, -6.90460016972063023e-05,
       9.54791938424326609e-04},
      {8.34336671824457987e+00, 4.12479856412430479e+00, -4.03523417114321381e-01,
       -2.76742510726862411e-03, 4.99852801234917238e-03, 2.30417297573763929e-05,
       2.85885980666130812e-04},
      {1.28943695621391310e+01, -1.51111514016986312e+01, -2.23307578892655734e-01,
       2.96460137564761618e-03, 2.37847173959480950e-03, -2.96589568540237556e-05,
       4.36624404335156298e-05},
      {1.53796971148509165e+01, -2.59193146099879641e+01, 1.79258772950371181e-01,
       2.68067772490389322e-03, 1.62824170038242295e-03, -9.51592254519715870e-05,
       5.15138902046611451e-05}};
  for (int i = 0; i < 5; i++) {
    for (int k = 0; k < 3; k++) {
      b[i].x[k] = D(init[i][k]);
      b[i].v[k] = D(init[i][3 + k] * DAYS_PER_YEAR);
    }
    b[i].m = D(init[i][6] * SOLAR_MASS);
  }
  D p[3] = {0.0, 0.0, 0.0};
  for (int i = 0; i < 5; i++)
    for (int k = 0; k < 3; k++) p[k] = p[k] + b[i].v[k] * b[i].m;
  for (int k = 0; k < 3; k++) b[0].v[k] = D(0.0) - p[k] / D(SOLAR_MASS);
}

template <class D> __attribute__((noinline)) void advance(Body<D> *b, double dt, long steps) {
  using std::sqrt;
  D dtt = dt;
  for (long s = 0; s < steps; s++) {
    for (int i = 0; i < 5; i++)
      for (int j = i + 1; j < 5; j++) {
        D d[3] = {b[i].x[0] - b[j].x[0], b[i].x[1] - b[j].x[1], b[i].x[2] - b[j].x[2]};
        D d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
        D mag = dtt / (d2 * sqrt(d2));
        D mi = b[i].m * mag, mj = b[j].m * mag;
        for (int k = 0; k < 3; k++) {
          b[i].v[k] = b[i].v[k] - d[k] * mj;
          b[j].v[k] = b[j].v[k] + d[k] * mi;
        }
      }
    for (int i = 0; i < 5; i++)
      for (int k = 0; k < 3; k++) b[i].x[k] = b[i].x[k] + b[i].v[k] * dt;
  }
}

template <class D> static D energy(const Body<D> *b) {
  using std::sqrt;
  D e = 0.0;
  for (int i = 0; i < 5; i++) {
    D v2 = b[i].v[0] * b[i].v[0] + b[i].v[1] * b[i].v[1] + b[i].v[2] * b[i].v[2];
    e = e + b[i].m * v2 * 0.5;
    for (int j = i + 1; j < 5; j++) {
      D d[3] = {b[i].x[0] - b[j].x[0], b[i].x[1] - b[j].x[1], b[i].x[2] - b[j].x[2]};
      e = e - b[i].m * b[j].m / sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    }
  }
  return e;
}

template <class D> __attribute__((noinline)) D nbody(long steps) {
  Body<D> b[5];
  jovian(b);
  escape(b);
  escape(steps);
  advance(b, 0.01, steps);
  return energy(b);
}

// ---- spectral norm (Benchmarks Game) ----
template <class D> static inline D spectral_a(size_t i, size_t j) {
  return D(1.0) / D((double)((i + j) * (i + j + 1) / 2 + i + 1));
}

template <class D>
__attribute__((noinline)) void a_times(const vector<D> &u, vector<D> &out, bool transpose) {
  size_t n = u.size();
  for (size_t i = 0; i < n; i++) {
    D s = 0.0;
    for (size_t j = 0; j < n; j++) s = s + (transpose ? spectral_a<D>(j, i) : spectral_a<D>(i, j)) * u[j];
    out[i] = s;
  }
}

template <class D> __attribute__((noinline)) D spectral_norm(size_t n) {
  using std::sqrt;
  vector<D> u(n, D(1.0)), v(n, D(0.0)), tmp(n, D(0.0));
  for (int k = 0; k < 10; k++) {
    escape(u);
    a_times(u, tmp, false);
    a_times(tmp, v, true);
    escape(v);
    a_times(v, tmp, false);
    a_times(tmp, u, true);
  }
  D vbv = 0.0, vv = 0.0;
  for (size_t i = 0; i < n; i++) {
    vbv = vbv + u[i] * v[i];
    vv = vv + v[i] * v[i];
  }
  return sqrt(vbv / vv);
}

// ---- per-operation table ----
enum Op { ADD, MUL, DIV, SQRT, FMA };
static const char *op_name[] = {"+", "*", "/", "sqrt", "mul_add"};

template <class T> static inline T apply(Op op, T x, T y, T z) {
  using std::fma;
  using std::sqrt;
  switch (op) {
  case ADD: return x + y;
  case MUL: return x * y;
  case DIV: return x / y;
  case SQRT: return sqrt(x);
  default: return fma(x, y, z);
  }
}

// The chain's step: the result is the next x (the square root adds an operand first, as in
// examples/overhead.rs, so that it does not converge to an exact 1).
template <class T> static inline T step(Op op, T x, T y, T z) {
  using std::sqrt;
  return op == SQRT ? sqrt(x + y) : apply(op, x, y, z);
}

template <Op op, class T>
__attribute__((noinline)) void stream(const vector<T> &a, const vector<T> &b,
                                      const vector<T> &c, vector<T> &out, long reps) {
  for (long r = 0; r < reps; r++) {
    const T *pa = a.data(), *pb = b.data(), *pc = c.data();
    escape(pa);
    escape(pb);
    escape(pc);
    T *po = out.data();
    for (size_t i = 0; i < a.size(); i++) po[i] = apply(op, pa[i], pb[i], pc[i]);
    escape(po);
  }
}

template <Op op, class T>
__attribute__((noinline)) T chain(T x0, const vector<T> &b, const vector<T> &c, long reps) {
  T last = x0;
  for (long r = 0; r < reps; r++) {
    const T *pb = b.data(), *pc = c.data();
    escape(pb);
    escape(pc);
    T x = x0;
    escape(x);
    for (size_t i = 0; i < b.size(); i++) x = step(op, x, pb[i], pc[i]);
    escape(x);
    last = x;
  }
  return last;
}

static int RUNS = 7;

static double median(vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

template <class P, class S> static void report(const std::string &name, P plain, S stoch) {
  vector<double> tp, ts;
  for (int r = 0; r < RUNS; r++) {
    double t0 = cpu_seconds();
    plain();
    double t1 = cpu_seconds();
    stoch();
    double t2 = cpu_seconds();
    tp.push_back(t1 - t0);
    ts.push_back(t2 - t1);
  }
  double p = median(tp), s = median(ts);
  printf("%-22s plain %10.3f ms  cadna %10.3f ms  ratio %6.1fx\n", name.c_str(), p * 1e3,
         s * 1e3, s / p);
  fflush(stdout);
}

static const size_t OP_LEN = 1024;

template <Op op, class T, class TS>
static void per_op(const char *ty, long reps, const vector<double> &a0, const vector<double> &b0,
                   const vector<double> &c0) {
  auto a = conv<T>(a0), b = conv<T>(b0), c = conv<T>(c0), out = a;
  auto sa = conv<TS>(a), sb = conv<TS>(b), sc = conv<TS>(c), sout = sa;
  vector<double> t[4];
  for (int r = 0; r < RUNS; r++) {
    double t0 = cpu_seconds();
    stream<op>(a, b, c, out, reps);
    double t1 = cpu_seconds();
    stream<op>(sa, sb, sc, sout, reps);
    double t2 = cpu_seconds();
    T x = chain<op>(a[0], b, c, reps);
    double t3 = cpu_seconds();
    TS sx = chain<op>(sa[0], sb, sc, reps);
    double t4 = cpu_seconds();
    escape(x);
    escape(sx);
    t[0].push_back(t1 - t0);
    t[1].push_back(t2 - t1);
    t[2].push_back(t3 - t2);
    t[3].push_back(t4 - t3);
  }
  double ns[4];
  for (int k = 0; k < 4; k++) ns[k] = median(t[k]) * 1e9 / (OP_LEN * reps);
  printf("op %-7s %-3s stream plain %7.3f ns  cadna %7.2f ns (%5.1fx) | chain plain %7.3f ns  "
         "cadna %7.2f ns (%5.1fx)\n",
         op_name[op], ty, ns[0], ns[1], ns[1] / ns[0], ns[2], ns[3], ns[3] / ns[2]);
  fflush(stdout);
}

template <class T, class TS> static void per_op_all(const char *ty, long reps) {
  vector<double> a = values(OP_LEN, 11, -0.5, 0.5), b = values(OP_LEN, 12, -0.5, 0.5),
                 c = values(OP_LEN, 13, 0.0, 1.0 / 1024);
  for (auto &x : a) x = std::exp2(x);
  for (auto &x : b) x = std::exp2(x);
  per_op<ADD, T, TS>(ty, reps, a, b, c);
  per_op<MUL, T, TS>(ty, reps, a, b, c);
  per_op<DIV, T, TS>(ty, reps, a, b, c);
  per_op<SQRT, T, TS>(ty, reps, a, b, c);
  per_op<FMA, T, TS>(ty, reps, a, b, c);
}

int main(int argc, char **argv) {
  if (argc < 2 || (strcmp(argv[1], "on") && strcmp(argv[1], "off"))) {
    fprintf(stderr, "usage: kernels on|off [RUNS] [--quick]\n");
    return 2;
  }
  bool on = !strcmp(argv[1], "on"), quick = false;
  for (int i = 2; i < argc; i++) {
    if (!strcmp(argv[i], "--quick")) quick = true;
    else RUNS = std::max(1, atoi(argv[i]));
  }
  size_t ndot = quick ? 10000 : 1000000, nmat = quick ? 24 : 200, nsum = quick ? 10000 : 1000000,
         nspec = quick ? 40 : 1000;
  long steps = quick ? 1000 : 400000, reps = quick ? 8 : 512;

  // The plain kernels are the published algorithms (before cadna_init switches the rounding
  // mode to upward for good).
  Body<double> b0[5];
  jovian(b0);
  char buf[3][32];
  snprintf(buf[0], 32, "%.9f", energy(b0));
  snprintf(buf[1], 32, "%.9f", nbody<double>(1000));
  snprintf(buf[2], 32, "%.9f", spectral_norm<double>(100));
  if (strcmp(buf[0], "-0.169075164") || strcmp(buf[1], "-0.169087605") ||
      strcmp(buf[2], "1.274219991")) {
    fprintf(stderr, "plain kernels differ from the published outputs: %s %s %s\n", buf[0],
            buf[1], buf[2]);
    return 1;
  }

  if (on) cadna_init(-1);
  else cadna_init(-1, CADNA_ALL);
  printf("CADNA checks %s, median of %d interleaved runs, thread CPU time\n", on ? "on" : "off",
         RUNS);

  {
    auto a = values(ndot, 1, -1, 1), b = values(ndot, 2, -1, 1);
    auto sa = conv<double_st>(a), sb = conv<double_st>(b);
    report("dot f64 " + std::to_string(ndot), [&] { double r = dot(a, b); escape(r); },
           [&] { double_st r = dot(sa, sb); escape(r); });
  }
  {
    size_t n = nmat;
    auto a = values(n * n, 3, -1, 1), bt = values(n * n, 4, -1, 1);
    auto sa = conv<double_st>(a), sbt = conv<double_st>(bt);
    vector<double> c(n * n);
    vector<double_st> sc(n * n);
    report("matmul f64 " + std::to_string(nmat) + "x" + std::to_string(nmat), [&] { matmul(a, bt, c, n); escape(c); },
           [&] { matmul(sa, sbt, sc, n); escape(sc); });
  }
  {
    auto v = values(nsum, 5, 0, 1);
    vector<float> x(v.begin(), v.end());
    auto sx = conv<float_st>(x);
    report("sum f32 " + std::to_string(nsum), [&] { float r = sum(x); escape(r); },
           [&] { float_st r = sum(sx); escape(r); });
  }
  report("nbody f64 5 x" + std::to_string(steps), [&] { double r = nbody<double>(steps); escape(r); },
         [&] { double_st r = nbody<double_st>(steps); escape(r); });
  report("spectral f64 n=" + std::to_string(nspec), [&] { double r = spectral_norm<double>(nspec); escape(r); },
         [&] { double_st r = spectral_norm<double_st>(nspec); escape(r); });
  per_op_all<float, float_st>("f32", reps);
  per_op_all<double, double_st>("f64", reps);
  cadna_end();
  return 0;
}
