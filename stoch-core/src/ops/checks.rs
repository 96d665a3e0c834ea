//! The instability checks of `+ − * /` (DESIGN §4): a branch-free pre-test that is rarely true,
//! then the exact check out of line through the trampoline ([`crate::runtime::cold`]).

use std::panic::Location;
use std::sync::atomic::Ordering;

use crate::digits::{digits, is_computed_zero, is_noise};
use crate::instability::Instability;
use crate::report::{record, record_collapse};
use crate::runtime::cold;
use crate::runtime::state::{self, COLLAPSE_BIT};
use crate::{StochFloat, Stochastic};

#[cfg(all(
    target_arch = "x86_64",
    not(all(target_feature = "avx2", target_feature = "fma"))
))]
use super::pretest::sse2;
#[cfg(all(
    target_arch = "x86_64",
    target_feature = "avx2",
    target_feature = "fma"
))]
use super::pretest::vector;

pub(super) const CANCEL: u8 = Instability::Cancellation.bit();
pub(super) const MUL: u8 = Instability::Multiplication.bit();
pub(super) const DIV: u8 = Instability::Division.bit();

/// Checks after `r = a + b` (or `a − b` with `b` negated), where `mask` asks for cancellation or
/// collapse detection: cancellation and accuracy collapse.
/// The common case costs two comparisons and the noise pre-test of `r`: a loss of `L` digits
/// needs `|r| < 2·max(|a|,|b|)·10^(1−L)` (the standard deviation of a sum is at most the sum of
/// the operands' deviations), and a collapse needs `|r| < max(|a|,|b|)` and `r` to be noise.
#[inline(always)]
pub(super) fn check_add<T: StochFloat>(
    a: Stochastic<T>,
    b: Stochastic<T>,
    r: Stochastic<T>,
    b_plain: bool,
    b_negated: bool,
    mask: u8,
    loc: &'static Location<'static>,
) -> Stochastic<T> {
    let lanes = u32::from(state::add_lanes_for(mask));
    if add_pretest(&a, &b, &r, T::cancel_factor, || lanes) {
        hit_is_rare();
        return add_hit(a, b, r, b_plain, b_negated, mask, loc);
    }
    r
}

/// The pre-test of [`check_add`]: whether `r = a + b` may have cancelled digits (bit 0 of
/// `lanes`) or collapsed (bits 1 and 2: `0b111` where collapses are detected, `0b001` where
/// not). `factor` gives the cancellation factor in force and `lanes` those bits, each read
/// only where the test uses it (the native AVX2 `f64` test reads its own factors from the
/// tables, which give both). One branch-free test that is rarely true, so the branch on it
/// predicts well:
/// - a loss of `level` digits needs `|r₀| < factor·max(|a₀|, |b₀|)` (see `Config::apply`);
/// - a collapse needs `|r₀| < max(|a₀|, |b₀|)` (a same-sign sum never shrinks below its larger
///   operand: rounding is monotonic) and `r` to pass [`maybe_noise`] (on the vector registers
///   where the target has AVX2: fewer floating-point instructions than the sum of the samples'
///   distances, and the checked loops wait on the floating-point pipes).
///
/// An `f64` sum in a build with AVX2 and FMA takes the same test in one comparison of vector
/// lanes instead ([`add_pre64_avx512`] with AVX-512 F, DQ and VL).
#[inline(always)]
pub(super) fn add_pretest<T: StochFloat>(
    a: &Stochastic<T>,
    b: &Stochastic<T>,
    r: &Stochastic<T>,
    factor: impl Fn() -> T + Copy,
    lanes: impl Fn() -> u32 + Copy,
) -> bool {
    #[cfg(all(
        target_arch = "x86_64",
        target_feature = "avx2",
        target_feature = "fma"
    ))]
    if let Some(hit) = vector::add_pre(a, b, r, factor, lanes) {
        return hit;
    }
    let collapse_on = lanes() & 0b110 != 0;
    let a0 = a.a()[0].abs();
    let b0 = b.a()[0].abs();
    let big = if a0 > b0 { a0 } else { b0 };
    let r0 = r.a()[0].abs();
    (r0 < factor() * big) | (collapse_on & (r0 < big) & maybe_noise(r))
}

/// The checks of `r = a + b` once their pre-test passed: [`add_slow`], out of line through the
/// trampoline, and its flags on `r`.
#[inline(always)]
pub(super) fn add_hit<T: StochFloat>(
    a: Stochastic<T>,
    b: Stochastic<T>,
    r: Stochastic<T>,
    b_plain: bool,
    b_negated: bool,
    mask: u8,
    loc: &'static Location<'static>,
) -> Stochastic<T> {
    let args = (a.s(), b.s(), r.s(), b_plain, b_negated, mask, loc);
    let bits = cold::run(args, |c| add_slow(&c.0, &c.1, &c.2, c.3, c.4, c.5, c.6));
    flagged(r, bits)
}

/// `r` with the flags `bits` that a slow path returned, if any.
#[inline(always)]
pub(super) fn flagged<T: StochFloat>(r: Stochastic<T>, bits: u8) -> Stochastic<T> {
    if bits != 0 {
        return r.or_flags(bits);
    }
    r
}

/// Marks the branch that calls it, a pre-test's hit, as the unlikely one: the compiler lays
/// out the slow path's argument set-up out of line, and the common case runs on without a taken
/// jump over it (docs/performance.md).
#[cold]
#[inline(always)]
pub(super) fn hit_is_rare() {}

#[cold]
#[inline(never)]
pub(super) fn add_slow<T: StochFloat>(
    a: &[T; 3],
    b: &[T; 3],
    r: &[T; 3],
    b_plain: bool,
    b_negated: bool,
    mask: u8,
    loc: &'static Location<'static>,
) -> u8 {
    // A collapse needs `|r₀| < m`, as every pre-test asks: asked again here, where a
    // pre-test on the sum rounded to nearest passes `|r₀| = m` too (`pretest::vector::add_pre`).
    let (a0, b0) = (a[0].abs(), b[0].abs());
    let big = if a0 > b0 { a0 } else { b0 };
    if mask & COLLAPSE_BIT != 0
        && r[0].abs() < big
        && is_noise(r)
        && !is_computed_zero(a)
        && (b_plain || !is_computed_zero(b))
    {
        record_collapse(loc);
    }
    if mask & CANCEL != 0 && r.iter().any(|x| *x != T::ZERO) {
        // min(da, db) ≥ dr + level, decided as early as possible (da, db ≤ MAX_DIGITS).
        let level = state::CANCEL_LEVEL.load(Ordering::Relaxed);
        let dr = digits(r);
        if dr + level <= T::MAX_DIGITS
            && digits(a) >= dr + level
            && (b_plain || digits(b) >= dr + level)
        {
            // The hook sees the user's operands: the subtrahend, not its negation.
            let b_user = if b_negated { b.map(|x| -x) } else { *b };
            record(Instability::Cancellation, loc, &[a, &b_user]);
            return Instability::Cancellation.bit();
        }
    }
    0
}

pub(crate) use crate::runtime::state::SPREAD_FACTOR;

/// Whether `v` may be numerical noise: whether its sample `y` or `z` differs from `x` by more
/// than `|x|/42`. A necessary condition, cheap and rarely true: numerical noise needs a spread
/// `|y − x| + |z − x|` above 0.127·|mean| (at the default confidence), and [`is_noise`] itself
/// answers `false` when that spread is at most 0.05·|x|, which `|x|/42` on each side implies
/// with room for the rounding of either test. Three equal samples (an exact zero included) do
/// not pass; a NaN sample may (noise never has one).
///
/// On x86-64 with AVX2 and FMA (the AVX-512 path included), the lanes are tested where they
/// are, in their vector register; elsewhere, on the array of samples.
#[inline(always)]
pub(crate) fn maybe_noise<T: StochFloat>(v: &Stochastic<T>) -> bool {
    #[cfg(all(target_arch = "x86_64", not(target_feature = "avx512f")))]
    if let Some(bits) = rt512_noise32(v, v) {
        return bits & 0b0011 != 0;
    }
    #[cfg(all(
        target_arch = "x86_64",
        target_feature = "avx2",
        target_feature = "fma"
    ))]
    if let Some(far) = vector::far1(v) {
        return far;
    }
    #[cfg(all(
        target_arch = "x86_64",
        not(all(target_feature = "avx2", target_feature = "fma"))
    ))]
    if let Some(far) = sse2::far1(v) {
        return far;
    }
    far_samples(&v.a())
}

/// The noise pre-tests of two `f32` values on the run-time AVX-512 path, in `f64`
/// ([`rt512::noise_f32`](crate::arch::x86::asm512::noise_f32)), where that path runs (a build without
/// AVX-512, the default target or an AVX2 one, on a processor with it): the SSE2 and AVX2
/// forms compute in `f32` and take microcode assists on Intel processors where the samples'
/// differences are subnormal. The bits of `[x₁, x₂, y₁, y₂]`; `None` elsewhere and for `f64`
/// (whose samples' differences are subnormal only below about 2⁻⁹⁷⁰).
#[cfg(all(target_arch = "x86_64", not(target_feature = "avx512f")))]
#[inline(always)]
pub(super) fn rt512_noise32<T: StochFloat>(x: &Stochastic<T>, y: &Stochastic<T>) -> Option<u32> {
    use core::any::TypeId;
    if TypeId::of::<T>() != TypeId::of::<f32>() || !crate::runtime::path::on() {
        return None;
    }
    // SAFETY: `T` is `f32` (tested above): these copy the values' own lanes.
    let (a, b) = unsafe {
        (
            core::mem::transmute_copy::<[T; 4], [f32; 4]>(&x.a()),
            core::mem::transmute_copy::<[T; 4], [f32; 4]>(&y.a()),
        )
    };
    Some(crate::arch::x86::asm512::noise_f32(a, b))
}

/// `maybe_noise(x) | maybe_noise(y)`, tested together.
#[inline(always)]
pub(super) fn maybe_noise2<T: StochFloat>(x: &Stochastic<T>, y: &Stochastic<T>) -> bool {
    #[cfg(all(target_arch = "x86_64", not(target_feature = "avx512f")))]
    if let Some(bits) = rt512_noise32(x, y) {
        return bits != 0;
    }
    #[cfg(all(
        target_arch = "x86_64",
        target_feature = "avx2",
        target_feature = "fma"
    ))]
    if let Some(far) = vector::far2(x, y) {
        return far;
    }
    #[cfg(all(
        target_arch = "x86_64",
        not(all(target_feature = "avx2", target_feature = "fma"))
    ))]
    if let Some(far) = sse2::far2(x, y) {
        return far;
    }
    far_samples(&x.a()) | far_samples(&y.a())
}

/// The portable form of [`maybe_noise`], on the samples (the flags lane `s[3]` is not read).
#[inline(always)]
pub(super) fn far_samples<T: StochFloat>(s: &[T; 4]) -> bool {
    let (x, k) = (s[0].abs(), T::from_f64(SPREAD_FACTOR));
    ((s[1] - s[0]).abs() * k > x) | ((s[2] - s[0]).abs() * k > x)
}

/// The accuracy-collapse check of every operation but `+`, `−`, `*`, `/` and `mul_add` (which
/// test their operands too, in one pre-test): records a collapse at `loc` when the result `r` is
/// numerical noise while no stochastic operand in `ops` is (plain operands are left out of
/// `ops`; see [`collapse_slow`] on exact zeros). The common case costs the pre-test
/// [`maybe_noise`] on `r` only, behind a branch on the collapse bit of `mask`: with collapse
/// detection off the pre-test is not computed, so that products by plain coefficients with the
/// checks off skip it (docs/performance.md).
#[inline(always)]
pub(crate) fn check_collapse<T: StochFloat, const N: usize>(
    r: Stochastic<T>,
    ops: [Stochastic<T>; N],
    mask: u8,
    loc: &'static Location<'static>,
) {
    if mask & COLLAPSE_BIT != 0 && maybe_noise(&r) {
        cold::run((r.s(), ops.map(|o| o.s()), loc), |c| {
            collapse_slow(&c.0, &c.1, c.2)
        });
    }
}

/// Whether `r` is numerical noise from operands none of which is: an accuracy collapse.
///
/// An operand that is an exact zero is exact, as a plain one is, and does not stop a collapse:
/// testing the operands for numerical noise rather than for computed zeros makes a difference
/// for `mul_add(x, y, 0)` only (`x·y + 0` collapses as `x·y` does), since everywhere else an
/// exact zero operand gives an exact result or its other operand unchanged.
#[inline(always)]
pub(super) fn collapses<T: StochFloat>(r: &[T; 3], ops: &[[T; 3]]) -> bool {
    is_noise(r) && !ops.iter().any(is_noise)
}

/// The slow path of [`check_collapse`], out of line.
#[cold]
#[inline(never)]
pub(super) fn collapse_slow<T: StochFloat>(
    r: &[T; 3],
    ops: &[[T; 3]],
    loc: &'static Location<'static>,
) {
    if collapses(r, ops) {
        record_collapse(loc);
    }
}

/// The collapse check of an operation on one stochastic operand `a` and a plain one.
#[inline(always)]
pub(super) fn check_plain<T: StochFloat>(
    a: Stochastic<T>,
    r: Stochastic<T>,
    loc: &'static Location<'static>,
) -> Stochastic<T> {
    check_collapse(r, [a], state::mask(), loc);
    r
}

/// Multiplication check (both operands stochastic and both numerical noise) and accuracy
/// collapse, for `r = a·b` (`a·b + c` with `c`). One pre-test covers both: a Multiplication
/// needs `a` to be noise, a collapse needs `r` to be.
#[inline(always)]
pub(super) fn check_mul<T: StochFloat>(
    a: Stochastic<T>,
    b: Stochastic<T>,
    c: Option<Stochastic<T>>,
    r: Stochastic<T>,
    mask: u8,
    loc: &'static Location<'static>,
) -> Stochastic<T> {
    if (mask & (MUL | COLLAPSE_BIT) != 0) & maybe_noise2(&a, &r) {
        hit_is_rare();
        return mul_hit(a, b, c, r, mask, loc);
    }
    r
}

/// The checks of `r = a·b` (`+ c`) once their pre-test passed: [`mul_slow`] out of line.
#[inline(always)]
pub(super) fn mul_hit<T: StochFloat>(
    a: Stochastic<T>,
    b: Stochastic<T>,
    c: Option<Stochastic<T>>,
    r: Stochastic<T>,
    mask: u8,
    loc: &'static Location<'static>,
) -> Stochastic<T> {
    let args = (a.s(), b.s(), c.map(|c| c.s()), r.s(), mask, loc);
    let bits = cold::run(args, |c| mul_slow(&c.0, &c.1, c.2, &c.3, c.4, c.5));
    flagged(r, bits)
}

#[cold]
#[inline(never)]
pub(super) fn mul_slow<T: StochFloat>(
    a: &[T; 3],
    b: &[T; 3],
    c: Option<[T; 3]>,
    r: &[T; 3],
    mask: u8,
    loc: &'static Location<'static>,
) -> u8 {
    if mask & COLLAPSE_BIT != 0 && collapses(r, &[*a, *b]) && !c.is_some_and(|c| is_noise(&c)) {
        record_collapse(loc);
    }
    if mask & MUL != 0 && is_noise(a) && is_noise(b) {
        record(Instability::Multiplication, loc, &[a, b]);
        return MUL;
    }
    0
}

/// Division check (the divisor is numerical noise) and accuracy collapse, for `r = a/b`. One
/// pre-test covers both: a Division needs `b` to be noise, a collapse needs `r` to be.
#[inline(always)]
pub(super) fn check_div<T: StochFloat>(
    a: Stochastic<T>,
    b: Stochastic<T>,
    r: Stochastic<T>,
    mask: u8,
    loc: &'static Location<'static>,
) -> Stochastic<T> {
    if (mask & (DIV | COLLAPSE_BIT) != 0) & maybe_noise2(&b, &r) {
        hit_is_rare();
        return div_hit(a, b, r, mask, loc);
    }
    r
}

/// The checks of `r = a/b` once their pre-test passed: [`div_slow`] out of line.
#[inline(always)]
pub(super) fn div_hit<T: StochFloat>(
    a: Stochastic<T>,
    b: Stochastic<T>,
    r: Stochastic<T>,
    mask: u8,
    loc: &'static Location<'static>,
) -> Stochastic<T> {
    let bits = cold::run((a.s(), b.s(), r.s(), mask, loc), |c| {
        div_slow(&c.0, &c.1, &c.2, c.3, c.4)
    });
    flagged(r, bits)
}

#[cold]
#[inline(never)]
pub(super) fn div_slow<T: StochFloat>(
    a: &[T; 3],
    b: &[T; 3],
    r: &[T; 3],
    mask: u8,
    loc: &'static Location<'static>,
) -> u8 {
    if mask & COLLAPSE_BIT != 0 && collapses(r, &[*a, *b]) {
        record_collapse(loc);
    }
    if mask & DIV != 0 && is_noise(b) {
        record(Instability::Division, loc, &[a, b]);
        return DIV;
    }
    0
}
