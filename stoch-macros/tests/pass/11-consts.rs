// Constants of float type inside the item: scalars, arrays, one defined from another.
use stoch_core::stochastic;

#[stochastic]
mod physics {
    pub const G: f64 = 9.81;
    pub const HALF_G: f64 = G / 2.0;
    pub const WEIGHTS: [f64; 3] = [0.25, 0.5, 0.25];
    pub static SCALE: f32 = 2.5;

    pub fn fall(t: f64) -> f64 {
        HALF_G * t * t
    }

    pub fn smooth(a: f64, b: f64, c: f64) -> f64 {
        WEIGHTS[0] * a + WEIGHTS[1] * b + WEIGHTS[2] * c
    }
}

#[stochastic]
fn main() {
    let d = physics::fall(2.0);
    assert!(d.digits() >= 14, "{d:?}");
    assert!((d - 19.62).abs() < 1e-12);
    assert!(physics::smooth(1.0, 2.0, 3.0) == 2.0);
    let s = physics::SCALE * 2.0;
    assert!(s == 5.0);
}
