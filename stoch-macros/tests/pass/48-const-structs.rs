// Constant struct values: a struct declared in the same module, and the self type of an impl.
use stoch_core::stochastic;

#[stochastic]
mod points {
    #[derive(Clone, Copy, Debug)]
    pub struct Point {
        pub x: f64,
        pub y: f64,
        pub id: u32,
    }

    pub const ORIGIN: Point = Point { x: 0.0, y: 0.0, id: 0 };
    pub const UNIT: [Point; 2] = [Point { x: 1.0, y: 0.0, id: 1 }, Point { x: 0.0, y: 1.0, id: 2 }];

    pub fn dist(a: Point, b: Point) -> f64 {
        ((a.x - b.x).powi(2) + (a.y - b.y).powi(2)).sqrt()
    }
}

#[stochastic]
#[derive(Clone, Copy)]
pub struct Interval(f32, f32);

#[stochastic]
impl Interval {
    const UNIT: Interval = Interval(0.0, 1.0);

    fn width(self) -> f32 {
        self.1 - self.0
    }
}

#[stochastic]
fn main() {
    use points::*;
    let d = dist(ORIGIN, UNIT[0]) + dist(UNIT[0], UNIT[1]);
    assert!((d - (1.0 + 2.0f64.sqrt())).abs() < 1e-14, "{d:?}");
    assert_eq!(UNIT[1].id, 2);
    assert!(Interval::UNIT.width() == 1.0);
}
