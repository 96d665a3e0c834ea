// Option<f64>, &mut f64 out-parameters, slices of f64.
use stoch_core::stochastic;

#[stochastic]
fn min_max(xs: &[f64], lo: &mut f64, hi: &mut f64) {
    for &x in xs {
        if x < *lo {
            *lo = x;
        }
        if x > *hi {
            *hi = x;
        }
    }
}

#[stochastic]
fn first_above(xs: &[f64], t: f64) -> Option<f64> {
    xs.iter().copied().find(|&x| x > t)
}

#[stochastic]
fn main() {
    let xs = [0.5, -1.25, 3.75, 2.0];
    let (mut lo, mut hi) = (f64::MAX, f64::MIN);
    min_max(&xs, &mut lo, &mut hi);
    assert!(lo == -1.25 && hi == 3.75);
    assert!(first_above(&xs, 1.0) == Some(3.75));
    assert!(first_above(&xs, 10.0).is_none());
}
