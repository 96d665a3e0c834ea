use stoch_macros::stochastic;

#[stochastic]
use std::f64::consts::PI;

fn main() {
    let _ = PI;
}
