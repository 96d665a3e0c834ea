//! Instability detection (DESIGN §4, issue 3): every kind on both sides of its boundary, with its
//! count and the source line it is attributed to; sticky flags; switching kinds off; the bound
//! on sites; the hook; `panic_on`; accuracy collapses.
//!
//! The report is process-wide and the tests of one binary run on parallel threads, so every test
//! takes [`LOCK`] and starts from [`reset`].
//!
//! Operand values are built with `from_samples`, so that whether a check fires never depends on
//! the random rounding. Numerical noise is a computed zero that is not an exact zero:
//! `Σ(R_i − m)² > K·m²` with `K = 0.6/τ²` (≈ 0.0324); for samples `(1 − d, 1, 1 + d)` the
//! boundary is `d = √(K/2)` ≈ 0.1273, and `spread(1.01)` / `spread(0.99)` sit just above and just
//! below it.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use num_traits::ToPrimitive;
use stoch_core::{
    clear_hook, report, reset, set_hook, Config, Instability, ReportMode, Sf32, Sf64, TAU_95,
};

static LOCK: Mutex<()> = Mutex::new(());

/// Serialises the tests, applies `cfg` (report off) and clears the counters.
fn setup(cfg: Config) -> MutexGuard<'static, ()> {
    let guard = LOCK.lock().unwrap_or_else(PoisonError::into_inner);
    clear_hook();
    cfg.report(ReportMode::Off).apply();
    reset();
    guard
}

fn defaults() -> MutexGuard<'static, ()> {
    setup(Config::default())
}

/// Half-width of `(1 − d, 1, 1 + d)` at the computed-zero threshold.
fn edge() -> f64 {
    (0.6 / (TAU_95 * TAU_95) / 2.0).sqrt()
}

/// Samples `(1 − d, 1, 1 + d)` with `d = factor · edge()`.
fn spread(factor: f64) -> Sf64 {
    let d = factor * edge();
    Sf64::from_samples([1.0 - d, 1.0, 1.0 + d])
}

fn spread32(factor: f64) -> Sf32 {
    let d = (factor * edge()) as f32;
    Sf32::from_samples([1.0 - d, 1.0, 1.0 + d])
}

/// Numerical noise just beyond the threshold (mean 1, 0 digits).
fn noise() -> Sf64 {
    spread(1.01)
}

/// Just inside the threshold: one significant digit, not a computed zero.
fn almost() -> Sf64 {
    spread(0.99)
}

/// Noise around zero, as a cancellation leaves it.
fn tiny_noise() -> Sf64 {
    Sf64::from_samples([1e-17, -1e-17, 2e-17])
}

/// Exactly one instability in the report, of `kind`, at `line` of this file.
#[track_caller]
fn assert_one(kind: Instability, line: u32) {
    assert_count(kind, line, 1);
}

/// `n` instabilities in the report, all of `kind`, all at `line` of this file.
#[track_caller]
fn assert_count(kind: Instability, line: u32, n: u64) {
    let r = report();
    assert_eq!(r.count(kind), n, "{r}");
    assert_eq!(r.total(), n, "{r}");
    let sites = r.sites();
    assert_eq!(sites.len(), 1, "{r}");
    let s = &sites[0];
    assert_eq!(s.kind, kind, "{r}");
    assert_eq!(s.line, line, "{r}");
    assert!(s.file.ends_with("instabilities.rs"), "{r}");
    assert!(s.column > 0, "{r}");
    assert_eq!(s.count, n, "{r}");
}

/// No instability at all.
#[track_caller]
fn assert_none() {
    let r = report();
    assert_eq!(r.total(), 0, "{r}");
    assert!(r.sites().is_empty(), "{r}");
}

// ---------------------------------------------------------------------------------------------
// The operands themselves.

#[test]
fn operands_sit_on_both_sides_of_the_threshold() {
    let _g = defaults();
    assert!(noise().is_computed_zero());
    assert_eq!(noise().digits(), 0);
    assert!(!almost().is_computed_zero());
    assert_eq!(almost().digits(), 1);
    assert!(spread32(1.01).is_computed_zero());
    assert!(!spread32(0.99).is_computed_zero());
    assert!(tiny_noise().is_computed_zero());
    assert_eq!(Sf64::new(0.0).digits(), 15);
    // Σ(R−m)² against 0.0324·m², from the definition.
    let s = noise().samples();
    let m = (s[0] + s[1] + s[2]) / 3.0;
    let ss: f64 = s.iter().map(|x| (x - m) * (x - m)).sum();
    assert!(ss > 0.0324 * m * m);
    let s = almost().samples();
    let ss: f64 = s.iter().map(|x| (x - 1.0) * (x - 1.0)).sum();
    assert!(ss < 0.0325);
    assert_none();
}

// ---------------------------------------------------------------------------------------------
// Division: the divisor is numerical noise.

#[test]
fn division_by_noise_fires() {
    let _g = defaults();
    let (q, l) = (Sf64::ONE / noise(), line!());
    assert_one(Instability::Division, l);
    assert!(q.flags().contains(Instability::Division));
    assert!(report().self_validation_failed());
}

#[test]
fn division_by_noise_fires_f32() {
    let _g = defaults();
    let (q, l) = (Sf32::ONE / spread32(1.01), line!());
    assert_one(Instability::Division, l);
    assert!(q.flags().contains(Instability::Division));
}

#[test]
fn division_forms_are_attributed_to_their_line() {
    let _g = defaults();
    let (_, l) = (2.0 / tiny_noise(), line!());
    assert_one(Instability::Division, l);
    reset();
    let (_, l) = (tiny_noise().recip(), line!());
    assert_one(Instability::Division, l);
    reset();
    let mut x = Sf64::new(3.0);
    let l = line!() + 1;
    x /= tiny_noise();
    assert_one(Instability::Division, l);
    assert!(x.flags().contains(Instability::Division));
    reset();
    let n = tiny_noise();
    #[allow(clippy::op_ref)] // the by-reference operator is what is tested
    let (_, l) = (Sf64::ONE / &n, line!());
    assert_one(Instability::Division, l);
}

#[test]
fn division_does_not_fire_below_the_threshold() {
    let _g = defaults();
    let q = Sf64::ONE / almost();
    assert!(q.flags().is_empty());
    let _ = Sf32::ONE / spread32(0.99);
    // An exact zero divisor is IEEE division by zero, not an instability.
    let q = Sf64::ONE / Sf64::new(0.0);
    assert_eq!(q.samples(), [f64::INFINITY; 3]);
    let _ = Sf64::ONE / Sf64::new(-0.0);
    // A noise numerator is not checked; a plain divisor is exact.
    let _ = noise() / Sf64::new(3.0);
    let _ = tiny_noise() / 3.0;
    let _ = Sf64::ONE / Sf64::new(1e-300);
    assert_none();
    assert!(!report().self_validation_failed());
}

// ---------------------------------------------------------------------------------------------
// Multiplication: both operands stochastic and both numerical noise.

#[test]
fn multiplication_of_two_noises_fires() {
    let _g = defaults();
    let (p, l) = (noise() * tiny_noise(), line!());
    assert_one(Instability::Multiplication, l);
    assert!(p.flags().contains(Instability::Multiplication));
    assert!(report().self_validation_failed());
    reset();
    let (_, l) = (spread32(1.01) * spread32(1.5), line!());
    assert_one(Instability::Multiplication, l);
    reset();
    let mut x = noise();
    let l = line!() + 1;
    x *= noise();
    assert_one(Instability::Multiplication, l);
}

#[test]
fn multiplication_in_mul_add_fires() {
    let _g = defaults();
    let (r, l) = (noise().mul_add(noise(), Sf64::new(10.0)), line!());
    assert_one(Instability::Multiplication, l);
    assert!(r.flags().contains(Instability::Multiplication));
}

#[test]
fn multiplication_does_not_fire_with_a_significant_or_plain_operand() {
    let _g = defaults();
    let _ = noise() * almost();
    let _ = almost() * almost();
    let _ = tiny_noise() * Sf64::new(3.0);
    let _ = tiny_noise() * Sf64::new(0.0);
    let _ = tiny_noise() * 3.0;
    let _ = 3.0 * tiny_noise();
    let _ = spread32(1.01) * spread32(0.99);
    let _ = noise().mul_add(almost(), Sf64::new(10.0));
    assert_none();
}

// ---------------------------------------------------------------------------------------------
// Power: base or exponent of powf/powi is numerical noise.

#[test]
fn power_with_a_noise_base_or_exponent_fires() {
    let _g = defaults();
    let (p, l) = (noise().powi(3), line!());
    assert_one(Instability::Power, l);
    assert!(p.flags().contains(Instability::Power));
    assert!(report().self_validation_failed());
    reset();
    let (_, l) = (noise().powi(-2), line!());
    assert_one(Instability::Power, l);
    reset();
    let (_, l) = (noise().powf(Sf64::new(2.5)), line!());
    assert_one(Instability::Power, l);
    reset();
    let (_, l) = (Sf64::new(2.0).powf(noise()), line!());
    assert_one(Instability::Power, l);
    reset();
    let (_, l) = (noise().powf_scalar(0.5), line!());
    assert_one(Instability::Power, l);
    reset();
    let (_, l) = (spread32(1.01).powi(2), line!());
    assert_one(Instability::Power, l);
}

#[test]
fn power_does_not_fire_below_the_threshold() {
    let _g = defaults();
    let _ = almost().powi(3);
    let _ = almost().powf(almost());
    let _ = Sf64::new(2.0).powf(Sf64::new(0.5));
    let _ = Sf64::new(0.0).powi(2);
    let _ = spread32(0.99).powi(2);
    assert_none();
}

// ---------------------------------------------------------------------------------------------
// MathFunction: the argument is numerical noise; is_nan-style tests whose samples disagree.

#[test]
fn math_function_of_noise_fires_for_every_function() {
    let _g = defaults();
    // `noise()` is positive (samples about 0.87 to 1.13): every function is defined there.
    type Case = (fn(Sf64) -> Sf64, u32);
    let cases: [Case; 21] = [
        (|x| x.sqrt(), line!()),
        (|x| x.exp(), line!()),
        (|x| x.exp2(), line!()),
        (|x| x.exp_m1(), line!()),
        (|x| x.ln(), line!()),
        (|x| x.ln_1p(), line!()),
        (|x| x.log2(), line!()),
        (|x| x.log10(), line!()),
        (|x| x.cbrt(), line!()),
        (|x| x.sin(), line!()),
        (|x| x.cos(), line!()),
        (|x| x.tan(), line!()),
        (|x| (x * 0.5).asin(), line!()),
        (|x| (x * 0.5).acos(), line!()),
        (|x| x.atan(), line!()),
        (|x| x.sinh(), line!()),
        (|x| x.cosh(), line!()),
        (|x| x.tanh(), line!()),
        (|x| x.asinh(), line!()),
        (|x| (x * 2.0).acosh(), line!()),
        (|x| (x * 0.5).atanh(), line!()),
    ];
    for (f, l) in cases {
        reset();
        let r = f(noise());
        assert_one(Instability::MathFunction, l);
        assert!(r.flags().contains(Instability::MathFunction));
        reset();
        let r = f(almost());
        assert_none();
        assert!(r.flags().is_empty());
    }
}

#[test]
fn math_function_of_noise_fires_f32() {
    let _g = defaults();
    let (_, l) = (spread32(1.01).exp(), line!());
    assert_one(Instability::MathFunction, l);
    reset();
    let _ = spread32(0.99).exp();
    let _ = Sf32::new(0.0).exp();
    assert_none();
}

#[test]
fn math_function_of_an_exact_zero_does_not_fire() {
    let _g = defaults();
    let _ = Sf64::new(0.0).sqrt();
    let _ = Sf64::new(0.0).exp();
    let _ = Sf64::new(0.0).sin();
    assert_none();
}

#[test]
fn two_argument_math_functions() {
    let _g = defaults();
    let (_, l) = (tiny_noise().atan2(tiny_noise()), line!());
    assert_one(Instability::MathFunction, l);
    reset();
    let (_, l) = (noise().hypot(noise()), line!());
    assert_one(Instability::MathFunction, l);
    reset();
    let (_, l) = (Sf64::new(8.0).log(noise() * 2.0), line!());
    assert_one(Instability::MathFunction, l);
    reset();
    // One significant argument gives a meaningful angle or length.
    let _ = tiny_noise().atan2(Sf64::new(1.0));
    let _ = noise().hypot(almost());
    let _ = Sf64::new(8.0).log(Sf64::new(2.0));
    assert_none();
}

#[test]
fn float_tests_whose_samples_disagree_fire() {
    let _g = defaults();
    let x = Sf64::from_samples([f64::NAN, 1.0, 1.0]);
    let (b, l) = (x.is_nan(), line!());
    assert!(b);
    assert_one(Instability::MathFunction, l);
    reset();
    let y = Sf64::from_samples([f64::INFINITY, 1.0, 1.0]);
    let (b, l) = (y.is_finite(), line!());
    assert!(!b);
    assert_one(Instability::MathFunction, l);
    reset();
    let (b, l) = (y.is_infinite(), line!());
    assert!(b);
    assert_one(Instability::MathFunction, l);
    reset();
    // Samples that agree, even on NaN, are not unstable.
    assert!(Sf64::NAN.is_nan());
    assert!(!Sf64::NAN.is_finite());
    assert!(!noise().is_nan());
    assert!(noise().is_finite());
    assert!(!tiny_noise().is_infinite());
    assert!(Sf64::INFINITY.is_infinite());
    assert_none();
}

// ---------------------------------------------------------------------------------------------
// Branching: an ordering comparison whose difference is numerical noise.

/// `(2 − d, 2, 2 + d)`: its difference with an exact 1 is `spread(factor)`, computed exactly.
fn two(factor: f64) -> Sf64 {
    let d = factor * edge();
    Sf64::from_samples([2.0 - d, 2.0, 2.0 + d])
}

#[test]
fn branching_on_a_noise_difference_fires() {
    let _g = defaults();
    let one = Sf64::new(1.0);
    // The difference is noise: the values are stochastically equal and the branch is unstable.
    let (b, l) = (two(1.01) > one, line!());
    assert!(!b);
    assert_one(Instability::Branching, l);
    reset();
    let (b, l) = (two(1.01) >= one, line!());
    assert!(b);
    assert_one(Instability::Branching, l);
    reset();
    let (b, l) = (one < two(1.01), line!());
    assert!(!b);
    assert_one(Instability::Branching, l);
    reset();
    let (b, l) = (one <= two(1.01), line!());
    assert!(b);
    assert_one(Instability::Branching, l);
    reset();
    let (o, l) = (two(1.01).partial_cmp(&one), line!());
    assert_eq!(o, Some(std::cmp::Ordering::Equal));
    assert_one(Instability::Branching, l);
    reset();
    let (_, l) = (tiny_noise() > 0.0, line!());
    assert_one(Instability::Branching, l);
    reset();
    let (_, l) = (spread32(1.01) < 0.0, line!());
    assert_one(Instability::Branching, l);
}

#[test]
fn branching_in_min_max_clamp_is_attributed_to_the_call() {
    let _g = defaults();
    let branching = |v: Sf64| v.flags().contains(Instability::Branching);
    // `two(1.01) − 1` is noise: the choice depends on round-off. Recorded at the call, and the
    // chosen value carries the flag.
    let (m, l) = (two(1.01).max(Sf64::ONE), line!());
    assert_one(Instability::Branching, l);
    assert!(branching(m));
    reset();
    let (m, l) = (two(1.01).min(Sf64::ONE), line!());
    assert_one(Instability::Branching, l);
    assert!(branching(m));
    reset();
    // The operand order does not matter.
    let (m, l) = (Sf64::ONE.max(two(1.01)), line!());
    assert_one(Instability::Branching, l);
    assert!(branching(m));
    reset();
    // `self < lo` is unstable; `self > hi` is not.
    let (c, l) = (tiny_noise().clamp(Sf64::new(0.0), Sf64::ONE), line!());
    assert_one(Instability::Branching, l);
    assert!(branching(c));
    reset();
    // Both comparisons of clamp are unstable: two events at the call, one flag.
    let (c, l) = (Sf64::ONE.clamp(two(1.01), two(1.01)), line!());
    assert_count(Instability::Branching, l, 2);
    assert!(branching(c));
    reset();
    // A significant difference: no event, no flag; an exact tie neither.
    for v in [
        two(0.99).max(Sf64::ONE),
        two(0.99).min(Sf64::ONE),
        Sf64::ONE.max(Sf64::ONE),
        Sf64::new(0.5).clamp(Sf64::new(0.0), Sf64::ONE),
        two(0.99).clamp(Sf64::new(0.0), Sf64::ONE),
    ] {
        assert!(!branching(v), "{v:?}");
    }
    assert_eq!(report().total(), 0, "{}", report());
    // With Branching detection off, neither an event nor a flag.
    Config::default()
        .disable(Instability::Branching)
        .report(ReportMode::Off)
        .apply();
    reset();
    assert!(!branching(two(1.01).max(Sf64::ONE)));
    assert!(!branching(tiny_noise().clamp(Sf64::new(0.0), Sf64::ONE)));
    assert_eq!(report().total(), 0, "{}", report());
    Config::default().report(ReportMode::Off).apply();
}

#[test]
fn branching_does_not_fire_on_a_significant_or_exact_difference() {
    let _g = defaults();
    let one = Sf64::new(1.0);
    // One significant digit in the difference: a reliable branch.
    assert!(two(0.99) > one);
    assert!(two(0.99) >= one);
    assert!(one < two(0.99));
    assert!(one <= two(0.99));
    // An exact zero difference: equal, and not an unstable branch.
    assert!(one >= Sf64::new(1.0));
    let greater = one > Sf64::new(1.0);
    assert!(!greater);
    assert!(Sf64::new(0.0) <= 0.0);
    // Equality tests never fire.
    assert!(two(1.01) == one);
    assert!(tiny_noise() == 0.0);
    assert!(!(tiny_noise() != 0.0));
    assert_none();
}

// ---------------------------------------------------------------------------------------------
// Intrinsic: abs/signum of both signs; floor ceil round trunc fract and integer casts that differ
// per sample.

#[test]
fn abs_and_signum_of_both_signs_fire() {
    let _g = defaults();
    let (a, l) = (tiny_noise().abs(), line!());
    assert_one(Instability::Intrinsic, l);
    assert!(a.flags().contains(Instability::Intrinsic));
    assert_eq!(a.samples(), [1e-17, 1e-17, 2e-17]);
    reset();
    let (s, l) = (tiny_noise().signum(), line!());
    assert_one(Instability::Intrinsic, l);
    assert_eq!(s.samples(), [1.0, -1.0, 1.0]);
    reset();
    let (_, l) = (Sf32::from_samples([-1e-9, 1e-9, 1e-9]).abs(), line!());
    assert_one(Instability::Intrinsic, l);
}

#[test]
fn abs_and_signum_of_one_sign_do_not_fire() {
    let _g = defaults();
    let _ = Sf64::from_samples([-1.0, -1.1, -0.9]).abs();
    let _ = Sf64::from_samples([1e-17, 3e-17, 2e-17]).abs();
    let _ = Sf64::from_samples([-1e-17, -3e-17, -2e-17]).signum();
    // A zero sample has no sign for abs.
    let _ = Sf64::from_samples([0.0, 1e-17, 2e-17]).abs();
    let _ = noise().abs();
    assert_none();
}

/// Samples on both sides of 3.
fn near3() -> Sf64 {
    Sf64::from_samples([2.999_999_9, 3.000_000_1, 3.0])
}

/// Samples on both sides of 2.5.
fn near_half() -> Sf64 {
    Sf64::from_samples([2.499_999_9, 2.500_000_1, 2.5])
}

#[test]
fn rounding_functions_whose_samples_differ_fire() {
    let _g = defaults();
    let cases: [(fn() -> Sf64, u32); 5] = [
        (|| near3().floor(), line!()),
        (|| near3().ceil(), line!()),
        (|| near_half().round(), line!()),
        (|| near3().trunc(), line!()),
        (|| near3().fract(), line!()),
    ];
    for (f, l) in cases {
        reset();
        let r = f();
        assert_one(Instability::Intrinsic, l);
        assert!(r.flags().contains(Instability::Intrinsic));
    }
    reset();
    // Same operands, functions whose per-sample results agree.
    assert_eq!(near3().round().samples(), [3.0; 3]);
    assert_eq!(near_half().floor().samples(), [2.0; 3]);
    assert_eq!(near_half().trunc().samples(), [2.0; 3]);
    assert_eq!(near_half().ceil().samples(), [3.0; 3]);
    let _ = near_half().fract();
    let _ = Sf64::from_samples([3.1, 3.2, 3.3]).floor();
    let _ = Sf32::from_samples([3.1, 3.2, 3.3]).ceil();
    assert_none();
}

#[test]
fn integer_casts_whose_samples_differ_fire() {
    let _g = defaults();
    let x = near3();
    let (i, l) = (x.to_i64(), line!());
    assert_eq!(i, Some(3));
    assert_one(Instability::Intrinsic, l);
    reset();
    let (_, l) = (x.to_u64(), line!());
    assert_one(Instability::Intrinsic, l);
    reset();
    let y = Sf64::from_samples([3.1, 3.2, 3.3]);
    assert_eq!(y.to_i64(), Some(3));
    assert_eq!(y.to_u64(), Some(3));
    assert_none();
}

/// `to_i32`, `to_u8`, ... are `ToPrimitive`'s provided methods, which call `to_i64` from
/// num-traits' own source: the site is then a line of num-traits (see /tmp/core-bugs.md).
#[test]
fn narrow_integer_casts_are_attributed_to_their_line() {
    let _g = defaults();
    let x = Sf64::from_samples([2.999_999_9, 3.000_000_1, 3.0]);
    let (i, l) = (x.to_i32(), line!());
    assert_eq!(i, Some(3));
    assert_one(Instability::Intrinsic, l);
}

#[test]
fn sign_tests_whose_samples_disagree_fire() {
    let _g = defaults();
    let (_, l) = (tiny_noise().is_sign_positive(), line!());
    assert_one(Instability::Intrinsic, l);
    reset();
    let (_, l) = (tiny_noise().is_sign_negative(), line!());
    assert_one(Instability::Intrinsic, l);
    reset();
    assert!(noise().is_sign_positive());
    assert!((-noise()).is_sign_negative());
    assert_none();
}

#[test]
fn remainder_whose_quotients_differ_fires() {
    let _g = defaults();
    let x = Sf64::from_samples([5.999_999_9, 6.000_000_1, 6.0]);
    let (_, l) = (x % Sf64::new(2.0), line!());
    assert_one(Instability::Intrinsic, l);
    reset();
    let _ = Sf64::from_samples([6.5, 6.6, 6.4]) % Sf64::new(2.0);
    assert_none();
}

// ---------------------------------------------------------------------------------------------
// Cancellation: min(digits(a), digits(b)) − digits(a ± b) ≥ cancel_level (default 4).

/// `(1 − 10⁻¹⁰, 1, 1 + 10⁻¹⁰)`: C = 10 − 0.395, 10 digits.
fn ten_digits() -> Sf64 {
    Sf64::from_samples([1.0 - 1e-10, 1.0, 1.0 + 1e-10])
}

#[test]
fn cancellation_operands_have_the_intended_digits() {
    let _g = defaults();
    assert_eq!(ten_digits().digits(), 10);
    // Sterbenz: the subtractions are exact, so the spread stays 10⁻¹⁰ and the digits drop by
    // log10 of the ratio of magnitudes: 4 digits at 10⁻⁴, 3 at 10⁻³.
    let detect_off = Config::default().detect_all(false).report(ReportMode::Off);
    detect_off.apply();
    assert_eq!((ten_digits() - Sf64::new(0.9999)).digits(), 6);
    assert_eq!((ten_digits() - Sf64::new(0.999)).digits(), 7);
    assert_eq!((ten_digits() - Sf64::new(0.99999)).digits(), 5);
    let a = spread32(0.0); // exact 1
    assert_eq!(a.digits(), 7);
    assert_eq!(f32_six().digits(), 6);
    assert_eq!((f32_six() - Sf32::new(0.9999)).digits(), 2);
    assert_eq!((f32_six() - Sf32::new(0.999)).digits(), 3);
    assert_none();
}

/// An `f32` value with 6 exact digits.
fn f32_six() -> Sf32 {
    Sf32::from_samples([1.0 - 1e-6, 1.0, 1.0 + 1e-6])
}

#[test]
fn cancellation_of_exactly_four_digits_fires() {
    let _g = defaults();
    let (r, l) = (ten_digits() - Sf64::new(0.9999), line!());
    assert_eq!(r.digits(), 6);
    assert_one(Instability::Cancellation, l);
    assert!(r.flags().contains(Instability::Cancellation));
    assert!(!report().self_validation_failed());
    reset();
    let (_, l) = (ten_digits() + Sf64::new(-0.9999), line!());
    assert_one(Instability::Cancellation, l);
    reset();
    let (_, l) = (Sf64::new(-0.9999) + ten_digits(), line!());
    assert_one(Instability::Cancellation, l);
    reset();
    let (_, l) = (f32_six() - Sf32::new(0.9999), line!());
    assert_one(Instability::Cancellation, l);
}

#[test]
fn cancellation_of_three_digits_does_not_fire() {
    let _g = defaults();
    let r = ten_digits() - Sf64::new(0.999);
    assert_eq!(r.digits(), 7);
    assert!(r.flags().is_empty());
    let _ = ten_digits() - Sf64::new(0.99999 - 0.9999); // no loss
    let _ = f32_six() - Sf32::new(0.999);
    let _ = ten_digits() - 0.999;
    assert_none();
}

#[test]
fn cancellation_with_a_plain_operand() {
    let _g = defaults();
    // The plain operand is left out of the min: digits(a) = 10, digits(r) = 6.
    let (_, l) = (ten_digits() - 0.9999, line!());
    assert_one(Instability::Cancellation, l);
    reset();
    let (_, l) = (0.9999 - ten_digits(), line!());
    assert_one(Instability::Cancellation, l);
    reset();
    let (_, l) = (ten_digits() + (-0.9999), line!());
    assert_one(Instability::Cancellation, l);
    reset();
    let mut x = ten_digits();
    let l = line!() + 1;
    x -= 0.9999;
    assert_one(Instability::Cancellation, l);
}

#[test]
fn cancellation_counts_the_less_accurate_operand() {
    let _g = defaults();
    // Both operands significant to about 10 digits: the min is 10, the result has 6.
    let b = Sf64::from_samples([0.9999 + 1e-11, 0.9999, 0.9999 - 1e-11]);
    assert_eq!(b.digits(), 11);
    let (r, l) = (ten_digits() - b, line!());
    assert_eq!(r.digits(), 6);
    assert_one(Instability::Cancellation, l);
    reset();
    // A 6-digit operand: the result keeps 4 or 5 of them. Measured against the more accurate
    // operand (10 digits) that would be a cancellation; against the min it is not.
    let c = Sf64::from_samples([0.99 + 1e-6, 0.99, 0.99 - 1e-6]);
    let r = ten_digits() - c;
    let (da, dc, dr) = (ten_digits().digits(), c.digits(), r.digits());
    assert!(da.min(dc) - dr < 4, "{da} {dc} {dr}");
    assert!(da.max(dc) - dr >= 4, "{da} {dc} {dr}");
    assert!(r.flags().is_empty());
    assert_none();
}

#[test]
fn cancellation_in_mul_add() {
    let _g = defaults();
    // 10-digit product minus 0.9999: four digits lost in the fused sum.
    let (r, l) = (ten_digits().mul_add(Sf64::ONE, Sf64::new(-0.9999)), line!());
    assert_eq!(r.digits(), 6);
    assert_one(Instability::Cancellation, l);
    reset();
    let r = ten_digits().mul_add(Sf64::ONE, Sf64::new(-0.999));
    assert_eq!(r.digits(), 7);
    assert_none();
}

#[test]
fn cancellation_level_is_configurable() {
    let _g = setup(Config::default().cancel_level(3));
    let (_, l) = (ten_digits() - Sf64::new(0.999), line!());
    assert_one(Instability::Cancellation, l);
    reset();
    let _ = ten_digits() - Sf64::new(0.99);
    assert_none();
    Config::default()
        .cancel_level(5)
        .report(ReportMode::Off)
        .apply();
    let _ = ten_digits() - Sf64::new(0.9999);
    assert_none();
    let (_, l) = (ten_digits() - Sf64::new(0.99999), line!());
    assert_one(Instability::Cancellation, l);
    reset();
    let env = Config::default()
        .merge_env(|k| (k == "STOCH_CANCEL_LEVEL").then(|| "2".to_string()))
        .unwrap();
    assert_eq!(env.get_cancel_level(), 2);
    env.report(ReportMode::Off).apply();
    let (_, l) = (ten_digits() - Sf64::new(0.99), line!());
    assert_one(Instability::Cancellation, l);
}

/// The `f32` sums' pre-tests read their own copy of the cancellation factor (`f32` bits), which
/// must follow the level as the `f64` one does: at level 2 a loss of two digits passes the
/// pre-test only with level 2's factor (0.4), not with the default level's (0.004).
#[test]
fn cancellation_level_applies_to_f32_sums() {
    let six = || Sf32::from_samples([1.0 - 2e-6, 1.0, 1.0 + 2e-6]);
    let _g = setup(Config::default().cancel_level(2));
    let (_, l) = (six() - Sf32::new(0.99), line!());
    assert_one(Instability::Cancellation, l);
    reset();
    Config::default()
        .cancel_level(5)
        .report(ReportMode::Off)
        .apply();
    let _ = six() - Sf32::new(0.999);
    assert_none();
    let (_, l) = (six() - Sf32::new(0.99999), line!());
    assert_one(Instability::Cancellation, l);
}

#[test]
fn cancellation_to_an_exact_zero_or_of_noise_does_not_fire() {
    let _g = defaults();
    let x = Sf64::new(0.1);
    assert!((x - x).is_exact_zero());
    let _ = noise() - 1.0;
    let _ = tiny_noise() + tiny_noise();
    assert_none();
}

#[test]
fn cancellation_in_sum_is_attributed_to_the_sum() {
    let _g = defaults();
    let v = [ten_digits(), Sf64::new(-0.9999)];
    let (_, l) = (v.iter().copied().fold(Sf64::ZERO, |a, b| a + b), line!());
    assert_one(Instability::Cancellation, l);
}

/// `Iterator::sum` is not `#[track_caller]`, so `Sum::sum` sees a line of core's source.
#[test]
#[ignore = "known limitation: std's Iterator::sum/product are not #[track_caller], so the site is core's iterator.rs (documented on `impl Sum for Stochastic`)"]
fn instability_in_iterator_sum_is_attributed_to_the_call() {
    let _g = defaults();
    let v = [ten_digits(), Sf64::new(-0.9999)];
    let (_, l) = (v.iter().sum::<Sf64>(), line!());
    assert_one(Instability::Cancellation, l);
    reset();
    let w = [noise(), noise()];
    let (_, l) = (w.iter().product::<Sf64>(), line!());
    assert_one(Instability::Multiplication, l);
}

// ---------------------------------------------------------------------------------------------
// Accuracy collapse: a + or − of two significant values gives numerical noise.

#[test]
fn accuracy_collapse_is_recorded_at_its_line() {
    let _g = defaults();
    let e = f64::EPSILON;
    let a = Sf64::from_samples([1.0, 1.0 + 2.0 * e, 1.0 - e]);
    assert!(a.digits() >= 14);
    let (r, l) = (a - Sf64::new(1.0), line!());
    assert!(r.is_computed_zero() && !r.is_exact_zero());
    let rep = report();
    assert_eq!(rep.collapse_total(), 1, "{rep}");
    assert_eq!(rep.collapses().len(), 1);
    assert_eq!(rep.collapses()[0].line, l);
    assert!(rep.collapses()[0].file.ends_with("instabilities.rs"));
    assert_eq!(rep.collapses()[0].count, 1);
    // The same operation is a cancellation of every digit.
    assert_one(Instability::Cancellation, l);
    assert!(rep.to_string().contains("1 accuracy collapse"));
}

#[test]
fn no_collapse_from_noise_or_to_an_exact_zero() {
    let _g = defaults();
    let _ = noise() - 1.0; // the operand was already a computed zero
    let _ = tiny_noise() + Sf64::new(0.0);
    let _ = Sf64::new(0.1) - Sf64::new(0.1); // exact zero
    let _ = ten_digits() - Sf64::new(0.999); // significant result
    let r = report();
    assert_eq!(r.collapse_total(), 0, "{r}");
    assert!(r.collapses().is_empty());
}

#[test]
fn collapses_can_be_switched_off() {
    let _g = setup(Config::default().collapses(false));
    let e = f64::EPSILON;
    let a = Sf64::from_samples([1.0, 1.0 + 2.0 * e, 1.0 - e]);
    let _ = a - Sf64::new(1.0);
    assert_eq!(report().collapse_total(), 0);
    assert_eq!(report().count(Instability::Cancellation), 1);
}

// ---------------------------------------------------------------------------------------------
// Accuracy collapse in every other operation: a significant operand (or two) and a noise
// result. `one_digit()` has 1 exact digit (relative spread 0.12, the edge is 0.127); its square
// (spread 0.25) is noise.

/// One exact digit, not a computed zero.
fn one_digit() -> Sf64 {
    Sf64::from_samples([0.88, 1.0, 1.12])
}

/// One exact digit, the spread the other way round.
fn one_digit_rev() -> Sf64 {
    Sf64::from_samples([1.12, 1.0, 0.88])
}

/// Two exact digits around 1.
fn near_one() -> Sf64 {
    Sf64::from_samples([0.99, 1.0, 1.01])
}

/// Exactly `n` accuracy collapses in the report, all at `line` of this file.
#[track_caller]
fn assert_collapses(line: u32, n: u64) {
    let r = report();
    assert_eq!(r.collapse_total(), n, "{r}");
    assert_eq!(r.collapses().len(), 1, "{r}");
    let c = &r.collapses()[0];
    assert_eq!(c.line, line, "{r}");
    assert!(c.file.ends_with("instabilities.rs"), "{r}");
    assert!(c.column > 0, "{r}");
    assert_eq!(c.count, n, "{r}");
}

#[track_caller]
fn assert_no_collapse() {
    let r = report();
    assert_eq!(r.collapse_total(), 0, "{r}");
    assert!(r.collapses().is_empty(), "{r}");
}

/// Switches collapse detection off (every other kind on) for the rest of the test.
fn collapses_off() {
    Config::default()
        .collapses(false)
        .report(ReportMode::Off)
        .apply();
    reset();
}

#[test]
fn collapse_operands_have_the_intended_digits() {
    let _g = defaults();
    for x in [one_digit(), one_digit_rev()] {
        assert_eq!(x.digits(), 1);
        assert!(!x.is_computed_zero());
    }
    assert_eq!(near_one().digits(), 2);
    assert!((one_digit() * one_digit()).is_numerical_noise());
    assert!((one_digit() / one_digit_rev()).is_numerical_noise());
}

#[test]
fn collapse_in_a_product() {
    let _g = defaults();
    let x = one_digit();
    let (r, l) = (x * x, line!());
    assert!(r.is_numerical_noise());
    assert_collapses(l, 1);
    assert_none(); // a collapse, not an instability
    reset();
    let mut y = one_digit();
    let l = line!() + 1;
    y *= one_digit();
    assert_collapses(l, 1);
    reset();
    let x32 = Sf32::from_samples([0.88, 1.0, 1.12]);
    let (_, l) = (x32 * x32, line!());
    assert_collapses(l, 1);
    reset();
    // A plain operand: 1.5 · 2^−1074 underflows to 1 or 2 units of the smallest subnormal.
    let (r, l) = (Sf64::new(1.5) * 5e-324, line!());
    assert!(r.is_numerical_noise(), "{r:?}");
    assert_collapses(l, 1);
    reset();
    let (_, l) = (5e-324 * Sf64::new(1.5), line!());
    assert_collapses(l, 1);
    reset();
    // Significant results, noise operands, exact zeros: no collapse.
    let _ = one_digit() * Sf64::new(2.0);
    let _ = one_digit() * 3.0;
    let _ = ten_digits() * ten_digits();
    let _ = noise() * one_digit();
    let _ = tiny_noise() * 3.0;
    let _ = one_digit() * Sf64::new(0.0);
    assert_no_collapse();
    collapses_off();
    let _ = one_digit() * one_digit();
    let _ = Sf64::new(1.5) * 5e-324;
    assert_no_collapse();
    assert_none();
}

#[test]
fn collapse_in_a_quotient() {
    let _g = defaults();
    let (r, l) = (one_digit() / one_digit_rev(), line!());
    assert!(r.is_numerical_noise());
    assert_collapses(l, 1);
    assert_none();
    reset();
    let mut y = one_digit();
    let l = line!() + 1;
    y /= one_digit_rev();
    assert_collapses(l, 1);
    reset();
    // A plain divisor: 1.5e−300 / 1e23 underflows to 3 or 4 units of 2^−1074.
    let (r, l) = (Sf64::new(1.5e-300) / 1e23, line!());
    assert!(r.is_numerical_noise(), "{r:?}");
    assert_collapses(l, 1);
    reset();
    let _ = one_digit() / one_digit(); // exactly 1
    let _ = Sf64::new(1.0) / one_digit();
    let _ = one_digit().recip();
    let _ = one_digit() / 3.0;
    let _ = noise() / Sf64::new(2.0);
    let _ = Sf64::new(0.0) / one_digit();
    assert_no_collapse();
    collapses_off();
    let _ = one_digit() / one_digit_rev();
    let _ = Sf64::new(1.5e-300) / 1e23;
    assert_no_collapse();
    assert_none();
}

#[test]
fn collapse_in_mul_add_is_recorded_once() {
    let _g = defaults();
    let (r, l) = (one_digit().mul_add(one_digit(), Sf64::new(0.0)), line!());
    assert!(r.is_numerical_noise());
    assert_collapses(l, 1);
    assert_none();
    reset();
    let (_, l) = (one_digit().mul_add(one_digit(), Sf64::new(-1.0)), line!());
    assert_collapses(l, 1);
    reset();
    // The fused sum collapses (and cancels every digit): one collapse, not two.
    let e = f64::EPSILON;
    let a = Sf64::from_samples([1.0, 1.0 + 2.0 * e, 1.0 - e]);
    let (_, l) = (a.mul_add(Sf64::ONE, Sf64::new(-1.0)), line!());
    assert_collapses(l, 1);
    assert_one(Instability::Cancellation, l);
    reset();
    let _ = ten_digits().mul_add(ten_digits(), Sf64::new(1.0));
    let _ = noise().mul_add(one_digit(), Sf64::new(0.0));
    assert_no_collapse();
    collapses_off();
    let _ = one_digit().mul_add(one_digit(), Sf64::new(0.0));
    assert_no_collapse();
}

#[test]
fn sqrt_of_a_significant_value_never_collapses() {
    // The root halves the relative spread, so its check never fires on real operands: a
    // significant value has all its samples of one sign, and the root of one with 1 digit has
    // more. (The check is there all the same, as for every function.)
    let _g = defaults();
    let r = one_digit().sqrt();
    assert!(!r.is_computed_zero());
    assert!(r.digits_estimate() > one_digit().digits_estimate());
    let _ = Sf32::from_samples([0.88, 1.0, 1.12]).sqrt();
    let _ = noise().sqrt(); // noise argument: MathFunction, no collapse
    assert_no_collapse();
    assert_eq!(report().count(Instability::MathFunction), 1);
    // Arguments on both sides of the threshold, from 2^−600 to 2^600.
    let mut g = Gen(0x0005_EED0_F5A7);
    for _ in 0..20_000 {
        let m = (g.unit() * 600.0).exp2();
        let r = 0.2 * g.unit().abs();
        let _ = g.around(m, r).sqrt();
    }
    assert_no_collapse();
    collapses_off();
    let _ = one_digit().sqrt();
    assert_no_collapse();
}

#[test]
fn collapse_in_a_power() {
    let _g = defaults();
    let (r, l) = (one_digit().powi(2), line!());
    assert!(r.is_numerical_noise());
    assert_collapses(l, 1);
    assert_none();
    reset();
    let (_, l) = (one_digit().powi(-3), line!());
    assert_collapses(l, 1);
    reset();
    let (_, l) = (one_digit().powf(Sf64::new(2.5)), line!());
    assert_collapses(l, 1);
    reset();
    let (_, l) = (one_digit().powf_scalar(3.0), line!());
    assert_collapses(l, 1);
    reset();
    // A significant exponent: 10^(1 ± 0.12) spreads ±30%.
    let (_, l) = (Sf64::new(10.0).powf(one_digit()), line!());
    assert_collapses(l, 1);
    reset();
    let (_, l) = (Sf32::from_samples([0.88, 1.0, 1.12]).powi(2), line!());
    assert_collapses(l, 1);
    reset();
    let _ = one_digit().powi(1);
    let _ = ten_digits().powi(5);
    let _ = one_digit().powf(Sf64::new(0.5));
    let _ = Sf64::new(0.0).powi(2);
    let _ = one_digit().powi(0);
    let _ = noise().powi(2); // a Power instability, not a collapse
    assert_no_collapse();
    assert_eq!(report().count(Instability::Power), 1);
    collapses_off();
    let _ = one_digit().powi(2);
    let _ = one_digit().powf(Sf64::new(2.5));
    assert_no_collapse();
}

#[test]
fn collapse_in_a_math_function() {
    let _g = defaults();
    // ln(1 ± 0.01) = ±0.01: two digits in, noise out.
    let (r, l) = (near_one().ln(), line!());
    assert!(r.is_numerical_noise());
    assert_collapses(l, 1);
    assert_none();
    reset();
    let (_, l) = (Sf64::from_samples([9.0, 10.0, 11.0]).exp(), line!());
    assert_collapses(l, 1);
    reset();
    let pi = std::f64::consts::PI;
    let near_pi = Sf64::from_samples([0.99 * pi, pi, 1.01 * pi]);
    let (_, l) = (near_pi.sin(), line!());
    assert_collapses(l, 1);
    reset();
    let (_, l) = (near_one().log(Sf64::new(10.0)), line!());
    assert_collapses(l, 1);
    reset();
    let (_, l) = (Sf32::from_samples([0.99, 1.0, 1.01]).ln(), line!());
    assert_collapses(l, 1);
    reset();
    let _ = (ten_digits() * 2.0).ln();
    let _ = one_digit().exp();
    let _ = near_one().sin();
    let _ = (near_one() * 2.0).ln();
    let _ = Sf64::new(1.0).ln(); // an exact zero
    let _ = noise().ln(); // a MathFunction instability, not a collapse
    assert_no_collapse();
    assert_eq!(report().count(Instability::MathFunction), 1);
    collapses_off();
    let _ = near_one().ln();
    let _ = Sf64::from_samples([9.0, 10.0, 11.0]).exp();
    assert_no_collapse();
}

#[test]
fn collapse_in_a_remainder() {
    let _g = defaults();
    // 10.02 ± 0.01 has 3 digits; its remainder by 1 (the same quotient, 10, in every sample)
    // has none.
    let x = Sf64::from_samples([10.01, 10.02, 10.03]);
    assert_eq!(x.digits(), 3);
    let (r, l) = (x % Sf64::new(1.0), line!());
    assert!(r.is_numerical_noise());
    assert_collapses(l, 1);
    assert_none();
    reset();
    let (_, l) = (x % 1.0, line!());
    assert_collapses(l, 1);
    reset();
    let (_, l) = (x.fract(), line!());
    assert_collapses(l, 1);
    reset();
    let (_, l) = (x.rem_euclid(Sf64::new(1.0)), line!());
    assert_collapses(l, 1);
    reset();
    let _ = x % 3.0;
    let _ = Sf64::from_samples([2.5 - 1e-10, 2.5, 2.5 + 1e-10]).fract();
    assert_no_collapse();
    collapses_off();
    let _ = x % 1.0;
    let _ = x.fract();
    assert_no_collapse();
}

#[test]
fn collapse_matches_its_definition_in_every_operation() {
    // Over many operands on both sides of the computed-zero threshold: a collapse is recorded
    // exactly when the result is noise and no operand is, and the Multiplication and Division
    // checks (which share the pre-test of `*` and `/`) still fire exactly by their definitions;
    // the pre-test never hides an event.
    let _g = defaults();
    let mut g = Gen(0xC011_A95E);
    let (mut want, mut mul, mut div) = (0u64, 0u64, 0u64);
    let mut kinds = [0u64; 6];
    let noisy = |x: &Sf64| x.is_numerical_noise();
    for i in 0..60_000 {
        let ma = (g.unit() * 4.0).exp2() * if g.below(2) == 0 { 1.0 } else { -1.0 };
        let mb = (g.unit() * 4.0).exp2();
        let (ra, rb) = (0.25 * g.unit().abs(), 0.25 * g.unit().abs());
        let a = g.around(ma, ra);
        let b = g.around(mb, rb);
        let k = i % 6;
        let (r, ops): (Sf64, Vec<Sf64>) = match k {
            0 => (a * b, vec![a, b]),
            1 => (a / b, vec![a, b]),
            2 => (a * 3.0, vec![a]),
            3 => (a.powi(3), vec![a]),
            4 => (b.ln(), vec![b]),
            _ => (a.mul_add(b, Sf64::new(ma)), vec![a, b]),
        };
        if noisy(&r) && !ops.iter().any(noisy) {
            want += 1;
            kinds[k] += 1;
        }
        mul += u64::from((k == 0 || k == 5) && noisy(&a) && noisy(&b));
        div += u64::from(k == 1 && noisy(&b));
    }
    let rep = report();
    assert_eq!(rep.collapse_total(), want, "{rep}");
    assert_eq!(rep.count(Instability::Multiplication), mul, "{rep}");
    assert_eq!(rep.count(Instability::Division), div, "{rep}");
    // Every operation sees collapses, except a product by a plain 3 (which keeps the spread).
    assert!([0, 1, 3, 4, 5].iter().all(|&k| kinds[k] > 100), "{kinds:?}");
    assert!(mul > 100 && div > 100, "{mul} {div}");

    // The same in f32 (two values share one vector register in the pre-test).
    reset();
    let (mut want, mut mul, mut div) = (0u64, 0u64, 0u64);
    let noisy32 = |x: &Sf32| x.is_numerical_noise();
    let around32 = |g: &mut Gen, m: f64, r: f64| {
        Sf32::from_samples(g.around(m, r).samples().map(|x| x as f32))
    };
    for i in 0..30_000 {
        let ma = (g.unit() * 4.0).exp2();
        let (ra, rb) = (0.25 * g.unit().abs(), 0.25 * g.unit().abs());
        let a = around32(&mut g, ma, ra);
        let b = around32(&mut g, -ma, rb);
        let k = i % 3;
        let r = match k {
            0 => a * b,
            1 => a / b,
            _ => a * 3.0,
        };
        let ops_noisy = noisy32(&a) || (k < 2 && noisy32(&b));
        want += u64::from(noisy32(&r) && !ops_noisy);
        mul += u64::from(k == 0 && noisy32(&a) && noisy32(&b));
        div += u64::from(k == 1 && noisy32(&b));
    }
    let rep = report();
    assert_eq!(rep.collapse_total(), want, "{rep}");
    assert_eq!(rep.count(Instability::Multiplication), mul, "{rep}");
    assert_eq!(rep.count(Instability::Division), div, "{rep}");
    assert!(want > 100 && mul > 100 && div > 100, "{want} {mul} {div}");
}

// ---------------------------------------------------------------------------------------------
// Sticky flags.

#[test]
fn flags_propagate_through_later_operations() {
    let _g = defaults();
    let q = Sf64::ONE / noise();
    let c = ten_digits() - Sf64::new(0.9999);
    assert_eq!(
        q.flags().iter().collect::<Vec<_>>(),
        [Instability::Division]
    );
    // Through arithmetic with clean values, scalars, math functions and conversions.
    let y = (q * 2.0 + 1.0).sqrt() / Sf64::new(3.0);
    assert!(y.flags().contains(Instability::Division));
    let z = Sf64::new(5.0) - y;
    assert!(z.flags().contains(Instability::Division));
    let w = (z.exp() * Sf64::new(0.5)).abs().max(Sf64::new(-1e300));
    assert!(w.flags().contains(Instability::Division));
    let n = -w;
    assert!(n.flags().contains(Instability::Division));
    // Two histories merge.
    let both = z + c;
    assert!(both.flags().contains(Instability::Division));
    assert!(both.flags().contains(Instability::Cancellation));
    assert!(!both.flags().contains(Instability::Branching));
    // Into the other precision and back.
    let f = Sf32::from_samples([1.0, 1.0, 1.0]) / spread32(1.01);
    let wide = f.to_sf64() + 1.0;
    assert!(wide.flags().contains(Instability::Division));
    assert!(wide.to_sf32().flags().contains(Instability::Division));
    // Clean values stay clean.
    let clean = Sf64::new(2.0) * Sf64::new(3.0) + Sf64::new(1.0);
    assert!(clean.flags().is_empty());
    // Only the two original events were counted.
    let r = report();
    assert_eq!(r.count(Instability::Division), 2, "{r}");
    assert_eq!(r.count(Instability::Cancellation), 1, "{r}");
    assert_eq!(r.total(), 3, "{r}");
}

#[test]
fn flags_of_every_kind_reach_a_final_value() {
    let _g = defaults();
    let mut acc = Sf64::new(1.0);
    acc += Sf64::ONE / noise(); // division
    acc += noise() * noise(); // multiplication
    acc += noise().powi(2); // power
    acc += tiny_noise().abs(); // intrinsic
    acc += noise().exp(); // math function
    acc += ten_digits() - Sf64::new(0.9999); // cancellation
    let kinds: Vec<Instability> = acc.flags().iter().collect();
    assert_eq!(
        kinds,
        [
            Instability::Division,
            Instability::Multiplication,
            Instability::Power,
            Instability::Intrinsic,
            Instability::MathFunction,
            Instability::Cancellation,
        ]
    );
    // A branching instability has no value to carry it.
    let _ = two(1.01) > Sf64::ONE;
    assert_eq!(report().count(Instability::Branching), 1);
}

// ---------------------------------------------------------------------------------------------
// Switching kinds off.

/// Performs one operation of `kind` that is unstable; returns the value it produced, if any.
fn trigger(kind: Instability) -> Option<Sf64> {
    match kind {
        Instability::Division => Some(Sf64::ONE / noise()),
        Instability::Multiplication => Some(noise() * noise()),
        Instability::Power => Some(noise().powi(2)),
        Instability::Branching => {
            let _ = two(1.01) > Sf64::ONE;
            None
        }
        Instability::Intrinsic => Some(tiny_noise().abs()),
        Instability::MathFunction => Some(noise().exp()),
        Instability::Cancellation => Some(ten_digits() - Sf64::new(0.9999)),
        _ => None,
    }
}

#[test]
fn each_trigger_fires_only_its_kind() {
    let _g = defaults();
    for kind in Instability::ALL {
        reset();
        let v = trigger(kind);
        let r = report();
        assert_eq!(r.count(kind), 1, "{kind}: {r}");
        assert_eq!(r.total(), 1, "{kind}: {r}");
        if let Some(v) = v {
            assert_eq!(v.flags().iter().collect::<Vec<_>>(), [kind]);
        }
    }
}

#[test]
fn switching_a_kind_off_stops_it() {
    let _g = defaults();
    for off in Instability::ALL {
        Config::default()
            .disable(off)
            .report(ReportMode::Off)
            .apply();
        reset();
        for kind in Instability::ALL {
            let v = trigger(kind);
            if kind == off {
                if let Some(v) = v {
                    assert!(v.flags().is_empty(), "{off} is off: {v:?}");
                }
            }
        }
        let r = report();
        assert_eq!(r.count(off), 0, "{off} off: {r}");
        assert_eq!(r.total(), 6, "{off} off: {r}");
        assert!(!r.config().detects(off));
        assert!(r.to_string().contains("Not checked"), "{r}");
    }
}

#[test]
fn detect_all_false_stops_everything() {
    let _g = setup(Config::default().detect_all(false));
    for kind in Instability::ALL {
        if let Some(v) = trigger(kind) {
            assert!(v.flags().is_empty());
        }
    }
    let e = f64::EPSILON;
    let _ = Sf64::from_samples([1.0, 1.0 + 2.0 * e, 1.0 - e]) - Sf64::new(1.0);
    let r = report();
    assert_eq!(r.total(), 0, "{r}");
    assert_eq!(r.collapse_total(), 0, "{r}");
}

#[test]
fn stoch_detect_lists_switch_kinds() {
    let _g = defaults();
    let detect = |v: &str| {
        Config::default()
            .merge_env(|k| (k == "STOCH_DETECT").then(|| v.to_string()))
            .unwrap()
    };
    for (value, on) in [
        ("all", 7),
        ("none", 0),
        ("-cancellation", 6),
        ("all,-branching,-division", 5),
        ("division,power", 2),
        ("math", 1),
        ("math_function", 1),
    ] {
        detect(value).report(ReportMode::Off).apply();
        reset();
        for kind in Instability::ALL {
            let _ = trigger(kind);
        }
        let r = report();
        assert_eq!(r.total(), on, "STOCH_DETECT={value}: {r}");
        for kind in Instability::ALL {
            assert_eq!(r.count(kind) == 1, r.config().detects(kind), "{value}");
        }
    }
    let err = Config::default()
        .merge_env(|k| (k == "STOCH_DETECT").then(|| "-everything".to_string()))
        .unwrap_err();
    assert!(err.to_string().contains("STOCH_DETECT"), "{err}");
}

// ---------------------------------------------------------------------------------------------
// Bounded sites.

#[test]
fn sites_beyond_max_sites_go_to_the_overflow_bucket() {
    let _g = setup(Config::default().max_sites(2));
    let n = tiny_noise();
    let mut lines = Vec::new();
    for _ in 0..2 {
        let (_, l1) = (Sf64::ONE / n, line!());
        let (_, l2) = (Sf64::ONE / n, line!());
        let _ = Sf64::ONE / n;
        let _ = n.exp();
        let _ = n.abs();
        lines = vec![l1, l2];
    }
    let r = report();
    assert_eq!(r.total(), 10, "{r}");
    assert_eq!(r.count(Instability::Division), 6, "{r}");
    assert_eq!(r.sites().len(), 2, "{r}");
    let mut kept: Vec<u32> = r.sites().iter().map(|s| s.line).collect();
    kept.sort_unstable();
    assert_eq!(kept, lines);
    assert!(r.sites().iter().all(|s| s.count == 2));
    assert_eq!(r.overflow_events(), 6, "{r}");
    let text = r.to_string();
    assert!(
        text.contains("6 further events beyond the limit of 2 sites"),
        "{text}"
    );
    assert!(r.to_json().contains("\"overflow_events\": 6"));
    let env = Config::default()
        .merge_env(|k| (k == "STOCH_MAX_SITES").then(|| "7".to_string()))
        .unwrap();
    assert_eq!(env.get_max_sites(), 7);
}

#[test]
fn sites_are_ordered_most_frequent_first() {
    let _g = defaults();
    let n = tiny_noise();
    let mut l_exp = 0;
    let mut l_div = 0;
    for i in 0..5 {
        if i < 2 {
            let (_, l) = (Sf64::ONE / n, line!());
            l_div = l;
        }
        let (_, l) = (n.exp(), line!());
        l_exp = l;
    }
    let r = report();
    let sites = r.sites();
    assert_eq!(sites.len(), 2);
    assert_eq!(
        (sites[0].kind, sites[0].line, sites[0].count),
        (Instability::MathFunction, l_exp, 5)
    );
    assert_eq!(
        (sites[1].kind, sites[1].line, sites[1].count),
        (Instability::Division, l_div, 2)
    );
    let text = r.to_string();
    let first = text.find(&format!("instabilities.rs:{l_exp}:")).unwrap();
    let second = text.find(&format!("instabilities.rs:{l_div}:")).unwrap();
    assert!(first < second, "{text}");
    let json = r.to_json();
    assert!(json.contains(&format!("\"line\": {l_exp}")), "{json}");
}

// ---------------------------------------------------------------------------------------------
// Hook and panic_on.

#[test]
fn hook_receives_every_event() {
    let _g = defaults();
    type Seen = (Instability, String, u32, [[f64; 3]; 2], usize);
    let seen: Arc<Mutex<Vec<Seen>>> = Arc::default();
    let sink = seen.clone();
    set_hook(move |e| {
        sink.lock().unwrap().push((
            e.kind,
            e.location.file().to_string(),
            e.location.line(),
            e.operands,
            e.operand_count,
        ));
    });
    let (_, l1) = (Sf64::new(3.0) / tiny_noise(), line!());
    let (_, l2) = (tiny_noise().exp(), line!());
    let _ = Sf64::ONE / almost(); // no event
    clear_hook();
    let _ = Sf64::ONE / noise(); // counted, but the hook is gone
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 2, "{seen:?}");
    let (kind, file, line, ops, n) = &seen[0];
    assert_eq!(*kind, Instability::Division);
    assert!(file.ends_with("instabilities.rs"));
    assert_eq!(*line, l1);
    assert_eq!(*n, 2);
    assert_eq!(ops[0], [3.0; 3]);
    assert_eq!(ops[1], [1e-17, -1e-17, 2e-17]);
    let (kind, _, line, ops, n) = &seen[1];
    assert_eq!(*kind, Instability::MathFunction);
    assert_eq!(*line, l2);
    assert_eq!(*n, 1);
    assert_eq!(ops[0], [1e-17, -1e-17, 2e-17]);
    assert_eq!(report().total(), 3);
}

#[test]
fn hook_sees_the_subtrahend_as_written() {
    let _g = defaults();
    type Seen = Vec<(Instability, [[f64; 3]; 2])>;
    let seen: Arc<Mutex<Seen>> = Arc::default();
    let sink = seen.clone();
    set_hook(move |e| sink.lock().unwrap().push((e.kind, e.operands)));
    let a = Sf64::from_samples([1.0 - 1e-10, 1.0, 1.0 + 1e-10]);
    let b = Sf64::new(0.9999);
    let _ = a - b; // cancellation: the event carries `b`, not `-b`
    let _ = a - 0.9999; // the same with a plain subtrahend
    clear_hook();
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 2, "{seen:?}");
    for (kind, ops) in seen {
        assert_eq!(kind, Instability::Cancellation);
        assert_eq!(ops[0], a.samples());
        assert_eq!(ops[1], [0.9999; 3]);
    }
}

#[test]
fn hook_sees_f32_operands_widened() {
    let _g = defaults();
    let seen: Arc<Mutex<Vec<[f64; 3]>>> = Arc::default();
    let sink = seen.clone();
    set_hook(move |e| sink.lock().unwrap().push(e.operands[0]));
    let x = Sf32::from_samples([0.5, -0.25, 0.125]);
    let _ = x.abs();
    clear_hook();
    assert_eq!(*seen.lock().unwrap(), [[0.5, -0.25, 0.125]]);
}

/// The subtraction of `b` from `a`, in a function of its own (not inlined into the test).
#[inline(never)]
fn subtract_in_a_frame_of_its_own(a: Sf64, b: Sf64) -> Sf64 {
    std::hint::black_box(a) - b
}

/// A backtrace taken in the hook, which runs on the out-of-line slow path of the check, walks on
/// past it into the function that performed the operation and down to the thread's first frame:
/// what a debugger shows at a breakpoint on an instability, and what a panic's backtrace shows.
#[test]
fn a_backtrace_from_the_hook_reaches_the_operation_and_its_callers() {
    let _g = defaults();
    let traces: Arc<Mutex<Vec<String>>> = Arc::default();
    let sink = traces.clone();
    set_hook(move |_| {
        let bt = std::backtrace::Backtrace::force_capture().to_string();
        sink.lock().unwrap().push(bt);
    });
    let _ = subtract_in_a_frame_of_its_own(ten_digits(), Sf64::new(0.9999));
    clear_hook();
    let traces = traces.lock().unwrap().clone();
    assert_eq!(traces.len(), 1, "one cancellation, one event");
    // The test's own frame may be inlined into the harness in a release build: the walk must
    // reach the operation's function and the root of the thread.
    let bt = &traces[0];
    assert!(
        bt.contains("subtract_in_a_frame_of_its_own"),
        "no `subtract_in_a_frame_of_its_own` in:\n{bt}"
    );
    assert!(
        bt.contains("thread_start") || bt.contains("main"),
        "the walk did not reach the thread's first frame:\n{bt}"
    );
}

#[test]
fn panic_on_names_the_site() {
    let _g = setup(Config::default().panic_on(Instability::Division));
    let (res, l) = (std::panic::catch_unwind(|| Sf64::ONE / noise()), line!());
    let payload = res.expect_err("the division must panic");
    let msg = payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap();
    assert!(
        msg.contains(&format!("instabilities.rs:{l}:")),
        "message: {msg}"
    );
    assert!(msg.contains("division"), "message: {msg}");
    // The event was counted before the panic; other kinds do not panic.
    assert_eq!(report().count(Instability::Division), 1);
    let _ = noise().exp();
    assert_eq!(report().count(Instability::MathFunction), 1);
}

#[test]
fn stoch_panic_on_from_the_environment() {
    let _g = defaults();
    let cfg = Config::default()
        .merge_env(|k| (k == "STOCH_PANIC_ON").then(|| "cancellation,power".to_string()))
        .unwrap();
    cfg.report(ReportMode::Off).apply();
    let l = line!() + 1;
    let res = std::panic::catch_unwind(|| ten_digits() - Sf64::new(0.9999));
    let msg = *res.unwrap_err().downcast::<String>().unwrap();
    assert!(msg.contains("cancellation"), "{msg}");
    assert!(msg.contains(&format!("instabilities.rs:{l}:")), "{msg}");
    let res = std::panic::catch_unwind(|| noise().powi(2));
    assert!(res.is_err());
    let _ = Sf64::ONE / noise();
    assert_eq!(report().count(Instability::Division), 1);
    let err = Config::default()
        .merge_env(|k| (k == "STOCH_PANIC_ON").then(|| "everything".to_string()))
        .unwrap_err();
    assert!(err.to_string().contains("STOCH_PANIC_ON"), "{err}");
}

// ---------------------------------------------------------------------------------------------
// The report.

#[test]
fn report_counts_and_texts() {
    let _g = defaults();
    assert!(report().to_string().contains("No instability detected."));
    for kind in Instability::ALL {
        let _ = trigger(kind);
    }
    let _ = trigger(Instability::Cancellation);
    let r = report();
    assert_eq!(r.total(), 8);
    assert_eq!(r.count(Instability::Cancellation), 2);
    assert!(r.self_validation_failed());
    let text = r.to_string();
    assert!(
        text.contains("8 numerical instabilities detected"),
        "{text}"
    );
    for kind in Instability::ALL {
        assert!(text.contains(kind.description()), "{kind}: {text}");
    }
    assert!(text.contains("CRITICAL: self-validation failed"), "{text}");
    let json = r.to_json();
    assert!(json.contains("\"total\": 8"), "{json}");
    assert!(json.contains("\"cancellation\": 2"), "{json}");
    reset();
    assert_eq!(report().total(), 0);
    assert!(report().sites().is_empty());
}

// ---------------------------------------------------------------------------------------------
// Cancellation and collapse against their definitions, over many operand pairs.

/// xorshift64*: deterministic operands.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// Uniform in [−1, 1).
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 52) as f64 - 1.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    /// Samples `m·(1 + r·u)` with `u` uniform in [−1, 1), independent per sample.
    fn around(&mut self, m: f64, r: f64) -> Sf64 {
        Sf64::from_samples([
            m * (1.0 + r * self.unit()),
            m * (1.0 + r * self.unit()),
            m * (1.0 + r * self.unit()),
        ])
    }
    /// Samples around `m` with relative spread about 10^−k (k = 17: identical samples).
    fn samples(&mut self, m: f64, k: u64) -> Sf64 {
        if k >= 17 {
            return Sf64::new(m);
        }
        let r = 10f64.powi(-(k as i32));
        Sf64::from_samples([
            m * (1.0 + r * self.unit()),
            m * (1.0 + r * self.unit()),
            m * (1.0 + r * self.unit()),
        ])
    }
}

#[test]
fn cancellation_and_collapse_match_their_definitions() {
    for level in [4, 2, 7] {
        let _g = setup(Config::default().cancel_level(level));
        let mut g = Gen(0x1234_5678_9ABC_DEF1 ^ level as u64);
        let (mut fired, mut collapses) = (0u64, 0u64);
        for i in 0..60_000 {
            let ma = (g.unit() * 8.0).exp2() * if g.below(2) == 0 { 1.0 } else { -1.0 };
            // b close to −a (a cancellation of t digits), or unrelated.
            let t = g.below(17) as i32;
            let mb = if g.below(8) == 0 {
                g.unit() * 100.0
            } else {
                -ma * (1.0 + 10f64.powi(-t) * g.unit())
            };
            let (ka, kb) = (1 + g.below(17), 1 + g.below(17));
            let a = g.samples(ma, ka);
            let b = g.samples(mb, kb);
            let plain = g.below(4) == 0;
            let r = if plain {
                a + b.samples()[0]
            } else if i % 2 == 0 {
                a + b
            } else {
                a - (-b)
            };
            let b_used = if plain { Sf64::new(b.samples()[0]) } else { b };
            let (da, db, dr) = (a.digits(), b_used.digits(), r.digits());
            let dmin = if plain { da } else { da.min(db) };
            let want = !r.is_exact_zero() && dmin >= dr + level;
            assert_eq!(
                r.flags().contains(Instability::Cancellation),
                want,
                "level {level}, case {i}: a={a:?} ({da}) b={b_used:?} ({db}) r={r:?} ({dr})"
            );
            fired += u64::from(want);
            let noise = r.is_computed_zero() && !r.is_exact_zero();
            if noise && !a.is_computed_zero() && (plain || !b.is_computed_zero()) {
                collapses += 1;
            }
        }
        let rep = report();
        assert_eq!(rep.count(Instability::Cancellation), fired, "level {level}");
        assert_eq!(rep.collapse_total(), collapses, "level {level}");
        assert!(fired > 1000 && collapses > 100, "{fired} {collapses}");
    }
}
