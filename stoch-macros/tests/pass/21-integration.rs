// Composite Simpson and trapezoid rules with a function pointer.
use stoch_core::stochastic;

#[stochastic]
fn simpson(f: fn(f64) -> f64, a: f64, b: f64, n: usize) -> f64 {
    let h = (b - a) / n as f64;
    let mut s = f(a) + f(b);
    for i in 1..n {
        let x = a + i as f64 * h;
        s += if i % 2 == 1 { 4.0 } else { 2.0 } * f(x);
    }
    s * h / 3.0
}

#[stochastic]
fn trapezoid(f: &dyn Fn(f64) -> f64, a: f64, b: f64, n: usize) -> f64 {
    let h = (b - a) / n as f64;
    let inner: f64 = (1..n).map(|i| f(a + i as f64 * h)).sum();
    h * (0.5 * f(a) + inner + 0.5 * f(b))
}

#[stochastic]
fn cube(x: f64) -> f64 {
    x * x * x
}

#[stochastic]
fn main() {
    let s = simpson(cube, 0.0, 2.0, 10);
    assert!((s - 4.0).abs() < 1e-12 && s.digits() >= 13, "{s:?}");
    let t = trapezoid(&|x| x.sin(), 0.0, std::f64::consts::PI, 200);
    assert!((t - 2.0).abs() < 1e-4 && t.digits() >= 10, "{t:?}");
}
