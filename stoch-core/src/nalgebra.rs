//! nalgebra and simba traits for [`Stochastic<T>`] (feature `nalgebra`): `SimdValue`, `Field`,
//! `SubsetOf`/`SupersetOf` with `f32` and `f64`, `ComplexField` and `RealField`, so matrices of
//! `Sf64` or `Sf32` run nalgebra's decompositions (LU, full-pivot LU, QR, Cholesky, SVD,
//! symmetric eigen, Schur, Hessenberg, bidiagonal, UDU), determinants, inverses and norms; and
//! `s * m` with a stochastic scalar `s` on the left of a matrix `m`.
//!
//! DSA semantics throughout:
//!
//! - the math functions are the library's randomly rounded ones (DESIGN §2);
//! - comparisons are stochastic relations (`PartialOrd`): a pivot or a stopping test decided on
//!   numerical noise records an unstable branching at nalgebra's line;
//! - the sign of a real (`signum`, `to_exp`), by which nalgebra picks a reflection, a rotation
//!   or a shift, is one decision for all three samples, as any branch is in DSA: `1` when
//!   `x >= 0` as a stochastic relation, else `−1`, with a branching instability when `x` is
//!   noise; the modulus is the library's per-sample `abs`. (Of the alternatives we tried, the
//!   library's per-sample `signum` sent the samples of noise values down different branches and
//!   left the symmetric eigenvalues of a well-conditioned matrix without a digit, and a modulus
//!   `x · sign` made more results NaN);
//! - `is_zero` means exact zero, so a pivot that is a computed zero (noise) is used, and the
//!   division by it is reported as an unstable division, instead of being skipped as if exact;
//! - `f64` constants enter `Sf32` code rounded randomly ([`Sf32::from_f64`](crate::Sf32)).
//!
//! # Iteration limits
//!
//! nalgebra's iterative decompositions (`svd`, `symmetric_eigen`, `schur`) loop until an
//! off-diagonal entry is negligible, and their plain forms pass no iteration limit
//! (`max_niter = 0` means no limit). When the entries are numerical noise, the test may never
//! pass: call the `try_` forms with a limit, for example
//! `m.try_svd(true, true, Sf64::EPSILON * 5.0, 1000)`,
//! `m.try_symmetric_eigen(Sf64::EPSILON, 1000)`, `m.try_schur(Sf64::EPSILON, 1000)`;
//! they return `None` when the limit is reached. (In our trials the SVD of a permutation
//! matrix never converged; the Schur and symmetric eigen iterations stopped by themselves, but
//! nothing guarantees it.) 1000 is far above what a matrix that converges needs (f64: tens).
//!
//! # Limits
//!
//! - A rank-deficient matrix can give NaN samples: a column that is exactly zero in one sample
//!   and noise in the others is divided by its own norm (`0/0`), reported as an unstable
//!   division. The sorted `svd()`/`try_svd()` then panic in nalgebra ("Singular value was
//!   NaN"); `svd_unordered`/`try_svd_unordered` return the values.
//! - Schur on matrices where nalgebra's double-shift step stagnates (no exceptional shift):
//!   a symmetric tridiagonal matrix of odd order (4 on the diagonal, 1 beside it: the shift
//!   makes the step a permutation), and some dense 3×3 ones. f64 gets out of the stagnation
//!   through round-off alone (36 steps for a 3×3); under DSA the three samples drift apart
//!   into different, each valid, similarity transforms, the entries lose every digit (flagged:
//!   self-validation fails), and a Givens rotation built from them is skipped
//!   (`denom > 0` is false for a computed zero) before nalgebra zeroes the entry it should
//!   have annihilated: the Schur form does not rebuild the matrix (error 0.2 to 1). The
//!   result's flags and the report say the estimate cannot be trusted, but the digits shown
//!   are wrong. For symmetric matrices use `symmetric_eigen`.
//! - A deflation test (`|e| <= eps·(|d₁| + |d₂|)`) on a noise entry holds, since noise is
//!   equal to zero in DSA: the iteration drops the entry where IEEE would iterate on. On
//!   ill-conditioned matrices the SVD loses more digits than IEEE's (the estimate stays honest,
//!   and the report shows the branchings in nalgebra's `svd.rs`).
//!
//! ```
//! use nalgebra::{Matrix3, Vector3};
//! use stoch_core::Sf64;
//!
//! let a = Matrix3::from_fn(|i, j| Sf64::new(1.0) / Sf64::from((i + j + 1) as u32));
//! let b = Vector3::from_element(Sf64::ONE);
//! let x = a.lu().solve(&b).unwrap();
//! // The exact solution is (3, -24, 30): the stochastic result says how many digits are right.
//! assert!(x[1].digits() >= 12);
//! assert!((Sf64::new(2.0) * a).determinant().digits() >= 12);
//! # stoch_core::reset();
//! ```

use core::ops::{Add, Div, Mul, Sub};

use nalgebra::allocator::Allocator;
use nalgebra::{DefaultAllocator, Dim, Matrix, OMatrix, Storage};
use simba::scalar::{ComplexField, Field, RealField, SubsetOf};
use simba::simd::{PrimitiveSimdValue, SimdValue};

use crate::num_traits_impl::forward;
use crate::Stochastic;

/// Unary trait methods that are the inherent method of the same name (see `forward!`).
macro_rules! same {
    ($($name:ident),*) => {
        forward!(Stochastic: $($name() -> Self;)*);
    };
}

/// `SubsetOf<Stochastic<$t>>` for `$plain`: `$to` turns a `$plain` into the stochastic type,
/// `$back` a reference to a stochastic value back; every value is in the subset.
macro_rules! subset_of {
    ($(#[$attr:meta])* $t:ident, $plain:ty, $to:expr, $back:expr) => {
        $(#[$attr])*
        impl SubsetOf<Stochastic<$t>> for $plain {
            #[inline]
            fn to_superset(&self) -> Stochastic<$t> {
                ($to)(*self)
            }
            #[inline]
            fn from_superset_unchecked(element: &Stochastic<$t>) -> $plain {
                ($back)(element)
            }
            #[inline]
            fn is_in_subset(_: &Stochastic<$t>) -> bool {
                true
            }
        }
    };
}

macro_rules! consts {
    ($t:ident: $($name:ident = $c:ident),*) => {$(
        #[inline]
        fn $name() -> Self {
            Stochastic::new(core::$t::consts::$c)
        }
    )*};
}

macro_rules! impl_nalgebra {
    ($t:ident, $from_f64:expr, $from_f32:expr) => {
        impl SimdValue for Stochastic<$t> {
            const LANES: usize = 1;
            type Element = Self;
            type SimdBool = bool;

            #[inline(always)]
            fn splat(val: Self) -> Self {
                val
            }
            #[inline(always)]
            fn extract(&self, _: usize) -> Self {
                *self
            }
            #[inline(always)]
            unsafe fn extract_unchecked(&self, _: usize) -> Self {
                *self
            }
            #[inline(always)]
            fn replace(&mut self, _: usize, val: Self) {
                *self = val
            }
            #[inline(always)]
            unsafe fn replace_unchecked(&mut self, _: usize, val: Self) {
                *self = val
            }
            #[inline(always)]
            fn select(self, cond: bool, other: Self) -> Self {
                if cond {
                    self
                } else {
                    other
                }
            }
        }

        impl PrimitiveSimdValue for Stochastic<$t> {}

        impl Field for Stochastic<$t> {}

        subset_of!($t, Stochastic<$t>, |x| x, |e: &Stochastic<$t>| *e);
        subset_of!(
            /// `f64` into the stochastic type: exact for `Sf64`, randomly rounded for `Sf32`;
            /// back to `f64`: the mean.
            $t, f64, $from_f64, |e: &Stochastic<$t>| e.to_f64()
        );
        subset_of!(
            /// `f32` into the stochastic type: exact; back to `f32`: the mean rounded to
            /// nearest.
            $t, f32, $from_f32, |e: &Stochastic<$t>| e.to_f32()
        );

        impl ComplexField for Stochastic<$t> {
            type RealField = Self;

            #[inline]
            fn from_real(re: Self) -> Self {
                re
            }
            #[inline]
            fn real(self) -> Self {
                self
            }
            #[inline]
            fn imaginary(self) -> Self {
                Self::ZERO
            }
            #[track_caller]
            #[inline]
            fn modulus(self) -> Self {
                Stochastic::abs(self)
            }
            #[track_caller]
            #[inline]
            fn modulus_squared(self) -> Self {
                self * self
            }
            /// 0 or π, by the stochastic relation `self >= 0`.
            #[track_caller]
            #[inline]
            fn argument(self) -> Self {
                if self >= Self::ZERO {
                    Self::ZERO
                } else {
                    Self::pi()
                }
            }
            #[track_caller]
            #[inline]
            fn norm1(self) -> Self {
                Stochastic::abs(self)
            }
            #[track_caller]
            #[inline]
            fn scale(self, factor: Self) -> Self {
                self * factor
            }
            #[track_caller]
            #[inline]
            fn unscale(self, factor: Self) -> Self {
                self / factor
            }
            /// The sign as one decision for all samples: `1` when `x >= 0` as a stochastic
            /// relation, else `−1`; a branching instability when `x` is noise.
            #[track_caller]
            #[inline]
            fn signum(self) -> Self {
                branch_sign(self)
            }
            /// `(|x|, signum(x))`, without dividing (simba's default divides `x` by `|x|`,
            /// `0/0` in a noise value's zero sample).
            #[track_caller]
            #[inline]
            fn to_exp(self) -> (Self, Self) {
                (Stochastic::abs(self), branch_sign(self))
            }
            same!(
                floor, ceil, round, trunc, fract, recip, sin, cos, tan, asin, acos, atan, sinh,
                cosh, tanh, asinh, acosh, atanh, log2, log10, ln, ln_1p, sqrt, exp, exp2, exp_m1,
                cbrt
            );
            forward! {
                Stochastic:
                mul_add(a: Self, b: Self) -> Self;
                abs() -> Self;
                hypot(other: Self) -> Self;
            }
            #[inline]
            fn conjugate(self) -> Self {
                self
            }
            forward! {
                Stochastic:
                sin_cos() -> (Self, Self);
                log(base: Self) -> Self;
                powi(n: i32) -> Self;
                powf(n: Self) -> Self;
            }
            #[track_caller]
            #[inline]
            fn powc(self, n: Self) -> Self {
                Stochastic::powf(self, n)
            }
            forward!(Stochastic, &self: is_finite() -> bool;);
            /// `None` when `self < 0` as a stochastic relation (noise around zero is not
            /// negative: its square root is taken, and reported as a math-function instability).
            #[track_caller]
            #[inline]
            fn try_sqrt(self) -> Option<Self> {
                if self >= Self::ZERO {
                    Some(Stochastic::sqrt(self))
                } else {
                    None
                }
            }
        }

        impl RealField for Stochastic<$t> {
            forward! {
                Stochastic, &self:
                is_sign_positive() -> bool;
                is_sign_negative() -> bool;
            }
            #[inline]
            fn copysign(self, sign: Self) -> Self {
                Stochastic::copysign(self, sign)
            }
            forward! {
                Stochastic:
                max(other: Self) -> Self;
                min(other: Self) -> Self;
                clamp(min: Self, max: Self) -> Self;
                atan2(other: Self) -> Self;
            }
            #[inline]
            fn min_value() -> Option<Self> {
                Some(Self::MIN)
            }
            #[inline]
            fn max_value() -> Option<Self> {
                Some(Self::MAX)
            }
            consts!($t: pi = PI, two_pi = TAU, frac_pi_2 = FRAC_PI_2, frac_pi_3 = FRAC_PI_3,
                frac_pi_4 = FRAC_PI_4, frac_pi_6 = FRAC_PI_6, frac_pi_8 = FRAC_PI_8,
                frac_1_pi = FRAC_1_PI, frac_2_pi = FRAC_2_PI, frac_2_sqrt_pi = FRAC_2_SQRT_PI,
                e = E, log2_e = LOG2_E, log10_e = LOG10_E, ln_2 = LN_2, ln_10 = LN_10);
        }

        scalar_lhs!($t; Mul::mul, *; Add::add, +; Sub::sub, -; Div::div, /);
    };
}

/// The sign of `x` as one decision for all three samples: `1` when `x >= 0` as a stochastic
/// relation, else `−1`, exact and carrying `x`'s flags (NaN for NaN). nalgebra branches on the
/// sign of a real (`signum`, `to_exp`) to pick a Householder reflection, a Givens rotation or a
/// shift; as for any branch in DSA, the three samples take the same one, decided on the mean.
/// A per-sample sign (the library's [`Stochastic::signum`]) sends the samples of a noise value
/// down different branches, to different (each valid) factorizations whose mixture is noise.
///
/// # Instability
///
/// Branching at nalgebra's line when `x` is numerical noise (the choice rests on round-off);
/// the sign then carries the branching flag.
#[track_caller]
#[inline]
fn branch_sign<T: crate::StochFloat>(x: Stochastic<T>) -> Stochastic<T> {
    if x.to_f64().is_nan() {
        return Stochastic::NAN;
    }
    let one = if x >= Stochastic::ZERO {
        T::ONE
    } else {
        -T::ONE
    };
    let mut flags = x.flags();
    if x.is_numerical_noise() {
        flags = flags.with(crate::Instability::Branching);
    }
    Stochastic::from_parts([one; 3], flags)
}

/// `s op m` with a stochastic scalar on the left, elementwise (`s * m` is the scaled matrix,
/// `s - m` the matrix of `s - m[i]`); nalgebra has these for the primitive types only, and the
/// orphan rule leaves them to this crate.
macro_rules! scalar_lhs {
    ($t:ident; $($trt:ident::$m:ident, $op:tt);*) => {$(
        scalar_lhs!(@impl $t, $trt::$m, Matrix<Stochastic<$t>, R, C, S>, |self, rhs| {
            let mut res = rhs.into_owned();
            for x in res.iter_mut() {
                *x = self $op *x;
            }
            res
        });
        scalar_lhs!(@impl $t, $trt::$m, &Matrix<Stochastic<$t>, R, C, S>, |self, rhs| {
            self.$m(rhs.clone_owned())
        });
    )*};
    // One impl: `$trt<$rhs>` for the scalar, `$m` given by its parameters and body.
    (@impl $t:ident, $trt:ident::$m:ident, $rhs:ty, |$s:ident, $r:ident| $body:block) => {
        impl<R: Dim, C: Dim, S: Storage<Stochastic<$t>, R, C>> $trt<$rhs> for Stochastic<$t>
        where
            DefaultAllocator: Allocator<R, C>,
        {
            type Output = OMatrix<Stochastic<$t>, R, C>;
            #[track_caller]
            #[inline]
            fn $m($s, $r: $rhs) -> Self::Output $body
        }
    };
}

impl_nalgebra!(
    f64,
    Stochastic::<f64>::new,
    |x: f32| Stochastic::<f64>::new(x.into())
);
impl_nalgebra!(f32, Stochastic::<f32>::from_f64, Stochastic::<f32>::new);
