// Closures with and without annotations, returned and passed around.
use stoch_core::stochastic;

#[stochastic]
fn make_affine(a: f64, b: f64) -> impl Fn(f64) -> f64 {
    move |x| a * x + b
}

#[stochastic]
fn apply_twice(f: &dyn Fn(f64) -> f64, x: f64) -> f64 {
    f(f(x))
}

#[stochastic]
fn main() {
    let f = make_affine(2.0, 1.0);
    let y = apply_twice(&f, 3.0);
    assert!(y.digits() >= 15, "{y:?}");
    assert!(y == 15.0);
    let square = |t: f64| -> f64 { t * t };
    let mut total = 0.0;
    for k in 1..=4 {
        total += square(k as f64);
    }
    assert!(total.digits() >= 15);
    assert!(total == 30.0);
}
