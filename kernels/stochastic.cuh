// stochastic.cuh: Discrete Stochastic Arithmetic (CESTAC / CADNA) on CUDA devices.
//
// Device types `stoch_float` and `stoch_double` with exactly the layout of the host types
// `stoch_core::Stochastic<f32>` / `Stochastic<f64>`: three samples x, y, z, one byte of sticky
// instability flags, explicit padding (16 and 32 bytes). A slice of host values is copied to
// the device byte for byte and back. Device code reads the flag byte only and writes zero
// padding; the host writes the upper bytes of the number 1 there (so that the flag byte's lane
// is a normal number on the CPU), and takes either.
//
// Every + - * / sqrt fma on a sample is the exact result rounded toward +inf or -inf, chosen at
// random through the directed-rounding intrinsics (__fadd_ru/__fadd_rd, ...): x and y draw one
// random bit each and z takes the complement of y's bit, as in CADNA. Random bits come from a
// counter-based generator (splitmix64) keyed by the launch seed and a per-thread stream id, so a
// launch repeats exactly for the same seed whatever the block size (see stoch_init_at).
//
// Instability checks of stoch's DESIGN.md section 4 set bits in the result's flag byte, with the
// predicates of stoch-core (numerical noise = computed zero that is not an exact zero):
//   division        the divisor is numerical noise
//   multiplication  both operands (stochastic, not plain) are numerical noise
//   power           pow/powi with a noisy base (or a noisy stochastic exponent)
//   math function   sqrt/exp/log/sin/... of numerical noise (atan2/hypot: both arguments;
//                   log with a base: either); stoch_is_nan/is_finite/is_infinite whose samples
//                   disagree (on the operand)
//   branching       < <= > >= whose difference is numerical noise (flags both operands);
//                   fmin/fmax/clamp on noise (flags the result)
//   intrinsic       abs/signum with samples of both signs; floor/ceil/round/trunc/fract, fmod
//                   and int conversion whose per-sample integer parts differ; the sign tests
//                   stoch_is_sign_positive/negative whose samples' sign bits differ
//   cancellation    + or - losing >= STOCH_CANCEL_LEVEL digits (CADNA-GPU does not check this on
//                   the device; we do, behind stoch-core's cheap magnitude pre-test)
// Flags propagate (a result carries the OR of its operands' flags); stoch-gpu counts them on the
// host and merges them into the report.
//
// Usage in a kernel:
//
//     #include "stochastic.cuh"
//     extern "C" __global__ void k(const stoch_float* a, stoch_float* out, int n,
//                                  unsigned long long seed) {
//         int i = blockIdx.x * blockDim.x + threadIdx.x;
//         stoch_init_at(seed, i);          // before any stochastic operation
//         if (i < n) out[i] = a[i] * a[i] + 1.0f;
//     }
//
// Compile-time switches (pass -DNAME=VALUE to NVRTC):
//   STOCH_CANCEL_LEVEL       digits lost by + or - that count as a cancellation (default 4)
//   STOCH_DETECT             mask of the instability kinds to detect (default 0x7F: all)
//   STOCH_MAX_BLOCK_THREADS  largest block the generator state is sized for (default 1024)
//
// Statistics (computed zero, digits, means) and library math calls live in __noinline__
// functions named stoch_dsa_* and stoch_libm_*: their round-to-nearest arithmetic is not sample
// arithmetic, and stoch-gpu's PTX check leaves exactly those functions out. Every other
// floating-point add/sub/mul/div/sqrt/fma in code built from this header is directed (.rp/.rm).
#pragma once

#ifndef STOCH_CANCEL_LEVEL
#define STOCH_CANCEL_LEVEL 4
#endif
#ifndef STOCH_DETECT
#define STOCH_DETECT 0x7F
#endif
#ifndef STOCH_MAX_BLOCK_THREADS
#define STOCH_MAX_BLOCK_THREADS 1024
#endif

// Flag bits: bit k is stoch_core::Instability variant k.
#define STOCH_DIVISION 0x01
#define STOCH_MULTIPLICATION 0x02
#define STOCH_POWER 0x04
#define STOCH_BRANCHING 0x08
#define STOCH_INTRINSIC 0x10
#define STOCH_MATH 0x20
#define STOCH_CANCELLATION 0x40

// Student t quantile, 2 degrees of freedom, 95% (two-sided).
#define STOCH_TAU 4.302652729749464

// ---------------------------------------------------------------------------------------------
// Types
// ---------------------------------------------------------------------------------------------

template <class T> struct stoch_pad;
template <> struct stoch_pad<float> { enum { bytes = 3 }; };
template <> struct stoch_pad<double> { enum { bytes = 7 }; };

/// A stochastic number: three samples, a sticky flag byte, padding (host layout; zero here),
/// aligned to its size as the host type is (16 bytes for float, 32 for double).
template <class T> struct alignas(4 * sizeof(T)) stoch_t {
    T x, y, z;
    /// Instability flags (STOCH_* bits). `mutable`: comparisons flag their operands.
    mutable unsigned char flags;
    /// Always zero.
    unsigned char pad[stoch_pad<T>::bytes];

    stoch_t() = default; // trivial, so stoch_t can live in __shared__ arrays
    /// An exact value: three equal samples, no flags.
    __device__ __forceinline__ stoch_t(T v) : x(v), y(v), z(v), flags(0) {
#pragma unroll
        for (int i = 0; i < stoch_pad<T>::bytes; ++i) pad[i] = 0;
    }
    __device__ __forceinline__ stoch_t(T a, T b, T c, unsigned char f) : x(a), y(b), z(c), flags(f) {
#pragma unroll
        for (int i = 0; i < stoch_pad<T>::bytes; ++i) pad[i] = 0;
    }
    /// Assign an exact value.
    __device__ __forceinline__ stoch_t& operator=(T v) {
        *this = stoch_t(v);
        return *this;
    }
};

typedef stoch_t<float> stoch_float;
typedef stoch_t<double> stoch_double;

// NVRTC has no offsetof; the offsets follow from standard layout (members in declaration order,
// x at offset 0) and the sizes of the prefixes below. stoch_layout_probe (stoch_ops.cu) also
// writes the offsets computed by the compiler, and stoch-gpu's tests compare them with the host.
struct stoch_float_prefix3 { float x, y, z; };
struct stoch_float_prefix4 { float x, y, z; unsigned char flags; };
struct stoch_double_prefix3 { double x, y, z; };
struct stoch_double_prefix4 { double x, y, z; unsigned char flags; };
static_assert(__is_standard_layout(stoch_float) && __is_trivially_copyable(stoch_float), "stoch_float must be plain data");
static_assert(__is_standard_layout(stoch_double) && __is_trivially_copyable(stoch_double), "stoch_double must be plain data");
static_assert(sizeof(stoch_float) == 16 && alignof(stoch_float) == 16, "stoch_float: 16 bytes, 16-aligned (host Stochastic<f32>)");
static_assert(sizeof(stoch_double) == 32 && alignof(stoch_double) == 32, "stoch_double: 32 bytes, 32-aligned (host Stochastic<f64>)");
static_assert(sizeof(stoch_float_prefix3) == 12 && sizeof(stoch_double_prefix3) == 24, "samples at 0, 4|8, 8|16; flags at 12|24");
static_assert(sizeof(stoch_float::pad) == 3 && sizeof(stoch_double::pad) == 7, "explicit padding: 3 and 7 bytes");
static_assert(sizeof(stoch_float_prefix4) == 16 && sizeof(stoch_double_prefix4) == 32, "padding fills the tail");

// Whole-element loads and stores: one 16-byte access (two for stoch_double), with the flag byte
// and padding in the last word, where a plain `a[i]` may be read field by field. Use them in
// memory-bound kernels (the shipped stencil does); `p` is aligned as its type is.
#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
__device__ __forceinline__ stoch_float stoch_load(const stoch_float* p) {
    float4 v = *reinterpret_cast<const float4*>(p);
    return stoch_float(v.x, v.y, v.z, (unsigned char)(__float_as_uint(v.w) & 0xffu));
}
__device__ __forceinline__ stoch_double stoch_load(const stoch_double* p) {
    const double2* q = reinterpret_cast<const double2*>(p);
    double2 a = q[0], b = q[1];
    return stoch_double(a.x, a.y, b.x, (unsigned char)(__double_as_longlong(b.y) & 0xff));
}
__device__ __forceinline__ void stoch_store(stoch_float* p, const stoch_float& v) {
    *reinterpret_cast<float4*>(p) = make_float4(v.x, v.y, v.z, __uint_as_float((unsigned int)v.flags));
}
__device__ __forceinline__ void stoch_store(stoch_double* p, const stoch_double& v) {
    double2* q = reinterpret_cast<double2*>(p);
    q[0] = make_double2(v.x, v.y);
    q[1] = make_double2(v.z, __longlong_as_double((long long)v.flags));
}
#else
// Host compilers (the emulation in stoch-gpu's tests): the same values, element by element.
template <class T> inline stoch_t<T> stoch_load(const stoch_t<T>* p) { return stoch_t<T>(p->x, p->y, p->z, p->flags); }
template <class T> inline void stoch_store(stoch_t<T>* p, const stoch_t<T>& v) { *p = stoch_t<T>(v.x, v.y, v.z, v.flags); }
#endif

/// Maximum number of exact significant digits reported for a sample type.
template <class T> struct stoch_limits;
template <> struct stoch_limits<float> { enum { max_digits = 7, mant_bits = 23 }; };
template <> struct stoch_limits<double> { enum { max_digits = 15, mant_bits = 52 }; };

/// Non-deduced context: lets `x + 1.0` or `x * 2` convert the plain operand to T.
template <class T> struct stoch_ident { typedef T type; };

// ---------------------------------------------------------------------------------------------
// Random bits: splitmix64 keyed by (seed, stream id), one state per thread in shared memory
// ---------------------------------------------------------------------------------------------

__shared__ unsigned long long stoch_rng_state[STOCH_MAX_BLOCK_THREADS];
__shared__ unsigned int stoch_rng_bits[STOCH_MAX_BLOCK_THREADS];

__device__ __forceinline__ unsigned int stoch_lane() {
    return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}

__device__ __forceinline__ unsigned long long stoch_mix64(unsigned long long z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/// Start this thread's random stream: `id` names the stream (use the index of the element the
/// thread computes, so the result does not depend on the block shape). Call it once, before
/// any stochastic operation, in every thread (also threads that compute nothing).
__device__ __forceinline__ void stoch_init_at(unsigned long long seed, unsigned long long id) {
    unsigned int l = stoch_lane();
    if (l >= STOCH_MAX_BLOCK_THREADS) __trap(); // block larger than the generator state: fail loudly
    stoch_rng_state[l] = stoch_mix64(seed ^ stoch_mix64(id ^ 0x5851f42d4c957f2dULL));
    stoch_rng_bits[l] = 1u; // empty: only the sentinel bit
}

/// `stoch_init_at` with the thread's global linear index over the launch.
__device__ __forceinline__ void stoch_init(unsigned long long seed) {
    unsigned long long bx = blockIdx.x + (unsigned long long)gridDim.x * (blockIdx.y + (unsigned long long)gridDim.y * blockIdx.z);
    unsigned long long threads = (unsigned long long)blockDim.x * blockDim.y * blockDim.z;
    stoch_init_at(seed, bx * threads + stoch_lane());
}

/// Two fresh random bits (bit 0 for sample x, bit 1 for samples y and z).
__device__ __forceinline__ unsigned int stoch_rand2() {
    unsigned int l = stoch_lane();
    unsigned int b = stoch_rng_bits[l];
    if (b < 4u) {
        unsigned long long s = stoch_rng_state[l] + 0x9e3779b97f4a7c15ULL;
        stoch_rng_state[l] = s;
        b = (unsigned int)(stoch_mix64(s) >> 33) | 0x80000000u; // 31 random bits + sentinel
    }
    stoch_rng_bits[l] = b >> 2;
    return b & 3u;
}

// ---------------------------------------------------------------------------------------------
// Directed rounding primitives
// ---------------------------------------------------------------------------------------------

// NVRTC 13.0's optimizer for sm_100 and newer folds `up ? __fsub_ru(a, b) : __fsub_rd(a, b)`
// into one call with a run-time rounding mode and then rejects its own module ("Broken module
// found: immarg operand has non-immediate parameter"). There the two roundings are written as
// inline PTX (opaque to that fold) and the result is selected; the instructions are the same.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 1000
#define STOCH_DIRECTED_ASM 1
#endif

#ifdef STOCH_DIRECTED_ASM
#define STOCH_DIRECTED2(NAME, OP, T, PT, C, RU, RD)                                                             \
    __device__ __forceinline__ T NAME(T a, T b, bool up) {                                                  \
        T u, d;                                                                                              \
        asm(OP ".rp." PT " %0, %1, %2;" : "=" C(u) : C(a), C(b));                                          \
        asm(OP ".rm." PT " %0, %1, %2;" : "=" C(d) : C(a), C(b));                                          \
        return up ? u : d;                                                                                   \
    }
#else
#define STOCH_DIRECTED2(NAME, OP, T, PT, C, RU, RD)                                                             \
    __device__ __forceinline__ T NAME(T a, T b, bool up) { return up ? RU(a, b) : RD(a, b); }
#endif
STOCH_DIRECTED2(stoch_add_rd, "add", float, "f32", "f", __fadd_ru, __fadd_rd)
STOCH_DIRECTED2(stoch_add_rd, "add", double, "f64", "d", __dadd_ru, __dadd_rd)
STOCH_DIRECTED2(stoch_sub_rd, "sub", float, "f32", "f", __fsub_ru, __fsub_rd)
STOCH_DIRECTED2(stoch_sub_rd, "sub", double, "f64", "d", __dsub_ru, __dsub_rd)
STOCH_DIRECTED2(stoch_mul_rd, "mul", float, "f32", "f", __fmul_ru, __fmul_rd)
STOCH_DIRECTED2(stoch_mul_rd, "mul", double, "f64", "d", __dmul_ru, __dmul_rd)
STOCH_DIRECTED2(stoch_div_rd, "div", float, "f32", "f", __fdiv_ru, __fdiv_rd)
STOCH_DIRECTED2(stoch_div_rd, "div", double, "f64", "d", __ddiv_ru, __ddiv_rd)
#undef STOCH_DIRECTED2

#ifdef STOCH_DIRECTED_ASM
__device__ __forceinline__ float stoch_sqrt_rd(float a, bool up) {
    float u, d;
    asm("sqrt.rp.f32 %0, %1;" : "=f"(u) : "f"(a));
    asm("sqrt.rm.f32 %0, %1;" : "=f"(d) : "f"(a));
    return up ? u : d;
}
__device__ __forceinline__ double stoch_sqrt_rd(double a, bool up) {
    double u, d;
    asm("sqrt.rp.f64 %0, %1;" : "=d"(u) : "d"(a));
    asm("sqrt.rm.f64 %0, %1;" : "=d"(d) : "d"(a));
    return up ? u : d;
}
__device__ __forceinline__ float stoch_fma_rd(float a, float b, float c, bool up) {
    float u, d;
    asm("fma.rp.f32 %0, %1, %2, %3;" : "=f"(u) : "f"(a), "f"(b), "f"(c));
    asm("fma.rm.f32 %0, %1, %2, %3;" : "=f"(d) : "f"(a), "f"(b), "f"(c));
    return up ? u : d;
}
__device__ __forceinline__ double stoch_fma_rd(double a, double b, double c, bool up) {
    double u, d;
    asm("fma.rp.f64 %0, %1, %2, %3;" : "=d"(u) : "d"(a), "d"(b), "d"(c));
    asm("fma.rm.f64 %0, %1, %2, %3;" : "=d"(d) : "d"(a), "d"(b), "d"(c));
    return up ? u : d;
}
#else
__device__ __forceinline__ float stoch_sqrt_rd(float a, bool up) { return up ? __fsqrt_ru(a) : __fsqrt_rd(a); }
__device__ __forceinline__ double stoch_sqrt_rd(double a, bool up) { return up ? __dsqrt_ru(a) : __dsqrt_rd(a); }
__device__ __forceinline__ float stoch_fma_rd(float a, float b, float c, bool up) { return up ? __fmaf_ru(a, b, c) : __fmaf_rd(a, b, c); }
__device__ __forceinline__ double stoch_fma_rd(double a, double b, double c, bool up) { return up ? __fma_ru(a, b, c) : __fma_rd(a, b, c); }
#endif

// Bit views (integer-only helpers: no floating-point arithmetic).
__device__ __forceinline__ long long stoch_bits(float v) { return (long long)__float_as_int(v); }
__device__ __forceinline__ long long stoch_bits(double v) { return __double_as_longlong(v); }
__device__ __forceinline__ bool stoch_signbit(float v) { return __float_as_int(v) < 0; }
__device__ __forceinline__ bool stoch_signbit(double v) { return __double_as_longlong(v) < 0; }
__device__ __forceinline__ int stoch_exponent(float v) { return (__float_as_int(v) >> 23) & 0xff; }
__device__ __forceinline__ int stoch_exponent(double v) { return (int)((__double_as_longlong(v) >> 52) & 0x7ff); }

/// One ulp toward +inf (`up`) or -inf, by integer steps on the representation.
/// As the host's `nudge` (stoch-core rounding.rs): zeros, infinities and NaN stay; a finite value
/// moves one ulp, except that a step past +-MAX stays at +-MAX.
__device__ __forceinline__ float stoch_nudge(float v, bool up) {
    int i = __float_as_int(v);
    if (v == 0.0f || (i & 0x7f800000) == 0x7f800000) return v;
    int m = (i > 0) == up ? i + 1 : i - 1;
    return (m & 0x7fffffff) == 0x7f800000 ? v : __int_as_float(m);
}
__device__ __forceinline__ double stoch_nudge(double v, bool up) {
    long long i = __double_as_longlong(v);
    if (v == 0.0 || (i & 0x7ff0000000000000LL) == 0x7ff0000000000000LL) return v;
    long long m = (i > 0) == up ? i + 1 : i - 1;
    return (m & 0x7fffffffffffffffLL) == 0x7ff0000000000000LL ? v : __longlong_as_double(m);
}

// ---------------------------------------------------------------------------------------------
// DSA statistics (noinline; round-to-nearest arithmetic allowed here, see the file header)
// ---------------------------------------------------------------------------------------------

// These follow stoch-core's digits.rs operation for operation (same formulas, same constants,
// same order of evaluation), so device and host agree on every value, tiny and huge included.

/// |v| (sign-bit clear; no arithmetic).
__device__ __forceinline__ float stoch_absval(float v) { return fabsf(v); }
__device__ __forceinline__ double stoch_absval(double v) { return ::fabs(v); }

/// Whether a double is finite (integer test on the exponent bits).
__device__ __forceinline__ bool stoch_finite_bits(double v) {
    return (__double_as_longlong(v) & 0x7ff0000000000000LL) != 0x7ff0000000000000LL;
}

/// digits.rs `mean3`: the sample itself when all three are equal, else (a + b + c) / 3, each
/// third first when the sum overflows.
__device__ __noinline__ double stoch_dsa_mean3(double a, double b, double c) {
    if (a == b && b == c) return a;
    double sum = a + b + c;
    if (stoch_finite_bits(sum) || !(stoch_finite_bits(a) && stoch_finite_bits(b) && stoch_finite_bits(c))) return sum / 3.0;
    return a / 3.0 + b / 3.0 + c / 3.0;
}

/// digits.rs `sign3`: the sign of a + b + c without overflow to infinity: 1, -1, 0, or 2 for NaN.
__device__ __noinline__ int stoch_dsa_sign3(double a, double b, double c) {
    double sum = a + b + c;
    if (!(stoch_finite_bits(sum) || !(stoch_finite_bits(a) && stoch_finite_bits(b) && stoch_finite_bits(c))))
        sum = a * 0.25 + b * 0.25 + c * 0.25;
    return sum > 0.0 ? 1 : (sum < 0.0 ? -1 : (sum == 0.0 ? 0 : 2));
}

/// digits.rs `noise_full`: sum((3 R_i - S)^2) > K S^2 with S = sum(R_i), after scaling by a
/// power of two (from the exponent bits) when the largest |R_i| is outside (1e-150, 1e150).
__device__ __noinline__ bool stoch_dsa_noise_full(double a, double b, double c) {
    double big = fmax(fmax(stoch_absval(a), stoch_absval(b)), stoch_absval(c)); // NaN-ignoring, as f64::max
    if (!(big < 1e150 && big > 1e-150)) {
        if (big == 0.0 || big != big || !stoch_finite_bits(big)) return false;
        long long e = ((__double_as_longlong(big) >> 52) & 0x7ff) - 1023;
        e = e < -1000 ? -1000 : (e > 1000 ? 1000 : e);
        double f = __longlong_as_double((1023 - e) << 52);
        a *= f;
        b *= f;
        c *= f;
    }
    double sum = a + b + c;
    double da = 3.0 * a - sum, db = 3.0 * b - sum, dc = 3.0 * c - sum;
    return da * da + db * db + dc * dc > __longlong_as_double(0x3FA0980A362DAB30LL) * sum * sum; // 0.6 / tau^2
}

/// digits.rs `is_noise`: numerical noise (a computed zero that is not an exact zero). Fast exits
/// first, in T: identical samples; a spread |y - x| + |z - x| <= 0.05 |x| with x nonzero.
/// NaN samples are not noise.
template <class T> __device__ __noinline__ bool stoch_dsa_is_noise(T x, T y, T z) {
    if (x == y && y == z) return false;
    T near = (T)0.05 * stoch_absval(x);
    if (stoch_absval(y - x) + stoch_absval(z - x) <= near && x != (T)0) return false;
    return stoch_dsa_noise_full((double)x, (double)y, (double)z);
}

/// Computed zero: all samples zero, or numerical noise.
template <class T> __device__ __noinline__ bool stoch_dsa_is_zero(T x, T y, T z) {
    return (x == (T)0 && y == (T)0 && z == (T)0) || stoch_dsa_is_noise(x, y, z);
}

/// digits.rs `estimate`: C = log10(sqrt(3) / tau) - log10(q / 2) / 2 with q the sum of the
/// squared relative deviations ((R_i - m) / m)^2: +inf for identical nonzero samples, -inf for
/// exact zero (or a zero mean), NaN for a non-finite sample.
template <class T> __device__ __noinline__ double stoch_dsa_digits_real(T x, T y, T z) {
    double a = (double)x, b = (double)y, c = (double)z;
    if (!stoch_finite_bits(a) || !stoch_finite_bits(b) || !stoch_finite_bits(c)) return __longlong_as_double(0x7ff8000000000000LL);
    if (x == y && y == z) return x == (T)0 ? __longlong_as_double((long long)0xfff0000000000000ULL) : __longlong_as_double(0x7ff0000000000000LL);
    double m = stoch_dsa_mean3(a, b, c);
    if (m == 0.0) return __longlong_as_double((long long)0xfff0000000000000ULL);
    double ra = (a - m) / m, rb = (b - m) / m, rc = (c - m) / m;
    double q = ra * ra + rb * rb + rc * rc;
    return __longlong_as_double((long long)0xBFD94A8EE276C6A6ULL) - 0.5 * log10(q / 2.0); // log10(sqrt(3) / tau)
}

/// The digits of finite samples that are not all equal, decided without a logarithm or a
/// division, or -1 when that cannot be done safely. With S = a + b + c and
/// N = sum((3 R_i - S)^2) (the quantities of `stoch_dsa_noise_full`), the host's
/// q / 2 = sum(((R_i - m) / m)^2) / 2 equals N / (2 S^2) up to rounding, and
/// floor(C + 0.5) >= k exactly when q / 2 <= T_k = 10^(2 (C0 + 0.5 - k)) (C0 = log10(sqrt(3) /
/// tau)); k = 0 is the noise test. N and 2 T_k S^2 are compared directly. Both q's carry a
/// relative rounding error of about 10 u / sqrt(q) (u = 2^-53): below 4e-7 for float samples
/// (q >= 1e-15 when they differ), below 1e-4 for double samples while q > 2 T_11. Where N lies
/// within `margin` (1e-5 for float, 1e-3 for double: 25 and 10 times those errors) of a
/// threshold, at a threshold past `last` (double: 10; beyond, only the exact formulas are
/// precise enough), or at extreme magnitudes, it returns -1 and the caller decides by the exact
/// formulas of digits.rs, so the result is always the host's.
__device__ __forceinline__ int stoch_dsa_digits_fast(double a, double b, double c, int max_digits, int last, double margin) {
    double big = fmax(fmax(stoch_absval(a), stoch_absval(b)), stoch_absval(c));
    if (!(big < 1e150 && big > 1e-150)) return -1;
    double s = a + b + c;
    double da = 3.0 * a - s, db = 3.0 * b - s, dc = 3.0 * c - s;
    double n = da * da + db * db + dc * dc;
    double t = __longlong_as_double(0x3FA0980A362DAB30LL) * (s * s); // 2 T_1 S^2
    for (int k = 0; k < max_digits; ++k, t *= 0.01) {
        if (n > t * (1.0 + margin)) return k; // q / 2 > T_(k+1): k digits
        if (n >= t * (1.0 - margin) || k == last) return -1; // too close to call, or too precise
    }
    return max_digits;
}

/// digits.rs `identical_digits`: the digits of three identical finite samples: max_digits
/// (an exact zero included), floor(log10 k) (at least 1) for a subnormal k * (smallest one).
template <class T> __device__ __forceinline__ int stoch_dsa_identical_digits(double a) {
    const double min_normal = sizeof(T) == 4 ? 1.1754943508222875e-38 : 2.2250738585072014e-308;
    const double min_sub = sizeof(T) == 4 ? 1.401298464324817e-45 : 4.9406564584124654e-324;
    double m = fabs(a);
    if (m == 0.0 || m >= min_normal) return stoch_limits<T>::max_digits;
    double k = m / min_sub; // an integer below 2^52: compared with exact powers of ten
    int d = 1;
    for (double p = 100.0; d < stoch_limits<T>::max_digits && k >= p; p *= 10.0) ++d;
    return d;
}

/// digits.rs `digits`: floor(C + 0.5) clamped to [0, max_digits]; identical samples give
/// stoch_dsa_identical_digits (the maximum, an exact zero included); 0 for numerical noise or
/// a non-finite sample.
template <class T> __device__ __noinline__ int stoch_dsa_digits(T x, T y, T z) {
    double a = (double)x, b = (double)y, c = (double)z;
    if (!stoch_finite_bits(a) || !stoch_finite_bits(b) || !stoch_finite_bits(c)) return 0;
    if (x == y && y == z) return stoch_dsa_identical_digits<T>(a);
    int k = sizeof(T) == 4 ? stoch_dsa_digits_fast(a, b, c, 7, 7, 1e-5) : stoch_dsa_digits_fast(a, b, c, 15, 10, 1e-3);
    if (k >= 0) return k;
    if (stoch_dsa_is_noise(x, y, z)) return 0;
    double e = stoch_dsa_digits_real(x, y, z);
    if (e != e) return 0;
    double r = floor(e + 0.5);
    if (!(r > 0.0)) return 0;
    if (r > (double)stoch_limits<T>::max_digits) return stoch_limits<T>::max_digits;
    return (int)r;
}

/// Mean of the samples, in double (digits.rs `mean3`).
template <class T> __device__ __noinline__ double stoch_dsa_mean(T x, T y, T z) {
    return stoch_dsa_mean3((double)x, (double)y, (double)z);
}

/// True when `min(digits(a), digits(b)) - digits(r) >= STOCH_CANCEL_LEVEL`
/// (`b_plain`: b is a plain number, left out of the min).
template <class T>
__device__ __noinline__ bool stoch_dsa_cancelled(T ax, T ay, T az, T bx, T by, T bz, bool b_plain, T rx, T ry, T rz) {
    if (rx == (T)0 && ry == (T)0 && rz == (T)0) return false; // an exact zero result is not flagged
    // min(da, db) - dr >= L, deciding as early as possible: da, db <= max_digits.
    int dr = stoch_dsa_digits(rx, ry, rz);
    if (dr + STOCH_CANCEL_LEVEL > stoch_limits<T>::max_digits) return false;
    if (stoch_dsa_digits(ax, ay, az) - dr < STOCH_CANCEL_LEVEL) return false;
    return b_plain || stoch_dsa_digits(bx, by, bz) - dr >= STOCH_CANCEL_LEVEL;
}

// ---------------------------------------------------------------------------------------------
// Fast (integer-only) pre-tests
// ---------------------------------------------------------------------------------------------

/// True when the samples are surely not a computed zero: same sign, normal (not zero, not
/// subnormal), finite, and within
/// 2^(mant_bits-5) representation steps of each other (relative spread < 1/16, S < 0.012).
template <class T> __device__ __forceinline__ bool stoch_surely_significant(const stoch_t<T>& v) {
    long long a = stoch_bits(v.x), b = stoch_bits(v.y), c = stoch_bits(v.z);
    if (((a ^ b) | (a ^ c)) < 0) return false; // signs differ
    const long long sign = (long long)1 << (sizeof(T) * 8 - 1);
    a &= ~sign; b &= ~sign; c &= ~sign;
    const long long inf = sizeof(T) == 4 ? 0x7f800000LL : 0x7ff0000000000000LL;
    // Normal numbers only: among subnormals one representation step is not a small relative
    // change (and zero is excluded with them).
    const long long min_normal = (long long)1 << stoch_limits<T>::mant_bits;
    if (a < min_normal || b < min_normal || c < min_normal || a >= inf || b >= inf || c >= inf) return false;
    const long long lim = (long long)1 << (stoch_limits<T>::mant_bits - 5);
    long long d1 = a > b ? a - b : b - a, d2 = a > c ? a - c : c - a;
    return d1 < lim && d2 < lim;
}

/// Computed zero with the integer fast path first.
template <class T> __device__ __forceinline__ bool stoch_is_zero_fast(const stoch_t<T>& v) {
    return !stoch_surely_significant(v) && stoch_dsa_is_zero(v.x, v.y, v.z);
}

/// Numerical noise with the integer fast path first (the test of every instability check).
template <class T> __device__ __forceinline__ bool stoch_is_noise_fast(const stoch_t<T>& v) {
    return !stoch_surely_significant(v) && stoch_dsa_is_noise(v.x, v.y, v.z);
}

/// 10^(1 - STOCH_CANCEL_LEVEL) * 4, as stoch-core's CANCEL_FACTOR (0.004 for level 4).
__device__ constexpr double stoch_cancel_factor() {
    double p = 1.0;
    for (int i = 1; i < STOCH_CANCEL_LEVEL; ++i) p *= 10.0;
    return 4.0 / p;
}

/// stoch-core's pre-test (ops.rs `check_add`): a loss of L digits needs
/// |r| < 2 max(|a|, |b|) 10^(1-L); tested on the first samples with a factor 2 of margin.
/// The product is rounded up, so the device never skips a check the host makes.
template <class T>
__device__ __forceinline__ bool stoch_no_cancel_possible(const stoch_t<T>& a, const stoch_t<T>& b, const stoch_t<T>& r) {
    T a0 = stoch_absval(a.x), b0 = stoch_absval(b.x), r0 = stoch_absval(r.x);
    T big = a0 > b0 ? a0 : b0;
    return !(r0 < stoch_mul_rd(big, (T)stoch_cancel_factor(), true));
}

template <class T>
__device__ __forceinline__ unsigned char stoch_cancel_flag(const stoch_t<T>& a, const stoch_t<T>& b, bool b_plain, const stoch_t<T>& r) {
    if (!(STOCH_DETECT & STOCH_CANCELLATION)) return 0;
    if (stoch_no_cancel_possible(a, b, r)) return 0;
    return stoch_dsa_cancelled(a.x, a.y, a.z, b.x, b.y, b.z, b_plain, r.x, r.y, r.z) ? STOCH_CANCELLATION : 0;
}

// ---------------------------------------------------------------------------------------------
// Arithmetic (generic kernels of the operators)
// ---------------------------------------------------------------------------------------------

template <class T> __device__ __forceinline__ stoch_t<T> stoch_add_impl(const stoch_t<T>& a, const stoch_t<T>& b, bool a_plain, bool b_plain) {
    unsigned int r = stoch_rand2();
    stoch_t<T> s(stoch_add_rd(a.x, b.x, r & 1u), stoch_add_rd(a.y, b.y, (r & 2u) != 0), stoch_add_rd(a.z, b.z, (r & 2u) == 0),
                 (unsigned char)(a.flags | b.flags));
    s.flags |= a_plain ? stoch_cancel_flag(b, a, true, s) : stoch_cancel_flag(a, b, b_plain, s);
    return s;
}

template <class T> __device__ __forceinline__ stoch_t<T> stoch_sub_impl(const stoch_t<T>& a, const stoch_t<T>& b, bool a_plain, bool b_plain) {
    unsigned int r = stoch_rand2();
    stoch_t<T> s(stoch_sub_rd(a.x, b.x, r & 1u), stoch_sub_rd(a.y, b.y, (r & 2u) != 0), stoch_sub_rd(a.z, b.z, (r & 2u) == 0),
                 (unsigned char)(a.flags | b.flags));
    s.flags |= a_plain ? stoch_cancel_flag(b, a, true, s) : stoch_cancel_flag(a, b, b_plain, s);
    return s;
}

template <class T> __device__ __forceinline__ stoch_t<T> stoch_mul_impl(const stoch_t<T>& a, const stoch_t<T>& b, bool plain) {
    unsigned int r = stoch_rand2();
    stoch_t<T> s(stoch_mul_rd(a.x, b.x, r & 1u), stoch_mul_rd(a.y, b.y, (r & 2u) != 0), stoch_mul_rd(a.z, b.z, (r & 2u) == 0),
                 (unsigned char)(a.flags | b.flags));
    if ((STOCH_DETECT & STOCH_MULTIPLICATION) && !plain && stoch_is_noise_fast(a) && stoch_is_noise_fast(b))
        s.flags |= STOCH_MULTIPLICATION;
    return s;
}

template <class T> __device__ __forceinline__ stoch_t<T> stoch_div_impl(const stoch_t<T>& a, const stoch_t<T>& b, bool b_plain) {
    unsigned int r = stoch_rand2();
    stoch_t<T> s(stoch_div_rd(a.x, b.x, r & 1u), stoch_div_rd(a.y, b.y, (r & 2u) != 0), stoch_div_rd(a.z, b.z, (r & 2u) == 0),
                 (unsigned char)(a.flags | b.flags));
    if ((STOCH_DETECT & STOCH_DIVISION) && !b_plain && stoch_is_noise_fast(b))
        s.flags |= STOCH_DIVISION;
    return s;
}

// ---------------------------------------------------------------------------------------------
// Operators
// ---------------------------------------------------------------------------------------------

template <class T> __device__ __forceinline__ stoch_t<T> operator+(const stoch_t<T>& a, const stoch_t<T>& b) { return stoch_add_impl(a, b, false, false); }
template <class T> __device__ __forceinline__ stoch_t<T> operator+(const stoch_t<T>& a, typename stoch_ident<T>::type b) { return stoch_add_impl(a, stoch_t<T>(b), false, true); }
template <class T> __device__ __forceinline__ stoch_t<T> operator+(typename stoch_ident<T>::type a, const stoch_t<T>& b) { return stoch_add_impl(stoch_t<T>(a), b, true, false); }
template <class T> __device__ __forceinline__ stoch_t<T> operator-(const stoch_t<T>& a, const stoch_t<T>& b) { return stoch_sub_impl(a, b, false, false); }
template <class T> __device__ __forceinline__ stoch_t<T> operator-(const stoch_t<T>& a, typename stoch_ident<T>::type b) { return stoch_sub_impl(a, stoch_t<T>(b), false, true); }
template <class T> __device__ __forceinline__ stoch_t<T> operator-(typename stoch_ident<T>::type a, const stoch_t<T>& b) { return stoch_sub_impl(stoch_t<T>(a), b, true, false); }
template <class T> __device__ __forceinline__ stoch_t<T> operator*(const stoch_t<T>& a, const stoch_t<T>& b) { return stoch_mul_impl(a, b, false); }
template <class T> __device__ __forceinline__ stoch_t<T> operator*(const stoch_t<T>& a, typename stoch_ident<T>::type b) { return stoch_mul_impl(a, stoch_t<T>(b), true); }
template <class T> __device__ __forceinline__ stoch_t<T> operator*(typename stoch_ident<T>::type a, const stoch_t<T>& b) { return stoch_mul_impl(stoch_t<T>(a), b, true); }
template <class T> __device__ __forceinline__ stoch_t<T> operator/(const stoch_t<T>& a, const stoch_t<T>& b) { return stoch_div_impl(a, b, false); }
template <class T> __device__ __forceinline__ stoch_t<T> operator/(const stoch_t<T>& a, typename stoch_ident<T>::type b) { return stoch_div_impl(a, stoch_t<T>(b), true); }
template <class T> __device__ __forceinline__ stoch_t<T> operator/(typename stoch_ident<T>::type a, const stoch_t<T>& b) { return stoch_div_impl(stoch_t<T>(a), b, false); }

/// Negation is exact.
template <class T> __device__ __forceinline__ stoch_t<T> operator-(const stoch_t<T>& a) { return stoch_t<T>(-a.x, -a.y, -a.z, a.flags); }
template <class T> __device__ __forceinline__ stoch_t<T> operator+(const stoch_t<T>& a) { return a; }

template <class T, class R> __device__ __forceinline__ stoch_t<T>& operator+=(stoch_t<T>& a, const R& b) { a = a + b; return a; }
template <class T, class R> __device__ __forceinline__ stoch_t<T>& operator-=(stoch_t<T>& a, const R& b) { a = a - b; return a; }
template <class T, class R> __device__ __forceinline__ stoch_t<T>& operator*=(stoch_t<T>& a, const R& b) { a = a * b; return a; }
template <class T, class R> __device__ __forceinline__ stoch_t<T>& operator/=(stoch_t<T>& a, const R& b) { a = a / b; return a; }

/// Cancellation in a*b + c, as stoch-core's mul_add: the product rounded to nearest stands for
/// the first operand of the addition.
template <class T>
__device__ __noinline__ bool stoch_dsa_fma_cancelled(T ax, T ay, T az, T bx, T by, T bz, T cx, T cy, T cz, T rx, T ry, T rz) {
    return stoch_dsa_cancelled(ax * bx, ay * by, az * bz, cx, cy, cz, false, rx, ry, rz);
}

/// Fused multiply-add a*b + c with one random rounding per sample.
template <class T> __device__ __forceinline__ stoch_t<T> fma(const stoch_t<T>& a, const stoch_t<T>& b, const stoch_t<T>& c) {
    unsigned int r = stoch_rand2();
    stoch_t<T> s(stoch_fma_rd(a.x, b.x, c.x, r & 1u), stoch_fma_rd(a.y, b.y, c.y, (r & 2u) != 0),
                 stoch_fma_rd(a.z, b.z, c.z, (r & 2u) == 0), (unsigned char)(a.flags | b.flags | c.flags));
    if ((STOCH_DETECT & STOCH_MULTIPLICATION) && stoch_is_noise_fast(a) && stoch_is_noise_fast(b)) s.flags |= STOCH_MULTIPLICATION;
    if (STOCH_DETECT & STOCH_CANCELLATION) {
        // stoch-core's pre-test for mul_add: |r0| < 2 max(|a0 b0|, |c0|) (product rounded up here,
        // so the device never skips a check the host makes).
        T p0 = stoch_absval(stoch_mul_rd(a.x, b.x, true)), p1 = stoch_absval(stoch_mul_rd(a.x, b.x, false));
        T big = p0 > p1 ? p0 : p1;
        T c0 = stoch_absval(c.x);
        big = big > c0 ? big : c0;
        if (stoch_absval(s.x) < stoch_add_rd(big, big, true) &&
            stoch_dsa_fma_cancelled(a.x, a.y, a.z, b.x, b.y, b.z, c.x, c.y, c.z, s.x, s.y, s.z))
            s.flags |= STOCH_CANCELLATION;
    }
    return s;
}

/// Square root with random rounding; a computed-zero argument is a math-function instability.
template <class T> __device__ __forceinline__ stoch_t<T> sqrt(const stoch_t<T>& a) {
    unsigned int r = stoch_rand2();
    stoch_t<T> s(stoch_sqrt_rd(a.x, r & 1u), stoch_sqrt_rd(a.y, (r & 2u) != 0), stoch_sqrt_rd(a.z, (r & 2u) == 0), a.flags);
    if ((STOCH_DETECT & STOCH_MATH) && stoch_is_noise_fast(a)) s.flags |= STOCH_MATH;
    return s;
}

// ---------------------------------------------------------------------------------------------
// DSA queries
// ---------------------------------------------------------------------------------------------

/// Exact significant digits (0 ..= 7 for float, 15 for double).
template <class T> __device__ __forceinline__ int stoch_digits(const stoch_t<T>& a) { return stoch_dsa_digits(a.x, a.y, a.z); }
/// Computed zero (`@.0`): all samples zero, or fewer than half a significant digit.
template <class T> __device__ __forceinline__ bool stoch_is_computed_zero(const stoch_t<T>& a) { return stoch_is_zero_fast(a); }
/// All three samples are zero.
template <class T> __device__ __forceinline__ bool stoch_is_exact_zero(const stoch_t<T>& a) { return a.x == (T)0 && a.y == (T)0 && a.z == (T)0; }
/// Computed zero that is not an exact zero.
template <class T> __device__ __forceinline__ bool stoch_is_numerical_noise(const stoch_t<T>& a) { return stoch_is_noise_fast(a); }
/// Mean of the samples.
template <class T> __device__ __forceinline__ T stoch_mean(const stoch_t<T>& a) { return (T)stoch_dsa_mean(a.x, a.y, a.z); }

// ---------------------------------------------------------------------------------------------
// Relations (DSA), as stoch-core's compare.rs: a == b iff a - b is a computed zero; otherwise
// the sign of a - b orders them (its mean's sign; the means themselves when that is NaN).
// An ordering whose difference is numerical noise is a branching instability: predicates (which
// return bool) flag their operands; functions that return a value (fmin, fmax, clamp) flag it.
// ---------------------------------------------------------------------------------------------

/// stoch-core's fallback order of the means (digits.rs `mean3`): 1, -1, 0, or 2 when unordered.
template <class T> __device__ __noinline__ int stoch_dsa_cmp_means(T ax, T ay, T az, T bx, T by, T bz) {
    double ma = stoch_dsa_mean3((double)ax, (double)ay, (double)az), mb = stoch_dsa_mean3((double)bx, (double)by, (double)bz);
    return ma > mb ? 1 : (ma < mb ? -1 : (ma == mb ? 0 : 2));
}

/// a - b with random rounding and no instability check (for relations).
template <class T> __device__ __forceinline__ stoch_t<T> stoch_diff(const stoch_t<T>& a, const stoch_t<T>& b) {
    unsigned int r = stoch_rand2();
    return stoch_t<T>(stoch_sub_rd(a.x, b.x, r & 1u), stoch_sub_rd(a.y, b.y, (r & 2u) != 0), stoch_sub_rd(a.z, b.z, (r & 2u) == 0), 0);
}

/// The DSA relation of a and b (compare.rs `relation`): 0 when a - b is a computed zero, 1 when
/// a > b, -1 when a < b, 2 when unordered (NaN). `*noise`: a - b was numerical noise.
template <class T> __device__ __forceinline__ int stoch_relation(const stoch_t<T>& a, const stoch_t<T>& b, bool* noise) {
    stoch_t<T> d = stoch_diff(a, b);
    *noise = stoch_is_noise_fast(d);
    if (*noise || stoch_is_exact_zero(d)) return 0;
    int s = stoch_dsa_sign3((double)d.x, (double)d.y, (double)d.z);
    return s != 2 ? s : stoch_dsa_cmp_means(a.x, a.y, a.z, b.x, b.y, b.z);
}

/// The relation with its branching check: the STOCH_BRANCHING bit when a - b is noise, else 0.
template <class T> __device__ __forceinline__ int stoch_relation_checked(const stoch_t<T>& a, const stoch_t<T>& b, unsigned char* flag) {
    bool noise;
    int o = stoch_relation(a, b, &noise);
    *flag = ((STOCH_DETECT & STOCH_BRANCHING) && noise) ? STOCH_BRANCHING : 0;
    return o;
}

template <class T> __device__ __forceinline__ bool operator==(const stoch_t<T>& a, const stoch_t<T>& b) { return stoch_is_zero_fast(stoch_diff(a, b)); }
template <class T> __device__ __forceinline__ bool operator!=(const stoch_t<T>& a, const stoch_t<T>& b) { return !(a == b); }
template <class T> __device__ __forceinline__ bool operator==(const stoch_t<T>& a, typename stoch_ident<T>::type b) { return a == stoch_t<T>(b); }
template <class T> __device__ __forceinline__ bool operator==(typename stoch_ident<T>::type a, const stoch_t<T>& b) { return stoch_t<T>(a) == b; }
template <class T> __device__ __forceinline__ bool operator!=(const stoch_t<T>& a, typename stoch_ident<T>::type b) { return !(a == stoch_t<T>(b)); }
template <class T> __device__ __forceinline__ bool operator!=(typename stoch_ident<T>::type a, const stoch_t<T>& b) { return !(stoch_t<T>(a) == b); }

/// Ordering comparison: op 0 `<`, 1 `<=`, 2 `>`, 3 `>=`; flags both operands on noise.
template <class T> __device__ __forceinline__ bool stoch_order(const stoch_t<T>& a, const stoch_t<T>& b, int op) {
    unsigned char f;
    int c = stoch_relation_checked(a, b, &f);
    a.flags |= f;
    b.flags |= f;
    switch (op) {
    case 0: return c == -1;
    case 1: return c == -1 || c == 0;
    case 2: return c == 1;
    default: return c == 1 || c == 0;
    }
}
template <class T> __device__ __forceinline__ bool operator<(const stoch_t<T>& a, const stoch_t<T>& b) { return stoch_order(a, b, 0); }
template <class T> __device__ __forceinline__ bool operator<=(const stoch_t<T>& a, const stoch_t<T>& b) { return stoch_order(a, b, 1); }
template <class T> __device__ __forceinline__ bool operator>(const stoch_t<T>& a, const stoch_t<T>& b) { return stoch_order(a, b, 2); }
template <class T> __device__ __forceinline__ bool operator>=(const stoch_t<T>& a, const stoch_t<T>& b) { return stoch_order(a, b, 3); }
template <class T> __device__ __forceinline__ bool operator<(const stoch_t<T>& a, typename stoch_ident<T>::type b) { return stoch_order(a, stoch_t<T>(b), 0); }
template <class T> __device__ __forceinline__ bool operator<=(const stoch_t<T>& a, typename stoch_ident<T>::type b) { return stoch_order(a, stoch_t<T>(b), 1); }
template <class T> __device__ __forceinline__ bool operator>(const stoch_t<T>& a, typename stoch_ident<T>::type b) { return stoch_order(a, stoch_t<T>(b), 2); }
template <class T> __device__ __forceinline__ bool operator>=(const stoch_t<T>& a, typename stoch_ident<T>::type b) { return stoch_order(a, stoch_t<T>(b), 3); }
template <class T> __device__ __forceinline__ bool operator<(typename stoch_ident<T>::type a, const stoch_t<T>& b) { return stoch_order(stoch_t<T>(a), b, 0); }
template <class T> __device__ __forceinline__ bool operator<=(typename stoch_ident<T>::type a, const stoch_t<T>& b) { return stoch_order(stoch_t<T>(a), b, 1); }
template <class T> __device__ __forceinline__ bool operator>(typename stoch_ident<T>::type a, const stoch_t<T>& b) { return stoch_order(stoch_t<T>(a), b, 2); }
template <class T> __device__ __forceinline__ bool operator>=(typename stoch_ident<T>::type a, const stoch_t<T>& b) { return stoch_order(stoch_t<T>(a), b, 3); }

// ---------------------------------------------------------------------------------------------
// Tests of the samples (math.rs `is_nan`, `is_finite`, `is_infinite`, `is_sign_positive`,
// `is_sign_negative`): a MathFunction (sign tests: Intrinsic) flag on the operand when the
// samples disagree.
// ---------------------------------------------------------------------------------------------

__device__ __forceinline__ bool stoch_nan_bits(float v) { return (__float_as_int(v) & 0x7fffffff) > 0x7f800000; }
__device__ __forceinline__ bool stoch_nan_bits(double v) { return (__double_as_longlong(v) & 0x7fffffffffffffffLL) > 0x7ff0000000000000LL; }
__device__ __forceinline__ bool stoch_inf_bits(float v) { return (__float_as_int(v) & 0x7fffffff) == 0x7f800000; }
__device__ __forceinline__ bool stoch_inf_bits(double v) { return (__double_as_longlong(v) & 0x7fffffffffffffffLL) == 0x7ff0000000000000LL; }

/// Op 0 NaN, 1 infinite, 2 finite, per sample; `any`: any sample, else all. Flags `a` with
/// STOCH_MATH when the samples disagree.
template <class T> __device__ __forceinline__ bool stoch_sample_test(const stoch_t<T>& a, int op, bool any) {
    bool b[3];
    T s[3] = {a.x, a.y, a.z};
#pragma unroll
    for (int i = 0; i < 3; ++i) b[i] = op == 0 ? stoch_nan_bits(s[i]) : (op == 1 ? stoch_inf_bits(s[i]) : !(stoch_nan_bits(s[i]) || stoch_inf_bits(s[i])));
    if ((STOCH_DETECT & STOCH_MATH) && (b[0] != b[1] || b[1] != b[2])) a.flags |= STOCH_MATH;
    return any ? (b[0] || b[1] || b[2]) : (b[0] && b[1] && b[2]);
}
/// Whether any sample is NaN.
template <class T> __device__ __forceinline__ bool stoch_is_nan(const stoch_t<T>& a) { return stoch_sample_test(a, 0, true); }
/// Whether any sample is infinite.
template <class T> __device__ __forceinline__ bool stoch_is_infinite(const stoch_t<T>& a) { return stoch_sample_test(a, 1, true); }
/// Whether every sample is finite.
template <class T> __device__ __forceinline__ bool stoch_is_finite(const stoch_t<T>& a) { return stoch_sample_test(a, 2, false); }

/// The sign bit of the mean (math.rs `sign_test`); Intrinsic on `a` when the samples' sign bits
/// disagree.
template <class T> __device__ __forceinline__ bool stoch_mean_signbit(const stoch_t<T>& a) {
    bool sx = stoch_signbit(a.x), sy = stoch_signbit(a.y), sz = stoch_signbit(a.z);
    if ((STOCH_DETECT & STOCH_INTRINSIC) && (sx != sy || sy != sz)) a.flags |= STOCH_INTRINSIC;
    return stoch_signbit((T)stoch_dsa_mean(a.x, a.y, a.z));
}
/// Whether the mean is positive or +0.
template <class T> __device__ __forceinline__ bool stoch_is_sign_positive(const stoch_t<T>& a) { return !stoch_mean_signbit(a); }
/// Whether the mean is negative or -0.
template <class T> __device__ __forceinline__ bool stoch_is_sign_negative(const stoch_t<T>& a) { return stoch_mean_signbit(a); }

// ---------------------------------------------------------------------------------------------
// Intrinsic functions: exact per sample; flag when the samples disagree
// ---------------------------------------------------------------------------------------------

__device__ __forceinline__ float stoch_prim_abs(float v) { return fabsf(v); }
__device__ __forceinline__ double stoch_prim_abs(double v) { return ::fabs(v); }

/// |a|; an intrinsic instability when the nonzero samples differ in sign.
template <class T> __device__ __forceinline__ stoch_t<T> fabs(const stoch_t<T>& a) {
    stoch_t<T> s(stoch_prim_abs(a.x), stoch_prim_abs(a.y), stoch_prim_abs(a.z), a.flags);
    bool px = a.x > (T)0, py = a.y > (T)0, pz = a.z > (T)0, nx = a.x < (T)0, ny = a.y < (T)0, nz = a.z < (T)0;
    if ((STOCH_DETECT & STOCH_INTRINSIC) && (px || py || pz) && (nx || ny || nz)) s.flags |= STOCH_INTRINSIC;
    return s;
}
template <class T> __device__ __forceinline__ stoch_t<T> abs(const stoch_t<T>& a) { return fabs(a); }

#define STOCH_INTRINSIC_FN(NAME, FF, FD)                                                                   \
    __device__ __noinline__ float stoch_libm_##NAME(float v) { return FF(v); }                             \
    __device__ __noinline__ double stoch_libm_##NAME(double v) { return FD(v); }                           \
    template <class T> __device__ __forceinline__ stoch_t<T> NAME(const stoch_t<T>& a) {                   \
        stoch_t<T> s(stoch_libm_##NAME(a.x), stoch_libm_##NAME(a.y), stoch_libm_##NAME(a.z), a.flags);     \
        if ((STOCH_DETECT & STOCH_INTRINSIC) && (s.x != s.y || s.x != s.z) && s.x == s.x) s.flags |= STOCH_INTRINSIC; \
        return s;                                                                                           \
    }
STOCH_INTRINSIC_FN(floor, floorf, ::floor)
STOCH_INTRINSIC_FN(ceil, ceilf, ::ceil)
STOCH_INTRINSIC_FN(round, roundf, ::round)
STOCH_INTRINSIC_FN(trunc, truncf, ::trunc)
// Sign of each sample: 1 or -1 by the sign bit (+0 gives 1, -0 gives -1), NaN for NaN, as
// Rust's signum.
__device__ __forceinline__ float stoch_prim_signum(float v) { return stoch_nan_bits(v) ? v : (stoch_signbit(v) ? -1.0f : 1.0f); }
__device__ __forceinline__ double stoch_prim_signum(double v) { return stoch_nan_bits(v) ? v : (stoch_signbit(v) ? -1.0 : 1.0); }
STOCH_INTRINSIC_FN(signum, stoch_prim_signum, stoch_prim_signum)
#undef STOCH_INTRINSIC_FN

__device__ __noinline__ float stoch_libm_fract(float v) { return v - truncf(v); }
__device__ __noinline__ double stoch_libm_fract(double v) { return v - ::trunc(v); }
/// Fractional part x - trunc(x) per sample (exact); an intrinsic instability when the samples'
/// integer parts differ (NaN included, as the host).
template <class T> __device__ __forceinline__ stoch_t<T> fract(const stoch_t<T>& a) {
    stoch_t<T> s(stoch_libm_fract(a.x), stoch_libm_fract(a.y), stoch_libm_fract(a.z), a.flags);
    T tx = stoch_libm_trunc(a.x), ty = stoch_libm_trunc(a.y), tz = stoch_libm_trunc(a.z);
    if ((STOCH_DETECT & STOCH_INTRINSIC) && (tx != ty || ty != tz)) s.flags |= STOCH_INTRINSIC;
    return s;
}

/// The magnitude of each sample of `a` with the sign of the same sample of `b` (no check).
__device__ __forceinline__ float stoch_prim_copysign(float u, float v) { return copysignf(u, v); }
__device__ __forceinline__ double stoch_prim_copysign(double u, double v) { return ::copysign(u, v); }
template <class T> __device__ __forceinline__ stoch_t<T> copysign(const stoch_t<T>& a, const stoch_t<T>& b) {
    return stoch_t<T>(stoch_prim_copysign(a.x, b.x), stoch_prim_copysign(a.y, b.y), stoch_prim_copysign(a.z, b.z),
                      (unsigned char)(a.flags | b.flags));
}

/// Remainder per sample (fmod, exact); `q`: the truncated quotient, rounded to nearest, whose
/// disagreement between samples is an intrinsic instability (ops.rs `Rem`).
__device__ __noinline__ float stoch_libm_fmod(float u, float v) { return fmodf(u, v); }
__device__ __noinline__ double stoch_libm_fmod(double u, double v) { return ::fmod(u, v); }
__device__ __noinline__ float stoch_libm_rem_quot(float u, float v) { return truncf(u / v); }
__device__ __noinline__ double stoch_libm_rem_quot(double u, double v) { return ::trunc(u / v); }
template <class T> __device__ __forceinline__ stoch_t<T> fmod(const stoch_t<T>& a, const stoch_t<T>& b) {
    stoch_t<T> s(stoch_libm_fmod(a.x, b.x), stoch_libm_fmod(a.y, b.y), stoch_libm_fmod(a.z, b.z), (unsigned char)(a.flags | b.flags));
    T qx = stoch_libm_rem_quot(a.x, b.x), qy = stoch_libm_rem_quot(a.y, b.y), qz = stoch_libm_rem_quot(a.z, b.z);
    if ((STOCH_DETECT & STOCH_INTRINSIC) && (qx != qy || qy != qz)) s.flags |= STOCH_INTRINSIC;
    return s;
}
template <class T> __device__ __forceinline__ stoch_t<T> fmod(const stoch_t<T>& a, typename stoch_ident<T>::type b) { return fmod(a, stoch_t<T>(b)); }
template <class T> __device__ __forceinline__ stoch_t<T> fmod(typename stoch_ident<T>::type a, const stoch_t<T>& b) { return fmod(stoch_t<T>(a), b); }
template <class T> __device__ __forceinline__ stoch_t<T> operator%(const stoch_t<T>& a, const stoch_t<T>& b) { return fmod(a, b); }
template <class T> __device__ __forceinline__ stoch_t<T> operator%(const stoch_t<T>& a, typename stoch_ident<T>::type b) { return fmod(a, stoch_t<T>(b)); }
template <class T> __device__ __forceinline__ stoch_t<T> operator%(typename stoch_ident<T>::type a, const stoch_t<T>& b) { return fmod(stoch_t<T>(a), b); }
template <class T, class R> __device__ __forceinline__ stoch_t<T>& operator%=(stoch_t<T>& a, const R& b) { a = a % b; return a; }

/// Euclidean quotient per sample, as Rust's `div_euclid` (from the rounded quotient).
template <class T> __device__ __noinline__ T stoch_libm_div_euclid(T u, T v) {
    T q = stoch_libm_trunc(u / v);
    if (stoch_libm_fmod(u, v) < (T)0) return v > (T)0 ? q - (T)1 : q + (T)1;
    return q;
}
/// Intrinsic when the samples' Euclidean quotients differ (none of them NaN), as math.rs.
template <class T> __device__ __forceinline__ unsigned char stoch_euclid_flag(const stoch_t<T>& a, const stoch_t<T>& b) {
    T qx = stoch_libm_div_euclid(a.x, b.x), qy = stoch_libm_div_euclid(a.y, b.y), qz = stoch_libm_div_euclid(a.z, b.z);
    bool differ = qx != qy || qy != qz, nan = stoch_nan_bits(qx) || stoch_nan_bits(qy) || stoch_nan_bits(qz);
    return ((STOCH_DETECT & STOCH_INTRINSIC) && differ && !nan) ? STOCH_INTRINSIC : 0;
}
/// The Euclidean quotient per sample (an integer: not randomly rounded).
template <class T> __device__ __forceinline__ stoch_t<T> div_euclid(const stoch_t<T>& a, const stoch_t<T>& b) {
    stoch_t<T> s(stoch_libm_div_euclid(a.x, b.x), stoch_libm_div_euclid(a.y, b.y), stoch_libm_div_euclid(a.z, b.z),
                 (unsigned char)(a.flags | b.flags));
    s.flags |= stoch_euclid_flag(a, b);
    return s;
}
/// The least non-negative remainder per sample, as Rust's `rem_euclid`: r = fmod(a, b) (exact),
/// plus |b| randomly rounded when r < 0.
template <class T> __device__ __forceinline__ stoch_t<T> rem_euclid(const stoch_t<T>& a, const stoch_t<T>& b) {
    unsigned int r = stoch_rand2();
    T m[3] = {stoch_libm_fmod(a.x, b.x), stoch_libm_fmod(a.y, b.y), stoch_libm_fmod(a.z, b.z)};
    T d[3] = {b.x, b.y, b.z};
    bool up[3] = {(r & 1u) != 0, (r & 2u) != 0, (r & 2u) == 0};
#pragma unroll
    for (int i = 0; i < 3; ++i)
        if (m[i] < (T)0) m[i] = stoch_add_rd(m[i], stoch_absval(d[i]), up[i]);
    stoch_t<T> s(m[0], m[1], m[2], (unsigned char)(a.flags | b.flags));
    s.flags |= stoch_euclid_flag(a, b);
    return s;
}

/// Conversion to int (truncation of the mean); an intrinsic instability on `a` when the samples
/// truncate to different integers.
template <class T> __device__ __forceinline__ int stoch_to_int(const stoch_t<T>& a) {
    int ix = (int)a.x, iy = (int)a.y, iz = (int)a.z;
    if ((STOCH_DETECT & STOCH_INTRINSIC) && (ix != iy || ix != iz)) a.flags |= STOCH_INTRINSIC;
    return (int)(T)stoch_dsa_mean(a.x, a.y, a.z); // the mean in T, as the host's `mean()`
}

// ---------------------------------------------------------------------------------------------
// Math functions: the library result per sample, moved one ulp up or down at random
// ---------------------------------------------------------------------------------------------

template <class T> __device__ __forceinline__ stoch_t<T> stoch_perturb(T x, T y, T z, unsigned char flags) {
    unsigned int r = stoch_rand2();
    return stoch_t<T>(stoch_nudge(x, r & 1u), stoch_nudge(y, (r & 2u) != 0), stoch_nudge(z, (r & 2u) == 0), flags);
}

#define STOCH_MATH_FN(NAME, FF, FD)                                                                         \
    __device__ __noinline__ float stoch_libm_##NAME(float v) { return FF(v); }                              \
    __device__ __noinline__ double stoch_libm_##NAME(double v) { return FD(v); }                            \
    template <class T> __device__ __forceinline__ stoch_t<T> NAME(const stoch_t<T>& a) {                    \
        unsigned char f = a.flags;                                                                           \
        if ((STOCH_DETECT & STOCH_MATH) && stoch_is_noise_fast(a)) f |= STOCH_MATH;                          \
        return stoch_perturb(stoch_libm_##NAME(a.x), stoch_libm_##NAME(a.y), stoch_libm_##NAME(a.z), f);     \
    }
STOCH_MATH_FN(exp, expf, ::exp)
STOCH_MATH_FN(exp2, exp2f, ::exp2)
STOCH_MATH_FN(expm1, expm1f, ::expm1)
STOCH_MATH_FN(log, logf, ::log)
STOCH_MATH_FN(log2, log2f, ::log2)
STOCH_MATH_FN(log10, log10f, ::log10)
STOCH_MATH_FN(log1p, log1pf, ::log1p)
STOCH_MATH_FN(sin, sinf, ::sin)
STOCH_MATH_FN(cos, cosf, ::cos)
STOCH_MATH_FN(tan, tanf, ::tan)
STOCH_MATH_FN(asin, asinf, ::asin)
STOCH_MATH_FN(acos, acosf, ::acos)
STOCH_MATH_FN(atan, atanf, ::atan)
STOCH_MATH_FN(sinh, sinhf, ::sinh)
STOCH_MATH_FN(cosh, coshf, ::cosh)
STOCH_MATH_FN(tanh, tanhf, ::tanh)
STOCH_MATH_FN(asinh, asinhf, ::asinh)
STOCH_MATH_FN(acosh, acoshf, ::acosh)
STOCH_MATH_FN(atanh, atanhf, ::atanh)
STOCH_MATH_FN(cbrt, cbrtf, ::cbrt)
#undef STOCH_MATH_FN

#define STOCH_MATH_FN2(NAME, FF, FD, KIND, OP)                                                                 \
    __device__ __noinline__ float stoch_libm_##NAME(float u, float v) { return FF(u, v); }                  \
    __device__ __noinline__ double stoch_libm_##NAME(double u, double v) { return FD(u, v); }               \
    template <class T> __device__ __forceinline__ stoch_t<T> NAME(const stoch_t<T>& a, const stoch_t<T>& b) { \
        unsigned char f = a.flags | b.flags;                                                                 \
        if ((STOCH_DETECT & KIND) && (stoch_is_noise_fast(a) OP stoch_is_noise_fast(b))) f |= KIND;         \
        return stoch_perturb(stoch_libm_##NAME(a.x, b.x), stoch_libm_##NAME(a.y, b.y),                      \
                             stoch_libm_##NAME(a.z, b.z), f);                                               \
    }
STOCH_MATH_FN2(pow, powf, ::pow, STOCH_POWER, ||)
STOCH_MATH_FN2(atan2, atan2f, ::atan2, STOCH_MATH, &&)
STOCH_MATH_FN2(hypot, hypotf, ::hypot, STOCH_MATH, &&)
#undef STOCH_MATH_FN2

/// a^b with a plain exponent; a power instability when the base is a computed zero.
template <class T> __device__ __forceinline__ stoch_t<T> pow(const stoch_t<T>& a, typename stoch_ident<T>::type b) {
    unsigned char f = a.flags;
    if ((STOCH_DETECT & STOCH_POWER) && stoch_is_noise_fast(a)) f |= STOCH_POWER;
    return stoch_perturb(stoch_libm_pow(a.x, b), stoch_libm_pow(a.y, b), stoch_libm_pow(a.z, b), f);
}

/// a^n by repeated random-rounded multiplication (as powi on the host).
template <class T> __device__ __forceinline__ stoch_t<T> stoch_powi(const stoch_t<T>& a, int n) {
    unsigned char f = a.flags;
    if ((STOCH_DETECT & STOCH_POWER) && stoch_is_noise_fast(a)) f |= STOCH_POWER;
    unsigned int k = n < 0 ? 0u - (unsigned int)n : (unsigned int)n;
    stoch_t<T> acc((T)1), base = a;
    base.flags = 0;
    while (k) {
        if (k & 1u) acc = stoch_mul_impl(acc, base, true);
        k >>= 1;
        if (k) base = stoch_mul_impl(base, base, true);
    }
    if (n < 0) acc = stoch_div_impl(stoch_t<T>((T)1), acc, true);
    acc.flags |= f;
    return acc;
}

/// Logarithm of `a` in base `b` per sample (ln a / ln b, as Rust's `log`), nudged by one ulp;
/// a math-function instability when the argument or the base is numerical noise.
__device__ __noinline__ float stoch_libm_log(float u, float v) { return logf(u) / logf(v); }
__device__ __noinline__ double stoch_libm_log(double u, double v) { return ::log(u) / ::log(v); }
template <class T> __device__ __forceinline__ stoch_t<T> log(const stoch_t<T>& a, const stoch_t<T>& b) {
    unsigned char f = a.flags | b.flags;
    if ((STOCH_DETECT & STOCH_MATH) && (stoch_is_noise_fast(a) || stoch_is_noise_fast(b))) f |= STOCH_MATH;
    return stoch_perturb(stoch_libm_log(a.x, b.x), stoch_libm_log(a.y, b.y), stoch_libm_log(a.z, b.z), f);
}
template <class T> __device__ __forceinline__ stoch_t<T> log(const stoch_t<T>& a, typename stoch_ident<T>::type b) { return log(a, stoch_t<T>(b)); }

/// Sine and cosine (each as `sin` and `cos`).
template <class T> __device__ __forceinline__ void sincos(const stoch_t<T>& a, stoch_t<T>* s, stoch_t<T>* c) {
    *s = sin(a);
    *c = cos(a);
}

/// 1 / a with random rounding; a division instability when `a` is numerical noise.
template <class T> __device__ __forceinline__ stoch_t<T> recip(const stoch_t<T>& a) { return stoch_div_impl(stoch_t<T>((T)1), a, false); }

/// Radians to degrees: a randomly rounded product by (T)(180 / pi), no check (math.rs).
template <class T> __device__ __forceinline__ stoch_t<T> to_degrees(const stoch_t<T>& a) {
    return stoch_mul_impl(a, stoch_t<T>((T)__longlong_as_double(0x404ca5dc1a63c1f8LL)), true);
}
/// Degrees to radians: a randomly rounded product by (T)(pi / 180), no check.
template <class T> __device__ __forceinline__ stoch_t<T> to_radians(const stoch_t<T>& a) {
    return stoch_mul_impl(a, stoch_t<T>((T)__longlong_as_double(0x3f91df46a2529d39LL)), true);
}

/// min and max by the stochastic relations, as math.rs `min`/`max`: a value with a NaN sample
/// loses to the other (`a` first); else `a` when `a <= b` (`a >= b`), equality included. The
/// result carries a Branching flag when a - b is numerical noise.
template <class T> __device__ __forceinline__ bool stoch_any_nan(const stoch_t<T>& a) {
    return stoch_nan_bits(a.x) || stoch_nan_bits(a.y) || stoch_nan_bits(a.z);
}
template <class T> __device__ __forceinline__ stoch_t<T> stoch_minmax(const stoch_t<T>& a, const stoch_t<T>& b, bool is_max) {
    if (stoch_any_nan(a)) return b;
    if (stoch_any_nan(b)) return a;
    unsigned char f;
    int o = stoch_relation_checked(a, b, &f);
    stoch_t<T> r = (is_max ? (o == 1 || o == 0) : (o == -1 || o == 0)) ? a : b;
    r.flags |= f;
    return r;
}
template <class T> __device__ __forceinline__ stoch_t<T> fmin(const stoch_t<T>& a, const stoch_t<T>& b) { return stoch_minmax(a, b, false); }
template <class T> __device__ __forceinline__ stoch_t<T> fmax(const stoch_t<T>& a, const stoch_t<T>& b) { return stoch_minmax(a, b, true); }

/// `a` restricted to [lo, hi] by stochastic comparisons (math.rs `clamp`: `a < lo` gives lo,
/// else `a > hi` gives hi, else a); the result carries a Branching flag when a comparison made
/// was on numerical noise.
template <class T> __device__ __forceinline__ stoch_t<T> clamp(const stoch_t<T>& a, const stoch_t<T>& lo, const stoch_t<T>& hi) {
    unsigned char f, g = 0;
    stoch_t<T> r = a;
    if (stoch_relation_checked(a, lo, &f) == -1) {
        r = lo;
    } else if (stoch_relation_checked(a, hi, &g) == 1) {
        r = hi;
    }
    r.flags |= (unsigned char)(f | g);
    return r;
}

// ---------------------------------------------------------------------------------------------
// Atomics: per-sample compare-and-swap loops with directed rounding; flags OR-ed atomically.
// The cancellation check is not made on atomic additions (the three samples are not updated
// as one value).
// ---------------------------------------------------------------------------------------------

__device__ __forceinline__ void stoch_atomic_add_sample(float* p, float v, bool up) {
    int* ip = (int*)p;
    int old = *ip, assumed;
    do {
        assumed = old;
        old = atomicCAS(ip, assumed, __float_as_int(stoch_add_rd(__int_as_float(assumed), v, up)));
    } while (assumed != old);
}
__device__ __forceinline__ void stoch_atomic_add_sample(double* p, double v, bool up) {
    unsigned long long* ip = (unsigned long long*)p;
    unsigned long long old = *ip, assumed;
    do {
        assumed = old;
        old = atomicCAS(ip, assumed, (unsigned long long)__double_as_longlong(stoch_add_rd(__longlong_as_double((long long)assumed), v, up)));
    } while (assumed != old);
}

/// `*p += v` atomically, sample by sample.
template <class T> __device__ __forceinline__ void stoch_atomic_add(stoch_t<T>* p, const stoch_t<T>& v) {
    unsigned int r = stoch_rand2();
    stoch_atomic_add_sample(&p->x, v.x, r & 1u);
    stoch_atomic_add_sample(&p->y, v.y, (r & 2u) != 0);
    stoch_atomic_add_sample(&p->z, v.z, (r & 2u) == 0);
    if (v.flags) atomicOr((unsigned int*)&p->flags, (unsigned int)v.flags); // flags + padding, little-endian
}
