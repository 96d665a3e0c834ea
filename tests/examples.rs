//! Every example of the tour, at small sizes, with its key facts asserted: which values are
//! computed zeros, digit ranges, which instability kinds appear and where.
#![allow(
    dead_code,
    missing_docs,
    clippy::needless_range_loop,
    clippy::assign_op_pattern
)]

use std::sync::{Mutex, MutexGuard};

use stoch_core::{report, reset, Instability, Sf32, Sf64};

#[path = "../examples/cancel_sum.rs"]
mod cancel_sum;
#[path = "../examples/gauss.rs"]
mod gauss;
#[path = "../examples/hilbert.rs"]
mod hilbert;
#[path = "../examples/muller.rs"]
mod muller;
#[path = "../examples/newton.rs"]
mod newton;
#[path = "../examples/quadratic.rs"]
mod quadratic;
#[path = "../examples/rump.rs"]
mod rump;
#[path = "../examples/wave3d.rs"]
mod wave3d;

static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> MutexGuard<'static, ()> {
    let g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    reset();
    g
}

fn sites_in(file: &str, kind: Instability) -> u64 {
    report()
        .sites()
        .iter()
        .filter(|s| s.file.ends_with(file) && s.kind == kind)
        .map(|s| s.count)
        .sum()
}

#[test]
fn rump_is_a_computed_zero_with_a_cancellation() {
    let _g = serial();
    assert_eq!(rump::ieee::rump(10864.0, 18817.0), 2.0);
    let r = rump::stoch::rump(Sf64::new(10864.0), Sf64::new(18817.0));
    assert!(r.is_computed_zero(), "{r:?}");
    assert!(sites_in("examples/rump.rs", Instability::Cancellation) >= 1);
    let third = Sf64::new(1.0) / 3.0;
    let r = rump::stoch::rump(third, third * 2.0);
    assert_eq!(r.digits(), 15);
    assert!((r.mean() - 0.802469135802469).abs() < 1e-15);
}

#[test]
fn quadratic_finds_the_double_root() {
    let _g = serial();
    let (d, roots) = quadratic::ieee::solve(0.3, -2.1, 3.675);
    assert!(d != 0.0, "IEEE sees a non-zero discriminant");
    assert!(!matches!(roots, quadratic::ieee::Roots::Double(_)));
    // Three samples can coincide by chance; over 20 draws the computed zero dominates.
    let mut double = 0;
    for _ in 0..20 {
        let (d, roots) = quadratic::stoch::solve(0.3.into(), (-2.1).into(), 3.675.into());
        if let quadratic::stoch::Roots::Double(x) = roots {
            assert!(d.is_computed_zero());
            assert!((x.mean() - 3.5).abs() < 1e-14);
            assert!(x.digits() >= 14);
            double += 1;
        }
    }
    assert!(double >= 12, "double root found {double}/20 times");
}

#[test]
fn muller_loses_its_digits_and_carries_the_division_flag() {
    let _g = serial();
    let a = muller::ieee::muller(30);
    assert!((a[30] - 100.0).abs() < 1e-6);
    let b = muller::stoch::muller(30);
    assert!(b[5].digits() >= 9, "{:?}", b[5]);
    let lowest = (10..=20).map(|k| b[k].digits()).min().unwrap();
    assert!(lowest <= 1, "digits never drop: {lowest}");
    assert!(b[30].flags().contains(Instability::Division));
    assert!(report().self_validation_failed());
}

#[test]
fn newton_keeps_only_the_exact_digits() {
    let _g = serial();
    let (x, n) = newton::stoch::newton(0.5.into(), 1e-15.into(), 100);
    assert!(n < 100);
    let d = x.digits();
    assert!((5..=10).contains(&d), "{d} digits: {x:?}");
    // The digits shown are exact: the error is below one unit of the last shown digit.
    let err = (x.mean() - 3.0 / 7.0).abs();
    assert!(err < 10f64.powi(1 - d as i32), "err {err} with {d} digits");
    assert!(sites_in("examples/newton.rs", Instability::Cancellation) > 0);
}

#[test]
fn gauss_shows_the_zero_entry_as_noise() {
    let _g = serial();
    let (a, b) = gauss::ieee::system();
    let (_, _, zero) = gauss::ieee::solve(a, b);
    assert!(zero != 0.0);
    let (a, b) = gauss::stoch::system();
    let (x, _, zero) = gauss::stoch::solve(a, b);
    assert!(zero.is_computed_zero(), "{zero:?}");
    assert!(x[2].digits() >= 10);
    assert!((x[2].mean() - 1e-8).abs() < 1e-17);
    for i in [0, 1, 3] {
        let d = x[i].digits();
        assert!(d >= 8, "x{i}: {d}");
        assert!((x[i].mean() - 1.0).abs() < 10f64.powi(1 - d as i32));
    }
}

#[test]
fn hilbert_digits_fall_with_the_order() {
    let _g = serial();
    let d4 = hilbert::stoch::hilbert_det(4);
    let d12 = hilbert::stoch::hilbert_det(12);
    assert!(d4.digits() >= 12, "{d4:?}");
    assert!(d12.digits() <= 3, "{d12:?}");
    for n in [4, 6, 8, 10] {
        let s = hilbert::stoch::hilbert_det(n);
        let exact = hilbert::exact_det(n);
        let rel = (s.mean() - exact).abs() / exact;
        // Exact digits: the relative error is below one unit of the last exact digit.
        assert!(
            rel < 10f64.powi(1 - s.digits() as i32),
            "n={n}: {rel} vs {s:?}"
        );
    }
}

#[test]
fn cancel_sum_is_a_computed_zero_with_a_collapse_site() {
    let _g = serial();
    let xs = cancel_sum::data(500);
    assert!(cancel_sum::ieee::sum(&xs) != 0.0);
    let sx: Vec<Sf32> = xs.iter().map(|&x| x.into()).collect();
    let s = cancel_sum::stoch::sum(&sx);
    assert!(s.is_computed_zero(), "{s:?}");
    let r = report();
    assert!(
        r.collapses()
            .iter()
            .any(|c| c.file.ends_with("examples/cancel_sum.rs")),
        "{r}"
    );
}

#[test]
fn wave3d_keeps_a_few_digits() {
    let _g = serial();
    let n = 16;
    let mut a = wave3d::ieee::Wave::new(n);
    let mut b = wave3d::stoch::Wave::new(n);
    for t in 0..40 {
        a.step(t);
        b.step(t);
    }
    let reached: Vec<&Sf32> = b.u.iter().filter(|v| !v.is_exact_zero()).collect();
    assert!(reached.len() > 100);
    let mean = reached.iter().map(|v| v.digits() as f64).sum::<f64>() / reached.len() as f64;
    assert!((2.0..=7.0).contains(&mean), "mean digits {mean}");
    // Every exact digit shown agrees with the IEEE run to within its last digit.
    for (x, y) in a.u.iter().zip(&b.u) {
        let d = y.digits();
        if d >= 2 {
            let rel = ((y.to_f64() - *x as f64) / *x as f64).abs();
            assert!(rel < 10f64.powi(1 - d as i32) * 2.0, "{x} vs {y:?}");
        }
    }
    assert!(sites_in("examples/wave3d.rs", Instability::Cancellation) > 0);
}

#[test]
fn tour_runs_and_ends_with_the_report() {
    let exe = std::env::current_exe().unwrap();
    let dir = exe.parent().unwrap().parent().unwrap().join("examples");
    let tour = dir.join(format!("tour{}", std::env::consts::EXE_SUFFIX));
    if !tour.exists() {
        // `cargo test` (the README's command) builds every example; a single `--test` does not.
        eprintln!("skipped: {} is not built; run `cargo test`", tour.display());
        return;
    }
    let out = std::process::Command::new(&tour).output().unwrap();
    assert!(out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stdout.contains("Rump"), "{stdout}");
    assert!(stdout.contains("@.0"));
    assert_eq!(
        stderr.matches("numerical instabilities detected").count(),
        1,
        "{stderr}"
    );
    assert!(stderr.contains("examples/rump.rs:"), "{stderr}");
    assert!(stderr.contains("accuracy collapse"));
}
