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

#[cfg(test)]
mod tests {
    use crate::accum::{sum, Naive, TakahashiIitaka};
    use crate::composite::{Composite, DoubleWord};
    use crate::eft::{two_sum, EftFloat};
    use crate::{Sf32, Sf64};

    #[test]
    fn names_and_constants() {
        assert_eq!(<Sf32 as EftFloat>::NAME, "Sf32");
        assert_eq!(<Sf64 as EftFloat>::NAME, "Sf64");
        assert_eq!(<Sf64 as EftFloat>::SPLITTER, 134_217_729.0);
        assert_eq!(<Sf32 as EftFloat>::from_f64(0.5).samples(), [0.5; 3]);
    }

    /// Exact operations stay exact: TwoSum of representable values, composite sums of
    /// values whose sums are exact, full digits.
    #[test]
    fn exact_cases_keep_all_digits() {
        let (s, e) = two_sum(Sf64::new(1.0), Sf64::new(0.5));
        assert_eq!(s.samples(), [1.5; 3]);
        assert_eq!(e.samples(), [0.0; 3]);
        let z = Composite::from_value(Sf32::new(3.0)) + Composite::from_value(Sf32::new(0.25));
        assert_eq!(z.collapse().digits(), 7);
        let w = DoubleWord::from_value(Sf64::new(6.0)) / DoubleWord::from_value(Sf64::new(3.0));
        assert_eq!(w.hi().samples(), [2.0; 3]);
    }

    /// DSA sees what compensation buys: the Takahashi-Iitaka sum of inexact terms keeps more
    /// digits than the naive sum.
    #[test]
    fn compensated_sum_keeps_more_digits() {
        let xs: Vec<Sf32> = (0..10_000)
            .map(|i| Sf32::new(1.0 + (i % 13) as f32 * 1.0e-3))
            .collect();
        let naive = sum::<Naive<Sf32>, _>(&xs);
        let ti = sum::<TakahashiIitaka<Sf32>, _>(&xs);
        assert!(ti.digits() > naive.digits(), "{ti:?} vs {naive:?}");
        crate::reset();
    }
}
