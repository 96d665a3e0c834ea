use stoch_macros::stochastic;

#[stochastic]
extern "C" {
    fn cbrt(x: f64) -> f64;
}

fn main() {}
