//! Random rounding of the math functions (DESIGN §2): each sample of `f(a)` is the standard
//! library's result `w = f(a)` moved one ulp down or up at random, x and y independently and z
//! opposite to y. The exact rule (`math::nudge`): `w` stays when it is a zero, ±∞ or NaN; a
//! step past `±MAX` (which would be ±∞) stays at `±MAX`; otherwise down is `w.next_down()` and up
//! `w.next_up()`.
//!
//! Checked over 10^5 seeded random arguments per function and type (special values mixed in):
//! every sample is an allowed value, y and z go opposite ways, and x and y each round down with
//! frequency 1/2 ± 0.02. `recip`, `powi(2)` and `powi(−1)` are single correctly-directed
//! roundings, checked against an exact big-integer oracle; `powi(n)` for larger `n` is bracketed.
//!
//! `STOCH_TEST_SEED` (decimal or `0x` hex) overrides the seed, which every failure prints.

mod common;

use common::{base_seed, Rng};

use std::cmp::Ordering;

use num_bigint::BigInt;
use stoch_core::{StochFloat, Stochastic};

const DEFAULT_SEED: u64 = 0x4A7B_0C1D_2E3F_5061;
const N: usize = 100_000;

/// What the tests need of `f32`/`f64` beyond `StochFloat`.
trait F: StochFloat {
    fn up(self) -> Self;
    fn down(self) -> Self;
    fn bits(self) -> u64;
    fn from_bits_u64(b: u64) -> Self;
    fn of(x: f64) -> Self;
}

impl F for f64 {
    fn up(self) -> Self {
        self.next_up()
    }
    fn down(self) -> Self {
        self.next_down()
    }
    fn bits(self) -> u64 {
        self.to_bits()
    }
    fn from_bits_u64(b: u64) -> Self {
        f64::from_bits(b)
    }
    fn of(x: f64) -> Self {
        x
    }
}

impl F for f32 {
    fn up(self) -> Self {
        self.next_up()
    }
    fn down(self) -> Self {
        self.next_down()
    }
    fn bits(self) -> u64 {
        self.to_bits() as u64
    }
    fn from_bits_u64(b: u64) -> Self {
        f32::from_bits(b as u32)
    }
    fn of(x: f64) -> Self {
        x as f32
    }
}

fn same<T: F>(a: T, b: T) -> bool {
    a.bits() == b.bits() || (a.is_nan() && b.is_nan())
}

/// The values a sample of a nudged library result `w` may take: (down, up).
fn nudged<T: F>(w: T) -> (T, T) {
    if w == T::ZERO || !w.is_finite() {
        return (w, w);
    }
    let (d, u) = (w.down(), w.up());
    (
        if d.is_finite() { d } else { w },
        if u.is_finite() { u } else { w },
    )
}

/// Counts for one function and type.
#[derive(Default)]
struct Tally {
    inexact: u64,
    down: [u64; 2],
    fails: Vec<String>,
}

impl Tally {
    /// Checks one result's samples against the allowed pair `(lo, hi)` (`lo == hi` when the
    /// result is exact); `arg` describes the operands for the failure message.
    fn check<T: F>(&mut self, got: [T; 3], lo: T, hi: T, arg: &dyn Fn() -> String) {
        let mut down = [false; 3];
        for (k, &s) in got.iter().enumerate() {
            if !(same(s, lo) || same(s, hi)) {
                self.fail(format!(
                    "{}: sample {k} = {s:e}, allowed {lo:e} or {hi:e}",
                    arg()
                ));
            }
            down[k] = same(s, lo);
        }
        if !same(lo, hi) {
            self.inexact += 1;
            self.down[0] += down[0] as u64;
            self.down[1] += down[1] as u64;
            if down[1] == down[2] {
                self.fail(format!("{}: z not opposite to y: {got:?}", arg()));
            }
        }
    }

    fn fail(&mut self, m: String) {
        if self.fails.len() < 12 {
            self.fails.push(m);
        }
    }

    fn finish(&self, name: &str, seed: u64, min_inexact: u64) {
        assert!(
            self.fails.is_empty(),
            "{name}, seed {seed:#x}:\n{}",
            self.fails.join("\n")
        );
        assert!(
            self.inexact >= min_inexact,
            "{name}, seed {seed:#x}: only {} inexact results",
            self.inexact
        );
        for (k, d) in self.down.iter().enumerate() {
            let f = *d as f64 / self.inexact as f64;
            assert!(
                (f - 0.5).abs() < 0.02,
                "{name}, seed {seed:#x}: sample {k} rounds down with frequency {f}"
            );
        }
    }
}

/// A random argument: ~5% special values, the rest spread over `[lo, hi]` uniformly or
/// log-uniformly (with a random sign when `lo < 0`).
fn arg<T: F>(r: &mut Rng, lo: f64, hi: f64) -> T {
    let lim = T::MAX.to_f64();
    let (lo, hi) = (lo.max(-lim), hi.min(lim));
    match r.below(20) {
        0 => {
            let sp = [
                0.0,
                -0.0,
                f64::INFINITY,
                f64::NEG_INFINITY,
                f64::NAN,
                1.0,
                -1.0,
                f64::MAX,
                f64::MIN_POSITIVE,
                1e-300,
            ];
            T::of(sp[r.below(sp.len() as u64) as usize])
        }
        1..=9 => T::of(lo + (hi - lo) * r.unit()),
        _ => {
            // Log-uniform magnitude within the range.
            let top = hi.abs().max(lo.abs()).max(1e-300);
            let mag = top * 2f64.powf(-60.0 * r.unit());
            let neg = lo < 0.0 && r.below(2) == 0;
            T::of(if neg { -mag.min(-lo) } else { mag.min(hi) })
        }
    }
}

/// Checks `N` cases of `name`: `case` draws the arguments (the first `arity` of the array) and
/// returns them with the library's plain value and the stochastic result's samples, which must
/// be that value moved one ulp either way.
fn nudged_cases<T: F>(
    name: &str,
    arity: usize,
    mut case: impl FnMut(&mut Rng) -> ([T; 2], T, [T; 3]),
) {
    let seed = base_seed(DEFAULT_SEED);
    let mut r = Rng(seed
        ^ name
            .bytes()
            .fold(T::NAME.len() as u64, |h, b| h * 31 + b as u64));
    let mut t = Tally::default();
    for _ in 0..N {
        let (args, w, got) = case(&mut r);
        let (d, u) = nudged(w);
        t.check(got, d, u, &|| {
            let args: Vec<String> = args[..arity].iter().map(|a| format!("{a:e}")).collect();
            format!("{name}({}) [{}], library {w:e}", args.join(", "), T::NAME)
        });
    }
    stoch_core::reset();
    t.finish(&format!("{name} ({})", T::NAME), seed, N as u64 / 2);
}

fn unary<T: F>(
    name: &str,
    f: fn(T) -> T,
    sf: fn(Stochastic<T>) -> Stochastic<T>,
    lo: f64,
    hi: f64,
) {
    nudged_cases(name, 1, |r| {
        let a: T = arg(r, lo, hi);
        ([a, a], f(a), sf(Stochastic::new(a)).samples())
    });
}

#[allow(clippy::type_complexity)]
fn binary<T: F>(
    name: &str,
    f: fn(T, T) -> T,
    sf: fn(Stochastic<T>, Stochastic<T>) -> Stochastic<T>,
    (alo, ahi): (f64, f64),
    (blo, bhi): (f64, f64),
) {
    nudged_cases(name, 2, |r| {
        let a: T = arg(r, alo, ahi);
        let b: T = arg(r, blo, bhi);
        let got = sf(Stochastic::new(a), Stochastic::new(b)).samples();
        ([a, b], f(a, b), got)
    });
}

macro_rules! unary_tests {
    ($($test:ident: $name:ident, $lo:expr, $hi:expr;)*) => {$(
        #[test]
        fn $test() {
            unary::<f64>(stringify!($name), |x| x.$name(), |x| x.$name(), $lo, $hi);
            unary::<f32>(stringify!($name), |x| x.$name(), |x| x.$name(), $lo, $hi);
        }
    )*};
}

unary_tests! {
    exp_is_nudged: exp, -700.0, 700.0;
    ln_is_nudged: ln, 0.0, 1e300;
    sin_is_nudged: sin, -1e4, 1e4;
    cos_is_nudged: cos, -1e4, 1e4;
    atan_is_nudged: atan, -1e10, 1e10;
    cbrt_is_nudged: cbrt, -1e300, 1e300;
    tanh_is_nudged: tanh, -20.0, 20.0;
    asin_is_nudged: asin, -1.0, 1.0;
}

/// `test: name, f64 (a range, b range), f32 (a range, b range);` each.
macro_rules! binary_tests {
    ($($test:ident: $name:ident, f64 $a64:expr, $b64:expr, f32 $a32:expr, $b32:expr;)*) => {$(
        #[test]
        fn $test() {
            binary::<f64>(stringify!($name), |a, b| a.$name(b), |a, b| a.$name(b), $a64, $b64);
            binary::<f32>(stringify!($name), |a, b| a.$name(b), |a, b| a.$name(b), $a32, $b32);
        }
    )*};
}

binary_tests! {
    powf_is_nudged: powf, f64 (0.0, 1e3), (-50.0, 50.0), f32 (0.0, 1e3), (-10.0, 10.0);
    hypot_is_nudged: hypot, f64 (-1e300, 1e300), (-1e300, 1e300), f32 (-1e30, 1e30), (-1e30, 1e30);
    atan2_is_nudged: atan2, f64 (-1e3, 1e3), (-1e3, 1e3), f32 (-1e3, 1e3), (-1e3, 1e3);
}

// ------------------------------------------------------------------------------------------
// recip and powi: correctly directed roundings, against exact big-integer comparisons.
// ------------------------------------------------------------------------------------------

/// A finite `x` as `(m, e)` with `x = m·2^e` exactly (`m` signed).
fn exact<T: F>(x: T) -> (BigInt, i32) {
    let (m, e) = if T::NAME == "f64" {
        let b = x.bits();
        let exp = ((b >> 52) & 0x7ff) as i32;
        let frac = b & ((1u64 << 52) - 1);
        if exp == 0 {
            (frac, -1074)
        } else {
            (frac | (1 << 52), exp - 1075)
        }
    } else {
        let b = x.bits();
        let exp = ((b >> 23) & 0xff) as i32;
        let frac = b & ((1u64 << 23) - 1);
        if exp == 0 {
            (frac, -149)
        } else {
            (frac | (1 << 23), exp - 150)
        }
    };
    let m = BigInt::from(m);
    (if x < T::ZERO { -m } else { m }, e)
}

fn mul_exact(a: &(BigInt, i32), b: &(BigInt, i32)) -> (BigInt, i32) {
    (&a.0 * &b.0, a.1 + b.1)
}

fn cmp_exact(a: &(BigInt, i32), b: &(BigInt, i32)) -> Ordering {
    let e = a.1.min(b.1);
    let x = &a.0 << (a.1 - e) as usize;
    let y = &b.0 << (b.1 - e) as usize;
    x.cmp(&y)
}

/// The directed roundings `(RD, RU)` of an exact value `v` from its round-to-nearest `q`, given
/// `q` compared with `v`; overflow (`q = ±∞` for a finite `v`) gives `(MAX, ∞)` or `(−∞, −MAX)`.
fn brackets<T: F>(q: T, q_vs_v: Ordering) -> (T, T) {
    if q.is_infinite() {
        return if q > T::ZERO {
            (T::MAX, q)
        } else {
            (q, -T::MAX)
        };
    }
    match q_vs_v {
        Ordering::Equal => (q, q),
        Ordering::Greater => (q.down(), q),
        Ordering::Less => (q, q.up()),
    }
}

/// A finite non-zero random operand over the whole range (subnormals included), or a special.
fn operand<T: F>(r: &mut Rng) -> T {
    match r.below(20) {
        0 => T::of([1.0, -2.0, 0.5, 3.0, 1e-310, -1e-40, 1e300, 1e38][r.below(8) as usize]),
        1..=9 => loop {
            let x = T::from_bits_u64(r.next());
            if x.is_finite() && x != T::ZERO {
                return x;
            }
        },
        _ => T::of((r.unit() * 2.0 - 1.0) * 2f64.powi(r.below(60) as i32 - 30)),
    }
}

fn recip_and_square<T: F>() {
    let seed = base_seed(DEFAULT_SEED);
    let mut r = Rng(seed ^ 0x5EC1 ^ T::NAME.len() as u64);
    let (mut t_recip, mut t_inv, mut t_sq) = (Tally::default(), Tally::default(), Tally::default());
    let one = (BigInt::from(1), 0);
    for _ in 0..N {
        let a: T = operand(&mut r);
        if a == T::ZERO || !a.is_finite() {
            continue;
        }
        let ea = exact(a);
        // 1/a: q vs 1/a is q·a vs 1, reversed for a negative a.
        let q = T::ONE / a;
        let (lo, hi) = if q == T::ZERO || !q.is_finite() {
            brackets(q, Ordering::Equal)
        } else {
            let o = cmp_exact(&mul_exact(&exact(q), &ea), &one);
            brackets(q, if a > T::ZERO { o } else { o.reverse() })
        };
        let (lo, hi) = if q == T::ZERO {
            // 1/a underflowed to zero: RD/RU are ±0 and the smallest subnormal.
            if a > T::ZERO {
                (T::ZERO, T::ZERO.up())
            } else {
                (T::ZERO.down(), -T::ZERO)
            }
        } else {
            (lo, hi)
        };
        let what = || format!("1/{a:e} [{}], nearest {q:e}", T::NAME);
        t_recip.check(Stochastic::new(a).recip().samples(), lo, hi, &what);
        t_inv.check(Stochastic::new(a).powi(-1).samples(), lo, hi, &what);
        // a²: q vs a·a.
        let q = a * a;
        let (lo, hi) = if q == T::ZERO {
            (T::ZERO, T::ZERO.up())
        } else if q.is_infinite() {
            brackets(q, Ordering::Equal)
        } else {
            brackets(q, cmp_exact(&exact(q), &mul_exact(&ea, &ea)))
        };
        let what = || format!("{a:e}² [{}], nearest {q:e}", T::NAME);
        t_sq.check(Stochastic::new(a).powi(2).samples(), lo, hi, &what);
    }
    stoch_core::reset();
    let n = N as u64 / 2;
    t_recip.finish(&format!("recip ({})", T::NAME), seed, n);
    t_inv.finish(&format!("powi(-1) ({})", T::NAME), seed, n);
    t_sq.finish(&format!("powi(2) ({})", T::NAME), seed, n);
}

#[test]
fn recip_and_powi_are_directed_roundings() {
    recip_and_square::<f64>();
    recip_and_square::<f32>();
}

/// `powi(n)` for larger `n` is a chain of randomly rounded products: each sample lies within
/// `(n − 1)·ε` relative error of the exact power (`n − 1` roundings at most), checked
/// in `f64` for `f32` (where the chain's exact value is representable closely enough).
#[test]
fn powi_chain_is_bracketed() {
    let seed = base_seed(DEFAULT_SEED);
    let mut r = Rng(seed ^ 0x9071);
    let mut downs = 0u64;
    let mut total = 0u64;
    for _ in 0..N {
        let a = (0.5 + r.unit()) as f32;
        let n = 3 + r.below(8) as i32;
        let exact = (a as f64).powi(n); // relative error ≲ 1e-15
        let got = Stochastic::new(a).powi(n).samples();
        // A product of n factors with n − 1 roundings, each of relative error below ε.
        let rounds = (n - 1) as f64 * 1.0001;
        for s in got {
            let rel = (s as f64 - exact).abs() / exact;
            assert!(
                rel <= rounds * f32::EPSILON as f64,
                "seed {seed:#x}: {a:e}^{n} = {s:e}, exact {exact:e}"
            );
            total += 1;
            downs += ((s as f64) < exact) as u64;
        }
    }
    let f = downs as f64 / total as f64;
    assert!(
        (f - 0.5).abs() < 0.02,
        "seed {seed:#x}: below the exact power with frequency {f}"
    );
}

/// `x.powi(2)` is the one product `x * x` (no product by an exact 1 before it): from the same
/// random state, the same samples. `powi(3)` is two products, `x·x` then that times `x`.
#[test]
fn powi_starts_from_its_base() {
    let seed = base_seed(DEFAULT_SEED);
    let mut r = Rng(seed ^ 0x2B07);
    for i in 0..1000u64 {
        let x = Stochastic::new(0.5 + r.unit()) / Stochastic::new(3.0);
        stoch_core::seed(seed ^ i);
        let p2 = x.powi(2).samples();
        let p3 = x.powi(3).samples();
        stoch_core::seed(seed ^ i);
        let (m2, m3) = (x * x, x * x * x);
        assert_eq!(
            (p2, p3),
            (m2.samples(), m3.samples()),
            "seed {seed:#x}, case {i}: x = {:?}",
            x.samples()
        );
    }
    stoch_core::reset();
}
