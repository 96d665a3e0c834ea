// Plain IEEE global summation for the repro suite: the modes of kernels/stoch_sum.cu in
// round-to-nearest float/double (compiled with --fmad=false --ftz=false).
#define REPRO_SUM_BLOCK 256

template <class T> __device__ __forceinline__ T repro_chunk_sum(const T* in, long long n, long long chunk, long long t) {
    T acc = (T)0;
    long long begin = t * chunk, end = begin + chunk < n ? begin + chunk : n;
    for (long long i = begin; i < end; ++i) acc = acc + in[i];
    return acc;
}

template <class T> __device__ __forceinline__ void repro_partials(const T* in, T* partial, long long n, long long chunk, int threads) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= threads) return;
    partial[t] = repro_chunk_sum(in, n, chunk, t);
}

template <class T> __device__ __forceinline__ void repro_atomic(const T* in, T* out, long long n, long long chunk, int threads) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= threads) return;
    atomicAdd(out, repro_chunk_sum(in, n, chunk, t));
}

template <class T> __device__ __forceinline__ void repro_tree(const T* in, T* block_out, long long n) {
    __shared__ T buf[REPRO_SUM_BLOCK];
    long long t = (long long)blockIdx.x * REPRO_SUM_BLOCK + threadIdx.x;
    long long stride = (long long)gridDim.x * REPRO_SUM_BLOCK;
    T acc = (T)0;
    for (long long i = t; i < n; i += stride) acc = acc + in[i];
    buf[threadIdx.x] = acc;
    __syncthreads();
    for (int s = REPRO_SUM_BLOCK / 2; s > 0; s >>= 1) {
        if ((int)threadIdx.x < s) buf[threadIdx.x] = buf[threadIdx.x] + buf[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) block_out[blockIdx.x] = buf[0];
}

extern "C" __global__ void repro_plain_sum_partials_f32(const float* in, float* partial, long long n, long long chunk, int threads) { repro_partials(in, partial, n, chunk, threads); }
extern "C" __global__ void repro_plain_sum_partials_f64(const double* in, double* partial, long long n, long long chunk, int threads) { repro_partials(in, partial, n, chunk, threads); }
extern "C" __global__ void repro_plain_sum_atomic_f32(const float* in, float* out, long long n, long long chunk, int threads) { repro_atomic(in, out, n, chunk, threads); }
extern "C" __global__ void repro_plain_sum_atomic_f64(const double* in, double* out, long long n, long long chunk, int threads) { repro_atomic(in, out, n, chunk, threads); }
extern "C" __global__ void __launch_bounds__(REPRO_SUM_BLOCK) repro_plain_sum_tree_f32(const float* in, float* block_out, long long n) { repro_tree(in, block_out, n); }
extern "C" __global__ void __launch_bounds__(REPRO_SUM_BLOCK) repro_plain_sum_tree_f64(const double* in, double* block_out, long long n) { repro_tree(in, block_out, n); }
