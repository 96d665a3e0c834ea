// Global summation in the three modes of the seed papers:
//   partials: thread t sums its contiguous chunk [t*chunk, (t+1)*chunk) in order and writes one
//             partial sum; the host finishes the sum (stochastic arithmetic on the CPU);
//   atomic:   the same chunks, then each partial is added to *out with stoch_atomic_add
//             (the order of the atomic additions is not repeatable);
//   tree:     each block loads STOCH_SUM_BLOCK values (grid-stride partial sums first), reduces
//             them pairwise in shared memory, and writes one value per block; the host launches
//             again on the block results until one value is left.
// The random stream of thread t is (seed, t).
#include "stochastic.cuh"

#define STOCH_SUM_BLOCK 256

template <class T> __device__ __forceinline__ stoch_t<T> chunk_sum(const stoch_t<T>* in, long long n, long long chunk, long long t) {
    stoch_t<T> acc((T)0);
    long long begin = t * chunk, end = begin + chunk < n ? begin + chunk : n;
    for (long long i = begin; i < end; ++i) acc = acc + in[i];
    return acc;
}

template <class T> __device__ __forceinline__ void partials_impl(const stoch_t<T>* in, stoch_t<T>* partial, long long n, long long chunk, int threads,
                                                                 unsigned long long seed) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    stoch_init_at(seed, (unsigned long long)t);
    if (t >= threads) return;
    partial[t] = chunk_sum(in, n, chunk, t);
}

template <class T> __device__ __forceinline__ void atomic_impl(const stoch_t<T>* in, stoch_t<T>* out, long long n, long long chunk, int threads,
                                                               unsigned long long seed) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    stoch_init_at(seed, (unsigned long long)t);
    if (t >= threads) return;
    stoch_atomic_add(out, chunk_sum(in, n, chunk, t));
}

template <class T> __device__ __forceinline__ void tree_impl(const stoch_t<T>* in, stoch_t<T>* block_out, long long n, unsigned long long seed) {
    __shared__ stoch_t<T> buf[STOCH_SUM_BLOCK];
    long long t = (long long)blockIdx.x * STOCH_SUM_BLOCK + threadIdx.x;
    long long stride = (long long)gridDim.x * STOCH_SUM_BLOCK;
    stoch_init_at(seed, (unsigned long long)t);
    stoch_t<T> acc((T)0);
    for (long long i = t; i < n; i += stride) acc = acc + in[i];
    buf[threadIdx.x] = acc;
    __syncthreads();
    for (int s = STOCH_SUM_BLOCK / 2; s > 0; s >>= 1) {
        if ((int)threadIdx.x < s) buf[threadIdx.x] = buf[threadIdx.x] + buf[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) block_out[blockIdx.x] = buf[0];
}

extern "C" __global__ void stoch_sum_partials_f32(const stoch_float* in, stoch_float* partial, long long n, long long chunk, int threads, unsigned long long seed) { partials_impl(in, partial, n, chunk, threads, seed); }
extern "C" __global__ void stoch_sum_partials_f64(const stoch_double* in, stoch_double* partial, long long n, long long chunk, int threads, unsigned long long seed) { partials_impl(in, partial, n, chunk, threads, seed); }
extern "C" __global__ void stoch_sum_atomic_f32(const stoch_float* in, stoch_float* out, long long n, long long chunk, int threads, unsigned long long seed) { atomic_impl(in, out, n, chunk, threads, seed); }
extern "C" __global__ void stoch_sum_atomic_f64(const stoch_double* in, stoch_double* out, long long n, long long chunk, int threads, unsigned long long seed) { atomic_impl(in, out, n, chunk, threads, seed); }
extern "C" __global__ void __launch_bounds__(STOCH_SUM_BLOCK) stoch_sum_tree_f32(const stoch_float* in, stoch_float* block_out, long long n, unsigned long long seed) { tree_impl(in, block_out, n, seed); }
extern "C" __global__ void __launch_bounds__(STOCH_SUM_BLOCK) stoch_sum_tree_f64(const stoch_double* in, stoch_double* block_out, long long n, unsigned long long seed) { tree_impl(in, block_out, n, seed); }
