// Host emulation of the repro suite's kernels (src/repro/kernels/*.cu) on top of stoch-gpu's
// shims (stoch-gpu/tests/emulation/shims.h); built and loaded by tests/gpu_suite_kernels.rs.
// Each emu_* function runs one launch with the launch shape of stoch::repro::gpu_kernels,
// thread after thread.
#include "shims.h"

#include "stoch_wave.cu"
#include "stoch_do_undo.cu"
#include "plain.cu"

static emu_dim3 grid_3d(int nx, int ny, int nz) { return {(unsigned)((nx + 31) / 32), (unsigned)((ny + 3) / 4), (unsigned)((nz + 1) / 2)}; }

extern "C" {
void emu_wave_step_f32(const stoch_float* u0, const stoch_float* u1, stoch_float* u2, const float* vel, int nx, int ny, int nz, unsigned long long seed) {
    emu_launch(grid_3d(nx, ny, nz), {32, 4, 2}, [&] { stoch_wave_step_f32(u0, u1, u2, vel, nx, ny, nz, seed); });
}
void emu_plain_wave_step_f32(const float* u0, const float* u1, float* u2, const float* vel, int nx, int ny, int nz) {
    emu_launch(grid_3d(nx, ny, nz), {32, 4, 2}, [&] { plain_wave_step_f32(u0, u1, u2, vel, nx, ny, nz); });
}
void emu_plain_matmul_f32(const float* a, const float* b, float* c, int n, int m, int k) {
    emu_launch({(unsigned)((m + 15) / 16), (unsigned)((n + 15) / 16), 1}, {16, 16, 1}, [&] { plain_matmul_f32(a, b, c, n, m, k); });
}
void emu_do_undo_f32(stoch_float* x, const stoch_float* y, int n, int m, int iters, int mode, unsigned long long seed) { EMU_1D(n, 256, stoch_do_undo_f32(x, y, n, m, iters, mode, seed)); }
void emu_do_undo_f64(stoch_double* x, const stoch_double* y, int n, int m, int iters, int mode, unsigned long long seed) { EMU_1D(n, 256, stoch_do_undo_f64(x, y, n, m, iters, mode, seed)); }
}
