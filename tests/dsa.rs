//! Hand-checked Discrete Stochastic Arithmetic: digits, computed zero, relations, Rump's
//! polynomial, generic `num_traits::Float` code, sizes and layout.
// DSA's relations are not a total order: `!(a < b)` and `a >= b` differ on purpose here.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use std::sync::Mutex;

use num_traits::Float;
use stoch_core::{report, reset, Instability, Sf32, Sf64};

/// The report is process-wide: tests that look at it run one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

#[test]
fn layout() {
    assert_eq!(std::mem::size_of::<Sf32>(), 16);
    assert_eq!(std::mem::align_of::<Sf32>(), 16);
    assert_eq!(std::mem::size_of::<Sf64>(), 32);
    assert_eq!(std::mem::align_of::<Sf64>(), 32);
}

#[test]
fn digit_ladder() {
    // Samples (1 − d, 1, 1 + d): σ = d and C = log10(√3 / (τ·d)) = −log10(d) − 0.3952,
    // so the integer count is ⌊p − 0.3952 + 0.5⌋ = p for d = 10^-p.
    for p in 1..=14 {
        let d = 10f64.powi(-p);
        let x = Sf64::from_samples([1.0 - d, 1.0, 1.0 + d]);
        assert_eq!(x.digits(), p as u32, "d = 1e-{p}");
        let est = x.digits_estimate();
        assert!(
            (est - (p as f64 - 0.3952)).abs() < 0.01,
            "d = 1e-{p}: {est}"
        );
    }
    // f32: capped at 7.
    for p in 1..=6 {
        let d = 10f32.powi(-p);
        let x = Sf32::from_samples([1.0 - d, 1.0, 1.0 + d]);
        assert_eq!(x.digits(), p as u32, "f32 d = 1e-{p}");
    }
    assert_eq!(Sf32::new(3.0).digits(), 7);
    assert_eq!(Sf64::new(3.0).digits(), 15);
}

#[test]
fn identical_zero_and_special_samples() {
    assert_eq!(Sf64::from_samples([0.1; 3]).digits(), 15);
    let z = Sf64::new(0.0);
    assert!(z.is_computed_zero());
    assert!(z.is_exact_zero());
    assert_eq!(z.digits(), 15); // identical samples: the maximum (DESIGN §3)
    for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let x = Sf64::from_samples([bad, 1.0, 1.0]);
        assert_eq!(x.digits(), 0);
        assert!(!x.is_computed_zero());
    }
    // NaN and infinities propagate as in IEEE.
    let inf = Sf64::new(f64::INFINITY);
    assert!((inf - inf).samples().iter().all(|s| s.is_nan()));
    assert!((Sf64::new(1.0) / Sf64::new(0.0))
        .samples()
        .iter()
        .all(|s| *s == f64::INFINITY));
    assert!((Sf64::new(-0.0) * Sf64::new(1.0))
        .samples()
        .iter()
        .all(|s| *s == 0.0 && s.is_sign_negative()));
}

#[test]
fn computed_zero_threshold() {
    // Σ(R−m)² = 2d² for (m−d, m, m+d); the threshold is Σ > 0.6·m²/τ².
    let k = 0.6 / (stoch_core::TAU_95 * stoch_core::TAU_95);
    let edge = (k / 2.0).sqrt();
    let inside = Sf64::from_samples([1.0 - 0.999 * edge, 1.0, 1.0 + 0.999 * edge]);
    let outside = Sf64::from_samples([1.0 - 1.001 * edge, 1.0, 1.0 + 1.001 * edge]);
    assert!(!inside.is_computed_zero());
    assert_eq!(inside.digits(), 1);
    assert!(outside.is_computed_zero());
    assert!(outside.is_numerical_noise());
    assert_eq!(outside.to_string(), "@.0");
}

#[test]
fn relations_on_exact_zeros_and_noise() {
    let _g = serial();
    reset();
    let zero = Sf64::new(0.0);
    let noise = Sf64::from_samples([1e-17, -2e-17, 5e-18]);
    let one = Sf64::new(1.0);
    // Exact zeros are equal, and ordered comparisons on them are not branching instabilities.
    assert!(zero == Sf64::new(0.0));
    assert!(zero <= Sf64::new(0.0) && zero >= Sf64::new(0.0));
    assert!(!(zero < Sf64::new(0.0)) && !(zero > Sf64::new(0.0)));
    assert_eq!(report().count(Instability::Branching), 0);
    // Noise equals zero, is neither above nor below it, and each ordered test is a branching
    // instability.
    assert!(noise == zero);
    assert!(!(noise > zero));
    assert!(!(noise < zero));
    assert!(noise >= zero);
    assert!(noise <= zero);
    assert_eq!(report().count(Instability::Branching), 4);
    // Significant values order as their means.
    assert!(one > noise);
    assert!(noise < one);
    assert!(one != zero);
    assert_eq!(report().count(Instability::Branching), 4);
    // 0.1 + 0.2 equals 0.3 stochastically, and is not strictly greater.
    let s = Sf64::new(0.1) + Sf64::new(0.2);
    assert!(s == Sf64::new(0.3));
    assert!(!(s > Sf64::new(0.3)));
    reset();
}

fn rump<F: Float>(x: F, y: F) -> F {
    let nine = F::from(9.0).unwrap();
    let two = F::from(2.0).unwrap();
    let a = nine * x * x * x * x;
    let b = y * y * y * y;
    let c = two * y * y;
    a - b + c
}

#[test]
fn rump_polynomial() {
    let _g = serial();
    reset();
    // IEEE double gives 2 where the exact value is 1: f(10864, 18817) = 1.
    assert_eq!(rump(10864.0f64, 18817.0), 2.0);
    let r = rump(Sf64::new(10864.0), Sf64::new(18817.0));
    assert!(r.is_computed_zero(), "{:?}", r.samples());
    assert_eq!(r.to_string(), "@.0");
    assert!(report().count(Instability::Cancellation) >= 1);
    let third = Sf64::new(1.0) / Sf64::new(3.0);
    let r = rump(third, Sf64::new(2.0) / Sf64::new(3.0));
    assert_eq!(r.digits(), 15);
    assert!(format!("{r:#}").starts_with(" 0.80246913580246"), "{r:#}");
    assert_eq!(r.to_string(), "8.02469135802469e-1");
    reset();
}

/// Newton's iteration for √a, generic over `num_traits::Float`.
fn newton_sqrt<F: Float>(a: F) -> (F, usize) {
    let half = F::from(0.5).unwrap();
    let mut x = a;
    for i in 0..100 {
        let next = half * (x + a / x);
        if (next - x).abs() <= F::epsilon() * next {
            return (next, i);
        }
        x = next;
    }
    (x, 100)
}

/// Horner's scheme, generic.
fn horner<F: Float>(coeffs: &[f64], x: F) -> F {
    coeffs
        .iter()
        .rev()
        .fold(F::zero(), |acc, &c| acc * x + F::from(c).unwrap())
}

#[test]
fn generic_code_runs_both_ways() {
    let _g = serial();
    let (plain, _) = newton_sqrt(2.0f64);
    let (stoch, iters) = newton_sqrt(Sf64::new(2.0));
    assert!((plain - 2f64.sqrt()).abs() < 1e-15);
    assert!(iters < 100);
    assert!((stoch.mean() - 2f64.sqrt()).abs() < 1e-15);
    assert!(stoch.digits() >= 14);
    // (x − 1)^3 expanded, evaluated near its triple root: few digits survive.
    let c = [-1.0, 3.0, -3.0, 1.0];
    let p = horner(&c, 1.0001f64);
    let s = horner(&c, Sf64::new(1.0001));
    assert!((s.mean() - p).abs() < 1e-10);
    assert!(s.digits() < 10, "{}", s.digits());
    let far = horner(&c, Sf64::new(3.0));
    assert_eq!(far.mean(), 8.0);
    assert!(far.digits() >= 14);
    reset();
}
