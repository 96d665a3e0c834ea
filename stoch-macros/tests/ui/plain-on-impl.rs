use stoch_macros::stochastic;

pub struct Gauge(f64);

#[stochastic(plain = GaugeIeee)]
impl Gauge {
    pub fn read(&self) -> f64 {
        self.0 * 2.0
    }
}

fn main() {}
