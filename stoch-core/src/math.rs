//! Mathematical functions: the library result per sample, then moved one unit in the last place
//! up or down at random (x and y random, z opposite to y), so that the library's own error is part
//! of the estimate. Exact functions (`abs`, `floor`, `min`, ...) are applied per sample.
//!
//! # Instability
//!
//! MathFunction when the argument is numerical noise; Power for `powf`/`powi` with a noise base
//! or exponent; Intrinsic for `abs`/`signum` of samples of both signs and for
//! `floor ceil round trunc fract` and integer conversions whose per-sample results differ.
//!
//! An accuracy collapse (DESIGN §4, issue 3) when a function whose result is not an integer
//! (`sqrt`, `powi`, `powf`, the library functions, `fract`, `rem_euclid`, the angle
//! conversions) gives numerical noise from arguments none of which is numerical noise, as `ln`
//! of a 2-digit value near 1 does (`ops::check_collapse`). The integer-valued functions
//! (`floor ceil round trunc signum div_euclid`) are left out: a result that differs between
//! samples there is already an Intrinsic instability.

use core::cmp::Ordering;
use std::panic::Location;

use crate::digits::is_noise;
use crate::instability::Instability;
use crate::ops::{check_collapse, maybe_noise};
use crate::report::record;
use crate::runtime::rng::{self, directions};
use crate::runtime::state::{self, COLLAPSE_BIT};
use crate::{StochFloat, Stochastic};

const MATH: u8 = Instability::MathFunction.bit();
const POW: u8 = Instability::Power.bit();
const INTRINSIC: u8 = Instability::Intrinsic.bit();
const BRANCH: u8 = Instability::Branching.bit();

/// Marks the branch that calls it as the unlikely one (a square root's checks).
#[cold]
#[inline(always)]
fn root_hit_is_rare() {}

/// Whether `v` is numerical noise ([`is_noise`]), asked only where the arithmetic checks'
/// vector pre-test [`maybe_noise`] passes: it passes every noise value and rarely another, and
/// costs less than the exact test's scalar exits, which read the samples out of the register.
#[inline(always)]
fn noise<T: StochFloat>(v: &Stochastic<T>) -> bool {
    maybe_noise(v) && is_noise(&v.s())
}

impl<T: StochFloat> Stochastic<T> {
    /// The stochastic ordering of `self` and `other` (DESIGN §3, as the relations in
    /// `compare.rs` decide it) for a method that selects one of them, with the Branching bit
    /// when the difference is numerical noise (the event is then recorded at the caller).
    #[inline]
    #[track_caller]
    fn select_cmp(&self, other: &Self) -> (Option<Ordering>, u8) {
        let (o, noise) = self.relation(other);
        if noise && state::on(BRANCH) {
            self.record_branching(other, Location::caller());
            return (o, BRANCH);
        }
        (o, 0)
    }

    /// Whether any sample is NaN, without the instability check of [`is_nan`](Self::is_nan).
    #[inline]
    fn any_nan(&self) -> bool {
        self.s().iter().any(|x| x.is_nan())
    }

    /// Applies a faithful library function per sample and rounds each result randomly by one ulp.
    #[inline]
    pub(crate) fn lib1(self, f: impl Fn(T) -> T) -> Self {
        let d = directions(rng::dir2());
        let s = core::array::from_fn(|i| nudge(f(self.a()[i]), d[i]));
        Self::from_parts_raw(s, self.fl())
    }

    #[inline]
    pub(crate) fn lib2(self, other: Self, f: impl Fn(T, T) -> T) -> Self {
        let d = directions(rng::dir2());
        let s = core::array::from_fn(|i| nudge(f(self.a()[i], other.a()[i]), d[i]));
        Self::from_parts_raw(s, self.fl() | other.fl())
    }

    /// `f` of two arguments, checked for an accuracy collapse; and the detection mask.
    #[track_caller]
    #[inline]
    fn lib2_collapse(self, other: Self, f: impl Fn(T, T) -> T) -> (Self, u8) {
        let r = self.lib2(other, f);
        let mask = state::mask_init();
        check_collapse(r, [self, other], mask, Location::caller());
        (r, mask)
    }

    /// `f` of two arguments with its checks: an accuracy collapse, and MathFunction when both
    /// arguments are numerical noise (`hypot`, `atan2`).
    #[track_caller]
    #[inline]
    fn lib2_checked(self, other: Self, f: impl Fn(T, T) -> T) -> Self {
        let (r, mask) = self.lib2_collapse(other, f);
        if mask & MATH != 0 && noise(&self) && noise(&other) {
            return r.flag(
                Instability::MathFunction,
                Location::caller(),
                &[&self.s(), &other.s()],
            );
        }
        r
    }

    /// The checks of a result `self` of a function of one argument `arg`: MathFunction and
    /// accuracy collapse. After the result's random draw, whose first draw read the
    /// configuration (as in the operators): the mask needs no initialisation test.
    #[inline(always)]
    #[track_caller]
    pub(crate) fn check_math(self, arg: &Self) -> Self {
        let mask = state::mask();
        check_collapse(self, [*arg], mask, Location::caller());
        self.flag_math(arg, mask)
    }

    /// [`check_math`](Self::check_math) for a square root `self` of `arg`, with one pre-test,
    /// of the argument: where [`maybe_noise`] passes no argument, the samples of `arg` lie
    /// within `|x|/42` of its `x`, and those of the root, within a unit of the exact roots,
    /// within `0.0121·|x|` of the root's `x`, a spread at which `is_noise` answers `false`: a
    /// collapse, like a MathFunction, needs an argument that passes the test. The test then
    /// does not wait for the root.
    #[inline(always)]
    #[track_caller]
    pub(crate) fn check_root(self, arg: &Self) -> Self {
        let mask = state::mask();
        if mask & (COLLAPSE_BIT | MATH) != 0 && maybe_noise(arg) {
            root_hit_is_rare();
            check_collapse(self, [*arg], mask, Location::caller());
            return self.flag_math(arg, mask);
        }
        self
    }

    /// The checks of a result `self` of a function of two arguments: accuracy collapse, and
    /// MathFunction when either argument is numerical noise.
    #[inline]
    #[track_caller]
    pub(crate) fn check_math2(self, a: &Self, b: &Self) -> Self {
        let mask = state::mask_init();
        check_collapse(self, [*a, *b], mask, Location::caller());
        if mask & MATH != 0 && (noise(a) || noise(b)) {
            return self.flag(
                Instability::MathFunction,
                Location::caller(),
                &[&a.s(), &b.s()],
            );
        }
        self
    }

    /// MathFunction under `mask`, when `arg` is numerical noise.
    #[inline(always)]
    #[track_caller]
    fn flag_math(self, arg: &Self, mask: u8) -> Self {
        if mask & MATH != 0 && noise(arg) {
            return self.flag(Instability::MathFunction, Location::caller(), &[&arg.s()]);
        }
        self
    }

    /// Per-sample exact function; Intrinsic when the samples' results differ although the
    /// argument's samples... differ only by round-off (any disagreement counts).
    #[inline]
    #[track_caller]
    fn exact_per_sample(self, f: impl Fn(T) -> T) -> Self {
        let s = self.s().map(f);
        let r = Self::from_parts_raw(s, self.fl());
        if state::on(INTRINSIC) && (s[0] != s[1] || s[1] != s[2]) && !(s[0].is_nan()) {
            return r.flag(Instability::Intrinsic, Location::caller(), &[&self.s()]);
        }
        r
    }

    /// Converts to an integer through `conv` of the mean; Intrinsic when the samples convert
    /// differently.
    #[track_caller]
    #[inline]
    pub(crate) fn checked_int_cast<I: PartialEq + Copy>(self, conv: impl Fn(T) -> I) -> I {
        let c = self.s().map(&conv);
        if state::on(INTRINSIC) && (c[0] != c[1] || c[1] != c[2]) {
            record(Instability::Intrinsic, Location::caller(), &[&self.s()]);
        }
        conv(self.mean())
    }

    /// Square root with random rounding (exact directed rounding, not a library call).
    ///
    /// # Instability
    ///
    /// MathFunction, when the argument is numerical noise; an accuracy collapse when the root
    /// of a significant argument is numerical noise (which it cannot be, with the root halving
    /// the relative spread, but `sqrt` is checked as every other function is).
    ///
    /// ```
    /// use stoch_core::Sf64;
    /// let r = Sf64::new(2.0).sqrt();
    /// assert_eq!(r.digits(), 15);
    /// assert!(r.samples().iter().all(|s| (s - 2f64.sqrt()).abs() <= f64::EPSILON * 2.0));
    /// ```
    #[track_caller]
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    #[must_use]
    pub fn sqrt(self) -> Self {
        let r = Self {
            v: T::sqrt4(self.v, rng::dir2()),
        };
        r.check_root(&self)
    }

    /// `self` raised to an integer power, by binary exponentiation with randomly rounded
    /// products (a negative power takes the reciprocal at the end).
    ///
    /// # Instability
    ///
    /// Power, when the base is numerical noise; an accuracy collapse when the power of a
    /// significant base is numerical noise (the relative spread grows `|n|`-fold).
    ///
    /// ```
    /// use stoch_core::Sf64;
    /// assert_eq!(Sf64::new(3.0).powi(4).mean(), 81.0);
    /// assert_eq!(Sf64::new(2.0).powi(-2).mean(), 0.25);
    /// ```
    #[track_caller]
    #[inline]
    #[must_use]
    pub fn powi(self, n: i32) -> Self {
        let mut base = self;
        // No product by the exact 1 to start with (`x.powi(2)` is one product, not two): the
        // same samples, one random draw fewer.
        let mut acc: Option<Self> = None;
        let mut e = n.unsigned_abs();
        while e > 0 {
            if e & 1 == 1 {
                acc = Some(match acc {
                    None => base,
                    Some(a) => a.raw_mul(base),
                });
            }
            e >>= 1;
            if e > 0 {
                base = base.raw_mul(base);
            }
        }
        let acc = acc.unwrap_or(Self::ONE);
        let mut r = if n < 0 { Self::ONE.raw_div(acc) } else { acc };
        r = r.with_fl(r.fl() | self.fl());
        let mask = state::mask_init();
        check_collapse(r, [self], mask, Location::caller());
        if mask & POW != 0 && noise(&self) {
            return r.flag(Instability::Power, Location::caller(), &[&self.s()]);
        }
        r
    }

    /// `self` raised to a stochastic power (library `powf` per sample, randomly rounded by one ulp).
    ///
    /// # Instability
    ///
    /// Power, when the base or the exponent is numerical noise; an accuracy collapse when the
    /// power of a significant base and exponent is numerical noise.
    ///
    /// ```
    /// use stoch_core::{Instability, Sf64};
    /// let w = 2f64.powf(0.5);
    /// let r = Sf64::new(2.0).powf(Sf64::new(0.5));
    /// assert!(r.samples().iter().all(|&s| s == w.next_up() || s == w.next_down()));
    /// assert!(r.digits() >= 14);
    /// // A noisy exponent makes the power meaningless.
    /// let noise = Sf64::from_samples([1e-17, -1e-17, 2e-17]);
    /// assert!(Sf64::new(2.0).powf(noise).flags().contains(Instability::Power));
    /// # stoch_core::reset();
    /// ```
    #[track_caller]
    #[inline]
    #[must_use]
    pub fn powf(self, n: Self) -> Self {
        let (r, mask) = self.lib2_collapse(n, |a, b| a.powf(b));
        if mask & POW != 0 && (noise(&self) || noise(&n)) {
            return r.flag(Instability::Power, Location::caller(), &[&self.s(), &n.s()]);
        }
        r
    }

    /// Logarithm in base `base`.
    ///
    /// # Instability
    ///
    /// MathFunction, when the argument or the base is numerical noise; an accuracy collapse
    /// when the result is numerical noise and neither is.
    ///
    /// ```
    /// use stoch_core::Sf64;
    /// let r = Sf64::new(1000.0).log(Sf64::new(10.0));
    /// assert!((r.to_f64() - 3.0).abs() < 1e-14);
    /// assert!(r.digits() >= 14);
    /// ```
    #[track_caller]
    #[inline]
    #[must_use]
    pub fn log(self, base: Self) -> Self {
        let (r, mask) = self.lib2_collapse(base, |a, b| a.log(b));
        r.flag_math(&self, mask).flag_math(&base, mask)
    }

    /// `sqrt(self² + other²)` without undue overflow.
    ///
    /// # Instability
    ///
    /// MathFunction, when both arguments are numerical noise; an accuracy collapse when the
    /// result is numerical noise and neither argument is.
    ///
    /// ```
    /// use stoch_core::Sf64;
    /// let h = Sf64::new(3.0).hypot(Sf64::new(4.0));
    /// // 5 is exact; the result is moved one ulp either way.
    /// assert!(h.samples().iter().all(|&s| s == 5f64.next_up() || s == 5f64.next_down()));
    /// assert!(h == Sf64::new(5.0));
    /// // No overflow where the squares would overflow.
    /// assert!(Sf64::new(1e300).hypot(Sf64::new(1e300)).is_finite());
    /// ```
    #[track_caller]
    #[inline]
    #[must_use]
    pub fn hypot(self, other: Self) -> Self {
        self.lib2_checked(other, |a, b| a.hypot(b))
    }

    /// Four-quadrant arctangent of `self / other`.
    ///
    /// # Instability
    ///
    /// MathFunction, when both arguments are numerical noise (the angle is then meaningless);
    /// an accuracy collapse when the angle is numerical noise and neither argument is.
    ///
    /// ```
    /// use stoch_core::{Instability, Sf64};
    /// let a = Sf64::new(1.0).atan2(Sf64::new(-1.0));
    /// assert!((a.to_f64() - 3.0 * std::f64::consts::FRAC_PI_4).abs() < 1e-15);
    /// let noise = Sf64::from_samples([1e-17, -1e-17, 2e-17]);
    /// assert!(noise.atan2(noise).flags().contains(Instability::MathFunction));
    /// # stoch_core::reset();
    /// ```
    #[track_caller]
    #[inline]
    #[must_use]
    pub fn atan2(self, other: Self) -> Self {
        self.lib2_checked(other, |a, b| a.atan2(b))
    }

    /// Sine and cosine.
    ///
    /// ```
    /// use stoch_core::Sf64;
    /// let (s, c) = Sf64::new(0.5).sin_cos();
    /// assert!(s == Sf64::new(0.5).sin() && c == Sf64::new(0.5).cos());
    /// assert!((s * s + c * c - 1.0).is_computed_zero());
    /// ```
    #[track_caller]
    #[inline]
    #[must_use]
    pub fn sin_cos(self) -> (Self, Self) {
        (self.sin(), self.cos())
    }

    /// Absolute value (exact).
    ///
    /// # Instability
    ///
    /// Intrinsic, when the samples have different signs.
    ///
    /// ```
    /// use stoch_core::{Instability, Sf64};
    /// assert_eq!(Sf64::from_samples([-1.0, -1.5, -2.0]).abs().samples(), [1.0, 1.5, 2.0]);
    /// let noise = Sf64::from_samples([1e-17, -1e-17, 2e-17]);
    /// assert!(noise.abs().flags().contains(Instability::Intrinsic));
    /// # stoch_core::reset();
    /// ```
    #[track_caller]
    #[inline]
    #[must_use]
    pub fn abs(self) -> Self {
        let r = Self::from_parts_raw(self.s().map(|x| x.abs()), self.fl());
        let neg = self.s().map(|x| x.is_sign_negative() && x != T::ZERO);
        let pos = self.s().map(|x| x.is_sign_positive() && x != T::ZERO);
        if state::on(INTRINSIC) && neg.iter().any(|b| *b) && pos.iter().any(|b| *b) {
            return r.flag(Instability::Intrinsic, Location::caller(), &[&self.s()]);
        }
        r
    }

    /// Fractional part `x − trunc(x)` (exact).
    ///
    /// # Instability
    ///
    /// Intrinsic, when the samples' integer parts differ; an accuracy collapse when the
    /// fractional part of a significant value is numerical noise (`10.02 ± 0.01` has 3 digits,
    /// its fractional part none).
    ///
    /// ```
    /// use stoch_core::{Instability, Sf64};
    /// assert_eq!(Sf64::new(-2.75).fract().samples(), [-0.75; 3]);
    /// let near_one = Sf64::from_samples([1.0 - 1e-15, 1.0, 1.0 + 1e-15]);
    /// assert!(near_one.fract().flags().contains(Instability::Intrinsic));
    /// # stoch_core::reset();
    /// ```
    #[track_caller]
    #[inline]
    #[must_use]
    pub fn fract(self) -> Self {
        let t = self.s().map(|x| x.trunc());
        let r = Self::from_parts_raw(self.s().map(|x| x - x.trunc()), self.fl());
        let mask = state::mask_init();
        check_collapse(r, [self], mask, Location::caller());
        if mask & INTRINSIC != 0 && (t[0] != t[1] || t[1] != t[2]) {
            return r.flag(Instability::Intrinsic, Location::caller(), &[&self.s()]);
        }
        r
    }

    /// The larger of two values by the stochastic relation `>=` (`self` when they are equal).
    /// A value with a NaN sample loses to the other, as in `f64::max`.
    ///
    /// # Instability
    ///
    /// Branching, when the two are not distinguishable from each other (their difference is
    /// numerical noise): the choice depends on round-off, so it is recorded at the call and
    /// the result carries the Branching flag.
    ///
    /// ```
    /// use stoch_core::{Instability, Sf64};
    /// assert_eq!(Sf64::new(1.0).max(Sf64::new(2.0)).samples(), [2.0; 3]);
    /// assert_eq!(Sf64::new(1.0).max(Sf64::NAN).samples(), [1.0; 3]);
    /// let a = Sf64::from_samples([0.8, 1.0, 1.2]); // no digit against 1
    /// let m = a.max(Sf64::ONE);
    /// assert!(m.flags().contains(Instability::Branching));
    /// assert!(!Sf64::new(1.0).max(Sf64::new(2.0)).flags().contains(Instability::Branching));
    /// # stoch_core::reset();
    /// ```
    #[track_caller]
    #[inline]
    #[must_use]
    pub fn max(self, other: Self) -> Self {
        self.pick(other, Ordering::Greater)
    }

    /// The smaller of two values by the stochastic relation `<=` (`self` when they are equal).
    /// A value with a NaN sample loses to the other, as in `f64::min`.
    ///
    /// # Instability
    ///
    /// Branching, as [`max`](Stochastic::max): recorded and ORed into the result's flags.
    ///
    /// ```
    /// use stoch_core::{Instability, Sf64};
    /// assert_eq!(Sf64::new(1.0).min(Sf64::new(2.0)).samples(), [1.0; 3]);
    /// let a = Sf64::from_samples([0.8, 1.0, 1.2]);
    /// assert!(a.min(Sf64::ONE).flags().contains(Instability::Branching));
    /// # stoch_core::reset();
    /// ```
    #[track_caller]
    #[inline]
    #[must_use]
    pub fn min(self, other: Self) -> Self {
        self.pick(other, Ordering::Less)
    }

    /// `self` when the stochastic comparison with `other` gives `keep` or equality, else
    /// `other`, with the comparison's Branching flag; a value with a NaN sample loses.
    #[track_caller]
    #[inline(always)]
    fn pick(self, other: Self, keep: Ordering) -> Self {
        if self.any_nan() {
            return other;
        }
        if other.any_nan() {
            return self;
        }
        let (o, bit) = self.select_cmp(&other);
        let r = if o == Some(keep) || o == Some(Ordering::Equal) {
            self
        } else {
            other
        };
        r.or_flags(bit)
    }

    /// `self` restricted to `[lo, hi]` by stochastic comparisons: `lo` when `self < lo`, else
    /// `hi` when `self > hi`, else `self` (a NaN stays NaN).
    ///
    /// # Instability
    ///
    /// Branching, as [`max`](Stochastic::max), for each of the two comparisons that is
    /// unstable: recorded and ORed into the result's flags.
    ///
    /// ```
    /// use stoch_core::{Instability, Sf64};
    /// let (lo, hi) = (Sf64::new(0.0), Sf64::new(1.0));
    /// assert_eq!(Sf64::new(1.5).clamp(lo, hi).samples(), [1.0; 3]);
    /// assert_eq!(Sf64::new(-0.5).clamp(lo, hi).samples(), [0.0; 3]);
    /// assert_eq!(Sf64::new(0.25).clamp(lo, hi).samples(), [0.25; 3]);
    /// // Noise around 0: whether it is below `lo` depends on round-off.
    /// let noise = Sf64::from_samples([1e-17, -1e-17, 2e-17]);
    /// assert!(noise.clamp(lo, hi).flags().contains(Instability::Branching));
    /// # stoch_core::reset();
    /// ```
    #[track_caller]
    #[inline]
    #[must_use]
    pub fn clamp(self, lo: Self, hi: Self) -> Self {
        let (below, b1) = self.select_cmp(&lo);
        if below == Some(Ordering::Less) {
            return lo.or_flags(b1);
        }
        let (above, b2) = self.select_cmp(&hi);
        if above == Some(Ordering::Greater) {
            hi.or_flags(b1 | b2)
        } else {
            self.or_flags(b1 | b2)
        }
    }

    /// The magnitude of each sample of `self` with the sign of the same sample of `sign`.
    ///
    /// ```
    /// use stoch_core::Sf64;
    /// let x = Sf64::from_samples([1.0, 2.0, 3.0]);
    /// assert_eq!(x.copysign(Sf64::new(-0.0)).samples(), [-1.0, -2.0, -3.0]);
    /// assert_eq!(x.copysign(Sf64::from_samples([1.0, -1.0, 1.0])).samples(), [1.0, -2.0, 3.0]);
    /// ```
    #[inline]
    #[must_use]
    pub fn copysign(self, sign: Self) -> Self {
        let s = core::array::from_fn(|i| self.a()[i].copysign(sign.a()[i]));
        Self::from_parts_raw(s, self.fl() | sign.fl())
    }

    /// Whether any sample is NaN.
    ///
    /// # Instability
    ///
    /// MathFunction, when the samples disagree.
    ///
    /// ```
    /// use stoch_core::Sf64;
    /// assert!(Sf64::NAN.is_nan());
    /// assert!(!Sf64::new(1.0).is_nan());
    /// assert!((Sf64::INFINITY - Sf64::INFINITY).is_nan());
    /// ```
    #[track_caller]
    #[inline]
    #[must_use]
    pub fn is_nan(self) -> bool {
        self.test(|x| x.is_nan(), true)
    }

    /// Whether every sample is finite.
    ///
    /// # Instability
    ///
    /// MathFunction, when the samples disagree.
    ///
    /// ```
    /// use stoch_core::{report, Instability, Sf64};
    /// assert!(Sf64::new(1e308).is_finite());
    /// assert!(!(Sf64::new(1e308) * 10.0).is_finite());
    /// // Samples that disagree: not finite, and an instability.
    /// let edge = Sf64::from_samples([f64::MAX, f64::INFINITY, f64::MAX]);
    /// assert!(!edge.is_finite());
    /// assert!(report().count(Instability::MathFunction) >= 1);
    /// # stoch_core::reset();
    /// ```
    #[track_caller]
    #[inline]
    #[must_use]
    pub fn is_finite(self) -> bool {
        self.test(|x| x.is_finite(), false)
    }

    /// Whether any sample is infinite.
    ///
    /// # Instability
    ///
    /// MathFunction, when the samples disagree.
    ///
    /// ```
    /// use stoch_core::Sf64;
    /// assert!((Sf64::new(1.0) / 0.0).is_infinite());
    /// assert!(!Sf64::MAX.is_infinite());
    /// ```
    #[track_caller]
    #[inline]
    #[must_use]
    pub fn is_infinite(self) -> bool {
        self.test(|x| x.is_infinite(), true)
    }

    /// Whether the mean is positive or +0.
    ///
    /// # Instability
    ///
    /// Intrinsic, when the samples' signs disagree.
    ///
    /// ```
    /// use stoch_core::Sf64;
    /// assert!(Sf64::new(0.0).is_sign_positive());
    /// assert!(!Sf64::new(-2.0).is_sign_positive());
    /// ```
    #[track_caller]
    #[inline]
    #[must_use]
    pub fn is_sign_positive(self) -> bool {
        self.sign_test(true)
    }

    /// Whether the mean is negative or −0.
    ///
    /// # Instability
    ///
    /// Intrinsic, when the samples' signs disagree.
    ///
    /// ```
    /// use stoch_core::{report, Instability, Sf64};
    /// assert!(Sf64::new(-0.0).is_sign_negative());
    /// // Noise around zero: the samples disagree on the sign.
    /// let noise = Sf64::from_samples([-1e-17, -3e-17, 2e-17]);
    /// assert!(noise.is_sign_negative());
    /// assert_eq!(report().count(Instability::Intrinsic), 1);
    /// # stoch_core::reset();
    /// ```
    #[track_caller]
    #[inline]
    #[must_use]
    pub fn is_sign_negative(self) -> bool {
        self.sign_test(false)
    }

    #[track_caller]
    #[inline]
    fn sign_test(self, positive: bool) -> bool {
        let s = self.s().map(|x| x.is_sign_positive());
        if state::on(INTRINSIC) && (s[0] != s[1] || s[1] != s[2]) {
            record(Instability::Intrinsic, Location::caller(), &[&self.s()]);
        }
        let m = self.mean();
        if positive {
            m.is_sign_positive()
        } else {
            m.is_sign_negative()
        }
    }

    #[track_caller]
    #[inline]
    fn test(self, f: impl Fn(T) -> bool, any: bool) -> bool {
        let b = self.s().map(f);
        if state::on(MATH) && (b[0] != b[1] || b[1] != b[2]) {
            record(Instability::MathFunction, Location::caller(), &[&self.s()]);
        }
        if any {
            b.iter().any(|x| *x)
        } else {
            b.iter().all(|x| *x)
        }
    }
}

/// Exact functions applied per sample, with the intrinsic check.
macro_rules! exact_per_sample {
    ($($name:ident: $doc:literal, $example:literal;)*) => {
        impl<T: StochFloat> Stochastic<T> {
            $(
                #[doc = $doc]
                ///
                /// # Instability
                ///
                /// Intrinsic, when the samples' results differ.
                ///
                /// ```
                /// use stoch_core::{Instability, Sf64};
                #[doc = $example]
                /// # stoch_core::reset();
                /// ```
                #[track_caller]
                #[inline]
                #[must_use]
                pub fn $name(self) -> Self {
                    self.exact_per_sample(|x| x.$name())
                }
            )*
        }
    };
}
exact_per_sample! {
    signum: "Sign of each sample: 1, −1 (or NaN); the samples differ in sign when the value is noise around 0.",
        "assert_eq!(Sf64::new(-2.5).signum().samples(), [-1.0; 3]);\n\
         let noise = Sf64::from_samples([1e-17, -1e-17, 2e-17]);\n\
         assert!(noise.signum().flags().contains(Instability::Intrinsic));";
    floor: "Largest integer ≤ each sample.",
        "assert_eq!(Sf64::new(-2.5).floor().samples(), [-3.0; 3]);\n\
         let two = Sf64::from_samples([2.0 - 1e-15, 2.0, 2.0 + 1e-15]);\n\
         assert_eq!(two.floor().samples(), [1.0, 2.0, 2.0]);\n\
         assert!(two.floor().flags().contains(Instability::Intrinsic));";
    ceil: "Smallest integer ≥ each sample.",
        "assert_eq!(Sf64::new(2.1).ceil().samples(), [3.0; 3]);\n\
         let two = Sf64::from_samples([2.0 - 1e-15, 2.0, 2.0 + 1e-15]);\n\
         assert!(two.ceil().flags().contains(Instability::Intrinsic));\n\
         assert!(!Sf64::new(2.0).ceil().flags().contains(Instability::Intrinsic));";
    round: "Nearest integer, halves away from zero.",
        "assert_eq!(Sf64::new(2.5).round().samples(), [3.0; 3]);\n\
         assert_eq!(Sf64::new(-2.5).round().samples(), [-3.0; 3]);\n\
         let half = Sf64::from_samples([0.5 - 1e-16, 0.5, 0.5]);\n\
         assert!(half.round().flags().contains(Instability::Intrinsic));";
    trunc: "Integer part.",
        "assert_eq!(Sf64::new(-2.7).trunc().samples(), [-2.0; 3]);\n\
         let x = Sf64::from_samples([2.9, 3.0, 3.1]);\n\
         assert_eq!(x.trunc().samples(), [2.0, 3.0, 3.0]);\n\
         assert!(x.trunc().flags().contains(Instability::Intrinsic));";
}

macro_rules! unary_math {
    ($($name:ident($arg:literal): $doc:literal;)*) => {
        impl<T: StochFloat> Stochastic<T> {
            $(
                #[doc = $doc]
                ///
                /// Library result per sample, rounded randomly by one ulp.
                ///
                /// # Instability
                ///
                /// MathFunction, when the argument is numerical noise; an accuracy collapse when
                /// the result is numerical noise and the argument is not.
                ///
                /// # Examples
                ///
                /// Every sample is the standard library's result moved one ulp down or up, so
                /// that the library's own error counts in the digits:
                ///
                /// ```
                /// use stoch_core::{Instability, Sf64};
                #[doc = concat!("let w = ", stringify!($arg), "f64.", stringify!($name), "();")]
                #[doc = concat!("let r = Sf64::new(", stringify!($arg), ").", stringify!($name), "();")]
                /// assert!(r.samples().iter().all(|&s| s == w.next_up() || s == w.next_down()));
                /// assert!(r.digits() >= 14);
                /// assert!(r.flags().is_empty());
                /// // The argument is numerical noise: flagged.
                #[doc = concat!("let x = Sf64::from_samples([", stringify!($arg), " * 0.8, ", stringify!($arg), ", ", stringify!($arg), " * 1.2]);")]
                #[doc = concat!("assert!(x.", stringify!($name), "().flags().contains(Instability::MathFunction));")]
                /// # stoch_core::reset();
                /// ```
                #[track_caller]
                #[inline]
                #[must_use]
                pub fn $name(self) -> Self {
                    self.lib1(|x| x.$name()).check_math(&self)
                }
            )*
        }
    };
}
unary_math! {
    exp(1.0): "`e^self`.";
    exp2(0.5): "`2^self`.";
    exp_m1(0.001): "`e^self − 1`, accurate near zero.";
    ln(2.0): "Natural logarithm.";
    ln_1p(0.001): "`ln(1 + self)`, accurate near zero.";
    log2(3.0): "Base-2 logarithm.";
    log10(7.0): "Base-10 logarithm.";
    cbrt(2.0): "Cube root.";
    sin(0.5): "Sine (radians).";
    cos(0.5): "Cosine (radians).";
    tan(0.5): "Tangent (radians).";
    asin(0.5): "Arcsine, in radians.";
    acos(0.5): "Arccosine, in radians.";
    atan(0.5): "Arctangent, in radians.";
    sinh(0.5): "Hyperbolic sine.";
    cosh(0.5): "Hyperbolic cosine.";
    tanh(0.5): "Hyperbolic tangent.";
    asinh(0.5): "Inverse hyperbolic sine.";
    acosh(1.5): "Inverse hyperbolic cosine.";
    atanh(0.5): "Inverse hyperbolic tangent.";
}

impl<T: StochFloat> Stochastic<T> {
    /// Radians to degrees (a randomly rounded product).
    ///
    /// ```
    /// use stoch_core::Sf64;
    /// let d = Sf64::new(std::f64::consts::PI).to_degrees();
    /// assert!(d == Sf64::new(180.0));
    /// assert!(d.digits() >= 14);
    /// ```
    #[track_caller]
    #[inline]
    #[must_use]
    pub fn to_degrees(self) -> Self {
        let r = self.raw_mul(Self::new(T::from_f64(180.0 / core::f64::consts::PI)));
        check_collapse(r, [self], state::mask_init(), Location::caller());
        r
    }

    /// Degrees to radians (a randomly rounded product).
    ///
    /// ```
    /// use stoch_core::Sf64;
    /// let r = Sf64::new(90.0).to_radians();
    /// assert!(r == Sf64::new(std::f64::consts::FRAC_PI_2));
    /// assert!(r.digits() >= 14);
    /// ```
    #[track_caller]
    #[inline]
    #[must_use]
    pub fn to_radians(self) -> Self {
        let r = self.raw_mul(Self::new(T::from_f64(core::f64::consts::PI / 180.0)));
        check_collapse(r, [self], state::mask_init(), Location::caller());
        r
    }

    /// `powf` with a plain exponent.
    ///
    /// # Instability
    ///
    /// Power, when the base is numerical noise; an accuracy collapse as [`powf`](Self::powf).
    ///
    /// ```
    /// use stoch_core::Sf64;
    /// let r = Sf64::new(8.0).powf_scalar(1.0 / 3.0);
    /// assert!(r == Sf64::new(2.0));
    /// let w = 8f64.powf(1.0 / 3.0);
    /// assert!(r.samples().iter().all(|&s| s == w.next_up() || s == w.next_down()));
    /// ```
    #[track_caller]
    #[inline]
    #[must_use]
    pub fn powf_scalar(self, n: T) -> Self {
        self.powf(Self::new(n))
    }

    /// A total order for sorting and keys, as `f64::total_cmp` is: by the mean (computed in
    /// `f64`, ordered by `f64::total_cmp`, so `−0 < +0` and NaNs at the ends by sign), then, for
    /// equal means, by the samples `x`, `y`, `z` in turn (again by `total_cmp`). Two values are
    /// `Equal` exactly when their samples are bit for bit the same; flags are ignored.
    ///
    /// Unlike `<` and `partial_cmp`, this is not the stochastic relation: it orders values whose
    /// difference is numerical noise by their means all the same, and records no Branching
    /// instability. Use it where any consistent order will do (`sort_by`, `BTreeMap` keys), and
    /// the stochastic relations where the order is a decision of the computation.
    ///
    /// ```
    /// use std::cmp::Ordering;
    /// use stoch_core::Sf64;
    /// let mut v = vec![Sf64::new(3.0), Sf64::NAN, Sf64::new(-1.0), Sf64::new(2.0)];
    /// v.sort_by(|a, b| a.total_cmp(b));
    /// assert_eq!(v.iter().map(|x| x.to_f64()).take(3).collect::<Vec<_>>(), [-1.0, 2.0, 3.0]);
    /// assert!(v[3].is_nan());
    /// // Noise around 1 and 1 itself: equal for `==`, but ordered here by their means.
    /// let a = Sf64::from_samples([0.8, 1.0, 1.3]);
    /// assert!(a == Sf64::ONE);
    /// assert_eq!(a.total_cmp(&Sf64::ONE), Ordering::Greater);
    /// assert_eq!(Sf64::new(-0.0).total_cmp(&Sf64::new(0.0)), Ordering::Less);
    /// ```
    #[must_use]
    pub fn total_cmp(&self, other: &Self) -> Ordering {
        self.to_f64().total_cmp(&other.to_f64()).then_with(|| {
            let (a, b) = (self.s(), other.s());
            (0..3).fold(Ordering::Equal, |o, i| {
                o.then_with(|| a[i].to_f64().total_cmp(&b[i].to_f64()))
            })
        })
    }

    /// The least non-negative remainder of `self` by `rhs`, per sample as `f64::rem_euclid`:
    /// `r = self % rhs` (exact), plus `|rhs|` when `r < 0`, that addition randomly rounded.
    ///
    /// # Instability
    ///
    /// Intrinsic, when the samples' Euclidean quotients ([`div_euclid`](Self::div_euclid))
    /// differ: the remainder then jumps by `|rhs|` from one sample to another. An accuracy
    /// collapse when significant operands give a remainder that is numerical noise.
    ///
    /// ```
    /// use stoch_core::{Instability, Sf64};
    /// assert_eq!(Sf64::new(-7.0).rem_euclid(Sf64::new(4.0)).samples(), [1.0; 3]);
    /// assert_eq!(Sf64::new(7.0).rem_euclid(Sf64::new(-4.0)).samples(), [3.0; 3]);
    /// // Near a multiple of rhs, round-off decides the quotient.
    /// let x = Sf64::from_samples([8.0 - 1e-14, 8.0, 8.0 + 1e-14]);
    /// let r = x.rem_euclid(Sf64::new(4.0));
    /// assert!(r.flags().contains(Instability::Intrinsic));
    /// # stoch_core::reset();
    /// ```
    #[track_caller]
    #[inline]
    #[must_use]
    pub fn rem_euclid(self, rhs: Self) -> Self {
        let (a, b) = (self.s(), rhs.s());
        let d = directions(rng::dir2());
        let s = core::array::from_fn(|i| {
            let r = a[i] % b[i];
            if r < T::ZERO {
                T::rr_add(r, b[i].abs(), d[i])
            } else {
                r
            }
        });
        let r = Self::from_parts_raw(s, self.fl() | rhs.fl());
        check_collapse(r, [self, rhs], state::mask_init(), Location::caller());
        self.euclid_check(rhs, r)
    }

    /// The Euclidean quotient per sample, as `f64::div_euclid`: the integer `q` such that
    /// `self = q·rhs + r` with `0 ≤ r < |rhs|` (from the rounded quotient, as the standard
    /// library computes it). An integer, so not randomly rounded.
    ///
    /// # Instability
    ///
    /// Intrinsic, when the samples' quotients differ.
    ///
    /// ```
    /// use stoch_core::{Instability, Sf64};
    /// assert_eq!(Sf64::new(-7.0).div_euclid(Sf64::new(4.0)).samples(), [-2.0; 3]);
    /// assert_eq!(Sf64::new(7.0).div_euclid(Sf64::new(-4.0)).samples(), [-1.0; 3]);
    /// let x = Sf64::from_samples([8.0 - 1e-14, 8.0, 8.0 + 1e-14]);
    /// let q = x.div_euclid(Sf64::new(4.0));
    /// assert_eq!(q.samples(), [1.0, 2.0, 2.0]);
    /// assert!(q.flags().contains(Instability::Intrinsic));
    /// # stoch_core::reset();
    /// ```
    #[track_caller]
    #[inline]
    #[must_use]
    pub fn div_euclid(self, rhs: Self) -> Self {
        let (a, b) = (self.s(), rhs.s());
        let s = core::array::from_fn(|i| div_euclid1(a[i], b[i]));
        let r = Self::from_parts_raw(s, self.fl() | rhs.fl());
        self.euclid_check(rhs, r)
    }

    /// Intrinsic on `r` when the samples' Euclidean quotients of `self` by `rhs` differ.
    #[track_caller]
    #[inline]
    fn euclid_check(self, rhs: Self, r: Self) -> Self {
        if state::on(INTRINSIC) {
            let (a, b) = (self.s(), rhs.s());
            let q: [T; 3] = core::array::from_fn(|i| div_euclid1(a[i], b[i]));
            if (q[0] != q[1] || q[1] != q[2]) && !q.iter().any(|x| x.is_nan()) {
                return r.flag(Instability::Intrinsic, Location::caller(), &[&a, &b]);
            }
        }
        r
    }
}

/// `f64::div_euclid` for either sample type.
#[inline]
fn div_euclid1<T: StochFloat>(a: T, b: T) -> T {
    let q = (a / b).trunc();
    if a % b < T::ZERO {
        if b > T::ZERO {
            q - T::ONE
        } else {
            q + T::ONE
        }
    } else {
        q
    }
}

/// Rounds one sample of a library result (a faithful approximation) one unit toward +∞ or −∞.
/// Zeros, infinities and NaN are returned unchanged.
#[inline(always)]
pub(crate) fn nudge<T: crate::StochFloat>(r: T, down: bool) -> T {
    if r == T::ZERO || !r.is_finite() {
        return r;
    }
    // A finite library result stays finite: ±MAX is not moved past itself to ±∞.
    let moved = if down { r.next_down() } else { r.next_up() };
    if moved.is_finite() {
        moved
    } else {
        r
    }
}
