// f64::sqrt / f64::max style paths, constants, consts module, fn paths as values.
use stoch_core::stochastic;

#[stochastic]
fn main() {
    let r = f64::sqrt(16.0);
    assert!(r == 4.0);
    let m = [1.5, -2.0, 7.25, 3.0].iter().copied().fold(f64::NEG_INFINITY, f64::max);
    assert!(m == 7.25);
    let lo = [1.5, -2.0, 7.25].iter().copied().fold(f64::INFINITY, f64::min);
    assert!(lo == -2.0);
    let tau = 2.0 * std::f64::consts::PI;
    assert!(tau.digits() >= 14);
    let e = core::f64::consts::E.ln();
    assert!((e - 1.0).abs() < 1e-14);
    assert!(1.0 + f64::EPSILON > 1.0);
    assert!(f64::MAX > 1e300 && f64::MIN_POSITIVE > 0.0);
    assert!(f64::NAN.is_nan());
    assert_eq!(f64::MANTISSA_DIGITS, 53);
    let ys: Vec<f64> = [1u8, 2, 3].iter().map(|&k| f64::from(k)).collect();
    assert!(ys[2] == 3.0);
}
