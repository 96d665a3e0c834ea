// A `Real` type alias switched to stochastic, with casts to it.
use stoch_core::stochastic;

#[stochastic]
mod numerics {
    pub type Real = f64;

    pub fn harmonic(n: u32) -> Real {
        (1..=n).map(|k| 1.0 / k as Real).sum()
    }
}

#[stochastic]
fn main() {
    let h = numerics::harmonic(10);
    assert!((h - 2.928968253968254).abs() < 1e-12);
    assert!(h.digits() >= 13, "{h:?}");
}
