//! Composite precision: a number carried as two floats.
//!
//! Two types sit side by side so that they can be compared (the `repro_suite` example and
//! the DSA digits do exactly that):
//!
//! - [`Composite`]: the composite-precision pair of Taufer et al. (seed 000, "float2" and
//!   "double2"), a *value* and an approximation of its *error*, with the addition,
//!   subtraction, multiplication and division **exactly as the paper's Figures 3, 4 and 5
//!   give them** (operation for operation, in the same order). The pair is not normalised:
//!   the error may grow past half an ulp of the value, the product ignores the rounding error
//!   of `value * value`, and the division ignores both error terms of its operands.
//! - [`DoubleWord`]: the properly normalised double-word ("double-double", "double-float")
//!   arithmetic built on [`two_sum`] and
//!   [`two_product`]: `hi = fl(hi + lo)` always, relative error
//!   about `u²` per operation (Joldes, Muller, Popescu, *Tight and rigorous error bounds for
//!   basic building blocks of double-word arithmetic*, ACM TOMS 2017: Algorithms 6, 11 and
//!   18, with relative error bounds `3u²`, `5u²` and `15u²`).
//!
//! Both are generic over [`EftFloat`]: `f32` (float2, double-float), `f64` (double2,
//! double-double) and the stochastic type, whose random rounding lets DSA estimate how many
//! digits each method keeps.
//!
//! # Examples
//!
//! ```
//! use stoch_core::composite::{Composite, DoubleWord};
//!
//! // 1e8 + 1 - 1e8 in float2: the 1 survives in the error component.
//! let big = Composite::from_value(1.0e8_f32);
//! let one = Composite::from_value(1.0_f32);
//! let z = big + one - big;
//! assert_eq!(z.to_f64(), 1.0);
//!
//! let x = DoubleWord::<f32>::from_f64(std::f64::consts::PI);
//! assert!((x.to_f64() - std::f64::consts::PI).abs() < 1e-13);
//! ```

use core::fmt;
use core::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Sub, SubAssign};

use crate::eft::{fast_two_sum, two_product, two_sum, EftFloat};

/// A composite-precision number `value + error` (Taufer et al., seed 000, eq. 1 and
/// Figure 2: CUDA's `float2` with `x` the value and `y` the error).
///
/// Arithmetic follows the paper's Figures 3-5 literally; see [`Composite::add`],
/// [`Composite::mul`] and [`Composite::div`]. `Composite<f32>` is the paper's float2,
/// `Composite<f64>` the double2 of seed 001.
///
/// # Examples
///
/// ```
/// use stoch_core::composite::Composite;
///
/// let mut s = Composite::<f32>::default();
/// for _ in 0..10 {
///     s += Composite::from_value(0.1);
/// }
/// // float gives 1.0000001; the pair keeps the error and converts back to 1.0 (as f64: 1.0000000149...)
/// assert!((s.to_f64() - 10.0 * 0.1_f32 as f64).abs() < 1e-12);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C)]
pub struct Composite<T> {
    /// The value (the result of the computation in working precision).
    pub value: T,
    /// The approximation of the error carried along with `value`.
    pub error: T,
}

/// Composite single precision, the paper's `float2`.
pub type Float2 = Composite<f32>;
/// Composite double precision, seed 001's `double2`.
pub type Double2 = Composite<f64>;

impl<T: EftFloat> Composite<T> {
    /// The pair `value + error`, taken as given.
    ///
    /// # Examples
    ///
    /// ```
    /// use stoch_core::composite::Composite;
    /// let x = Composite::new(1.0_f32, 2.0f32.powi(-30));
    /// assert_eq!(x.to_f64(), 1.0 + 2f64.powi(-30));
    /// ```
    #[inline]
    #[must_use]
    pub const fn new(value: T, error: T) -> Self {
        Self { value, error }
    }

    /// The pair `x + 0`.
    ///
    /// # Examples
    ///
    /// ```
    /// use stoch_core::composite::Composite;
    /// assert_eq!(Composite::from_value(2.5_f64).error, 0.0);
    /// ```
    #[inline]
    #[must_use]
    pub fn from_value(x: T) -> Self {
        Self {
            value: x,
            error: T::zero(),
        }
    }

    /// Splits an `f64` into the nearest `value` and the nearest `error` to the remainder
    /// (for `Composite<f32>` this keeps about 48 bits of `x`).
    ///
    /// # Examples
    ///
    /// ```
    /// use stoch_core::composite::Composite;
    /// let x = Composite::<f32>::from_f64(0.1);
    /// assert_eq!(x.value, 0.1_f32);
    /// assert!((x.to_f64() - 0.1).abs() < 1e-15);
    /// ```
    #[inline]
    #[must_use]
    pub fn from_f64(x: f64) -> Self {
        let value = T::from_f64(x);
        Self {
            value,
            error: T::from_f64(x - value.to_f64()),
        }
    }

    /// `value + error` evaluated in `f64` (the paper's conversion back, done in a wider
    /// format so that the error is not lost; exact for `f32` pairs within 2^29 of each other).
    ///
    /// # Examples
    ///
    /// ```
    /// use stoch_core::composite::Composite;
    /// assert_eq!(Composite::new(1.0_f32, 1e-9).to_f64(), 1.0 + 1e-9_f32 as f64);
    /// ```
    #[inline]
    #[must_use]
    pub fn to_f64(self) -> f64 {
        self.value.to_f64() + self.error.to_f64()
    }

    /// `value + error` in working precision: the paper's conversion "from float2 structures
    /// back to float" (Figure 2: `float x = x2.x + x2.y`).
    ///
    /// # Examples
    ///
    /// ```
    /// use stoch_core::composite::Composite;
    /// assert_eq!(Composite::new(1.0_f32, 0.5).collapse(), 1.5);
    /// ```
    #[inline]
    #[must_use]
    pub fn collapse(self) -> T {
        self.value + self.error
    }

    /// Figure 3: composite addition, four additions and four subtractions.
    ///
    /// ```text
    /// z.value = x.value + y.value
    /// t       = z.value - x.value
    /// z.error = x.value - (z.value - t) + (y.value - t) + x.error + y.error
    /// ```
    ///
    /// evaluated left to right as in C. The first two terms of `z.error` are Knuth's TwoSum
    /// error, so the rounding error of `value + value` is kept exactly; the error terms are
    /// added in working precision.
    ///
    /// # Examples
    ///
    /// ```
    /// use stoch_core::composite::Composite;
    /// let z = Composite::from_value(1.0_f32).add(Composite::from_value(1e-9));
    /// assert_eq!((z.value, z.error), (1.0, 1e-9));
    /// ```
    #[allow(clippy::should_implement_trait)]
    #[inline]
    #[must_use]
    pub fn add(self, y: Self) -> Self {
        let x = self;
        let value = x.value + y.value;
        let t = value - x.value;
        let error = x.value - (value - t) + (y.value - t) + x.error + y.error;
        Self { value, error }
    }

    /// Subtraction: Figure 3 with the signs of `y.value` and `y.error` reversed first.
    ///
    /// # Examples
    ///
    /// ```
    /// use stoch_core::composite::Composite;
    /// let x = Composite::from_value(1.0e8_f32);
    /// let z = x.add(Composite::from_value(1.0)).sub(x);
    /// assert_eq!(z.to_f64(), 1.0);
    /// ```
    #[allow(clippy::should_implement_trait)]
    #[inline]
    #[must_use]
    pub fn sub(self, y: Self) -> Self {
        self.add(-y)
    }

    /// Figure 4: composite multiplication, four multiplications and two additions.
    ///
    /// ```text
    /// z.value = x.value * y.value
    /// z.error = x.value * y.error + x.error * y.value + x.error * y.error
    /// ```
    ///
    /// The rounding error of `x.value * y.value` is **not** kept (the paper's formula); see
    /// [`DoubleWord::mul`] for the error-free version.
    ///
    /// # Examples
    ///
    /// ```
    /// use stoch_core::composite::Composite;
    /// let z = Composite::new(2.0_f32, 1e-8).mul(Composite::new(3.0, 0.0));
    /// assert_eq!((z.value, z.error), (6.0, 3e-8));
    /// ```
    #[allow(clippy::should_implement_trait)]
    #[inline]
    #[must_use]
    pub fn mul(self, y: Self) -> Self {
        let x = self;
        let value = x.value * y.value;
        let error = x.value * y.error + x.error * y.value + x.error * y.error;
        Self { value, error }
    }

    /// Figure 5 of seed 000: composite division by Karp's method (one reciprocal, three
    /// multiplications, one subtraction and one addition):
    ///
    /// ```text
    /// t       = 1 / y.value
    /// s       = t * x.value
    /// diff    = x.value - (s * y.value)
    /// z.value = s + t * diff
    /// z.error = t * diff
    /// ```
    ///
    /// As printed in the paper: both operands' error terms are ignored, and the correction
    /// `t * diff` appears in the value *and* in the error, so `value + error` counts it twice.
    /// The slides of seeds 001 and 003 give `z.value = s` instead; that variant, in which
    /// `value + error` is Karp's corrected quotient, is [`Composite::div_karp`].
    ///
    /// # Examples
    ///
    /// ```
    /// use stoch_core::composite::Composite;
    /// let z = Composite::from_value(1.0_f64).div(Composite::from_value(3.0));
    /// assert_eq!(z.value, 1.0 / 3.0);
    /// ```
    #[allow(clippy::should_implement_trait)]
    #[inline]
    #[must_use]
    pub fn div(self, y: Self) -> Self {
        let t = T::one() / y.value;
        let s = t * self.value;
        let diff = self.value - s * y.value;
        let corr = t * diff;
        Self {
            value: s + corr,
            error: corr,
        }
    }

    /// The division of the slides in seeds 001 and 003: `z.value = s`, `z.error = t * diff`,
    /// so that `value + error` is the Karp-corrected quotient of the two values, with the
    /// remainder `diff = x.value - s * y.value` computed by one fused multiply-add (exact),
    /// as CUDA compiles that expression by default (`--fmad=true`). Without the FMA the
    /// remainder is rounded and the correction is mostly lost, as in [`Composite::div`],
    /// which follows IEEE evaluation of the printed figure. Error terms of the operands are
    /// ignored.
    ///
    /// # Examples
    ///
    /// ```
    /// use stoch_core::composite::Composite;
    /// let z = Composite::from_value(1.0_f32).div_karp(Composite::from_value(3.0));
    /// assert!((z.to_f64() - 1.0 / 3.0).abs() < 1e-14);
    /// ```
    #[inline]
    #[must_use]
    pub fn div_karp(self, y: Self) -> Self {
        let t = T::one() / y.value;
        let s = t * self.value;
        let diff = (-s).mul_add(y.value, self.value);
        Self {
            value: s,
            error: t * diff,
        }
    }
}

impl<T: EftFloat> From<T> for Composite<T> {
    #[inline]
    fn from(x: T) -> Self {
        Self::from_value(x)
    }
}

impl From<Composite<f32>> for f64 {
    /// `value + error` in `f64`.
    #[inline]
    fn from(x: Composite<f32>) -> f64 {
        x.to_f64()
    }
}

impl<T: EftFloat> Neg for Composite<T> {
    type Output = Self;
    #[inline]
    fn neg(self) -> Self {
        Self {
            value: -self.value,
            error: -self.error,
        }
    }
}

/// Writes `v + e` (or `v - |e|`), each part with the format's precision and `T`'s own
/// `Display` (so a stochastic pair prints only its exact digits).
///
/// ```
/// use stoch_core::composite::Composite;
/// assert_eq!(format!("{:.3}", Composite::new(1.5_f32, -0.25)), "1.500 - 0.250");
/// ```
impl<T: EftFloat + fmt::Display> fmt::Display for Composite<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_pair(f, self.value, self.error, |f, x| match f.precision() {
            Some(p) => write!(f, "{x:.p$}"),
            None => write!(f, "{x}"),
        })
    }
}

/// `v + e` in scientific notation: `format!("{:.2e}", x)` gives `1.00e0 + 1.00e-8`.
///
/// ```
/// use stoch_core::composite::Composite;
/// assert_eq!(format!("{:.2e}", Composite::new(1.0_f64, 1e-8)), "1.00e0 + 1.00e-8");
/// ```
impl<T: EftFloat + fmt::LowerExp> fmt::LowerExp for Composite<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_pair(f, self.value, self.error, |f, x| match f.precision() {
            Some(p) => write!(f, "{x:.p$e}"),
            None => write!(f, "{x:e}"),
        })
    }
}

fn write_pair<T: EftFloat>(
    f: &mut fmt::Formatter<'_>,
    v: T,
    e: T,
    part: impl Fn(&mut fmt::Formatter<'_>, T) -> fmt::Result,
) -> fmt::Result {
    part(f, v)?;
    let neg = e.to_f64().is_sign_negative();
    f.write_str(if neg { " - " } else { " + " })?;
    part(f, if neg { -e } else { e })
}

/// A normalised double-word number `hi + lo` with `hi = fl(hi + lo)` (so `|lo| <= ulp(hi)/2`).
///
/// `DoubleWord<f32>` carries about 48 significand bits, `DoubleWord<f64>` about 106
/// (double-double). Every operation renormalises with [`fast_two_sum`].
///
/// | operation | algorithm (Joldes, Muller, Popescu 2017) | relative error bound |
/// |---|---|---|
/// | `+`, `-` | AccurateDWPlusDW (Alg. 6) | `3u²/(1-4u)` |
/// | [`DoubleWord::add_fp`] | DWPlusFP (Alg. 4) | `2u²` |
/// | `*` | DWTimesDW with FMA (Alg. 11) | `5u²` |
/// | `/` | DWDivDW2 (Alg. 18) | `15u² + 56u³` |
///
/// with `u = 2^-24` for `f32` and `2^-53` for `f64`, without overflow or underflow.
///
/// # Examples
///
/// ```
/// use stoch_core::composite::DoubleWord;
///
/// let third = DoubleWord::from_value(1.0_f32) / DoubleWord::from_value(3.0);
/// assert!((third.to_f64() - 1.0 / 3.0).abs() < 1e-14);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C)]
pub struct DoubleWord<T> {
    hi: T,
    lo: T,
}

impl<T: EftFloat> DoubleWord<T> {
    /// The double word `x + 0`.
    ///
    /// ```
    /// use stoch_core::composite::DoubleWord;
    /// assert_eq!(DoubleWord::from_value(2.0_f32).lo(), 0.0);
    /// ```
    #[inline]
    #[must_use]
    pub fn from_value(x: T) -> Self {
        Self {
            hi: x,
            lo: T::zero(),
        }
    }

    /// The exact sum `a + b`, normalised with [`two_sum`].
    ///
    /// ```
    /// use stoch_core::composite::DoubleWord;
    /// let x = DoubleWord::from_sum(1.0_f32, 1e-10);
    /// assert_eq!((x.hi(), x.lo()), (1.0, 1e-10));
    /// ```
    #[inline]
    #[must_use]
    pub fn from_sum(a: T, b: T) -> Self {
        let (hi, lo) = two_sum(a, b);
        Self { hi, lo }
    }

    /// The exact product `a * b` (with [`two_product`]).
    ///
    /// ```
    /// use stoch_core::composite::DoubleWord;
    /// let x = DoubleWord::from_product(0.1_f32, 0.1);
    /// assert_eq!(x.to_f64(), 0.1_f32 as f64 * 0.1_f32 as f64);
    /// ```
    #[inline]
    #[must_use]
    pub fn from_product(a: T, b: T) -> Self {
        let (hi, lo) = two_product(a, b);
        Self { hi, lo }
    }

    /// The nearest double word to an `f64` (for `f32` words: about 48 bits of `x`).
    ///
    /// ```
    /// use stoch_core::composite::DoubleWord;
    /// assert!((DoubleWord::<f32>::from_f64(0.1).to_f64() - 0.1).abs() < 1e-15);
    /// ```
    #[inline]
    #[must_use]
    pub fn from_f64(x: f64) -> Self {
        let hi = T::from_f64(x);
        Self::from_sum(hi, T::from_f64(x - hi.to_f64()))
    }

    /// The leading word, `fl(hi + lo)`.
    #[inline]
    #[must_use]
    pub fn hi(self) -> T {
        self.hi
    }

    /// The trailing word.
    #[inline]
    #[must_use]
    pub fn lo(self) -> T {
        self.lo
    }

    /// `hi + lo` in `f64`.
    ///
    /// ```
    /// use stoch_core::composite::DoubleWord;
    /// assert_eq!(DoubleWord::from_sum(1.0_f32, 1e-10).to_f64(), 1.0 + 1e-10_f32 as f64);
    /// ```
    #[inline]
    #[must_use]
    pub fn to_f64(self) -> f64 {
        self.hi.to_f64() + self.lo.to_f64()
    }

    /// The double word as a [`Composite`] pair (value = `hi`, error = `lo`).
    #[inline]
    #[must_use]
    pub fn to_composite(self) -> Composite<T> {
        Composite::new(self.hi, self.lo)
    }

    /// DWPlusFP: `self + y` for a single word `y` (Alg. 4, 10 operations, error `<= 2u²`).
    ///
    /// ```
    /// use stoch_core::composite::DoubleWord;
    /// let x = DoubleWord::from_value(1.0e8_f32).add_fp(1.0).add_fp(-1.0e8);
    /// assert_eq!(x.to_f64(), 1.0);
    /// ```
    #[inline]
    #[must_use]
    pub fn add_fp(self, y: T) -> Self {
        let (sh, sl) = two_sum(self.hi, y);
        let v = self.lo + sl;
        let (hi, lo) = fast_two_sum(sh, v);
        Self { hi, lo }
    }

    /// DWTimesFP with FMA: `self * y` for a single word `y` (Alg. 9 of Joldes et al.).
    ///
    /// ```
    /// use stoch_core::composite::DoubleWord;
    /// let x = DoubleWord::from_f64(0.1).mul_fp(10.0_f64);
    /// assert!((x.to_f64() - 1.0).abs() < 1e-30);
    /// ```
    #[inline]
    #[must_use]
    pub fn mul_fp(self, y: T) -> Self {
        let (ch, cl1) = two_product(self.hi, y);
        let cl3 = self.lo.mul_add(y, cl1);
        let (hi, lo) = fast_two_sum(ch, cl3);
        Self { hi, lo }
    }
}

impl<T: EftFloat> From<T> for DoubleWord<T> {
    #[inline]
    fn from(x: T) -> Self {
        Self::from_value(x)
    }
}

impl<T: EftFloat> Neg for DoubleWord<T> {
    type Output = Self;
    #[inline]
    fn neg(self) -> Self {
        Self {
            hi: -self.hi,
            lo: -self.lo,
        }
    }
}

impl<T: EftFloat> Add for DoubleWord<T> {
    type Output = Self;
    /// AccurateDWPlusDW (Alg. 6 of Joldes et al.; Li et al.'s `dd_add`).
    #[inline]
    fn add(self, y: Self) -> Self {
        let (sh, sl) = two_sum(self.hi, y.hi);
        let (th, tl) = two_sum(self.lo, y.lo);
        let c = sl + th;
        let (vh, vl) = fast_two_sum(sh, c);
        let w = tl + vl;
        let (hi, lo) = fast_two_sum(vh, w);
        Self { hi, lo }
    }
}

impl<T: EftFloat> Sub for DoubleWord<T> {
    type Output = Self;
    #[inline]
    fn sub(self, y: Self) -> Self {
        self + -y
    }
}

impl<T: EftFloat> Mul for DoubleWord<T> {
    type Output = Self;
    /// DWTimesDW with FMA (Alg. 11 of Joldes et al.).
    #[inline]
    fn mul(self, y: Self) -> Self {
        let (ch, cl1) = two_product(self.hi, y.hi);
        let tl = self.hi * y.lo;
        let cl2 = self.lo.mul_add(y.hi, tl);
        let cl3 = cl1 + cl2;
        let (hi, lo) = fast_two_sum(ch, cl3);
        Self { hi, lo }
    }
}

impl<T: EftFloat> Div for DoubleWord<T> {
    type Output = Self;
    /// DWDivDW2 (Alg. 18 of Joldes et al.): `th = x.hi / y.hi`, remainder by
    /// [`DoubleWord::mul_fp`], one correction.
    #[inline]
    fn div(self, y: Self) -> Self {
        let th = self.hi / y.hi;
        let r = y.mul_fp(th);
        let ph = self.hi - r.hi;
        let dl = self.lo - r.lo;
        let d = ph + dl;
        let tl = d / y.hi;
        let (hi, lo) = fast_two_sum(th, tl);
        Self { hi, lo }
    }
}

macro_rules! composite_ops {
    ($($imp:ident::$m:ident, $imp_a:ident::$m_a:ident;)*) => {$(
        impl<T: EftFloat> $imp for Composite<T> {
            type Output = Self;
            /// See the inherent method of the same name (the paper's figure).
            #[inline]
            fn $m(self, rhs: Self) -> Self {
                Composite::$m(self, rhs)
            }
        }
        impl<T: EftFloat> $imp<T> for Composite<T> {
            type Output = Self;
            #[inline]
            fn $m(self, rhs: T) -> Self {
                Composite::$m(self, Composite::from_value(rhs))
            }
        }
        impl<T: EftFloat> $imp<T> for DoubleWord<T> {
            type Output = Self;
            #[inline]
            fn $m(self, rhs: T) -> Self {
                <DoubleWord<T> as $imp>::$m(self, DoubleWord::from_value(rhs))
            }
        }
        impl<T: EftFloat, R> $imp_a<R> for Composite<T>
        where
            Composite<T>: $imp<R, Output = Composite<T>>,
        {
            #[inline]
            fn $m_a(&mut self, rhs: R) {
                *self = <Self as $imp<R>>::$m(*self, rhs);
            }
        }
        impl<T: EftFloat, R> $imp_a<R> for DoubleWord<T>
        where
            DoubleWord<T>: $imp<R, Output = DoubleWord<T>>,
        {
            #[inline]
            fn $m_a(&mut self, rhs: R) {
                *self = <Self as $imp<R>>::$m(*self, rhs);
            }
        }
    )*};
}

composite_ops! {
    Add::add, AddAssign::add_assign;
    Sub::sub, SubAssign::sub_assign;
    Mul::mul, MulAssign::mul_assign;
    Div::div, DivAssign::div_assign;
}

/// `hi + lo` printed as `T` prints (the leading word carries the value to working
/// precision); `{:#}` prints the pair `hi + lo` like [`Composite`].
///
/// ```
/// use stoch_core::composite::DoubleWord;
/// let x = DoubleWord::from_sum(1.0_f64, 1e-20);
/// assert_eq!(format!("{x}"), "1");
/// assert_eq!(format!("{x:#}"), "1 + 0.00000000000000000001");
/// ```
impl<T: EftFloat + fmt::Display> fmt::Display for DoubleWord<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if f.alternate() {
            let pair = Composite::new(self.hi, self.lo);
            return match f.precision() {
                Some(p) => write!(f, "{pair:.p$}"),
                None => write!(f, "{pair}"),
            };
        }
        match f.precision() {
            Some(p) => write!(f, "{:.p$}", self.hi),
            None => write!(f, "{}", self.hi),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figure3_keeps_the_twosum_error() {
        let x = Composite::from_value(1.0e8_f32);
        let y = Composite::from_value(1.0_f32);
        let z = x + y;
        assert_eq!(z.value, 1.0e8);
        assert_eq!(z.error, 1.0);
        assert_eq!((z - x).to_f64(), 1.0);
        assert_eq!(
            Composite::from_value(3.0_f64) - 1.0,
            Composite::from_value(2.0)
        );
    }

    #[test]
    fn figure4_ignores_the_product_error() {
        let x = Composite::from_value(0.1_f32);
        let z = x * x;
        assert_eq!(z.value, 0.1_f32 * 0.1_f32);
        assert_eq!(z.error, 0.0);
        let w = DoubleWord::from_value(0.1_f32) * DoubleWord::from_value(0.1_f32);
        assert_eq!(w.to_f64(), 0.1_f32 as f64 * 0.1_f32 as f64);
    }

    #[test]
    fn figure5_variants() {
        let x = Composite::from_value(1.0_f32);
        let y = Composite::from_value(3.0_f32);
        let paper = x / y;
        let karp = x.div_karp(y);
        // Without FMA the remainder 1 - fl(s * 3) rounds to zero: no correction.
        assert_eq!((paper.value, paper.error), (1.0 / 3.0, 0.0));
        assert_eq!(karp.value, 1.0 / 3.0);
        assert!((karp.to_f64() - 1.0 / 3.0).abs() < 1e-14);
        let x = Composite::from_value(2.0_f64);
        let y = Composite::from_value(7.0_f64);
        let paper = x / y;
        let t = 1.0 / 7.0;
        let s = t * 2.0;
        let diff = 2.0 - s * 7.0;
        assert_eq!((paper.value, paper.error), (s + t * diff, t * diff));
    }

    #[test]
    fn double_word_is_accurate() {
        let mut state = 0x1234_5678_u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 11) as f64 / (1u64 << 53) as f64 + 0.5
        };
        for _ in 0..10_000 {
            let (a, b) = (next(), next() * 100.0);
            let (x, y) = (
                DoubleWord::<f32>::from_f64(a),
                DoubleWord::<f32>::from_f64(b),
            );
            let (xa, ya) = (x.to_f64(), y.to_f64());
            let u2 = 2f64.powi(-48);
            assert!(((x + y).to_f64() - (xa + ya)).abs() <= 4.0 * u2 * (xa + ya));
            assert!(((y - x).to_f64() - (ya - xa)).abs() <= 4.0 * u2 * (ya + xa));
            assert!(((x * y).to_f64() - xa * ya).abs() <= 6.0 * u2 * xa * ya);
            assert!(((x / y).to_f64() - xa / ya).abs() <= 16.0 * u2 * xa / ya);
            let n = x + y;
            assert_eq!(n.hi(), n.hi() + n.lo(), "normalised");
        }
    }

    #[test]
    fn printing() {
        assert_eq!(format!("{}", Composite::new(2.0_f64, 0.5)), "2 + 0.5");
        assert_eq!(
            format!("{:.1e}", Composite::new(2.0_f32, -0.5)),
            "2.0e0 - 5.0e-1"
        );
        assert_eq!(f64::from(Composite::new(1.0_f32, 0.25)), 1.25);
    }
}
