//! Arithmetic operators: random rounding, flag propagation and the instability checks of
//! DESIGN §4. Every operator is `#[track_caller]`, so an instability is attributed to the user's
//! expression.

use core::iter::{Product, Sum};
use core::ops::SubAssign;
use core::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Rem, RemAssign, Sub};
use std::panic::Location;
use std::sync::atomic::Ordering;

use crate::config::{self, COLLAPSE_BIT};
use crate::digits::{digits, is_computed_zero, is_noise};
use crate::instability::Instability;
use crate::report::{record, record_collapse};
use crate::{cold, rng, StochFloat, Stochastic};

const CANCEL: u8 = Instability::Cancellation.bit();
const MUL: u8 = Instability::Multiplication.bit();
const DIV: u8 = Instability::Division.bit();

impl<T: StochFloat> Stochastic<T> {
    /// `self + rhs` with random rounding and no instability check.
    #[inline(always)]
    pub(crate) fn raw_add(self, rhs: Self) -> Self {
        Self {
            v: T::add4(self.v, rhs.v, rng::dir2()),
        }
    }

    /// `self − rhs` with random rounding and no instability check.
    #[inline(always)]
    pub(crate) fn raw_sub(self, rhs: Self) -> Self {
        self.raw_add(-rhs)
    }

    /// `self · rhs` with random rounding and no instability check.
    #[inline(always)]
    pub(crate) fn raw_mul(self, rhs: Self) -> Self {
        Self {
            v: T::mul4(self.v, rhs.v, rng::dir2()),
        }
    }

    /// `self / rhs` with random rounding and no instability check.
    #[inline(always)]
    pub(crate) fn raw_div(self, rhs: Self) -> Self {
        Self {
            v: T::div4(self.v, rhs.v, rng::dir2()),
        }
    }

    #[inline(always)]
    pub(crate) fn from_parts_raw(s: [T; 3], flags: u8) -> Self {
        Self::from_parts(s, crate::Flags::from_bits(flags))
    }

    /// Adds `kind` to the flags and records it at `loc`.
    #[inline(always)]
    pub(crate) fn flag(
        self,
        kind: Instability,
        loc: &'static Location<'static>,
        ops: &[&[T; 3]],
    ) -> Self {
        record(kind, loc, ops);
        self.or_flags(kind.bit())
    }

    /// This value with `bits` ORed into its flags.
    #[inline(always)]
    pub(crate) fn or_flags(self, bits: u8) -> Self {
        self.with_fl(self.fl() | bits)
    }

    /// `self · rhs + addend` with a single random rounding (fused multiply-add).
    ///
    /// # Instability
    ///
    /// Checks the product as `*` does and the sum as `+` does; an accuracy collapse when the
    /// result is numerical noise and none of the three operands is.
    ///
    /// ```
    /// use stoch_core::Sf64;
    /// let r = Sf64::new(0.1).mul_add(Sf64::new(10.0), Sf64::new(-1.0));
    /// assert!(r.mean().abs() < 1e-16);
    /// ```
    #[track_caller]
    #[inline(always)]
    #[must_use]
    pub fn mul_add(self, a: Self, b: Self) -> Self {
        let r = Self {
            v: T::fma4(self.v, a.v, b.v, rng::dir2()),
        };
        let loc = Location::caller();
        let mask = config::mask();
        // The product's Multiplication check, and the collapse of the fused operation as a
        // whole: a noise result from three operands none of which is noise (so `add_slow`
        // below looks for cancellation only).
        let r = check_mul(self, a, Some(b), r, mask, loc);
        if mask & CANCEL != 0 {
            let p0 = (self.a()[0] * a.a()[0]).abs();
            let big = if p0 > b.a()[0].abs() {
                p0
            } else {
                b.a()[0].abs()
            };
            let r0 = r.a()[0].abs();
            if r0 < big {
                // The product rounded to nearest (no random bits: detection never changes results).
                let (x, y) = (self.s(), a.s());
                let p = core::array::from_fn(|i| x[i] * y[i]);
                let bits = cold::run((p, b.s(), r.s(), mask & !COLLAPSE_BIT, loc), |c| {
                    add_slow(&c.0, &c.1, &c.2, false, false, c.3, c.4)
                });
                if bits != 0 {
                    return r.or_flags(bits);
                }
            }
        }
        r
    }

    /// `1 / self` with random rounding.
    ///
    /// # Instability
    ///
    /// Division, when `self` is numerical noise.
    ///
    /// ```
    /// use stoch_core::{Instability, Sf64};
    /// let r = Sf64::new(3.0).recip();
    /// let (lo, hi) = (1.0f64 / 3.0, (1.0f64 / 3.0).next_up());
    /// // 1/3 lies between these two doubles: every sample is one of them.
    /// assert!(r.samples().iter().all(|&s| s == lo || s == hi));
    /// assert_eq!(Sf64::new(4.0).recip().samples(), [0.25; 3]); // exact
    /// let noise = Sf64::from_samples([1e-17, -1e-17, 2e-17]);
    /// assert!(noise.recip().flags().contains(Instability::Division));
    /// # stoch_core::reset();
    /// ```
    #[track_caller]
    #[inline]
    #[must_use]
    pub fn recip(self) -> Self {
        Self::ONE / self
    }
}

/// The start of `+` (`$op` 0), `*` (1) and `/` (2) in a build without AVX-512: as
/// [`rt512::mode`](crate::rt512::mode) says, returns from the operation the run-time AVX-512
/// kernel with its fused pre-test (the hit taking the slow path `$hit`, a closure of the result
/// `r`), unless `$exact` says a product needs no checks (see [`exact_product`]), or the kernel
/// alone; goes on to the operation's other paths where the portable path runs. A macro, not a
/// function: the same code as a helper returning an `Option` measured no faster, and made the
/// compiler keep the `f32` sum's running value in memory (Zen 5, default target: sum with checks
/// on 3.6x -> 21x the plain time).
#[cfg(all(target_arch = "x86_64", not(target_feature = "avx512f")))]
macro_rules! rt512_op {
    ($op:literal, $a:ident, $b:ident, $dir:ident, $exact:expr, |$r:ident| $hit:expr) => {
        let mode = crate::rt512::mode();
        if mode & crate::rt512::mode_bit($op, true) != 0 && !$exact {
            let (v, hit) = T::rt512_fused($op, $a.v, $b.v, $dir);
            let $r = Stochastic { v };
            if hit {
                hit_is_rare();
                return $hit;
            }
            return $r;
        }
        if mode & (crate::rt512::mode_bit($op, true) | crate::rt512::mode_bit($op, false)) != 0 {
            return Stochastic {
                v: T::rt512_alone($op, $a.v, $b.v, $dir),
            };
        }
    };
}

/// `a + b` (`b` negated for a difference) with random rounding and the checks of
/// [`check_add`]. The detection mask is read before the kernel runs, so that with cancellation
/// and collapse detection off the operation is the kernel alone, with no branch after it
/// (the `overhead` example on the default target, checks off: dot 4.5x -> 3.7x, matmul 5.6x
/// -> 4.9x the plain time; with checks on, and natively, unchanged). Where the run-time
/// AVX-512 path runs (`rt512`), and for `f32` in a native AVX-512 build, the kernel and the
/// pre-test of [`check_add`] are one assembly block
/// ([`Kernels::rt512_pre`](crate::rounding::Kernels::rt512_pre)); `*` and `/` do the same. In
/// a build without AVX-512 the operation first reads one byte, `rt512::mode`, that says whether
/// that path runs and whether with the checks, in place of the mask and the path's own flag.
#[inline(always)]
fn add_op<T: StochFloat>(
    a: Stochastic<T>,
    b: Stochastic<T>,
    b_plain: bool,
    b_negated: bool,
    loc: &'static Location<'static>,
) -> Stochastic<T> {
    // The random bits first: their first draw reads the environment's configuration.
    let dir = rng::dir2();
    #[cfg(all(target_arch = "x86_64", not(target_feature = "avx512f")))]
    rt512_op!(0, a, b, dir, false, |r| add_hit(
        a,
        b,
        r,
        b_plain,
        b_negated,
        config::mask(),
        loc
    ));
    let mask = config::mask();
    if mask & (CANCEL | COLLAPSE_BIT) == 0 {
        return Stochastic {
            v: T::add4(a.v, b.v, dir),
        };
    }
    if let Some((v, hit)) = T::rt512_pre(0, a.v, b.v, dir) {
        let r = Stochastic { v };
        if hit {
            hit_is_rare();
            return add_hit(a, b, r, b_plain, b_negated, mask, loc);
        }
        return r;
    }
    let r = Stochastic {
        v: T::add4(a.v, b.v, dir),
    };
    check_add(a, b, r, b_plain, b_negated, mask, loc)
}

/// `a · b` with random rounding and the checks of [`check_mul`] (mask first, as in [`add_op`]),
/// but for the products of exact operands that [`exact_product`] lets through.
#[inline(always)]
fn mul_op<T: StochFloat>(
    a: Stochastic<T>,
    b: Stochastic<T>,
    loc: &'static Location<'static>,
) -> Stochastic<T> {
    let dir = rng::dir2();
    #[cfg(all(target_arch = "x86_64", not(target_feature = "avx512f")))]
    rt512_op!(1, a, b, dir, exact_product(&a, &b), |r| mul_hit(
        a,
        b,
        None,
        r,
        config::mask(),
        loc
    ));
    let mask = config::mask();
    if (mask & (MUL | COLLAPSE_BIT) == 0) || exact_product(&a, &b) {
        return Stochastic {
            v: T::mul4(a.v, b.v, dir),
        };
    }
    if let Some((v, hit)) = T::rt512_pre(1, a.v, b.v, dir) {
        let r = Stochastic { v };
        if hit {
            hit_is_rare();
            return mul_hit(a, b, None, r, mask, loc);
        }
        return r;
    }
    let r = Stochastic {
        v: T::mul4(a.v, b.v, dir),
    };
    check_mul(a, b, None, r, mask, loc)
}

/// Whether `a·b` can need no check: both operands exact (three equal samples, as data read
/// into the program are) and `|a₀·b₀| ≥ 2·MIN_POSITIVE`. Neither operand is then numerical
/// noise, so there is no Multiplication instability, and the product is not noise either, so
/// there is no accuracy collapse: its samples are the exact product rounded up or down,
/// neighbours at most one unit in the last place of a normal number apart (or a finite number
/// and an infinity, which is not noise either). Only a product that underflows can become
/// noise, and the magnitude test leaves those to the checks.
///
/// The test reads the operands alone, which a loop loads early, where the checks' pre-test
/// waits for the product (Zen 5, native build, checks on: dot 5.5x -> 5.1x the plain time,
/// matmul 7.9x -> 7.2x). Made where the values live in vector registers (x86-64 with AVX2 and
/// FMA); elsewhere `false`: the compiler's SSE2 code for it cost more than it saved (default
/// target: dot 6.3x -> 6.85x, matmul 9.4x -> 10.0x).
#[inline(always)]
fn exact_product<T: StochFloat>(a: &Stochastic<T>, b: &Stochastic<T>) -> bool {
    #[cfg(all(
        target_arch = "x86_64",
        target_feature = "avx2",
        target_feature = "fma"
    ))]
    if let Some(e) = vector::exact_product(a, b) {
        return e;
    }
    let _ = (a, b);
    false
}

/// `a / b` with random rounding and the checks of [`check_div`] (mask first, as in [`add_op`]).
#[inline(always)]
fn div_op<T: StochFloat>(
    a: Stochastic<T>,
    b: Stochastic<T>,
    loc: &'static Location<'static>,
) -> Stochastic<T> {
    let dir = rng::dir2();
    #[cfg(all(target_arch = "x86_64", not(target_feature = "avx512f")))]
    rt512_op!(2, a, b, dir, false, |r| div_hit(
        a,
        b,
        r,
        config::mask(),
        loc
    ));
    let mask = config::mask();
    if mask & (DIV | COLLAPSE_BIT) == 0 {
        return Stochastic {
            v: T::div4(a.v, b.v, dir),
        };
    }
    if let Some((v, hit)) = T::rt512_pre(2, a.v, b.v, dir) {
        let r = Stochastic { v };
        if hit {
            hit_is_rare();
            return div_hit(a, b, r, mask, loc);
        }
        return r;
    }
    let r = Stochastic {
        v: T::div4(a.v, b.v, dir),
    };
    check_div(a, b, r, mask, loc)
}

/// Checks after `r = a + b` (or `a − b` with `b` negated), where `mask` asks for cancellation or
/// collapse detection: cancellation and accuracy collapse.
/// The common case costs two comparisons and the noise pre-test of `r`: a loss of `L` digits
/// needs `|r| < 2·max(|a|,|b|)·10^(1−L)` (the standard deviation of a sum is at most the sum of
/// the operands' deviations), and a collapse needs `|r| < max(|a|,|b|)` and `r` to be noise.
#[inline(always)]
fn check_add<T: StochFloat>(
    a: Stochastic<T>,
    b: Stochastic<T>,
    r: Stochastic<T>,
    b_plain: bool,
    b_negated: bool,
    mask: u8,
    loc: &'static Location<'static>,
) -> Stochastic<T> {
    let collapse_on = mask & COLLAPSE_BIT != 0;
    if add_pretest(&a, &b, &r, T::cancel_factor(), collapse_on) {
        hit_is_rare();
        return add_hit(a, b, r, b_plain, b_negated, mask, loc);
    }
    r
}

/// The pre-test of [`check_add`]: whether `r = a + b` may have cancelled `factor`'s digits or
/// collapsed (`collapse_on`). One branch-free test that is rarely true, so the branch on it
/// predicts well:
/// - a loss of `level` digits needs `|r₀| < factor·max(|a₀|, |b₀|)` (see `Config::apply`);
/// - a collapse needs `|r₀| < max(|a₀|, |b₀|)` (a same-sign sum never shrinks below its larger
///   operand: rounding is monotonic) and `r` to pass [`maybe_noise`] (on the vector registers
///   where the target has AVX2: fewer floating-point instructions than the sum of the samples'
///   distances, and the checked loops wait on the floating-point pipes).
///
/// An `f64` sum in a build with AVX-512 (F, DQ and VL) takes [`add_pre64_avx512`] instead.
#[inline(always)]
fn add_pretest<T: StochFloat>(
    a: &Stochastic<T>,
    b: &Stochastic<T>,
    r: &Stochastic<T>,
    factor: T,
    collapse_on: bool,
) -> bool {
    #[cfg(all(
        target_arch = "x86_64",
        target_feature = "avx512f",
        target_feature = "avx512dq",
        target_feature = "avx512vl"
    ))]
    if let Some(hit) = vector::add_pre(a, b, r, factor, collapse_on) {
        return hit;
    }
    let a0 = a.a()[0].abs();
    let b0 = b.a()[0].abs();
    let big = if a0 > b0 { a0 } else { b0 };
    let r0 = r.a()[0].abs();
    (r0 < factor * big) | (collapse_on & (r0 < big) & maybe_noise(r))
}

/// The checks of `r = a + b` once their pre-test passed: [`add_slow`], out of line through the
/// trampoline, and its flags on `r`.
#[inline(always)]
fn add_hit<T: StochFloat>(
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
    if bits != 0 {
        return r.or_flags(bits);
    }
    r
}

/// Marks the branch that calls it, a pre-test's hit, as the unlikely one: the compiler lays
/// out the slow path's argument set-up out of line, and the common case runs on without a taken
/// jump over it (default target, all checks: dot 7.4x -> 7.1x).
#[cold]
#[inline(always)]
fn hit_is_rare() {}

#[cold]
#[inline(never)]
fn add_slow<T: StochFloat>(
    a: &[T; 3],
    b: &[T; 3],
    r: &[T; 3],
    b_plain: bool,
    b_negated: bool,
    mask: u8,
    loc: &'static Location<'static>,
) -> u8 {
    if mask & COLLAPSE_BIT != 0
        && is_noise(r)
        && !is_computed_zero(a)
        && (b_plain || !is_computed_zero(b))
    {
        record_collapse(loc);
    }
    if mask & CANCEL != 0 && r.iter().any(|x| *x != T::ZERO) {
        // min(da, db) ≥ dr + level, decided as early as possible (da, db ≤ MAX_DIGITS).
        let level = config::CANCEL_LEVEL.load(Ordering::Relaxed);
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

/// The factor of the noise pre-tests: a value whose samples `y` and `z` are within `|x|/42` of
/// its sample `x` cannot be numerical noise (see [`maybe_noise`]).
pub(crate) const SPREAD_FACTOR: f64 = 42.0;

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
/// ([`rt512::noise_f32`](crate::rt512::noise_f32)), where that path runs (a build without
/// AVX-512, the default target or an AVX2 one, on a processor with it): the SSE2 and AVX2
/// forms compute in `f32` and take microcode assists on Intel processors where the samples'
/// differences are subnormal. The bits of `[x₁, x₂, y₁, y₂]`; `None` elsewhere and for `f64`
/// (whose samples' differences are subnormal only below about 2⁻⁹⁷⁰).
#[cfg(all(target_arch = "x86_64", not(target_feature = "avx512f")))]
#[inline(always)]
fn rt512_noise32<T: StochFloat>(x: &Stochastic<T>, y: &Stochastic<T>) -> Option<u32> {
    use core::any::TypeId;
    if TypeId::of::<T>() != TypeId::of::<f32>() || !crate::rt512::on() {
        return None;
    }
    // SAFETY: `T` is `f32` (tested above): these copy the values' own lanes.
    let (a, b) = unsafe {
        (
            core::mem::transmute_copy::<[T; 4], [f32; 4]>(&x.a()),
            core::mem::transmute_copy::<[T; 4], [f32; 4]>(&y.a()),
        )
    };
    Some(crate::rt512::noise_f32(a, b))
}

/// `maybe_noise(x) | maybe_noise(y)`, tested together.
#[inline(always)]
fn maybe_noise2<T: StochFloat>(x: &Stochastic<T>, y: &Stochastic<T>) -> bool {
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
fn far_samples<T: StochFloat>(s: &[T; 4]) -> bool {
    let (x, k) = (s[0].abs(), T::from_f64(SPREAD_FACTOR));
    ((s[1] - s[0]).abs() * k > x) | ((s[2] - s[0]).abs() * k > x)
}

/// The pre-tests with SSE2 (x86-64 without AVX2 and FMA, the default target): the same test as
/// [`far_samples`], with no broadcast or blend that SSE2 lacks, per `f64` value one unpack, one
/// shuffle, one subtraction, two sign masks, one product and one comparison, and one `movmsk`
/// for the test; an `f32` value is one register (the compiler's own code for [`far_samples`]
/// takes a third more instructions, and the loops of a default-target build wait on the
/// instruction stream). `None` for a type other than `f64` and `f32`.
#[cfg(all(
    target_arch = "x86_64",
    not(all(target_feature = "avx2", target_feature = "fma"))
))]
mod sse2 {
    use core::any::TypeId;
    use core::arch::x86_64::*;

    use super::SPREAD_FACTOR;
    use crate::{StochFloat, Stochastic};

    /// `42·|s − x| > |x|` for samples `y` and `z` (lanes 0 and 1), `x` the first sample.
    #[inline(always)]
    fn far64(s: [f64; 4]) -> __m128d {
        // SAFETY: [f64; 4] and [__m128d; 2] are 32 bytes of plain data, in order.
        let [lo, hi] = unsafe { core::mem::transmute::<[f64; 4], [__m128d; 2]>(s) };
        // SAFETY: SSE2 is part of x86-64.
        unsafe {
            let abs = _mm_castsi128_pd(_mm_set1_epi64x(i64::MAX));
            let x = _mm_unpacklo_pd(lo, lo);
            let yz = _mm_shuffle_pd::<0b01>(lo, hi);
            let d = _mm_and_pd(_mm_sub_pd(yz, x), abs);
            _mm_cmplt_pd(
                _mm_and_pd(x, abs),
                _mm_mul_pd(d, _mm_set1_pd(SPREAD_FACTOR)),
            )
        }
    }

    /// The same on `f32` lanes, in lanes 1 and 2 (lane 3, the flags lane, is not read).
    #[inline(always)]
    fn far32(s: [f32; 4]) -> __m128 {
        // SAFETY: 16 bytes of plain data.
        let v = unsafe { core::mem::transmute::<[f32; 4], __m128>(s) };
        // SAFETY: SSE2 is part of x86-64.
        unsafe {
            let abs = _mm_castsi128_ps(_mm_set1_epi32(i32::MAX));
            let x = _mm_shuffle_ps::<0>(v, v);
            let d = _mm_and_ps(_mm_sub_ps(v, x), abs);
            _mm_cmplt_ps(
                _mm_and_ps(x, abs),
                _mm_mul_ps(d, _mm_set1_ps(SPREAD_FACTOR as f32)),
            )
        }
    }

    /// The lanes of `v` as `[U; 4]`, where `T` is `U`.
    #[inline(always)]
    fn lanes<T: StochFloat, U: 'static>(v: &Stochastic<T>) -> Option<[U; 4]> {
        (TypeId::of::<T>() == TypeId::of::<U>()).then(|| {
            // SAFETY: `T` is `U` (tested above): this copies the value's own lanes.
            unsafe { core::mem::transmute_copy::<[T; 4], [U; 4]>(&v.a()) }
        })
    }

    /// [`maybe_noise`](super::maybe_noise).
    #[inline(always)]
    pub(super) fn far1<T: StochFloat>(v: &Stochastic<T>) -> Option<bool> {
        if let Some(s) = lanes::<T, f64>(v) {
            // SAFETY: SSE2 is part of x86-64.
            return Some(unsafe { _mm_movemask_pd(far64(s)) } != 0);
        }
        if let Some(s) = lanes::<T, f32>(v) {
            // SAFETY: as above.
            return Some(unsafe { _mm_movemask_ps(far32(s)) } & 0b0110 != 0);
        }
        None
    }

    /// [`maybe_noise2`](super::maybe_noise2).
    #[inline(always)]
    pub(super) fn far2<T: StochFloat>(x: &Stochastic<T>, y: &Stochastic<T>) -> Option<bool> {
        if let (Some(a), Some(b)) = (lanes::<T, f64>(x), lanes::<T, f64>(y)) {
            // SAFETY: SSE2 is part of x86-64.
            return Some(unsafe { _mm_movemask_pd(_mm_or_pd(far64(a), far64(b))) } != 0);
        }
        if let (Some(a), Some(b)) = (lanes::<T, f32>(x), lanes::<T, f32>(y)) {
            // SAFETY: as above.
            let m = unsafe { _mm_movemask_ps(_mm_or_ps(far32(a), far32(b))) };
            return Some(m & 0b0110 != 0);
        }
        None
    }
}

/// The pre-tests on the vector registers that hold the lanes (x86-64 with AVX2 and FMA): per
/// value one broadcast of `x`, one subtraction, two sign masks and one fused multiply-add,
/// `|x| − 42·|s − x|`, whose sign bits (set where a sample is far from `x`, and for NaN) one
/// `movmsk` reads; two `f32` values share one 256-bit register. `None` for a lane type other
/// than these registers.
#[cfg(all(
    target_arch = "x86_64",
    target_feature = "avx2",
    target_feature = "fma"
))]
mod vector {
    use core::any::TypeId;
    use core::arch::x86_64::*;

    use super::SPREAD_FACTOR;
    use crate::rounding::{L32, L64};
    use crate::{StochFloat, Stochastic};

    /// `|x| − 42·|v − x|` per lane, `x` the first lane.
    #[inline(always)]
    fn far64(v: __m256d) -> __m256d {
        // SAFETY: AVX2 and FMA are enabled for this target (module cfg).
        unsafe {
            let abs = _mm256_castsi256_pd(_mm256_set1_epi64x(i64::MAX));
            let x = _mm256_permute4x64_pd::<0>(v);
            let d = _mm256_and_pd(_mm256_sub_pd(v, x), abs);
            _mm256_fnmadd_pd(d, _mm256_set1_pd(SPREAD_FACTOR), _mm256_and_pd(x, abs))
        }
    }

    /// The same for one or two `f32` values (lanes 0-3 and 4-7, each against its own first
    /// lane) in a build with AVX-512 (F and VL): the lanes widened to `f64` first, then
    /// `42·|v − x| > |x|`, one bit per lane (set where a sample is far from `x`). In `f32`, the
    /// difference of two samples of a value below about 2⁻¹⁰³ is subnormal, and an addition
    /// whose result is subnormal, or a product with a subnormal operand or result, takes a
    /// microcode assist of about 100 cycles on Intel processors; in `f64` none of these values
    /// is subnormal (the run-time path's `f32` pre-tests compute in `f64` for the same reason).
    #[cfg(all(target_feature = "avx512f", target_feature = "avx512vl"))]
    #[inline(always)]
    fn far32_bits(v: __m256) -> u8 {
        // SAFETY: AVX-512F is enabled for this target (cfg above).
        unsafe {
            let w = _mm512_cvtps_pd(v);
            let x = _mm512_permutex_pd::<0>(w);
            let d = _mm512_abs_pd(_mm512_sub_pd(w, x));
            _mm512_cmp_pd_mask::<_CMP_LT_OQ>(
                _mm512_abs_pd(x),
                _mm512_mul_pd(d, _mm512_set1_pd(SPREAD_FACTOR)),
            )
        }
    }

    /// The same for one or two `f32` values (lanes 0-3 and 4-7, each against its own first
    /// lane).
    #[cfg(not(all(target_feature = "avx512f", target_feature = "avx512vl")))]
    #[inline(always)]
    fn far32(v: __m256) -> __m256 {
        // SAFETY: AVX2 and FMA are enabled for this target (module cfg).
        unsafe {
            let abs = _mm256_castsi256_ps(_mm256_set1_epi32(i32::MAX));
            let x = _mm256_permute_ps::<0>(v);
            let d = _mm256_and_ps(_mm256_sub_ps(v, x), abs);
            _mm256_fnmadd_ps(
                d,
                _mm256_set1_ps(SPREAD_FACTOR as f32),
                _mm256_and_ps(x, abs),
            )
        }
    }

    #[inline(always)]
    fn is64<T: StochFloat>() -> bool {
        TypeId::of::<T::Lanes>() == TypeId::of::<L64>()
    }

    #[inline(always)]
    fn is32<T: StochFloat>() -> bool {
        TypeId::of::<T::Lanes>() == TypeId::of::<L32>()
    }

    /// The register of an `f64` value; only where `is64::<T>()`.
    #[inline(always)]
    fn r64<T: StochFloat>(v: &Stochastic<T>) -> __m256d {
        debug_assert!(is64::<T>());
        // SAFETY: `T::Lanes` is `L64` (the callers test `is64`), so this copies the value's own
        // type.
        unsafe { core::mem::transmute_copy::<T::Lanes, L64>(&v.v).0 }
    }

    /// The register of an `f32` value; only where `is32::<T>()`.
    #[inline(always)]
    fn r32<T: StochFloat>(v: &Stochastic<T>) -> __m128 {
        debug_assert!(is32::<T>());
        // SAFETY: `T::Lanes` is `L32` (the callers test `is32`).
        unsafe { core::mem::transmute_copy::<T::Lanes, L32>(&v.v).0 }
    }

    /// [`maybe_noise`](super::maybe_noise) on the register.
    #[inline(always)]
    pub(super) fn far1<T: StochFloat>(v: &Stochastic<T>) -> Option<bool> {
        if is64::<T>() {
            // SAFETY: AVX2 is enabled for this target (module cfg).
            let m = unsafe { _mm256_movemask_pd(far64(r64(v))) };
            return Some(m & 0b0110 != 0);
        }
        if is32::<T>() {
            #[cfg(all(target_feature = "avx512f", target_feature = "avx512vl"))]
            // SAFETY: AVX is enabled; the upper half of the register is undefined and its
            // lanes are masked out.
            let m = far32_bits(unsafe { _mm256_castps128_ps256(r32(v)) });
            #[cfg(not(all(target_feature = "avx512f", target_feature = "avx512vl")))]
            // SAFETY: AVX2 is enabled; the upper half of `w` is undefined and its signs are
            // masked out.
            let m = unsafe { _mm256_movemask_ps(far32(_mm256_castps128_ps256(r32(v)))) };
            return Some(m & 0b0110 != 0);
        }
        None
    }

    /// The pre-test of [`check_add`](super::check_add) for an `f64` sum `r = a + b` with
    /// AVX-512 (F, DQ and VL): [`add_pre64_avx512`](super::add_pre64_avx512). `None` for
    /// `f32`.
    #[cfg(all(
        target_feature = "avx512f",
        target_feature = "avx512dq",
        target_feature = "avx512vl"
    ))]
    #[inline(always)]
    pub(super) fn add_pre<T: StochFloat>(
        a: &Stochastic<T>,
        b: &Stochastic<T>,
        r: &Stochastic<T>,
        factor: T,
        collapse_on: bool,
    ) -> Option<bool> {
        if !is64::<T>() {
            return None;
        }
        // SAFETY: AVX-512F, DQ and VL are enabled for this target (cfg above).
        let k = unsafe { super::add_pre64_avx512(r64(a), r64(b), r64(r), factor.to_f64()) };
        Some(k & if collapse_on { 0b0111 } else { 0b0001 } != 0)
    }

    /// [`exact_product`](super::exact_product) on the register of two `f32` values. The
    /// magnitude test multiplies the `x` samples in `f64`, where the product of two `f32`
    /// values is never subnormal: in `f32`, a product with a subnormal operand or result takes
    /// a microcode assist of about 100 cycles on Intel processors. Where the samples are equal
    /// (the only case the test lets through), lane 0 answers for all three.
    #[inline(always)]
    fn exact32(a: __m128, b: __m128) -> bool {
        // SAFETY: SSE2 is part of x86-64.
        let (ne, small) = unsafe {
            let ne = _mm_or_ps(
                _mm_cmpneq_ps(a, _mm_shuffle_ps::<0>(a, a)),
                _mm_cmpneq_ps(b, _mm_shuffle_ps::<0>(b, b)),
            );
            let p = _mm_mul_sd(_mm_cvtps_pd(a), _mm_cvtps_pd(b));
            let abs = _mm_castsi128_pd(_mm_set1_epi64x(i64::MAX));
            let small = _mm_cmpnge_sd(
                _mm_and_pd(p, abs),
                _mm_set_sd(2.0 * f64::from(f32::MIN_POSITIVE)),
            );
            (_mm_movemask_ps(ne), _mm_movemask_pd(small))
        };
        (ne & 0b0111) | (small & 1) == 0
    }

    /// [`exact_product`](super::exact_product) on the registers of two `f64` values: the
    /// samples y and z compared with x in both, one `movmsk`, and the magnitude test on the
    /// product of the x samples. `None` for `f32`.
    #[inline(always)]
    pub(super) fn exact_product<T: StochFloat>(
        a: &Stochastic<T>,
        b: &Stochastic<T>,
    ) -> Option<bool> {
        if is32::<T>() {
            return Some(exact32(r32(a), r32(b)));
        }
        if !is64::<T>() {
            return None;
        }
        let (a, b) = (r64(a), r64(b));
        // SAFETY: AVX2 is enabled for this target (module cfg).
        let m = unsafe {
            let abs = _mm256_castsi256_pd(_mm256_set1_epi64x(i64::MAX));
            let x = _mm256_permute4x64_pd::<0>(a);
            let y = _mm256_permute4x64_pd::<0>(b);
            let ne = _mm256_or_pd(
                _mm256_cmp_pd::<_CMP_NEQ_UQ>(a, x),
                _mm256_cmp_pd::<_CMP_NEQ_UQ>(b, y),
            );
            // Lanes 0-2: not |aᵢ·bᵢ| ≥ 2·MIN_POSITIVE (a NaN product included); where the
            // samples are equal, the three lanes are lane 0's test.
            let small = _mm256_cmp_pd::<_CMP_NGE_UQ>(
                _mm256_and_pd(_mm256_mul_pd(a, b), abs),
                _mm256_set1_pd(2.0 * f64::MIN_POSITIVE),
            );
            _mm256_movemask_pd(_mm256_or_pd(ne, small))
        };
        Some(m & 0b0111 == 0)
    }

    /// [`maybe_noise2`](super::maybe_noise2) on the registers.
    #[inline(always)]
    pub(super) fn far2<T: StochFloat>(x: &Stochastic<T>, y: &Stochastic<T>) -> Option<bool> {
        if is64::<T>() {
            // SAFETY: AVX2 is enabled for this target (module cfg).
            let m = unsafe { _mm256_movemask_pd(_mm256_or_pd(far64(r64(x)), far64(r64(y)))) };
            return Some(m & 0b0110 != 0);
        }
        if is32::<T>() {
            #[cfg(all(target_feature = "avx512f", target_feature = "avx512vl"))]
            // SAFETY: AVX is enabled for this target (module cfg).
            let m = far32_bits(unsafe { _mm256_set_m128(r32(y), r32(x)) });
            #[cfg(not(all(target_feature = "avx512f", target_feature = "avx512vl")))]
            // SAFETY: AVX2 is enabled for this target (module cfg).
            let m = unsafe { _mm256_movemask_ps(far32(_mm256_set_m128(r32(y), r32(x)))) };
            return Some(m & 0b0110_0110 != 0);
        }
        None
    }
}

/// The pre-test of [`check_add`] for an `f64` sum `r = a + b` in a build with AVX-512 (F, DQ
/// and VL), on the values' registers: one comparison of `|r₀|` with three lanes,
/// `[F·m, min(m, 42·|r₁ − r₀|), min(m, 42·|r₂ − r₀|)]`, where `m = max(|a₀|, |b₀|)` and `F`
/// is `factor`, the cancellation factor. Returns the comparison's mask: bit 0 a possible
/// cancellation, bits 1 and 2 a possible accuracy collapse (the caller keeps them where
/// collapses are detected). That is the portable test (`|r₀| < F·m`, or `|r₀| < m` and
/// `42·|rᵢ − r₀| > |r₀|`), with the same roundings, in 12 vector instructions and one branch
/// instead of 13 and two: the checked loops wait on the vector instructions that follow a
/// running sum (Zen 5, native build, checks on: dot 5.7x -> 5.5x the plain time, matmul 8.1x
/// -> 7.9x).
///
/// One difference: the range instruction that takes the smaller magnitude returns the number
/// when the other operand is a NaN, so a NaN sample `rᵢ` passes where `|r₀| < m`. The checks
/// behind the pre-test record nothing there: a NaN sample of a sum needs a NaN or infinite
/// sample in an operand, which then has no significant digit, and NaN samples are not noise.
/// A form that excludes it (`vminpd`, whose result is its second operand where one is a NaN,
/// after a sign mask on `42·(rᵢ − r₀)`), written in assembly, measured no gain over the test
/// before (dot 5.7x, matmul 8.15x).
///
/// A function with the target features of its own, so that it compiles in any crate that
/// instantiates the generic operators (only a caller built with those features inlines it),
/// and so that the tests of every build can run it where the processor has them.
///
/// # Safety
///
/// The processor must have AVX-512F, DQ and VL.
#[cfg(target_arch = "x86_64")]
#[cfg_attr(
    not(all(
        target_feature = "avx512f",
        target_feature = "avx512dq",
        target_feature = "avx512vl"
    )),
    allow(dead_code)
)]
#[target_feature(enable = "avx512f,avx512dq,avx512vl")]
#[inline]
unsafe fn add_pre64_avx512(
    a: core::arch::x86_64::__m256d,
    b: core::arch::x86_64::__m256d,
    r: core::arch::x86_64::__m256d,
    factor: f64,
) -> u8 {
    use core::arch::x86_64::*;
    let abs = _mm256_castsi256_pd(_mm256_set1_epi64x(i64::MAX));
    let x = _mm256_permute4x64_pd::<0>(r);
    let d42 = _mm256_mul_pd(_mm256_sub_pd(r, x), _mm256_set1_pd(SPREAD_FACTOR));
    // m = max(|a₀|, |b₀|): range operation 0b1011, the larger magnitude, sign cleared.
    let m = _mm_maskz_range_sd::<0b1011>(1, _mm256_castpd256_pd128(a), _mm256_castpd256_pd128(b));
    let fm = _mm_mul_sd(m, _mm_set_sd(factor));
    // Lanes 1 and 2: the smaller magnitude of m and 42·(rᵢ − r₀), sign cleared; lane 0 F·m
    // (lane 3 is undefined and left out).
    let v = _mm256_mask_range_pd::<0b1010>(
        _mm256_castpd128_pd256(fm),
        0b0110,
        _mm256_broadcastsd_pd(m),
        d42,
    );
    _mm256_cmp_pd_mask::<_CMP_LT_OQ>(_mm256_and_pd(x, abs), v) & 0b0111
}

/// The accuracy-collapse check of every operation but `+`, `−`, `*`, `/` and `mul_add` (which
/// test their operands too, in one pre-test): records a collapse at `loc` when the result `r` is
/// numerical noise while no stochastic operand in `ops` is (plain operands are left out of
/// `ops`; see [`collapse_slow`] on exact zeros). The common case costs the pre-test
/// [`maybe_noise`] on `r` only, behind a branch on the collapse bit of `mask`: with collapse
/// detection off the pre-test is not computed (it was, branch-free, before: on a Xeon, Emerald
/// Rapids, the `overhead` example's wave with every check off ran its products by plain
/// coefficients through it, 1.33-1.99 s -> 1.20-1.51 s in alternating runs).
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
fn collapses<T: StochFloat>(r: &[T; 3], ops: &[[T; 3]]) -> bool {
    is_noise(r) && !ops.iter().any(is_noise)
}

/// The slow path of [`check_collapse`], out of line.
#[cold]
#[inline(never)]
fn collapse_slow<T: StochFloat>(r: &[T; 3], ops: &[[T; 3]], loc: &'static Location<'static>) {
    if collapses(r, ops) {
        record_collapse(loc);
    }
}

/// The collapse check of an operation on one stochastic operand `a` and a plain one.
#[inline(always)]
fn check_plain<T: StochFloat>(
    a: Stochastic<T>,
    r: Stochastic<T>,
    loc: &'static Location<'static>,
) -> Stochastic<T> {
    check_collapse(r, [a], config::mask(), loc);
    r
}

/// Multiplication check (both operands stochastic and both numerical noise) and accuracy
/// collapse, for `r = a·b` (`a·b + c` with `c`). One pre-test covers both: a Multiplication
/// needs `a` to be noise, a collapse needs `r` to be.
#[inline(always)]
fn check_mul<T: StochFloat>(
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
fn mul_hit<T: StochFloat>(
    a: Stochastic<T>,
    b: Stochastic<T>,
    c: Option<Stochastic<T>>,
    r: Stochastic<T>,
    mask: u8,
    loc: &'static Location<'static>,
) -> Stochastic<T> {
    let args = (a.s(), b.s(), c.map(|c| c.s()), r.s(), mask, loc);
    let bits = cold::run(args, |c| mul_slow(&c.0, &c.1, c.2, &c.3, c.4, c.5));
    if bits != 0 {
        return r.or_flags(bits);
    }
    r
}

#[cold]
#[inline(never)]
fn mul_slow<T: StochFloat>(
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
fn check_div<T: StochFloat>(
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
fn div_hit<T: StochFloat>(
    a: Stochastic<T>,
    b: Stochastic<T>,
    r: Stochastic<T>,
    mask: u8,
    loc: &'static Location<'static>,
) -> Stochastic<T> {
    let bits = cold::run((a.s(), b.s(), r.s(), mask, loc), |c| {
        div_slow(&c.0, &c.1, &c.2, c.3, c.4)
    });
    if bits != 0 {
        return r.or_flags(bits);
    }
    r
}

#[cold]
#[inline(never)]
fn div_slow<T: StochFloat>(
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

impl<T: StochFloat> Add for Stochastic<T> {
    type Output = Self;
    /// Random rounding of each sample's sum.
    ///
    /// # Instability
    ///
    /// Cancellation when the result lost `cancel_level` digits; an accuracy collapse when two
    /// significant operands give a computed zero.
    #[track_caller]
    #[inline(always)]
    fn add(self, rhs: Self) -> Self {
        add_op(self, rhs, false, false, Location::caller())
    }
}

impl<T: StochFloat> Sub for Stochastic<T> {
    type Output = Self;
    /// Random rounding of each sample's difference.
    ///
    /// # Instability
    ///
    /// As [`Add`].
    #[track_caller]
    #[inline(always)]
    fn sub(self, rhs: Self) -> Self {
        add_op(self, -rhs, false, true, Location::caller())
    }
}

impl<T: StochFloat> Mul for Stochastic<T> {
    type Output = Self;
    /// Random rounding of each sample's product.
    ///
    /// # Instability
    ///
    /// Multiplication, when both operands are numerical noise; an accuracy collapse when two
    /// significant operands give numerical noise.
    #[track_caller]
    #[inline(always)]
    fn mul(self, rhs: Self) -> Self {
        mul_op(self, rhs, Location::caller())
    }
}

impl<T: StochFloat> Div for Stochastic<T> {
    type Output = Self;
    /// Random rounding of each sample's quotient.
    ///
    /// # Instability
    ///
    /// Division, when the divisor is numerical noise (an exact zero divisor is IEEE division
    /// by zero and is not counted); an accuracy collapse when two significant operands give
    /// numerical noise.
    #[track_caller]
    #[inline(always)]
    fn div(self, rhs: Self) -> Self {
        div_op(self, rhs, Location::caller())
    }
}

impl<T: StochFloat> Rem for Stochastic<T> {
    type Output = Self;
    /// Remainder per sample (exact in IEEE arithmetic).
    ///
    /// # Instability
    ///
    /// Intrinsic, when the samples' truncated quotients differ; an accuracy collapse when two
    /// significant operands give numerical noise (`%` is a subtraction in disguise).
    #[track_caller]
    #[inline]
    fn rem(self, rhs: Self) -> Self {
        let s = core::array::from_fn(|i| self.a()[i] % rhs.a()[i]);
        let r = Self::from_parts_raw(s, self.fl() | rhs.fl());
        let mask = config::mask_init();
        check_collapse(r, [self, rhs], mask, Location::caller());
        let q: [T; 3] = core::array::from_fn(|i| (self.a()[i] / rhs.a()[i]).trunc());
        if mask & Instability::Intrinsic.bit() != 0 && (q[0] != q[1] || q[1] != q[2]) {
            return r.flag(
                Instability::Intrinsic,
                Location::caller(),
                &[&self.s(), &rhs.s()],
            );
        }
        r
    }
}

impl<T: StochFloat> Neg for Stochastic<T> {
    type Output = Self;
    /// Exact: every sample changes sign.
    #[inline]
    fn neg(self) -> Self {
        Self::from_parts_raw(self.s().map(|x| -x), self.fl())
    }
}

impl<T: StochFloat> Neg for &Stochastic<T> {
    type Output = Stochastic<T>;
    #[inline]
    fn neg(self) -> Stochastic<T> {
        -*self
    }
}

/// Reference forms, the scalar right-hand side and the assign forms, all forwarding to the one
/// real impl above.
macro_rules! forward_binop {
    ($($imp:ident::$m:ident, $imp_a:ident::$m_a:ident;)*) => {$(
        impl<T: StochFloat> $imp<&Stochastic<T>> for Stochastic<T> {
            type Output = Stochastic<T>;
            #[track_caller]
            #[inline(always)]
            fn $m(self, rhs: &Stochastic<T>) -> Stochastic<T> { $imp::$m(self, *rhs) }
        }
        impl<T: StochFloat> $imp<Stochastic<T>> for &Stochastic<T> {
            type Output = Stochastic<T>;
            #[track_caller]
            #[inline(always)]
            fn $m(self, rhs: Stochastic<T>) -> Stochastic<T> { $imp::$m(*self, rhs) }
        }
        impl<T: StochFloat> $imp<&Stochastic<T>> for &Stochastic<T> {
            type Output = Stochastic<T>;
            #[track_caller]
            #[inline(always)]
            fn $m(self, rhs: &Stochastic<T>) -> Stochastic<T> { $imp::$m(*self, *rhs) }
        }
        impl<T: StochFloat, R> $imp_a<R> for Stochastic<T>
        where
            Stochastic<T>: $imp<R, Output = Stochastic<T>>,
        {
            #[track_caller]
            #[inline(always)]
            fn $m_a(&mut self, rhs: R) { *self = $imp::$m(*self, rhs); }
        }
    )*};
}
forward_binop! {
    Add::add, AddAssign::add_assign;
    Sub::sub, SubAssign::sub_assign;
    Mul::mul, MulAssign::mul_assign;
    Div::div, DivAssign::div_assign;
    Rem::rem, RemAssign::rem_assign;
}

/// `Stochastic<T> op T` and `T op Stochastic<T>`: the plain operand is exact and is left out of
/// the checks that need two stochastic operands (and of the collapse check's operands).
macro_rules! scalar_ops {
    ($($t:ty),*) => {$(
        impl Add<$t> for Stochastic<$t> {
            type Output = Stochastic<$t>;
            #[track_caller]
            #[inline(always)]
            fn add(self, rhs: $t) -> Self::Output {
                add_op(self, Stochastic::new(rhs), true, false, Location::caller())
            }
        }
        impl Sub<$t> for Stochastic<$t> {
            type Output = Stochastic<$t>;
            #[track_caller]
            #[inline(always)]
            fn sub(self, rhs: $t) -> Self::Output {
                add_op(self, Stochastic::new(-rhs), true, true, Location::caller())
            }
        }
        impl Mul<$t> for Stochastic<$t> {
            type Output = Stochastic<$t>;
            #[track_caller]
            #[inline(always)]
            fn mul(self, rhs: $t) -> Self::Output {
                check_plain(self, self.raw_mul(Stochastic::new(rhs)), Location::caller())
            }
        }
        impl Div<$t> for Stochastic<$t> {
            type Output = Stochastic<$t>;
            #[track_caller]
            #[inline(always)]
            fn div(self, rhs: $t) -> Self::Output {
                check_plain(self, self.raw_div(Stochastic::new(rhs)), Location::caller())
            }
        }
        impl Rem<$t> for Stochastic<$t> {
            type Output = Stochastic<$t>;
            #[track_caller]
            #[inline]
            fn rem(self, rhs: $t) -> Self::Output {
                self % Stochastic::new(rhs)
            }
        }
        impl Add<Stochastic<$t>> for $t {
            type Output = Stochastic<$t>;
            #[track_caller]
            #[inline(always)]
            fn add(self, rhs: Stochastic<$t>) -> Self::Output {
                rhs + self
            }
        }
        impl Sub<Stochastic<$t>> for $t {
            type Output = Stochastic<$t>;
            #[track_caller]
            #[inline(always)]
            fn sub(self, rhs: Stochastic<$t>) -> Self::Output {
                (-rhs) + self
            }
        }
        impl Mul<Stochastic<$t>> for $t {
            type Output = Stochastic<$t>;
            #[track_caller]
            #[inline(always)]
            fn mul(self, rhs: Stochastic<$t>) -> Self::Output {
                check_plain(rhs, Stochastic::new(self).raw_mul(rhs), Location::caller())
            }
        }
        impl Div<Stochastic<$t>> for $t {
            type Output = Stochastic<$t>;
            #[track_caller]
            #[inline(always)]
            fn div(self, rhs: Stochastic<$t>) -> Self::Output {
                Stochastic::new(self) / rhs
            }
        }
        impl Rem<Stochastic<$t>> for $t {
            type Output = Stochastic<$t>;
            #[track_caller]
            #[inline]
            fn rem(self, rhs: Stochastic<$t>) -> Self::Output {
                Stochastic::new(self) % rhs
            }
        }
        impl Add<&$t> for Stochastic<$t> {
            type Output = Stochastic<$t>;
            #[track_caller]
            #[inline(always)]
            fn add(self, rhs: &$t) -> Self::Output { self + *rhs }
        }
        impl Sub<&$t> for Stochastic<$t> {
            type Output = Stochastic<$t>;
            #[track_caller]
            #[inline(always)]
            fn sub(self, rhs: &$t) -> Self::Output { self - *rhs }
        }
        impl Mul<&$t> for Stochastic<$t> {
            type Output = Stochastic<$t>;
            #[track_caller]
            #[inline(always)]
            fn mul(self, rhs: &$t) -> Self::Output { self * *rhs }
        }
        impl Div<&$t> for Stochastic<$t> {
            type Output = Stochastic<$t>;
            #[track_caller]
            #[inline(always)]
            fn div(self, rhs: &$t) -> Self::Output { self / *rhs }
        }
        impl Add<&Stochastic<$t>> for $t {
            type Output = Stochastic<$t>;
            #[track_caller]
            #[inline(always)]
            fn add(self, rhs: &Stochastic<$t>) -> Self::Output { self + *rhs }
        }
        impl Sub<&Stochastic<$t>> for $t {
            type Output = Stochastic<$t>;
            #[track_caller]
            #[inline(always)]
            fn sub(self, rhs: &Stochastic<$t>) -> Self::Output { self - *rhs }
        }
        impl Mul<&Stochastic<$t>> for $t {
            type Output = Stochastic<$t>;
            #[track_caller]
            #[inline(always)]
            fn mul(self, rhs: &Stochastic<$t>) -> Self::Output { self * *rhs }
        }
        impl Div<&Stochastic<$t>> for $t {
            type Output = Stochastic<$t>;
            #[track_caller]
            #[inline(always)]
            fn div(self, rhs: &Stochastic<$t>) -> Self::Output { self / *rhs }
        }
    )*};
}
scalar_ops!(f32, f64);

/// The remaining reference mixes that std has for `f64` (`&f64 + f64`, `&f64 + &f64`, ...):
/// `&Stochastic<T> op T`, `&Stochastic<T> op &T`, `&T op Stochastic<T>`, `&T op &Stochastic<T>`,
/// and `Rem` with a reference, so that `x + 1.0` with `x: &f64` from an iterator keeps
/// compiling under `#[stochastic]`. Each forwards to the by-value form.
macro_rules! scalar_ref_ops {
    ($($t:ty),*) => {$(scalar_ref_ops!(@ $t; Add::add, Sub::sub, Mul::mul, Div::div, Rem::rem);)*};
    (@ $t:ty; $($imp:ident::$m:ident),*) => {$(
        impl $imp<$t> for &Stochastic<$t> {
            type Output = Stochastic<$t>;
            #[track_caller]
            #[inline(always)]
            fn $m(self, rhs: $t) -> Self::Output { $imp::$m(*self, rhs) }
        }
        impl $imp<&$t> for &Stochastic<$t> {
            type Output = Stochastic<$t>;
            #[track_caller]
            #[inline(always)]
            fn $m(self, rhs: &$t) -> Self::Output { $imp::$m(*self, *rhs) }
        }
        impl $imp<Stochastic<$t>> for &$t {
            type Output = Stochastic<$t>;
            #[track_caller]
            #[inline(always)]
            fn $m(self, rhs: Stochastic<$t>) -> Self::Output { $imp::$m(*self, rhs) }
        }
        impl $imp<&Stochastic<$t>> for &$t {
            type Output = Stochastic<$t>;
            #[track_caller]
            #[inline(always)]
            fn $m(self, rhs: &Stochastic<$t>) -> Self::Output { $imp::$m(*self, *rhs) }
        }
    )*};
}
scalar_ref_ops!(f32, f64);

macro_rules! scalar_rem_ref {
    ($($t:ty),*) => {$(
        impl Rem<&$t> for Stochastic<$t> {
            type Output = Stochastic<$t>;
            #[track_caller]
            #[inline]
            fn rem(self, rhs: &$t) -> Self::Output { self % *rhs }
        }
        impl Rem<&Stochastic<$t>> for $t {
            type Output = Stochastic<$t>;
            #[track_caller]
            #[inline]
            fn rem(self, rhs: &Stochastic<$t>) -> Self::Output { self % *rhs }
        }
    )*};
}
scalar_rem_ref!(f32, f64);

/// Site attribution: `Iterator::sum` and `Iterator::product` in the standard library are not
/// `#[track_caller]`, so an instability inside them is reported at the standard library's
/// `iterator.rs`, not at the user's call. Write the loop (or `fold(.., |a, x| a + x)`) where the
/// line matters.
impl<T: StochFloat> Sum for Stochastic<T> {
    /// Left-to-right stochastic sum, starting from an exact zero.
    #[track_caller]
    fn sum<I: Iterator<Item = Self>>(iter: I) -> Self {
        let loc = Location::caller();
        iter.fold(Self::ZERO, |acc, x| add_op(acc, x, false, false, loc))
    }
}

impl<'a, T: StochFloat> Sum<&'a Stochastic<T>> for Stochastic<T> {
    /// Left-to-right stochastic sum, starting from an exact zero.
    #[track_caller]
    fn sum<I: Iterator<Item = &'a Self>>(iter: I) -> Self {
        let loc = Location::caller();
        iter.fold(Self::ZERO, |acc, x| add_op(acc, *x, false, false, loc))
    }
}

impl<T: StochFloat> Product for Stochastic<T> {
    /// Left-to-right stochastic product, starting from an exact one.
    #[track_caller]
    fn product<I: Iterator<Item = Self>>(iter: I) -> Self {
        let loc = Location::caller();
        iter.fold(Self::ONE, |acc, x| mul_op(acc, x, loc))
    }
}

impl<'a, T: StochFloat> Product<&'a Stochastic<T>> for Stochastic<T> {
    /// Left-to-right stochastic product, starting from an exact one.
    #[track_caller]
    fn product<I: Iterator<Item = &'a Self>>(iter: I) -> Self {
        let loc = Location::caller();
        iter.fold(Self::ONE, |acc, x| mul_op(acc, *x, loc))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_core::{Rng, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;

    /// The seed of a seeded test: `STOCH_TEST_SEED` (hexadecimal, as the failure messages
    /// print it) when set, `default` otherwise.
    fn test_seed(default: u64) -> u64 {
        std::env::var("STOCH_TEST_SEED")
            .ok()
            .and_then(|s| u64::from_str_radix(s.trim_start_matches("0x"), 16).ok())
            .unwrap_or(default)
    }

    /// Values whose samples `y` and `z` lie at relative distances from `x` around the
    /// pre-test's threshold (1/42) and up to beyond noise's (a deviation of about 0.4·|mean|),
    /// over many magnitudes, with special samples now and then.
    fn values<T: StochFloat>(r: &mut Xoshiro256PlusPlus, n: usize) -> Vec<[T; 3]> {
        let specials = [
            0.0,
            -0.0,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::MIN_POSITIVE,
            5e-324,
            f64::MAX,
        ];
        let mut u = || (r.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        (0..n)
            .map(|_| {
                let x = (u() - 0.5) * 10f64.powf(u() * 60.0 - 30.0);
                // Relative distances from 1 down to 1e-5.
                let (ty, tz) = (u() - 0.5, u() - 0.5);
                let scale = 2.0 * 10f64.powf(-5.0 * u());
                let mut s = [x, x * (1.0 + ty * scale), x * (1.0 + tz * scale)];
                if u() < 0.1 {
                    s[(u() * 3.0) as usize] = specials[(u() * 8.0) as usize];
                }
                if u() < 0.1 {
                    s[1] = s[0];
                }
                s.map(T::from_f64)
            })
            .collect()
    }

    /// Whether `q` lies within a rounding (2⁻²⁰ relative, far above `f32`'s or `f64`'s
    /// last bit) of `p`.
    fn near_rounding(p: f64, q: f64) -> bool {
        (p - q).abs() <= p.abs() * 2f64.powi(-20)
    }

    /// Whether the noise pre-test of sample `i` of `s` is at its edge, `42·|sᵢ − s₀|` within a
    /// rounding of `|s₀|`, where the forms of the test (rounded in `T`, in `f64`, or fused) may
    /// answer differently.
    fn spread_edge<T: StochFloat>(s: &[T; 4], i: usize) -> bool {
        let (x, y) = (s[0].to_f64(), s[i].to_f64());
        near_rounding(SPREAD_FACTOR * (y - x).abs(), x.abs())
    }

    fn check<T: StochFloat>(seed: u64) {
        // The run-time AVX-512 path's form is taken once the path is chosen.
        #[cfg(all(target_arch = "x86_64", not(target_feature = "avx512f")))]
        crate::rt512::ensure_detected();
        let mut r = Xoshiro256PlusPlus::seed_from_u64(seed);
        // A tenth of them scaled down to where the differences of their samples are subnormal.
        let tiny = T::from_f64(2f64.powi(if T::MAX_DIGITS > 7 { -1000 } else { -100 }));
        let vs: Vec<Stochastic<T>> = values::<T>(&mut r, 20_000)
            .into_iter()
            .enumerate()
            .map(|(i, s)| {
                Stochastic::from_samples(if i % 10 == 0 { s.map(|x| x * tiny) } else { s })
            })
            .collect();
        for (i, v) in vs.iter().enumerate() {
            let w = &vs[(i * 7 + 3) % vs.len()];
            // Complete: every noise value passes (the pre-tests only skip the exact checks).
            if is_noise(&v.s()) {
                assert!(maybe_noise(v), "{v:?} is noise (seed {seed:#x})");
                assert!(
                    maybe_noise2(v, w) && maybe_noise2(w, v),
                    "{v:?} (seed {seed:#x})"
                );
            }
            // Three equal finite samples never pass.
            let s = v.s();
            if s[0] == s[1] && s[1] == s[2] && s[0].is_finite() {
                assert!(!maybe_noise(v), "{v:?} (seed {seed:#x})");
            }
            // Every form answers as the portable test, but where `42·|xᵢ − x₀|` lies within a
            // rounding of `|x₀|` (the forms round it differently, or not at all), or a sample
            // is not finite.
            let edge = |x: &Stochastic<T>| {
                let s = x.a();
                spread_edge(&s, 1) || spread_edge(&s, 2) || !s[..3].iter().all(|s| s.is_finite())
            };
            if !edge(v) && !edge(w) {
                let (fv, fw) = (far_samples(&v.a()), far_samples(&w.a()));
                assert_eq!(maybe_noise(v), fv, "{v:?} (seed {seed:#x})");
                assert_eq!(maybe_noise2(v, w), fv | fw, "{v:?} {w:?} (seed {seed:#x})");
            }
            // The SSE2 form is the portable test, instruction for instruction.
            #[cfg(all(
                target_arch = "x86_64",
                not(all(target_feature = "avx2", target_feature = "fma"))
            ))]
            {
                let far = far_samples(&v.a());
                assert_eq!(sse2::far1(v), Some(far), "{v:?} (seed {seed:#x})");
                let both = far | far_samples(&w.a());
                assert_eq!(sse2::far2(v, w), Some(both), "{v:?} {w:?} (seed {seed:#x})");
            }
            // The run-time path's form (`f32` on a processor with AVX-512, builds without it),
            // in `f64`: the same bits but where `42·|xᵢ − x₀|` rounded to `f32` lies within a
            // rounding of `|x₀|`, or a sample is not finite.
            #[cfg(all(target_arch = "x86_64", not(target_feature = "avx512f")))]
            if let Some(bits) = rt512_noise32(v, w) {
                for (k, (x, i)) in [(v, 1), (v, 2), (w, 1), (w, 2)].into_iter().enumerate() {
                    let s = x.a();
                    let want = (s[i] - s[0]).abs() * T::from_f64(SPREAD_FACTOR) > s[0].abs();
                    let edge = spread_edge(&s, i) || !s[..3].iter().all(|s| s.is_finite());
                    assert!(
                        (bits >> k & 1 != 0) == want || edge,
                        "{v:?} {w:?}: bits {bits:#06b} (seed {seed:#x})"
                    );
                }
            }
        }
    }

    /// The pre-tests fused into the run-time AVX-512 kernels (`rt512`) answer as the portable
    /// pre-tests, `f64` and `f32`, for every factor setting, and their results are the kernels'
    /// alone, bit for bit.
    #[cfg(target_arch = "x86_64")]
    fn check_fused<T: StochFloat>(seed: u64, rt: Fused<T>) {
        let mut r = Xoshiro256PlusPlus::seed_from_u64(seed);
        let mut vs = values::<T>(&mut r, 4_000);
        // Sums that cancel: operands of opposite signs within 10^-12 to 10^-1 of each other.
        for i in 0..2_000 {
            let v = vs[i];
            let d = T::from_f64(10f64.powi(-((i % 12) as i32) - 1));
            vs.push(v.map(|x| -(x + x * d)));
        }
        // The same values scaled down to where the differences of their samples (and, for
        // `f32`, the values themselves) are subnormal.
        let tiny = T::from_f64(2f64.powi(if T::MAX_DIGITS > 7 { -1000 } else { -100 }));
        for i in 0..1_000 {
            let v = vs[i];
            vs.push(v.map(|x| x * tiny));
        }
        let four = |s: [T; 3]| [s[0], s[1], s[2], T::flags_lane(0b0000_0101)];
        let settings = [
            (0.004, 1.0),
            (0.0, 1.0),
            (0.004, 0.0),
            (0.0, 0.0),
            (0.4, 1.0),
        ];
        for (cancel, collapse) in settings {
            let tab = crate::rt512::Tables::new(cancel, collapse);
            let (f, c) = (T::from_f64(cancel), T::from_f64(collapse));
            for i in 0..3 * vs.len() {
                let a = four(vs[i % vs.len()]);
                // A random partner, then partners that cancel `a`'s spread in a product and in
                // a quotient: the operand's own pre-test must answer, not the result's.
                let b = match i / vs.len() {
                    0 => four(vs[(i * 7919 + 1) % vs.len()]),
                    1 => four(vs[i % vs.len()].map(|x| T::ONE / x)),
                    _ => a,
                };
                let dir = crate::rounding::dir_word((i % 4) as u32) | 0x9f;
                for (op, name) in [(0, "add"), (1, "mul"), (2, "div")] {
                    let (r, hit) = (rt.pre[op])(a, b, dir, &tab);
                    let alone = (rt.kernel[op])(a, b, dir);
                    assert!(
                        r.iter()
                            .zip(alone)
                            .all(|(x, y)| StochFloat::to_f64(*x).to_bits()
                                == StochFloat::to_f64(y).to_bits()),
                        "{name}: {r:?} != {alone:?} (seed {seed:#x})"
                    );
                    // The sums' noise pre-test is a fused multiply-add (see `rt512`'s
                    // `add_test64`): the same answers but where `42·|d|` rounds to `|x|`,
                    // which random operands do not reach.
                    let want = match op {
                        0 => {
                            let (a0, b0, r0) = (a[0].abs(), b[0].abs(), r[0].abs());
                            let big = if a0 > b0 { a0 } else { b0 };
                            (r0 < f * big) | ((r0 < c * big) & far_samples(&r))
                        }
                        1 => far_samples(&a) | far_samples(&r),
                        _ => far_samples(&b) | far_samples(&r),
                    };
                    let slack32 = T::MAX_DIGITS <= 7 && {
                        // The `f32` pre-tests compute in `f64` (see `rt512::add_test32!` and
                        // `noise_pair32!`): the same answers but where `42·|xᵢ − x₀|` or `F·m`,
                        // rounded to `f32` by the portable test, lies within a rounding of
                        // `|x₀|`, or a sample is not finite.
                        let wide = |x: T| StochFloat::to_f64(x);
                        let edge = |x: [T; 4]| spread_edge(&x, 1) || spread_edge(&x, 2);
                        let (a0, b0) = (wide(a[0]).abs(), wide(b[0]).abs());
                        let fm = wide(f) * a0.max(b0);
                        let odd = a[..3]
                            .iter()
                            .chain(&b[..3])
                            .chain(&r[..3])
                            .any(|x| !x.is_finite());
                        let edges = match op {
                            0 => edge(r) | near_rounding(fm, wide(r[0]).abs()),
                            1 => edge(a) | edge(r),
                            _ => edge(b) | edge(r),
                        };
                        odd | edges
                    };
                    // The `f64` sum compares bit patterns (see `rt512::SumBounds`): it passes
                    // every sum the test above passes, and no other but those with
                    // |r₀| < 1.2·F·m, those with |r₀| < m and m < 2⁻⁹⁶⁰ where cancellation is
                    // detected, and those with a NaN operand or a sample that is not finite.
                    let may = if op == 0 && T::MAX_DIGITS > 7 {
                        let (a0, b0, r0) = (a[0].abs(), b[0].abs(), r[0].abs());
                        let m = if a0 > b0 { a0 } else { b0 };
                        let small = T::from_f64(2f64.powi(-960));
                        want | (r0 < T::from_f64(1.2) * f * m)
                            | ((f > T::ZERO) & (m < small) & (r0 < m))
                            | r[..3].iter().any(|x| !x.is_finite())
                            | ((m > T::from_f64(2.0)) & (r0 < T::from_f64(2f64.powi(-1000))))
                            | a0.is_nan()
                            | b0.is_nan()
                    } else if T::MAX_DIGITS > 7 {
                        // The `f64` product's and quotient's noise tests compare `|x₀|` with
                        // `42·max(|x₁ − x₀|, |x₂ − x₀|)` in one fused multiply-add
                        // (`rt512::noise_max64!`): the same answers but where that product
                        // rounds to `|x₀|`, or a sample is not finite.
                        let v = if op == 1 { a } else { b };
                        let edge = |x: [T; 4]| {
                            let d = (x[1] - x[0]).abs().max((x[2] - x[0]).abs());
                            let p = T::from_f64(SPREAD_FACTOR) * d;
                            (x[0].abs() - p).abs() <= p * T::from_f64(2f64.powi(-50))
                        };
                        let odd = v[..3].iter().chain(&r[..3]).any(|x| !x.is_finite());
                        want | odd | edge(v) | edge(r)
                    } else {
                        want | slack32
                    };
                    assert!(
                        (hit | !want | slack32) & (!hit | may),
                        "{name} of {a:?} and {b:?} = {r:?}: {hit}, factors {cancel}, \
                         {collapse} (seed {seed:#x})"
                    );
                    // A native build's pre-test of an `f64` sum: the same answers, but that a
                    // NaN sample y or z passes where |r₀| < m (see `add_pre64_avx512`).
                    if op == 0 {
                        if let Some(native) = (rt.native_add)(a, b, r, cancel, collapse != 0.0) {
                            let nan = r[1].is_nan() | r[2].is_nan();
                            assert!(
                                native == want || (native && nan),
                                "native add of {a:?} and {b:?} = {r:?}: {native}, factors \
                                 {cancel}, {collapse} (seed {seed:#x})"
                            );
                        }
                    }
                }
            }
        }
    }

    /// A run-time AVX-512 kernel alone.
    #[cfg(target_arch = "x86_64")]
    type Kernel<T> = fn([T; 4], [T; 4], u32) -> [T; 4];

    /// A run-time AVX-512 kernel with its fused pre-test.
    #[cfg(target_arch = "x86_64")]
    type Pre<T> = fn([T; 4], [T; 4], u32, &crate::rt512::Tables) -> ([T; 4], bool);

    /// A native build's pre-test of a sum `r = a + b` (`None` where there is none).
    #[cfg(target_arch = "x86_64")]
    type NativeAdd<T> = fn([T; 4], [T; 4], [T; 4], f64, bool) -> Option<bool>;

    /// The run-time AVX-512 kernels of one type, alone and with their fused pre-tests, and the
    /// native build's pre-test of a sum.
    #[cfg(target_arch = "x86_64")]
    struct Fused<T: 'static> {
        kernel: [Kernel<T>; 3],
        pre: [Pre<T>; 3],
        native_add: NativeAdd<T>,
    }

    /// [`add_pre64_avx512`] on arrays, with the collapse lanes kept or not as in `check_add`.
    #[cfg(target_arch = "x86_64")]
    fn native_add64(
        a: [f64; 4],
        b: [f64; 4],
        r: [f64; 4],
        factor: f64,
        collapse_on: bool,
    ) -> Option<bool> {
        use core::arch::x86_64::__m256d;
        let v = |x: [f64; 4]| {
            // SAFETY: 32 bytes of plain data.
            unsafe { core::mem::transmute::<[f64; 4], __m256d>(x) }
        };
        // SAFETY: the caller checked that the processor has AVX-512F, DQ and VL.
        let k = unsafe { add_pre64_avx512(v(a), v(b), v(r), factor) };
        Some(k & if collapse_on { 0b0111 } else { 0b0001 } != 0)
    }

    /// The run-time AVX-512 path's `f64` sum pre-test at its bounds (see `rt512::SumBounds`):
    /// sums `x + (−x·(1 + d))` with `d` from 10⁻¹⁶ to 10, at every scale from the subnormals to
    /// 2¹⁰²³, pass wherever `|r₀| < F·m` and nowhere `|r₀| ≥ 1.2·F·m` (with `m < 2⁻⁹⁶⁰` and
    /// collapses apart); seeded (`STOCH_TEST_SEED`); skipped without AVX-512.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn fused_f64_sum_pretest_at_its_bounds() {
        use crate::rt512::*;
        if !available() {
            eprintln!("skipped: this processor has no AVX-512F, DQ and VL");
            return;
        }
        let seed = test_seed(0x5b0d_5eed);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let mut u = || (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        let (mut passed, mut near) = (0, 0);
        for (cancel, level) in [(0.004, 4), (0.04, 3), (4e-12, 12), (0.4, 2)] {
            // Collapses off, so that only the cancellation bound answers.
            let tab = Tables::new(cancel, 0.0);
            for _ in 0..20_000 {
                let e = -1074 + (2097.0 * u()) as i32;
                let x = (1.0 + u()) * 2f64.powi(e);
                let d = 10f64.powf(1.0 - 17.0 * u()) * if u() < 0.5 { 1.0 } else { -1.0 };
                let a = [x, x, x, 0.0];
                let b = [-x * (1.0 + d); 4].map(|v| if v.is_finite() { v } else { -x });
                let b = [b[0], b[1], b[2], 0.0];
                let dir = crate::rounding::dir_word((u() * 4.0) as u32);
                let (r, hit) = add_pre_f64(a, b, dir, &tab);
                let (r0, m) = (r[0].abs(), x.max(b[0].abs()));
                let must = r0 < cancel * m;
                let may = must | (r0 < 1.2 * cancel * m) | ((m < 2f64.powi(-960)) & (r0 < m));
                assert!(
                    (hit | !must) & (!hit | may),
                    "level {level}: {x:e} + {:e} = {:e}: {hit} (seed {seed:#x})",
                    b[0],
                    r[0]
                );
                passed += usize::from(hit);
                near += usize::from(must);
            }
        }
        // Both sides of every bound were reached.
        assert!(
            near > 10_000 && passed > near,
            "{near} cancellations, {passed} passed"
        );
    }

    /// The fused pre-tests of the run-time AVX-512 path answer as the portable ones (seeded,
    /// `STOCH_TEST_SEED` replays a failure; skipped on a processor without AVX-512).
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn fused_pretests_answer_as_the_portable_ones() {
        use crate::rt512::*;
        if !available() {
            eprintln!("skipped: this processor has no AVX-512F, DQ and VL");
            return;
        }
        let seed = test_seed(0x00f0_5ed0);
        check_fused::<f64>(
            seed,
            Fused {
                kernel: [add_f64, mul_f64, div_f64],
                pre: [add_pre_f64, mul_pre_f64, div_pre_f64],
                native_add: native_add64,
            },
        );
        check_fused::<f32>(
            seed,
            Fused {
                kernel: [add_f32, mul_f32, div_f32],
                pre: [add_pre_f32, mul_pre_f32, div_pre_f32],
                native_add: |_, _, _, _, _| None,
            },
        );
    }

    /// The products whose checks [`exact_product`] skips have nothing to find: no operand and
    /// no result in any rounding direction is noise. Exact operands over the whole exponent
    /// range (products that underflow, overflow, vanish or are NaN included) and inexact ones,
    /// seeded (`STOCH_TEST_SEED` replays a failure); where the test is made, it lets the
    /// products of normal exact operands through.
    fn check_exact<T: StochFloat>(seed: u64) -> usize {
        let mut r = Xoshiro256PlusPlus::seed_from_u64(seed);
        let mut xs: Vec<[T; 3]> = values::<T>(&mut r, 1_000);
        let mut u = || (r.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        let (lo, hi) = if T::MAX_DIGITS > 7 {
            (-1080, 1030)
        } else {
            (-155, 133)
        };
        for _ in 0..3_000 {
            let e = lo + ((hi - lo) as f64 * u()) as i32;
            let sign = if u() < 0.5 { -1.0 } else { 1.0 };
            let x = T::from_f64(sign * (1.0 + u()) * 2f64.powi(e));
            xs.push([x; 3]);
        }
        for x in [0.0, -0.0, f64::INFINITY, f64::NAN, 1.0] {
            xs.push([T::from_f64(x); 3]);
        }
        let mut taken = 0;
        for i in 0..xs.len() * 4 {
            let a = Stochastic::from_samples(xs[i % xs.len()]);
            let b = Stochastic::from_samples(xs[(i * 7919 + 13) % xs.len()]);
            if !exact_product(&a, &b) {
                continue;
            }
            taken += 1;
            assert!(
                !is_noise(&a.s()) && !is_noise(&b.s()),
                "{a:?}, {b:?} (seed {seed:#x})"
            );
            for d in 0..4 {
                let dir = crate::rounding::dir_word(d) | 0x9f;
                let p = Stochastic::<T> {
                    v: T::mul4(a.v, b.v, dir),
                };
                assert!(
                    !is_noise(&p.s()),
                    "{a:?} * {b:?} = {p:?} is noise (seed {seed:#x})"
                );
            }
        }
        taken
    }

    #[test]
    fn exact_products_need_no_check() {
        let seed = test_seed(0x0e8a_c7ed);
        let taken = [check_exact::<f64>(seed), check_exact::<f32>(seed)];
        #[cfg(all(
            target_arch = "x86_64",
            target_feature = "avx2",
            target_feature = "fma"
        ))]
        for t in taken {
            // About half the pairs are of two exact operands, most of them normal products.
            assert!(
                t > 1_000,
                "only {t} products skipped their checks (seed {seed:#x})"
            );
        }
        let _ = taken;
    }

    /// The noise pre-tests, on the path this build compiles (AVX2, SSE2 or portable), pass every
    /// value that is noise; the SSE2 form answers as the portable one. Seeded
    /// (`STOCH_TEST_SEED` replays a failure).
    #[test]
    fn noise_pretests_pass_every_noise_value() {
        let seed = test_seed(0x0015_0e5e);
        check::<f64>(seed);
        check::<f32>(seed);
    }

    /// Every reference/plain mix that std has for `f64` (`&x + 1.0` with `x` from an iterator)
    /// exists and gives the by-value result (exact operands, so each form is exact here).
    #[test]
    #[allow(clippy::op_ref)] // the reference forms are what is tested
    fn reference_and_plain_mixes() {
        let x = Stochastic::<f64>::from_samples([1.5, 1.5, 1.5]);
        let y = 0.5_f64;
        let (rx, ry) = (&x, &y);
        let all = [
            rx + y,
            rx - y,
            rx * y,
            rx / y,
            rx % y,
            rx + ry,
            rx - ry,
            rx * ry,
            rx / ry,
            rx % ry,
            ry + x,
            ry - x,
            ry * x,
            ry / x,
            ry % x,
            ry + rx,
            ry - rx,
            ry * rx,
            ry / rx,
            ry % rx,
            x % ry,
            y % rx,
        ];
        let want = [
            2.0,
            1.0,
            0.75,
            3.0,
            0.0,
            2.0,
            1.0,
            0.75,
            3.0,
            0.0,
            2.0,
            -1.0,
            0.75,
            1.0 / 3.0,
            0.5,
            2.0,
            -1.0,
            0.75,
            1.0 / 3.0,
            0.5,
            0.0,
            0.5,
        ];
        for (i, (got, want)) in all.iter().zip(want).enumerate() {
            let s = got.samples();
            // 1/3 is rounded up or down at random: within one ulp.
            assert!(
                s.iter()
                    .all(|v| (v - want).abs() <= want.abs() * f64::EPSILON),
                "form {i}: {s:?} instead of {want}"
            );
        }
        let v = [1.0_f32, 2.0];
        let z = Stochastic::<f32>::from_samples([3.0; 3]);
        let sum: Vec<Stochastic<f32>> = v.iter().map(|a| &z * a + a).collect();
        assert_eq!(sum[1].samples(), [8.0; 3]);
    }
}
