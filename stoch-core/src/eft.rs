//! Error-free transformations: TwoSum, FastTwoSum and TwoProduct.
//!
//! For floating-point numbers `a` and `b` rounded to nearest, these functions return a pair
//! `(s, e)` with `s = fl(a ∘ b)` and `a ∘ b = s + e` **exactly** (Knuth 1969, Dekker 1971;
//! see also Muller et al., *Handbook of Floating-Point Arithmetic*, §4.3-4.4). They are the
//! building blocks of the composite-precision pair ([`crate::composite`]), of the compensated
//! accumulators ([`crate::accum`]) and of random rounding itself.
//!
//! All functions are generic over [`EftFloat`], implemented for `f32` and `f64` (and, where
//! the crate has it, for the stochastic type, where the identities hold only up to the random
//! rounding of each operation, which is exactly what Discrete Stochastic Arithmetic measures).
//!
//! The identities hold when no overflow occurs; with underflow, TwoSum stays exact and
//! TwoProduct is exact as long as the error term `e` is not below the smallest subnormal.
//!
//! # Examples
//!
//! ```
//! use stoch_core::eft::{two_sum, two_product};
//!
//! let (s, e) = two_sum(1.0e16_f64, 1.0);
//! assert_eq!((s, e), (1.0e16, 1.0)); // the 1.0 lost by `+` is recovered in `e`
//!
//! let (p, e) = two_product(0.1_f32, 0.1_f32);
//! assert_eq!(p as f64 + e as f64, 0.1_f32 as f64 * 0.1_f32 as f64);
//! ```

use core::fmt::Debug;
use core::ops::{Add, Div, Mul, Neg, Sub};

/// The arithmetic the error-free transformations, composite numbers and accumulators need.
///
/// Implemented for `f32` and `f64`. The stochastic type implements it too (its operators round
/// randomly, so the "error-free" identities hold up to that rounding, which DSA measures).
///
/// # Examples
///
/// ```
/// use stoch_core::eft::EftFloat;
///
/// fn half<T: EftFloat>(x: T) -> T { x * T::from_f64(0.5) }
/// assert_eq!(half(3.0_f32), 1.5);
/// assert_eq!(<f64 as EftFloat>::SPLITTER, 134_217_729.0);
/// ```
pub trait EftFloat:
    Copy
    + Debug
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
{
    /// Number of significand bits, hidden bit included (24 for `f32`, 53 for `f64`).
    const MANTISSA_DIGITS: u32;
    /// Dekker's splitting constant `2^ceil(p/2) + 1` (4097 for `f32`, 134217729 for `f64`).
    const SPLITTER: f64;
    /// A short name for tables: `"f32"`, `"f64"`, `"Sf32"`, ...
    const NAME: &'static str;

    /// Zero.
    fn zero() -> Self;
    /// One.
    fn one() -> Self {
        Self::from_f64(1.0)
    }
    /// The nearest value of this type to `x` (an exact value for the stochastic type).
    fn from_f64(x: f64) -> Self;
    /// The value as `f64` (exact for `f32` and `f64`; the mean of the samples for the
    /// stochastic type).
    fn to_f64(self) -> f64;
    /// `self * a + b` with one rounding (hardware FMA for `f32` and `f64`).
    fn mul_add(self, a: Self, b: Self) -> Self;
    /// `|self| >= |other|`, compared without side effects (the stochastic type compares its
    /// means and records no branching instability: the accumulators use this only to choose
    /// between two algebraically equivalent formulas).
    fn abs_ge(self, other: Self) -> bool {
        self.to_f64().abs() >= other.to_f64().abs()
    }
}

/// `EftFloat` for a primitive float, with Dekker's splitting constant `$splitter`.
macro_rules! eft_float {
    ($($t:ident: $splitter:expr;)*) => {$(
        impl EftFloat for $t {
            const MANTISSA_DIGITS: u32 = $t::MANTISSA_DIGITS;
            const SPLITTER: f64 = $splitter;
            const NAME: &'static str = stringify!($t);
            #[inline]
            fn zero() -> Self {
                0.0
            }
            #[inline]
            fn one() -> Self {
                1.0
            }
            #[inline]
            fn from_f64(x: f64) -> Self {
                x as $t
            }
            #[inline]
            fn to_f64(self) -> f64 {
                self as f64
            }
            #[inline]
            fn mul_add(self, a: Self, b: Self) -> Self {
                $t::mul_add(self, a, b)
            }
            #[inline]
            fn abs_ge(self, other: Self) -> bool {
                self.abs() >= other.abs()
            }
        }
    )*};
}

eft_float! {
    f32: 4097.0;
    f64: 134_217_729.0;
}

/// Knuth's TwoSum: `(s, e)` with `s = fl(a + b)` and `a + b = s + e` exactly, for any `a`, `b`.
///
/// Six operations, no branch (Knuth, *TAOCP* vol. 2, Theorem B; seed 002, Figure 2 and eq. 7,
/// "Knuth & Dekker's trick for arbitrary x and y").
///
/// # Examples
///
/// ```
/// use stoch_core::eft::two_sum;
///
/// let (s, e) = two_sum(1.0_f32, 1.0e-8);
/// assert_eq!(s, 1.0);
/// assert_eq!(e, 1.0e-8);
/// ```
#[inline]
#[must_use]
pub fn two_sum<T: EftFloat>(a: T, b: T) -> (T, T) {
    let s = a + b;
    let bb = s - a;
    let aa = s - bb;
    let e = (a - aa) + (b - bb);
    (s, e)
}

/// Dekker's FastTwoSum: `(s, e)` with `s = fl(a + b)` and `a + b = s + e` exactly,
/// **provided `|a| >= |b|`** (or `a` is zero, or the exponent of `a` is at least that of `b`).
///
/// Three operations (seed 002, Figure 1 and eq. 5). With `|a| < |b|` the result is not exact
/// in general; [`two_sum`] has no such condition.
///
/// # Examples
///
/// ```
/// use stoch_core::eft::fast_two_sum;
///
/// let (s, e) = fast_two_sum(1.0e16_f64, 3.0);
/// assert_eq!(s + e, 1.0e16 + 3.0); // as reals; s = 1.0000000000000004e16, e = -1.0
/// assert_eq!(e, -1.0);
/// ```
#[inline]
#[must_use]
pub fn fast_two_sum<T: EftFloat>(a: T, b: T) -> (T, T) {
    let s = a + b;
    let w = s - a;
    let e = b - w;
    (s, e)
}

/// TwoProduct with a fused multiply-add: `(p, e)` with `p = fl(a * b)` and `a * b = p + e`
/// exactly (two operations on hardware with FMA).
///
/// # Examples
///
/// ```
/// use stoch_core::eft::two_product;
///
/// let (p, e) = two_product(1.0_f64 + f64::EPSILON, 1.0 - f64::EPSILON);
/// assert_eq!(p, 1.0);
/// assert_eq!(e, -f64::EPSILON * f64::EPSILON);
/// ```
#[inline]
#[must_use]
pub fn two_product<T: EftFloat>(a: T, b: T) -> (T, T) {
    let p = a * b;
    let e = a.mul_add(b, -p);
    (p, e)
}

/// Veltkamp/Dekker splitting: `(hi, lo)` with `a = hi + lo` exactly, each half fitting in
/// `ceil(p/2)` bits, so that products of halves are exact. Overflows for `|a|` near the top
/// of the range (above about `2^(emax - ceil(p/2))`).
///
/// # Examples
///
/// ```
/// use stoch_core::eft::split;
///
/// let (hi, lo) = split(0.1_f64);
/// assert_eq!(hi + lo, 0.1);
/// assert_eq!(hi.to_bits() & ((1 << 27) - 1), 0); // low 27 bits of hi are zero
/// ```
#[inline]
#[must_use]
pub fn split<T: EftFloat>(a: T) -> (T, T) {
    let c = T::from_f64(T::SPLITTER) * a;
    let big = c - a;
    let hi = c - big;
    let lo = a - hi;
    (hi, lo)
}

/// Dekker's TwoProduct without FMA: `(p, e)` with `p = fl(a * b)` and `a * b = p + e`
/// exactly, from [`split`] (17 operations; Dekker 1971, `mul12`).
///
/// Gives the same pair as [`two_product`] where neither overflows.
///
/// # Examples
///
/// ```
/// use stoch_core::eft::{two_product, two_product_dekker};
///
/// let (a, b) = (0.1_f32, 3.3_f32);
/// assert_eq!(two_product_dekker(a, b), two_product(a, b));
/// ```
#[inline]
#[must_use]
pub fn two_product_dekker<T: EftFloat>(a: T, b: T) -> (T, T) {
    let p = a * b;
    let (ah, al) = split(a);
    let (bh, bl) = split(b);
    let e = al * bl - (((p - ah * bh) - al * bh) - ah * bl);
    (p, e)
}

/// SplitMix64: seeded data for the tests of the transformations and of the accumulators.
#[cfg(test)]
#[derive(Clone)]
pub(crate) struct SplitMix(pub(crate) u64);

#[cfg(test)]
impl SplitMix {
    /// The next 64 random bits.
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    impl SplitMix {
        /// A random f64 with random sign and exponent in [-r, r].
        fn f64(&mut self, r: u64) -> f64 {
            let m = (self.next() >> 11) as f64 / (1u64 << 53) as f64 + 0.5;
            let e = (self.next() % (2 * r + 1)) as i32 - r as i32;
            let s = if self.next() & 1 == 0 { 1.0 } else { -1.0 };
            s * m * 2f64.powi(e)
        }
    }

    /// Exact check for f32 pairs: the f64 computation of a + b and a * b is exact.
    #[test]
    fn f32_transformations_are_exact() {
        let seed = 0x5EED_0001;
        let mut rng = SplitMix(seed);
        for i in 0..100_000 {
            let a = rng.f64(14) as f32;
            let b = rng.f64(14) as f32;
            let (s, e) = two_sum(a, b);
            assert_eq!(s, a + b, "seed {seed:#x} case {i}");
            assert_eq!(
                s as f64 + e as f64,
                a as f64 + b as f64,
                "seed {seed:#x} case {i}"
            );
            let (s, e) = if a.abs() >= b.abs() {
                fast_two_sum(a, b)
            } else {
                fast_two_sum(b, a)
            };
            assert_eq!(
                s as f64 + e as f64,
                a as f64 + b as f64,
                "seed {seed:#x} case {i}"
            );
            let exact = a as f64 * b as f64;
            let (p, e) = two_product(a, b);
            assert_eq!(p, a * b);
            assert_eq!(p as f64 + e as f64, exact, "seed {seed:#x} case {i}");
            assert_eq!(two_product_dekker(a, b), (p, e), "seed {seed:#x} case {i}");
        }
    }

    /// f64 checks through f64-pair identities verified with i128 integer arithmetic on
    /// exponent-aligned significands.
    #[test]
    fn f64_transformations_are_exact() {
        let seed = 0x5EED_0002;
        let mut rng = SplitMix(seed);
        for i in 0..100_000 {
            let a = rng.f64(30);
            let b = rng.f64(30);
            let (s, e) = two_sum(a, b);
            // e is the exact error: re-adding must reproduce s, and |e| <= ulp(s)/2.
            assert_eq!(s, a + b);
            assert!(
                e.abs() <= s.abs() * f64::EPSILON / 2.0,
                "seed {seed:#x} case {i}"
            );
            assert_eq!(
                exact_sum_minus(&[a, b], &[s, e]),
                0,
                "seed {seed:#x} case {i}"
            );
            let (p, e) = two_product(a, b);
            assert_eq!(two_product_dekker(a, b), (p, e), "seed {seed:#x} case {i}");
            assert!(
                e.abs() <= p.abs() * f64::EPSILON / 2.0,
                "seed {seed:#x} case {i}"
            );
        }
    }

    /// Sign of (sum of xs) - (sum of ys), computed exactly with i128 on the grid of the
    /// smallest exponent (values within 2^-31 .. 2^31 and their errors fit in 120 bits).
    fn exact_sum_minus(xs: &[f64], ys: &[f64]) -> i32 {
        let parts: Vec<(i128, i32)> = xs
            .iter()
            .map(|&x| (x, 1))
            .chain(ys.iter().map(|&y| (y, -1)))
            .filter(|(v, _)| *v != 0.0)
            .map(|(v, s)| {
                let bits = v.to_bits();
                let exp = ((bits >> 52) & 0x7ff) as i32;
                let mant = (bits & ((1 << 52) - 1)) | (1 << 52);
                let m = if v < 0.0 {
                    -(mant as i128)
                } else {
                    mant as i128
                };
                (m * s as i128, exp - 1075)
            })
            .collect();
        let emin = parts.iter().map(|p| p.1).min().unwrap_or(0);
        let total: i128 = parts.iter().map(|&(m, e)| m << (e - emin)).sum();
        total.signum() as i32
    }
}
