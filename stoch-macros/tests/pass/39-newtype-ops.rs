// A newtype with operator impls (Add, Mul<f64>) under one module.
use stoch_core::stochastic;

#[stochastic]
mod units {
    use std::ops::{Add, Mul};

    #[derive(Clone, Copy, Debug, PartialEq, PartialOrd)]
    pub struct Meters(pub f64);

    impl Add for Meters {
        type Output = Meters;
        fn add(self, o: Meters) -> Meters {
            Meters(self.0 + o.0)
        }
    }

    impl Mul<f64> for Meters {
        type Output = Meters;
        fn mul(self, k: f64) -> Meters {
            Meters(self.0 * k)
        }
    }
}

use units::Meters;

#[stochastic]
fn main() {
    let d = (Meters(1.5) + Meters(2.5)) * 0.5;
    assert!(d == Meters(2.0));
    assert!(d > Meters(1.0));
    assert!(d.0.digits() >= 15);
}
