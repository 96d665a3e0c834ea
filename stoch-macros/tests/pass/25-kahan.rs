// Kahan compensated summation, a struct accumulator with Default.
use stoch_core::stochastic;

#[stochastic]
#[derive(Default)]
struct Kahan {
    sum: f64,
    c: f64,
}

#[stochastic]
impl Kahan {
    fn add(&mut self, x: f64) {
        let y = x - self.c;
        let t = self.sum + y;
        self.c = (t - self.sum) - y;
        self.sum = t;
    }
}

#[stochastic]
fn main() {
    let mut k = Kahan::default();
    for _ in 0..1000 {
        k.add(0.1);
    }
    assert!((k.sum - 100.0).abs() < 1e-10);
    assert!(k.sum.digits() >= 12, "{:?}", k.sum);
}
