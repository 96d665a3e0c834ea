//! Random rounding checked against an independent oracle.
//!
//! For every operation (`+ - * /`, `mul_add`, `sqrt`) and both `f32` and `f64`, every sample of
//! a result must be exactly the round-up (RU) or the round-down (RD) of the exact result (both
//! are the exact result when it is representable). Three paths are checked:
//!
//! * the dispatched kernels (`__private::kernels::dispatch3`: the path the operators run), three
//!   independent operand tuples
//!   per call (one per sample), with the direction bits chosen by the test, so the direction of
//!   each sample is checked too: bit 0 set means x rounds down, bit 1 set means y rounds down,
//!   z rounds opposite to y;
//! * each path's kernels run directly (`__private::kernels::kernel3`: portable, AVX2, AVX-512,
//!   where the processor has them), on the same operands;
//! * the public operators on `Stochastic` (`Sf32`/`Sf64`), with the library's own random bits:
//!   every sample RU or RD, z always opposite to y when inexact, and each sample rounding up
//!   with frequency 1/2 ± 0.01.
//!
//! # The oracle
//!
//! It shares no code with the library. Operands are decoded from their bits into
//! `(sign, integer mantissa, power of two)`. Sums and products (and the product-plus-addend of
//! `mul_add`) are formed exactly in `u128` fixed point (the larger operand left-aligned at bit
//! 125; an addend that lies entirely below its last bit is kept as a sticky bit, which cannot
//! change a directed rounding because the result then has more than 120 significant bits).
//! Quotients and square roots are formed as a `u128` integer quotient / integer square root
//! with at least 61 significant bits plus a sticky bit for a non-zero remainder. That value is
//! then rounded toward +∞ and toward −∞ to the target format by integer arithmetic (subnormals,
//! overflow: RU of a positive overflow is +∞ and RD is MAX, and symmetrically). The fast oracle
//! is itself cross-checked on a sample against a second, slower one in `num-bigint` that uses
//! no rounding at all: it checks RU(v) ≥ v > pred(RU(v)) and RD(v) ≤ v < succ(RD(v)) by exact
//! big-integer comparisons (`a/b` as `s·b` vs `a`, `√a` as `s²` vs `a`).
//!
//! # Special values (IEEE 754 semantics, checked bit for bit on every path)
//!
//! * A NaN operand, `∞ − ∞`, `0·∞`, `0/0`, `∞/∞`, `√(x<0)` give NaN (any payload and sign).
//! * Infinities propagate with IEEE signs; `x/±0` is a signed infinity for finite non-zero `x`.
//! * Exact zeros: a product or quotient has the sign of the sign rule; `√±0 = ±0`; a sum of two
//!   zeros of the same sign keeps it; any other exact zero sum (`x + (−x)`, `+0 + −0`, and
//!   `a·b + c` that cancels exactly) is `+0` when the sample rounds up and `−0` when it rounds
//!   down, as IEEE's roundTowardPositive / roundTowardNegative give.
//! * Underflow: RD of a tiny positive result is `+0` and RU the smallest subnormal (and
//!   symmetrically `−0` / `−min` for negative results).
//!
//! # Operands
//!
//! Per operand: ~4% special values (±0, ±∞, quiet and signalling NaN, MIN_POSITIVE and its
//! neighbours, the smallest and largest subnormal, ±MAX, 1), ~30% uniformly random bit patterns
//! (the whole exponent range), subnormals, moderate values, short significands (exact results),
//! values near the bottom and top of the range. Per tuple, per operation: close magnitudes with
//! effective subtraction (cancellation), addends straddling the other's last bit, products and
//! quotients aimed at the underflow threshold (up to 2^(EMIN+2P+12), which covers the 2^-969
//! switch of the f64 portable path) and at overflow, exact quotients, `c ≈ −a·b` for `mul_add`
//! (including huge and overflowing products), (near-)perfect squares for `sqrt`. A table of
//! hand-checked cases, including the near-overflow regressions the random tests found, runs every
//! path with all four direction codes.
//!
//! The operator tests draw the library's random bits, whose per-thread streams depend on the
//! order in which the test threads start: their operands repeat for a given seed, their
//! directions need not.
//!
//! # Knobs
//!
//! `STOCH_TEST_SEED` (decimal or `0x` hex) overrides the seed, printed in every failure;
//! `STOCH_ORACLE_N` the number of operand tuples per operation and type for the kernel tests
//! (default 1 000 000, each checked on the dispatched and the portable path, on the AVX2 path
//! where the target has AVX2 and FMA, and on the run-time AVX-512 path where the processor has
//! AVX-512F; the operator tests run N too, the oracle cross-check N/100); `STOCH_ORACLE_SHOW`
//! how many failures each test prints (default 12).

use std::fmt::Write as _;

use num_bigint::BigInt;
use stoch_core::__private::kernels::{dir_word, dispatch3, kernel3, DIR_MASK};
use stoch_core::path::Path;
use stoch_core::{StochFloat, Stochastic};

// ------------------------------------------------------------------------------------------
// Knobs and random numbers
// ------------------------------------------------------------------------------------------

const DEFAULT_SEED: u64 = 0x5EED_0AC1_E2B1_7C0D;

fn base_seed() -> u64 {
    match std::env::var("STOCH_TEST_SEED") {
        Ok(s) => {
            let s = s.trim();
            let v = if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
                u64::from_str_radix(h, 16)
            } else {
                s.parse::<u64>()
            };
            v.unwrap_or_else(|_| panic!("STOCH_TEST_SEED={s:?} is not a u64"))
        }
        Err(_) => DEFAULT_SEED,
    }
}

fn n_per_op() -> usize {
    match std::env::var("STOCH_ORACLE_N") {
        Ok(s) => s
            .trim()
            .replace('_', "")
            .parse()
            .unwrap_or_else(|_| panic!("STOCH_ORACLE_N={s:?} is not a count")),
        Err(_) => 1_000_000,
    }
}

/// SplitMix64: tiny, seedable, good enough for test data.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Rng(seed)
    }
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n`.
    fn below(&mut self, n: u64) -> u64 {
        ((self.next() as u128 * n as u128) >> 64) as u64
    }
    /// Uniform in `lo..=hi`.
    fn range(&mut self, lo: i32, hi: i32) -> i32 {
        if hi <= lo {
            return lo;
        }
        lo + self.below((hi - lo + 1) as u64) as i32
    }
    fn bit(&mut self) -> bool {
        self.next() >> 63 != 0
    }
}

/// A per-test seed derived from the base seed.
fn sub_seed(base: u64, kind: u64, op: Op, bits: u32) -> u64 {
    let mut r = Rng::new(base ^ (kind << 56) ^ ((op as u64) << 48) ^ bits as u64);
    r.next()
}

// ------------------------------------------------------------------------------------------
// Formats
// ------------------------------------------------------------------------------------------

/// The binary formats under test, described by their parameters only.
trait Fmt: StochFloat {
    const FNAME: &'static str;
    /// Storage width.
    const BITS: u32;
    /// Precision (significand bits including the hidden one).
    const P: i32;
    /// Exponent of the last bit of a subnormal (the smallest power of two representable).
    const EMIN: i32;
    /// Exponent of the leading bit of MAX.
    const EMAX: i32;
    const SIGN: u64;
    const INF: u64;
    const MAX_B: u64 = Self::INF - 1;
    const QNAN: u64;
    const ONE_B: u64;
    fn bits(self) -> u64;
    fn of(b: u64) -> Self;
    /// Round-to-nearest product, for generating operands only.
    fn hw_mul(a: u64, b: u64) -> u64 {
        (Self::of(a) * Self::of(b)).bits()
    }
}

impl Fmt for f64 {
    const FNAME: &'static str = "f64";
    const BITS: u32 = 64;
    const P: i32 = 53;
    const EMIN: i32 = -1074;
    const EMAX: i32 = 1023;
    const SIGN: u64 = 1 << 63;
    const INF: u64 = 0x7FF0_0000_0000_0000;
    const QNAN: u64 = 0x7FF8_0000_0000_0000;
    const ONE_B: u64 = 0x3FF0_0000_0000_0000;
    fn bits(self) -> u64 {
        self.to_bits()
    }
    fn of(b: u64) -> Self {
        f64::from_bits(b)
    }
}

impl Fmt for f32 {
    const FNAME: &'static str = "f32";
    const BITS: u32 = 32;
    const P: i32 = 24;
    const EMIN: i32 = -149;
    const EMAX: i32 = 127;
    const SIGN: u64 = 1 << 31;
    const INF: u64 = 0x7F80_0000;
    const QNAN: u64 = 0x7FC0_0000;
    const ONE_B: u64 = 0x3F80_0000;
    fn bits(self) -> u64 {
        self.to_bits() as u64
    }
    fn of(b: u64) -> Self {
        f32::from_bits(b as u32)
    }
}

fn is_nan<F: Fmt>(b: u64) -> bool {
    b & !F::SIGN > F::INF
}

fn show<F: Fmt>(b: u64) -> String {
    format!("{:e} (0x{:0w$x})", F::of(b), b, w = (F::BITS / 4) as usize)
}

// ------------------------------------------------------------------------------------------
// The fast exact oracle
// ------------------------------------------------------------------------------------------

/// An exact real value (or NaN). `Fin` means `(-1)^neg · m · 2^e` exactly when `sticky` is
/// false, and a value strictly between `m·2^e` and `(m+1)·2^e` (in magnitude) when it is true;
/// a sticky value always has at least 60 significant bits, so that no rounding boundary of the
/// target formats falls inside that interval.
#[derive(Clone, Copy, Debug)]
enum Exact {
    Nan,
    Inf(bool),
    /// An exact zero: `Some(sign)`, or `None` for a zero sum whose sign depends on the rounding
    /// direction (+0 up, −0 down).
    Zero(Option<bool>),
    Fin {
        neg: bool,
        m: u128,
        e: i32,
        sticky: bool,
    },
}

fn decode<F: Fmt>(b: u64) -> Exact {
    let neg = b & F::SIGN != 0;
    let mag = b & !F::SIGN;
    let fb = F::P - 1;
    let exp = (mag >> fb) as i32;
    let frac = mag & ((1u64 << fb) - 1);
    let exp_inf = (F::INF >> fb) as i32;
    if exp == exp_inf {
        if frac != 0 {
            Exact::Nan
        } else {
            Exact::Inf(neg)
        }
    } else if exp == 0 {
        if frac == 0 {
            Exact::Zero(Some(neg))
        } else {
            Exact::Fin {
                neg,
                m: frac as u128,
                e: F::EMIN,
                sticky: false,
            }
        }
    } else {
        Exact::Fin {
            neg,
            m: (frac | 1u64 << fb) as u128,
            e: F::EMIN + exp - 1,
            sticky: false,
        }
    }
}

fn top_bit(m: u128, e: i32) -> i32 {
    e + 127 - m.leading_zeros() as i32
}

fn negate(x: Exact) -> Exact {
    match x {
        Exact::Inf(n) => Exact::Inf(!n),
        Exact::Zero(Some(n)) => Exact::Zero(Some(!n)),
        Exact::Fin { neg, m, e, sticky } => Exact::Fin {
            neg: !neg,
            m,
            e,
            sticky,
        },
        other => other,
    }
}

/// Exact sum of two exact values (operands must not be sticky; mantissas below 2^107).
fn sum(a: Exact, b: Exact) -> Exact {
    use Exact::*;
    match (a, b) {
        (Nan, _) | (_, Nan) => Nan,
        (Inf(x), Inf(y)) => {
            if x == y {
                Inf(x)
            } else {
                Nan
            }
        }
        (Inf(x), _) | (_, Inf(x)) => Inf(x),
        (Zero(Some(x)), Zero(Some(y))) => Zero(if x == y { Some(x) } else { None }),
        (Zero(_), f) | (f, Zero(_)) => f,
        (
            Fin {
                neg: n1,
                m: m1,
                e: e1,
                sticky: s1,
            },
            Fin {
                neg: n2,
                m: m2,
                e: e2,
                sticky: s2,
            },
        ) => {
            assert!(
                !s1 && !s2 && m1 >> 107 == 0 && m2 >> 107 == 0,
                "oracle: bad sum operands"
            );
            // X: the operand with the higher leading bit, left-aligned at bit 125.
            let ((nx, mx, ex), (ny, my, ey)) = if top_bit(m1, e1) >= top_bit(m2, e2) {
                ((n1, m1, e1), (n2, m2, e2))
            } else {
                ((n2, m2, e2), (n1, m1, e1))
            };
            let sx = mx.leading_zeros() as i32 - 2;
            let (mx, ex) = (mx << sx, ex - sx);
            let d = ey - ex;
            let (my, sticky) = if d >= 0 {
                (my << d, false) // leading bit of Y ≤ that of X: stays below bit 126
            } else if -d >= 128 {
                (0, true)
            } else {
                let k = -d;
                (my >> k, my & ((1u128 << k) - 1) != 0)
            };
            if nx == ny {
                Fin {
                    neg: nx,
                    m: mx + my,
                    e: ex,
                    sticky,
                }
            } else if sticky {
                // |X| − (|Y'| + δ), 0 < δ < 1: strictly between mx − my − 1 and mx − my.
                Fin {
                    neg: nx,
                    m: mx - my - 1,
                    e: ex,
                    sticky: true,
                }
            } else if mx >= my {
                if mx == my {
                    Zero(None)
                } else {
                    Fin {
                        neg: nx,
                        m: mx - my,
                        e: ex,
                        sticky: false,
                    }
                }
            } else {
                Fin {
                    neg: ny,
                    m: my - mx,
                    e: ex,
                    sticky: false,
                }
            }
        }
    }
}

fn product(a: Exact, b: Exact) -> Exact {
    use Exact::*;
    match (a, b) {
        (Nan, _) | (_, Nan) => Nan,
        (Inf(_), Zero(_)) | (Zero(_), Inf(_)) => Nan,
        (Inf(x), Inf(y)) | (Inf(x), Fin { neg: y, .. }) | (Fin { neg: x, .. }, Inf(y)) => {
            Inf(x != y)
        }
        (Zero(Some(x)), Zero(Some(y)))
        | (Zero(Some(x)), Fin { neg: y, .. })
        | (Fin { neg: x, .. }, Zero(Some(y))) => Zero(Some(x != y)),
        (
            Fin {
                neg: n1,
                m: m1,
                e: e1,
                ..
            },
            Fin {
                neg: n2,
                m: m2,
                e: e2,
                ..
            },
        ) => Fin {
            neg: n1 != n2,
            m: m1 * m2,
            e: e1 + e2,
            sticky: false,
        },
        _ => unreachable!(),
    }
}

fn quotient(a: Exact, b: Exact) -> Exact {
    use Exact::*;
    match (a, b) {
        (Nan, _) | (_, Nan) => Nan,
        (Inf(_), Inf(_)) | (Zero(_), Zero(_)) => Nan,
        (Inf(x), Zero(Some(y))) | (Inf(x), Fin { neg: y, .. }) => Inf(x != y),
        (Fin { neg: x, .. }, Zero(Some(y))) => Inf(x != y),
        (Zero(Some(x)), Inf(y)) | (Fin { neg: x, .. }, Inf(y)) => Zero(Some(x != y)),
        (Zero(Some(x)), Fin { neg: y, .. }) => Zero(Some(x != y)),
        (
            Fin {
                neg: n1,
                m: m1,
                e: e1,
                ..
            },
            Fin {
                neg: n2,
                m: m2,
                e: e2,
                ..
            },
        ) => {
            let sa = m1.leading_zeros() as i32 - 2; // dividend's leading bit at 125
            let sb = m2.leading_zeros() as i32 - 64; // divisor's leading bit at 63
            let (na, nb) = (m1 << sa, m2 << sb);
            let q = na / nb; // ≥ 2^61
            let r = na % nb;
            Fin {
                neg: n1 != n2,
                m: q,
                e: (e1 - sa) - (e2 - sb),
                sticky: r != 0,
            }
        }
        _ => unreachable!(),
    }
}

fn isqrt(n: u128) -> u128 {
    let mut r = (n as f64).sqrt() as u128;
    if r > 0 {
        r = (r + n / r) >> 1;
    }
    while r * r > n {
        r -= 1;
    }
    while (r + 1) * (r + 1) <= n {
        r += 1;
    }
    r
}

fn root(a: Exact) -> Exact {
    use Exact::*;
    match a {
        Nan | Inf(true) | Fin { neg: true, .. } => Nan,
        Inf(false) => Inf(false),
        Zero(s) => Zero(s),
        Fin {
            neg: false, m, e, ..
        } => {
            let mut s = m.leading_zeros() as i32 - 2; // leading bit at 125 ...
            if (e - s).rem_euclid(2) != 0 {
                s -= 1; // ... or 124, so that the exponent is even
            }
            let (n, ee) = (m << s, e - s);
            let r = isqrt(n); // ≥ 2^62
            Fin {
                neg: false,
                m: r,
                e: ee / 2,
                sticky: r * r != n,
            }
        }
    }
}

/// Rounds an exact value toward +∞ (`up`) or −∞ to format `F`; returns the bits.
fn round<F: Fmt>(x: &Exact, up: bool) -> u64 {
    match *x {
        Exact::Nan => F::QNAN,
        Exact::Inf(n) => (if n { F::SIGN } else { 0 }) | F::INF,
        Exact::Zero(Some(n)) => {
            if n {
                F::SIGN
            } else {
                0
            }
        }
        Exact::Zero(None) => {
            if up {
                0
            } else {
                F::SIGN
            }
        }
        Exact::Fin { neg, m, e, sticky } => {
            let sign = if neg { F::SIGN } else { 0 };
            let mag_up = up != neg;
            let top = top_bit(m, e);
            if top > F::EMAX {
                return sign | if mag_up { F::INF } else { F::MAX_B };
            }
            let q = (top - (F::P - 1)).max(F::EMIN); // exponent of the last kept bit
            let sh = q - e;
            let (mut kept, inexact) = if sh <= 0 {
                assert!(!sticky, "oracle: sticky value without enough bits");
                (m << -sh, false)
            } else if sh >= 128 {
                (0, true)
            } else {
                (m >> sh, sticky || m & ((1u128 << sh) - 1) != 0)
            };
            if inexact && mag_up {
                kept += 1;
            }
            let b = if kept == 0 {
                0
            } else {
                // Exponent field q − EMIN (+1 through the hidden bit of a normal `kept`); a
                // carry to 2^P moves into the exponent field by itself.
                (((q - F::EMIN) as u64) << (F::P - 1)) + kept as u64
            };
            sign | b.min(F::INF)
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
enum Op {
    Add = 0,
    Sub = 1,
    Mul = 2,
    Div = 3,
    Fma = 4,
    Sqrt = 5,
}

impl Op {
    fn name(self) -> &'static str {
        ["add", "sub", "mul", "div", "fma", "sqrt"][self as usize]
    }
    fn describe<F: Fmt>(self, a: u64, b: u64, c: u64) -> String {
        match self {
            Op::Add => format!("{} + {}", show::<F>(a), show::<F>(b)),
            Op::Sub => format!("{} - {}", show::<F>(a), show::<F>(b)),
            Op::Mul => format!("{} * {}", show::<F>(a), show::<F>(b)),
            Op::Div => format!("{} / {}", show::<F>(a), show::<F>(b)),
            Op::Fma => format!("{} * {} + {}", show::<F>(a), show::<F>(b), show::<F>(c)),
            Op::Sqrt => format!("sqrt({})", show::<F>(a)),
        }
    }
}

fn exact_of<F: Fmt>(op: Op, a: u64, b: u64, c: u64) -> Exact {
    let (x, y) = (decode::<F>(a), decode::<F>(b));
    match op {
        Op::Add => sum(x, y),
        Op::Sub => sum(x, negate(y)),
        Op::Mul => product(x, y),
        Op::Div => quotient(x, y),
        Op::Fma => sum(product(x, y), decode::<F>(c)),
        Op::Sqrt => root(x),
    }
}

/// What the oracle allows for one sample.
#[derive(Clone, Copy, Debug)]
struct Expect {
    nan: bool,
    ru: u64,
    rd: u64,
    /// RU ≠ RD as values (a zero sum of either sign is exact).
    inexact: bool,
}

fn expect<F: Fmt>(x: &Exact) -> Expect {
    let ru = round::<F>(x, true);
    let rd = round::<F>(x, false);
    let both_zero = (ru | rd) & !F::SIGN == 0;
    Expect {
        nan: matches!(x, Exact::Nan),
        ru,
        rd,
        inexact: ru != rd && !both_zero,
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Verdict {
    /// RU = RD (bitwise) and the sample is it, or NaN expected and got.
    Exact,
    Up,
    Down,
    Bad,
}

fn classify<F: Fmt>(e: &Expect, got: u64) -> Verdict {
    if e.nan {
        return if is_nan::<F>(got) {
            Verdict::Exact
        } else {
            Verdict::Bad
        };
    }
    if got == e.ru && got == e.rd {
        Verdict::Exact
    } else if got == e.ru {
        Verdict::Up
    } else if got == e.rd {
        Verdict::Down
    } else {
        Verdict::Bad
    }
}

// ------------------------------------------------------------------------------------------
// Operand generation
// ------------------------------------------------------------------------------------------

/// A finite value with leading bit at `2^t` (clamped to the format), a random significand
/// (only its top few bits when `short`).
fn with_top<F: Fmt>(t: i32, neg: bool, short: bool, r: &mut Rng) -> u64 {
    let t = t.clamp(F::EMIN, F::EMAX);
    let p = F::P as u32;
    let mut m = (1u64 << (p - 1)) | (r.next() & ((1u64 << (p - 1)) - 1));
    if short {
        let k = 1 + r.below((p / 2) as u64) as u32; // keep k ≤ P/2 leading bits
        m &= !((1u64 << (p - k)) - 1);
    }
    let x = Exact::Fin {
        neg,
        m: m as u128,
        e: t - (F::P - 1),
        sticky: false,
    };
    // Below the normal range the low bits fall off: truncate toward zero.
    let b = round::<F>(&x, neg);
    if b & !F::SIGN == 0 {
        b | 1
    } else {
        b
    }
}

fn special<F: Fmt>(r: &mut Rng) -> u64 {
    let minpos = 1u64 << (F::P - 1);
    let list = [
        0,
        F::INF,
        F::QNAN,
        F::INF | 1, // signalling NaN
        minpos,
        minpos + 1,
        minpos - 1, // largest subnormal
        1,          // smallest subnormal
        F::MAX_B,
        F::MAX_B - 1,
        F::ONE_B,
        F::ONE_B + 1,
    ];
    let b = list[r.below(list.len() as u64) as usize];
    if r.bit() {
        b | F::SIGN
    } else {
        b
    }
}

fn gen1<F: Fmt>(r: &mut Rng) -> u64 {
    let neg = r.bit();
    let sign = if neg { F::SIGN } else { 0 };
    let all = if F::BITS == 64 {
        u64::MAX
    } else {
        (1u64 << F::BITS) - 1
    };
    match r.below(100) {
        0..=3 => special::<F>(r),
        4..=33 => r.next() & all,
        34..=39 => {
            let t = F::EMIN + r.below(F::P as u64 - 1) as i32;
            with_top::<F>(t, neg, r.below(4) == 0, r) | sign
        }
        40..=69 => with_top::<F>(r.range(-30, 30), neg, false, r),
        70..=84 => with_top::<F>(r.range(-30, 30), neg, true, r),
        _ => {
            let t = if r.bit() {
                F::EMIN + r.below(2 * F::P as u64 + 4) as i32
            } else {
                F::EMAX - r.below(F::P as u64 + 2) as i32
            };
            let short = r.below(4) == 0;
            with_top::<F>(t, neg, short, r)
        }
    }
}

fn finite1<F: Fmt>(r: &mut Rng) -> u64 {
    loop {
        let b = gen1::<F>(r);
        if b & !F::SIGN < F::INF && b & !F::SIGN != 0 {
            return b;
        }
    }
}

fn top_of<F: Fmt>(b: u64) -> i32 {
    match decode::<F>(b) {
        Exact::Fin { m, e, .. } => top_bit(m, e),
        _ => 0,
    }
}

/// A value whose magnitude's bits are close to those of `a` (same sign).
fn close<F: Fmt>(r: &mut Rng, a: u64) -> u64 {
    let mag = a & !F::SIGN;
    if mag >= F::INF {
        return finite1::<F>(r);
    }
    let k = r.below(F::P as u64 + 2);
    let delta = r.next() & ((1u64 << k) - 1);
    let m = if r.bit() {
        mag.saturating_add(delta).min(F::MAX_B)
    } else {
        mag.saturating_sub(delta)
    };
    (a & F::SIGN) | m
}

/// Leading-bit exponents `(ta, tb)` of two operands whose product (`div == false`) or quotient
/// has its leading bit near `tr`.
fn split_top<F: Fmt>(r: &mut Rng, tr: i32, div: bool) -> (i32, i32) {
    // product: tb = tr − ta; quotient: tb = ta − tr; both must lie in [EMIN, EMAX].
    let (lo, hi) = if div {
        ((tr + F::EMIN).max(F::EMIN), (tr + F::EMAX).min(F::EMAX))
    } else {
        ((tr - F::EMAX).max(F::EMIN), (tr - F::EMIN).min(F::EMAX))
    };
    let ta = r.range(lo, hi);
    (ta, if div { ta - tr } else { tr - ta })
}

/// A leading-bit exponent for a product or quotient near the underflow (`low`) or the
/// overflow threshold.
fn edge_top<F: Fmt>(r: &mut Rng, low: bool) -> i32 {
    if low {
        F::EMIN + r.range(-3, 2 * F::P + 12)
    } else {
        F::EMAX + r.range(-2, 1)
    }
}

/// Two operands of signs `neg_a` and `neg_b` whose product (`div == false`) or quotient has
/// its leading bit near `tr` (see [`split_top`]).
fn pair_near<F: Fmt>(r: &mut Rng, tr: i32, div: bool, neg_a: bool, neg_b: bool) -> (u64, u64) {
    let (ta, tb) = split_top::<F>(r, tr, div);
    let a = with_top::<F>(ta, neg_a, false, r);
    (a, with_top::<F>(tb, neg_b, false, r))
}

/// Two operands of signs `neg_a` and `neg_b`, each with its leading bit at a fresh draw of
/// `top` (drawn in the order a, then b, as [`with_top`] calls in a row would).
fn pair_at<F: Fmt>(
    r: &mut Rng,
    neg_a: bool,
    neg_b: bool,
    short: bool,
    top: impl Fn(&mut Rng) -> i32,
) -> (u64, u64) {
    let ta = top(r);
    let a = with_top::<F>(ta, neg_a, short, r);
    let tb = top(r);
    (a, with_top::<F>(tb, neg_b, short, r))
}

fn gen_tuple<F: Fmt>(op: Op, r: &mut Rng) -> (u64, u64, u64) {
    let s = r.below(100);
    let sign_a = r.bit();
    let sign_b = r.bit();
    match op {
        Op::Add | Op::Sub => match s {
            0..=39 => (gen1::<F>(r), gen1::<F>(r), 0),
            40..=64 => {
                // Cancellation: operands of close magnitude, effective subtraction (mostly).
                let a = finite1::<F>(r);
                let b = close::<F>(r, a) & !F::SIGN;
                let a_neg = a & F::SIGN != 0;
                let effective_sub = r.below(5) != 0;
                let b_neg = if op == Op::Add {
                    a_neg != effective_sub
                } else {
                    a_neg == effective_sub
                };
                (a, b | if b_neg { F::SIGN } else { 0 }, 0)
            }
            65..=84 => {
                // The smaller operand straddles or just misses the larger one's last bit.
                let a = finite1::<F>(r);
                let k = if r.below(4) == 0 {
                    r.below(3 * F::P as u64)
                } else {
                    r.below(F::P as u64 + 6)
                };
                let short = r.below(3) == 0;
                let b = with_top::<F>(top_of::<F>(a) - k as i32, sign_b, short, r);
                if r.bit() {
                    (a, b, 0)
                } else {
                    (b, a, 0)
                }
            }
            85..=94 => {
                let (a, b) = pair_at::<F>(r, sign_a, sign_b, true, |r| r.range(-10, 10));
                (a, b, 0)
            }
            _ => {
                let (a, b) = pair_at::<F>(r, sign_a, sign_b, false, |r| {
                    F::EMIN + r.below(F::P as u64 + 3) as i32
                });
                (a, b, 0)
            }
        },
        Op::Mul => match s {
            0..=39 => (gen1::<F>(r), gen1::<F>(r), 0),
            40..=84 => {
                let tr = edge_top::<F>(r, s <= 64);
                let (a, b) = pair_near::<F>(r, tr, false, sign_a, sign_b);
                (a, b, 0)
            }
            _ => {
                let (a, b) = pair_at::<F>(r, sign_a, sign_b, true, |r| r.range(-40, 40));
                (a, b, 0)
            }
        },
        Op::Div => match s {
            0..=39 => (gen1::<F>(r), gen1::<F>(r), 0),
            40..=74 => {
                let tr = edge_top::<F>(r, s <= 59);
                let (a, b) = pair_near::<F>(r, tr, true, sign_a, sign_b);
                (a, b, 0)
            }
            75..=89 => {
                // Exact quotients: a = b·q with short significands.
                let (b, q) = pair_at::<F>(r, sign_b, sign_a, true, |r| r.range(-30, 30));
                (F::hw_mul(b, q), b, 0)
            }
            _ => {
                let a = finite1::<F>(r);
                let b = close::<F>(r, a);
                (a, if sign_b { b ^ F::SIGN } else { b }, 0)
            }
        },
        Op::Fma => match s {
            0..=24 => (gen1::<F>(r), gen1::<F>(r), gen1::<F>(r)),
            25..=49 => {
                // c ≈ −a·b: the result is (close to) the product's rounding error.
                let (a, b) = if r.bit() {
                    (finite1::<F>(r), finite1::<F>(r))
                } else {
                    pair_at::<F>(r, sign_a, sign_b, false, |r| r.range(-20, 20))
                };
                let p = F::hw_mul(a, b);
                let c = if r.below(5) < 2 { p } else { close::<F>(r, p) };
                (a, b, c ^ F::SIGN)
            }
            50..=64 => {
                let (a, b) = pair_at::<F>(r, sign_a, sign_b, false, |r| r.range(-20, 20));
                let tp = top_of::<F>(F::hw_mul(a, b));
                let k = r.below(2 * F::P as u64 + 8) as i32;
                let t = if r.below(4) == 0 { tp + k / 8 } else { tp - k };
                (a, b, with_top::<F>(t, r.bit(), r.bit(), r))
            }
            65..=74 => {
                let tr = edge_top::<F>(r, true);
                let (a, b) = pair_near::<F>(r, tr, false, sign_a, sign_b);
                let c = match r.below(3) {
                    0 => {
                        with_top::<F>(F::EMIN + r.below(F::P as u64 + 4) as i32, r.bit(), false, r)
                    }
                    // Small addends up to well above the product (2^-249 and beyond for f64).
                    1 => {
                        let t = r.range(F::EMIN, F::EMIN + (F::EMAX - F::EMIN) * 2 / 5);
                        with_top::<F>(t, r.bit(), r.bit(), r)
                    }
                    _ => close::<F>(r, F::hw_mul(a, b)) ^ F::SIGN,
                };
                (a, b, c)
            }
            75..=84 => {
                let tr = edge_top::<F>(r, false);
                let (a, b) = pair_near::<F>(r, tr, false, sign_a, sign_b);
                let c = match r.below(3) {
                    0 => gen1::<F>(r),
                    1 => with_top::<F>(F::EMAX - r.below(3) as i32, r.bit(), false, r),
                    // Cancels a huge (possibly overflowing) product.
                    _ => {
                        let p = F::hw_mul(a, b);
                        let p = if p & !F::SIGN >= F::INF {
                            (p & F::SIGN) | F::MAX_B
                        } else {
                            p
                        };
                        close::<F>(r, p) ^ F::SIGN
                    }
                };
                (a, b, c)
            }
            _ => {
                let (a, b) = pair_at::<F>(r, sign_a, sign_b, true, |r| r.range(-20, 20));
                let tp = top_of::<F>(F::hw_mul(a, b));
                let c = with_top::<F>(tp - r.range(-4, F::P), r.bit(), true, r);
                (a, b, c)
            }
        },
        Op::Sqrt => {
            let a = match s {
                0..=34 => {
                    let a = gen1::<F>(r);
                    if r.below(100) < 85 {
                        a & !F::SIGN
                    } else {
                        a
                    }
                }
                35..=59 => {
                    // (Near-)perfect squares.
                    let x =
                        with_top::<F>(r.range(F::EMIN / 2 + 1, F::EMAX / 2 - 1), false, r.bit(), r);
                    let sq = F::hw_mul(x, x);
                    match r.below(4) {
                        0 if sq > 1 => sq - 1,
                        1 if sq < F::MAX_B => sq + 1,
                        _ => sq,
                    }
                }
                60..=74 => with_top::<F>(
                    F::EMIN + r.below(2 * F::P as u64 + 12) as i32,
                    false,
                    r.bit(),
                    r,
                ),
                75..=84 => with_top::<F>(F::EMAX - r.below(3) as i32, false, false, r),
                _ => with_top::<F>(r.range(-40, 40), false, r.below(4) == 0, r),
            };
            (a, 0, 0)
        }
    }
}

// ------------------------------------------------------------------------------------------
// The code under test, called three ways
// ------------------------------------------------------------------------------------------

fn arr<F: Fmt>(b: [u64; 3]) -> [F; 3] {
    b.map(F::of)
}

/// The dispatching kernels (AVX-512 when compiled in). `sub` is `add3` with `b` negated, as the
/// `-` operator does.
fn dispatch<F: Fmt>(op: Op, a: [u64; 3], b: [u64; 3], c: [u64; 3], dir: u32) -> [u64; 3] {
    let (code, b) = code::<F>(op, b);
    dispatch3::<F>(code, arr::<F>(a), arr::<F>(b), arr::<F>(c), dir).map(Fmt::bits)
}

/// `path`'s kernels run directly (the AVX2 ones through functions with those target features
/// where the build's target lacks them; the AVX-512 ones from inline assembly), whatever the
/// path the operators dispatch to; `None` where the processor cannot run it, which fails under
/// `STOCH_REQUIRE_AVX2=1` or `STOCH_REQUIRE_AVX512=1`.
fn on_path<F: Fmt>(
    path: Path,
    op: Op,
    a: [u64; 3],
    b: [u64; 3],
    c: [u64; 3],
    dir: u32,
) -> Option<[u64; 3]> {
    let (code, b) = code::<F>(op, b);
    let r = kernel3::<F>(path, code, arr::<F>(a), arr::<F>(b), arr::<F>(c), dir);
    if r.is_none() {
        let var = match path {
            Path::Avx512 => "STOCH_REQUIRE_AVX512",
            _ => "STOCH_REQUIRE_AVX2",
        };
        assert!(
            std::env::var(var).map_or(true, |v| v != "1"),
            "{var}=1 but this processor cannot run the {path} path"
        );
    }
    r.map(|r| r.map(Fmt::bits))
}

/// The kernels' operation code (0 add, 1 mul, 2 div, 3 fma, 4 sqrt) of `op`, and its second
/// operand: `a − b` is `a + (−b)`, as the `-` operator computes it.
fn code<F: Fmt>(op: Op, b: [u64; 3]) -> (u8, [u64; 3]) {
    match op {
        Op::Add => (0, b),
        Op::Sub => (0, b.map(|v| v ^ F::SIGN)),
        Op::Mul => (1, b),
        Op::Div => (2, b),
        Op::Fma => (3, b),
        Op::Sqrt => (4, b),
    }
}

fn portable<F: Fmt>(op: Op, a: [u64; 3], b: [u64; 3], c: [u64; 3], dir: u32) -> [u64; 3] {
    on_path::<F>(Path::Portable, op, a, b, c, dir).expect("the portable path runs everywhere")
}

/// The public operators, with the library's own random bits; operands are exact values.
fn operator<F: Fmt>(op: Op, a: u64, b: u64, c: u64) -> [u64; 3] {
    let (x, y, z) = (
        Stochastic::new(F::of(a)),
        Stochastic::new(F::of(b)),
        Stochastic::new(F::of(c)),
    );
    let r = match op {
        Op::Add => x + y,
        Op::Sub => x - y,
        Op::Mul => x * y,
        Op::Div => x / y,
        Op::Fma => x.mul_add(y, z),
        Op::Sqrt => x.sqrt(),
    };
    r.samples().map(Fmt::bits)
}

// ------------------------------------------------------------------------------------------
// Bookkeeping
// ------------------------------------------------------------------------------------------

/// How many failures each test prints in full (`STOCH_ORACLE_SHOW`, default 12).
fn max_shown() -> usize {
    std::env::var("STOCH_ORACLE_SHOW")
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(12)
}

#[derive(Default)]
struct Tally {
    checked: u64,
    nan: u64,
    exact: u64,
    inexact: u64,
    overflow: u64,
    underflow: u64,
    zero_sum: u64,
    failures: u64,
    shown: Vec<String>,
}

impl Tally {
    fn count(&mut self, e: &Expect, x: &Exact) {
        self.checked += 1;
        if e.nan {
            self.nan += 1;
        } else if e.inexact {
            self.inexact += 1;
        } else {
            self.exact += 1;
        }
        if matches!(x, Exact::Zero(None)) {
            self.zero_sum += 1;
        }
    }
    fn fail(&mut self, msg: String) {
        self.failures += 1;
        if self.shown.len() < max_shown() {
            self.shown.push(msg);
        }
    }
}

fn dir_name(down: bool) -> &'static str {
    if down {
        "down"
    } else {
        "up"
    }
}

#[allow(clippy::too_many_arguments)]
fn failure<F: Fmt>(
    path: &str,
    op: Op,
    idx: usize,
    a: u64,
    b: u64,
    c: u64,
    dir: Option<(u32, usize)>,
    e: &Expect,
    got: u64,
    seed: u64,
) -> String {
    let mut s = String::new();
    let _ = write!(
        s,
        "[{} {} {}] tuple #{idx}: {}",
        path,
        F::FNAME,
        op.name(),
        op.describe::<F>(a, b, c)
    );
    if let Some((d, i)) = dir {
        let down = [d & 1 != 0, d & 2 != 0, d & 2 == 0][i];
        let _ = write!(
            s,
            "; dir={d} sample {} should round {}",
            ["x", "y", "z"][i],
            dir_name(down)
        );
    }
    if e.nan {
        let _ = write!(s, "; expected NaN");
    } else {
        let _ = write!(
            s,
            "; expected RU={} RD={}",
            show::<F>(e.ru),
            show::<F>(e.rd)
        );
    }
    let _ = write!(s, "; got {}; seed=0x{seed:016x}", show::<F>(got));
    s
}

fn finish(name: &str, seed: u64, t: &Tally, extra: &str) {
    println!(
        "{name}: {} samples checked: {} inexact, {} exact, {} NaN, {} overflow, {} underflow, {} signed-zero sums{extra}; {} failures (seed 0x{seed:016x})",
        t.checked, t.inexact, t.exact, t.nan, t.overflow, t.underflow, t.zero_sum, t.failures
    );
    if t.failures > 0 {
        panic!(
            "{name}: {} samples are not the directed rounding of the exact result (seed 0x{seed:016x}; rerun with STOCH_TEST_SEED=0x{seed:x}):\n  {}",
            t.failures,
            t.shown.join("\n  ")
        );
    }
}

fn overflow_underflow<F: Fmt>(t: &mut Tally, e: &Expect) {
    if !e.nan && e.inexact {
        if e.ru & !F::SIGN == F::INF || e.rd & !F::SIGN == F::INF {
            t.overflow += 1;
        }
        if e.ru & !F::SIGN == 0 || e.rd & !F::SIGN == 0 {
            t.underflow += 1;
        }
    }
}

// ------------------------------------------------------------------------------------------
// The tests
// ------------------------------------------------------------------------------------------

/// Dispatching kernels, the portable path and the AVX2 path, directions chosen by the test.
fn kernels_vs_oracle<F: Fmt>(op: Op) {
    // Chooses the rounding path first, so that `dispatch` below is the path the operators run
    // (in a build without AVX-512 on a processor with it: the run-time AVX-512 kernels).
    let _ = stoch_core::path::current();
    let seed = base_seed();
    let n = n_per_op();
    let mut r = Rng::new(sub_seed(seed, 1, op, F::BITS));
    let mut t_d = Tally::default();
    let mut t_p = Tally::default();
    let mut t_a = Tally::default();
    let mut t_r = Tally::default();
    let mut avx2_checked = false;
    let mut rt512_checked = false;
    let mut idx = 0usize;
    while idx < n {
        let mut a = [0u64; 3];
        let mut b = [0u64; 3];
        let mut c = [0u64; 3];
        for i in 0..3 {
            (a[i], b[i], c[i]) = gen_tuple::<F>(op, &mut r);
        }
        let bits = r.next();
        let code = (bits & 3) as u32;
        // The kernels read the two direction bits in place and ignore the others: random here.
        let dir = dir_word(code) | ((bits >> 2) as u32 & !DIR_MASK);
        let down = [code & 1 != 0, code & 2 != 0, code & 2 == 0];
        let gd = dispatch::<F>(op, a, b, c, dir);
        let gp = portable::<F>(op, a, b, c, dir);
        let ga = on_path::<F>(Path::Avx2, op, a, b, c, dir);
        avx2_checked |= ga.is_some();
        let gr = on_path::<F>(Path::Avx512, op, a, b, c, dir);
        rt512_checked |= gr.is_some();
        for i in 0..3 {
            let x = exact_of::<F>(op, a[i], b[i], c[i]);
            let e = expect::<F>(&x);
            for (path, got, t) in [
                ("dispatch", gd[i], &mut t_d),
                ("portable", gp[i], &mut t_p),
                ("avx2", ga.map_or(gd[i], |g| g[i]), &mut t_a),
                ("rt512", gr.map_or(gd[i], |g| g[i]), &mut t_r),
            ] {
                if (path == "avx2" && ga.is_none()) || (path == "rt512" && gr.is_none()) {
                    continue;
                }
                t.count(&e, &x);
                overflow_underflow::<F>(t, &e);
                let v = classify::<F>(&e, got);
                let ok = match v {
                    Verdict::Bad => false,
                    Verdict::Exact => true,
                    Verdict::Up => !down[i],
                    Verdict::Down => down[i],
                };
                if !ok {
                    t.fail(failure::<F>(
                        path,
                        op,
                        idx + i,
                        a[i],
                        b[i],
                        c[i],
                        Some((code, i)),
                        &e,
                        got,
                        seed,
                    ));
                }
            }
        }
        idx += 3;
    }
    let name = format!("kernels {} {}", F::FNAME, op.name());
    let both = std::panic::catch_unwind(|| finish(&format!("{name} [dispatch]"), seed, &t_d, ""));
    let avx2_done = std::panic::catch_unwind(|| {
        if avx2_checked {
            finish(&format!("{name} [avx2]"), seed, &t_a, "");
        }
    });
    let rt512_done = std::panic::catch_unwind(|| {
        if rt512_checked {
            finish(&format!("{name} [rt512]"), seed, &t_r, "");
        }
    });
    finish(&format!("{name} [portable]"), seed, &t_p, "");
    if let Err(p) = rt512_done {
        std::panic::resume_unwind(p);
    }
    if let Err(p) = avx2_done {
        std::panic::resume_unwind(p);
    }
    if let Err(p) = both {
        std::panic::resume_unwind(p);
    }
}

/// The public operators with the library's random bits: RU/RD, z opposite y, frequencies.
fn operators_vs_oracle<F: Fmt>(op: Op) {
    let seed = base_seed();
    // N operand tuples per operation and type through the public operators, as through the
    // kernels above (±0.01 is then about 20 σ for the frequencies).
    let n = n_per_op();
    stoch_core::seed(seed);
    let mut r = Rng::new(sub_seed(seed, 2, op, F::BITS));
    let mut t = Tally::default();
    let mut up = [0u64; 3];
    let mut directed = 0u64; // inexact cases
    for idx in 0..n {
        let (a, b, c) = gen_tuple::<F>(op, &mut r);
        let got = operator::<F>(op, a, b, c);
        let x = exact_of::<F>(op, a, b, c);
        let e = expect::<F>(&x);
        let mut v = [Verdict::Exact; 3];
        for i in 0..3 {
            t.count(&e, &x);
            overflow_underflow::<F>(&mut t, &e);
            v[i] = classify::<F>(&e, got[i]);
            if v[i] == Verdict::Bad {
                t.fail(failure::<F>(
                    "operator", op, idx, a, b, c, None, &e, got[i], seed,
                ));
            }
        }
        if v.contains(&Verdict::Bad) {
            continue;
        }
        // Inexact results and signed zero sums have a direction: z must oppose y.
        if e.ru != e.rd && !e.nan {
            if v[1] == v[2] {
                t.fail(format!(
                    "[operator {} {}] tuple #{idx}: {}: y and z both rounded {:?} (samples {}, {}, {}); seed=0x{seed:016x}",
                    F::FNAME,
                    op.name(),
                    op.describe::<F>(a, b, c),
                    v[1],
                    show::<F>(got[0]),
                    show::<F>(got[1]),
                    show::<F>(got[2])
                ));
            }
            if e.inexact {
                directed += 1;
                for i in 0..3 {
                    up[i] += (v[i] == Verdict::Up) as u64;
                }
            }
        }
    }
    let freq = up.map(|u| u as f64 / directed.max(1) as f64);
    let extra = format!(
        "; round-up frequency over {directed} inexact results: x {:.4}, y {:.4}, z {:.4}",
        freq[0], freq[1], freq[2]
    );
    // The ±0.01 band is ≥ 4 standard deviations once there are 40 000 inexact results.
    if directed >= 40_000 {
        for i in 0..3 {
            if (freq[i] - 0.5).abs() > 0.01 {
                t.fail(format!(
                    "[operator {} {}] sample {} rounds up with frequency {:.4} over {directed} inexact results, outside 0.5 ± 0.01; seed=0x{seed:016x}",
                    F::FNAME,
                    op.name(),
                    ["x", "y", "z"][i],
                    freq[i]
                ));
            }
        }
    } else if n_per_op() >= 1_000_000 {
        // At the size every operation has far more inexact results than that.
        t.fail(format!(
            "[operator {} {}] only {directed} inexact results out of {n} operand triples: the data no longer exercises rounding",
            F::FNAME,
            op.name()
        ));
    } else {
        println!(
            "operators {} {}: only {directed} inexact results (STOCH_ORACLE_N={}), frequency band not checked",
            F::FNAME,
            op.name(),
            n_per_op()
        );
    }
    finish(
        &format!("operators {} {}", F::FNAME, op.name()),
        seed,
        &t,
        &extra,
    );
}

macro_rules! oracle_tests {
    ($($kname:ident, $oname:ident: $t:ty, $op:expr;)*) => {$(
        #[test]
        fn $kname() {
            kernels_vs_oracle::<$t>($op);
        }
        #[test]
        fn $oname() {
            operators_vs_oracle::<$t>($op);
        }
    )*};
}

oracle_tests! {
    kernels_f64_add, operators_f64_add: f64, Op::Add;
    kernels_f64_sub, operators_f64_sub: f64, Op::Sub;
    kernels_f64_mul, operators_f64_mul: f64, Op::Mul;
    kernels_f64_div, operators_f64_div: f64, Op::Div;
    kernels_f64_fma, operators_f64_fma: f64, Op::Fma;
    kernels_f64_sqrt, operators_f64_sqrt: f64, Op::Sqrt;
    kernels_f32_add, operators_f32_add: f32, Op::Add;
    kernels_f32_sub, operators_f32_sub: f32, Op::Sub;
    kernels_f32_mul, operators_f32_mul: f32, Op::Mul;
    kernels_f32_div, operators_f32_div: f32, Op::Div;
    kernels_f32_fma, operators_f32_fma: f32, Op::Fma;
    kernels_f32_sqrt, operators_f32_sqrt: f32, Op::Sqrt;
}

// ------------------------------------------------------------------------------------------
// The oracle checked: hand-computed cases, and a second exact oracle in big integers
// ------------------------------------------------------------------------------------------

/// `(op, a, b, c, RU, RD)`, written out by hand; every path is run with all four `dir` values.
fn hand_cases_f64() -> Vec<(Op, f64, f64, f64, f64, f64)> {
    let min = f64::from_bits(1);
    let max = f64::MAX;
    let inf = f64::INFINITY;
    let nan = f64::NAN;
    let h = f64::from_bits;
    let third_dn = f64::from_bits(0x3FD5_5555_5555_5555);
    let third_up = f64::from_bits(0x3FD5_5555_5555_5556);
    vec![
        (Op::Add, 1.0, 2.0, 0.0, 3.0, 3.0),
        (Op::Add, 0.1, 0.2, 0.0, 0.30000000000000004, 0.3),
        (Op::Add, 1.0, 1e-300, 0.0, 1.0f64.next_up(), 1.0),
        (Op::Add, -1.0, -1e-300, 0.0, -1.0, -(1.0f64.next_up())),
        (Op::Add, 1.0, -1e-300, 0.0, 1.0, 1.0f64.next_down()),
        (Op::Add, max, max, 0.0, inf, max),
        (Op::Add, -max, -max, 0.0, -max, -inf),
        (Op::Add, 1.5, -1.5, 0.0, 0.0, -0.0),
        (Op::Add, 0.0, -0.0, 0.0, 0.0, -0.0),
        (Op::Add, -0.0, -0.0, 0.0, -0.0, -0.0),
        (Op::Add, 0.0, 0.0, 0.0, 0.0, 0.0),
        (Op::Add, min, -min, 0.0, 0.0, -0.0),
        (Op::Add, inf, -max, 0.0, inf, inf),
        (Op::Add, inf, -inf, 0.0, nan, nan),
        (Op::Add, nan, 1.0, 0.0, nan, nan),
        (Op::Sub, 1.0, 1.0, 0.0, 0.0, -0.0),
        (Op::Sub, -0.0, 0.0, 0.0, -0.0, -0.0),
        (Op::Sub, inf, inf, 0.0, nan, nan),
        (Op::Mul, 3.0, -0.0, 0.0, -0.0, -0.0),
        (Op::Mul, -0.0, -0.0, 0.0, 0.0, 0.0),
        (Op::Mul, min, 0.5, 0.0, min, 0.0),
        (Op::Mul, -min, 0.5, 0.0, -0.0, -min),
        (Op::Mul, min, 1.5, 0.0, f64::from_bits(2), min),
        (Op::Mul, max, 2.0, 0.0, inf, max),
        (Op::Mul, max, -2.0, 0.0, -max, -inf),
        (Op::Mul, inf, 0.0, 0.0, nan, nan),
        (Op::Mul, inf, -2.0, 0.0, -inf, -inf),
        (
            Op::Mul,
            1.0 + f64::EPSILON,
            1.0 + f64::EPSILON,
            0.0,
            1.0 + 3.0 * f64::EPSILON,
            1.0 + 2.0 * f64::EPSILON,
        ),
        (Op::Div, 1.0, 3.0, 0.0, third_up, third_dn),
        (Op::Div, -1.0, 3.0, 0.0, -third_dn, -third_up),
        (Op::Div, 1.0, 0.0, 0.0, inf, inf),
        (Op::Div, 1.0, -0.0, 0.0, -inf, -inf),
        (Op::Div, 0.0, 0.0, 0.0, nan, nan),
        (Op::Div, inf, inf, 0.0, nan, nan),
        (Op::Div, -1.0, inf, 0.0, -0.0, -0.0),
        (Op::Div, min, 4.0, 0.0, min, 0.0),
        (Op::Div, max, 0.5, 0.0, inf, max),
        (Op::Div, 6.0, 4.0, 0.0, 1.5, 1.5),
        (Op::Fma, 2.0, 3.0, 1.0, 7.0, 7.0),
        (Op::Fma, 0.0, 5.0, -0.0, 0.0, -0.0),
        (Op::Fma, -0.0, 5.0, -0.0, -0.0, -0.0),
        (Op::Fma, 2.0, 3.0, -6.0, 0.0, -0.0),
        (Op::Fma, inf, 0.0, 1.0, nan, nan),
        (Op::Fma, inf, 1.0, -inf, nan, nan),
        (Op::Fma, 1.0, 1.0, inf, inf, inf),
        (Op::Fma, max, 2.0, -max, max, max),
        (Op::Fma, max, 2.0, 0.0, inf, max),
        (Op::Fma, 1e-200, 1e-200, 1.0, 1.0f64.next_up(), 1.0),
        (Op::Fma, 1e-200, -1e-200, 1.0, 1.0, 1.0f64.next_down()),
        (Op::Fma, third_up, 3.0, -1.0, 2f64.powi(-53), 2f64.powi(-53)),
        (Op::Sqrt, 4.0, 0.0, 0.0, 2.0, 2.0),
        (
            Op::Sqrt,
            2.0,
            0.0,
            0.0,
            f64::from_bits(0x3FF6_A09E_667F_3BCD),
            f64::from_bits(0x3FF6_A09E_667F_3BCC),
        ),
        (Op::Sqrt, -0.0, 0.0, 0.0, -0.0, -0.0),
        (Op::Sqrt, -1.0, 0.0, 0.0, nan, nan),
        (Op::Sqrt, inf, 0.0, 0.0, inf, inf),
        (Op::Sqrt, -inf, 0.0, 0.0, nan, nan),
        (
            Op::Sqrt,
            f64::from_bits(4),
            0.0,
            0.0,
            f64::from_bits(0x1E70_0000_0000_0000),
            f64::from_bits(0x1E70_0000_0000_0000),
        ),
        // Found by the random tests (expected values confirmed by the big-integer oracle): an
        // intermediate of the error-free transformation overflows while the result is finite.
        (
            Op::Add,
            h(0xFFCD_A0C3_5067_4AFE),
            max,
            0.0,
            h(0x7FE8_97CF_2BE6_2D40),
            h(0x7FE8_97CF_2BE6_2D3F),
        ),
        (
            Op::Div,
            -max,
            h(0x7F3D_39F2_0000_0000),
            0.0,
            h(0xC0A1_84B8_6559_5AE7),
            h(0xC0A1_84B8_6559_5AE8),
        ),
        (
            Op::Fma,
            h(0xE0D5_5974_5ACD_A3DB),
            h(0x5F0D_4D63_096F_7B28),
            h(0x7FE0_5E11_CF46_2D9E),
            h(0xFFE6_BB53_BB5A_8D3B),
            h(0xFFE6_BB53_BB5A_8D3C),
        ),
    ]
}

fn run_hand_case<F: Fmt>(
    op: Op,
    a: u64,
    b: u64,
    c: u64,
    ru: u64,
    rd: u64,
    fails: &mut Vec<String>,
) {
    let x = exact_of::<F>(op, a, b, c);
    let e = expect::<F>(&x);
    let want_nan = is_nan::<F>(ru);
    let oracle_ok = if want_nan {
        e.nan
    } else {
        !e.nan && e.ru == ru && e.rd == rd
    };
    if !oracle_ok {
        fails.push(format!(
            "oracle: {} {}: want RU={} RD={}, oracle says {e:?}",
            F::FNAME,
            op.describe::<F>(a, b, c),
            show::<F>(ru),
            show::<F>(rd)
        ));
    }
    let e = Expect {
        nan: want_nan,
        ru,
        rd,
        inexact: ru != rd,
    };
    let mut reported = [false; 4]; // one message per path and case
    for code in 0..4u32 {
        let dir = dir_word(code);
        let down = [code & 1 != 0, code & 2 != 0, code & 2 == 0];
        for (k, (path, got)) in [
            ("dispatch", dispatch::<F>(op, [a; 3], [b; 3], [c; 3], dir)),
            ("portable", portable::<F>(op, [a; 3], [b; 3], [c; 3], dir)),
            (
                "rt512",
                on_path::<F>(Path::Avx512, op, [a; 3], [b; 3], [c; 3], dir)
                    .unwrap_or_else(|| portable::<F>(op, [a; 3], [b; 3], [c; 3], dir)),
            ),
            (
                "avx2",
                on_path::<F>(Path::Avx2, op, [a; 3], [b; 3], [c; 3], dir)
                    .unwrap_or_else(|| portable::<F>(op, [a; 3], [b; 3], [c; 3], dir)),
            ),
        ]
        .into_iter()
        .enumerate()
        {
            for i in 0..3 {
                let ok = if want_nan {
                    is_nan::<F>(got[i])
                } else {
                    got[i] == if down[i] { rd } else { ru }
                };
                if !ok && !reported[k] {
                    reported[k] = true;
                    fails.push(failure::<F>(
                        path,
                        op,
                        0,
                        a,
                        b,
                        c,
                        Some((code, i)),
                        &e,
                        got[i],
                        0,
                    ));
                }
            }
        }
    }
}

#[test]
fn hand_checked_cases() {
    let mut fails = Vec::new();
    for (op, a, b, c, ru, rd) in hand_cases_f64() {
        run_hand_case::<f64>(
            op,
            a.to_bits(),
            b.to_bits(),
            c.to_bits(),
            ru.to_bits(),
            rd.to_bits(),
            &mut fails,
        );
    }
    // f32: a few, including products that are inexact in f32 but exact in f64.
    let m = f32::MAX;
    let f32_cases: Vec<(Op, f32, f32, f32, f32, f32)> = vec![
        (
            Op::Div,
            1.0,
            3.0,
            0.0,
            f32::from_bits(0x3EAA_AAAB),
            f32::from_bits(0x3EAA_AAAA),
        ),
        (Op::Mul, f32::from_bits(1), 0.5, 0.0, f32::from_bits(1), 0.0),
        (Op::Mul, m, 2.0, 0.0, f32::INFINITY, m),
        (Op::Add, -m, -m, 0.0, -m, f32::NEG_INFINITY),
        (Op::Add, 2.5, -2.5, 0.0, 0.0, -0.0),
        (Op::Fma, 0.0, -1.0, 0.0, 0.0, -0.0),
        (
            Op::Fma,
            1.0 + f32::EPSILON,
            1.0 - f32::EPSILON / 2.0,
            -1.0,
            f32::EPSILON / 2.0 - f32::EPSILON * f32::EPSILON / 2.0,
            f32::EPSILON / 2.0 - f32::EPSILON * f32::EPSILON / 2.0,
        ),
        (
            Op::Sqrt,
            2.0,
            0.0,
            0.0,
            f32::from_bits(0x3FB5_04F4),
            f32::from_bits(0x3FB5_04F3),
        ),
        (Op::Sqrt, -0.0, 0.0, 0.0, -0.0, -0.0),
        (
            Op::Div,
            -1.0,
            0.0,
            0.0,
            f32::NEG_INFINITY,
            f32::NEG_INFINITY,
        ),
        // Found by the random tests: TwoSum's `s - a` overflows.
        (
            Op::Add,
            f32::from_bits(0x7ECC_D0E3),
            -m,
            0.0,
            f32::from_bits(0xFF19_978D),
            f32::from_bits(0xFF19_978E),
        ),
    ];
    for (op, a, b, c, ru, rd) in f32_cases {
        run_hand_case::<f32>(
            op,
            a.to_bits() as u64,
            b.to_bits() as u64,
            c.to_bits() as u64,
            ru.to_bits() as u64,
            rd.to_bits() as u64,
            &mut fails,
        );
    }
    assert!(
        fails.is_empty(),
        "{} hand-checked cases failed:\n  {}",
        fails.len(),
        fails.join("\n  ")
    );
}

/// `x · 2^(−EMIN)` as an exact big integer (finite `x` only).
fn scaled<F: Fmt>(b: u64) -> BigInt {
    match decode::<F>(b) {
        Exact::Zero(_) => BigInt::from(0),
        Exact::Fin { neg, m, e, .. } => {
            let v = BigInt::from(m) << ((e - F::EMIN) as usize);
            if neg {
                -v
            } else {
                v
            }
        }
        _ => panic!("scaled: not finite"),
    }
}

fn next_up_bits<F: Fmt>(b: u64) -> u64 {
    if b & !F::SIGN == 0 {
        1
    } else if b & F::SIGN == 0 {
        b + 1
    } else {
        b - 1
    }
}

fn next_down_bits<F: Fmt>(b: u64) -> u64 {
    next_up_bits::<F>(b ^ F::SIGN) ^ F::SIGN
}

/// The sign of `s − exact` for a finite `s`, by exact big-integer arithmetic (`K = −EMIN`).
fn cmp_exact<F: Fmt>(op: Op, a: u64, b: u64, c: u64, s: u64) -> std::cmp::Ordering {
    let k = (-F::EMIN) as usize;
    let sv = scaled::<F>(s);
    match op {
        Op::Add => sv.cmp(&(scaled::<F>(a) + scaled::<F>(b))),
        Op::Sub => sv.cmp(&(scaled::<F>(a) - scaled::<F>(b))),
        Op::Mul => (sv << k).cmp(&(scaled::<F>(a) * scaled::<F>(b))),
        Op::Fma => (sv << k).cmp(&(scaled::<F>(a) * scaled::<F>(b) + (scaled::<F>(c) << k))),
        Op::Div => {
            let bv = scaled::<F>(b);
            let o = (&sv * &bv).cmp(&(scaled::<F>(a) << k));
            if bv < BigInt::from(0) {
                o.reverse()
            } else {
                o
            }
        }
        Op::Sqrt => {
            // √a ≥ 0 > s for a negative s; otherwise s² vs a.
            if sv < BigInt::from(0) {
                std::cmp::Ordering::Less
            } else {
                (&sv * &sv).cmp(&(scaled::<F>(a) << k))
            }
        }
    }
}

/// Checks with big integers that `ru` is the least format value ≥ the exact result and `rd`
/// the greatest ≤ it (±∞ beyond ±MAX).
fn bigint_check<F: Fmt>(op: Op, a: u64, b: u64, c: u64, ru: u64, rd: u64) -> Result<(), String> {
    use std::cmp::Ordering::*;
    let ninf = F::INF | F::SIGN;
    let ru_ok = if ru == F::INF {
        cmp_exact::<F>(op, a, b, c, F::MAX_B) == Less
    } else if ru == ninf {
        false
    } else {
        cmp_exact::<F>(op, a, b, c, ru) != Less
            && (ru == F::MAX_B | F::SIGN
                || cmp_exact::<F>(op, a, b, c, next_down_bits::<F>(ru)) == Less)
    };
    let rd_ok = if rd == ninf {
        cmp_exact::<F>(op, a, b, c, F::MAX_B | F::SIGN) == Greater
    } else if rd == F::INF {
        false
    } else {
        cmp_exact::<F>(op, a, b, c, rd) != Greater
            && (rd == F::MAX_B || cmp_exact::<F>(op, a, b, c, next_up_bits::<F>(rd)) == Greater)
    };
    if ru_ok && rd_ok {
        Ok(())
    } else {
        Err(format!(
            "fast oracle disagrees with the big-integer oracle: {} {}: RU={} ({}) RD={} ({})",
            F::FNAME,
            op.describe::<F>(a, b, c),
            show::<F>(ru),
            if ru_ok { "ok" } else { "WRONG" },
            show::<F>(rd),
            if rd_ok { "ok" } else { "WRONG" }
        ))
    }
}

fn cross_check<F: Fmt>(seed: u64, per_op: usize, fails: &mut Vec<String>, bad: &mut u64) -> u64 {
    let mut checked = 0;
    for op in [Op::Add, Op::Sub, Op::Mul, Op::Div, Op::Fma, Op::Sqrt] {
        // The same operand stream as the kernel test.
        let mut r = Rng::new(sub_seed(seed, 1, op, F::BITS));
        for _ in 0..per_op {
            let (a, b, c) = gen_tuple::<F>(op, &mut r);
            let finite = |v: u64| v & !F::SIGN < F::INF;
            if !(finite(a) && finite(b) && finite(c)) {
                continue;
            }
            if (op == Op::Div && b & !F::SIGN == 0) || (op == Op::Sqrt && a & F::SIGN != 0) {
                continue;
            }
            let e = expect::<F>(&exact_of::<F>(op, a, b, c));
            if e.nan {
                fails.push(format!(
                    "fast oracle: NaN for finite {}",
                    op.describe::<F>(a, b, c)
                ));
                continue;
            }
            checked += 1;
            if let Err(m) = bigint_check::<F>(op, a, b, c, e.ru, e.rd) {
                *bad += 1;
                if fails.len() < max_shown() {
                    fails.push(format!("{m}; seed=0x{seed:016x}"));
                }
            }
        }
    }
    checked
}

#[test]
fn fast_oracle_agrees_with_bigint_oracle() {
    let seed = base_seed();
    let per_op = (n_per_op() / 100).max(1000);
    let mut fails = Vec::new();
    let mut bad = 0;
    let n64 = cross_check::<f64>(seed, per_op, &mut fails, &mut bad);
    let n32 = cross_check::<f32>(seed, per_op, &mut fails, &mut bad);
    println!(
        "oracle cross-check: {n64} f64 and {n32} f32 finite cases agree with num-bigint (seed 0x{seed:016x})"
    );
    assert!(
        fails.is_empty(),
        "oracle cross-check: {bad} disagreements:\n  {}",
        fails.join("\n  ")
    );
}
