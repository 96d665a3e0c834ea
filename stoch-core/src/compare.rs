//! Stochastic relations (DESIGN §3): `a == b` iff `a − b` is a computed zero; `a > b` iff
//! `a − b` is not numerical noise and `mean(a) > mean(b)` (decided by the sign of `a − b`'s
//! mean, which is exact for exact operands); `a >= b` iff `mean(a) >= mean(b)` or
//! `a − b` is a computed zero.
//!
//! # Instability
//!
//! An ordering comparison (`< <= > >=`, `partial_cmp`) whose difference is numerical noise
//! records a branching instability at the comparison's site: the branch taken depends on
//! round-off. Equality tests record nothing.
//!
//! A plain float mixes on either side (`x < 1.0`, `1.0 < x`, `0.0 == x`) as the exact
//! stochastic number `Stochastic::new(v)`, as `f64` compares with `f64`.

use core::cmp::Ordering;
use std::panic::Location;

use crate::digits::{is_computed_zero, is_noise, sign3};
use crate::instability::Instability;
use crate::report::{count_if_seen, record};
use crate::runtime::state;
use crate::{StochFloat, Stochastic};

impl<T: StochFloat> Stochastic<T> {
    /// The ordering and whether the difference was numerical noise.
    #[inline]
    pub(crate) fn relation(&self, other: &Self) -> (Option<Ordering>, bool) {
        let d = self.without_flags().raw_sub(other.without_flags());
        let noise = is_noise(&d.s());
        if noise || is_computed_zero(&d.s()) {
            return (Some(Ordering::Equal), noise);
        }
        // The difference is significant: its sign orders the operands. (Comparing the two
        // means instead would call adjacent exact values equal when both means round alike.)
        // A NaN difference of non-NaN operands (∞ − ∞) falls back to the means.
        let o = sign3(&d.s()).or_else(|| self.to_f64().partial_cmp(&other.to_f64()));
        (o, false)
    }

    #[inline]
    #[track_caller]
    fn ordered(&self, other: &Self) -> Option<Ordering> {
        let (o, noise) = self.relation(other);
        if noise
            && state::on(Instability::Branching.bit())
            && !count_if_seen(Instability::Branching, Location::caller())
        {
            self.record_branching(other, Location::caller());
        }
        o
    }

    /// Records a Branching instability of `self` against `other` at `loc`, out of line without
    /// clobbering the caller's registers (see `runtime::cold`).
    #[inline(always)]
    pub(crate) fn record_branching(&self, other: &Self, loc: &'static Location<'static>) {
        let args = (loc, self.s(), other.s());
        crate::runtime::cold::run(args, |c| record(Instability::Branching, c.0, &[&c.1, &c.2]));
    }
}

impl<T: StochFloat> PartialEq for Stochastic<T> {
    /// Stochastic equality: `a − b` is a computed zero.
    ///
    /// ```
    /// use stoch_core::Sf64;
    /// let a = Sf64::new(0.1) + Sf64::new(0.2);
    /// assert!(a == Sf64::new(0.3));
    /// ```
    #[inline]
    fn eq(&self, other: &Self) -> bool {
        self.relation(other).0 == Some(Ordering::Equal)
    }
}

/// The methods of `PartialOrd<$rhs>`, all from one ordering function `$ord(&self, &$rhs)`
/// (`#[track_caller]`, so that a branching is recorded at the comparison's site).
macro_rules! partial_ord_by {
    ($rhs:ty, $ord:path) => {
        /// # Instability
        ///
        /// Branching, when the difference is numerical noise.
        #[track_caller]
        #[inline]
        fn partial_cmp(&self, other: &$rhs) -> Option<Ordering> {
            $ord(self, other)
        }
        #[track_caller]
        #[inline]
        fn lt(&self, other: &$rhs) -> bool {
            $ord(self, other) == Some(Ordering::Less)
        }
        #[track_caller]
        #[inline]
        fn le(&self, other: &$rhs) -> bool {
            matches!($ord(self, other), Some(Ordering::Less | Ordering::Equal))
        }
        #[track_caller]
        #[inline]
        fn gt(&self, other: &$rhs) -> bool {
            $ord(self, other) == Some(Ordering::Greater)
        }
        #[track_caller]
        #[inline]
        fn ge(&self, other: &$rhs) -> bool {
            matches!($ord(self, other), Some(Ordering::Greater | Ordering::Equal))
        }
    };
}

impl<T: StochFloat> PartialOrd for Stochastic<T> {
    partial_ord_by!(Self, Stochastic::ordered);
}

/// A plain float on the left, ordered as the exact `Stochastic::new(a)`.
#[track_caller]
#[inline]
fn plain_vs<T: StochFloat>(a: &T, b: &Stochastic<T>) -> Option<Ordering> {
    Stochastic::new(*a).ordered(b)
}

/// A plain float on the right, ordered as the exact `Stochastic::new(b)`.
#[track_caller]
#[inline]
fn vs_plain<T: StochFloat>(a: &Stochastic<T>, b: &T) -> Option<Ordering> {
    a.ordered(&Stochastic::new(*b))
}

macro_rules! scalar_cmp {
    ($($t:ty),*) => {$(
        impl PartialEq<$t> for Stochastic<$t> {
            #[inline]
            fn eq(&self, other: &$t) -> bool {
                *self == Stochastic::new(*other)
            }
        }
        impl PartialEq<Stochastic<$t>> for $t {
            #[inline]
            fn eq(&self, other: &Stochastic<$t>) -> bool {
                Stochastic::new(*self) == *other
            }
        }
        impl PartialOrd<Stochastic<$t>> for $t {
            partial_ord_by!(Stochastic<$t>, plain_vs);
        }
        impl PartialOrd<$t> for Stochastic<$t> {
            partial_ord_by!($t, vs_plain);
        }
    )*};
}
scalar_cmp!(f32, f64);

#[cfg(test)]
mod tests {
    use crate::{report, Instability, Sf32, Sf64};

    /// Whether a branching instability was recorded at `line` of this file.
    fn branching_at(line: u32) -> bool {
        report().sites().iter().any(|s| {
            s.kind == Instability::Branching && s.line == line && s.file.ends_with("compare.rs")
        })
    }

    #[test]
    fn plain_on_the_left_has_the_right_sides_semantics() {
        let x = Sf64::new(0.1) + Sf64::new(0.2);
        assert!(0.3 == x);
        assert!(x == 0.3);
        assert!(0.3 <= x);
        assert!(0.3 >= x);
        assert_eq!((0.3 < x, 0.3 > x), (false, false));
        assert!(0.25 < x && 0.5 > x && 0.25 != x);
        assert_eq!(0.25.partial_cmp(&x), Some(core::cmp::Ordering::Less));
        let y = Sf32::new(1.5);
        assert!(1.5f32 == y && 1.0f32 < y && 2.0f32 >= y && 2.0f32 != y);
        // A computed zero equals 0 from either side.
        let z = Sf64::from_samples([1e-300, -1e-300, 0.0]) * Sf64::new(0.0);
        assert!(0.0 == z);
        assert!(z == 0.0);
    }

    #[test]
    fn plain_on_the_left_records_branching_at_the_callers_line() {
        let noise = Sf64::from_samples([1e-17, -1e-17, 2e-17]);
        let line = line!() + 1;
        let below = 0.0 < noise;
        assert!(!below, "noise orders as equal");
        assert!(branching_at(line), "no branching site at line {line}");
        let noise32 = Sf32::from_samples([1e-8, -1e-8, 2e-8]);
        let line = line!() + 1;
        let _ = 0.0f32 >= noise32;
        assert!(branching_at(line), "no branching site at line {line}");
        // Equality records nothing.
        let line = line!() + 1;
        let _ = 0.0 == noise;
        assert!(!branching_at(line));
    }
}
