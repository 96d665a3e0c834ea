// Plain binary32 kernels (no stochastic arithmetic) for timing and IEEE comparisons. They are
// compiled with the same options as the stochastic kernels (FMA contraction off), so each
// operation is rounded to nearest exactly as the host's f32 arithmetic. The PTX check skips this
// file on purpose: its arithmetic is round-to-nearest by design.

#define WAVE_C0 (-8.5416666666666667f)
#define WAVE_A1 (1.6f)
#define WAVE_A2 (-0.2f)
#define WAVE_A3 (0.025396825396825397f)
#define WAVE_A4 (-0.0017857142857142857f)

// Same stencil and operation order as stoch_wave_step_f32.
extern "C" __global__ void plain_wave_step_f32(const float* __restrict__ u_prev, const float* __restrict__ u, float* __restrict__ u_next,
                                               const float* __restrict__ vel, int nx, int ny, int nz) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    int k = blockIdx.z * blockDim.z + threadIdx.z;
    if (i >= nx || j >= ny || k >= nz) return;
    long long sx = 1, sy = nx, sz = (long long)nx * ny;
    long long p = i + sy * j + sz * k;
    if (i < 4 || j < 4 || k < 4 || i >= nx - 4 || j >= ny - 4 || k >= nz - 4) {
        u_next[p] = 0.0f;
        return;
    }
    const float a[5] = {WAVE_C0, WAVE_A1, WAVE_A2, WAVE_A3, WAVE_A4};
    float lap = u[p] * a[0];
#pragma unroll
    for (int l = 1; l <= 4; ++l) {
        float s = u[p + l * sx] + u[p - l * sx];
        s = s + u[p + l * sy];
        s = s + u[p - l * sy];
        s = s + u[p + l * sz];
        s = s + u[p - l * sz];
        lap = lap + s * a[l];
    }
    u_next[p] = (u[p] * 2.0f - u_prev[p]) + lap * vel[p];
}

// Same loop as stoch_matmul_f32.
extern "C" __global__ void plain_matmul_f32(const float* a, const float* b, float* c, int n, int m, int k) {
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= n || col >= m) return;
    float temp = 0.0f;
    for (int i = 0; i < k; ++i) temp = temp + a[(long long)row * k + i] * b[(long long)i * m + col];
    c[(long long)row * m + col] = temp;
}
