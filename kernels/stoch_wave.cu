// One time step of the 3-D acoustic wave equation (seed paper, scheme 1: nearest neighbours
// first), 8th order in space, 2nd order in time, binary32:
//   lap = C0 * u[p] + sum_{l=1..4} a_l * (u[i+l] + u[i-l] + u[j+l] + u[j-l] + u[k+l] + u[k-l])
//   u_next[p] = (2 u[p] - u_prev[p]) + vel[p] * lap        (vel = c^2 dt^2 / h^2)
// Grid nx * ny * nz, x fastest; the 4 outermost layers are held at zero. The order of every
// operation is the one of plain_wave_step_f32 in plain.cu and of stoch_gpu::reference::wave_step.
// The random stream of point p is (seed, p).
#include "stochastic.cuh"

#define WAVE_C0 (-8.5416666666666667f) /* 3 * a0, a0 = -205/72 */
#define WAVE_A1 (1.6f)
#define WAVE_A2 (-0.2f)
#define WAVE_A3 (0.025396825396825397f)
#define WAVE_A4 (-0.0017857142857142857f)

extern "C" __global__ void stoch_wave_step_f32(const stoch_float* u_prev, const stoch_float* u, stoch_float* u_next, const float* vel, int nx,
                                               int ny, int nz, unsigned long long seed) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    int k = blockIdx.z * blockDim.z + threadIdx.z;
    long long sx = 1, sy = nx, sz = (long long)nx * ny;
    long long p = i + sy * j + sz * k;
    stoch_init_at(seed, (unsigned long long)p);
    if (i >= nx || j >= ny || k >= nz) return;
    if (i < 4 || j < 4 || k < 4 || i >= nx - 4 || j >= ny - 4 || k >= nz - 4) {
        u_next[p] = stoch_float(0.0f);
        return;
    }
    const float a[5] = {WAVE_C0, WAVE_A1, WAVE_A2, WAVE_A3, WAVE_A4};
    stoch_float lap = u[p] * a[0];
#pragma unroll
    for (int l = 1; l <= 4; ++l) {
        stoch_float s = u[p + l * sx] + u[p - l * sx];
        s = s + u[p + l * sy];
        s = s + u[p - l * sy];
        s = s + u[p + l * sz];
        s = s + u[p - l * sz];
        lap = lap + s * a[l];
    }
    u_next[p] = (u[p] * 2.0f - u_prev[p]) + lap * vel[p];
}
