//! The intrinsics kernels as functions with AVX2 and FMA, arrays in and out: what
//! `Kernels::path4` runs for the AVX2 path in a build with those features, and how the tests of
//! every build reach the kernels (a build without the features runs `super::asm` instead,
//! which inlines: docs/performance.md).

use core::arch::x86_64::*;

/// `f64` lanes as the two 128-bit halves the caller's SSE2 code holds them in.
#[inline(always)]
fn halves(a: [f64; 4]) -> [__m128d; 2] {
    // SAFETY: 32 bytes of plain data, in order.
    unsafe { core::mem::transmute::<[f64; 4], [__m128d; 2]>(a) }
}

/// The inverse of [`halves`].
#[inline(always)]
fn whole(h: [__m128d; 2]) -> [f64; 4] {
    // SAFETY: as above.
    unsafe { core::mem::transmute::<[__m128d; 2], [f64; 4]>(h) }
}

/// The halves joined in one register. Each half is read on its own (a volatile read,
/// which the compiler does not merge with the other): the caller passes them in memory,
/// written by two 16-byte stores, which one 32-byte load cannot take from the store buffer
/// (a stall on every call).
#[inline(always)]
unsafe fn join(h: &[__m128d; 2]) -> __m256d {
    // SAFETY: reads of two valid, aligned `__m128d`; AVX (the callers' target features).
    unsafe {
        let lo = core::ptr::read_volatile(&h[0]);
        let hi = core::ptr::read_volatile(&h[1]);
        _mm256_insertf128_pd::<1>(_mm256_castpd128_pd256(lo), hi)
    }
}

/// The register as two halves.
#[inline(always)]
unsafe fn split(v: __m256d) -> [__m128d; 2] {
    // SAFETY: AVX (the callers' target features).
    unsafe { [_mm256_castpd256_pd128(v), _mm256_extractf128_pd::<1>(v)] }
}

macro_rules! entry64 {
    ($name:ident, $inner:ident, ($($arg:ident),+)) => {
        /// The kernel of the same name with AVX2 and FMA enabled, on the halves of each
        /// operand.
        #[target_feature(enable = "avx2,fma")]
        unsafe fn $inner($($arg: [__m128d; 2],)+ dir: u32) -> [__m128d; 2] {
            // SAFETY: this function's target features are the kernel's.
            unsafe { split(super::$name($(join(&$arg),)+ dir)) }
        }

        /// The kernel of the same name, for a caller built without AVX2 and FMA.
        ///
        /// # Safety
        ///
        /// The processor must have AVX2 and FMA.
        #[inline(always)]
        pub(crate) unsafe fn $name($($arg: [f64; 4],)+ dir: u32) -> [f64; 4] {
            // SAFETY: the caller's contract.
            whole(unsafe { $inner($(halves($arg),)+ dir) })
        }
    };
}

macro_rules! entry32 {
    ($name:ident, ($($arg:ident),+)) => {
        /// The kernel of the same name, for a caller built without AVX2 and FMA (the tests).
        ///
        /// # Safety
        ///
        /// The processor must have AVX2 and FMA.
        #[target_feature(enable = "avx2,fma")]
        pub(crate) unsafe fn $name($($arg: [f32; 4],)+ dir: u32) -> [f32; 4] {
            // SAFETY: this function's target features are the kernel's.
            super::a32(unsafe { super::$name($(super::v32($arg),)+ dir) })
        }
    };
}

entry64!(add_f64, add_f64_halves, (a, b));
entry64!(mul_f64, mul_f64_halves, (a, b));
entry64!(div_f64, div_f64_halves, (a, b));
entry64!(fma_f64, fma_f64_halves, (a, b, c));
entry64!(sqrt_f64, sqrt_f64_halves, (a));
entry32!(add_f32, (a, b));
entry32!(mul_f32, (a, b));
entry32!(div_f32, (a, b));
entry32!(fma_f32, (a, b, c));
entry32!(sqrt_f32, (a));
