// A while loop on a float condition, an infinite-series sum, is_finite checks.
use stoch_core::stochastic;

#[stochastic]
fn exp_series(x: f64) -> (f64, u32) {
    let mut term = 1.0;
    let mut sum = 1.0;
    let mut n = 0;
    while term.abs() > 1e-17 * sum.abs() {
        n += 1;
        term *= x / n as f64;
        sum += term;
    }
    (sum, n)
}

#[stochastic]
fn main() {
    let (e, n) = exp_series(1.0);
    assert!(n < 30);
    assert!(e.is_finite());
    assert!((e - std::f64::consts::E).abs() < 1e-14, "{e:?}");
    assert!(e.digits() >= 13, "{e:?}");
}
