// A float constant's initializer names another constant that is no number: the error says
// what the initializer may name.
use stoch_macros::stochastic;

const LIMIT: Option<f64> = Some(1.0);

#[stochastic]
const HALF: f64 = LIMIT / 2.0;

fn main() {
    let _ = HALF;
}
