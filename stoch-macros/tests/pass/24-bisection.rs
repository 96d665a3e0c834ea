// Bisection with a loop/break and a tuple state.
use stoch_core::stochastic;

#[stochastic]
fn bisect(f: impl Fn(f64) -> f64, mut lo: f64, mut hi: f64, tol: f64) -> f64 {
    let mut mid = 0.5 * (lo + hi);
    loop {
        if hi - lo < tol {
            break mid;
        }
        if f(lo) * f(mid) <= 0.0 {
            hi = mid;
        } else {
            lo = mid;
        }
        mid = 0.5 * (lo + hi);
    }
}

#[stochastic]
fn main() {
    let r = bisect(|x| x * x - 2.0, 0.0, 2.0, 1e-10);
    assert!((r - 2.0f64.sqrt()).abs() < 1e-9, "{r:?}");
}
