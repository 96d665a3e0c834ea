//! `{:?}`: the three samples and the instability flags by name.

use core::fmt;

use crate::instability::{Flags, Instability};
use crate::{StochFloat, Stochastic};

/// `{:?}`: the three samples in Rust's shortest round-trip form, and the flags by name:
/// `Stochastic { samples: [0.1, 0.1, 0.1], flags: [] }`,
/// `Stochastic { samples: [1e-17, -3e-17, 4e-17], flags: [division, cancellation] }`.
///
/// ```
/// use stoch_core::Sf64;
/// let x = Sf64::from_samples([1.0, 0.1, -2.5]);
/// assert_eq!(format!("{x:?}"), "Stochastic { samples: [1.0, 0.1, -2.5], flags: [] }");
/// ```
impl<T: StochFloat> fmt::Debug for Stochastic<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Stochastic")
            .field("samples", &self.s())
            .field("flags", &FlagNames(self.flags()))
            .finish()
    }
}

/// The flags as a list of bare kind names.
struct FlagNames(Flags);

impl fmt::Debug for FlagNames {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.0.iter().map(BareName)).finish()
    }
}

struct BareName(Instability);

impl fmt::Debug for BareName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Sf32, Sf64};

    #[test]
    fn debug() {
        let x = Sf64::from_samples([1.0, 0.1, -2.5]);
        assert_eq!(
            format!("{x:?}"),
            "Stochastic { samples: [1.0, 0.1, -2.5], flags: [] }"
        );
        let y = Sf64::from_parts(
            [1e-17, -3e-17, 4e-17],
            Flags::from_bits(Instability::Division.bit() | Instability::Cancellation.bit()),
        );
        assert_eq!(
            format!("{y:?}"),
            "Stochastic { samples: [1e-17, -3e-17, 4e-17], flags: [division, cancellation] }"
        );
        let all = Sf32::from_parts([0.1, f32::NAN, f32::NEG_INFINITY], Flags::from_bits(0x7f));
        assert_eq!(
            format!("{all:?}"),
            "Stochastic { samples: [0.1, NaN, -inf], flags: [division, multiplication, power, \
             branching, intrinsic, math_function, cancellation] }"
        );
        assert_eq!(
            format!("{x:#?}"),
            "Stochastic {\n    samples: [\n        1.0,\n        0.1,\n        -2.5,\n    ],\n    \
             flags: [],\n}"
        );
        // Full precision: the samples read back exactly.
        let z = Sf64::from_samples([0.1 + 0.2, 1.0 / 3.0, f64::MIN_POSITIVE / 7.0]);
        let text = format!("{z:?}");
        let inner = &text[text.find('[').unwrap() + 1..text.find(']').unwrap()];
        let back: Vec<f64> = inner.split(", ").map(|s| s.parse().unwrap()).collect();
        assert_eq!(back, z.samples().to_vec());
    }
}
