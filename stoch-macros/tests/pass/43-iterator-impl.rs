// A struct implementing Iterator<Item = f64> (a geometric sequence).
use stoch_core::stochastic;

#[stochastic]
mod seq {
    pub struct Geometric {
        pub term: f64,
        pub ratio: f64,
    }

    impl Iterator for Geometric {
        type Item = f64;
        fn next(&mut self) -> Option<f64> {
            let t = self.term;
            self.term *= self.ratio;
            Some(t)
        }
    }
}

#[stochastic]
fn main() {
    let s: f64 = seq::Geometric { term: 1.0, ratio: 0.5 }.take(20).sum();
    assert!((s - 2.0).abs() < 1e-5);
    assert!(s.digits() >= 15);
}
