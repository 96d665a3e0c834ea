// Rump's polynomial: IEEE arithmetic gives a confident wrong answer; DSA shows no exact digit.
use stoch_core::stochastic;

#[stochastic]
fn rump(a: f64, b: f64) -> f64 {
    333.75 * b.powi(6) + a * a * (11.0 * a * a * b * b - b.powi(6) - 121.0 * b.powi(4) - 2.0)
        + 5.5 * b.powi(8)
        + a / (2.0 * b)
}

#[stochastic]
fn main() {
    let r = rump(77617.0, 33096.0);
    println!("rump = {r}");
    assert!(r.digits() <= 1, "{r:?}");
}
