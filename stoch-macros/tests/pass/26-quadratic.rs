// Second-order equation: a stable formula for both roots, tuple return.
use stoch_core::stochastic;

#[stochastic]
fn roots(a: f64, b: f64, c: f64) -> Option<(f64, f64)> {
    let disc = b * b - 4.0 * a * c;
    if disc < 0.0 {
        return None;
    }
    let q = -0.5 * (b + b.signum() * disc.sqrt());
    Some((q / a, c / q))
}

#[stochastic]
fn main() {
    let (r1, r2) = roots(1.0, -3.0, 2.0).unwrap();
    assert!(r1 == 2.0 && r2 == 1.0);
    assert!(r1.digits() >= 14 && r2.digits() >= 14);
    assert!(roots(1.0, 0.0, 1.0).is_none());
}
