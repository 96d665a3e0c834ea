// A catastrophic cancellation: the result is numerical noise (no exact digit).
use stoch_core::stochastic;

#[stochastic]
fn sum_values(xs: &[f64]) -> f64 {
    let mut s = 0.0;
    for x in xs {
        s += x;
    }
    s
}

#[stochastic]
fn main() {
    let xs = [1e16, 1.0, -1e16, 0.1, 0.2, -0.3];
    let s = sum_values(&xs);
    assert!(s.digits() <= 2, "{s:?}");
    let good = sum_values(&[0.5, 0.25, 0.125]);
    assert!(good.digits() >= 15);
}
