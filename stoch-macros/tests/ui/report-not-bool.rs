use stoch_macros::stochastic;

#[stochastic(report = "off")]
fn main() {}
