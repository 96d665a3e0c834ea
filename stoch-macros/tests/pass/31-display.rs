// Display impl with write!, format! of stochastic values.
use std::fmt;
use stoch_core::stochastic;

#[stochastic]
struct Point {
    x: f64,
    y: f64,
}

#[stochastic]
impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({}, {})", self.x, self.y)
    }
}

#[stochastic]
fn main() {
    let p = Point { x: 0.5, y: 1.0 / 3.0 };
    let s = format!("{p}");
    assert!(s.starts_with('('), "{s}");
    println!("{}", p);
    let dbg = format!("{:?}", p.x);
    assert!(!dbg.is_empty());
}
