// Single precision: f32 signatures, literals and arrays.
use stoch_core::stochastic;

#[stochastic]
fn horner(coeffs: &[f32], x: f32) -> f32 {
    coeffs.iter().rev().fold(0.0, |acc, &c| acc * x + c)
}

#[stochastic]
fn main() {
    let p = [1.0f32, -3.0, 2.0];
    let y = horner(&p, 0.25);
    assert!(y == 0.375 && y.digits() >= 6, "{y:?}");
    let zero = horner(&p, 0.5);
    assert!(zero.is_computed_zero(), "{zero:?}");
    let z: f32 = horner(&p, 3.0);
    assert!(z == 10.0 && z.digits() >= 6);
}
