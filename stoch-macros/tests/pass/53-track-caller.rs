// `#[stochastic(track_caller)]`: an instability inside a one-line helper (a user trait's method,
// an operator impl) is reported at the line that called the helper.
use stoch_core::{report, stochastic, Instability, Sf64};

#[stochastic(track_caller)]
mod vec2 {
    #[derive(Clone, Copy)]
    pub struct V(pub f64, pub f64);
    impl std::ops::Sub for V {
        type Output = V;
        fn sub(self, o: V) -> V {
            V(self.0 - o.0, self.1 - o.1)
        }
    }
    pub trait Near {
        fn gap(self, other: Self) -> Self;
    }
    impl Near for f64 {
        fn gap(self, other: f64) -> f64 {
            self - other
        }
    }
}

#[stochastic(report = false)]
fn main() {
    use vec2::{Near, V};
    stoch_core::reset();
    let a = Sf64::from_samples([1.0, 1.0 + 1e-15, 1.0 - 1e-15]);
    let b = Sf64::from_samples([1.0, 1.0, 1.0]);
    let here = line!() + 1;
    let d = V(a, a) - V(b, b);
    let g = a.gap(b);
    let r = report();
    let sites: Vec<u32> = r
        .sites()
        .iter()
        .filter(|s| s.kind == Instability::Cancellation)
        .map(|s| s.line)
        .collect();
    assert!(!sites.is_empty(), "no cancellation recorded");
    assert!(
        sites.iter().all(|&l| l == here || l == here + 1),
        "sites {sites:?}, expected the caller's lines {here} and {}",
        here + 1
    );
    let _ = (d, g);
}
