// Sorting with partial_cmp, min/max by comparison.
use stoch_core::stochastic;

#[stochastic]
fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let n = xs.len();
    if n % 2 == 1 {
        xs[n / 2]
    } else {
        (xs[n / 2 - 1] + xs[n / 2]) / 2.0
    }
}

#[stochastic]
fn main() {
    let m = median(vec![3.0, 1.0, 4.0, 1.5, 9.0, 2.5]);
    assert!(m == 2.75);
    let m3 = median(vec![0.3, 0.1, 0.2]);
    assert!(m3 == 0.2);
}
