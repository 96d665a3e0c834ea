//! Exact values are exact: the mean of three equal samples is the sample, adjacent exact values
//! are ordered (not "equal" because their means round alike), and the lossy `f64 → Sf32`
//! conversions round every sample toward −∞ or +∞ exactly, checked against an independent
//! integer oracle (out of range, the `f32::MAX` boundary, the subnormal range, NaN and ±∞).
//!
//! Seeded: `STOCH_TEST_SEED` (decimal or `0x` hex) overrides the seed, which every failure
//! prints.

mod common;

use common::{base_seed, Rng};

use std::cmp::Ordering;

use stoch_core::{Sf32, Sf64};

const DEFAULT_SEED: u64 = 0x0E8A_C7F1_2345_6789;

// ------------------------------------------------------------------------------------------
// Exact values: mean, conversions out, relations of adjacent values.
// ------------------------------------------------------------------------------------------

#[test]
fn mean_of_an_exact_value_is_the_value() {
    let seed = base_seed(DEFAULT_SEED);
    let mut r = Rng(seed);
    let hand = [
        0.802469135802469,
        7.788633292422536,
        0.1,
        1.0 / 3.0,
        f64::MAX,
        -f64::MAX,
        f64::MIN_POSITIVE,
        5e-324,
        -5e-324,
        1e-310,
        0.0,
        -0.0,
    ];
    let random = (0..200_000).map(|_| r.finite64());
    for x in hand.into_iter().chain(random) {
        let v = Sf64::new(x);
        assert_eq!(
            v.mean().to_bits(),
            x.to_bits(),
            "seed {seed:#x}: mean of {x:e}"
        );
        assert_eq!(
            v.to_f64().to_bits(),
            x.to_bits(),
            "seed {seed:#x}: to_f64 of {x:e}"
        );
        assert_eq!(
            v.to_f32().to_bits(),
            (x as f32).to_bits(),
            "seed {seed:#x}: to_f32 of {x:e}"
        );
    }
    let mut r = Rng(seed ^ 0x32);
    let hand32 = [
        0.1f32,
        f32::MAX,
        f32::MIN_POSITIVE,
        1e-45,
        -1e-45,
        3.3333333,
    ];
    for x in hand32.into_iter().chain((0..200_000).map(|_| r.finite32())) {
        let v = Sf32::new(x);
        assert_eq!(
            v.mean().to_bits(),
            x.to_bits(),
            "seed {seed:#x}: mean of {x:e}"
        );
        assert_eq!(
            v.to_f32().to_bits(),
            x.to_bits(),
            "seed {seed:#x}: to_f32 of {x:e}"
        );
        assert_eq!(v.to_f64(), x as f64, "seed {seed:#x}: to_f64 of {x:e}");
    }
}

/// `a < b` for exact adjacent values, with every relation consistent.
#[track_caller]
fn check_adjacent<T>(a: stoch_core::Stochastic<T>, b: stoch_core::Stochastic<T>, what: &str)
where
    T: stoch_core::StochFloat,
{
    assert!(a < b, "{what}: {a:?} < {b:?}");
    assert!(a <= b, "{what}");
    assert!(b > a, "{what}");
    assert!(b >= a, "{what}");
    assert!(a != b, "{what}");
    assert!(!a.eq(&b), "{what}");
    let wrong = [a > b, a >= b, b < a, b <= a];
    assert_eq!(wrong, [false; 4], "{what}");
    assert_eq!(a.partial_cmp(&b), Some(Ordering::Less), "{what}");
    assert_eq!(b.partial_cmp(&a), Some(Ordering::Greater), "{what}");
    let (a2, b2) = (a, b);
    assert!(a == a2 && b == b2, "{what}");
    assert_eq!(a.max(b).samples(), b.samples(), "{what}");
    assert_eq!(a.min(b).samples(), a.samples(), "{what}");
    assert!(a.max(b).flags().is_empty(), "{what}");
}

#[test]
fn adjacent_exact_values_are_ordered() {
    let seed = base_seed(DEFAULT_SEED);
    let hand = [
        7.788633292422536,
        0.802469135802469,
        1.0,
        0.1,
        5e-324,
        1e-323,
        -5e-324,
        f64::MIN_POSITIVE.next_down(),
        f64::MIN_POSITIVE,
        f64::MAX.next_down(),
        -f64::MAX,
        1e300,
    ];
    for a in hand {
        let b = a.next_up();
        check_adjacent(Sf64::new(a), Sf64::new(b), &format!("{a:e} vs {b:e}"));
    }
    // The smallest subnormals and zero.
    check_adjacent(Sf64::new(5e-324), Sf64::new(1e-323), "5e-324 vs 1e-323");
    check_adjacent(Sf64::new(0.0), Sf64::new(5e-324), "0 vs 5e-324");
    check_adjacent(Sf64::new(-5e-324), Sf64::new(0.0), "-5e-324 vs 0");
    let mut r = Rng(seed ^ 0xAD);
    for _ in 0..100_000 {
        let a = r.finite64();
        let b = a.next_up();
        if b.is_finite() {
            let what = format!("seed {seed:#x}: {a:e} vs {b:e}");
            check_adjacent(Sf64::new(a), Sf64::new(b), &what);
        }
    }
    // f32: the same, and through the scalar comparisons.
    let hand32 = [1.0f32, 0.1, 7.788_633, 1e-45, -1e-45, f32::MAX.next_down()];
    for a in hand32 {
        let b = a.next_up();
        check_adjacent(Sf32::new(a), Sf32::new(b), &format!("{a:e} vs {b:e}"));
        assert!(Sf32::new(a) < b && Sf32::new(b) > a);
    }
    let mut r = Rng(seed ^ 0x32AD);
    for _ in 0..100_000 {
        let a = r.finite32();
        let b = a.next_up();
        if b.is_finite() {
            let what = format!("seed {seed:#x}: {a:e} vs {b:e}");
            check_adjacent(Sf32::new(a), Sf32::new(b), &what);
        }
    }
    // Scalar comparisons of f64.
    let a = 7.788633292422536;
    assert!(Sf64::new(a) < a.next_up() && Sf64::new(a.next_up()) > a);
    assert!(Sf64::new(5e-324) < 1e-323 && Sf64::new(5e-324) != 1e-323);
    let rep = stoch_core::report();
    assert_eq!(rep.total(), 0, "exact values never branch unstably: {rep}");
}

// ------------------------------------------------------------------------------------------
// f64 → f32 with random rounding, against an integer oracle.
// ------------------------------------------------------------------------------------------

/// `x` (finite, non-zero) as `(m, e)` with `|x| = m·2^e` exactly.
fn decode(x: f64) -> (u64, i32) {
    let b = x.to_bits();
    let exp = ((b >> 52) & 0x7ff) as i32;
    let frac = b & ((1u64 << 52) - 1);
    if exp == 0 {
        (frac, -1074)
    } else {
        (frac | (1u64 << 52), exp - 1075)
    }
}

/// `(RD(x), RU(x))` in `f32` by integer arithmetic: the largest `k·2^q ≤ |x|` in the `f32`
/// grid (`q = max(E − 23, −149)`), the next grid point above when that is inexact, `f32::MAX`
/// for a truncation beyond the range and `∞` above it; signs mirrored for a negative `x`.
fn oracle(x: f64) -> (f32, f32) {
    if x.is_nan() {
        return (f32::NAN, f32::NAN);
    }
    if x.is_infinite() || x == 0.0 {
        let r = if x.is_infinite() {
            f32::INFINITY.copysign(x as f32)
        } else {
            0.0f32.copysign(x as f32)
        };
        return (r, r);
    }
    let (m, e) = decode(x);
    let top = 63 - m.leading_zeros() as i32 + e; // ⌊log2 |x|⌋
    let q = (top - 23).max(-149);
    let (k, inexact) = if q >= e {
        let sh = (q - e) as u32;
        if sh >= 64 {
            (0u64, true)
        } else {
            (m >> sh, m & ((1u64 << sh) - 1) != 0)
        }
    } else {
        (m << (e - q) as u32, false)
    };
    let pow = |k: u64| -> f32 {
        // k < 2^25 and q ≥ −149: k·2^q is exact in f64; above f32::MAX it is ∞.
        let v = k as f64 * 2f64.powi(q);
        if v > f32::MAX as f64 {
            f32::INFINITY
        } else {
            v as f32
        }
    };
    let (lo, hi) = if k as f64 * 2f64.powi(q) > f32::MAX as f64 {
        // Beyond the f32 range (even when exact in the grid): MAX below, ∞ above.
        (f32::MAX, f32::INFINITY)
    } else if inexact {
        (pow(k), pow(k + 1))
    } else {
        (pow(k), pow(k))
    };
    if x > 0.0 {
        (lo, hi)
    } else {
        (-hi, -lo)
    }
}

fn same(a: f32, b: f32) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

#[test]
fn oracle_hand_checks() {
    assert!(same(oracle(0.5).0, 0.5) && same(oracle(0.5).1, 0.5));
    assert!(same(oracle(1e39).0, f32::MAX) && same(oracle(1e39).1, f32::INFINITY));
    assert!(same(oracle(-1e39).0, f32::NEG_INFINITY) && same(oracle(-1e39).1, -f32::MAX));
    let just_above = (f32::MAX as f64).next_up();
    assert!(same(oracle(just_above).0, f32::MAX) && same(oracle(just_above).1, f32::INFINITY));
    assert!(same(oracle(1e-50).0, 0.0) && same(oracle(1e-50).1, 1e-45));
    assert!(same(oracle(-1e-50).0, -1e-45) && same(oracle(-1e-50).1, -0.0));
    assert!(same(oracle(f64::MAX).0, f32::MAX) && same(oracle(f64::MAX).1, f32::INFINITY));
    let two_max = 2.0 * f32::MAX as f64;
    assert!(same(oracle(two_max).0, f32::MAX) && same(oracle(two_max).1, f32::INFINITY));
    let (lo, hi) = oracle(0.1);
    assert_eq!(lo.next_up(), hi);
    assert!((lo as f64) < 0.1 && (hi as f64) > 0.1);
}

/// Operands for the conversion: every region that matters.
fn operand(r: &mut Rng) -> f64 {
    let max = f32::MAX as f64;
    let tiny = 1.401298464324817e-45f64; // smallest f32 subnormal
    match r.below(12) {
        0 => r.finite64(),
        1 => f64::from_bits(r.next()), // NaN and ±∞ included
        2 => [
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            0.0,
            -0.0,
            f64::MAX,
            -f64::MAX,
        ][r.below(7) as usize],
        3 => {
            // Around f32::MAX, by f64 ulps and half an f32 ulp.
            let half_ulp = (max - (f32::MAX.next_down() as f64)) / 2.0;
            let base = [max, max + half_ulp, max - half_ulp, 2.0 * max][r.below(4) as usize];
            let mut x = base;
            for _ in 0..r.below(4) {
                x = if r.below(2) == 0 {
                    x.next_up()
                } else {
                    x.next_down()
                };
            }
            if r.below(2) == 0 {
                -x
            } else {
                x
            }
        }
        4 => {
            // Beyond the range.
            let x = max * (1.0 + (r.next() >> 11) as f64 / (1u64 << 53) as f64 * 1e10);
            if r.below(2) == 0 {
                -x
            } else {
                x
            }
        }
        5 | 6 => {
            // f32's subnormal range and below its smallest subnormal.
            let x =
                tiny * (r.next() >> 11) as f64 / (1u64 << 53) as f64 * (1u64 << r.below(26)) as f64;
            if r.below(2) == 0 {
                -x
            } else {
                x
            }
        }
        7 => {
            // Exactly representable in f32.
            r.finite32() as f64
        }
        8 => {
            // Midpoints between adjacent f32 values (ties) and their neighbours.
            let a = r.finite32();
            let b = a.next_up();
            if !b.is_finite() {
                return a as f64;
            }
            let mid = (a as f64 + b as f64) / 2.0;
            [mid, mid.next_up(), mid.next_down()][r.below(3) as usize]
        }
        _ => {
            // Moderate values.
            let x = (r.next() >> 11) as f64 / (1u64 << 53) as f64;
            x * 2f64.powi(r.below(80) as i32 - 40)
        }
    }
}

#[test]
fn lossy_f64_to_f32_matches_the_oracle() {
    let seed = base_seed(DEFAULT_SEED);
    let mut r = Rng(seed ^ 0xF32);
    let (mut down, mut inexact) = (0u64, 0u64);
    let mut fails = Vec::new();
    for i in 0..300_000 {
        let x = operand(&mut r);
        let (rd, ru) = oracle(x);
        // Alternate the two public conversions (from_f64 and to_sf32, whose flags it keeps).
        let got = if i % 2 == 0 {
            Sf32::from_f64(x).samples()
        } else {
            let v = Sf64::from_parts([x; 3], stoch_core::Flags::from_bits(0b10));
            let n = v.to_sf32();
            assert_eq!(n.flags().bits(), 0b10);
            n.samples()
        };
        let mut dirs = [false; 3];
        for (k, &s) in got.iter().enumerate() {
            let ok = same(s, rd) || same(s, ru);
            if !ok && fails.len() < 10 {
                fails.push(format!(
                    "x = {x:e} ({:#x}): sample {k} = {s:e}, RD {rd:e}, RU {ru:e}",
                    x.to_bits()
                ));
            }
            dirs[k] = same(s, rd);
        }
        if !same(rd, ru) {
            inexact += 1;
            down += dirs[1] as u64;
            if dirs[1] == dirs[2] && fails.len() < 10 {
                fails.push(format!(
                    "x = {x:e}: z does not round opposite to y: {got:?}"
                ));
            }
        }
    }
    assert!(fails.is_empty(), "seed {seed:#x}:\n{}", fails.join("\n"));
    let f = down as f64 / inexact as f64;
    assert!(
        inexact > 100_000,
        "seed {seed:#x}: only {inexact} inexact cases"
    );
    assert!(
        (f - 0.5).abs() < 0.01,
        "seed {seed:#x}: y rounds down with frequency {f}"
    );
}

#[test]
fn lossy_conversion_edge_cases() {
    let max = f32::MAX as f64;
    for _ in 0..64 {
        for (x, lo, hi) in [
            (1e39, f32::MAX, f32::INFINITY),
            (-1e39, f32::NEG_INFINITY, -f32::MAX),
            (f64::MAX, f32::MAX, f32::INFINITY),
            (max.next_up(), f32::MAX, f32::INFINITY),
            (-max.next_up(), f32::NEG_INFINITY, -f32::MAX),
            (max, f32::MAX, f32::MAX),
            (1e-50, 0.0, 1e-45),
            (-1e-50, -1e-45, -0.0),
            (5e-324, 0.0, 1e-45),
        ] {
            let v = Sf32::from_f64(x);
            for s in v.samples() {
                assert!(
                    same(s, lo) || same(s, hi),
                    "{x:e}: {s:e} not in {{{lo:e}, {hi:e}}}"
                );
            }
            assert!(
                !same(v.samples()[1], v.samples()[2]) || same(lo, hi),
                "{x:e}"
            );
        }
        assert!(Sf32::from_f64(f64::NAN)
            .samples()
            .iter()
            .all(|s| s.is_nan()));
        assert_eq!(Sf32::from_f64(f64::INFINITY).samples(), [f32::INFINITY; 3]);
        assert_eq!(
            Sf32::from_f64(f64::NEG_INFINITY).samples(),
            [f32::NEG_INFINITY; 3]
        );
        let z = Sf32::from_f64(-0.0).samples();
        assert!(z.iter().all(|s| s.to_bits() == (-0.0f32).to_bits()));
    }
}
