// A struct declared outside the annotated items keeps `f64` fields: rustc reports the
// rewritten value at the field, not the declaration (the macro cannot point there: see the
// attribute's docs); the fn and trait declared outside get rustc's own note at the declaration.
use stoch_macros::stochastic;

pub struct Point {
    pub x: f64,
}

pub trait Norm {
    fn norm(&self) -> f64;
}

fn plain(x: f64) -> f64 {
    x
}

#[stochastic]
mod numeric {
    use super::{plain, Norm, Point};

    pub fn origin_shifted(dx: f64) -> Point {
        let _ = plain(dx);
        Point { x: 0.5 * dx }
    }

    pub struct Polar {
        pub r: f64,
    }

    impl Norm for Polar {
        fn norm(&self) -> f64 {
            self.r
        }
    }
}

fn main() {}
