// Stochastic matrix multiplication (the CADNA-GPU example): C = A B, row-major,
// A is n x k, B is k x m, C is n x m. One thread per element of C, 2-D launch
// (x: column, y: row); the random stream of element (row, col) is (seed, row * m + col),
// so the result does not depend on the block shape. Each element is accumulated in the
// order i = 0, 1, ..., k-1: temp = temp + A[row][i] * B[i][col].
#include "stochastic.cuh"

template <class T> __device__ __forceinline__ void matmul_impl(const stoch_t<T>* a, const stoch_t<T>* b, stoch_t<T>* c, int n, int m, int k,
                                                               unsigned long long seed) {
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    stoch_init_at(seed, (unsigned long long)row * (unsigned long long)m + (unsigned long long)col);
    if (row >= n || col >= m) return;
    stoch_t<T> temp((T)0);
    for (int i = 0; i < k; ++i) temp = temp + a[(long long)row * k + i] * b[(long long)i * m + col];
    c[(long long)row * m + col] = temp;
}

extern "C" __global__ void stoch_matmul_f32(const stoch_float* a, const stoch_float* b, stoch_float* c, int n, int m, int k, unsigned long long seed) { matmul_impl(a, b, c, n, m, k, seed); }
extern "C" __global__ void stoch_matmul_f64(const stoch_double* a, const stoch_double* b, stoch_double* c, int n, int m, int k, unsigned long long seed) { matmul_impl(a, b, c, n, m, k, seed); }
