// A struct with f64 fields and an impl block with methods and an associated fn.
use stoch_core::stochastic;

#[stochastic]
mod geometry {
    #[derive(Clone, Copy, Debug)]
    pub struct Vec2 {
        pub x: f64,
        pub y: f64,
    }

    impl Vec2 {
        pub fn new(x: f64, y: f64) -> Self {
            Vec2 { x, y }
        }
        pub fn norm(&self) -> f64 {
            (self.x * self.x + self.y * self.y).sqrt()
        }
        pub fn scale(self, k: f64) -> Self {
            Self::new(self.x * k, self.y * k)
        }
        pub fn dot(&self, other: &Vec2) -> f64 {
            self.x * other.x + self.y * other.y
        }
    }
}

use geometry::Vec2;

#[stochastic]
fn main() {
    let v = Vec2::new(0.6, 0.8).scale(10.0);
    let n = v.norm();
    assert!(n.digits() >= 13, "{n:?}");
    assert!((n - 10.0).abs() < 1e-9);
    let d = v.dot(&Vec2::new(1.0, 0.0));
    assert!(d.digits() >= 13);
}
