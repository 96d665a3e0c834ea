//! What real code prints and what its report says (issue 29): formats with a precision mean
//! what they mean for `f64`, digits of exact zeros and subnormals, the bridge to plain `f64`
//! code, the report at exit whatever the entry point, and sites inside dependencies.

use std::fmt::{Debug, Display};
use std::ops::{Add, Sub};
use std::process::Command;
use std::str::FromStr;
use std::sync::{Mutex, MutexGuard};

use stoch_core::{report, reset, Instability, Sf32, Sf64};

/// The report is process-wide: the tests that count take turns.
fn serial() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

/// A xorshift generator for the seeded property tests (the seed is printed on failure).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

fn seed() -> u64 {
    std::env::var("STOCH_TEST_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x29_2911)
}

/// `{:.p}` with every flag prints exactly what `f64` (or `f32`) prints for the mean.
#[test]
fn precision_formats_print_what_the_sample_type_prints() {
    let _g = serial();
    let seed = seed();
    let mut rng = Rng(seed | 1);
    for i in 0..20_000 {
        let mag = 10f64.powf(rng.unit() * 40.0 - 20.0);
        let v = if rng.next().is_multiple_of(2) {
            mag
        } else {
            -mag
        };
        let spread = [0.0, 1e-15, 1e-9, 1e-3][(rng.next() % 4) as usize];
        let x = Sf64::from_samples([v * (1.0 - spread), v, v * (1.0 + spread * 0.5)]);
        let m = x.to_f64();
        let (w, p) = ((rng.next() % 30) as usize, (rng.next() % 25) as usize);
        let cases = [
            (format!("{x:.p$}"), format!("{m:.p$}")),
            (format!("{x:w$.p$}"), format!("{m:w$.p$}")),
            (format!("{x:+<w$.p$}"), format!("{m:+<w$.p$}")),
            (format!("{x:*^w$.p$}"), format!("{m:*^w$.p$}")),
            (format!("{x:0w$.p$}"), format!("{m:0w$.p$}")),
            (format!("{x:.p$e}"), format!("{m:.p$e}")),
            (format!("{x:>+w$.p$E}"), format!("{m:>+w$.p$E}")),
        ];
        for (got, want) in cases {
            assert_eq!(got, want, "seed {seed}, case {i}: {x:?} w={w} p={p}");
        }
        let y = Sf32::new(v as f32);
        let m32 = v as f32;
        assert_eq!(
            format!("{y:w$.p$}"),
            format!("{m32:w$.p$}"),
            "seed {seed}, case {i} (f32)"
        );
    }
    reset();
}

/// Exact zeros: `{:.4}` prints four decimals, and `digits()` is the type's maximum.
#[test]
fn exact_zero_honours_the_precision_and_has_every_digit() {
    let _g = serial();
    let z = Sf64::new(1.5) - Sf64::new(1.5);
    assert!(z.is_exact_zero());
    assert_eq!(format!("{z:.4}"), "0.0000");
    assert_eq!(format!("{z:8.2}"), "    0.00");
    assert_eq!(format!("{:.3e}", Sf32::new(0.0)), "0.000e0");
    assert_eq!(z.digits(), 15);
    assert_eq!(Sf32::new(0.0).digits(), 7);
    assert!(z.is_computed_zero() && !z.is_numerical_noise());
    // `{}` keeps printing the exact digits only.
    assert_eq!(format!("{z}"), "0.00000000000000e0");
}

/// Rounding to `d` decimals through text and back (as Rosetta Code's Kahan summation task
/// does), written once for any number type.
fn round_through_text<T>(x: T, d: usize) -> T
where
    T: Display + FromStr,
    T::Err: Debug,
{
    format!("{x:.d$}")
        .parse()
        .expect("formatted text parses back")
}

/// The task's terms: π and e to six digits, as the task writes them.
#[allow(clippy::approx_constant)]
const TERMS: [f64; 3] = [10000.0, 3.14159, 2.71828];

/// Naive and compensated sums of `10000.0 + 3.14159 + 2.71828`, every step kept to `d`
/// decimals through text.
fn kahan_demo<T>(terms: &[T], zero: T, d: usize) -> (T, T)
where
    T: Copy + Display + FromStr + Add<Output = T> + Sub<Output = T>,
    T::Err: Debug,
{
    let naive = terms
        .iter()
        .fold(zero, |s, &t| round_through_text(s + t, d));
    let (mut sum, mut c) = (zero, zero);
    for &t in terms {
        let y = round_through_text(t - c, d);
        let s = round_through_text(sum + y, d);
        c = round_through_text(round_through_text(s - sum, d) - y, d);
        sum = s;
    }
    (naive, sum)
}

/// Format-then-parse gives what the plain program gives, to within the exact digits (before
/// the fix, `{:.1}` meant one significant digit and the sums came out as 1e4).
#[test]
fn format_then_parse_round_trips_like_the_plain_program() {
    let _g = serial();
    let plain: (f64, f64) = kahan_demo(&TERMS, 0.0, 1);
    let terms = TERMS.map(Sf64::new);
    let stoch = kahan_demo(&terms, Sf64::new(0.0), 1);
    assert!(plain.0 > 10005.0 && plain.1 > 10005.0, "{plain:?}");
    for (s, p) in [(stoch.0, plain.0), (stoch.1, plain.1)] {
        let d = s.digits();
        assert!(d >= 5, "{s:?}");
        let tol = p.abs() * 10f64.powi(1 - d as i32);
        assert!((s.to_f64() - p).abs() <= tol, "{s} against {p}");
        assert_eq!(format!("{s:.1}"), format!("{p:.1}"));
    }
    reset();
}

/// Printing never claims more digits than `digits()`: a subnormal holds fewer.
#[test]
fn subnormals_print_only_the_digits_they_hold() {
    let _g = serial();
    let x = Sf64::new(5.23704643935263e-319);
    assert_eq!(x.digits(), 5);
    assert_eq!(format!("{x}"), "5.2370e-319");
    // Computed into the subnormal range: still no more digits than digits().
    let y = Sf64::new(1e-300) * Sf64::new(5.237e-19);
    let shown = format!("{y:e}");
    let mantissa = shown.split('e').next().unwrap().replace(['.', '-'], "");
    assert!(
        mantissa.len() as u32 <= y.digits(),
        "{shown} with {} digits",
        y.digits()
    );
    assert!(y.digits() <= 5, "{y:?}");
    reset();
}

/// Digits printed beyond the exact ones are counted in the report, with the first example.
#[test]
fn inexact_printing_is_reported() {
    let _g = serial();
    reset();
    let two = Sf64::from_samples([0.330, 0.334, 0.338]);
    assert_eq!(two.digits(), 2);
    assert_eq!(format!("{two:.2}"), "0.33");
    assert_eq!(report().inexact_prints(), 0);
    assert_eq!(format!("{two:.6}"), "0.334000");
    let r = report();
    assert_eq!(r.inexact_prints(), 1);
    let first = r.inexact_print_first().unwrap();
    assert!(
        first.contains("0.334000") && first.contains("exact digits: 2"),
        "{first}"
    );
    assert!(r
        .to_string()
        .contains("1 value printed with more digits than exact"));
    reset();
}

/// A plain `fn(f64) -> f64` written by someone else (Abramowitz and Stegun 7.1.26).
fn plain_erf(x: f64) -> f64 {
    let t = 1.0 / (1.0 + 0.3275911 * x.abs());
    let poly = t
        * (0.254829592
            + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
    let y = 1.0 - poly * (-x * x).exp();
    if x < 0.0 {
        -y
    } else {
        y
    }
}

/// The bridge keeps the estimate: applied per sample, randomly rounded, so a value with few
/// exact digits keeps few, where `to_f64()` would claim them all.
#[test]
fn plain_functions_are_called_per_sample() {
    let _g = serial();
    let exact = Sf64::new(0.5);
    let e = exact.map_plain(plain_erf);
    let w = plain_erf(0.5);
    for s in e.samples() {
        assert!(s == w.next_up() || s == w.next_down(), "{s} vs {w}");
    }
    assert!(e.digits() >= 14);
    let rough = Sf64::from_samples([0.4999, 0.5, 0.5001]);
    let r = rough.map_plain(plain_erf);
    assert!(r.digits() <= rough.digits() + 1 && r.digits() >= 3, "{r:?}");
    assert!((r.to_f64() - w).abs() < 1e-3);
    // Noise in, MathFunction recorded at this line, as for the library's own functions.
    reset();
    let noise = Sf64::from_samples([1e-17, -2e-17, 3e-17]);
    let n = noise.map_plain(plain_erf);
    assert!(n.flags().contains(Instability::MathFunction));
    let rep = report();
    assert_eq!(rep.count(Instability::MathFunction), 1);
    assert!(
        rep.sites()[0].file.ends_with("output_and_report.rs"),
        "{rep}"
    );
    reset();
}

/// Instabilities inside a dependency (num-traits' generic `pow`) are named by the crate and its
/// path, not an absolute path of this machine, with the user's line that led there.
#[test]
fn dependency_sites_are_readable_and_name_the_users_line() {
    let _g = serial();
    reset();
    let noise = Sf64::from_samples([1e-17, -2e-17, 3e-17]);
    let line = line!() + 1;
    let _ = num_traits::pow(noise, 2);
    let r = report();
    assert!(r.count(Instability::Multiplication) >= 1, "{r}");
    let site = r
        .sites()
        .iter()
        .find(|s| s.kind == Instability::Multiplication)
        .unwrap();
    assert!(site.file.starts_with("num-traits-0.2."), "{}", site.file);
    assert!(site.file.ends_with("src/pow.rs"), "{}", site.file);
    assert!(!site.file.starts_with('/'), "{}", site.file);
    let via = site
        .via
        .as_deref()
        .expect("the user's line (tests have line tables)");
    assert!(
        via.starts_with(&format!("tests/output_and_report.rs:{line}:")),
        "{via}"
    );
    let text = r.to_string();
    assert!(
        text.contains(&format!("(from tests/output_and_report.rs:{line}:")),
        "{text}"
    );
    reset();
}

/// The child half of the exit-report tests: records instabilities and returns from an
/// unannotated entry point without calling `finish()`.
#[test]
fn exit_report_child() {
    let Ok(mode) = std::env::var("STOCH_TEST_EXIT_CHILD") else {
        return;
    };
    if mode == "report_false" {
        // What `#[stochastic(report = false)]` on `main` does first.
        drop(stoch_core::__private::main_prologue(false));
    }
    let noise = Sf64::from_samples([1e-17, -2e-17, 3e-17]);
    if mode == "dependency" {
        let _ = num_traits::pow(noise, 2);
        return;
    }
    let _ = Sf64::new(1.0) / noise;
}

/// Runs [`exit_report_child`] in a new process with `env`, and returns its stderr.
fn child_stderr(env: &[(&str, &str)]) -> String {
    child_stderr_in(env, None)
}

/// [`child_stderr`] in the directory `dir`.
fn child_stderr_in(env: &[(&str, &str)], dir: Option<&std::path::Path>) -> String {
    let exe = std::env::current_exe().unwrap();
    let mut cmd = Command::new(exe);
    if let Some(d) = dir {
        cmd.current_dir(d);
    }
    cmd.args([
        "--exact",
        "exit_report_child",
        "--nocapture",
        "--test-threads=1",
    ]);
    cmd.env_remove("STOCH_REPORT");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "{out:?}");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A run that recorded instabilities ends with its report whatever its entry point, unless
/// told not to (`STOCH_REPORT=off`, `report = false`).
#[test]
fn the_report_is_printed_at_exit_whatever_the_entry_point() {
    let err = child_stderr(&[("STOCH_TEST_EXIT_CHILD", "plain")]);
    assert!(err.contains("1 numerical instability detected"), "{err}");
    assert!(err.contains("unstable division"), "{err}");
    assert_eq!(
        err.matches("Discrete Stochastic Arithmetic").count(),
        1,
        "{err}"
    );
    let off = child_stderr(&[("STOCH_TEST_EXIT_CHILD", "plain"), ("STOCH_REPORT", "off")]);
    assert!(!off.contains("instability"), "{off}");
    let no = child_stderr(&[("STOCH_TEST_EXIT_CHILD", "report_false")]);
    assert!(!no.contains("instability"), "{no}");
}

/// Branchings at a site already met are counted inline: counts stay exact, and a hook still
/// sees every event.
#[test]
fn seen_sites_count_exactly_and_hooks_see_every_event() {
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::Arc;
    let _g = serial();
    reset();
    let a = Sf64::from_samples([1.0 + 1e-12, 1.0 - 1e-12, 1.0 + 3e-13]);
    let b = Sf64::new(1.0);
    let compare = |n: usize| (0..n).filter(|_| a < b).count();
    let line = line!() - 1;
    compare(1000);
    let seen = Arc::new(AtomicU64::new(0));
    let s = Arc::clone(&seen);
    stoch_core::set_hook(move |e| {
        if e.kind == Instability::Branching {
            s.fetch_add(1, Ordering::Relaxed);
        }
    });
    compare(10);
    stoch_core::clear_hook();
    compare(5);
    assert_eq!(seen.load(Ordering::Relaxed), 10);
    let r = report();
    assert_eq!(r.count(Instability::Branching), 1015, "{r}");
    let site = &r.sites()[0];
    assert_eq!((site.line, site.count), (line, 1015), "{r}");
    reset();
}

/// The user's line of a dependency site is found also when the program runs from another
/// directory than its workspace (the stack then names the user's files by absolute paths).
#[test]
fn the_users_line_is_found_from_another_directory() {
    let dir = std::env::temp_dir();
    let err = child_stderr_in(&[("STOCH_TEST_EXIT_CHILD", "dependency")], Some(&dir));
    assert!(err.contains("unstable multiplication"), "{err}");
    let site = err
        .lines()
        .find(|l| l.contains("src/pow.rs"))
        .unwrap_or_else(|| panic!("{err}"));
    assert!(site.trim_start().starts_with("num-traits-0.2."), "{site}");
    assert!(
        site.contains("(from ") && site.contains("output_and_report.rs:"),
        "{site}"
    );
}
