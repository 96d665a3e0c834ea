//! One operation rounded upward by the processor: MXCSR's rounding field set around the
//! instruction, then MXCSR's default word put back.
//!
//! Contract: each function returns the operation's result under the directed rounding IEEE 754
//! defines, for every input (overflow, underflow, subnormals, zeros' signs, NaN included), and
//! leaves MXCSR at its default word (rounding to nearest, every exception masked, no flush to
//! zero): the floating-point environment Rust code runs in, which the compiler assumes around
//! the assembly. Rounding down is rounding up negated, which the kernels get by flipping signs.

use core::arch::asm;
use core::arch::x86_64::{__m128, __m256d};

/// MXCSR's default word: every exception masked, rounding to nearest, no flush to zero.
pub(super) const MXCSR_DEFAULT: u32 = 0x1f80;

/// MXCSR rounding upward, to nearest and downward (bytes 0, 4 and 8), as the assembly reads them.
pub(super) const CSR: [u32; 4] = [
    MXCSR_DEFAULT | 0x4000,
    MXCSR_DEFAULT,
    MXCSR_DEFAULT | 0x2000,
    0,
];

/// [`CSR`] in memory.
static WORDS: [u32; 4] = CSR;

/// `$op` on four `f64` lanes rounded upward.
macro_rules! up_pd {
    ($name:ident, $op:literal, ($($x:ident),+)) => {
        #[doc = concat!("`", $op, "` on four `f64` lanes, rounded upward.")]
        ///
        /// # Safety
        ///
        /// The processor must have AVX (and FMA for a fused multiply-add).
        #[target_feature(enable = "avx")]
        #[inline]
        pub(super) unsafe fn $name($($x: __m256d),+) -> __m256d {
            let r: __m256d;
            // SAFETY: the processor has the instruction (the callers' contract); the assembly
            // reads `WORDS` and writes `r` and MXCSR, which it puts back.
            unsafe {
                asm!(
                    "vldmxcsr dword ptr [{w}]",
                    concat!($op, " {r}", $(", {", stringify!($x), "}"),+),
                    "vldmxcsr dword ptr [{w} + 4]",
                    $($x = in(ymm_reg) $x,)+
                    r = lateout(ymm_reg) r,
                    w = in(reg) &WORDS,
                    options(pure, readonly, nostack, preserves_flags),
                );
            }
            r
        }
    };
}

/// `$op` on four `f32` lanes rounded upward.
macro_rules! up_ps {
    ($name:ident, $op:literal, ($($x:ident),+)) => {
        #[doc = concat!("`", $op, "` on four `f32` lanes, rounded upward.")]
        ///
        /// # Safety
        ///
        /// The processor must have AVX (and FMA for a fused multiply-add).
        #[target_feature(enable = "avx")]
        #[inline]
        pub(super) unsafe fn $name($($x: __m128),+) -> __m128 {
            let r: __m128;
            // SAFETY: as for `f64`.
            unsafe {
                asm!(
                    "vldmxcsr dword ptr [{w}]",
                    concat!($op, " {r}", $(", {", stringify!($x), "}"),+),
                    "vldmxcsr dword ptr [{w} + 4]",
                    $($x = in(xmm_reg) $x,)+
                    r = lateout(xmm_reg) r,
                    w = in(reg) &WORDS,
                    options(pure, readonly, nostack, preserves_flags),
                );
            }
            r
        }
    };
}

up_pd!(div_pd, "vdivpd", (a, b));
up_ps!(div_ps, "vdivps", (a, b));

/// `a·b + c` on four `f64` lanes with one rounding, upward.
///
/// # Safety
///
/// The processor must have AVX and FMA.
#[target_feature(enable = "avx")]
#[inline]
pub(super) unsafe fn fma_pd(a: __m256d, b: __m256d, c: __m256d) -> __m256d {
    let mut r = a;
    // SAFETY: as in `add_pd`.
    unsafe {
        asm!(
            "vldmxcsr dword ptr [{w}]",
            "vfmadd213pd {r}, {b}, {c}",
            "vldmxcsr dword ptr [{w} + 4]",
            r = inout(ymm_reg) r,
            b = in(ymm_reg) b,
            c = in(ymm_reg) c,
            w = in(reg) &WORDS,
            options(pure, readonly, nostack, preserves_flags),
        );
    }
    r
}

/// The same on four `f32` lanes.
///
/// # Safety
///
/// The processor must have AVX and FMA.
#[target_feature(enable = "avx")]
#[inline]
pub(super) unsafe fn fma_ps(a: __m128, b: __m128, c: __m128) -> __m128 {
    let mut r = a;
    // SAFETY: as in `add_pd`.
    unsafe {
        asm!(
            "vldmxcsr dword ptr [{w}]",
            "vfmadd213ps {r}, {b}, {c}",
            "vldmxcsr dword ptr [{w} + 4]",
            r = inout(xmm_reg) r,
            b = in(xmm_reg) b,
            c = in(xmm_reg) c,
            w = in(reg) &WORDS,
            options(pure, readonly, nostack, preserves_flags),
        );
    }
    r
}
