//! `num-traits` implementations, so generic code written for `F: Float` runs unchanged with
//! `Stochastic<T>`.

use core::num::FpCategory;

use num_traits::{Float, FloatConst, FromPrimitive, Num, NumCast, One, Signed, ToPrimitive, Zero};

use crate::{StochFloat, Stochastic};

macro_rules! _to_int_ty {
    (to_isize) => {
        isize
    };
    (to_i8) => {
        i8
    };
    (to_i16) => {
        i16
    };
    (to_i32) => {
        i32
    };
    (to_i64) => {
        i64
    };
    (to_i128) => {
        i128
    };
    (to_usize) => {
        usize
    };
    (to_u8) => {
        u8
    };
    (to_u16) => {
        u16
    };
    (to_u32) => {
        u32
    };
    (to_u64) => {
        u64
    };
    (to_u128) => {
        u128
    };
}

impl<T: StochFloat> Zero for Stochastic<T> {
    #[inline]
    fn zero() -> Self {
        Self::ZERO
    }
    #[inline]
    fn is_zero(&self) -> bool {
        self.is_exact_zero()
    }
}

impl<T: StochFloat> One for Stochastic<T> {
    #[inline]
    fn one() -> Self {
        Self::ONE
    }
}

impl<T: StochFloat> Num for Stochastic<T> {
    type FromStrRadixErr = <T as Num>::FromStrRadixErr;
    fn from_str_radix(s: &str, radix: u32) -> Result<Self, Self::FromStrRadixErr> {
        T::from_str_radix(s, radix).map(Self::new)
    }
}

macro_rules! to_int {
    ($($m:ident),*) => {$(
        /// Converts the mean; an intrinsic instability when the samples convert differently.
        #[track_caller]
        fn $m(&self) -> Option<_to_int_ty!($m)> {
            self.checked_int_cast(|x| x.$m())
        }
    )*};
}

impl<T: StochFloat> ToPrimitive for Stochastic<T> {
    to_int!(to_isize, to_i8, to_i16, to_i32, to_i64, to_i128);
    to_int!(to_usize, to_u8, to_u16, to_u32, to_u64, to_u128);
    fn to_f64(&self) -> Option<f64> {
        Some(Stochastic::to_f64(self))
    }
    fn to_f32(&self) -> Option<f32> {
        Some(Stochastic::to_f32(self))
    }
}

impl<T: StochFloat> FromPrimitive for Stochastic<T> {
    fn from_i64(n: i64) -> Option<Self> {
        Some(Self::new(T::from_f64(n as f64)))
    }
    fn from_u64(n: u64) -> Option<Self> {
        Some(Self::new(T::from_f64(n as f64)))
    }
    fn from_f64(n: f64) -> Option<Self> {
        Some(Self::new(T::from_f64(n)))
    }
    fn from_f32(n: f32) -> Option<Self> {
        Some(Self::new(T::from_f64(n as f64)))
    }
}

impl<T: StochFloat> NumCast for Stochastic<T> {
    fn from<N: ToPrimitive>(n: N) -> Option<Self> {
        n.to_f64().map(|x| Self::new(T::from_f64(x)))
    }
}

impl<T: StochFloat> Signed for Stochastic<T> {
    #[track_caller]
    fn abs(&self) -> Self {
        Stochastic::abs(*self)
    }
    #[track_caller]
    fn abs_sub(&self, other: &Self) -> Self {
        if *self <= *other {
            Self::ZERO
        } else {
            *self - *other
        }
    }
    #[track_caller]
    fn signum(&self) -> Self {
        Stochastic::signum(*self)
    }
    #[track_caller]
    fn is_positive(&self) -> bool {
        *self > Self::ZERO
    }
    #[track_caller]
    fn is_negative(&self) -> bool {
        *self < Self::ZERO
    }
}

macro_rules! fwd {
    ($($name:ident),*) => {$(
        #[track_caller]
        #[inline]
        fn $name(self) -> Self { Stochastic::$name(self) }
    )*};
}

impl<T: StochFloat> Float for Stochastic<T> {
    fn nan() -> Self {
        Self::NAN
    }
    fn infinity() -> Self {
        Self::INFINITY
    }
    fn neg_infinity() -> Self {
        Self::NEG_INFINITY
    }
    fn neg_zero() -> Self {
        -Self::ZERO
    }
    fn min_value() -> Self {
        Self::MIN
    }
    fn min_positive_value() -> Self {
        Self::MIN_POSITIVE
    }
    fn max_value() -> Self {
        Self::MAX
    }
    fn epsilon() -> Self {
        Self::EPSILON
    }
    #[track_caller]
    fn is_nan(self) -> bool {
        Stochastic::is_nan(self)
    }
    #[track_caller]
    fn is_infinite(self) -> bool {
        Stochastic::is_infinite(self)
    }
    #[track_caller]
    fn is_finite(self) -> bool {
        Stochastic::is_finite(self)
    }
    fn is_normal(self) -> bool {
        self.mean().is_normal()
    }
    fn classify(self) -> FpCategory {
        self.mean().classify()
    }
    #[track_caller]
    fn is_sign_positive(self) -> bool {
        Stochastic::is_sign_positive(self)
    }
    #[track_caller]
    fn is_sign_negative(self) -> bool {
        Stochastic::is_sign_negative(self)
    }
    fwd!(
        floor, ceil, round, trunc, fract, abs, signum, recip, sqrt, exp, exp2, ln, log2, log10,
        cbrt, sin, cos, tan, asin, acos, atan, exp_m1, ln_1p, sinh, cosh, tanh, asinh, acosh,
        atanh, to_degrees, to_radians
    );
    #[track_caller]
    fn mul_add(self, a: Self, b: Self) -> Self {
        Stochastic::mul_add(self, a, b)
    }
    #[track_caller]
    fn powi(self, n: i32) -> Self {
        Stochastic::powi(self, n)
    }
    #[track_caller]
    fn powf(self, n: Self) -> Self {
        Stochastic::powf(self, n)
    }
    #[track_caller]
    fn log(self, base: Self) -> Self {
        Stochastic::log(self, base)
    }
    #[track_caller]
    fn max(self, other: Self) -> Self {
        Stochastic::max(self, other)
    }
    #[track_caller]
    fn min(self, other: Self) -> Self {
        Stochastic::min(self, other)
    }
    #[track_caller]
    fn clamp(self, lo: Self, hi: Self) -> Self {
        Stochastic::clamp(self, lo, hi)
    }
    #[track_caller]
    fn abs_sub(self, other: Self) -> Self {
        Signed::abs_sub(&self, &other)
    }
    #[track_caller]
    fn hypot(self, other: Self) -> Self {
        Stochastic::hypot(self, other)
    }
    #[track_caller]
    fn atan2(self, other: Self) -> Self {
        Stochastic::atan2(self, other)
    }
    #[track_caller]
    fn sin_cos(self) -> (Self, Self) {
        Stochastic::sin_cos(self)
    }
    fn integer_decode(self) -> (u64, i16, i8) {
        self.mean().integer_decode()
    }
    fn copysign(self, sign: Self) -> Self {
        Stochastic::copysign(self, sign)
    }
}

macro_rules! consts {
    ($($name:ident),*) => {$(
        fn $name() -> Self { Self::new(T::$name()) }
    )*};
}

impl<T: StochFloat> FloatConst for Stochastic<T> {
    consts!(
        E,
        FRAC_1_PI,
        FRAC_1_SQRT_2,
        FRAC_2_PI,
        FRAC_2_SQRT_PI,
        FRAC_PI_2,
        FRAC_PI_3,
        FRAC_PI_4,
        FRAC_PI_6,
        FRAC_PI_8,
        LN_10,
        LN_2,
        LOG10_E,
        LOG2_E,
        PI,
        SQRT_2,
        TAU,
        LOG10_2,
        LOG2_10
    );
}

/// `FloatCore` (the `no_std` subset of `Float`), for generic code bounded by it (linreg's
/// `F: FloatCore`): every method answers as the `Float` method of the same name.
impl<T: StochFloat> num_traits::float::FloatCore for Stochastic<T> {
    fn infinity() -> Self {
        <Self as Float>::infinity()
    }
    fn neg_infinity() -> Self {
        <Self as Float>::neg_infinity()
    }
    fn nan() -> Self {
        <Self as Float>::nan()
    }
    fn neg_zero() -> Self {
        <Self as Float>::neg_zero()
    }
    fn min_value() -> Self {
        <Self as Float>::min_value()
    }
    fn min_positive_value() -> Self {
        <Self as Float>::min_positive_value()
    }
    fn epsilon() -> Self {
        <Self as Float>::epsilon()
    }
    fn max_value() -> Self {
        <Self as Float>::max_value()
    }
    fn classify(self) -> FpCategory {
        <Self as Float>::classify(self)
    }
    fn to_degrees(self) -> Self {
        <Self as Float>::to_degrees(self)
    }
    fn to_radians(self) -> Self {
        <Self as Float>::to_radians(self)
    }
    fn integer_decode(self) -> (u64, i16, i8) {
        <Self as Float>::integer_decode(self)
    }
    #[track_caller]
    fn floor(self) -> Self {
        <Self as Float>::floor(self)
    }
    #[track_caller]
    fn ceil(self) -> Self {
        <Self as Float>::ceil(self)
    }
    #[track_caller]
    fn round(self) -> Self {
        <Self as Float>::round(self)
    }
    #[track_caller]
    fn trunc(self) -> Self {
        <Self as Float>::trunc(self)
    }
    #[track_caller]
    fn fract(self) -> Self {
        <Self as Float>::fract(self)
    }
    fn abs(self) -> Self {
        <Self as Float>::abs(self)
    }
    fn signum(self) -> Self {
        <Self as Float>::signum(self)
    }
    #[track_caller]
    fn recip(self) -> Self {
        <Self as Float>::recip(self)
    }
    #[track_caller]
    fn powi(self, n: i32) -> Self {
        <Self as Float>::powi(self, n)
    }
    fn is_nan(self) -> bool {
        <Self as Float>::is_nan(self)
    }
    fn is_infinite(self) -> bool {
        <Self as Float>::is_infinite(self)
    }
    fn is_finite(self) -> bool {
        <Self as Float>::is_finite(self)
    }
}
