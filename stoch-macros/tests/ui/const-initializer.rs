use stoch_macros::stochastic;

const fn make() -> [f64; 2] {
    [0.5, 0.25]
}

#[stochastic]
mod table {
    pub const WEIGHTS: [f64; 2] = super::make();
}

fn main() {
    let _ = table::WEIGHTS;
}
