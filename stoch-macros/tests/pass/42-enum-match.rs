// An enum with f64 payloads, destructured in a match.
use stoch_core::stochastic;

#[stochastic]
mod shapes {
    pub enum Shape {
        Circle { r: f64 },
        Square(f64),
        Triangle(f64, f64, f64),
    }

    pub fn area(s: &Shape) -> f64 {
        match *s {
            Shape::Circle { r } => std::f64::consts::PI * r * r,
            Shape::Square(a) => a * a,
            Shape::Triangle(a, b, c) => {
                let p = (a + b + c) / 2.0;
                (p * (p - a) * (p - b) * (p - c)).sqrt()
            }
        }
    }
}

use shapes::{area, Shape};

#[stochastic]
fn main() {
    let t = area(&Shape::Triangle(3.0, 4.0, 5.0));
    assert!(t == 6.0 && t.digits() >= 14, "{t:?}");
    assert!(area(&Shape::Square(1.5)) == 2.25);
    assert!(area(&Shape::Circle { r: 1.0 }).digits() >= 15);
}
