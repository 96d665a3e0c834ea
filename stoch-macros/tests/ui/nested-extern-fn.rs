use stoch_macros::stochastic;

#[stochastic]
impl Filter {
    pub fn apply(&self, x: f64) -> f64 {
        self.gain * x
    }

    pub extern "C" fn callback(x: f64) -> f64 {
        x
    }
}

pub struct Filter {
    gain: f64,
}

fn main() {
    let _ = Filter::callback(1.0);
}
