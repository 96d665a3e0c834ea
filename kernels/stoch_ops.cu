// Element-wise stochastic operations, one per thread: the test bench of the operators.
// out[i] = a[i] OP b[i] for the binary ops; the random stream of thread i is (seed, i).
#include "stochastic.cuh"

// Binary op codes (stoch_gpu::BinaryOp): 0 add, 1 sub, 2 mul, 3 div, 4 fma(a, b, a),
// 5 add plain (a + b.x), 6 sub plain, 7 mul plain, 8 div plain, 9 pow, 10 fmin, 11 fmax,
// 12 copysign, 13 log(a, base b), 14 a % b, 15 a % b.x, 16 a.x % b, 17 clamp(a, -b, b),
// 18 rem_euclid, 19 div_euclid.
template <class T> __device__ __forceinline__ void binary_impl(const stoch_t<T>* a, const stoch_t<T>* b, stoch_t<T>* out, int n, int op,
                                                               unsigned long long seed) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    stoch_init_at(seed, (unsigned long long)i);
    if (i >= n) return;
    stoch_t<T> x = a[i], y = b[i], r;
    switch (op) {
    case 0: r = x + y; break;
    case 1: r = x - y; break;
    case 2: r = x * y; break;
    case 3: r = x / y; break;
    case 4: r = fma(x, y, x); break;
    case 5: r = x + y.x; break;
    case 6: r = x - y.x; break;
    case 7: r = x * y.x; break;
    case 8: r = x / y.x; break;
    case 9: r = pow(x, y); break;
    case 10: r = fmin(x, y); break;
    case 11: r = fmax(x, y); break;
    case 12: r = copysign(x, y); break;
    case 13: r = log(x, y); break;
    case 14: r = x % y; break;
    case 15: r = x % y.x; break;
    case 16: r = x.x % y; break;
    case 17: r = clamp(x, -y, y); break;
    case 18: r = rem_euclid(x, y); break;
    default: r = div_euclid(x, y); break;
    }
    out[i] = r;
}

// Unary op codes (stoch_gpu::UnaryOp): 0 sqrt, 1 neg, 2 abs, 3 floor, 4 ceil, 5 round, 6 trunc,
// 7 exp, 8 log, 9 sin, 10 cos, 11 tan, 12 atan, 13 tanh, 14 log10, 15 cbrt, 16 powi(a, 3),
// 17 signum, 18 fract, 19 recip, 20 to_degrees, 21 to_radians, 22 sincos (sin, with cos's flags).
// Tests (the result is 1 or 0, with a's flags after the test): 23 is_nan, 24 is_finite,
// 25 is_infinite, 26 is_sign_positive, 27 is_sign_negative.
template <class T> __device__ __forceinline__ void unary_impl(const stoch_t<T>* a, stoch_t<T>* out, int n, int op, unsigned long long seed) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    stoch_init_at(seed, (unsigned long long)i);
    if (i >= n) return;
    stoch_t<T> x = a[i], r;
    switch (op) {
    case 0: r = sqrt(x); break;
    case 1: r = -x; break;
    case 2: r = fabs(x); break;
    case 3: r = floor(x); break;
    case 4: r = ceil(x); break;
    case 5: r = round(x); break;
    case 6: r = trunc(x); break;
    case 7: r = exp(x); break;
    case 8: r = log(x); break;
    case 9: r = sin(x); break;
    case 10: r = cos(x); break;
    case 11: r = tan(x); break;
    case 12: r = atan(x); break;
    case 13: r = tanh(x); break;
    case 14: r = log10(x); break;
    case 15: r = cbrt(x); break;
    case 16: r = stoch_powi(x, 3); break;
    case 17: r = signum(x); break;
    case 18: r = fract(x); break;
    case 19: r = recip(x); break;
    case 20: r = to_degrees(x); break;
    case 21: r = to_radians(x); break;
    case 22: {
        stoch_t<T> c;
        sincos(x, &r, &c);
        r.flags |= c.flags;
        break;
    }
    default: {
        bool t;
        switch (op) {
        case 23: t = stoch_is_nan(x); break;
        case 24: t = stoch_is_finite(x); break;
        case 25: t = stoch_is_infinite(x); break;
        case 26: t = stoch_is_sign_positive(x); break;
        default: t = stoch_is_sign_negative(x); break;
        }
        r = stoch_t<T>(t ? (T)1 : (T)0);
        r.flags = x.flags;
        break;
    }
    }
    out[i] = r;
}

// Relation codes (stoch_gpu::CompareOp): 0 <, 1 <=, 2 >, 3 >=, 4 ==, 5 !=; with a plain number
// (b.x): 6 a == b.x, 7 a != b.x, 8 b.x == a, 9 b.x < a, 10 b.x >= a.
// result[i] = relation; flags_a[i] = a's flag byte after the comparison (branching bit).
template <class T> __device__ __forceinline__ void compare_impl(const stoch_t<T>* a, const stoch_t<T>* b, unsigned char* result,
                                                                unsigned char* flags_a, int n, int op, unsigned long long seed) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    stoch_init_at(seed, (unsigned long long)i);
    if (i >= n) return;
    stoch_t<T> x = a[i], y = b[i];
    bool r;
    switch (op) {
    case 0: r = x < y; break;
    case 1: r = x <= y; break;
    case 2: r = x > y; break;
    case 3: r = x >= y; break;
    case 4: r = x == y; break;
    case 5: r = x != y; break;
    case 6: r = x == y.x; break;
    case 7: r = x != y.x; break;
    case 8: r = y.x == x; break;
    case 9: r = y.x < x; break;
    default: r = y.x >= x; break;
    }
    result[i] = r ? 1 : 0;
    flags_a[i] = x.flags;
}

// digits[i] = exact significant digits of a[i]; czero[i] = 1 when a[i] is a computed zero.
template <class T> __device__ __forceinline__ void digits_impl(const stoch_t<T>* a, int* digits, unsigned char* czero, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    digits[i] = stoch_digits(a[i]);
    czero[i] = stoch_is_computed_zero(a[i]) ? 1 : 0;
}

extern "C" __global__ void stoch_binary_f32(const stoch_float* a, const stoch_float* b, stoch_float* out, int n, int op, unsigned long long seed) { binary_impl(a, b, out, n, op, seed); }
extern "C" __global__ void stoch_binary_f64(const stoch_double* a, const stoch_double* b, stoch_double* out, int n, int op, unsigned long long seed) { binary_impl(a, b, out, n, op, seed); }
extern "C" __global__ void stoch_unary_f32(const stoch_float* a, stoch_float* out, int n, int op, unsigned long long seed) { unary_impl(a, out, n, op, seed); }
extern "C" __global__ void stoch_unary_f64(const stoch_double* a, stoch_double* out, int n, int op, unsigned long long seed) { unary_impl(a, out, n, op, seed); }
extern "C" __global__ void stoch_compare_f32(const stoch_float* a, const stoch_float* b, unsigned char* result, unsigned char* flags_a, int n, int op, unsigned long long seed) { compare_impl(a, b, result, flags_a, n, op, seed); }
extern "C" __global__ void stoch_compare_f64(const stoch_double* a, const stoch_double* b, unsigned char* result, unsigned char* flags_a, int n, int op, unsigned long long seed) { compare_impl(a, b, result, flags_a, n, op, seed); }
extern "C" __global__ void stoch_digits_f32(const stoch_float* a, int* digits, unsigned char* czero, int n) { digits_impl(a, digits, czero, n); }
extern "C" __global__ void stoch_digits_f64(const stoch_double* a, int* digits, unsigned char* czero, int n) { digits_impl(a, digits, czero, n); }

// Layout as the compiler sees it, packed one byte per field:
// size | x << 8 | y << 16 | z << 24 | flags << 32 | pad << 40 | align << 48.
// The constants appear as immediates in the PTX, so a test can check them without a GPU.
template <class T> __device__ __forceinline__ unsigned long long layout_word() {
    stoch_t<T>* p = (stoch_t<T>*)0;
    unsigned long long x = (unsigned long long)((char*)&p->x - (char*)p), y = (unsigned long long)((char*)&p->y - (char*)p),
                       z = (unsigned long long)((char*)&p->z - (char*)p), f = (unsigned long long)((char*)&p->flags - (char*)p),
                       pd = (unsigned long long)((char*)&p->pad[0] - (char*)p);
    return (unsigned long long)sizeof(stoch_t<T>) | (x << 8) | (y << 16) | (z << 24) | (f << 32) | (pd << 40) |
           ((unsigned long long)alignof(stoch_t<T>) << 48);
}
extern "C" __global__ void stoch_layout_probe(unsigned long long* out) {
    out[0] = layout_word<float>();
    out[1] = layout_word<double>();
}
