// One time step of the 3-D acoustic wave equation (seed paper, scheme 1: nearest neighbours
// first), 8th order in space, 2nd order in time, binary32:
//   lap = C0 * u[p] + sum_{l=1..4} a_l * (u[i+l] + u[i-l] + u[j+l] + u[j-l] + u[k+l] + u[k-l])
//   u_next[p] = (2 u[p] - u_prev[p]) + vel[p] * lap        (vel = c^2 dt^2 / h^2)
// Grid nx * ny * nz, x fastest; the 4 outermost layers are held at zero. The order of every
// operation is the one of plain_wave_step_f32 in plain.cu and of the CPU reference
// stoch::repro::gpu_reference::wave_step.
// The random stream of point p is (seed, p). Elements are read and written whole
// (stoch_load/stoch_store: one 16-byte access each).
#include "stochastic.cuh"

#define WAVE_C0 (-8.5416666666666667f) /* 3 * a0, a0 = -205/72 */
#define WAVE_A1 (1.6f)
#define WAVE_A2 (-0.2f)
#define WAVE_A3 (0.025396825396825397f)
#define WAVE_A4 (-0.0017857142857142857f)

// Resident 256-thread blocks per SM that the register budget is set for. With the cancellation
// check on, 3 (at most 85 registers) is 21% faster on an H100 than the compiler's own choice
// (92 registers, 2 blocks); without it, the compiler's choice (1 here) is best.
#ifndef STOCH_WAVE_MIN_BLOCKS
#if STOCH_DETECT & STOCH_CANCELLATION
#define STOCH_WAVE_MIN_BLOCKS 3
#else
#define STOCH_WAVE_MIN_BLOCKS 1
#endif
#endif

extern "C" __global__ void __launch_bounds__(256, STOCH_WAVE_MIN_BLOCKS)
    stoch_wave_step_f32(const stoch_float* __restrict__ u_prev, const stoch_float* __restrict__ u, stoch_float* __restrict__ u_next,
                        const float* __restrict__ vel, int nx, int ny, int nz, unsigned long long seed) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    int k = blockIdx.z * blockDim.z + threadIdx.z;
    long long sx = 1, sy = nx, sz = (long long)nx * ny;
    long long p = i + sy * j + sz * k;
    stoch_init_at(seed, (unsigned long long)p);
    if (i >= nx || j >= ny || k >= nz) return;
    if (i < 4 || j < 4 || k < 4 || i >= nx - 4 || j >= ny - 4 || k >= nz - 4) {
        stoch_store(u_next + p, stoch_float(0.0f));
        return;
    }
    const float a[5] = {WAVE_C0, WAVE_A1, WAVE_A2, WAVE_A3, WAVE_A4};
    const stoch_float up = stoch_load(u + p);
    stoch_float lap = up * a[0];
#pragma unroll
    for (int l = 1; l <= 4; ++l) {
        stoch_float s = stoch_load(u + p + l * sx) + stoch_load(u + p - l * sx);
        s = s + stoch_load(u + p + l * sy);
        s = s + stoch_load(u + p - l * sy);
        s = s + stoch_load(u + p + l * sz);
        s = s + stoch_load(u + p - l * sz);
        lap = lap + s * a[l];
    }
    stoch_store(u_next + p, (up * 2.0f - stoch_load(u_prev + p)) + lap * vel[p]);
}
