use stoch_macros::stochastic;

#[stochastic]
extern "C" fn scale(x: f64) -> f64 {
    2.0 * x
}

fn main() {
    let _ = scale(1.0);
}
