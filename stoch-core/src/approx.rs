//! approx's `AbsDiffEq`, `RelativeEq` and `UlpsEq` for [`Stochastic<T>`] (feature `approx`), so
//! `assert_relative_eq!` and friends work on stochastic values and on nalgebra matrices of them.
//!
//! Two values are close when they are equal as DSA defines it (their difference is a computed
//! zero: equal up to their own round-off) or when their means are close in approx's sense with
//! the given tolerance. The tolerance is a stochastic value too (nalgebra asks for
//! `Epsilon = Self`); its mean is used.
//!
//! # Instability
//!
//! None recorded: these are test predicates, not branches of the computation (the DSA
//! equality behind them records nothing either).
//!
//! ```
//! use approx::assert_relative_eq;
//! use stoch_core::Sf64;
//! let x = (Sf64::new(1.0) / 3.0) * 3.0;
//! assert_relative_eq!(x, Sf64::new(1.0));
//! assert_relative_eq!(Sf64::new(1.0), Sf64::new(1.0 + 1e-9), max_relative = Sf64::new(1e-8));
//! ```

use approx::{AbsDiffEq, RelativeEq, UlpsEq};

use crate::{StochFloat, Stochastic};

impl<T: StochFloat + AbsDiffEq<Epsilon = T>> AbsDiffEq for Stochastic<T> {
    type Epsilon = Self;

    /// `T::EPSILON`, as approx uses for `T`.
    fn default_epsilon() -> Self {
        Self::EPSILON
    }

    /// DSA equality, or `|mean(a) − mean(b)| ≤ mean(epsilon)`.
    fn abs_diff_eq(&self, other: &Self, epsilon: Self) -> bool {
        *self == *other || self.mean().abs_diff_eq(&other.mean(), epsilon.mean())
    }
}

impl<T: StochFloat + RelativeEq<Epsilon = T>> RelativeEq for Stochastic<T> {
    /// `T::EPSILON`, as approx uses for `T`.
    fn default_max_relative() -> Self {
        Self::EPSILON
    }

    /// DSA equality, or the means are relatively equal as approx defines it for `T`.
    fn relative_eq(&self, other: &Self, epsilon: Self, max_relative: Self) -> bool {
        *self == *other
            || self
                .mean()
                .relative_eq(&other.mean(), epsilon.mean(), max_relative.mean())
    }
}

impl<T: StochFloat + UlpsEq<Epsilon = T>> UlpsEq for Stochastic<T> {
    /// 4, as approx uses for `T`.
    fn default_max_ulps() -> u32 {
        4
    }

    /// DSA equality, or the means are within `max_ulps` units in the last place.
    fn ulps_eq(&self, other: &Self, epsilon: Self, max_ulps: u32) -> bool {
        *self == *other || self.mean().ulps_eq(&other.mean(), epsilon.mean(), max_ulps)
    }
}

#[cfg(test)]
mod tests {
    use approx::{abs_diff_eq, assert_relative_eq, assert_ulps_eq, relative_eq, ulps_eq};

    use crate::{Sf32, Sf64};

    #[test]
    fn noise_equal_to_zero_and_tolerances_apply_to_means() {
        // A difference that is pure round-off is DSA-equal to zero, whatever the tolerance.
        let noise = Sf64::from_samples([1e-17, -2e-17, 3e-17]);
        assert!(abs_diff_eq!(noise, Sf64::ZERO, epsilon = Sf64::ZERO));
        // An exact, significant difference is not.
        let a = Sf64::new(1.0);
        let b = Sf64::new(1.0 + 1e-12);
        assert!(!relative_eq!(a, b));
        assert!(relative_eq!(a, b, max_relative = Sf64::new(1e-11)));
        assert!(!relative_eq!(a, b, max_relative = Sf64::new(1e-13)));
        assert!(abs_diff_eq!(a, b, epsilon = Sf64::new(2e-12)));
        assert!(!abs_diff_eq!(a, b, epsilon = Sf64::new(5e-13)));
        assert!(ulps_eq!(a, Sf64::new(1.0f64.next_up())));
        assert!(!ulps_eq!(a, Sf64::new(1.0 + 100.0 * f64::EPSILON)));
        assert_ulps_eq!(Sf32::new(0.1) * 3.0, Sf32::new(0.3));
        assert_relative_eq!(
            Sf32::new(2.0).sqrt() * Sf32::new(2.0).sqrt(),
            Sf32::new(2.0)
        );
    }
}
