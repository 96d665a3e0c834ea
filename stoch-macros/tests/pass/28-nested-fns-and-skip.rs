// Nested fns are rewritten; skipped items and statements stay on plain f64.
use stoch_core::stochastic;

#[stochastic]
fn main() {
    fn mean(xs: &[f64]) -> f64 {
        xs.iter().sum::<f64>() / xs.len() as f64
    }

    #[stochastic(skip)]
    fn plain_mean(xs: &[f64]) -> f64 {
        xs.iter().sum::<f64>() / xs.len() as f64
    }

    #[stochastic_skip]
    const LIMIT: f64 = 10.0;

    let m = mean(&[1.0, 2.0, 3.0]);
    assert!(m == 2.0 && m.digits() >= 15);
    #[stochastic_skip]
    let data: [f64; 3] = [1.0, 2.0, 3.0];
    let p: f64 = plain_mean(&data).into();
    assert!(p == 2.0 && p.digits() >= 15);
    let limit: f64 = plain_mean(&[LIMIT]).into();
    assert!(limit == 10.0);
}
