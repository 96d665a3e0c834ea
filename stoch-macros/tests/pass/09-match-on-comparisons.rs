// `match` on float comparisons and partial_cmp, with guards.
use std::cmp::Ordering;
use stoch_core::stochastic;

#[stochastic]
fn classify(x: f64) -> &'static str {
    match x.partial_cmp(&0.0) {
        Some(Ordering::Less) => "negative",
        Some(Ordering::Greater) => "positive",
        _ => "zero",
    }
}

#[stochastic]
fn bucket(x: f64) -> u32 {
    match x {
        v if v < 1.0 => 0,
        v if v < 10.0 => 1,
        _ => 2,
    }
}

#[stochastic]
fn main() {
    assert_eq!(classify(-2.5), "negative");
    assert_eq!(classify(0.1), "positive");
    assert_eq!(bucket(0.5), 0);
    assert_eq!(bucket(5.0), 1);
    assert_eq!(bucket(50.0), 2);
}
