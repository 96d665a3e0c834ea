// Newton's method with a stopping test on the step.
use stoch_core::stochastic;

#[stochastic]
fn newton_sqrt(a: f64) -> (f64, usize) {
    let mut x = a;
    for it in 0..100 {
        let next = 0.5 * (x + a / x);
        if (next - x).abs() <= 1e-15 * next.abs() {
            return (next, it);
        }
        x = next;
    }
    (x, 100)
}

#[stochastic]
fn main() {
    let (r, iters) = newton_sqrt(2.0);
    assert!(iters < 100);
    assert!(r.digits() >= 14, "{r:?}");
    assert!((r * r - 2.0).abs() < 1e-14);
}
