use stoch_macros::stochastic;

#[stochastic]
mod numerics {
    pub const fn half(x: f64) -> f64 {
        x / 2.0
    }

    pub fn quarter(x: f64) -> f64 {
        x / 4.0
    }
}

fn main() {
    let _ = numerics::half(1.0);
}
