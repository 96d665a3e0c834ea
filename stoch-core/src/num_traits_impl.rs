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

/// Trait methods that call the function of the same name on `$via` (`Stochastic`'s inherent
/// methods, or another trait), `#[track_caller]` so that an instability is recorded at the
/// caller's line: `name(args) -> type;` each, taking `self`, `&self` or nothing.
macro_rules! forward {
    ($via:ident: $($name:ident($($arg:ident: $ty:ty),*) -> $ret:ty;)*) => {$(
        #[track_caller]
        #[inline]
        fn $name(self, $($arg: $ty),*) -> $ret {
            $via::$name(self, $($arg),*)
        }
    )*};
    ($via:ident, &self: $($name:ident() -> $ret:ty;)*) => {$(
        #[track_caller]
        #[inline]
        fn $name(&self) -> $ret {
            $via::$name(*self)
        }
    )*};
    ($via:ident, no self: $($name:ident() -> $ret:ty;)*) => {$(
        #[inline]
        fn $name() -> $ret {
            $via::$name()
        }
    )*};
}
#[cfg(feature = "nalgebra")]
pub(crate) use forward;

/// Unary methods that are `Stochastic`'s inherent methods of the same name.
macro_rules! fwd {
    ($($name:ident),*) => {
        forward!(Stochastic: $($name() -> Self;)*);
    };
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
    forward! {
        Stochastic:
        is_nan() -> bool;
        is_infinite() -> bool;
        is_finite() -> bool;
    }
    fn is_normal(self) -> bool {
        self.mean().is_normal()
    }
    fn classify(self) -> FpCategory {
        self.mean().classify()
    }
    forward! {
        Stochastic:
        is_sign_positive() -> bool;
        is_sign_negative() -> bool;
    }
    fwd!(
        floor, ceil, round, trunc, fract, abs, signum, recip, sqrt, exp, exp2, ln, log2, log10,
        cbrt, sin, cos, tan, asin, acos, atan, exp_m1, ln_1p, sinh, cosh, tanh, asinh, acosh,
        atanh, to_degrees, to_radians
    );
    forward! {
        Stochastic:
        mul_add(a: Self, b: Self) -> Self;
        powi(n: i32) -> Self;
        powf(n: Self) -> Self;
        log(base: Self) -> Self;
        max(other: Self) -> Self;
        min(other: Self) -> Self;
        clamp(lo: Self, hi: Self) -> Self;
        hypot(other: Self) -> Self;
        atan2(other: Self) -> Self;
        sin_cos() -> (Self, Self);
        copysign(sign: Self) -> Self;
    }
    #[track_caller]
    fn abs_sub(self, other: Self) -> Self {
        Signed::abs_sub(&self, &other)
    }
    fn integer_decode(self) -> (u64, i16, i8) {
        self.mean().integer_decode()
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
    forward! {
        Float, no self:
        infinity() -> Self;
        neg_infinity() -> Self;
        nan() -> Self;
        neg_zero() -> Self;
        min_value() -> Self;
        min_positive_value() -> Self;
        epsilon() -> Self;
        max_value() -> Self;
    }
    forward! {
        Float:
        classify() -> FpCategory;
        to_degrees() -> Self;
        to_radians() -> Self;
        integer_decode() -> (u64, i16, i8);
        floor() -> Self;
        ceil() -> Self;
        round() -> Self;
        trunc() -> Self;
        fract() -> Self;
        abs() -> Self;
        signum() -> Self;
        recip() -> Self;
        powi(n: i32) -> Self;
        is_nan() -> bool;
        is_infinite() -> bool;
        is_finite() -> bool;
    }
}
