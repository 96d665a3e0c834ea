use stoch_macros::stochastic;

#[stochastic(report = false)]
fn simulate(x: f64) -> f64 {
    x * 2.0
}

fn main() {
    let _ = simulate(1.0);
}
