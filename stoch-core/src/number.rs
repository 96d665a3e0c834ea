//! The stochastic number: construction, access, conversions.

use crate::instability::Flags;
use crate::{rng, StochFloat};

/// A floating-point value carried as three samples, each computed with random rounding
/// (Discrete Stochastic Arithmetic, the method of CADNA).
///
/// The layout is `#[repr(C)]`: the three samples `x, y, z`, one byte of sticky instability
/// flags, then zero padding: 16 bytes for `f32`, 32 for `f64`, the same as the device types
/// of `kernels/stochastic.cuh`.
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
    pub(crate) s: [T; 3],
    pub(crate) flags: u8,
    pad: T::Pad,
}

/// A stochastic `f32`.
pub type Sf32 = Stochastic<f32>;
/// A stochastic `f64`.
pub type Sf64 = Stochastic<f64>;

impl<T: StochFloat> Stochastic<T> {
    /// Machine epsilon, exact.
    pub const EPSILON: Self = Self::const_new(T::EPSILON);
    /// Largest finite value, exact.
    pub const MAX: Self = Self::const_new(T::MAX);
    /// Smallest finite value, exact.
    pub const MIN: Self = Self::const_new(T::MIN);
    /// Smallest positive normal value, exact.
    pub const MIN_POSITIVE: Self = Self::const_new(T::MIN_POSITIVE);
    /// Positive infinity.
    pub const INFINITY: Self = Self::const_new(T::INFINITY);
    /// Negative infinity.
    pub const NEG_INFINITY: Self = Self::const_new(T::NEG_INFINITY);
    /// Not a number.
    pub const NAN: Self = Self::const_new(T::NAN);
    /// Exact zero.
    pub const ZERO: Self = Self::const_new(T::ZERO);
    /// Exact one.
    pub const ONE: Self = Self::const_new(T::ONE);

    pub(crate) const fn const_new(x: T) -> Self {
        Stochastic {
            s: [x, x, x],
            flags: 0,
            pad: unsafe_zero_pad::<T>(),
        }
    }

    /// An exact value: three equal samples.
    ///
    /// ```
    /// use stoch_core::Sf64;
    /// assert_eq!(Sf64::new(0.5).samples(), [0.5; 3]);
    /// ```
    #[inline]
    #[must_use]
    pub fn new(x: T) -> Self {
        Self::const_new(x)
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
    #[inline]
    #[must_use]
    pub fn from_parts(s: [T; 3], flags: Flags) -> Self {
        Stochastic {
            s,
            flags: flags.bits(),
            pad: T::Pad::default(),
        }
    }

    /// The three samples `[x, y, z]`.
    #[inline]
    #[must_use]
    pub fn samples(&self) -> [T; 3] {
        self.s
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
        Flags::from_bits(self.flags)
    }

    /// This value with its flags cleared.
    #[inline]
    #[must_use]
    pub fn without_flags(self) -> Self {
        Self::from_samples(self.s)
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
        T::from_f64(crate::digits::stats(&self.s).0)
    }

    /// The mean as `f64`.
    #[inline]
    #[must_use]
    pub fn to_f64(&self) -> f64 {
        crate::digits::stats(&self.s).0
    }

    /// The mean rounded to `f32`.
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
    /// Lossy conversion from `f64`: each sample is `x` rounded randomly up or down to `f32`.
    ///
    /// ```
    /// use stoch_core::Sf32;
    /// let x = Sf32::from_f64(0.1);
    /// assert!(x.samples().iter().all(|s| (*s as f64 - 0.1).abs() < 1e-8));
    /// assert_eq!(Sf32::from_f64(0.5).samples(), [0.5; 3]);
    /// ```
    #[must_use]
    pub fn from_f64(x: f64) -> Self {
        let dir = rng::dir2();
        let d = crate::rounding::directions(dir);
        let r = x as f32;
        let s = core::array::from_fn(|i| {
            let back = r as f64;
            if !r.is_finite() || back == x || x.is_nan() {
                r
            } else if d[i] {
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
        });
        Self::from_samples(s)
    }

    /// Widens every sample to `f64` (exact), keeping the flags.
    #[must_use]
    pub fn to_sf64(self) -> Stochastic<f64> {
        Stochastic::from_parts(self.s.map(|x| x as f64), self.flags())
    }
}

impl Stochastic<f64> {
    /// Narrows every sample to `f32` with random rounding, keeping the flags.
    #[must_use]
    pub fn to_sf32(self) -> Stochastic<f32> {
        let d = crate::rounding::directions(rng::dir2());
        let s = core::array::from_fn(|i| {
            let x = self.s[i];
            let r = x as f32;
            let back = r as f64;
            if !r.is_finite() || back == x || x.is_nan() {
                r
            } else if d[i] {
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
        });
        Stochastic::from_parts(s, self.flags())
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

/// Zero padding as a constant (the padding types are byte arrays).
const fn unsafe_zero_pad<T: StochFloat>() -> T::Pad {
    // SAFETY: `T::Pad` is `[u8; 3]` or `[u8; 7]` (sealed trait), for which all-zero bytes are a
    // valid value.
    unsafe { core::mem::zeroed() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_matches_the_device_types() {
        assert_eq!(core::mem::size_of::<Sf32>(), 16);
        assert_eq!(core::mem::align_of::<Sf32>(), 4);
        assert_eq!(core::mem::size_of::<Sf64>(), 32);
        assert_eq!(core::mem::align_of::<Sf64>(), 8);
        assert_eq!(core::mem::offset_of!(Sf32, flags), 12);
        assert_eq!(core::mem::offset_of!(Sf64, flags), 24);
        assert_eq!(core::mem::offset_of!(Sf32, pad), 13);
        assert_eq!(core::mem::offset_of!(Sf64, pad), 25);
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
