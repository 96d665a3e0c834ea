//! Behaviour of annotated code: exact digits, and instabilities attributed to the user's own
//! lines (the rewrite keeps the spans, and the operators are `#[track_caller]`).
//!
//! The instability counters are process-wide, so everything runs in one `#[test]`.

use stoch_core::{report, reset, Instability};
use stoch_macros::stochastic;

#[stochastic]
fn well_conditioned(n: usize) -> f64 {
    (1..=n).map(|k| 1.0 / (k * k) as f64).sum()
}

#[stochastic]
fn single(x: f32) -> f32 {
    x * 3.0 / 7.0
}

/// `(0.1 + 0.2) - 0.3` is numerical noise: a computed zero that is not an exact zero.
#[stochastic]
fn noise() -> (f64, u32) {
    ((0.1 + 0.2) - 0.3, line!())
}

#[stochastic]
fn divide_by(d: f64) -> (f64, u32) {
    (1.0 / d, line!())
}

#[stochastic]
fn branch_on(d: f64) -> (bool, u32) {
    (d > 0.0, line!())
}

fn site_count(kind: Instability, line: u32) -> u64 {
    report()
        .sites()
        .iter()
        .filter(|s| s.kind == kind && s.line == line && s.file.ends_with("behaviour.rs"))
        .map(|s| s.count)
        .sum()
}

#[test]
fn digits_and_instabilities() {
    reset();

    let s = well_conditioned(1000);
    assert!(s.digits() >= 13, "{s:?}");
    // Callers outside `#[stochastic]` pass stochastic values explicitly.
    let f = single(stoch_core::Sf32::new(1.5));
    assert!(f.digits() >= 5 && f.digits() <= 7, "{f:?}");

    let (d, noise_line) = noise();
    assert!(d.is_computed_zero() && !d.is_exact_zero(), "{d:?}");
    assert!(
        site_count(Instability::Cancellation, noise_line) >= 1,
        "{}",
        report()
    );

    let (_, div_line) = divide_by(d);
    assert_eq!(
        site_count(Instability::Division, div_line),
        1,
        "{}",
        report()
    );

    let (_, branch_line) = branch_on(d);
    assert_eq!(
        site_count(Instability::Branching, branch_line),
        1,
        "{}",
        report()
    );

    // A well-conditioned computation raises nothing at its own lines.
    let before = report().total();
    let _ = well_conditioned(10);
    assert_eq!(report().total(), before);
}
