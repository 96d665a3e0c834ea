//! The stochastic number: construction, access, conversions.

use crate::instability::Flags;
use crate::runtime::rng;
use crate::StochFloat;

/// A floating-point value carried as three samples, each computed with random rounding
/// (Discrete Stochastic Arithmetic, the method of CADNA).
///
/// # Layout
///
/// Guaranteed, and relied on by `stoch-gpu`'s byte copies: `#[repr(C)]`, size 16 (`f32`) or 32
/// (`f64`), aligned to its size (so that no value straddles two cache lines); bytes
/// `0..3·size_of::<T>()` are the samples `x, y, z`, the next byte is the flag byte (bits
/// `1 << k` for kind `k`, top bit 0), and the remaining 3 or 7 bytes are padding: zeros, or
/// the upper bytes of the number 1 (`00 80 3f`, resp. `00 00 00 00 00 f0 3f`), which the host
/// writes so that the lane of the flag byte is a normal number (packed arithmetic on a
/// subnormal one is slow on some processors). Every field is plain data, so any byte pattern
/// with either padding and the top flag bit clear is a valid value. This is the layout of
/// `stoch_float`/`stoch_double` in `kernels/stochastic.cuh`, whose device code reads the flag
/// byte only and writes zero padding.
///
/// # Examples
///
/// ```
/// use stoch_core::Sf64;
/// let third = Sf64::new(1.0) / 3.0;
/// assert_eq!(third.digits(), 15);
/// assert_eq!(format!("{third}"), "3.33333333333333e-1");
/// ```
#[derive(Clone, Copy)]
#[repr(C)]
pub struct Stochastic<T: StochFloat> {
    /// Samples x, y, z, then a lane whose first byte is the flag byte and whose other bytes
    /// are the padding (the same bytes as `[T; 3]`, `u8`, padding; see the type's layout).
    /// Keeping four lanes of one type lets the value live in one vector register.
    pub(crate) v: T::Lanes,
}

/// A stochastic `f32`.
pub type Sf32 = Stochastic<f32>;
/// A stochastic `f64`.
pub type Sf64 = Stochastic<f64>;

impl<T: StochFloat> Stochastic<T> {
    /// Machine epsilon, exact.
    ///
    /// ```
    /// use stoch_core::Sf64;
    /// assert_eq!(Sf64::EPSILON.samples(), [f64::EPSILON; 3]);
    /// assert_eq!(Sf64::EPSILON.digits(), 15);
    /// ```
    pub const EPSILON: Self = Stochastic { v: T::EPSILON_L };
    /// Largest finite value, exact.
    ///
    /// ```
    /// use stoch_core::Sf32;
    /// assert_eq!(Sf32::MAX.samples(), [f32::MAX; 3]);
    /// assert!(Sf32::MAX.is_finite());
    /// ```
    pub const MAX: Self = Stochastic { v: T::MAX_L };
    /// Smallest finite value, exact.
    ///
    /// ```
    /// use stoch_core::Sf64;
    /// assert_eq!(Sf64::MIN.samples(), [f64::MIN; 3]);
    /// ```
    pub const MIN: Self = Stochastic { v: T::MIN_L };
    /// Smallest positive normal value, exact.
    ///
    /// ```
    /// use stoch_core::Sf64;
    /// assert_eq!(Sf64::MIN_POSITIVE.to_f64(), f64::MIN_POSITIVE);
    /// ```
    pub const MIN_POSITIVE: Self = Stochastic {
        v: T::MIN_POSITIVE_L,
    };
    /// Positive infinity.
    ///
    /// ```
    /// use stoch_core::Sf64;
    /// assert!(Sf64::INFINITY.is_infinite() && Sf64::INFINITY.is_sign_positive());
    /// ```
    pub const INFINITY: Self = Stochastic { v: T::INFINITY_L };
    /// Negative infinity.
    ///
    /// ```
    /// use stoch_core::Sf64;
    /// assert!(Sf64::NEG_INFINITY.is_infinite() && Sf64::NEG_INFINITY.is_sign_negative());
    /// ```
    pub const NEG_INFINITY: Self = Stochastic {
        v: T::NEG_INFINITY_L,
    };
    /// Not a number.
    ///
    /// ```
    /// use stoch_core::Sf64;
    /// assert!(Sf64::NAN.is_nan());
    /// assert_eq!(Sf64::NAN.digits(), 0);
    /// ```
    pub const NAN: Self = Stochastic { v: T::NAN_L };
    /// Exact zero.
    ///
    /// ```
    /// use stoch_core::Sf64;
    /// assert!(Sf64::ZERO.is_exact_zero());
    /// assert!(!Sf64::ZERO.is_numerical_noise());
    /// ```
    pub const ZERO: Self = Stochastic { v: T::ZERO_L };
    /// Exact one.
    ///
    /// ```
    /// use stoch_core::Sf64;
    /// assert_eq!((Sf64::ONE * 3.0).samples(), [3.0; 3]);
    /// ```
    pub const ONE: Self = Stochastic { v: T::ONE_L };

    /// An exact value: three equal samples.
    ///
    /// ```
    /// use stoch_core::Sf64;
    /// assert_eq!(Sf64::new(0.5).samples(), [0.5; 3]);
    /// ```
    #[inline]
    #[must_use]
    pub fn new(x: T) -> Self {
        Stochastic {
            v: T::load([x, x, x, T::ZERO]),
        }
    }

    /// A value from its three samples, with no flags.
    ///
    /// ```
    /// use stoch_core::Sf64;
    /// let x = Sf64::from_samples([1.0, 1.1, 0.9]);
    /// assert_eq!(x.samples(), [1.0, 1.1, 0.9]);
    /// ```
    #[inline]
    #[must_use]
    pub fn from_samples(s: [T; 3]) -> Self {
        Self::from_parts(s, Flags::EMPTY)
    }

    /// A value from its samples and flags.
    ///
    /// ```
    /// use stoch_core::{Flags, Instability, Sf64};
    /// let x = Sf64::from_parts([1.0, 1.0, 1.0], Flags::EMPTY.with(Instability::Division));
    /// assert!(x.flags().contains(Instability::Division));
    /// // Flags are sticky: they follow the value through later operations.
    /// assert!((x + 1.0).flags().contains(Instability::Division));
    /// ```
    #[inline]
    #[must_use]
    pub fn from_parts(s: [T; 3], flags: Flags) -> Self {
        Stochastic {
            v: T::load([s[0], s[1], s[2], T::flags_lane(flags.bits())]),
        }
    }

    /// The three samples `[x, y, z]`.
    ///
    /// ```
    /// use stoch_core::Sf64;
    /// let [x, y, z] = (Sf64::new(1.0) / 3.0).samples();
    /// // Each sample is 1/3 rounded down or up: at most one ulp apart, never all alike.
    /// let third = 1.0 / 3.0;
    /// for s in [x, y, z] {
    ///     assert!(s == third || s == third.next_up() || s == third.next_down());
    /// }
    /// assert_ne!(y, z);
    /// ```
    #[inline]
    #[must_use]
    pub fn samples(&self) -> [T; 3] {
        self.s()
    }

    /// The samples.
    #[inline(always)]
    pub(crate) fn s(&self) -> [T; 3] {
        let a = T::store(self.v);
        [a[0], a[1], a[2]]
    }

    /// The four lanes (samples, then the flags lane).
    #[inline(always)]
    pub(crate) fn a(&self) -> [T; 4] {
        T::store(self.v)
    }

    /// The flag byte.
    #[inline(always)]
    pub(crate) fn fl(&self) -> u8 {
        self.a()[3].lane_flags()
    }

    /// This value with flag byte `f`.
    #[inline(always)]
    pub(crate) fn with_fl(self, f: u8) -> Self {
        let mut a = self.a();
        a[3] = T::flags_lane(f);
        Stochastic { v: T::load(a) }
    }

    /// The instability kinds that touched this value's history.
    ///
    /// ```
    /// use stoch_core::{Instability, Sf64};
    /// let noise = Sf64::from_samples([1e-17, -1e-17, 2e-17]);
    /// let q = Sf64::new(1.0) / noise;
    /// assert!(q.flags().contains(Instability::Division));
    /// # stoch_core::reset();
    /// ```
    #[inline]
    #[must_use]
    pub fn flags(&self) -> Flags {
        Flags::from_bits(self.fl())
    }

    /// This value with its flags cleared.
    ///
    /// ```
    /// use stoch_core::{Flags, Instability, Sf64};
    /// let x = Sf64::from_parts([2.0; 3], Flags::EMPTY.with(Instability::Power));
    /// let y = x.without_flags();
    /// assert!(y.flags().is_empty());
    /// assert_eq!(y.samples(), [2.0; 3]);
    /// ```
    #[inline]
    #[must_use]
    pub fn without_flags(self) -> Self {
        Self::from_samples(self.s())
    }

    /// The mean of the samples, the value DSA reports.
    ///
    /// ```
    /// use stoch_core::Sf64;
    /// assert_eq!(Sf64::from_samples([1.0, 2.0, 3.0]).mean(), 2.0);
    /// ```
    #[inline]
    #[must_use]
    pub fn mean(&self) -> T {
        T::from_f64(crate::digits::stats(&self.s()).0)
    }

    /// The mean as a plain `f64` (exactly the sample when the three samples are equal).
    ///
    /// This leaves Discrete Stochastic Arithmetic: the result is one number with no samples,
    /// which claims all its 15-17 digits whatever [`digits`](Self::digits) says, and whatever
    /// is computed from it is not checked. To print, use `{}` (exact digits only); to call
    /// plain `f64` code (`statrs`' `erf`, ...), use [`map_plain`](Self::map_plain), which keeps
    /// the estimate.
    ///
    /// ```
    /// use stoch_core::{Sf32, Sf64};
    /// assert_eq!(Sf64::new(0.802469135802469).to_f64(), 0.802469135802469);
    /// assert_eq!(Sf32::from_samples([1.0, 2.0, 4.5]).to_f64(), 2.5);
    /// ```
    #[inline]
    #[must_use]
    pub fn to_f64(&self) -> f64 {
        crate::digits::stats(&self.s()).0
    }

    /// Applies a plain function (third-party code written for `f32`/`f64`, such as `statrs`'
    /// `erf`) to each sample, then rounds each result randomly by one ulp up or down, as the
    /// library's own math functions do, so that the function's own rounding error stays in the
    /// estimate. This is the bridge from stochastic values to code that takes `f64` (or `f32`
    /// for an [`Sf32`](crate::Sf32)); unlike [`to_f64`](Self::to_f64), the result keeps three
    /// samples and its [`digits`](Self::digits).
    ///
    /// The function must be a faithful computation of one value (it is called three times, once
    /// per sample); code with side effects or internal state sees three calls.
    ///
    /// # Instability
    ///
    /// MathFunction, when the argument is numerical noise; an accuracy collapse when the result
    /// is numerical noise and the argument is not (the checks of the library's functions).
    ///
    /// # Examples
    ///
    /// ```
    /// use stoch_core::Sf64;
    /// // Plain code the user cannot change.
    /// fn erf_like(x: f64) -> f64 {
    ///     (x * 1.1283791670955126).tanh()
    /// }
    /// let x = Sf64::new(1.0) / 3.0;
    /// let y = x.map_plain(erf_like);
    /// let w = erf_like(1.0 / 3.0);
    /// assert!(y.samples().iter().all(|s| (s - w).abs() <= 4.0 * f64::EPSILON));
    /// assert!(y.digits() >= 14);
    /// // A value with 3 exact digits keeps about 3 through the plain function.
    /// let rough = Sf64::from_samples([0.3330, 0.3334, 0.3338]);
    /// assert_eq!(rough.map_plain(erf_like).digits(), rough.digits());
    /// ```
    #[track_caller]
    #[inline]
    #[must_use]
    pub fn map_plain(self, f: impl Fn(T) -> T) -> Self {
        self.lib1(f).check_math(&self)
    }

    /// [`map_plain`](Self::map_plain) for a plain function of two arguments: `f` is applied to
    /// the samples of `self` and `other` pairwise, then each result is rounded randomly by one
    /// ulp.
    ///
    /// # Instability
    ///
    /// MathFunction, when either argument is numerical noise; an accuracy collapse when the
    /// result is numerical noise and neither argument is.
    ///
    /// ```
    /// use stoch_core::Sf64;
    /// fn plain_hypot(a: f64, b: f64) -> f64 {
    ///     (a * a + b * b).sqrt()
    /// }
    /// let r = Sf64::new(3.0).map_plain2(Sf64::new(4.0), plain_hypot);
    /// assert!((r.to_f64() - 5.0).abs() < 1e-14);
    /// assert!(r.digits() >= 14);
    /// ```
    #[track_caller]
    #[inline]
    #[must_use]
    pub fn map_plain2(self, other: Self, f: impl Fn(T, T) -> T) -> Self {
        self.lib2(other, f).check_math2(&self, &other)
    }

    /// The mean rounded to `f32` (to nearest).
    ///
    /// ```
    /// use stoch_core::Sf64;
    /// assert_eq!(Sf64::from_samples([1.0, 2.0, 3.0]).to_f32(), 2.0f32);
    /// assert_eq!(Sf64::new(0.1).to_f32(), 0.1f32);
    /// ```
    #[inline]
    #[must_use]
    pub fn to_f32(&self) -> f32 {
        self.to_f64() as f32
    }

    /// Data known to within a relative error `rel` (CADNA's `data_st`): each sample is `x`
    /// times a random factor in `[1 − rel, 1 + rel]`. The seed makes it reproducible.
    ///
    /// ```
    /// use stoch_core::Sf64;
    /// let x = Sf64::with_relative_error(100.0, 1e-3);
    /// assert!(x.samples().iter().all(|s| (s - 100.0).abs() <= 0.1));
    /// assert!(x.digits() <= 4);
    /// ```
    #[must_use]
    pub fn with_relative_error(x: T, rel: T) -> Self {
        let e = (x * rel).abs();
        Self::with_absolute_error(x, e)
    }

    /// Data known to within an absolute error `abs`: each sample is `x + u·abs` with `u`
    /// uniform in `[−1, 1]`.
    ///
    /// ```
    /// use stoch_core::Sf64;
    /// let x = Sf64::with_absolute_error(2.0, 0.01);
    /// assert!(x.samples().iter().all(|s| (s - 2.0).abs() <= 0.01));
    /// // Three digits at most are meaningful.
    /// assert!(x.digits() <= 3);
    /// // No error: an exact value.
    /// assert_eq!(Sf64::with_absolute_error(2.0, 0.0).samples(), [2.0; 3]);
    /// ```
    #[must_use]
    pub fn with_absolute_error(x: T, abs: T) -> Self {
        let abs = abs.abs().to_f64();
        let xf = x.to_f64();
        let s = core::array::from_fn(|_| {
            let u = rng::uniform_pm1();
            T::from_f64(xf + u * abs)
        });
        Self::from_samples(s)
    }
}

impl Stochastic<f32> {
    /// Lossy conversion from `f64`: each sample is `x` rounded randomly toward −∞ or +∞ to
    /// `f32` (x and y at random, z opposite to y). A value representable in `f32` is exact; NaN
    /// and ±∞ propagate; a finite `x` beyond the `f32` range rounds toward zero to `±f32::MAX`
    /// and away from zero to `±∞`, as IEEE directed rounding does.
    ///
    /// ```
    /// use stoch_core::Sf32;
    /// let x = Sf32::from_f64(0.1);
    /// let (lo, hi) = (0.1f32.next_down(), 0.1f32);
    /// assert!(lo < hi && (lo as f64) < 0.1 && (hi as f64) > 0.1);
    /// assert!(x.samples().iter().all(|&s| s == lo || s == hi));
    /// assert_eq!(Sf32::from_f64(0.5).samples(), [0.5; 3]);
    /// // Beyond the range: MAX when rounded toward zero, ∞ when rounded away.
    /// let big = Sf32::from_f64(1e39);
    /// assert!(big.samples().iter().all(|&s| s == f32::MAX || s == f32::INFINITY));
    /// ```
    #[must_use]
    pub fn from_f64(x: f64) -> Self {
        let d = crate::runtime::rng::directions(rng::dir2());
        Self::from_samples(d.map(|down| narrow(x, down)))
    }

    /// Widens every sample to `f64` (exact), keeping the flags.
    ///
    /// ```
    /// use stoch_core::Sf32;
    /// let x = Sf32::from_samples([0.1, 0.1f32.next_up(), 0.1]);
    /// let w = x.to_sf64();
    /// assert_eq!(w.samples(), [0.1f32 as f64, 0.1f32.next_up() as f64, 0.1f32 as f64]);
    /// assert_eq!(w.digits(), x.digits());
    /// ```
    #[must_use]
    pub fn to_sf64(self) -> Stochastic<f64> {
        Stochastic::from_parts(self.s().map(|x| x as f64), self.flags())
    }
}

impl Stochastic<f64> {
    /// Narrows every sample to `f32` with random rounding (as
    /// [`Sf32::from_f64`](Stochastic::from_f64), per sample), keeping the flags.
    ///
    /// ```
    /// use stoch_core::Sf64;
    /// let n = Sf64::new(1.0 / 3.0).to_sf32();
    /// let third = (1.0f64 / 3.0) as f32;
    /// assert!(n.samples().iter().all(|&s| (s - third).abs() <= f32::EPSILON));
    /// assert_eq!(n.digits(), 7);
    /// assert_eq!(Sf64::new(0.25).to_sf32().samples(), [0.25f32; 3]);
    /// ```
    #[must_use]
    pub fn to_sf32(self) -> Stochastic<f32> {
        let d = crate::runtime::rng::directions(rng::dir2());
        let x = self.s();
        Stochastic::from_parts(core::array::from_fn(|i| narrow(x[i], d[i])), self.flags())
    }
}

/// `x` rounded to `f32` toward −∞ (`down`) or +∞: exact values stay, NaN and infinities
/// propagate, a finite `x` beyond the `f32` range rounds to `±f32::MAX` toward zero and to `±∞`
/// away from it, and a tiny one to `±0` or the smallest subnormal.
#[inline]
fn narrow(x: f64, down: bool) -> f32 {
    // Round to nearest first (±∞ beyond MAX + half an ulp), then step to the neighbour on the
    // requested side; `next_up`/`next_down` of ±∞ give ±MAX, which handles overflow.
    let r = x as f32;
    let back = r as f64;
    if x.is_nan() || back == x {
        r
    } else if down {
        if back > x {
            r.next_down()
        } else {
            r
        }
    } else if back < x {
        r.next_up()
    } else {
        r
    }
}

impl Default for Stochastic<f32> {
    fn default() -> Self {
        Self::ZERO
    }
}
impl Default for Stochastic<f64> {
    fn default() -> Self {
        Self::ZERO
    }
}

impl From<f32> for Stochastic<f32> {
    #[inline]
    fn from(x: f32) -> Self {
        Self::new(x)
    }
}
impl From<f64> for Stochastic<f64> {
    #[inline]
    fn from(x: f64) -> Self {
        Self::new(x)
    }
}
impl From<f32> for Stochastic<f64> {
    #[inline]
    fn from(x: f32) -> Self {
        Self::new(x as f64)
    }
}
impl From<Stochastic<f32>> for Stochastic<f64> {
    #[inline]
    fn from(x: Stochastic<f32>) -> Self {
        x.to_sf64()
    }
}

macro_rules! from_int {
    ($($i:ty),*) => {$(
        impl From<$i> for Stochastic<f64> {
            /// Exact: the integer is representable.
            #[inline]
            fn from(x: $i) -> Self {
                Self::new(x as f64)
            }
        }
        impl From<$i> for Stochastic<f32> {
            /// Exact: the integer is representable.
            #[inline]
            fn from(x: $i) -> Self {
                Self::new(x as f32)
            }
        }
    )*};
}
from_int!(i8, u8, i16, u16);
impl From<i32> for Stochastic<f64> {
    /// Exact: every `i32` is representable in `f64`.
    #[inline]
    fn from(x: i32) -> Self {
        Self::new(x as f64)
    }
}
impl From<u32> for Stochastic<f64> {
    /// Exact: every `u32` is representable in `f64`.
    #[inline]
    fn from(x: u32) -> Self {
        Self::new(x as f64)
    }
}

/// The digits of a value (DESIGN §3): the CESTAC estimate and the computed zero.
impl<T: StochFloat> Stochastic<T> {
    /// The number of exact significant decimal digits of the mean (CESTAC estimate at the
    /// configured confidence, 95% by default), from 0 to 15 (`f64`) or 7 (`f32`).
    ///
    /// Identical samples give the maximum (DESIGN §3), an exact zero included, as CADNA reports
    /// it; a subnormal holds fewer digits than a normal number, `⌊log10 k⌋` for `k` times the
    /// smallest subnormal (5 for `5.237e-319`), and identical subnormal samples give that.
    /// Numerical noise gives 0; a NaN or infinite sample gives 0.
    ///
    /// # Examples
    ///
    /// ```
    /// use stoch_core::Sf64;
    /// assert_eq!(Sf64::new(0.1).digits(), 15);
    /// assert_eq!(Sf64::new(0.0).digits(), 15);
    /// assert_eq!(Sf64::new(5.23704643935263e-319).digits(), 5);
    /// // σ = 1e-6: C = log10(√3 / (4.3027 · 1e-6)) = 5.60, rounded half up: 6.
    /// let x = Sf64::from_samples([1.0 - 1e-6, 1.0, 1.0 + 1e-6]);
    /// assert_eq!(x.digits(), 6);
    /// // Far from 1, the estimate is the same (relative spread).
    /// let y = Sf64::from_samples([1e300 * (1.0 - 1e-6), 1e300, 1e300 * (1.0 + 1e-6)]);
    /// assert_eq!(y.digits(), 6);
    /// ```
    #[must_use]
    pub fn digits(&self) -> u32 {
        crate::digits::digits(&self.s())
    }

    /// The real-valued estimate `C = log10(√3·|m| / (σ·τ))`, not rounded and not capped:
    /// +∞ for identical non-zero samples, −∞ for three zeros, NaN for a non-finite sample.
    ///
    /// ```
    /// use stoch_core::Sf64;
    /// let x = Sf64::from_samples([1.0 - 1e-6, 1.0, 1.0 + 1e-6]);
    /// assert!((x.digits_estimate() - 5.6048).abs() < 1e-3);
    /// ```
    #[must_use]
    pub fn digits_estimate(&self) -> f64 {
        crate::digits::estimate(&self.s())
    }

    /// Whether the value is a computed zero (`@.0`): all samples zero, or fewer than half an
    /// exact digit.
    ///
    /// ```
    /// use stoch_core::Sf64;
    /// assert!(Sf64::new(0.0).is_computed_zero());
    /// assert!(Sf64::from_samples([1e-17, -2e-17, 3e-18]).is_computed_zero());
    /// assert!(!Sf64::new(1e-300).is_computed_zero());
    /// ```
    #[must_use]
    pub fn is_computed_zero(&self) -> bool {
        crate::digits::is_computed_zero(&self.s())
    }

    /// Whether all three samples are zero (of either sign): a value known to be zero, as
    /// opposed to numerical noise.
    ///
    /// ```
    /// use stoch_core::Sf64;
    /// let a = Sf64::new(0.1);
    /// assert!((a - a).is_exact_zero());
    /// assert!(Sf64::new(-0.0).is_exact_zero());
    /// assert!(!Sf64::from_samples([0.0, 1e-300, 0.0]).is_exact_zero());
    /// ```
    #[must_use]
    pub fn is_exact_zero(&self) -> bool {
        self.s().iter().all(|x| *x == T::ZERO)
    }

    /// Whether the value is numerical noise: a computed zero that is not an exact zero.
    ///
    /// ```
    /// use stoch_core::Sf64;
    /// // 0.1 + 0.2 − 0.3 is round-off only: noise, not an exact zero (y and z round 0.1 + 0.2
    /// // opposite ways, to 0.3 and to the double above it).
    /// let r = Sf64::new(0.1) + Sf64::new(0.2) - Sf64::new(0.3);
    /// assert!(r.is_numerical_noise() && !r.is_exact_zero());
    /// assert!(Sf64::from_samples([1e-17, -2e-17, 3e-18]).is_numerical_noise());
    /// assert!(!Sf64::new(0.0).is_numerical_noise());
    /// assert!(!Sf64::new(1e-300).is_numerical_noise());
    /// # stoch_core::reset();
    /// ```
    #[must_use]
    pub fn is_numerical_noise(&self) -> bool {
        crate::digits::is_noise(&self.s())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_matches_the_device_types() {
        assert_eq!(core::mem::size_of::<Sf32>(), 16);
        assert_eq!(core::mem::align_of::<Sf32>(), 16);
        assert_eq!(core::mem::size_of::<Sf64>(), 32);
        assert_eq!(core::mem::align_of::<Sf64>(), 32);
        // Bytes: samples, the flag byte, the padding the host writes (the upper bytes of 1).
        let x = Sf64::from_parts([1.0, 2.0, 3.0], crate::Flags::from_bits(0x41));
        // SAFETY: Sf64 is 32 bytes of plain data with no uninitialised bytes.
        let b: [u8; 32] = unsafe { core::mem::transmute(x) };
        assert_eq!(&b[0..8], &1.0f64.to_le_bytes());
        assert_eq!(&b[16..24], &3.0f64.to_le_bytes());
        assert_eq!(b[24], 0x41);
        assert_eq!(b[25..], 1.0f64.to_le_bytes()[1..]);
        let y = Sf32::from_parts([1.0, 2.0, 3.0], crate::Flags::from_bits(0x7f));
        // SAFETY: Sf32 is 16 bytes of plain data with no uninitialised bytes.
        let b: [u8; 16] = unsafe { core::mem::transmute(y) };
        assert_eq!(&b[8..12], &3.0f32.to_le_bytes());
        assert_eq!(b[12], 0x7f);
        assert_eq!(b[13..], 1.0f32.to_le_bytes()[1..]);
        // Zero padding (what the device writes) is a valid value with the same flags.
        let mut z = b;
        z[13..].fill(0);
        // SAFETY: any bytes with the top flag bit clear are a valid Sf32 (see the layout).
        let z: Sf32 = unsafe { core::mem::transmute(z) };
        assert_eq!(z.flags().bits(), 0x7f);
        assert_eq!(z.samples(), [1.0, 2.0, 3.0]);
        // The flag lane is never a subnormal number.
        for f in [0u8, 1, 0x41, 0x7f] {
            let v = Sf32::from_parts([0.0; 3], crate::Flags::from_bits(f));
            assert!(v.a()[3].is_normal() && v.fl() == f, "{f:#x}");
            let v = Sf64::from_parts([0.0; 3], crate::Flags::from_bits(f));
            assert!(v.a()[3].is_normal() && v.fl() == f, "{f:#x}");
        }
    }

    #[test]
    fn lossy_conversion_brackets_the_value() {
        for x in [0.1, -0.1, 1.0 / 3.0, 1e-40, 3.0e38, 0.0, -0.0] {
            for _ in 0..50 {
                let v = Sf32::from_f64(x);
                for s in v.samples() {
                    let lo = (x as f32).next_down();
                    let hi = (x as f32).next_up();
                    assert!(s >= lo && s <= hi, "{x}: {s}");
                    if (s as f64) != x {
                        // s is one of the two floats around x.
                        assert!(
                            (s as f64) < x && (s.next_up() as f64) > x
                                || (s as f64) > x && (s.next_down() as f64) < x,
                            "{x}: {s}"
                        );
                    }
                }
            }
        }
    }
}
