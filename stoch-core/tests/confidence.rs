//! A configured confidence β changes τ, the digits and the computed-zero threshold (DESIGN §3).
//! Its own test binary, with one test, because the configuration is process-wide.

use stoch_core::{report, student_tau, tau, Config, ReportMode, Sf32, Sf64, TAU_95};

/// `⌊C + 0.5⌋` clamped to `0..=15`, the rule of `digits()`.
fn rounded(c: f64) -> u32 {
    ((c + 0.5).floor().max(0.0) as u32).min(15)
}

#[test]
fn confidence_99_lowers_the_digits_and_moves_the_computed_zero_threshold() {
    // Defaults first: β = 95%.
    Config::default().report(ReportMode::Off).apply();
    assert_eq!(tau(), TAU_95);
    let x = Sf64::from_samples([1.0 - 1e-6, 1.0, 1.0 + 1e-6]);
    let c95 = x.digits_estimate();
    assert!((c95 - 5.6048).abs() < 1e-3, "{c95}");
    assert_eq!(x.digits(), 6);
    // (1 − d, 1, 1 + d) with d = 0.1: σ/m = 0.1, below the 95% threshold (d ≈ 0.1273).
    let d = Sf64::from_samples([0.9, 1.0, 1.1]);
    assert!(!d.is_computed_zero());
    assert_eq!(d.digits(), 1);
    assert_eq!(d.to_string(), "1e0");
    let d32 = Sf32::from_samples([0.9, 1.0, 1.1]);
    assert!(!d32.is_computed_zero());

    // β = 99%: τ = t(0.995; 2) = 9.9248 (statrs), C drops by log10(τ99/τ95) = 0.3630.
    let _guard = stoch_core::init(Config::default().confidence(0.99).report(ReportMode::Off));
    assert_eq!(report().config().get_confidence(), 0.99);
    let t99 = tau();
    assert_eq!(t99, student_tau(0.99));
    assert!((t99 - 9.924_843).abs() < 1e-5, "{t99}");
    let drop = (t99 / TAU_95).log10();
    assert!((drop - 0.3630).abs() < 1e-3, "{drop}");
    let c99 = x.digits_estimate();
    assert!((c95 - c99 - drop).abs() < 1e-12, "{c95} → {c99}");
    // 5.60 → 5.24: one digit less.
    assert_eq!(x.digits(), 5);
    assert_eq!(x.digits(), rounded(c99));
    // A ladder: the integer count drops by exactly what the real-valued estimate says.
    for p in 2..=13 {
        let e = 10f64.powi(-p) * 1.37;
        let v = Sf64::from_samples([1.0 - e, 1.0, 1.0 + e]);
        let c = v.digits_estimate();
        assert_eq!(v.digits(), rounded(c), "1e-{p}");
        assert!(v.digits() + 1 >= rounded(c + drop), "1e-{p}");
    }
    // The computed-zero threshold: Σ(R − m)² > 0.6·m²/τ² now at d = √(0.3/τ²) ≈ 0.0552.
    assert!(d.is_computed_zero());
    assert!(d.is_numerical_noise());
    assert_eq!(d.digits(), 0);
    assert_eq!(d.to_string(), "@.0");
    assert!(Sf32::from_samples([0.9, 1.0, 1.1]).is_computed_zero());
    let edge = (0.3f64).sqrt() / t99;
    let below = Sf64::from_samples([1.0 - 0.99 * edge, 1.0, 1.0 + 0.99 * edge]);
    let above = Sf64::from_samples([1.0 - 1.01 * edge, 1.0, 1.0 + 1.01 * edge]);
    assert!(!below.is_computed_zero() && below.digits() == 1);
    assert!(above.is_computed_zero());
    assert!((below.digits_estimate() - 0.5).abs() < 0.01);
    // The instability checks see the 99% threshold: dividing by `d` (noise at 99%, one digit
    // at 95%) is an unstable division, and so are the products and quotients of `above`.
    let before = report().count(stoch_core::Instability::Division);
    let q = Sf64::ONE / d;
    assert!(q.flags().contains(stoch_core::Instability::Division));
    let _ = Sf64::ONE / above;
    assert_eq!(
        report().count(stoch_core::Instability::Division),
        before + 2
    );
    let _ = d * above;
    assert!(report().count(stoch_core::Instability::Multiplication) >= 1);
    // Above 0.99 the confidence is clamped (see `Config::confidence`).
    assert_eq!(Config::default().confidence(0.9999).get_confidence(), 0.99);
    // Relations follow: 1.1 vs 1.0 ± 0.1 is now equal (noise difference).
    assert!(d == Sf64::ONE);
    stoch_core::reset();

    // Back to 95%.
    Config::default().report(ReportMode::Off).apply();
    assert_eq!(tau(), TAU_95);
    assert_eq!(x.digits(), 6);
    assert!(!d.is_computed_zero());
}
