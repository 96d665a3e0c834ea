use stoch_macros::stochastic;

#[stochastic(precision = 3)]
fn f(x: f64) -> f64 {
    x
}

fn main() {
    let _ = f(1.0);
}
