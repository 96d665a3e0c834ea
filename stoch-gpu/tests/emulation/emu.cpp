// Host emulation of the shipped kernels (kernels/*.cu) on top of shims.h; built and loaded by
// tests/emulation.rs. Each emu_* function runs one launch, thread after thread.
#include "shims.h"

#include "stoch_ops.cu"
#include "stoch_matmul.cu"
#include "stoch_sum.cu"

extern "C" {
void emu_binary_f32(const stoch_float* a, const stoch_float* b, stoch_float* out, int n, int op, unsigned long long seed, int block) { EMU_1D(n, block, stoch_binary_f32(a, b, out, n, op, seed)); }
void emu_binary_f64(const stoch_double* a, const stoch_double* b, stoch_double* out, int n, int op, unsigned long long seed, int block) { EMU_1D(n, block, stoch_binary_f64(a, b, out, n, op, seed)); }
void emu_unary_f32(const stoch_float* a, stoch_float* out, int n, int op, unsigned long long seed, int block) { EMU_1D(n, block, stoch_unary_f32(a, out, n, op, seed)); }
void emu_unary_f64(const stoch_double* a, stoch_double* out, int n, int op, unsigned long long seed, int block) { EMU_1D(n, block, stoch_unary_f64(a, out, n, op, seed)); }
void emu_compare_f64(const stoch_double* a, const stoch_double* b, unsigned char* r, unsigned char* f, int n, int op, unsigned long long seed) { EMU_1D(n, 64, stoch_compare_f64(a, b, r, f, n, op, seed)); }
void emu_digits_f32(const stoch_float* a, int* d, unsigned char* z, int n) { EMU_1D(n, 64, stoch_digits_f32(a, d, z, n)); }
void emu_digits_f64(const stoch_double* a, int* d, unsigned char* z, int n) { EMU_1D(n, 64, stoch_digits_f64(a, d, z, n)); }
void emu_layout_probe(unsigned long long* out) { EMU_1D(1, 1, stoch_layout_probe(out)); }
void emu_matmul_f32(const stoch_float* a, const stoch_float* b, stoch_float* c, int n, int m, int k, unsigned long long seed, int bx, int by) {
    emu_launch({(unsigned)((m + bx - 1) / bx), (unsigned)((n + by - 1) / by), 1}, {(unsigned)bx, (unsigned)by, 1}, [&] { stoch_matmul_f32(a, b, c, n, m, k, seed); });
}
void emu_sum_partials_f32(const stoch_float* in, stoch_float* partial, long long n, long long chunk, int threads, unsigned long long seed) { EMU_1D(threads, 256, stoch_sum_partials_f32(in, partial, n, chunk, threads, seed)); }
void emu_sum_atomic_f32(const stoch_float* in, stoch_float* out, long long n, long long chunk, int threads, unsigned long long seed) { EMU_1D(threads, 256, stoch_sum_atomic_f32(in, out, n, chunk, threads, seed)); }
}
