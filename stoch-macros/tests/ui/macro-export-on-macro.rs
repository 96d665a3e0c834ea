use stoch_macros::stochastic;

#[stochastic]
#[macro_export]
macro_rules! half {
    ($x:expr) => {
        $x * 0.5
    };
}

fn main() {
    let _ = half!(1.0);
}
