// Power iteration for the dominant eigenvalue, with fixed-size arrays.
use stoch_core::stochastic;

#[stochastic]
fn power_iteration(a: [[f64; 2]; 2], iters: usize) -> f64 {
    let mut v = [1.0, 0.0];
    let mut lambda = 0.0;
    for _ in 0..iters {
        let w = [a[0][0] * v[0] + a[0][1] * v[1], a[1][0] * v[0] + a[1][1] * v[1]];
        let norm = (w[0] * w[0] + w[1] * w[1]).sqrt();
        v = [w[0] / norm, w[1] / norm];
        lambda = v[0] * (a[0][0] * v[0] + a[0][1] * v[1]) + v[1] * (a[1][0] * v[0] + a[1][1] * v[1]);
    }
    lambda
}

#[stochastic]
fn main() {
    let l = power_iteration([[2.0, 1.0], [1.0, 3.0]], 60);
    let exact = (5.0 + 5.0f64.sqrt()) / 2.0;
    assert!((l - exact).abs() < 1e-10, "{l:?}");
    assert!(l.digits() >= 11);
}
