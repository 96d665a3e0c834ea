// windows, zip, enumerate, max_by, rev, step_by, chunks on f64 data.
use stoch_core::stochastic;

#[stochastic]
fn main() {
    let xs: Vec<f64> = (0..10).map(|i| (i * i) as f64 * 0.5).collect();
    let diffs: Vec<f64> = xs.windows(2).map(|w| w[1] - w[0]).collect();
    assert!(diffs[0] == 0.5 && diffs[8] == 8.5);
    let (imax, vmax) = xs
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.partial_cmp(b.1).unwrap())
        .map(|(i, v)| (i, *v))
        .unwrap();
    assert_eq!(imax, 9);
    assert!(vmax == 40.5);
    let even: f64 = xs.iter().step_by(2).sum();
    assert!(even == 60.0);
    let chunk_means: Vec<f64> = xs.chunks(5).map(|c| c.iter().sum::<f64>() / c.len() as f64).collect();
    assert!(chunk_means[0] == 3.0);
    let dot: f64 = xs.iter().rev().zip(xs.iter()).map(|(a, b)| a * b).sum();
    assert!(dot.digits() >= 14);
}
