//! `{:#}`: the string CADNA 3.1.12 prints for the same samples.
//!
//! Every function here mirrors, in round-to-nearest, the arithmetic CADNA
//! 3.1.12 performs when it prints a value (observed and checked against its output on 40 000
//! sample triplets), including its quirks: the mean is `x/3 + y/3 + z/3` in the sample type,
//! the digits are produced by repeated multiplication by ten and truncation, and the digit
//! count comes from the binary exponent of the variance ratio.

use core::fmt::Write as _;

use super::display::Buf;
use crate::StochFloat;

/// CADNA's `{:#}` string for three samples.
pub(super) fn cadna_str<T: StochFloat>(s: [T; 3], out: &mut Buf) {
    if T::NAME == "f32" {
        cadna_str_f32(s.map(|v| v.to_f64() as f32), out);
    } else {
        cadna_str_f64(s.map(StochFloat::to_f64), out);
    }
}

/// `τ² / (N (N − 1))` for β = 95 %, as CADNA writes it.
const CADNA_K: f64 = 3.085466170416667;

/// CADNA's digit count for `f64` samples.
fn cadna_digits_f64([x, y, z]: [f64; 3]) -> u32 {
    cadna_digits(x + y + z, [x, y, z], 15, 1e-30)
}

/// CADNA's digit count for `f32` samples (sum in `f32`, the rest in `f64`).
fn cadna_digits_f32(s: [f32; 3]) -> u32 {
    let [x, y, z] = s;
    cadna_digits(f64::from(x + y + z), s.map(f64::from), 7, 1e-14)
}

/// CADNA's digit count from the samples' `sum` (computed in the sample type): `full` digits
/// for equal samples summing to zero or a variance ratio at most `tiny`, else from the ratio.
fn cadna_digits(sum: f64, [x, y, z]: [f64; 3], full: u32, tiny: f64) -> u32 {
    if sum == 0.0 {
        return if x == y && x == z { full } else { 0 };
    }
    let inv = 3.0 / sum;
    let (x0, x1, x2) = (x * inv - 1.0, y * inv - 1.0, z * inv - 1.0);
    let q = (x0 * x0 + x1 * x1 + x2 * x2) * CADNA_K;
    if q <= tiny {
        full
    } else {
        binary_digits(q)
    }
}

/// `q` estimates `10^(−2C)`. CADNA takes its unbiased binary exponent `E` and returns
/// `round_half_up(−(E + 2) · log10(2) / 2)`, or 0 when that is negative (NaN and infinite `q`
/// have the largest exponent, so they give 0).
fn binary_digits(q: f64) -> u32 {
    let e = ((q.to_bits() >> 52) & 0x7ff) as i64 - 1021;
    let c = -(e as f64) * 0.150_514_997_831_990_65;
    if c >= 0.0 {
        (c + 0.5) as u32
    } else {
        0
    }
}

/// Appends `E`, the exponent's sign and three digits.
fn cadna_exponent(out: &mut Buf, nn: i32) {
    out.push(b'E');
    out.push(if nn < 0 { b'-' } else { b'+' });
    let nn = nn.unsigned_abs();
    for d in [nn / 100, (nn % 100) / 10, nn % 10] {
        // |exponent| < 1000 for both types, so `d` is one decimal digit.
        out.push(b'0' + d as u8);
    }
}

/// One mantissa digit as CADNA writes it: `'0' + d` (never above `':'` in practice).
fn cadna_digit(out: &mut Buf, d: i32) {
    out.push(b'0'.wrapping_add(d as u8));
}

fn cadna_str_f64(s: [f64; 3], out: &mut Buf) {
    let [x, y, z] = s;
    cadna_write(
        out,
        cadna_digits_f64(s).min(15),
        x / 3.0 + y / 3.0 + z / 3.0,
        |v| v,
    );
}

fn cadna_str_f32(s: [f32; 3], out: &mut Buf) {
    let [x, y, z] = s;
    let mean = f64::from(x / 3.0 + y / 3.0 + z / 3.0);
    // CADNA keeps the fraction in an `f32` and computes each step in `f64`.
    cadna_write(out, cadna_digits_f32(s).min(7), mean, |v| {
        f64::from(v as f32)
    });
}

/// Writes `mean` (computed in the sample type) with `acc` digits, as CADNA does: the fraction
/// is stored through `keep` (a rounding to the sample type) after every step.
fn cadna_write(out: &mut Buf, acc: u32, mean: f64, keep: impl Fn(f64) -> f64) {
    if acc == 0 {
        let _ = out.write_str(" @.0");
        return;
    }
    let _ = out.write_str(if mean < 0.0 { "-0." } else { " 0." });
    let res = mean.abs();
    let (mut nn, mut fract) = (0i32, keep(0.0));
    if res != 0.0 {
        let lg = res.log10() as i32;
        nn = if res >= 1.0 { lg + 1 } else { lg };
        fract = keep(res * 10f64.powf(f64::from(-nn)));
        if fract < 0.1 {
            fract = keep(0.1);
        }
        if fract >= 1.0 {
            fract = keep(0.1);
            nn += 1;
        }
    }
    for _ in 1..acc {
        let d = (fract * 10.0) as i32;
        cadna_digit(out, d);
        fract = keep(10.0 * fract - f64::from(d));
    }
    cadna_digit(out, ((fract * 10.0) as i32).min(9));
    cadna_exponent(out, nn);
}

#[cfg(test)]
mod tests {
    use super::super::cadna_cases::{CADNA_F32, CADNA_F64, CADNA_RANDOM};
    use super::super::test_values::{f32s, f64s};
    use super::*;

    #[test]
    fn alternate_matches_cadna_cases() {
        for (case, bits, want) in CADNA_F64 {
            assert_eq!(format!("{:#}", f64s(*bits)), *want, "{case}");
        }
        for (case, bits, want) in CADNA_F32 {
            assert_eq!(format!("{:#}", f32s(*bits)), *want, "f32 {case}");
        }
    }

    #[test]
    fn alternate_matches_cadna_random() {
        let mut n = 0;
        for line in CADNA_RANDOM.lines() {
            let mut it = line.splitn(5, ' ');
            let (ty, x, y, z, want) = (
                it.next().unwrap(),
                it.next().unwrap(),
                it.next().unwrap(),
                it.next().unwrap(),
                it.next().unwrap(),
            );
            let got = if ty == "D" {
                let b = [x, y, z].map(|h| u64::from_str_radix(h, 16).unwrap());
                format!("{:#}", f64s(b))
            } else {
                let b = [x, y, z].map(|h| u32::from_str_radix(h, 16).unwrap());
                format!("{:#}", f32s(b))
            };
            assert_eq!(got, want, "{line}");
            n += 1;
        }
        assert_eq!(n, 160);
    }

    #[test]
    fn cadna_digit_rule_ladder() {
        // (1 - d, 1, 1 + d) with d = 10^-k: CADNA counts k - 1 digits (then 15 at k = 16),
        // one less than round(C) = k.
        for k in 1..=16 {
            let d = 10f64.powi(-k);
            let want = if k == 16 { 15 } else { (k - 1) as u32 };
            assert_eq!(
                cadna_digits_f64([1.0 - d, 1.0, 1.0 + d]),
                want,
                "d = 1e-{k}"
            );
        }
        for k in 1..=8 {
            let d = 10f32.powi(-k);
            let want = if k == 8 { 7 } else { (k - 1) as u32 };
            assert_eq!(
                cadna_digits_f32([1.0 - d, 1.0, 1.0 + d]),
                want,
                "f32 d = 1e-{k}"
            );
        }
        // Printing says @.0 from C <= 0.7526 (d >= 0.07117 here), relations only below C = 0.5.
        assert_eq!(cadna_digits_f64([1.0 - 0.0711, 1.0, 1.0 + 0.0711]), 1);
        assert_eq!(cadna_digits_f64([1.0 - 0.0712, 1.0, 1.0 + 0.0712]), 0);
        // Exact and not: zeros, noise summing to zero, NaN, overflowing sums, subnormals.
        assert_eq!(cadna_digits_f64([0.0, -0.0, 0.0]), 15);
        assert_eq!(cadna_digits_f64([1e-17, -2e-17, 1e-17]), 0);
        assert_eq!(cadna_digits_f64([1.0, f64::NAN, 1.0]), 0);
        assert_eq!(cadna_digits_f64([1e308; 3]), 0);
        assert_eq!(cadna_digits_f64([1e-310; 3]), 0);
        assert_eq!(cadna_digits_f32([0.0; 3]), 7);
        assert_eq!(cadna_digits_f32([f32::INFINITY; 3]), 0);
    }
}
