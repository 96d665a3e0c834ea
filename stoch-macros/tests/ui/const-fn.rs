use stoch_macros::stochastic;

#[stochastic]
const fn f(x: f64) -> f64 { x * 2.0 }

fn main() {
    let _ = f(1.0);
}
