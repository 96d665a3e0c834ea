use stoch_macros::stochastic;

#[stochastic]
mod numeric {
    #[macro_export]
    macro_rules! half {
        ($x:expr) => {
            $x * 0.5
        };
    }

    pub fn quarter(x: f64) -> f64 {
        half!(half!(x))
    }
}

fn main() {
    let _ = numeric::quarter(1.0.into());
}
