// An enum value cast to an integer through a variable: the rewritten cast cannot take it, and
// the error says what to do instead.
use stoch_core::stochastic;

#[derive(Clone, Copy)]
enum Axis {
    X,
    Y,
}

#[stochastic]
fn weight(axis: Axis, w: &[f64; 2]) -> f64 {
    w[axis as usize]
}

fn main() {
    let _ = weight;
    let _ = (Axis::X, Axis::Y);
}
