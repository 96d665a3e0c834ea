// Do/undo (Taufer et al.): each x[i] is repeatedly transformed by an operation and its inverse
// with the operands y[(i + it) % m], it = 0 .. iters-1. The exact result is x[i] itself, so
// the digits lost measure the drift. Modes: 0 multiply then divide, 1 add then subtract,
// 2 square then square root (x > 0). The random stream of element i is (seed, i).
#include "stochastic.cuh"

template <class T> __device__ __forceinline__ void do_undo_impl(stoch_t<T>* x, const stoch_t<T>* y, int n, int m, int iters, int mode,
                                                                unsigned long long seed) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    stoch_init_at(seed, (unsigned long long)i);
    if (i >= n) return;
    stoch_t<T> v = x[i];
    for (int it = 0; it < iters; ++it) {
        stoch_t<T> w = y[(int)(((long long)i + it) % m)];
        if (mode == 0) {
            v = v * w;
            v = v / w;
        } else if (mode == 1) {
            v = v + w;
            v = v - w;
        } else {
            v = v * v;
            v = sqrt(v);
        }
    }
    x[i] = v;
}

extern "C" __global__ void stoch_do_undo_f32(stoch_float* x, const stoch_float* y, int n, int m, int iters, int mode, unsigned long long seed) { do_undo_impl(x, y, n, m, iters, mode, seed); }
extern "C" __global__ void stoch_do_undo_f64(stoch_double* x, const stoch_double* y, int n, int m, int iters, int mode, unsigned long long seed) { do_undo_impl(x, y, n, m, iters, mode, seed); }
