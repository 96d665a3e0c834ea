//! Arithmetic operators: random rounding, flag propagation and the instability checks of
//! DESIGN §4, written once for both types and forwarded by macro to every operand form. Every
//! operator is `#[track_caller]`, so an instability is attributed to the user's expression.
//!
//! [`arith`] runs each operation's kernel (through the one dispatch point, [`crate::arch`]) and
//! its checks' pre-test; [`checks`] holds the checks and their out-of-line slow paths;
//! [`pretest`] the pre-tests' vector forms, one module per instruction set.
//!
//! The operators are `inline(always)` where `debug_assertions` are off (release builds) and
//! `inline` where they are on: inlined into a build without optimisations, every operation
//! kept its own stack slots for all its paths, and a function with many operations (an
//! unrolled library loop) overflowed a thread's stack.

use core::iter::{Product, Sum};
use core::ops::SubAssign;
use core::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Rem, RemAssign, Sub};

use crate::runtime::{rng, state};
use crate::{StochFloat, Stochastic};

mod arith;
mod checks;
#[cfg(target_arch = "x86_64")]
mod pretest;
#[cfg(test)]
mod tests;

use std::panic::Location;

use crate::instability::Instability;
use crate::report::record;
use crate::runtime::cold;
use crate::runtime::state::COLLAPSE_BIT;
use arith::{add_op, div_op, mul_op};
use checks::*;
pub(crate) use checks::{check_collapse, maybe_noise};

impl<T: StochFloat> Stochastic<T> {
    /// `self + rhs` with random rounding and no instability check.
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    pub(crate) fn raw_add(self, rhs: Self) -> Self {
        Self {
            v: T::add4(self.v, rhs.v, rng::dir2()),
        }
    }

    /// `self − rhs` with random rounding and no instability check.
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    pub(crate) fn raw_sub(self, rhs: Self) -> Self {
        self.raw_add(-rhs)
    }

    /// `self · rhs` with random rounding and no instability check.
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    pub(crate) fn raw_mul(self, rhs: Self) -> Self {
        Self {
            v: T::mul4(self.v, rhs.v, rng::dir2()),
        }
    }

    /// `self / rhs` with random rounding and no instability check.
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    pub(crate) fn raw_div(self, rhs: Self) -> Self {
        Self {
            v: T::div4(self.v, rhs.v, rng::dir2()),
        }
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    pub(crate) fn from_parts_raw(s: [T; 3], flags: u8) -> Self {
        Self::from_parts(s, crate::Flags::from_bits(flags))
    }

    /// Adds `kind` to the flags and records it at `loc`, out of line through the trampoline
    /// (`runtime::cold`), so that a loop with the check inlined keeps its values in registers.
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    pub(crate) fn flag(
        self,
        kind: Instability,
        loc: &'static Location<'static>,
        ops: &[&[T; 3]],
    ) -> Self {
        cold::run((kind, loc, ops), |c| record(c.0, c.1, c.2));
        self.or_flags(kind.bit())
    }

    /// This value with `bits` ORed into its flags.
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
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
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    #[must_use]
    pub fn mul_add(self, a: Self, b: Self) -> Self {
        let r = Self {
            v: T::fma4(self.v, a.v, b.v, rng::dir2()),
        };
        let loc = Location::caller();
        let mask = state::mask();
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

impl<T: StochFloat> Add for Stochastic<T> {
    type Output = Self;
    /// Random rounding of each sample's sum.
    ///
    /// # Instability
    ///
    /// Cancellation when the result lost `cancel_level` digits; an accuracy collapse when two
    /// significant operands give a computed zero.
    #[track_caller]
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
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
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
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
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
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
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
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
        let mask = state::mask_init();
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
    /// Exact: every sample changes sign; the flags stay.
    #[inline]
    fn neg(self) -> Self {
        Self { v: T::neg4(self.v) }
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
            #[cfg_attr(not(debug_assertions), inline(always))]
            #[cfg_attr(debug_assertions, inline)]
            fn $m(self, rhs: &Stochastic<T>) -> Stochastic<T> { $imp::$m(self, *rhs) }
        }
        impl<T: StochFloat> $imp<Stochastic<T>> for &Stochastic<T> {
            type Output = Stochastic<T>;
            #[track_caller]
            #[cfg_attr(not(debug_assertions), inline(always))]
            #[cfg_attr(debug_assertions, inline)]
            fn $m(self, rhs: Stochastic<T>) -> Stochastic<T> { $imp::$m(*self, rhs) }
        }
        impl<T: StochFloat> $imp<&Stochastic<T>> for &Stochastic<T> {
            type Output = Stochastic<T>;
            #[track_caller]
            #[cfg_attr(not(debug_assertions), inline(always))]
            #[cfg_attr(debug_assertions, inline)]
            fn $m(self, rhs: &Stochastic<T>) -> Stochastic<T> { $imp::$m(*self, *rhs) }
        }
        impl<T: StochFloat, R> $imp_a<R> for Stochastic<T>
        where
            Stochastic<T>: $imp<R, Output = Stochastic<T>>,
        {
            #[track_caller]
            #[cfg_attr(not(debug_assertions), inline(always))]
            #[cfg_attr(debug_assertions, inline)]
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
            #[cfg_attr(not(debug_assertions), inline(always))]
            #[cfg_attr(debug_assertions, inline)]
            fn add(self, rhs: $t) -> Self::Output {
                add_op(self, Stochastic::new(rhs), true, false, Location::caller())
            }
        }
        impl Sub<$t> for Stochastic<$t> {
            type Output = Stochastic<$t>;
            #[track_caller]
            #[cfg_attr(not(debug_assertions), inline(always))]
            #[cfg_attr(debug_assertions, inline)]
            fn sub(self, rhs: $t) -> Self::Output {
                add_op(self, Stochastic::new(-rhs), true, true, Location::caller())
            }
        }
        impl Mul<$t> for Stochastic<$t> {
            type Output = Stochastic<$t>;
            #[track_caller]
            #[cfg_attr(not(debug_assertions), inline(always))]
            #[cfg_attr(debug_assertions, inline)]
            fn mul(self, rhs: $t) -> Self::Output {
                check_plain(self, self.raw_mul(Stochastic::new(rhs)), Location::caller())
            }
        }
        impl Div<$t> for Stochastic<$t> {
            type Output = Stochastic<$t>;
            #[track_caller]
            #[cfg_attr(not(debug_assertions), inline(always))]
            #[cfg_attr(debug_assertions, inline)]
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
            #[cfg_attr(not(debug_assertions), inline(always))]
            #[cfg_attr(debug_assertions, inline)]
            fn add(self, rhs: Stochastic<$t>) -> Self::Output {
                rhs + self
            }
        }
        impl Sub<Stochastic<$t>> for $t {
            type Output = Stochastic<$t>;
            #[track_caller]
            #[cfg_attr(not(debug_assertions), inline(always))]
            #[cfg_attr(debug_assertions, inline)]
            fn sub(self, rhs: Stochastic<$t>) -> Self::Output {
                (-rhs) + self
            }
        }
        impl Mul<Stochastic<$t>> for $t {
            type Output = Stochastic<$t>;
            #[track_caller]
            #[cfg_attr(not(debug_assertions), inline(always))]
            #[cfg_attr(debug_assertions, inline)]
            fn mul(self, rhs: Stochastic<$t>) -> Self::Output {
                check_plain(rhs, Stochastic::new(self).raw_mul(rhs), Location::caller())
            }
        }
        impl Div<Stochastic<$t>> for $t {
            type Output = Stochastic<$t>;
            #[track_caller]
            #[cfg_attr(not(debug_assertions), inline(always))]
            #[cfg_attr(debug_assertions, inline)]
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
            #[cfg_attr(not(debug_assertions), inline(always))]
            #[cfg_attr(debug_assertions, inline)]
            fn add(self, rhs: &$t) -> Self::Output { self + *rhs }
        }
        impl Sub<&$t> for Stochastic<$t> {
            type Output = Stochastic<$t>;
            #[track_caller]
            #[cfg_attr(not(debug_assertions), inline(always))]
            #[cfg_attr(debug_assertions, inline)]
            fn sub(self, rhs: &$t) -> Self::Output { self - *rhs }
        }
        impl Mul<&$t> for Stochastic<$t> {
            type Output = Stochastic<$t>;
            #[track_caller]
            #[cfg_attr(not(debug_assertions), inline(always))]
            #[cfg_attr(debug_assertions, inline)]
            fn mul(self, rhs: &$t) -> Self::Output { self * *rhs }
        }
        impl Div<&$t> for Stochastic<$t> {
            type Output = Stochastic<$t>;
            #[track_caller]
            #[cfg_attr(not(debug_assertions), inline(always))]
            #[cfg_attr(debug_assertions, inline)]
            fn div(self, rhs: &$t) -> Self::Output { self / *rhs }
        }
        impl Add<&Stochastic<$t>> for $t {
            type Output = Stochastic<$t>;
            #[track_caller]
            #[cfg_attr(not(debug_assertions), inline(always))]
            #[cfg_attr(debug_assertions, inline)]
            fn add(self, rhs: &Stochastic<$t>) -> Self::Output { self + *rhs }
        }
        impl Sub<&Stochastic<$t>> for $t {
            type Output = Stochastic<$t>;
            #[track_caller]
            #[cfg_attr(not(debug_assertions), inline(always))]
            #[cfg_attr(debug_assertions, inline)]
            fn sub(self, rhs: &Stochastic<$t>) -> Self::Output { self - *rhs }
        }
        impl Mul<&Stochastic<$t>> for $t {
            type Output = Stochastic<$t>;
            #[track_caller]
            #[cfg_attr(not(debug_assertions), inline(always))]
            #[cfg_attr(debug_assertions, inline)]
            fn mul(self, rhs: &Stochastic<$t>) -> Self::Output { self * *rhs }
        }
        impl Div<&Stochastic<$t>> for $t {
            type Output = Stochastic<$t>;
            #[track_caller]
            #[cfg_attr(not(debug_assertions), inline(always))]
            #[cfg_attr(debug_assertions, inline)]
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
            #[cfg_attr(not(debug_assertions), inline(always))]
            #[cfg_attr(debug_assertions, inline)]
            fn $m(self, rhs: $t) -> Self::Output { $imp::$m(*self, rhs) }
        }
        impl $imp<&$t> for &Stochastic<$t> {
            type Output = Stochastic<$t>;
            #[track_caller]
            #[cfg_attr(not(debug_assertions), inline(always))]
            #[cfg_attr(debug_assertions, inline)]
            fn $m(self, rhs: &$t) -> Self::Output { $imp::$m(*self, *rhs) }
        }
        impl $imp<Stochastic<$t>> for &$t {
            type Output = Stochastic<$t>;
            #[track_caller]
            #[cfg_attr(not(debug_assertions), inline(always))]
            #[cfg_attr(debug_assertions, inline)]
            fn $m(self, rhs: Stochastic<$t>) -> Self::Output { $imp::$m(*self, rhs) }
        }
        impl $imp<&Stochastic<$t>> for &$t {
            type Output = Stochastic<$t>;
            #[track_caller]
            #[cfg_attr(not(debug_assertions), inline(always))]
            #[cfg_attr(debug_assertions, inline)]
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
