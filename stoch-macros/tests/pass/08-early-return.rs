// Early returns with `return`, `?` on Option, and a tail expression.
use stoch_core::stochastic;

#[stochastic]
fn safe_ratio(a: f64, b: f64) -> Option<f64> {
    if b.abs() < 1e-300 {
        return None;
    }
    Some(a / b)
}

#[stochastic]
fn chained(a: f64, b: f64, c: f64) -> Option<f64> {
    let r = safe_ratio(a, b)?;
    let s = safe_ratio(r, c)?;
    Some(s + 1.0)
}

#[stochastic]
fn main() {
    assert!(safe_ratio(1.0, 0.0).is_none());
    let x = chained(1.0, 4.0, 0.5).unwrap();
    assert!(x == 1.5 && x.digits() >= 15);
    assert!(chained(1.0, 2.0, 0.0).is_none());
}
