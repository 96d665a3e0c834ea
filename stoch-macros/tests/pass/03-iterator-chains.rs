// Iterator chains with map, filter, fold and sum over Vec<f64>.
use stoch_core::stochastic;

#[stochastic]
fn stats(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - mean) * (x - mean)).fold(0.0, |acc, t| acc + t) / (n - 1.0);
    (mean, var)
}

#[stochastic]
fn main() {
    let xs: Vec<f64> = (1..=10).map(|i| i as f64 * 0.5).collect();
    let (mean, var) = stats(&xs);
    assert!(mean.digits() >= 13, "{mean:?}");
    assert!(var.digits() >= 12, "{var:?}");
    assert!((mean - 2.75).abs() < 1e-12);
    let positives = xs.iter().filter(|x| **x > 2.0).count();
    assert_eq!(positives, 6);
    let squares: f64 = xs.iter().map(|x| x * x).sum();
    assert!(squares.digits() >= 13);
}
