//! The four lanes of a value (x, y, z, flags) live in one vector register. Two AVX-512
//! instructions with embedded rounding (`vaddpd {ru-sae}` and `{rd-sae}`, and friends)
//! compute the samples rounded up (merged over the OR of the operands' flags lanes, for
//! lane 3) and down, and a mask register picks the downward lanes.
use core::arch::x86_64::*;

const RU: i32 = _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC;
const RD: i32 = _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC;
const SAMPLES: u8 = 0b0111;

/// Lanes rounded down for the two random bits.
const DOWN: [u8; 4] = [
    crate::runtime::rng::down_lanes(0),
    crate::runtime::rng::down_lanes(1),
    crate::runtime::rng::down_lanes(2),
    crate::runtime::rng::down_lanes(3),
];

use crate::arch::{L32, L64};

#[inline(always)]
fn v64(a: L64) -> __m512d {
    let m = a.0;
    // SAFETY: the upper half of the 512-bit register is never used (every operation is
    // masked to lanes 0-3).
    unsafe { _mm512_castpd256_pd512(m) }
}
#[inline(always)]
fn a64(v: __m512d) -> L64 {
    // SAFETY: AVX-512F is enabled.
    L64(unsafe { _mm512_castpd512_pd256(v) })
}
#[inline(always)]
fn v32(a: L32) -> __m512 {
    let m = a.0;
    // SAFETY: upper lanes are never used.
    unsafe { _mm512_castps128_ps512(m) }
}
#[inline(always)]
fn a32(v: __m512) -> L32 {
    // SAFETY: AVX-512F is enabled.
    L32(unsafe { _mm512_castps512_ps128(v) })
}
// The flags' OR runs at the value's own width (256 bits for `f64`, 128 for `f32`): only
// embedded rounding needs a 512-bit instruction, and a processor that splits those in two
// halves pays twice for each.

/// `a | b` on the four `f64` lanes, widened (the sum and product of a build without DQ and VL).
#[cfg(not(all(target_feature = "avx512dq", target_feature = "avx512vl")))]
#[inline(always)]
fn or64(a: L64, b: L64) -> __m512d {
    // SAFETY: as above.
    v64(L64(unsafe { _mm256_or_pd(a.0, b.0) }))
}
/// `a | b` on the four `f32` lanes, widened.
#[inline(always)]
fn or32(a: L32, b: L32) -> __m512 {
    // SAFETY: AVX-512F (so SSE) is enabled.
    v32(L32(unsafe { _mm_or_ps(a.0, b.0) }))
}
/// The lanes that round down for the direction word `dir` (lanes 0-2; a mask register).
#[inline(always)]
fn down(dir: u32) -> u8 {
    DOWN[crate::runtime::rng::dir_code(dir) as usize]
}

// `+`, `*`, `/` and the fused multiply-add round lanes 0-2 up over the flags lane (the OR
// of the operands', by merge-masking) and all lanes down, then take the downward lanes
// where `dir` says (a mask register): the compiler makes that a blend of the flags lane
// after the upward instruction and a merge-masked downward one. Before, they used the
// sign identity `RD(x) = −RU(−x)`, with a xor before and after one rounded instruction: a
// longer dependency chain. IEEE rounding is symmetric, so both
// give the same samples, signed zeros and overflows included.

/// A native build with DQ and VL runs an assembly kernel for the sum and the product
/// ([`rt512::add_f64_native`](super::asm512::add_f64_native)): both roundings, then the
/// upward samples and the downward ones picked bit by bit into the operands' OR, three
/// instructions from an operand to the result where the compiler makes the steps below,
/// however written, into an upward instruction, a blend and a merge-masked downward one
/// that waits for the blend (docs/performance.md).
#[inline(always)]
pub(crate) unsafe fn add_f64(a: L64, b: L64, dir: u32) -> L64 {
    #[cfg(all(target_feature = "avx512dq", target_feature = "avx512vl"))]
    {
        // SAFETY: the target has AVX-512F, DQ and VL (cfg).
        L64(unsafe { super::asm512::add_f64_native(a.0, b.0, dir) })
    }
    #[cfg(not(all(target_feature = "avx512dq", target_feature = "avx512vl")))]
    {
        let (x, y) = (v64(a), v64(b));
        // SAFETY: AVX-512F is enabled for this target (compile-time cfg).
        unsafe {
            let up = _mm512_mask_add_round_pd::<RU>(or64(a, b), SAMPLES, x, y);
            let dn = _mm512_add_round_pd::<RD>(x, y);
            a64(_mm512_mask_blend_pd(down(dir), up, dn))
        }
    }
}
/// As [`add_f64`].
#[inline(always)]
pub(crate) unsafe fn mul_f64(a: L64, b: L64, dir: u32) -> L64 {
    #[cfg(all(target_feature = "avx512dq", target_feature = "avx512vl"))]
    {
        // SAFETY: the target has AVX-512F, DQ and VL (cfg).
        L64(unsafe { super::asm512::mul_f64_native(a.0, b.0, dir) })
    }
    #[cfg(not(all(target_feature = "avx512dq", target_feature = "avx512vl")))]
    {
        let (x, y) = (v64(a), v64(b));
        // SAFETY: AVX-512F is enabled for this target.
        unsafe {
            let up = _mm512_mask_mul_round_pd::<RU>(or64(a, b), SAMPLES, x, y);
            let dn = _mm512_mul_round_pd::<RD>(x, y);
            a64(_mm512_mask_blend_pd(down(dir), up, dn))
        }
    }
}
#[inline(always)]
pub(crate) unsafe fn div_f64(a: L64, b: L64, dir: u32) -> L64 {
    // The AVX2 kernel: one 256-bit division and an exact remainder by FMA cost less than two
    // 512-bit divisions with embedded rounding (docs/performance.md).
    // SAFETY: AVX-512F implies AVX2 and FMA.
    L64(unsafe { super::avx2::div_f64(a.0, b.0, dir) })
}
#[inline(always)]
pub(crate) unsafe fn fma_f64(a: L64, b: L64, c: L64, dir: u32) -> L64 {
    let (x, y, z) = (v64(a), v64(b), v64(c));
    // SAFETY: AVX-512F is enabled for this target.
    unsafe {
        let flags = _mm256_or_pd(_mm256_or_pd(a.0, b.0), c.0);
        let up = _mm512_mask_fmadd_round_pd::<RU>(x, SAMPLES, y, z);
        let up = _mm512_mask_blend_pd(SAMPLES, _mm512_castpd256_pd512(flags), up);
        let dn = _mm512_fmadd_round_pd::<RD>(x, y, z);
        a64(_mm512_mask_blend_pd(down(dir), up, dn))
    }
}
#[inline(always)]
pub(crate) unsafe fn sqrt_f64(a: L64, dir: u32) -> L64 {
    // The AVX2 kernel, as for the quotient.
    // SAFETY: AVX-512F implies AVX2 and FMA.
    L64(unsafe { super::avx2::sqrt_f64(a.0, dir) })
}

/// A native build with DQ and VL runs the assembly kernel of the run-time path
/// (`rt512::kernel32_add`): two instructions from an operand to the result instead of
/// three. The compiler turns the same steps written with intrinsics (zero-masked sums and
/// a merge-masked ternary logic) back into four.
#[inline(always)]
pub(crate) unsafe fn add_f32(a: L32, b: L32, dir: u32) -> L32 {
    #[cfg(all(target_feature = "avx512dq", target_feature = "avx512vl"))]
    {
        crate::arch::lanes32(super::asm512::add_f32(
            crate::arch::unlanes32(a),
            crate::arch::unlanes32(b),
            dir,
        ))
    }
    #[cfg(not(all(target_feature = "avx512dq", target_feature = "avx512vl")))]
    {
        let (x, y) = (v32(a), v32(b));
        // SAFETY: AVX-512F is enabled for this target (compile-time cfg).
        unsafe {
            let up = _mm512_mask_add_round_ps::<RU>(or32(a, b), SAMPLES as u16, x, y);
            let dn = _mm512_add_round_ps::<RD>(x, y);
            a32(_mm512_mask_blend_ps(down(dir) as u16, up, dn))
        }
    }
}
#[inline(always)]
pub(crate) unsafe fn mul_f32(a: L32, b: L32, dir: u32) -> L32 {
    let (x, y) = (v32(a), v32(b));
    // SAFETY: AVX-512F is enabled for this target.
    unsafe {
        let up = _mm512_mask_mul_round_ps::<RU>(or32(a, b), SAMPLES as u16, x, y);
        let dn = _mm512_mul_round_ps::<RD>(x, y);
        a32(_mm512_mask_blend_ps(down(dir) as u16, up, dn))
    }
}
#[inline(always)]
pub(crate) unsafe fn div_f32(a: L32, b: L32, dir: u32) -> L32 {
    // The AVX2 kernel, as for `f64`.
    // SAFETY: AVX-512F implies AVX2 and FMA.
    L32(unsafe { super::avx2::div_f32(a.0, b.0, dir) })
}
#[inline(always)]
pub(crate) unsafe fn fma_f32(a: L32, b: L32, c: L32, dir: u32) -> L32 {
    let (x, y, z) = (v32(a), v32(b), v32(c));
    // SAFETY: AVX-512F is enabled for this target.
    unsafe {
        let flags = _mm_or_ps(_mm_or_ps(a.0, b.0), c.0);
        let up = _mm512_mask_fmadd_round_ps::<RU>(x, SAMPLES as u16, y, z);
        let up = _mm512_mask_blend_ps(SAMPLES as u16, _mm512_castps128_ps512(flags), up);
        let dn = _mm512_fmadd_round_ps::<RD>(x, y, z);
        a32(_mm512_mask_blend_ps(down(dir) as u16, up, dn))
    }
}
#[inline(always)]
pub(crate) unsafe fn sqrt_f32(a: L32, dir: u32) -> L32 {
    // The AVX2 kernel, as for `f64`.
    // SAFETY: AVX-512F implies AVX2 and FMA.
    L32(unsafe { super::avx2::sqrt_f32(a.0, dir) })
}
