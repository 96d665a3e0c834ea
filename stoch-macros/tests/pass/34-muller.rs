// Muller's recurrence: converges to 100 in floating point, the exact limit is 6.
// The stochastic result shows that the digits are lost.
use stoch_core::stochastic;

#[stochastic]
fn muller(n: usize) -> f64 {
    let (mut a, mut b) = (5.5, 61.0 / 11.0);
    for _ in 0..n {
        let c = 111.0 - (1130.0 - 3000.0 / a) / b;
        a = b;
        b = c;
    }
    b
}

#[stochastic]
fn main() {
    let early = muller(3);
    assert!(early.digits() >= 9, "{early:?}");
    let late = muller(14);
    assert!(late.digits() <= 4, "{late:?}");
}
