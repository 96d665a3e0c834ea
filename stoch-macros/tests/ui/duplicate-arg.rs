use stoch_macros::stochastic;

#[stochastic(report = false, report = true)]
fn main() {}
