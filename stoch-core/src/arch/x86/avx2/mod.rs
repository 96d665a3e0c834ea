//! The AVX2 + FMA path (dispatched on x86-64 without AVX-512; compiled wherever AVX2 and FMA
//! are, so that tests check it there too): every operation on the four lanes of a value in one
//! vector register, branch-free. An error-free transformation gives the sign of each lane's
//! error: TwoSum for `+`, the exact product error by FMA for `*`, the exact remainder by FMA for
//! `/` and `sqrt`, Boldo and Muller's ErrFma for `mul_add` (`f32` computes all of these in
//! `f64`, where they are exact). A per-lane mask of the random directions then moves each sample
//! one unit toward +∞ or −∞ by integer arithmetic on its bits, as the portable path does one
//! sample at a time. Operands or results in the rare ranges the vector code does not cover
//! (overflow, non-finite values, error terms that could underflow, sums near ±MAX) are detected
//! with one mask test, a branch that predicts well, and go to the portable path.

use core::arch::x86_64::*;

use crate::arch::portable::lanes4 as portable;
use crate::runtime::rng::row_offset;

/// All-ones lanes for the samples that round down, for the two random bits `dir`: bit 0
/// for `x`, bit 1 for `y`, `z` the opposite of `y`; the flags lane is never moved.
static DOWN64: [[u64; 4]; 4] = {
    const fn lane(on: bool) -> u64 {
        if on {
            u64::MAX
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
static DOWN32: [[u32; 8]; 4] = {
    const fn lane(on: bool) -> u32 {
        if on {
            u32::MAX
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
unsafe fn down64(dir: u32) -> __m256i {
    // SAFETY: a row of the table is 32 bytes, read unaligned.
    unsafe { _mm256_loadu_si256(row(&DOWN64, dir).as_ptr().cast()) }
}

#[inline(always)]
unsafe fn down32(dir: u32) -> __m128i {
    // SAFETY: as above, the first 16 bytes of a row.
    unsafe { _mm_loadu_si128(row(&DOWN32, dir).as_ptr().cast()) }
}

/// `s` moved one unit toward −∞ in the lanes of `down` and toward +∞ in the others, where
/// the exact result lies beyond `s` that way: `e_lt` (`e_gt`) marks the lanes whose error,
/// the exact result minus `s`, is negative (positive).
#[inline(always)]
unsafe fn directed64(s: __m256d, e_lt: __m256d, e_gt: __m256d, down: __m256i) -> __m256d {
    // SAFETY: for all intrinsics below, the target has AVX2 (checked at compile time).
    unsafe {
        let bits = _mm256_castpd_si256(s);
        // One unit toward +∞ is +1 on the bits of a positive value and −1 on a negative
        // one, and the reverse toward −∞: the step is −1 (all ones) where the sign mask
        // and the direction mask differ, +1 elsewhere.
        let negative = _mm256_cmpgt_epi64(_mm256_setzero_si256(), bits);
        let toward = _mm256_or_si256(_mm256_xor_si256(negative, down), _mm256_set1_epi64x(1));
        // Moves where the error points the requested way (`down` selects by its sign bit).
        let beyond = _mm256_castpd_si256(_mm256_blendv_pd(e_gt, e_lt, _mm256_castsi256_pd(down)));
        _mm256_castsi256_pd(_mm256_add_epi64(bits, _mm256_and_si256(toward, beyond)))
    }
}

#[inline(always)]
unsafe fn directed32(s: __m128, e_lt: __m128i, e_gt: __m128i, down: __m128i) -> __m128 {
    // SAFETY: for all intrinsics below, the target has AVX2.
    unsafe {
        let bits = _mm_castps_si128(s);
        // As for `f64`; the sign mask by an arithmetic shift.
        let negative = _mm_srai_epi32::<31>(bits);
        let toward = _mm_or_si128(_mm_xor_si128(negative, down), _mm_set1_epi32(1));
        let beyond = _mm_castps_si128(_mm_blendv_ps(
            _mm_castsi128_ps(e_gt),
            _mm_castsi128_ps(e_lt),
            _mm_castsi128_ps(down),
        ));
        _mm_castsi128_ps(_mm_add_epi32(bits, _mm_and_si128(toward, beyond)))
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

/// The portable path for the rare operands (kept out of line: it is large and cold).
#[cold]
#[inline(never)]
fn slow64(
    op: fn([f64; 4], [f64; 4], u32) -> [f64; 4],
    a: [f64; 4],
    b: [f64; 4],
    dir: u32,
) -> [f64; 4] {
    op(a, b, dir)
}

#[cold]
#[inline(never)]
fn slow32(
    op: fn([f32; 4], [f32; 4], u32) -> [f32; 4],
    a: [f32; 4],
    b: [f32; 4],
    dir: u32,
) -> __m128 {
    // SAFETY: 16 bytes of plain data.
    unsafe { core::mem::transmute::<[f32; 4], __m128>(op(a, b, dir)) }
}

/// [`slow32`]'s answer, taken into a register by an empty assembly block. The call returns
/// it in memory, and the compiler copied that memory into the caller's running sum with a
/// block copy, after which it kept the sum in memory in the whole loop: a store and a
/// reload on the chain of every addition (docs/performance.md).
#[inline(always)]
fn slow32_in_register(
    op: fn([f32; 4], [f32; 4], u32) -> [f32; 4],
    a: __m128,
    b: __m128,
    dir: u32,
) -> __m128 {
    let mut r = slow32(op, to32(a), to32(b), dir);
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

/// The portable path for the rare operands of the kernels with one or three operands.
#[cold]
#[inline(never)]
fn slow64_with(op: impl FnOnce() -> [f64; 4]) -> [f64; 4] {
    op()
}

/// The same for `f32`, the answer taken into a register as [`slow32_in_register`] does.
#[inline(always)]
fn slow32_with(op: impl FnOnce() -> [f32; 4]) -> __m128 {
    #[cold]
    #[inline(never)]
    fn cold(op: impl FnOnce() -> [f32; 4]) -> __m128 {
        from32(op())
    }
    let mut r = cold(op);
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

/// `a + b`, randomly rounded.
#[inline(always)]
pub(crate) unsafe fn add_f64(va: __m256d, vb: __m256d, dir: u32) -> __m256d {
    // SAFETY: for all intrinsics below, the caller has AVX2 and FMA.
    unsafe {
        let s = _mm256_add_pd(va, vb);
        // Rare lanes: an operand near ±MAX (`s − a` could overflow), or a sum that is not
        // finite (NaN also fails `<`).
        // One comparison: `max` returns its second operand when either is NaN, so a NaN
        // sum reaches the test, which an infinite sum also fails.
        let bad = _mm256_cmp_pd::<_CMP_NLT_UQ>(
            _mm256_max_pd(_mm256_max_pd(abs64(va), abs64(vb)), abs64(s)),
            _mm256_set1_pd(8.0e307),
        );
        if _mm256_movemask_pd(bad) & SAMPLES != 0 {
            return from64(slow64(portable::add, to64(va), to64(vb), dir));
        }
        // The error's sign by Fast2Sum, one subtraction after `s` and a comparison: with
        // |a| ≥ |b|, `e = b − (s − a)` exactly, so `e < 0` iff `b < s − a` (and the same
        // with a and b swapped). Both ways run in parallel; the magnitudes pick one.
        let (t_a, t_b) = (_mm256_sub_pd(s, va), _mm256_sub_pd(s, vb));
        let a_big = _mm256_cmp_pd::<_CMP_GE_OQ>(abs64(va), abs64(vb));
        let lt = _mm256_blendv_pd(
            _mm256_cmp_pd::<_CMP_LT_OQ>(va, t_b),
            _mm256_cmp_pd::<_CMP_LT_OQ>(vb, t_a),
            a_big,
        );
        let gt = _mm256_blendv_pd(
            _mm256_cmp_pd::<_CMP_GT_OQ>(va, t_b),
            _mm256_cmp_pd::<_CMP_GT_OQ>(vb, t_a),
            a_big,
        );
        let down = down64(dir);
        let r = directed64(s, lt, gt, down);
        // An exact zero sum rounded down is −0 (IEEE 754 §6.3): −((−a) + (−b)).
        let neg = _mm256_set1_pd(-0.0);
        let zero_down = _mm256_xor_pd(
            neg,
            _mm256_add_pd(_mm256_xor_pd(va, neg), _mm256_xor_pd(vb, neg)),
        );
        let is_zero = _mm256_cmp_pd::<_CMP_EQ_OQ>(s, _mm256_setzero_pd());
        let fix = _mm256_and_pd(is_zero, _mm256_castsi256_pd(down));
        with_flags64(_mm256_blendv_pd(r, zero_down, fix), va, vb)
    }
}

/// `a · b`, randomly rounded.
#[inline(always)]
pub(crate) unsafe fn mul_f64(va: __m256d, vb: __m256d, dir: u32) -> __m256d {
    // SAFETY: for all intrinsics below, the caller has AVX2 and FMA.
    unsafe {
        let p = _mm256_mul_pd(va, vb);
        // Rare lanes: a product that is not finite, or one so small (|p| < 2^-969) that the
        // FMA's error term could underflow, unless an operand is zero (then p is an exact
        // zero of the right sign and the error is 0).
        let ap = abs64(p);
        let zero = _mm256_setzero_pd();
        let tiny = _mm256_andnot_pd(
            _mm256_or_pd(
                _mm256_cmp_pd::<_CMP_EQ_OQ>(va, zero),
                _mm256_cmp_pd::<_CMP_EQ_OQ>(vb, zero),
            ),
            _mm256_cmp_pd::<_CMP_LT_OQ>(ap, _mm256_set1_pd(crate::arch::portable::TWO_M969)),
        );
        let bad = _mm256_or_pd(
            tiny,
            _mm256_cmp_pd::<_CMP_NLT_UQ>(ap, _mm256_set1_pd(f64::INFINITY)),
        );
        if _mm256_movemask_pd(bad) & SAMPLES != 0 {
            return from64(slow64(portable::mul, to64(va), to64(vb), dir));
        }
        let e = _mm256_fmsub_pd(va, vb, p);
        let zero = _mm256_setzero_pd();
        let lt = _mm256_cmp_pd::<_CMP_LT_OQ>(e, zero);
        let gt = _mm256_cmp_pd::<_CMP_GT_OQ>(e, zero);
        with_flags64(directed64(p, lt, gt, down64(dir)), va, vb)
    }
}

/// `a + b`, randomly rounded.
#[inline(always)]
pub(crate) unsafe fn add_f32(va: __m128, vb: __m128, dir: u32) -> __m128 {
    // SAFETY: for all intrinsics below, the caller has AVX2.
    unsafe {
        let s = _mm_add_ps(va, vb);
        let bad = _mm_cmp_ps::<_CMP_NLT_UQ>(
            _mm_max_ps(_mm_max_ps(abs32(va), abs32(vb)), abs32(s)),
            _mm_set1_ps(1.6e38),
        );
        if _mm_movemask_ps(bad) & SAMPLES != 0 {
            return slow32_in_register(portable::add, va, vb, dir);
        }
        // The error's sign by Fast2Sum, as for `f64`.
        let (t_a, t_b) = (_mm_sub_ps(s, va), _mm_sub_ps(s, vb));
        let a_big = _mm_cmp_ps::<_CMP_GE_OQ>(abs32(va), abs32(vb));
        let lt = _mm_castps_si128(_mm_blendv_ps(
            _mm_cmp_ps::<_CMP_LT_OQ>(va, t_b),
            _mm_cmp_ps::<_CMP_LT_OQ>(vb, t_a),
            a_big,
        ));
        let gt = _mm_castps_si128(_mm_blendv_ps(
            _mm_cmp_ps::<_CMP_GT_OQ>(va, t_b),
            _mm_cmp_ps::<_CMP_GT_OQ>(vb, t_a),
            a_big,
        ));
        let zero = _mm_setzero_ps();
        let down = down32(dir);
        let r = directed32(s, lt, gt, down);
        let neg = _mm_set1_ps(-0.0);
        let zero_down = _mm_xor_ps(neg, _mm_add_ps(_mm_xor_ps(va, neg), _mm_xor_ps(vb, neg)));
        let is_zero = _mm_cmp_ps::<_CMP_EQ_OQ>(s, zero);
        let fix = _mm_and_ps(is_zero, _mm_castsi128_ps(down));
        with_flags32(_mm_blendv_ps(r, zero_down, fix), va, vb)
    }
}

/// `a · b`, randomly rounded: the product of two `f32` is exact in `f64`, which gives the
/// sign of the error of the `f32` product.
#[inline(always)]
pub(crate) unsafe fn mul_f32(va: __m128, vb: __m128, dir: u32) -> __m128 {
    // SAFETY: for all intrinsics below, the caller has AVX2.
    unsafe {
        let x = _mm256_mul_pd(_mm256_cvtps_pd(va), _mm256_cvtps_pd(vb));
        let p = _mm256_cvtpd_ps(x);
        // Rare lanes: a product that is not finite (overflow, or a non-finite operand).
        let bad = _mm_cmp_ps::<_CMP_NLT_UQ>(abs32(p), _mm_set1_ps(f32::INFINITY));
        if _mm_movemask_ps(bad) & SAMPLES != 0 {
            return slow32_in_register(portable::mul, va, vb, dir);
        }
        let e = _mm256_sub_pd(x, _mm256_cvtps_pd(p));
        let zero = _mm256_setzero_pd();
        // 64-bit comparison masks to 32-bit lanes: the low half of each.
        let narrow = _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6);
        let lt = _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(
            _mm256_castpd_si256(_mm256_cmp_pd::<_CMP_LT_OQ>(e, zero)),
            narrow,
        ));
        let gt = _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(
            _mm256_castpd_si256(_mm256_cmp_pd::<_CMP_GT_OQ>(e, zero)),
            narrow,
        ));
        with_flags32(directed32(p, lt, gt, down32(dir)), va, vb)
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

/// The lanes (32-bit, for [`directed32`]) where an error `e` held in `f64` lanes points the
/// way `dir` rounds each sample: `e < 0` where it rounds down, `e > 0` where it rounds up.
/// The selection is done on the 64-bit lanes, so that only one mask is narrowed.
#[inline(always)]
unsafe fn beyond32(e: __m256d, dir: u32) -> __m128i {
    // SAFETY: AVX2.
    unsafe {
        let zero = _mm256_setzero_pd();
        narrow(_mm256_blendv_pd(
            _mm256_cmp_pd::<_CMP_GT_OQ>(e, zero),
            _mm256_cmp_pd::<_CMP_LT_OQ>(e, zero),
            _mm256_castsi256_pd(down64(dir)),
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
            return from64(slow64(portable::div, to64(va), to64(vb), dir));
        }
        let e = _mm256_xor_pd(_mm256_fnmadd_pd(q, vb, va), sign64(vb));
        let lt = _mm256_cmp_pd::<_CMP_LT_OQ>(e, zero);
        let gt = _mm256_cmp_pd::<_CMP_GT_OQ>(e, zero);
        with_flags64(directed64(q, lt, gt, down64(dir)), va, vb)
    }
}

/// `a·b + c` with one random rounding. The error of `r = RN(a·b + c)` is `t + v2` exactly
/// (Boldo and Muller's ErrFma, IEEE Trans. Computers 60(2), 2011): with `(u1, u2)` the exact
/// product by FMA, `(v1, v2) = TwoSum(c, u2)`, `(w1, w2) = TwoSum(u1, v1)` and
/// `t = RN(RN(w1 − r) + w2)`; its sign is a comparison of `t` with `−v2`.
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
            return from64(slow64_with(|| {
                portable::fma(to64(va), to64(vb), to64(vc), dir)
            }));
        }
        let u2 = _mm256_fmsub_pd(va, vb, u1);
        let (v1, v2) = two_sum64(vc, u2);
        let (w1, w2) = two_sum64(u1, v1);
        let t = _mm256_add_pd(_mm256_sub_pd(w1, r), w2);
        let minus_v2 = _mm256_xor_pd(v2, _mm256_set1_pd(-0.0));
        let lt = _mm256_cmp_pd::<_CMP_LT_OQ>(t, minus_v2);
        let gt = _mm256_cmp_pd::<_CMP_GT_OQ>(t, minus_v2);
        let down = down64(dir);
        // An exact zero rounded down is −0: −((−a)·b + (−c)). Where the exact result is not
        // zero this equals `r` (round-to-nearest is symmetric and keeps the sign), so it is
        // blended in before the step, with no test of the error.
        let neg = _mm256_set1_pd(-0.0);
        let zero_down = _mm256_xor_pd(
            neg,
            _mm256_fmadd_pd(_mm256_xor_pd(va, neg), vb, _mm256_xor_pd(vc, neg)),
        );
        let fix = _mm256_and_pd(
            _mm256_cmp_pd::<_CMP_EQ_OQ>(r, zero),
            _mm256_castsi256_pd(down),
        );
        let r = _mm256_blendv_pd(r, zero_down, fix);
        with_flags64(directed64(r, lt, gt, down), _mm256_or_pd(va, vb), vc)
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
            return from64(slow64_with(|| portable::sqrt(to64(va), dir)));
        }
        let e = _mm256_fnmadd_pd(q, q, va);
        let lt = _mm256_cmp_pd::<_CMP_LT_OQ>(e, zero);
        let gt = _mm256_cmp_pd::<_CMP_GT_OQ>(e, zero);
        _mm256_blend_pd::<0b1000>(directed64(q, lt, gt, down64(dir)), va)
    }
}

/// `a / b`, randomly rounded: `q·b` is exact in `f64` and so is `a − q·b`, whose sign times
/// that of `b` is the sign of the error of the `f32` quotient.
#[inline(always)]
pub(crate) unsafe fn div_f32(va: __m128, vb: __m128, dir: u32) -> __m128 {
    // SAFETY: for all intrinsics below, the caller has AVX2 and FMA.
    unsafe {
        let q = _mm_div_ps(va, vb);
        // Rare lanes: a quotient that is not finite. An infinite divisor with a finite
        // dividend gives an exact zero quotient and a NaN remainder, which moves nothing.
        let bad = _mm_cmp_ps::<_CMP_NLT_UQ>(abs32(q), _mm_set1_ps(f32::INFINITY));
        if _mm_movemask_ps(bad) & SAMPLES != 0 {
            return slow32_in_register(portable::div, va, vb, dir);
        }
        let b = _mm256_cvtps_pd(vb);
        let rem = _mm256_fnmadd_pd(_mm256_cvtps_pd(q), b, _mm256_cvtps_pd(va));
        let e = _mm256_xor_pd(rem, sign64(b));
        let beyond = beyond32(e, dir);
        with_flags32(directed32(q, beyond, beyond, down32(dir)), va, vb)
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
            return slow32_with(|| portable::fma(to32(va), to32(vb), to32(vc), dir));
        }
        let p = _mm256_mul_pd(_mm256_cvtps_pd(va), _mm256_cvtps_pd(vb));
        let (s, e) = two_sum64(p, _mm256_cvtps_pd(vc));
        let err = _mm256_add_pd(_mm256_sub_pd(s, _mm256_cvtps_pd(r)), e);
        let beyond = beyond32(err, dir);
        let down = down32(dir);
        // An exact zero rounded down is −0, blended in before the step as for `f64`.
        let neg = _mm_set1_ps(-0.0);
        let zero_down = _mm_xor_ps(
            neg,
            _mm_fmadd_ps(_mm_xor_ps(va, neg), vb, _mm_xor_ps(vc, neg)),
        );
        let fix = _mm_and_ps(
            _mm_cmp_ps::<_CMP_EQ_OQ>(r, _mm_setzero_ps()),
            _mm_castsi128_ps(down),
        );
        let r = _mm_blendv_ps(r, zero_down, fix);
        with_flags32(directed32(r, beyond, beyond, down), _mm_or_ps(va, vb), vc)
    }
}

/// `sqrt(a)`, randomly rounded: `q²` and `x − q²` are exact in `f64`.
#[inline(always)]
pub(crate) unsafe fn sqrt_f32(va: __m128, dir: u32) -> __m128 {
    // SAFETY: for all intrinsics below, the caller has AVX2 and FMA.
    unsafe {
        let q = _mm_sqrt_ps(va);
        // Rare lanes: a root that is NaN (x negative or NaN) or infinite. A zero root is
        // exact (x = ±0) and its remainder zero.
        let bad = _mm_cmp_ps::<_CMP_NLT_UQ>(q, _mm_set1_ps(f32::INFINITY));
        if _mm_movemask_ps(bad) & SAMPLES != 0 {
            return slow32_with(|| portable::sqrt(to32(va), dir));
        }
        let q64 = _mm256_cvtps_pd(q);
        let e = _mm256_fnmadd_pd(q64, q64, _mm256_cvtps_pd(va));
        let beyond = beyond32(e, dir);
        _mm_blend_ps::<0b1000>(directed32(q, beyond, beyond, down32(dir)), va)
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

/// The lanes of an `f32` value as an array.
#[inline(always)]
fn to32(v: __m128) -> [f32; 4] {
    // SAFETY: 16 bytes of plain data.
    unsafe { core::mem::transmute::<__m128, [f32; 4]>(v) }
}

/// The inverse of [`to32`].
#[inline(always)]
fn from32(a: [f32; 4]) -> __m128 {
    // SAFETY: 16 bytes of plain data.
    unsafe { core::mem::transmute::<[f32; 4], __m128>(a) }
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
