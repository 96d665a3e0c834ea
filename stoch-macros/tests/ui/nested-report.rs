use stoch_macros::stochastic;

#[stochastic]
mod app {
    #[stochastic(report = false)]
    pub fn run(x: f64) -> f64 {
        x + 1.0
    }
}

fn main() {
    let _ = app::run(1.0.into());
}
