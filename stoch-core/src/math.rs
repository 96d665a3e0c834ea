//! Mathematical functions: the library result per sample, then moved one unit in the last place
//! up or down at random (x and y random, z opposite to y), so that the library's own error is part
//! of the estimate. Exact functions (`abs`, `floor`, `min`, ...) are applied per sample.
//!
//! # Instability
//!
//! MathFunction when the argument is numerical noise; Power for `powf`/`powi` with a noise base
//! or exponent; Intrinsic for `abs`/`signum` of samples of both signs and for
//! `floor ceil round trunc fract` and integer conversions whose per-sample results differ.

use std::panic::Location;

use crate::config;
use crate::digits::is_noise;
use crate::instability::Instability;
use crate::report::record;
use crate::rounding::{directions, nudge};
use crate::{rng, StochFloat, Stochastic};

const MATH: u8 = Instability::MathFunction.bit();
const POW: u8 = Instability::Power.bit();
const INTRINSIC: u8 = Instability::Intrinsic.bit();

impl<T: StochFloat> Stochastic<T> {
    /// Applies a faithful library function per sample and rounds each result randomly by one ulp.
    #[inline]
    fn lib1(self, f: impl Fn(T) -> T) -> Self {
        let d = directions(rng::dir2());
        let s = core::array::from_fn(|i| nudge(f(self.a()[i]), d[i]));
        Self::from_parts_raw(s, self.fl())
    }

    #[inline]
    fn lib2(self, other: Self, f: impl Fn(T, T) -> T) -> Self {
        let d = directions(rng::dir2());
        let s = core::array::from_fn(|i| nudge(f(self.a()[i], other.a()[i]), d[i]));
        Self::from_parts_raw(s, self.fl() | other.fl())
    }

    #[inline]
    #[track_caller]
    fn check_math(self, arg: &Self) -> Self {
        if config::on(MATH) && is_noise(&arg.s()) {
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
        if config::on(INTRINSIC) && (s[0] != s[1] || s[1] != s[2]) && !(s[0].is_nan()) {
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
        if config::on(INTRINSIC) && (c[0] != c[1] || c[1] != c[2]) {
            record(Instability::Intrinsic, Location::caller(), &[&self.s()]);
        }
        conv(self.mean())
    }

    /// Square root with random rounding (exact directed rounding, not a library call).
    ///
    /// # Instability
    ///
    /// MathFunction, when the argument is numerical noise.
    ///
    /// ```
    /// use stoch_core::Sf64;
    /// let r = Sf64::new(2.0).sqrt();
    /// assert_eq!(r.digits(), 15);
    /// assert!(r.samples().iter().all(|s| (s - 2f64.sqrt()).abs() <= f64::EPSILON * 2.0));
    /// ```
    #[track_caller]
    #[inline]
    #[must_use]
    pub fn sqrt(self) -> Self {
        let r = Self {
            v: T::sqrt4(self.v, rng::dir2()),
        };
        r.check_math(&self)
    }

    /// `self` raised to an integer power, by binary exponentiation with randomly rounded
    /// products (a negative power takes the reciprocal at the end).
    ///
    /// # Instability
    ///
    /// Power, when the base is numerical noise.
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
        let mut acc = Self::ONE;
        let mut e = n.unsigned_abs();
        while e > 0 {
            if e & 1 == 1 {
                acc = acc.raw_mul(base);
            }
            e >>= 1;
            if e > 0 {
                base = base.raw_mul(base);
            }
        }
        let mut r = if n < 0 { Self::ONE.raw_div(acc) } else { acc };
        r = r.with_fl(r.fl() | self.fl());
        if config::on(POW) && is_noise(&self.s()) {
            return r.flag(Instability::Power, Location::caller(), &[&self.s()]);
        }
        r
    }

    /// `self` raised to a stochastic power (library `powf` per sample, randomly rounded by one ulp).
    ///
    /// # Instability
    ///
    /// Power, when the base or the exponent is numerical noise.
    #[track_caller]
    #[inline]
    #[must_use]
    pub fn powf(self, n: Self) -> Self {
        let r = self.lib2(n, |a, b| a.powf(b));
        if config::on(POW) && (is_noise(&self.s()) || is_noise(&n.s())) {
            return r.flag(Instability::Power, Location::caller(), &[&self.s(), &n.s()]);
        }
        r
    }

    /// Logarithm in base `base`.
    ///
    /// # Instability
    ///
    /// MathFunction, when the argument or the base is numerical noise.
    #[track_caller]
    #[inline]
    #[must_use]
    pub fn log(self, base: Self) -> Self {
        let r = self.lib2(base, |a, b| a.log(b)).check_math(&self);
        r.check_math(&base)
    }

    /// `sqrt(self² + other²)` without undue overflow.
    ///
    /// # Instability
    ///
    /// MathFunction, when both arguments are numerical noise.
    #[track_caller]
    #[inline]
    #[must_use]
    pub fn hypot(self, other: Self) -> Self {
        let r = self.lib2(other, |a, b| a.hypot(b));
        if config::on(MATH) && is_noise(&self.s()) && is_noise(&other.s()) {
            return r.flag(
                Instability::MathFunction,
                Location::caller(),
                &[&self.s(), &other.s()],
            );
        }
        r
    }

    /// Four-quadrant arctangent of `self / other`.
    ///
    /// # Instability
    ///
    /// MathFunction, when both arguments are numerical noise (the angle is then meaningless).
    #[track_caller]
    #[inline]
    #[must_use]
    pub fn atan2(self, other: Self) -> Self {
        let r = self.lib2(other, |a, b| a.atan2(b));
        if config::on(MATH) && is_noise(&self.s()) && is_noise(&other.s()) {
            return r.flag(
                Instability::MathFunction,
                Location::caller(),
                &[&self.s(), &other.s()],
            );
        }
        r
    }

    /// Sine and cosine.
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
    #[track_caller]
    #[inline]
    #[must_use]
    pub fn abs(self) -> Self {
        let r = Self::from_parts_raw(self.s().map(|x| x.abs()), self.fl());
        let neg = self.s().map(|x| x.is_sign_negative() && x != T::ZERO);
        let pos = self.s().map(|x| x.is_sign_positive() && x != T::ZERO);
        if config::on(INTRINSIC) && neg.iter().any(|b| *b) && pos.iter().any(|b| *b) {
            return r.flag(Instability::Intrinsic, Location::caller(), &[&self.s()]);
        }
        r
    }

    /// Fractional part `x − trunc(x)` (exact).
    ///
    /// # Instability
    ///
    /// Intrinsic, when the samples' integer parts differ.
    #[track_caller]
    #[inline]
    #[must_use]
    pub fn fract(self) -> Self {
        let t = self.s().map(|x| x.trunc());
        let r = Self::from_parts_raw(self.s().map(|x| x - x.trunc()), self.fl());
        if config::on(INTRINSIC) && (t[0] != t[1] || t[1] != t[2]) {
            return r.flag(Instability::Intrinsic, Location::caller(), &[&self.s()]);
        }
        r
    }

    /// The larger of two values by the stochastic relation `>=`.
    ///
    /// # Instability
    ///
    /// Branching, when the two are not distinguishable from each other (noise difference).
    #[track_caller]
    #[inline]
    #[must_use]
    pub fn max(self, other: Self) -> Self {
        if self.is_nan() {
            return other;
        }
        if other.is_nan() || self >= other {
            self
        } else {
            other
        }
    }

    /// The smaller of two values by the stochastic relation `<=`.
    ///
    /// # Instability
    ///
    /// Branching, as [`max`](Stochastic::max).
    #[track_caller]
    #[inline]
    #[must_use]
    pub fn min(self, other: Self) -> Self {
        if self.is_nan() {
            return other;
        }
        if other.is_nan() || self <= other {
            self
        } else {
            other
        }
    }

    /// `self` restricted to `[lo, hi]` by stochastic comparisons.
    ///
    /// # Instability
    ///
    /// Branching, as [`max`](Stochastic::max).
    #[track_caller]
    #[inline]
    #[must_use]
    pub fn clamp(self, lo: Self, hi: Self) -> Self {
        if self < lo {
            lo
        } else if self > hi {
            hi
        } else {
            self
        }
    }

    /// The magnitude of each sample of `self` with the sign of the same sample of `sign`.
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
        if config::on(INTRINSIC) && (s[0] != s[1] || s[1] != s[2]) {
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
        if config::on(MATH) && (b[0] != b[1] || b[1] != b[2]) {
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
    ($($name:ident: $doc:literal;)*) => {
        impl<T: StochFloat> Stochastic<T> {
            $(
                #[doc = $doc]
                ///
                /// # Instability
                ///
                /// Intrinsic, when the samples' results differ.
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
    signum: "Sign of each sample: 1, −1 (or NaN); the samples differ in sign when the value is noise around 0.";
    floor: "Largest integer ≤ each sample.";
    ceil: "Smallest integer ≥ each sample.";
    round: "Nearest integer, halves away from zero.";
    trunc: "Integer part.";
}

macro_rules! unary_math {
    ($($name:ident: $doc:literal;)*) => {
        impl<T: StochFloat> Stochastic<T> {
            $(
                #[doc = $doc]
                ///
                /// Library result per sample, rounded randomly by one ulp.
                ///
                /// # Instability
                ///
                /// MathFunction, when the argument is numerical noise.
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
    exp: "`e^self`.";
    exp2: "`2^self`.";
    exp_m1: "`e^self − 1`, accurate near zero.";
    ln: "Natural logarithm.";
    ln_1p: "`ln(1 + self)`, accurate near zero.";
    log2: "Base-2 logarithm.";
    log10: "Base-10 logarithm.";
    cbrt: "Cube root.";
    sin: "Sine (radians).";
    cos: "Cosine (radians).";
    tan: "Tangent (radians).";
    asin: "Arcsine, in radians.";
    acos: "Arccosine, in radians.";
    atan: "Arctangent, in radians.";
    sinh: "Hyperbolic sine.";
    cosh: "Hyperbolic cosine.";
    tanh: "Hyperbolic tangent.";
    asinh: "Inverse hyperbolic sine.";
    acosh: "Inverse hyperbolic cosine.";
    atanh: "Inverse hyperbolic tangent.";
}

impl<T: StochFloat> Stochastic<T> {
    /// Radians to degrees (a randomly rounded product).
    #[track_caller]
    #[inline]
    #[must_use]
    pub fn to_degrees(self) -> Self {
        self.raw_mul(Self::new(T::from_f64(180.0 / core::f64::consts::PI)))
    }

    /// Degrees to radians (a randomly rounded product).
    #[track_caller]
    #[inline]
    #[must_use]
    pub fn to_radians(self) -> Self {
        self.raw_mul(Self::new(T::from_f64(core::f64::consts::PI / 180.0)))
    }

    /// `powf` with a plain exponent.
    #[track_caller]
    #[inline]
    #[must_use]
    pub fn powf_scalar(self, n: T) -> Self {
        self.powf(Self::new(n))
    }
}
