// A trait with an associated float constant and a generic fn over it.
use stoch_core::stochastic;

#[stochastic]
mod materials {
    pub trait Material {
        const DENSITY: f64;
        fn mass(volume: f64) -> f64 {
            Self::DENSITY * volume
        }
    }

    pub struct Water;
    pub struct Steel;

    impl Material for Water {
        const DENSITY: f64 = 1000.0;
    }

    impl Material for Steel {
        const DENSITY: f64 = 7850.0;
    }

    pub fn total<M: Material>(volumes: &[f64]) -> f64 {
        volumes.iter().map(|&v| M::mass(v)).sum()
    }
}

use materials::{total, Steel, Water};

#[stochastic]
fn main() {
    assert!(total::<Water>(&[0.5, 0.25]) == 750.0);
    assert!(total::<Steel>(&[2.0]) == 15700.0);
}
