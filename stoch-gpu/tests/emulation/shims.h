// Host emulation of the device code, shared part: the CUDA built-ins that kernels/stochastic.cuh
// and the kernels use, replaced by host code, and a launch that runs each thread of a grid one
// after another. The directed-rounding intrinsics switch the FPU rounding mode (fesetround), so
// every sample is rounded toward +inf or -inf exactly as on the GPU. Included by emu.cpp (the
// shipped kernels) and by the root package's tests/gpu_emulation/emu_suite.cpp (the repro
// suite's kernels); include the kernels after this file.
//
// This runs the header's logic (random bits, rounding choice, flags, digits, layout) where no
// GPU is available; it does not replace the GPU tests (CUDA's own math library, the real
// intrinsics, atomics, shared memory). Kernels that synchronise threads (the tree reduction)
// are not emulated.
#pragma once
#include <cfenv>
#include <cmath>
#include <math.h>
#include <cstring>
#include <algorithm>
#include <cstdlib>

#define __device__
#define __global__
#define __host__
#define __forceinline__ inline
#define __noinline__ __attribute__((noinline))
#define __shared__ static thread_local
#define __launch_bounds__(...)
#define __syncthreads() ((void)0)
#define __trap() std::abort()

struct emu_dim3 { unsigned int x, y, z; };
// Per host thread: the Rust test harness runs tests in parallel threads.
static thread_local emu_dim3 threadIdx = {0, 0, 0}, blockIdx = {0, 0, 0}, blockDim = {1, 1, 1}, gridDim = {1, 1, 1};
using std::max;
using std::min;

static inline int __float_as_int(float f) { int i; std::memcpy(&i, &f, 4); return i; }
static inline float __int_as_float(int i) { float f; std::memcpy(&f, &i, 4); return f; }
static inline long long __double_as_longlong(double d) { long long i; std::memcpy(&i, &d, 8); return i; }
static inline double __longlong_as_double(long long i) { double d; std::memcpy(&d, &i, 8); return d; }

#define EMU_ROUNDED(MODE, T, EXPR)                                                                        \
    {                                                                                                      \
        int old = std::fegetround();                                                                       \
        std::fesetround(MODE);                                                                             \
        volatile T r = (EXPR);                                                                             \
        std::fesetround(old);                                                                              \
        return r;                                                                                          \
    }
#define EMU_BIN(NAME, T, OP, MODE) static T NAME(T a, T b) { volatile T x = a, y = b; EMU_ROUNDED(MODE, T, x OP y) }
EMU_BIN(__fadd_ru, float, +, FE_UPWARD) EMU_BIN(__fadd_rd, float, +, FE_DOWNWARD)
EMU_BIN(__fsub_ru, float, -, FE_UPWARD) EMU_BIN(__fsub_rd, float, -, FE_DOWNWARD)
EMU_BIN(__fmul_ru, float, *, FE_UPWARD) EMU_BIN(__fmul_rd, float, *, FE_DOWNWARD)
EMU_BIN(__fdiv_ru, float, /, FE_UPWARD) EMU_BIN(__fdiv_rd, float, /, FE_DOWNWARD)
EMU_BIN(__dadd_ru, double, +, FE_UPWARD) EMU_BIN(__dadd_rd, double, +, FE_DOWNWARD)
EMU_BIN(__dsub_ru, double, -, FE_UPWARD) EMU_BIN(__dsub_rd, double, -, FE_DOWNWARD)
EMU_BIN(__dmul_ru, double, *, FE_UPWARD) EMU_BIN(__dmul_rd, double, *, FE_DOWNWARD)
EMU_BIN(__ddiv_ru, double, /, FE_UPWARD) EMU_BIN(__ddiv_rd, double, /, FE_DOWNWARD)
static float __fsqrt_ru(float a) { volatile float x = a; EMU_ROUNDED(FE_UPWARD, float, sqrtf(x)) }
static float __fsqrt_rd(float a) { volatile float x = a; EMU_ROUNDED(FE_DOWNWARD, float, sqrtf(x)) }
static double __dsqrt_ru(double a) { volatile double x = a; EMU_ROUNDED(FE_UPWARD, double, sqrt(x)) }
static double __dsqrt_rd(double a) { volatile double x = a; EMU_ROUNDED(FE_DOWNWARD, double, sqrt(x)) }
static float __fmaf_ru(float a, float b, float c) { volatile float x = a, y = b, z = c; EMU_ROUNDED(FE_UPWARD, float, fmaf(x, y, z)) }
static float __fmaf_rd(float a, float b, float c) { volatile float x = a, y = b, z = c; EMU_ROUNDED(FE_DOWNWARD, float, fmaf(x, y, z)) }
static double __fma_ru(double a, double b, double c) { volatile double x = a, y = b, z = c; EMU_ROUNDED(FE_UPWARD, double, fma(x, y, z)) }
static double __fma_rd(double a, double b, double c) { volatile double x = a, y = b, z = c; EMU_ROUNDED(FE_DOWNWARD, double, fma(x, y, z)) }

static int atomicCAS(int* p, int cmp, int v) { int old = *p; if (old == cmp) *p = v; return old; }
static unsigned long long atomicCAS(unsigned long long* p, unsigned long long cmp, unsigned long long v) {
    unsigned long long old = *p; if (old == cmp) *p = v; return old;
}
static unsigned int atomicOr(unsigned int* p, unsigned int v) { unsigned int old = *p; *p |= v; return old; }

// Run `body` once per thread of a grid x block launch, thread after thread.
template <class F> static void emu_launch(emu_dim3 grid, emu_dim3 block, F body) {
    gridDim = grid;
    blockDim = block;
    for (unsigned bz = 0; bz < grid.z; ++bz)
        for (unsigned by = 0; by < grid.y; ++by)
            for (unsigned bx = 0; bx < grid.x; ++bx)
                for (unsigned tz = 0; tz < block.z; ++tz)
                    for (unsigned ty = 0; ty < block.y; ++ty)
                        for (unsigned tx = 0; tx < block.x; ++tx) {
                            blockIdx = {bx, by, bz};
                            threadIdx = {tx, ty, tz};
                            body();
                        }
}
static emu_dim3 blocks_for(int n, int block) { return {(unsigned)((n + block - 1) / block), 1, 1}; }

#define EMU_1D(N, BLOCK, CALL) emu_launch(blocks_for(N, BLOCK), {(unsigned)(BLOCK), 1, 1}, [&] { CALL; })

