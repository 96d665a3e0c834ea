// RK4 for y' = -2y with a state array and a closure right-hand side.
use stoch_core::stochastic;

#[stochastic]
fn rk4(f: impl Fn(f64, f64) -> f64, y0: f64, t_end: f64, steps: usize) -> f64 {
    let h = t_end / steps as f64;
    let (mut t, mut y) = (0.0, y0);
    for _ in 0..steps {
        let k1 = f(t, y);
        let k2 = f(t + h / 2.0, y + h / 2.0 * k1);
        let k3 = f(t + h / 2.0, y + h / 2.0 * k2);
        let k4 = f(t + h, y + h * k3);
        y += h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4);
        t += h;
    }
    y
}

#[stochastic]
fn main() {
    let y = rk4(|_t, y| -2.0 * y, 1.0, 1.0, 100);
    let exact = (-2.0f64).exp();
    assert!((y - exact).abs() < 1e-8, "{y:?}");
    assert!(y.digits() >= 12);
}
