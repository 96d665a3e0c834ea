//! Every example of the tour, at small sizes, with its key facts asserted: which values are
//! computed zeros, digit ranges, which instability kinds appear and where. Twice: the examples'
//! code is compiled in here and called (the `mod`s below), and every example program is run
//! (built first when a single `--test` did not build it) and its stdout and report read. Also
//! runs `examples/gpu_validate.rs` at a tiny size: its results with a GPU, its one-line reason
//! without one (a failure instead under `STOCH_REQUIRE_GPU=1`).
#![allow(
    dead_code,
    missing_docs,
    clippy::needless_range_loop,
    clippy::assign_op_pattern
)]

mod common;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Output;
use std::sync::{Mutex, MutexGuard};

use common::HEADER;

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
        if y.is_exact_zero() {
            // Not reached by the wave: all digits exact (DESIGN §3), and zero in IEEE too.
            assert_eq!(*x, 0.0, "{y:?}");
            continue;
        }
        let d = y.digits();
        if d >= 2 {
            let rel = ((y.to_f64() - *x as f64) / *x as f64).abs();
            assert!(rel < 10f64.powi(1 - d as i32) * 2.0, "{x} vs {y:?}");
        }
    }
    assert!(sites_in("examples/wave3d.rs", Instability::Cancellation) > 0);
}

#[test]
fn hilbert_exact_determinant_is_exact() {
    // 1/det H(n), from exact rational elimination (Python's `fractions`).
    let known: [u128; 7] = [
        1,
        12,
        2160,
        6_048_000,
        266_716_800_000,
        186_313_420_339_200_000,
        2_067_909_047_925_770_649_600_000,
    ];
    for (n, &k) in (1..).zip(&known) {
        let digits = hilbert::inverse_det(n);
        assert!(digits.len() <= 2, "n={n}: {digits:?}");
        let v = digits
            .iter()
            .rev()
            .fold(0u128, |acc, &d| acc << 64 | u128::from(d));
        assert_eq!(v, k, "n={n}");
    }
    // Beyond u128: the integer correctly rounded to f64 (Python's `float(Fraction)`).
    for (n, k) in [
        (8, 3.6535684712573446e32),
        (10, 4.620689394791469e52),
        (12, 3.7910657943630453e77),
        (20, 2.3774547167685345e225),
    ] {
        assert_eq!(hilbert::to_f64(&hilbert::inverse_det(n)), k, "n={n}");
    }
    // det itself: within one rounding of the correctly rounded value.
    for (n, det) in [
        (4, 1.6534391534391535e-7),
        (6, 5.367299887358688e-18),
        (10, 2.164179226431492e-53),
        (12, 2.6377806512535473e-78),
    ] {
        let rel = (hilbert::exact_det(n) - det).abs() / det;
        assert!(rel <= f64::EPSILON, "n={n}: {rel}");
    }
    // The rounding of a wide integer: 2^64 + 2^11 + 1 is above the halfway point 2^64 + 2^11.
    assert_eq!(hilbert::to_f64(&[1 << 11, 1]), 18_446_744_073_709_551_616.0);
    assert_eq!(
        hilbert::to_f64(&[(1 << 11) + 1, 1]),
        18_446_744_073_709_555_712.0
    );
}

// ----- The example programs, run ---------------------------------------------------------------

/// Every example program this file runs.
const PROGRAMS: [&str; 9] = [
    "tour",
    "rump",
    "quadratic",
    "muller",
    "newton",
    "gauss",
    "hilbert",
    "cancel_sum",
    "wave3d",
];

/// The path of an example; the first call builds every example of [`PROGRAMS`] together.
fn example(name: &str) -> PathBuf {
    common::examples(&PROGRAMS);
    common::example(name)
}

/// What an example printed.
struct Run {
    stdout: String,
    stderr: String,
    report: Report,
}

/// Runs an example with `args`, no `STOCH_*` variable set, and checks that it succeeds and
/// prints the report exactly once.
fn run(name: &str, args: &[&str]) -> Run {
    let out = run_raw(name, args);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{name}: {stdout}\n{stderr}");
    assert_eq!(stderr.matches(HEADER).count(), 1, "{name}: {stderr}");
    let report = Report::parse(&stderr);
    Run {
        stdout,
        stderr,
        report,
    }
}

fn run_raw(name: &str, args: &[&str]) -> Output {
    example(name);
    common::run(name, args, &[])
}

/// The text report, read back: kinds with counts, sites, accuracy collapses.
#[derive(Debug, Default)]
struct Report {
    kinds: BTreeMap<String, u64>,
    /// (file, line, kind, count)
    sites: Vec<(String, usize, String, u64)>,
    /// (file, line, count)
    collapses: Vec<(String, usize, u64)>,
    self_validation_failed: bool,
}

impl Report {
    fn parse(text: &str) -> Report {
        let loc = |s: &str| {
            let mut it = s.split(':');
            let file = it.next().unwrap().to_string();
            let line = it.next().and_then(|l| l.parse().ok()).expect(s);
            (file, line)
        };
        let mut r = Report::default();
        let mut section = "";
        for l in text.lines() {
            if l.contains("detected:") {
                section = "kinds";
            } else if l.starts_with("Sites (") {
                section = "sites";
            } else if l.contains("accuracy collapse") {
                section = "collapses";
            } else if l.starts_with("CRITICAL: self-validation failed") {
                r.self_validation_failed = true;
            } else if !l.starts_with("  ") {
                section = "";
            } else {
                let w: Vec<&str> = l.split_whitespace().collect();
                match section {
                    "kinds" => {
                        r.kinds.insert(w[1..].join(" "), w[0].parse().expect(l));
                    }
                    "sites" => {
                        let (file, line) = loc(w[0]);
                        let count = w[2].parse().expect(l);
                        r.sites.push((file, line, w[1].to_string(), count));
                    }
                    "collapses" => {
                        let (file, line) = loc(w[0]);
                        r.collapses.push((file, line, w[1].parse().expect(l)));
                    }
                    _ => {}
                }
            }
        }
        assert!(!r.kinds.is_empty(), "no instability counts in:\n{text}");
        r
    }

    /// The kinds reported, as the report names them.
    fn kind_names(&self) -> Vec<&str> {
        self.kinds.keys().map(String::as_str).collect()
    }

    /// The source lines of the sites of `kind` (all kinds when empty).
    fn site_code(&self, kind: &str) -> Vec<&'static str> {
        self.sites
            .iter()
            .filter(|s| kind.is_empty() || s.2 == kind)
            .map(|s| code_at(&s.0, s.1))
            .collect()
    }
}

/// The source line `line` of an example file.
fn code_at(file: &str, line: usize) -> &'static str {
    let source = match file {
        "examples/rump.rs" => include_str!("../examples/rump.rs"),
        "examples/quadratic.rs" => include_str!("../examples/quadratic.rs"),
        "examples/muller.rs" => include_str!("../examples/muller.rs"),
        "examples/newton.rs" => include_str!("../examples/newton.rs"),
        "examples/gauss.rs" => include_str!("../examples/gauss.rs"),
        "examples/hilbert.rs" => include_str!("../examples/hilbert.rs"),
        "examples/cancel_sum.rs" => include_str!("../examples/cancel_sum.rs"),
        "examples/wave3d.rs" => include_str!("../examples/wave3d.rs"),
        other => panic!("a site in an unexpected file: {other}"),
    };
    source.lines().nth(line - 1).expect("a line of the file")
}

/// The line of `out` that starts (after spaces) with `label`.
fn line<'a>(out: &'a str, label: &str) -> &'a str {
    let mut it = out.lines().filter(|l| l.trim_start().starts_with(label));
    let l = it
        .next()
        .unwrap_or_else(|| panic!("no {label:?} line in:\n{out}"));
    assert!(it.next().is_none(), "two {label:?} lines in:\n{out}");
    l
}

/// What follows `IEEE:` on a line, up to `stochastic:`.
fn ieee(line: &str) -> &str {
    let rest = &line[line.find("IEEE:").expect(line) + 5..];
    rest.split("stochastic:").next().unwrap().trim()
}

/// What follows `stochastic:` on a line.
fn stoch(line: &str) -> &str {
    line[line.find("stochastic:").expect(line) + 11..].trim()
}

/// The first word of `s`.
fn first(s: &str) -> &str {
    s.split_whitespace().next().unwrap_or("")
}

/// A stochastic value as printed: `None` for `@.0`, else the value and the digits shown.
fn value(s: &str) -> Option<(f64, usize)> {
    if s == "@.0" {
        return None;
    }
    let mantissa = s.split('e').next().unwrap();
    let digits = mantissa.chars().filter(char::is_ascii_digit).count();
    Some((
        s.parse().unwrap_or_else(|_| panic!("not a number: {s}")),
        digits,
    ))
}

/// `(d digits` in a line, as the examples print it.
fn digits_in(line: &str) -> usize {
    let i = line.find(" digit").expect(line);
    let start = line[..i].rfind('(').expect(line) + 1;
    line[start..i].parse().expect(line)
}

#[test]
fn tour_runs_and_ends_with_the_report() {
    let r = run("tour", &[]);
    for title in [
        "Rump's polynomial",
        "Second-order equation",
        "Muller's recurrence",
        "Newton's method",
        "Gaussian elimination",
        "Determinant of the Hilbert matrix",
        "Sum of large and small f32 values",
    ] {
        assert_eq!(r.stdout.matches(title).count(), 1, "{title}: {}", r.stdout);
    }
    assert_eq!(stoch(line(&r.stdout, "f(10864, 18817)")), "@.0");
    assert_eq!(first(stoch(line(&r.stdout, "discriminant"))), "@.0");
    assert_eq!(stoch(line(&r.stdout, "sum of 10000")), "@.0");
    assert!(r.stderr.contains("numerical instabilities detected"));
    assert!(r.stderr.contains("examples/rump.rs:"), "{}", r.stderr);
    // One of each kind the cases raise, each from its own example.
    for (kind, file) in [
        ("cancellation", "examples/rump.rs"),
        ("division", "examples/muller.rs"),
        ("branching", "examples/newton.rs"),
    ] {
        assert!(
            r.report.sites.iter().any(|s| s.2 == kind && s.0 == file),
            "{kind} in {file}: {}",
            r.stderr
        );
    }
    assert!(r.report.self_validation_failed);
    assert!(r
        .report
        .collapses
        .iter()
        .any(|c| c.0 == "examples/cancel_sum.rs"));
}

#[test]
fn rump_program() {
    let r = run("rump", &[]);
    let l = line(&r.stdout, "f(10864, 18817)");
    assert_eq!((ieee(l), stoch(l)), ("2", "@.0"), "{l}");
    let l = line(&r.stdout, "f(1/3, 2/3)");
    assert_eq!(
        (ieee(l), stoch(l)),
        ("0.8024691358024691", "8.02469135802469e-1")
    );
    assert_eq!(r.report.kind_names(), ["cancellation"], "{}", r.stderr);
    for code in r.report.site_code("") {
        assert!(code.contains("a - b + c"), "{code}");
    }
    assert_eq!(r.report.collapses.len(), 1, "{}", r.stderr);
    assert!(!r.report.self_validation_failed);
}

#[test]
fn quadratic_program() {
    let r = run("quadratic", &[]);
    let l = line(&r.stdout, "discriminant");
    assert_eq!((ieee(l), stoch(l)), ("8.881784197001252e-16", "@.0"), "{l}");
    let l = line(&r.stdout, "roots");
    assert_eq!(ieee(l), "real roots 3.499999950329463, 3.5000000496705375");
    let l = line(&r.stdout, "stochastic:");
    assert_eq!(stoch(l), "double root 3.50000000000000e0");
    assert_eq!(r.report.kind_names(), ["cancellation"], "{}", r.stderr);
    for code in r.report.site_code("") {
        assert!(code.contains("b * b - 4.0 * a * c"), "{code}");
    }
    assert_eq!(r.report.collapses.len(), 1, "{}", r.stderr);
}

#[test]
fn muller_program() {
    let r = run("muller", &[]);
    let row = |k: usize| line(&r.stdout, &format!("x({k:2})"));
    assert_eq!(ieee(row(30)), "100");
    let x20: f64 = ieee(row(20)).parse().unwrap();
    assert!((x20 - 100.0).abs() < 0.01, "{x20}");
    assert!(digits_in(row(5)) >= 9, "{}", row(5));
    assert!(row(5).ends_with("flags [])"), "{}", row(5));
    let lowest = [10, 15, 20].map(|k| digits_in(row(k)));
    assert!(
        lowest.iter().any(|&d| d <= 1),
        "digits never drop: {lowest:?}"
    );
    assert!(lowest[0] >= 2, "{}", row(10));
    // At the end all three samples sit on 100, with the flag of their history.
    assert!(digits_in(row(30)) >= 13, "{}", row(30));
    assert!(row(30).contains("\"division\""), "{}", row(30));
    let kinds = r.report.kind_names();
    assert!(kinds.contains(&"unstable division"), "{}", r.stderr);
    for kind in kinds {
        assert!(
            ["unstable division", "unstable multiplication"].contains(&kind),
            "{kind}: {}",
            r.stderr
        );
    }
    for code in r.report.site_code("") {
        assert!(code.contains("3000.0 / (x1 * x0)"), "{code}");
    }
    assert!(r.report.self_validation_failed);
}

#[test]
fn newton_program() {
    let r = run("newton", &[]);
    let l = line(&r.stdout, "root");
    assert_eq!(
        (ieee(l), stoch(l)),
        ("0.4285714335453048", "4.2857143e-1"),
        "{l}"
    );
    let l = line(&r.stdout, "iterations");
    assert_eq!(ieee(l), "25");
    let n: usize = stoch(l).parse().unwrap();
    assert!((15..25).contains(&n), "DSA stops earlier: {n}");
    assert_eq!(
        r.report.kind_names(),
        ["cancellation", "unstable branching"],
        "{}",
        r.stderr
    );
    for code in r.report.site_code("branching") {
        assert!(code.contains("(y - x).abs() <= tol"), "{code}");
    }
    let cancellations = r.report.site_code("cancellation");
    for inside in ["1.47 * x", "4.41 * x", "(y - x)"] {
        assert!(
            cancellations.iter().any(|c| c.contains(inside)),
            "{inside}: {cancellations:?}"
        );
    }
}

#[test]
fn gauss_program() {
    let r = run("gauss", &[]);
    let l = line(&r.stdout, "a[2][2] (= 0)");
    assert_eq!((ieee(l), stoch(l)), ("4.470348358154297e-6", "@.0"), "{l}");
    // Partial pivoting rejects the noise: the third pivot is 1.7, to all digits.
    let l = line(&r.stdout, "pivot 2");
    assert_eq!((ieee(l), stoch(l)), ("1.7", "1.70000000000000e0"), "{l}");
    assert_eq!(stoch(line(&r.stdout, "x2")), "1.00000000000000e-8");
    for k in [0, 1, 3] {
        let l = line(&r.stdout, &format!("x{k} "));
        let (x, d) = value(stoch(l)).expect(l);
        assert!(d >= 10, "{l}");
        assert!((x - 1.0).abs() < 10f64.powi(1 - d as i32), "{l}");
        let e: f64 = ieee(l).parse().unwrap();
        assert!((e - 1.0).abs() < 1e-11, "{l}");
    }
    assert_eq!(r.report.kind_names(), ["cancellation"], "{}", r.stderr);
    for code in r.report.site_code("") {
        assert!(code.contains("a[i][j] = a[i][j] - m * a[k][j]"), "{code}");
    }
}

#[test]
fn hilbert_program() {
    let r = run("hilbert", &[]);
    let exact = [
        (4, "1.653439e-7"),
        (6, "5.367300e-18"),
        (8, "2.737050e-33"),
        (10, "2.164179e-53"),
        (12, "2.637781e-78"),
    ];
    let mut digits = Vec::new();
    for (n, det) in exact {
        let l = line(&r.stdout, &format!("n = {n:2}"));
        assert_eq!(first(&l[l.find("exact:").unwrap() + 6..]), det, "{l}");
        let (x, d) = value(first(stoch(l))).expect(l);
        assert_eq!(d, digits_in(l), "{l}");
        // The digits shown are exact (to within one unit of the last).
        let det = hilbert::exact_det(n);
        assert!(((x - det) / det).abs() < 10f64.powi(1 - d as i32), "{l}");
        digits.push(d);
    }
    assert!(digits.windows(2).all(|w| w[1] < w[0]), "{digits:?}");
    assert!(digits[0] >= 11 && digits[4] <= 2, "{digits:?}");
    // IEEE is wrong from the second digit at n = 12.
    let l = line(&r.stdout, "n = 12");
    assert!(ieee(l).starts_with("2.84"), "{l}");
    assert_eq!(r.report.kind_names(), ["cancellation"], "{}", r.stderr);
    for code in r.report.site_code("") {
        assert!(code.contains("a[i][j] = a[i][j] - m * a[k][j]"), "{code}");
    }
}

#[test]
fn cancel_sum_program() {
    let r = run("cancel_sum", &[]);
    let l = line(&r.stdout, "sum of 10000");
    assert_eq!((ieee(l), stoch(l)), ("-1.4575195e-1", "@.0"), "{l}");
    assert_eq!(r.report.kind_names(), ["cancellation"], "{}", r.stderr);
    assert!(!r.report.collapses.is_empty(), "{}", r.stderr);
    for c in &r.report.collapses {
        assert!(code_at(&c.0, c.1).contains("s += *x"), "{c:?}");
    }
}

#[test]
fn wave3d_program() {
    let dir = std::env::temp_dir().join(format!("stoch-examples-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let svg = dir.join("digits.svg");
    let _ = std::fs::remove_file(&svg);
    let r = run("wave3d", &["16", "40", svg.to_str().unwrap()]);
    let out = &r.stdout;
    assert!(
        out.starts_with("3-D acoustic wave, 16^3 points, 40 steps"),
        "{out}"
    );
    // 16³ points, of which the 8³ inner points that the wave reached in 40 steps.
    let l = line(out, "points not reached by the wave (exact zeros):");
    assert!(l.ends_with(": 3584"), "{l}");
    assert!(line(out, "exact digits over the").contains(" 512 other points"));
    let hist: Vec<usize> = (0..8)
        .map(|d| {
            let l = line(out, &format!("{d} digits:"));
            l.split_whitespace().nth(2).unwrap().parse().expect(l)
        })
        .collect();
    assert_eq!(hist.iter().sum::<usize>(), 512, "{hist:?}");
    let l = line(out, "mean exact digits:");
    let mean: f64 = l["mean exact digits: ".len()..]
        .split(';')
        .next()
        .unwrap()
        .parse()
        .expect(l);
    let from_hist = (0..8).map(|d| d * hist[d]).sum::<usize>() as f64 / 512.0;
    assert!((mean - from_hist).abs() < 0.006, "{mean} vs {from_hist}");
    assert!((4.5..=6.5).contains(&mean), "{l}");
    let zeros: usize = l.rsplit(": ").next().unwrap().parse().expect(l);
    assert!(l.contains("computed zeros (@.0): "), "{l}");
    assert_eq!(
        zeros, hist[0],
        "a computed zero is a point with 0 digits: {l}"
    );
    assert_eq!(zeros, 0, "{l}");
    assert!(hist[..3].iter().all(|&h| h == 0), "{hist:?}");
    assert_eq!(
        out.matches(" digits)\n").count(),
        3,
        "the paper's points: {out}"
    );
    // The picture: a valid SVG of the 16 × 16 slice, a cell per point plus the legend.
    assert!(
        out.contains(&format!("written to {}", svg.display())),
        "{out}"
    );
    let text = std::fs::read_to_string(&svg).expect("the SVG file");
    assert!(text.starts_with("<svg "), "{text:.200}");
    assert!(text.contains("xmlns=\"http://www.w3.org/2000/svg\""));
    assert!(text.trim_end().ends_with("</svg>"));
    assert_eq!(text.matches("<svg").count(), 1);
    assert_eq!(text.matches("<rect ").count(), 1 + 16 * 16 + 8);
    assert_eq!(r.report.kind_names(), ["cancellation"], "{}", r.stderr);
    for code in r.report.site_code("") {
        assert!(code.contains("self.u[") || code.contains("lap"), "{code}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn wave3d_rejects_bad_arguments() {
    let out = run_raw("wave3d", &["8"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("at least 12 points per side"), "{err}");
    let out = run_raw("wave3d", &["16", "many"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("STEPS must be a whole number, not \\\"many\\\""),
        "{err}"
    );
    assert!(out.stdout.is_empty());
}

// ----- examples/gpu_validate.rs ----------------------------------------------------------------

/// Whether this test process can use a GPU: only with the `gpu` feature (the example is built
/// with this test's features), and only when `stoch_gpu::Gpu::new()` succeeds.
fn usable_gpu() -> Result<(), String> {
    #[cfg(feature = "gpu")]
    {
        stoch_gpu::Gpu::new().map(drop).map_err(|e| e.to_string())
    }
    #[cfg(not(feature = "gpu"))]
    {
        Err("built without the `gpu` feature".to_string())
    }
}

/// `gpu_validate --n 12 --steps 2 --time-n 16` exits with status 0. Without a usable GPU it
/// prints the reason in one line (which reason follows from this test's features) and nothing
/// else of the validation; under `STOCH_REQUIRE_GPU=1` that is a failure. With one it prints the
/// table at three points, the IEEE CPU/GPU comparison and the time per wave step.
#[test]
fn gpu_validate_program() {
    let gpu = usable_gpu();
    if let Err(e) = &gpu {
        assert!(
            std::env::var("STOCH_REQUIRE_GPU").map_or(true, |v| v != "1"),
            "gpu_validate_program: STOCH_REQUIRE_GPU=1 but no usable GPU: {e}"
        );
    }
    let out = common::run(
        "gpu_validate",
        &["--n", "12", "--steps", "2", "--time-n", "16"],
        &[],
    );
    let stdout = common::stdout(&out);
    let stderr = common::stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    match gpu {
        Err(e) => {
            eprintln!("gpu_validate_program: no usable GPU ({e}): checking the reason only");
            let reason = if cfg!(feature = "gpu") {
                "gpu_validate: no GPU to validate on: "
            } else {
                "gpu_validate: built without the `gpu` feature; "
            };
            // The reason in one line, then at most a "nothing to do" line: no validation output.
            let lines: Vec<&str> = stdout.lines().collect();
            assert!(lines[0].starts_with(reason), "{stdout}");
            assert!(
                lines[1..].is_empty() || lines[1..] == ["gpu_validate: nothing to do (exit 0)."],
                "{stdout}"
            );
            assert_eq!(stderr, "");
        }
        Ok(()) => {
            assert!(stdout.starts_with("device: "), "{stdout}");
            assert!(
                stdout.contains("== 3-D acoustic wave, 12x12x12, 2 steps,"),
                "{stdout}"
            );
            let table = line(&stdout, "Results at 3 points");
            assert!(table.contains("exact digits only"), "{table}");
            for row in [
                "IEEE CPU",
                "IEEE GPU",
                "stochastic CPU",
                "stochastic GPU",
                "digits CPU/GPU",
            ] {
                // The label padded to 16 columns, then one value per point (`d / d` digits).
                let label = format!("{row:<16}");
                let rows: Vec<&str> = stdout.lines().filter(|l| l.starts_with(&label)).collect();
                assert_eq!(rows.len(), 1, "{row}: {stdout}");
                let values = rows[0][label.len()..].split_whitespace().count();
                let per_point = if row == "digits CPU/GPU" { 3 } else { 1 };
                assert_eq!(values, 3 * per_point, "{}", rows[0]);
            }
            // The plain stencil is the CPU's binary32 bit for bit, at every point.
            let l = line(&stdout, "IEEE GPU equals IEEE CPU bit for bit");
            let points = 12 * 12 * 12;
            assert!(
                l.ends_with(&format!(" at {points} of {points} points")),
                "{l}"
            );
            let l = line(&stdout, "Time per wave step");
            assert!(l.contains("16^3 points"), "{l}");
            for variant in [
                "plain f32",
                "stochastic, all checks",
                "stochastic, no checks",
            ] {
                line(&stdout, variant);
            }
            assert!(stdout.contains("Matrix product"), "{stdout}");
            assert!(!stdout.contains("no GPU to validate on"), "{stdout}");
        }
    }
}
