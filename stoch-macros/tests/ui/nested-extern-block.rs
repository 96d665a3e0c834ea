use stoch_macros::stochastic;

#[stochastic]
mod ffi {
    extern "C" {
        pub fn cbrt(x: f64) -> f64;
    }

    pub fn twice(x: f64) -> f64 {
        2.0 * x
    }
}

fn main() {}
