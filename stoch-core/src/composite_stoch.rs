//! [`EftFloat`] for the stochastic type: composite pairs, double words, error-free
//! transformations and accumulators over `Stochastic<T>`.
//!
//! Each operation rounds randomly, so TwoSum and TwoProduct are no longer exact: their "error"
//! word is itself randomly rounded. That is the point: the three samples then tell, through
//! DSA, how many digits a method really keeps.
//!
//! # Examples
//!
//! ```
//! use stoch_core::accum::{sum, Naive, TakahashiIitaka};
//! use stoch_core::Sf32;
//!
//! let xs: Vec<Sf32> = (0..1000).map(|i| Sf32::new(((i % 7) as f32 - 3.0) * 0.1)).collect();
//! let naive = sum::<Naive<Sf32>, _>(&xs);
//! let ti = sum::<TakahashiIitaka<Sf32>, _>(&xs);
//! assert!(ti.digits() >= naive.digits());
//! # stoch_core::reset();
//! ```

use crate::eft::EftFloat;
use crate::{StochFloat, Stochastic};

impl<T: StochFloat + EftFloat> EftFloat for Stochastic<T> {
    const MANTISSA_DIGITS: u32 = <T as EftFloat>::MANTISSA_DIGITS;
    const SPLITTER: f64 = <T as EftFloat>::SPLITTER;
    const NAME: &'static str = if <T as EftFloat>::MANTISSA_DIGITS == 24 {
        "Sf32"
    } else {
        "Sf64"
    };

    #[inline]
    fn zero() -> Self {
        Stochastic::new(<T as EftFloat>::zero())
    }
    #[inline]
    fn one() -> Self {
        Stochastic::new(<T as EftFloat>::one())
    }
    /// The nearest `T` to `x`, as an exact stochastic value (three equal samples).
    #[inline]
    fn from_f64(x: f64) -> Self {
        Stochastic::new(<T as EftFloat>::from_f64(x))
    }
    #[inline]
    fn to_f64(self) -> f64 {
        Stochastic::to_f64(&self)
    }
    #[track_caller]
    #[inline]
    fn mul_add(self, a: Self, b: Self) -> Self {
        Stochastic::mul_add(self, a, b)
    }
}
