//! Methods `f64` code calls that `Stochastic` provides with the same signatures: `total_cmp`,
//! `rem_euclid`, `div_euclid`, and `{:e}` / `{:E}` formatting.

use std::cmp::Ordering;

use stoch_core::{Flags, Instability, Sf32, Sf64};

/// The report is process-wide: these tests reset it, read it or add to it, one at a time.
static REPORT_LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[test]
fn total_cmp_orders_by_mean_then_samples() {
    let _lock = REPORT_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let mut v = vec![
        Sf64::new(3.0),
        Sf64::NAN,
        Sf64::new(-1.0),
        Sf64::new(0.0),
        Sf64::new(-0.0),
        Sf64::INFINITY,
        Sf64::NEG_INFINITY,
        -Sf64::NAN,
        Sf64::from_samples([0.5, 1.0, 1.5]),
        Sf64::new(1.0),
    ];
    v.sort_by(Sf64::total_cmp);
    let means: Vec<f64> = v.iter().map(|x| x.to_f64()).collect();
    assert!(
        means[0].is_nan() && means[0].is_sign_negative(),
        "{means:?}"
    );
    assert!(
        means[9].is_nan() && means[9].is_sign_positive(),
        "{means:?}"
    );
    assert_eq!(
        means[1..9].iter().map(|m| m.to_bits()).collect::<Vec<_>>(),
        [
            f64::NEG_INFINITY,
            -1.0,
            -0.0,
            0.0,
            1.0,
            1.0,
            3.0,
            f64::INFINITY
        ]
        .iter()
        .map(|m| m.to_bits())
        .collect::<Vec<_>>()
    );
    // Same mean (1.0), different samples: ordered by the samples, x first (0.5 < 1.0).
    assert_eq!(v[5].samples(), [0.5, 1.0, 1.5]);
    assert_eq!(v[6].samples(), [1.0; 3]);
    let a = Sf64::from_samples([0.5, 1.0, 1.5]);
    assert_eq!(a.to_f64(), 1.0);
    assert_eq!(a.total_cmp(&Sf64::ONE), Ordering::Less);
    assert_eq!(Sf64::ONE.total_cmp(&a), Ordering::Greater);
    // Equal exactly for the same samples; flags do not matter.
    let flagged = Sf64::from_parts(a.samples(), Flags::EMPTY.with(Instability::Division));
    assert_eq!(a.total_cmp(&flagged), Ordering::Equal);
    // Noise comparisons are ordered without a branching instability.
    stoch_core::reset();
    let noise = Sf64::from_samples([1e-17, -1e-17, 2e-17]);
    assert_eq!(noise.total_cmp(&Sf64::ZERO), Ordering::Greater);
    assert_eq!(stoch_core::report().total(), 0);
    // f32 too.
    let mut w = [Sf32::new(2.0), Sf32::new(-3.0), Sf32::new(0.5)];
    w.sort_by(|a, b| a.total_cmp(b));
    assert_eq!(w.map(|x| x.to_f32()), [-3.0, 0.5, 2.0]);
}

#[test]
fn euclid_matches_f64_on_exact_values() {
    let _lock = REPORT_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let cases = [
        (7.0, 4.0),
        (-7.0, 4.0),
        (7.0, -4.0),
        (-7.0, -4.0),
        (5.5, 2.0),
        (-5.5, 2.0),
        (0.0, 3.0),
        (-0.0, 3.0),
        (8.0, 4.0),
        (1e300, 3.0),
        (-1e-300, 1.0),
        (-1e-20, 1.0),
        (3.0, 0.0),
        (f64::INFINITY, 2.0),
        (2.0, f64::INFINITY),
    ];
    for (a, b) in cases {
        let (x, y) = (Sf64::new(a), Sf64::new(b));
        let q = x.div_euclid(y);
        let want_q = a.div_euclid(b);
        for s in q.samples() {
            assert!(
                s.to_bits() == want_q.to_bits() || s.is_nan() && want_q.is_nan(),
                "{a} div {b}: {s} vs {want_q}"
            );
        }
        let r = x.rem_euclid(y);
        let want_r: f64 = a.rem_euclid(b);
        for s in r.samples() {
            // Exact when `a % b ≥ 0`; otherwise `r + |b|` randomly rounded: within one ulp.
            let ok = s.to_bits() == want_r.to_bits()
                || s.is_nan() && want_r.is_nan()
                || s == want_r.next_up()
                || s == want_r.next_down();
            assert!(ok, "{a} rem {b}: {s} vs {want_r}");
            if !s.is_nan() && b.is_finite() && b != 0.0 {
                assert!(s >= 0.0 && s <= b.abs(), "{a} rem {b}: {s}");
            }
        }
        assert!(q.flags().is_empty() && r.flags().is_empty(), "{a}, {b}");
    }
    // f32.
    assert_eq!(
        Sf32::new(-7.0).rem_euclid(Sf32::new(4.0)).samples(),
        [1.0; 3]
    );
    assert_eq!(
        Sf32::new(-7.0).div_euclid(Sf32::new(4.0)).samples(),
        [-2.0; 3]
    );
}

#[test]
fn euclid_instability_and_flags() {
    let _lock = REPORT_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    stoch_core::reset();
    // Samples on both sides of a multiple of 4: the quotients differ, Intrinsic.
    let x = Sf64::from_samples([8.0 - 1e-14, 8.0, 8.0 + 1e-14]);
    let (q, l) = (x.div_euclid(Sf64::new(4.0)), line!());
    assert_eq!(q.samples(), [1.0, 2.0, 2.0]);
    assert!(q.flags().contains(Instability::Intrinsic));
    let r = stoch_core::report();
    assert_eq!(r.count(Instability::Intrinsic), 1, "{r}");
    assert_eq!(r.sites()[0].line, l, "{r}");
    let rem = x.rem_euclid(Sf64::new(4.0));
    assert!(rem.flags().contains(Instability::Intrinsic));
    // Away from the multiple: stable.
    let y = Sf64::from_samples([9.0 - 1e-14, 9.0, 9.0 + 1e-14]);
    assert!(y.rem_euclid(Sf64::new(4.0)).flags().is_empty());
    // Operand flags propagate.
    let f = Sf64::from_parts([5.0; 3], Flags::EMPTY.with(Instability::Power));
    assert!(f
        .rem_euclid(Sf64::new(2.0))
        .flags()
        .contains(Instability::Power));
    assert!(Sf64::new(2.0)
        .div_euclid(f)
        .flags()
        .contains(Instability::Power));
    stoch_core::reset();
}

#[test]
fn rem_euclid_rounds_randomly_when_inexact() {
    let _lock = REPORT_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    // −1e-20 rem 1 = 1 − 1e-20: RN gives 1.0, random rounding 1.0 or 1.0.next_down().
    let (mut low, mut n) = (0, 0);
    for _ in 0..2000 {
        for s in Sf64::new(-1e-20).rem_euclid(Sf64::ONE).samples() {
            assert!(s == 1.0 || s == 1f64.next_down(), "{s}");
            low += (s < 1.0) as u32;
            n += 1;
        }
    }
    let f = low as f64 / n as f64;
    assert!((f - 0.5).abs() < 0.05, "{f}");
}

#[test]
fn lower_and_upper_exp() {
    let _lock = REPORT_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let third = Sf64::new(1.0) / 3.0;
    assert_eq!(format!("{third:e}"), "3.33333333333333e-1");
    assert_eq!(format!("{third:e}"), format!("{third}"));
    assert_eq!(format!("{third:E}"), "3.33333333333333E-1");
    assert_eq!(format!("{third:.3e}"), "3.333e-1");
    assert_eq!(format!("{third:.0e}"), "3e-1");
    // A precision prints what f64 prints (the report counts the digits beyond the exact ones).
    assert_eq!(format!("{third:.30e}"), format!("{:.30e}", third.to_f64()));
    let x = Sf64::from_samples([1.0 - 1e-6, 1.0, 1.0 + 1e-6]) * 123.456;
    assert_eq!(x.digits(), 6);
    assert_eq!(format!("{x:e}"), "1.23456e2");
    assert_eq!(format!("{x:.2e}"), "1.23e2");
    assert_eq!(format!("{x:.9E}"), format!("{:.9E}", x.to_f64()));
    assert_eq!(format!("{:e}", -x), "-1.23456e2");
    assert_eq!(format!("{x:+e}"), "+1.23456e2");
    assert_eq!(format!("{x:>12e}|"), "   1.23456e2|");
    assert_eq!(format!("{x:<12.1e}|"), "1.2e2       |");
    assert_eq!(format!("{:012e}", -x), "-001.23456e2");
    // Computed zero, exact zero, non-finite.
    let noise = Sf64::from_samples([1e-17, -3e-17, 4e-17]);
    assert_eq!(format!("{noise:e}"), "@.0");
    assert_eq!(format!("{noise:.3E}"), format!("{:.3E}", noise.to_f64()));
    assert_eq!(format!("{:e}", Sf64::new(0.0)), "0.00000000000000e0");
    assert_eq!(format!("{:.2e}", Sf64::new(0.0)), "0.00e0");
    assert_eq!(format!("{:e}", Sf64::new(-0.0)), "-0.00000000000000e0");
    assert_eq!(format!("{:e}", Sf32::new(0.0)), "0.000000e0");
    assert_eq!(format!("{:e}", Sf64::INFINITY), "inf");
    assert_eq!(format!("{:E}", Sf64::NEG_INFINITY), "-inf");
    assert_eq!(format!("{:e}", Sf64::NAN), "NaN");
    // f32: at most 7 digits.
    let y = Sf32::new(1.0) / 3.0;
    assert_eq!(format!("{y:e}"), "3.333333e-1");
    assert_eq!(format!("{y:.10e}"), format!("{:.10e}", y.to_f32()));
    assert_eq!(format!("{:E}", Sf32::new(1234.5)), "1.234500E3");
}
