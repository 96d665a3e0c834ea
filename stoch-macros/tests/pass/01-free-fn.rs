// A free function on f64: signature, literals, method calls.
use stoch_core::stochastic;

#[stochastic]
fn hypotenuse(a: f64, b: f64) -> f64 {
    (a * a + b * b).sqrt()
}

#[stochastic]
fn main() {
    let c = hypotenuse(3.0, 4.0);
    assert!(c.digits() >= 14, "{c:?}");
    assert!((c - 5.0).abs() < 1e-12);
    println!("c = {c}");
}
