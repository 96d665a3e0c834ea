//! ndarray traits for [`Stochastic<T>`] (feature `ndarray`): `ScalarOperand`, so arrays of
//! stochastic values combine with a stochastic scalar on the right (`&a * s`, `a + s`), and
//! `NdFloat`, so numeric code written for `A: NdFloat` runs on `Sf64` and `Sf32` (`sum`,
//! `mean`, `var`, `std`, `dot`, ...); and a stochastic scalar on the left (`s * &a`, `s - a`),
//! which ndarray has for the primitive types only.
//!
//! An array of `Stochastic<T>` also combines with a plain `T` on the right (`&a * 2.0`), through
//! ndarray's impls for `T: ScalarOperand`. `2.0 * &a` cannot be written: the orphan rule
//! reserves `impl Mul<Array<Sf64, D>> for f64` to ndarray.
//!
//! ```
//! use ndarray::{array, Array1, NdFloat};
//! use stoch_core::Sf64;
//!
//! fn rms<A: NdFloat>(a: &Array1<A>) -> A {
//!     (a.dot(a) / A::from(a.len()).unwrap()).sqrt()
//! }
//! let a: Array1<Sf64> = array![1.0, 2.0, 3.0].mapv(Sf64::new);
//! let s = Sf64::new(2.0);
//! assert_eq!((&a * s).sum().samples(), [12.0; 3]);
//! assert_eq!((s * &a - &a * 2.0).sum().samples(), [0.0; 3]);
//! assert_eq!(rms(&a).digits(), 15);
//! # stoch_core::reset();
//! ```

use core::ops::{Add, Div, Mul, Sub};

use ndarray::{
    Array, ArrayBase, ArrayRef, Data, DataMut, DataOwned, Dimension, NdFloat, ScalarOperand,
};

use crate::{StochFloat, Stochastic};

impl<T: StochFloat> ScalarOperand for Stochastic<T> {}

impl<T: StochFloat> NdFloat for Stochastic<T> {}

macro_rules! scalar_lhs {
    ($t:ident; $($trt:ident::$m:ident, $op:tt);*) => {$(
        impl<S, D> $trt<ArrayBase<S, D>> for Stochastic<$t>
        where
            S: DataOwned<Elem = Stochastic<$t>> + DataMut,
            D: Dimension,
        {
            type Output = ArrayBase<S, D>;
            #[track_caller]
            fn $m(self, mut rhs: ArrayBase<S, D>) -> ArrayBase<S, D> {
                rhs.map_inplace(|x| *x = self $op *x);
                rhs
            }
        }

        impl<S, D> $trt<&ArrayBase<S, D>> for Stochastic<$t>
        where
            S: Data<Elem = Stochastic<$t>>,
            D: Dimension,
        {
            type Output = Array<Stochastic<$t>, D>;
            #[track_caller]
            fn $m(self, rhs: &ArrayBase<S, D>) -> Array<Stochastic<$t>, D> {
                rhs.map(|x| self $op *x)
            }
        }

        impl<D: Dimension> $trt<&ArrayRef<Stochastic<$t>, D>> for Stochastic<$t> {
            type Output = Array<Stochastic<$t>, D>;
            #[track_caller]
            fn $m(self, rhs: &ArrayRef<Stochastic<$t>, D>) -> Array<Stochastic<$t>, D> {
                rhs.map(|x| self $op *x)
            }
        }
    )*};
}

scalar_lhs!(f64; Mul::mul, *; Add::add, +; Sub::sub, -; Div::div, /);
scalar_lhs!(f32; Mul::mul, *; Add::add, +; Sub::sub, -; Div::div, /);
