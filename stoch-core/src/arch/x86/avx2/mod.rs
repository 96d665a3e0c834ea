//! The AVX2 + FMA path (dispatched on x86-64 without AVX-512; compiled wherever AVX2 and FMA
//! are, so that tests check it there too): every operation on the four lanes of a value in one
//! vector register, branch-free. An error-free transformation gives the sign of each lane's
//! error: two Fast2Sum comparisons for `+`, the exact product error by FMA for `*`, the exact
//! remainder by FMA for `/` and `sqrt`, Boldo and Muller's ErrFma for `mul_add` (`f32`'s
//! `mul_add` computes in `f64`, where its terms are exact). A per-lane mask of the random
//! directions then moves each sample one unit toward +∞ or −∞ by integer arithmetic on its
//! bits, as the portable path does one sample at a time. Operands or results in the rare
//! ranges the vector code does not cover (overflow, non-finite values, error terms that could
//! underflow) are detected with one mask test, a branch that predicts well, and go to the
//! portable path; the sums have none. An `f32` product, quotient or root of finite operands
//! takes the `f64` form of its error there instead, exact whatever the samples' size: tiny
//! values are not rare in `f32` code.

use core::arch::x86_64::*;

use super::{a32, v32};

use crate::arch::portable::lanes4 as portable;
use crate::runtime::rng::row_offset;

/// The sign bit in the lanes of the samples that round down, for the two random bits `dir`:
/// bit 0 for `x`, bit 1 for `y`, `z` the opposite of `y`; the flags lane never has it.
static DSIGN64: [[u64; 4]; 4] = {
    const fn lane(on: bool) -> u64 {
        if on {
            1 << 63
        } else {
            0
        }
    }
    let mut t = [[0u64; 4]; 4];
    let mut d = 0;
    while d < 4 {
        t[d] = [lane(d & 1 != 0), lane(d & 2 != 0), lane(d & 2 == 0), 0];
        d += 1;
    }
    t
};

/// The same for `f32` lanes, rows padded to 32 bytes (see [`super::row`]).
static DSIGN32: [[u32; 8]; 4] = {
    const fn lane(on: bool) -> u32 {
        if on {
            1 << 31
        } else {
            0
        }
    }
    let mut t = [[0u32; 8]; 4];
    let mut d = 0;
    while d < 4 {
        t[d] = [
            lane(d & 1 != 0),
            lane(d & 2 != 0),
            lane(d & 2 == 0),
            0,
            0,
            0,
            0,
            0,
        ];
        d += 1;
    }
    t
};

/// Only the three sample lanes of a `movemask`.
const SAMPLES: i32 = 0b0111;

#[inline(always)]
unsafe fn dsign64(dir: u32) -> __m256d {
    // SAFETY: a row of the table is 32 bytes, read unaligned.
    unsafe { _mm256_loadu_pd(row(&DSIGN64, dir).as_ptr().cast()) }
}

#[inline(always)]
unsafe fn dsign32(dir: u32) -> __m128 {
    // SAFETY: as above, the first 16 bytes of a row.
    unsafe { _mm_loadu_ps(row(&DSIGN32, dir).as_ptr().cast()) }
}

/// The lanes (all ones) where the exact result lies beyond `s` the way each sample rounds:
/// where the error `e` (the exact result minus `s`, or any value of its sign, not NaN), its
/// sign flipped in the lanes that round down (`dsign`), is positive, by an integer comparison:
/// the bits of a positive float are a positive integer, and those of a zero with either sign
/// are not. The flags lane, compared with the largest integer, never moves, so that the
/// kernels can put the flags in before the step, off the error's path.
#[inline(always)]
unsafe fn beyond64_num(e: __m256d, dsign: __m256d) -> __m256d {
    // SAFETY: AVX2.
    unsafe {
        _mm256_castsi256_pd(_mm256_cmpgt_epi64(
            _mm256_castpd_si256(_mm256_xor_pd(e, dsign)),
            _mm256_setr_epi64x(0, 0, 0, i64::MAX),
        ))
    }
}

/// The same on `f32` lanes.
#[inline(always)]
unsafe fn beyond32_num(e: __m128, dsign: __m128) -> __m128i {
    // SAFETY: SSE2.
    unsafe {
        _mm_cmpgt_epi32(
            _mm_castps_si128(_mm_xor_ps(e, dsign)),
            _mm_setr_epi32(0, 0, 0, i32::MAX),
        )
    }
}

/// `s` moved one unit in the lanes of `beyond` (never the flags lane): toward −∞ in the lanes
/// that round down (`dsign`), toward +∞ in the others.
#[inline(always)]
unsafe fn step64(s: __m256d, beyond: __m256d, dsign: __m256d) -> __m256d {
    // SAFETY: for all intrinsics below, the target has AVX2 (checked at compile time).
    unsafe {
        let bits = _mm256_castpd_si256(s);
        // One unit toward +∞ is +1 on the bits of a positive value and −1 on a negative
        // one, and the reverse toward −∞: −1 (all ones) where the sign of `s` and the
        // direction differ, +1 elsewhere.
        let differ = _mm256_cmpgt_epi64(
            _mm256_setzero_si256(),
            _mm256_xor_si256(bits, _mm256_castpd_si256(dsign)),
        );
        let toward = _mm256_or_si256(differ, _mm256_set1_epi64x(1));
        let step = _mm256_and_si256(toward, _mm256_castpd_si256(beyond));
        _mm256_castsi256_pd(_mm256_add_epi64(bits, step))
    }
}

/// The unit step (+1 or −1 on the bits) of a result whose sign is that of `t` XOR the
/// lanes that round down (`t` carries both), toward +∞ in the up lanes and −∞ in the down
/// ones; 0 where `z` is ±0 (an exact zero result), NaN, and in the flags lane: the division's
/// and the square root's neighbour of their result (their quotient's or root's sign is known
/// from the operands before the result is, which keeps the step off the result's path).
#[inline(always)]
unsafe fn toward64(t: __m256d, z: __m256d) -> __m256i {
    // SAFETY: AVX2.
    unsafe {
        let toward = _mm256_or_si256(
            _mm256_cmpgt_epi64(_mm256_setzero_si256(), _mm256_castpd_si256(t)),
            _mm256_set1_epi64x(1),
        );
        let exact = _mm256_cmp_pd::<_CMP_EQ_UQ>(z, _mm256_setr_pd(0.0, 0.0, 0.0, f64::NAN));
        _mm256_andnot_si256(_mm256_castpd_si256(exact), toward)
    }
}

/// `n` where the sign of `m` is set, `q` elsewhere. With AVX-512 (VL) by an arithmetic shift
/// and a bitwise select, where the compiler's form of the blend (`vpmovq2m` and a masked move)
/// took about a cycle more (docs/performance.md).
#[inline(always)]
unsafe fn pick64(q: __m256d, n: __m256d, m: __m256d) -> __m256d {
    #[cfg(all(target_feature = "avx512f", target_feature = "avx512vl"))]
    // SAFETY: AVX-512F and VL (cfg).
    unsafe {
        let mask = _mm256_srai_epi64::<63>(_mm256_castpd_si256(m));
        _mm256_castsi256_pd(_mm256_ternarylogic_epi64::<0xca>(
            mask,
            _mm256_castpd_si256(n),
            _mm256_castpd_si256(q),
        ))
    }
    #[cfg(not(all(target_feature = "avx512f", target_feature = "avx512vl")))]
    // SAFETY: AVX.
    unsafe {
        _mm256_blendv_pd(q, n, m)
    }
}

/// The same on `f32` lanes.
#[inline(always)]
unsafe fn pick32(q: __m128, n: __m128, m: __m128) -> __m128 {
    #[cfg(all(target_feature = "avx512f", target_feature = "avx512vl"))]
    // SAFETY: AVX-512F and VL (cfg).
    unsafe {
        let mask = _mm_srai_epi32::<31>(_mm_castps_si128(m));
        _mm_castsi128_ps(_mm_ternarylogic_epi32::<0xca>(
            mask,
            _mm_castps_si128(n),
            _mm_castps_si128(q),
        ))
    }
    #[cfg(not(all(target_feature = "avx512f", target_feature = "avx512vl")))]
    // SAFETY: SSE4.1.
    unsafe {
        _mm_blendv_ps(q, n, m)
    }
}

/// The same on `f32` lanes.
#[inline(always)]
unsafe fn toward32(t: __m128, z: __m128) -> __m128i {
    // SAFETY: SSE2.
    unsafe {
        let toward = _mm_or_si128(_mm_srai_epi32::<31>(_mm_castps_si128(t)), _mm_set1_epi32(1));
        let exact = _mm_cmp_ps::<_CMP_EQ_UQ>(z, _mm_setr_ps(0.0, 0.0, 0.0, f32::NAN));
        _mm_andnot_si128(_mm_castps_si128(exact), toward)
    }
}

/// The same on `f32` lanes.
#[inline(always)]
unsafe fn step32(s: __m128, beyond: __m128i, dsign: __m128) -> __m128 {
    // SAFETY: for all intrinsics below, the target has AVX2.
    unsafe {
        let bits = _mm_castps_si128(s);
        // As for `f64`; the sign mask by an arithmetic shift.
        let differ = _mm_srai_epi32::<31>(_mm_xor_si128(bits, _mm_castps_si128(dsign)));
        let toward = _mm_or_si128(differ, _mm_set1_epi32(1));
        _mm_castsi128_ps(_mm_add_epi32(bits, _mm_and_si128(toward, beyond)))
    }
}

/// `s` moved one unit toward +∞ in the lanes of `beyond` (+1 on the bits of a positive value,
/// −1 on a negative one), never in the flags lane, whose step is 0: the kernels put the flags
/// in before the step, off the path of `beyond`.
#[inline(always)]
unsafe fn step_up64(s: __m256d, beyond: __m256d) -> __m256d {
    // SAFETY: AVX2.
    unsafe {
        let bits = _mm256_castpd_si256(s);
        let negative = _mm256_cmpgt_epi64(_mm256_setzero_si256(), bits);
        let toward = _mm256_and_si256(
            _mm256_or_si256(negative, _mm256_set1_epi64x(1)),
            _mm256_setr_epi64x(-1, -1, -1, 0),
        );
        let next = _mm256_castsi256_pd(_mm256_add_epi64(bits, toward));
        blendv64(s, next, beyond)
    }
}

/// `b` in the lanes where the sign bit of `mask` is set, `a` in the others: one `vblendvpd`.
/// The compiler turns the intrinsic's choice between `s` and its neighbour into an AND with
/// the step and an addition after a comparison, two more instructions on a running sum's wait
/// (the `f32` form keeps its `vblendvps`). A function with the feature of its own, as the
/// intrinsics are: a crate that instantiates the operators without AVX (a doctest, which
/// `rustdocflags` build) calls it, a caller with AVX inlines it.
#[target_feature(enable = "avx")]
#[inline]
unsafe fn blendv64(a: __m256d, b: __m256d, mask: __m256d) -> __m256d {
    let r;
    // SAFETY: AVX is enabled for this function; the instruction reads registers only.
    unsafe {
        core::arch::asm!(
            "vblendvpd {r}, {a}, {b}, {m}",
            r = lateout(ymm_reg) r,
            a = in(ymm_reg) a,
            b = in(ymm_reg) b,
            m = in(ymm_reg) mask,
            options(pure, nomem, nostack, preserves_flags),
        );
    }
    r
}

/// The same on `f32` lanes.
#[inline(always)]
unsafe fn step_up32(s: __m128, beyond: __m128i) -> __m128 {
    // SAFETY: SSE4.1.
    unsafe {
        let bits = _mm_castps_si128(s);
        let toward = _mm_and_si128(
            _mm_or_si128(_mm_srai_epi32::<31>(bits), _mm_set1_epi32(1)),
            _mm_setr_epi32(-1, -1, -1, 0),
        );
        let next = _mm_castsi128_ps(_mm_add_epi32(bits, toward));
        _mm_blendv_ps(s, next, _mm_castsi128_ps(beyond))
    }
}

#[inline(always)]
unsafe fn abs64(v: __m256d) -> __m256d {
    // SAFETY: AVX.
    unsafe { _mm256_andnot_pd(_mm256_set1_pd(-0.0), v) }
}

#[inline(always)]
unsafe fn abs32(v: __m128) -> __m128 {
    // SAFETY: SSE.
    unsafe { _mm_andnot_ps(_mm_set1_ps(-0.0), v) }
}

/// The result lanes with the flags lane replaced by the OR of the operands' flags lanes.
#[inline(always)]
unsafe fn with_flags64(r: __m256d, a: __m256d, b: __m256d) -> __m256d {
    // SAFETY: AVX.
    unsafe { _mm256_blend_pd::<0b1000>(r, _mm256_or_pd(a, b)) }
}

#[inline(always)]
unsafe fn with_flags32(r: __m128, a: __m128, b: __m128) -> __m128 {
    // SAFETY: SSE4.1.
    unsafe { _mm_blend_ps::<0b1000>(r, _mm_or_ps(a, b)) }
}

/// Marks the branch that calls it, to a rare operand's portable path, as the unlikely one.
#[cold]
#[inline(always)]
fn rare() {}

/// `f(&args)`: the portable path for the rare operands, out of line through the trampoline of
/// the checks' slow paths ([`crate::runtime::cold`]), which keeps every register. Through a
/// plain call, which may change every vector register, the compiler kept a loop's pointers
/// and constants in memory around the kernel, in the common case too (docs/performance.md).
#[inline(always)]
fn slow<A, O>(args: A, f: fn(&A) -> O) -> O {
    rare();
    crate::runtime::cold::run(args, f)
}

/// [`slow`] for the binary `f64` kernels.
#[inline(always)]
fn slow64(
    op: fn([f64; 4], [f64; 4], u32) -> [f64; 4],
    a: __m256d,
    b: __m256d,
    dir: u32,
) -> __m256d {
    from64(slow((op, to64(a), to64(b), dir), |c| (c.0)(c.1, c.2, c.3)))
}

/// An `f32` answer of [`slow`], taken into a register by an empty assembly block. Returned in
/// memory, the compiler copied it into the caller's running sum with a block copy, after
/// which it kept the sum in memory in the whole loop: a store and a reload on the chain of
/// every addition (docs/performance.md).
#[inline(always)]
fn in_register(a: [f32; 4]) -> __m128 {
    let mut r = v32(a);
    // SAFETY: an empty template that only names the register; it reads and writes nothing.
    unsafe {
        core::arch::asm!(
            "/* {r} */",
            r = inout(xmm_reg) r,
            options(pure, nomem, nostack, preserves_flags)
        );
    }
    r
}

/// [`slow`] for the binary `f32` kernels.
#[inline(always)]
fn slow32(op: fn([f32; 4], [f32; 4], u32) -> [f32; 4], a: __m128, b: __m128, dir: u32) -> __m128 {
    in_register(slow((op, a32(a), a32(b), dir), |c| (c.0)(c.1, c.2, c.3)))
}

/// TwoSum on four lanes: `a + b = s + e` exactly (finite lanes, no overflow).
#[inline(always)]
unsafe fn two_sum64(a: __m256d, b: __m256d) -> (__m256d, __m256d) {
    // SAFETY: AVX.
    unsafe {
        let s = _mm256_add_pd(a, b);
        let bb = _mm256_sub_pd(s, a);
        let e = _mm256_add_pd(_mm256_sub_pd(a, _mm256_sub_pd(s, bb)), _mm256_sub_pd(b, bb));
        (s, e)
    }
}

/// 2^1000: below it, TwoSums of the `f64` fused multiply-add cannot overflow.
const TWO_1000: f64 = 1.0715086071862673e301;

/// `a + b`, randomly rounded. Rounding down is rounding up negated: the operands' signs are
/// flipped in the lanes that round down, every lane rounds up, and the sum's sign is flipped
/// back, which also gives an exact zero sum rounded down its sign (−0 unless both operands
/// are +0, IEEE 754 §6.3) with no test.
///
/// Rounding up moves `s = RN(a + b)` one unit up where `s < a + b`, that is where
/// `RN(s − a) < b` or `RN(s − b) < a`: Fast2Sum makes the first exact where |a| ≥ |b| and the
/// second where |b| ≥ |a|, and neither can hold wrongly (rounding is monotonic: `s − a ≥ b`
/// gives `RN(s − a) ≥ b`). Two comparisons in place of the error and a choice between its two
/// forms: fewer instructions, and a shorter wait for a running sum (docs/performance.md).
///
/// No operand is rare. Overflow: `s = +∞` never moves (no `RN(s − x)` is below a finite or
/// infinite `y`), which is right upward; `s = −∞` from finite operands moves to −MAX, the sum
/// rounded upward. An infinite or NaN operand: `s` is the IEEE sum, and every comparison with
/// a NaN difference or an equal infinity is false, so it does not move.
#[inline(always)]
pub(crate) unsafe fn add_f64(va: __m256d, vb: __m256d, dir: u32) -> __m256d {
    // SAFETY: for all intrinsics below, the caller has AVX2 and FMA.
    unsafe {
        let dsign = dsign64(dir);
        let (a, b) = (_mm256_xor_pd(va, dsign), _mm256_xor_pd(vb, dsign));
        let s = _mm256_add_pd(a, b);
        let below = _mm256_or_pd(
            _mm256_cmp_pd::<_CMP_LT_OQ>(_mm256_sub_pd(s, a), b),
            _mm256_cmp_pd::<_CMP_LT_OQ>(_mm256_sub_pd(s, b), a),
        );
        let up = step_up64(with_flags64(s, va, vb), below);
        _mm256_xor_pd(up, dsign)
    }
}

/// The lanes of `v` whose magnitude lies outside `[2^-969, +∞)` (all ones): one integer
/// comparison, the unsigned range test on the magnitude's bits as a signed one (its bias
/// folded into one addition), made the way that gives the rare lanes, so that the test of the
/// mask needs no negation. Outside lie the non-finite values and those whose product or
/// quotient error term could underflow.
#[inline(always)]
unsafe fn outside_range64(v: __m256d) -> __m256d {
    use crate::runtime::tables::{vector, TABLES};
    let c = &TABLES.vec64;
    // SAFETY: AVX2. The constants are read from memory (`Vec64`).
    unsafe {
        let magnitude = _mm256_and_pd(v, vector(&c.abs));
        let u = _mm256_add_epi64(
            _mm256_castpd_si256(magnitude),
            _mm256_castpd_si256(vector(&c.range[0])),
        );
        _mm256_castsi256_pd(_mm256_cmpgt_epi64(
            u,
            _mm256_castpd_si256(vector(&c.range[1])),
        ))
    }
}

/// `a · b`, randomly rounded.
#[inline(always)]
pub(crate) unsafe fn mul_f64(va: __m256d, vb: __m256d, dir: u32) -> __m256d {
    // SAFETY: the caller's.
    unsafe { mul_f64_ranged(va, vb, dir).0 }
}

/// [`mul_f64`], and whether a sample took the portable path: a product outside the normal
/// range, where a sample may lie further than one unit in the last place from the exact
/// product (the checks' pre-test on the operands, `ops::arith`, does not cover it).
#[inline(always)]
pub(crate) unsafe fn mul_f64_ranged(va: __m256d, vb: __m256d, dir: u32) -> (__m256d, bool) {
    // SAFETY: for all intrinsics below, the caller has AVX2 and FMA.
    unsafe {
        let p = _mm256_mul_pd(va, vb);
        // Rare lanes: a product that is not finite, or one so small (|p| < 2^-969) that the
        // FMA's error term could underflow, unless an operand is zero (then p is an exact
        // zero of the right sign and the error is 0): that second test runs only where the
        // first finds such a lane.
        let out = outside_range64(p);
        if _mm256_movemask_pd(out) & SAMPLES != 0 {
            let zero = _mm256_setzero_pd();
            let exact_zero = _mm256_and_pd(
                _mm256_cmp_pd::<_CMP_EQ_OQ>(p, zero),
                _mm256_or_pd(
                    _mm256_cmp_pd::<_CMP_EQ_OQ>(va, zero),
                    _mm256_cmp_pd::<_CMP_EQ_OQ>(vb, zero),
                ),
            );
            if _mm256_movemask_pd(_mm256_andnot_pd(exact_zero, out)) & SAMPLES != 0 {
                return (slow64(portable::mul, va, vb, dir), true);
            }
        }
        let e = _mm256_fmsub_pd(va, vb, p);
        let dsign = dsign64(dir);
        (
            step64(with_flags64(p, va, vb), beyond64_num(e, dsign), dsign),
            false,
        )
    }
}

/// `a + b`, randomly rounded, as for `f64`.
#[inline(always)]
pub(crate) unsafe fn add_f32(va: __m128, vb: __m128, dir: u32) -> __m128 {
    // SAFETY: for all intrinsics below, the caller has AVX2.
    unsafe {
        let dsign = dsign32(dir);
        let (a, b) = (_mm_xor_ps(va, dsign), _mm_xor_ps(vb, dsign));
        let s = _mm_add_ps(a, b);
        let below = _mm_or_ps(
            _mm_cmp_ps::<_CMP_LT_OQ>(_mm_sub_ps(s, a), b),
            _mm_cmp_ps::<_CMP_LT_OQ>(_mm_sub_ps(s, b), a),
        );
        let up = step_up32(with_flags32(s, va, vb), _mm_castps_si128(below));
        _mm_xor_ps(up, dsign)
    }
}

/// The lanes (all ones) whose magnitude lies outside `[2^LO_EXP, +∞)` on `f32` lanes, as
/// [`outside_range64`] for `f64` (one integer addition and comparison); NaN lies outside.
#[inline(always)]
unsafe fn outside32<const LO_EXP: i32>(v: __m128) -> __m128i {
    let lo: u32 = ((127 + LO_EXP) as u32) << 23;
    let hi: u32 = f32::INFINITY.to_bits();
    let bias = (1u32 << 31).wrapping_sub(lo);
    let last = (hi.wrapping_sub(lo) ^ (1 << 31)).wrapping_sub(1);
    // SAFETY: SSE2.
    unsafe {
        let u = _mm_add_epi32(_mm_castps_si128(abs32(v)), _mm_set1_epi32(bias as i32));
        _mm_cmpgt_epi32(u, _mm_set1_epi32(last as i32))
    }
}

/// `a · b`, randomly rounded: the product error `a·b − p` is exact by one FMA unless the
/// product is below 2^-100 (the error term could underflow) or not finite. In `f32`: widening
/// to `f64` put two conversions and a narrowing on the product's path (docs/performance.md),
/// so only those rare products take it ([`tiny_mul32`]).
#[inline(always)]
pub(crate) unsafe fn mul_f32(va: __m128, vb: __m128, dir: u32) -> __m128 {
    // SAFETY: the caller's.
    unsafe { mul_f32_ranged(va, vb, dir).0 }
}

/// [`mul_f32`], and whether a sample's product is outside the normal range (below 2^-126 or
/// not finite) and not an exact zero: there it may lie further than one unit in the last place
/// from the exact product (as for [`mul_f64_ranged`]). Tested on the tiny products' path only.
#[inline(always)]
pub(crate) unsafe fn mul_f32_ranged(va: __m128, vb: __m128, dir: u32) -> (__m128, bool) {
    // SAFETY: for all intrinsics below, the caller has AVX2 and FMA.
    unsafe {
        let p = _mm_mul_ps(va, vb);
        let out = outside32::<-100>(p);
        if _mm_movemask_ps(_mm_castsi128_ps(out)) & SAMPLES != 0 {
            rare();
            return (tiny_mul32(va, vb, p, dir), product_subnormal32(p, va, vb));
        }
        let e = _mm_fmsub_ps(va, vb, p);
        let dsign = dsign32(dir);
        (
            step32(with_flags32(p, va, vb), beyond32_num(e, dsign), dsign),
            false,
        )
    }
}

/// Whether a sample lane of the `f32` result `r` is below 2^-126 or not finite, but for the
/// lanes of `exact` (exact zeros, all ones): there a randomly rounded result may lie further
/// than a unit from the exact one. SSE2 only, for the run-time kernels (`asm`) too.
#[inline(always)]
unsafe fn subnormal32(r: __m128, exact: __m128) -> bool {
    // SAFETY: SSE2.
    unsafe {
        let out = _mm_andnot_ps(exact, _mm_castsi128_ps(outside32::<-126>(r)));
        _mm_movemask_ps(out) & SAMPLES != 0
    }
}

/// [`subnormal32`] of the product `p` of `va` and `vb`, whose exact lanes are those with a zero
/// operand. SSE2 only, as that.
#[inline(always)]
unsafe fn product_subnormal32(p: __m128, va: __m128, vb: __m128) -> bool {
    // SAFETY: SSE2.
    unsafe {
        let zero = _mm_setzero_ps();
        subnormal32(p, _mm_or_ps(_mm_cmpeq_ps(va, zero), _mm_cmpeq_ps(vb, zero)))
    }
}

/// Whether every sample lane of `v` is finite.
#[inline(always)]
unsafe fn finite32(v: __m128) -> bool {
    // SAFETY: SSE.
    unsafe {
        let lt = _mm_cmp_ps::<_CMP_LT_OQ>(abs32(v), _mm_set1_ps(f32::INFINITY));
        _mm_movemask_ps(lt) & SAMPLES == SAMPLES
    }
}

/// The `f32` result `r` (its flags lane in) moved one unit where its error, the `f64` lanes
/// `e` (exact, of the error's sign), points the way `dir` draws: the tiny operands' step.
#[inline(always)]
unsafe fn step32_wide(r: __m128, e: __m256d, dir: u32) -> __m128 {
    // SAFETY: AVX2.
    unsafe { step32(r, narrow(beyond64_num(e, dsign64(dir))), dsign32(dir)) }
}

/// `p = RN(a·b)` randomly rounded where some lane is out of [`mul_f32`]'s range: with finite
/// operands, in `f64`, where the product of two `f32` samples and its error `a·b − p` are exact
/// whatever their size (below 2^-100, subnormal, underflowed to zero, or overflowed to ±∞);
/// the portable path only for an operand that is not finite. Products of tiny values are not
/// rare in `f32` code: a decaying field, or physical constants in SI units.
#[inline(always)]
unsafe fn tiny_mul32(va: __m128, vb: __m128, p: __m128, dir: u32) -> __m128 {
    // SAFETY: for all intrinsics below, the caller has AVX2 and FMA.
    unsafe {
        if !(finite32(va) && finite32(vb)) {
            return slow32(portable::mul, va, vb, dir);
        }
        let e = _mm256_fmsub_pd(_mm256_cvtps_pd(va), _mm256_cvtps_pd(vb), _mm256_cvtps_pd(p));
        step32_wide(with_flags32(p, va, vb), e, dir)
    }
}

/// 64-bit lane masks narrowed to 32-bit lanes: the low half of each, in order.
#[inline(always)]
unsafe fn narrow(m: __m256d) -> __m128i {
    // SAFETY: AVX2.
    unsafe {
        _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(
            _mm256_castpd_si256(m),
            _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6),
        ))
    }
}

/// The sign bit of each lane of `v`.
#[inline(always)]
unsafe fn sign64(v: __m256d) -> __m256d {
    // SAFETY: AVX.
    unsafe { _mm256_and_pd(v, _mm256_set1_pd(-0.0)) }
}

/// `a / b`, randomly rounded. The remainder `a − q·b` of `q = RN(a/b)` is exact by one FMA
/// and has the sign of the error times the sign of `b`.
#[inline(always)]
pub(crate) unsafe fn div_f64(va: __m256d, vb: __m256d, dir: u32) -> __m256d {
    // SAFETY: the caller's.
    unsafe { div_f64_ranged(va, vb, dir).0 }
}

/// [`div_f64`], and whether a sample took the portable path (as for [`mul_f64_ranged`]).
#[inline(always)]
pub(crate) unsafe fn div_f64_ranged(va: __m256d, vb: __m256d, dir: u32) -> (__m256d, bool) {
    // SAFETY: for all intrinsics below, the caller has AVX2 and FMA.
    unsafe {
        let q = _mm256_div_pd(va, vb);
        // Rare lanes: a quotient that is not finite (an operand not finite, division by zero,
        // overflow), or a quotient or dividend below 2^-969 (the remainder could underflow)
        // unless the dividend is zero (then q is an exact signed zero). An infinite divisor
        // with a finite dividend gives q = 0: a zero dividend leaves the remainder NaN, which
        // moves nothing (right: the quotient is exact), any other is tiny. A huge dividend
        // needs no test: the FMA forms q·b exactly, with no intermediate overflow.
        let zero = _mm256_setzero_pd();
        let tiny = _mm256_andnot_pd(
            _mm256_cmp_pd::<_CMP_EQ_OQ>(va, zero),
            _mm256_cmp_pd::<_CMP_LT_OQ>(
                _mm256_min_pd(abs64(q), abs64(va)),
                _mm256_set1_pd(crate::arch::portable::TWO_M969),
            ),
        );
        let bad = _mm256_or_pd(
            tiny,
            _mm256_cmp_pd::<_CMP_NLT_UQ>(abs64(q), _mm256_set1_pd(f64::INFINITY)),
        );
        if _mm256_movemask_pd(bad) & SAMPLES != 0 {
            return (slow64(portable::div, va, vb, dir), true);
        }
        let dsign = dsign64(dir);
        // The quotient's neighbour the drawn way, from the operands' signs (the quotient's),
        // the same as `q` where the dividend is zero: this waits on `q` for one addition.
        let qf = with_flags64(q, va, vb);
        let n = _mm256_castsi256_pd(_mm256_add_epi64(
            _mm256_castpd_si256(qf),
            toward64(_mm256_xor_pd(_mm256_xor_pd(va, vb), dsign), va),
        ));
        // `q·b − a` with both operands' signs flipped by the sign of `b` and in the lanes that
        // round down: negative exactly where the quotient lies beyond `q` the drawn way. The
        // flips wait on the operands only, and the sign bit picks `n` with no comparison.
        let s = _mm256_xor_pd(sign64(vb), dsign);
        let m = _mm256_fmsub_pd(q, _mm256_xor_pd(vb, s), _mm256_xor_pd(va, s));
        (pick64(qf, n, m), false)
    }
}

/// `a·b + c` with one random rounding. The error of `r = RN(a·b + c)` is `t + v2` exactly
/// (Boldo and Muller's ErrFma, IEEE Trans. Computers 60(2), 2011): with `(u1, u2)` the exact
/// product by FMA, `(v1, v2) = TwoSum(c, u2)`, `(w1, w2) = TwoSum(u1, v1)` and
/// `t = RN(RN(w1 − r) + w2)`; `RN(t + v2)` has its sign (a sum of two floats is zero only
/// where it is exact).
#[inline(always)]
pub(crate) unsafe fn fma_f64(va: __m256d, vb: __m256d, vc: __m256d, dir: u32) -> __m256d {
    // SAFETY: for all intrinsics below, the caller has AVX2 and FMA.
    unsafe {
        let r = _mm256_fmadd_pd(va, vb, vc);
        let u1 = _mm256_mul_pd(va, vb);
        // Rare lanes: anything not finite or at least 2^1000 (a TwoSum could overflow; a NaN
        // or infinite operand makes `r` NaN or infinite, the last operand of `max`, which
        // passes a NaN on), or a product below 2^-969 whose error could underflow unless an
        // operand is zero (then the product is exact).
        let zero = _mm256_setzero_pd();
        let tiny = _mm256_andnot_pd(
            _mm256_or_pd(
                _mm256_cmp_pd::<_CMP_EQ_OQ>(va, zero),
                _mm256_cmp_pd::<_CMP_EQ_OQ>(vb, zero),
            ),
            _mm256_cmp_pd::<_CMP_LT_OQ>(abs64(u1), _mm256_set1_pd(crate::arch::portable::TWO_M969)),
        );
        let huge = _mm256_cmp_pd::<_CMP_NLT_UQ>(
            _mm256_max_pd(_mm256_max_pd(abs64(u1), abs64(vc)), abs64(r)),
            _mm256_set1_pd(TWO_1000),
        );
        if _mm256_movemask_pd(_mm256_or_pd(tiny, huge)) & SAMPLES != 0 {
            return from64(slow((to64(va), to64(vb), to64(vc), dir), |c| {
                portable::fma(c.0, c.1, c.2, c.3)
            }));
        }
        let u2 = _mm256_fmsub_pd(va, vb, u1);
        let (v1, v2) = two_sum64(vc, u2);
        let (w1, w2) = two_sum64(u1, v1);
        let t = _mm256_add_pd(_mm256_sub_pd(w1, r), w2);
        let e = _mm256_add_pd(t, v2);
        let dsign = dsign64(dir);
        // An exact zero rounded down is −0 unless `a·b` and `c` are both +0, where
        // `RN(−a·b − c)` is −0; elsewhere that is +0, and where `r` is not zero it is −r
        // (round-to-nearest is symmetric). Its sign, negated, in the lanes that round down,
        // is ORed into `r`, before the step and with no test of the error.
        let r = _mm256_or_pd(r, _mm256_andnot_pd(_mm256_fnmsub_pd(va, vb, vc), dsign));
        let r = with_flags64(r, _mm256_or_pd(va, vb), vc);
        step64(r, beyond64_num(e, dsign), dsign)
    }
}

/// `sqrt(a)`, randomly rounded. The remainder `x − q²` of `q = RN(√x)` is exact by one FMA
/// and has the sign of the error.
#[inline(always)]
pub(crate) unsafe fn sqrt_f64(va: __m256d, dir: u32) -> __m256d {
    // SAFETY: for all intrinsics below, the caller has AVX2 and FMA.
    unsafe {
        let q = _mm256_sqrt_pd(va);
        // Rare lanes: a root that is NaN (x negative or NaN) or infinite, or x below 2^-969
        // (the remainder could underflow) unless x is ±0, whose root ±0 is exact.
        let zero = _mm256_setzero_pd();
        let tiny = _mm256_andnot_pd(
            _mm256_cmp_pd::<_CMP_EQ_OQ>(va, zero),
            _mm256_cmp_pd::<_CMP_LT_OQ>(va, _mm256_set1_pd(crate::arch::portable::TWO_M969)),
        );
        let bad = _mm256_or_pd(
            tiny,
            _mm256_cmp_pd::<_CMP_NLT_UQ>(q, _mm256_set1_pd(f64::INFINITY)),
        );
        if _mm256_movemask_pd(bad) & SAMPLES != 0 {
            return from64(slow((to64(va), dir), |c| portable::sqrt(c.0, c.1)));
        }
        // As in the division: the neighbour from the radicand's sign, and `q² − x` with the
        // signs flipped in the down lanes, negative where the root lies beyond `q` that way.
        let dsign = dsign64(dir);
        let qf = _mm256_blend_pd::<0b1000>(q, va);
        let n = _mm256_castsi256_pd(_mm256_add_epi64(
            _mm256_castpd_si256(qf),
            toward64(_mm256_xor_pd(va, dsign), va),
        ));
        let m = _mm256_fmsub_pd(_mm256_xor_pd(q, dsign), q, _mm256_xor_pd(va, dsign));
        pick64(qf, n, m)
    }
}

/// `a / b`, randomly rounded: the remainder `a − q·b` is exact by one FMA, and its sign times
/// that of `b` is the error's, unless the quotient or the dividend is below 2^-100 (the
/// remainder could underflow), or the quotient is not finite: those lanes take
/// [`tiny_div32`].
#[inline(always)]
pub(crate) unsafe fn div_f32(va: __m128, vb: __m128, dir: u32) -> __m128 {
    // SAFETY: the caller's.
    unsafe { div_f32_ranged(va, vb, dir).0 }
}

/// [`div_f32`], and whether a sample's quotient is outside the normal range and its dividend
/// not zero (as for [`mul_f32_ranged`]).
#[inline(always)]
pub(crate) unsafe fn div_f32_ranged(va: __m128, vb: __m128, dir: u32) -> (__m128, bool) {
    // SAFETY: for all intrinsics below, the caller has AVX2 and FMA.
    unsafe {
        let q = _mm_div_ps(va, vb);
        // `min` passes its second operand on where either is NaN: a NaN quotient.
        let out = outside32::<-100>(_mm_min_ps(abs32(va), abs32(q)));
        if _mm_movemask_ps(_mm_castsi128_ps(out)) & SAMPLES != 0 {
            rare();
            let exact_zero = _mm_cmp_ps::<_CMP_EQ_OQ>(va, _mm_setzero_ps());
            return (tiny_div32(va, vb, q, dir), subnormal32(q, exact_zero));
        }
        // As for `f64`, with one more exact quotient that this path keeps: the infinity of a
        // division by zero (the remainder is NaN), whose neighbour is itself too.
        let dsign = dsign32(dir);
        let qf = with_flags32(q, va, vb);
        let n = _mm_castsi128_ps(_mm_add_epi32(
            _mm_castps_si128(qf),
            toward32(
                _mm_xor_ps(_mm_xor_ps(va, vb), dsign),
                _mm_min_ps(abs32(va), abs32(vb)),
            ),
        ));
        let s = _mm_xor_ps(_mm_and_ps(vb, _mm_set1_ps(-0.0)), dsign);
        let m = _mm_fmsub_ps(q, _mm_xor_ps(vb, s), _mm_xor_ps(va, s));
        (pick32(qf, n, m), false)
    }
}

/// `a·b + c` with one random rounding: `a·b` is exact in `f64`, TwoSum with `c` there gives
/// `s + e` exactly, and the error of the `f32` result `r` has the sign of `(s − r) + e`
/// (the portable path's computation, step for step).
#[inline(always)]
pub(crate) unsafe fn fma_f32(va: __m128, vb: __m128, vc: __m128, dir: u32) -> __m128 {
    // SAFETY: for all intrinsics below, the caller has AVX2 and FMA.
    unsafe {
        let r = _mm_fmadd_ps(va, vb, vc);
        // Rare lanes: a result that is not finite (overflow, or an operand not finite).
        let bad = _mm_cmp_ps::<_CMP_NLT_UQ>(abs32(r), _mm_set1_ps(f32::INFINITY));
        if _mm_movemask_ps(bad) & SAMPLES != 0 {
            return in_register(slow((a32(va), a32(vb), a32(vc), dir), |c| {
                portable::fma(c.0, c.1, c.2, c.3)
            }));
        }
        let p = _mm256_mul_pd(_mm256_cvtps_pd(va), _mm256_cvtps_pd(vb));
        let (s, e) = two_sum64(p, _mm256_cvtps_pd(vc));
        let err = _mm256_add_pd(_mm256_sub_pd(s, _mm256_cvtps_pd(r)), e);
        let beyond = narrow(beyond64_num(err, dsign64(dir)));
        let dsign = dsign32(dir);
        // An exact zero rounded down is −0, ORed in before the step as for `f64`.
        let r = _mm_or_ps(r, _mm_andnot_ps(_mm_fnmsub_ps(va, vb, vc), dsign));
        step32(with_flags32(r, _mm_or_ps(va, vb), vc), beyond, dsign)
    }
}

/// `sqrt(a)`, randomly rounded: the remainder `x − q²` is exact by one FMA unless the root is
/// below 2^-49 (`x` below about 2^-98, where it could underflow) and not zero, or not finite
/// (`x` negative or NaN, or infinite): those lanes take [`tiny_sqrt32`].
#[inline(always)]
pub(crate) unsafe fn sqrt_f32(va: __m128, dir: u32) -> __m128 {
    // SAFETY: for all intrinsics below, the caller has AVX2 and FMA.
    unsafe {
        let q = _mm_sqrt_ps(va);
        let out = _mm_andnot_ps(
            _mm_cmp_ps::<_CMP_EQ_OQ>(q, _mm_setzero_ps()),
            _mm_castsi128_ps(outside32::<-49>(q)),
        );
        if _mm_movemask_ps(out) & SAMPLES != 0 {
            rare();
            return tiny_sqrt32(va, q, dir);
        }
        // As for `f64`.
        let dsign = dsign32(dir);
        let qf = _mm_blend_ps::<0b1000>(q, va);
        let n = _mm_castsi128_ps(_mm_add_epi32(
            _mm_castps_si128(qf),
            toward32(_mm_xor_ps(va, dsign), va),
        ));
        let m = _mm_fmsub_ps(_mm_xor_ps(q, dsign), q, _mm_xor_ps(va, dsign));
        pick32(qf, n, m)
    }
}

/// `q = RN(a/b)` randomly rounded where some lane is out of [`div_f32`]'s range: with finite
/// operands and a nonzero divisor, in `f64`, where the remainder `a − q·b` of two `f32`
/// samples is exact whatever their size, its sign times that of `b` the error's (a quotient
/// that underflowed to zero has the remainder `a`); the portable path otherwise.
#[inline(always)]
unsafe fn tiny_div32(va: __m128, vb: __m128, q: __m128, dir: u32) -> __m128 {
    // SAFETY: for all intrinsics below, the caller has AVX2 and FMA.
    unsafe {
        let zero = _mm_cmp_ps::<_CMP_EQ_UQ>(vb, _mm_setzero_ps());
        if !(finite32(va) && finite32(vb)) || _mm_movemask_ps(zero) & SAMPLES != 0 {
            return slow32(portable::div, va, vb, dir);
        }
        let b = _mm256_cvtps_pd(vb);
        let rem = _mm256_fnmadd_pd(_mm256_cvtps_pd(q), b, _mm256_cvtps_pd(va));
        step32_wide(with_flags32(q, va, vb), _mm256_xor_pd(rem, sign64(b)), dir)
    }
}

/// `q = RN(√a)` randomly rounded where some lane is out of [`sqrt_f32`]'s range: with finite
/// radicands that are not below zero, in `f64`, where the remainder `a − q²` is exact whatever
/// their size and has the error's sign; the portable path otherwise.
#[inline(always)]
unsafe fn tiny_sqrt32(va: __m128, q: __m128, dir: u32) -> __m128 {
    // SAFETY: for all intrinsics below, the caller has AVX2 and FMA.
    unsafe {
        let positive = _mm_cmp_ps::<_CMP_GE_OQ>(va, _mm_setzero_ps());
        if !finite32(va) || _mm_movemask_ps(positive) & SAMPLES != SAMPLES {
            return in_register(slow((a32(va), dir), |c| portable::sqrt(c.0, c.1)));
        }
        let q64 = _mm256_cvtps_pd(q);
        let e = _mm256_fnmadd_pd(q64, q64, _mm256_cvtps_pd(va));
        step32_wide(_mm_blend_ps::<0b1000>(q, va), e, dir)
    }
}

/// The row of `table` (four rows of 32 bytes) that the direction word `dir` picks, read at
/// [`row_offset`].
#[inline(always)]
fn row<R>(table: &'static [R; 4], dir: u32) -> &'static R {
    const { assert!(core::mem::size_of::<R>() == 32) };
    // SAFETY: the offset is 0, 32, 64 or 96, the start of row 0, 1, 2 or 3 of a table of four
    // 32-byte rows (checked above), suitably aligned for `R` (rows are `R`s).
    unsafe { &*table.as_ptr().cast::<u8>().add(row_offset(dir)).cast::<R>() }
}

/// The lanes of an `f64` value as an array.
#[inline(always)]
fn to64(v: __m256d) -> [f64; 4] {
    // SAFETY: 32 bytes of plain data.
    unsafe { core::mem::transmute::<__m256d, [f64; 4]>(v) }
}

/// The inverse of [`to64`].
#[inline(always)]
fn from64(a: [f64; 4]) -> __m256d {
    // SAFETY: 32 bytes of plain data.
    unsafe { core::mem::transmute::<[f64; 4], __m256d>(a) }
}

#[cfg(any(test, not(all(target_feature = "avx2", target_feature = "fma"))))]
pub(crate) mod asm;
/// The intrinsics kernels as functions with AVX2 and FMA, for the tests of every build and
/// `Kernels::path4` in a build with those features.
#[cfg(any(test, all(target_feature = "avx2", target_feature = "fma")))]
#[cfg_attr(
    not(all(target_feature = "avx2", target_feature = "fma")),
    allow(dead_code)
)]
pub(crate) mod rt;
#[cfg(test)]
mod tests;
