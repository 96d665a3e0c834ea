use stoch_macros::stochastic;

#[stochastic]
mod m {
    #[stochastic_skip(always)]
    pub fn plain(x: f64) -> f64 {
        x
    }
}

fn main() {
    let _ = m::plain(1.0);
}
