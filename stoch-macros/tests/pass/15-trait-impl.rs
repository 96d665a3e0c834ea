// A trait and its impls for two shapes, all under one inline module.
use stoch_core::stochastic;

#[stochastic]
mod shapes {
    pub trait Shape {
        fn area(&self) -> f64;
        fn scaled_area(&self, k: f64) -> f64 {
            self.area() * k * k
        }
    }

    pub struct Circle(pub f64);
    pub struct Rect {
        pub w: f64,
        pub h: f64,
    }

    impl Shape for Circle {
        fn area(&self) -> f64 {
            std::f64::consts::PI * self.0 * self.0
        }
    }

    impl Shape for Rect {
        fn area(&self) -> f64 {
            self.w * self.h
        }
    }
}

use shapes::Shape;

#[stochastic]
fn main() {
    let shapes: Vec<Box<dyn Shape>> =
        vec![Box::new(shapes::Circle(1.0)), Box::new(shapes::Rect { w: 2.0, h: 3.0 })];
    let total: f64 = shapes.iter().map(|s| s.scaled_area(2.0)).sum();
    assert!(total.digits() >= 14, "{total:?}");
    assert!((total - (4.0 * std::f64::consts::PI + 24.0)).abs() < 1e-12);
}
