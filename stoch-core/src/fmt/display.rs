//! `{}` (the exact digits), `{:e}`/`{:E}`, and the formats with a precision, which print what
//! the sample type prints and count the digits they show beyond the exact ones.

use core::fmt::{self, Write as _};

use super::cadna::cadna_str;
use crate::{StochFloat, Stochastic};

/// `{}`: the exact significant digits of the mean; `{:.p}`: the mean with `p` decimals, as for
/// `f64`.
///
/// Without a precision (`{}`, `{:>22}`, `{:+}`):
///
/// * A value with `d = digits() > 0` prints its mean (computed in `f64`) rounded to `d`
///   significant digits in Rust's exponent notation, `format!("{:.*e}", d - 1, mean)`:
///   `8.02469135802469e-1`, `-1.23e2`. Never more digits than [`digits`](Stochastic::digits)
///   (a subnormal holds fewer digits than a normal number, and `digits()` says so).
/// * A computed zero (numerical noise) prints `@.0`.
/// * An exact zero (three zero samples) is known exactly: it prints zeros to the type's full
///   precision, `0.00000000000000e0` (`f64`) or `0.000000e0` (`f32`), with a `-` when the
///   three samples are `-0.0`, as Rust prints `-0.0` (a difference that is exactly zero has
///   samples of both signs, rounded up and down, and prints as round-to-nearest's `+0.0`).
/// * A value with a NaN or infinite sample has no exact digits but is not a computed zero
///   either: it prints its mean the way Rust prints a float, `NaN`, `inf` or `-inf`
///   (`(1, ∞, 1)` prints `inf`, `(∞, −∞, ∞)` prints `NaN`).
/// * Width, fill and alignment are honoured (numbers align right by default); `+` prints a
///   plus sign on positive values; `0` pads with zeros after the sign.
///
/// With a precision (`{:.4}`, `{:8.2}`, `{:+.3}`, `{:.*}`), the format means what it means for
/// the sample type: the mean (an `f32` for an `Sf32`) in fixed notation with `p` digits after
/// the point, every flag as `f64` honours it. So `{:5.1}` of 17 prints ` 17.0`, an exact zero
/// prints `p` decimals (`{:.4}`: `0.0000`), and text printed with `format!("{:.*}", d, x)` parses
/// back to what the plain program computes, to within the value's exact digits. Numerical
/// noise prints its mean too (`0.0000` for a noise of 1e-17 at `{:.4}`), not `@.0`, so that
/// such text still parses. Printed digits beyond the exact ones cannot be marked in the text
/// without breaking that parse: the report at exit counts the values printed with digits that
/// are not exact (significant digits shown > `digits()`) and shows the first with its exact
/// digits, and `{}` prints the exact digits only.
///
/// `{:#}` prints CADNA's format instead (see below).
///
/// # CADNA's format (`{:#}`)
///
/// Exactly the string CADNA 3.1.12 prints with `cout << x` / `strp(x)` for the same samples:
/// a sign column (`-` or a space), `0.`, the digits **truncated** (not rounded) to CADNA's own
/// digit count, `E`, the exponent sign and three exponent digits:
/// ` 0.802469135802469E+000`, `-0.1234E+003`; ` @.0` when CADNA's count is 0 (which CADNA's
/// rule also gives for NaN or infinite samples, for sums that overflow and for subnormal
/// doubles); ` 0.000000000000000E+000` for an exact zero. CADNA's digit count is not
/// [`digits`](Stochastic::digits): it takes the binary exponent of the variance ratio instead
/// of a logarithm and is up to one digit lower; `{:#}` uses CADNA's rule so that the output is
/// CADNA's. Width, fill and alignment are honoured; the `+`, `0` and precision flags are
/// ignored.
///
/// # Examples
///
/// ```
/// use stoch_core::Sf64;
/// let third = Sf64::new(1.0) / 3.0;
/// assert_eq!(format!("{third}"), "3.33333333333333e-1");
/// assert_eq!(format!("{third:#}"), " 0.333333333333333E+000");
/// assert_eq!(format!("{:>22}", third), "   3.33333333333333e-1");
/// // A precision means decimals after the point, as for f64.
/// assert_eq!(format!("{:.3}", third), "0.333");
/// assert_eq!(format!("{:5.1}", Sf64::new(17.0)), " 17.0");
/// assert_eq!(format!("{:.4}", Sf64::new(0.0)), "0.0000");
/// let noise = Sf64::from_samples([1e-17, -3e-17, 4e-17]);
/// assert_eq!(format!("{noise}"), "@.0");
/// assert_eq!(format!("{noise:#}"), " @.0");
/// # stoch_core::reset();
/// ```
impl<T: StochFloat> fmt::Display for Stochastic<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if f.alternate() {
            let mut buf = Buf::new();
            cadna_str(self.s(), &mut buf);
            return pad(f, "", buf.as_str(), false);
        }
        if let Some(p) = f.precision() {
            return as_plain(self, f, p, Notation::Fixed);
        }
        exact_digits(self, f, false)
    }
}

/// `{:e}`: without a precision, the same string as `{}`, the exact significant digits of the
/// mean in exponent notation (`8.02469135802469e-1`), `@.0` for a computed zero; with one,
/// what `f64` prints (`{:.3e}`: `3.333e-1`). `{:E}` writes `E` for `e`.
///
/// * Without a precision, `{:e}` never shows a digit that is not exact; an exact zero prints
///   zeros to the type's full precision (`0.00000000000000e0`, `f64`), NaN and infinite
///   samples `NaN`, `inf`, `-inf`.
/// * A precision counts digits **after the point**, as for `f64`, and prints them all (so that
///   the layout is the plain program's): digits beyond the exact ones are counted for the report,
///   as for `{:.p}` (see [`Display`](fmt::Display)).
/// * Width, fill, alignment, `+` and `0` behave as for `f64`; `#` is ignored (CADNA's format is
///   `{:#}`).
///
/// ```
/// use stoch_core::Sf64;
/// let third = Sf64::new(1.0) / 3.0;
/// assert_eq!(format!("{third:e}"), "3.33333333333333e-1");
/// assert_eq!(format!("{third:.3e}"), "3.333e-1");
/// assert_eq!(format!("{third:.3E}"), "3.333E-1");
/// let two_digits = Sf64::from_samples([0.33, 0.334, 0.336]);
/// assert_eq!(two_digits.digits(), 2);
/// assert_eq!(format!("{two_digits:e}"), "3.3e-1");
/// assert_eq!(format!("{two_digits:.5e}"), "3.33333e-1");
/// assert_eq!(format!("{:e}", Sf64::from_samples([1e-17, -3e-17, 4e-17])), "@.0");
/// assert_eq!(format!("{:.2e}", Sf64::new(0.0)), "0.00e0");
/// # stoch_core::reset();
/// ```
impl<T: StochFloat> fmt::LowerExp for Stochastic<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(p) = f.precision() {
            return as_plain(self, f, p, Notation::Exp);
        }
        exact_digits(self, f, false)
    }
}

/// `{:E}`: as [`LowerExp`](fmt::LowerExp) (`{:e}`) with an upper-case `E`.
///
/// ```
/// use stoch_core::Sf32;
/// let x = Sf32::new(1234.5);
/// assert_eq!(format!("{x:E}"), "1.234500E3");
/// assert_eq!(format!("{x:.2E}"), "1.23E3");
/// ```
impl<T: StochFloat> fmt::UpperExp for Stochastic<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(p) = f.precision() {
            return as_plain(self, f, p, Notation::UpperExp);
        }
        exact_digits(self, f, true)
    }
}

/// The notation a format with a precision asks for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Notation {
    Fixed,
    Exp,
    UpperExp,
}

/// Prints the mean as the sample type prints it under `f` (precision `p`, every flag), and
/// notes a printing with digits beyond the exact ones for the report.
fn as_plain<T: StochFloat>(
    x: &Stochastic<T>,
    f: &mut fmt::Formatter<'_>,
    p: usize,
    notation: Notation,
) -> fmt::Result {
    let m = print_mean(x);
    let shown = shown_digits(m, p, notation);
    if shown > 0 && m.is_finite() && !x.is_exact_zero() {
        let exact = if x.is_computed_zero() { 0 } else { x.digits() };
        if shown > i64::from(exact) {
            note_inexact(x, m, p, notation, exact);
        }
    }
    if T::NAME == "f32" {
        plain_fmt(&(m as f32), f, notation)
    } else {
        plain_fmt(&m, f, notation)
    }
}

/// `v` under `f` in `notation`.
fn plain_fmt<V: fmt::Display + fmt::LowerExp + fmt::UpperExp>(
    v: &V,
    f: &mut fmt::Formatter<'_>,
    notation: Notation,
) -> fmt::Result {
    match notation {
        Notation::Fixed => fmt::Display::fmt(v, f),
        Notation::Exp => fmt::LowerExp::fmt(v, f),
        Notation::UpperExp => fmt::UpperExp::fmt(v, f),
    }
}

/// The mean as printed: an exact zero is `-0.0` only when its three samples are (a sum that is
/// exactly zero has samples of both signs, rounded up and down, where round-to-nearest gives
/// `+0.0`; a product or quotient gives `-0.0` in both).
fn print_mean<T: StochFloat>(x: &Stochastic<T>) -> f64 {
    if x.is_exact_zero() {
        if x.s().iter().all(|v| v.is_sign_negative()) {
            -0.0
        } else {
            0.0
        }
    } else {
        x.to_f64()
    }
}

/// Significant digits that `m` shows with `p` decimals in `notation` (≤ 0 when every printed
/// digit is a leading zero); counted from `m`'s decimal exponent, so a carry of the rounding
/// (`9.96` to one decimal, `10.0`) may count one digit less than printed.
fn shown_digits(m: f64, p: usize, notation: Notation) -> i64 {
    let p = i64::try_from(p).unwrap_or(i64::MAX / 2);
    match notation {
        Notation::Exp | Notation::UpperExp => p.saturating_add(1),
        Notation::Fixed => {
            if m == 0.0 || !m.is_finite() {
                return 0;
            }
            let e = m.abs().log10().floor() as i64;
            e.saturating_add(1).saturating_add(p)
        }
    }
}

/// Tells the report that `x` was printed with digits that are not exact.
#[cold]
#[inline(never)]
fn note_inexact<T: StochFloat>(
    x: &Stochastic<T>,
    m: f64,
    p: usize,
    notation: Notation,
    exact: u32,
) {
    crate::report::note_inexact_print(|| {
        let (spec, text) = match notation {
            Notation::Fixed if T::NAME == "f32" => ("", format!("{:.p$}", m as f32)),
            Notation::Fixed => ("", format!("{m:.p$}")),
            Notation::Exp | Notation::UpperExp if T::NAME == "f32" => {
                ("e", format!("{:.p$e}", m as f32))
            }
            Notation::Exp | Notation::UpperExp => ("e", format!("{m:.p$e}")),
        };
        let exact_text = if exact == 0 {
            "none (@.0)".to_string()
        } else {
            format!("{exact}, {x}")
        };
        format!("`{{:.{p}{spec}}}` printed {text}; exact digits: {exact_text}")
    });
}

/// Writes the exact digits of `x`'s mean (`{}` and `{:e}` without a precision), `E` when
/// `upper`.
fn exact_digits<T: StochFloat>(
    x: &Stochastic<T>,
    f: &mut fmt::Formatter<'_>,
    upper: bool,
) -> fmt::Result {
    let mut buf = Buf::new();
    let s = x.s().map(StochFloat::to_f64);
    let mean = if x.is_exact_zero() {
        print_mean(x)
    } else {
        mean_f64(s)
    };
    let sign = if mean.is_sign_negative() && !mean.is_nan() {
        "-"
    } else if f.sign_plus() && !mean.is_nan() {
        "+"
    } else {
        ""
    };
    if s.iter().any(|v| !v.is_finite()) {
        // NaN or infinite sample: the mean as Rust writes it.
        let body = if mean.is_nan() { "NaN" } else { "inf" };
        return pad(f, sign, body, false);
    }
    if s.iter().all(|&v| v == 0.0) {
        let _ = write!(buf, "{:.*e}", (T::MAX_DIGITS - 1) as usize, 0.0f64);
        return pad(f, sign, buf.as_str(), true);
    }
    let d = if x.is_computed_zero() { 0 } else { x.digits() };
    if d == 0 {
        return pad(f, "", "@.0", false);
    }
    if upper {
        let _ = write!(buf, "{:.*E}", (d - 1) as usize, mean.abs());
    } else {
        let _ = write!(buf, "{:.*e}", (d - 1) as usize, mean.abs());
    }
    pad(f, sign, buf.as_str(), true)
}

/// The mean of three `f64` samples, without overflow for finite samples.
fn mean_f64([x, y, z]: [f64; 3]) -> f64 {
    let m = (x + y + z) / 3.0;
    if m.is_finite() || !(x.is_finite() && y.is_finite() && z.is_finite()) {
        m
    } else {
        // The sum overflowed: average a quarter of each sample (exact scaling) instead.
        (x * 0.25 + y * 0.25 + z * 0.25) / 3.0 * 4.0
    }
}

/// Writes `sign` then `body`, padded to the formatter's width with its fill and alignment
/// (right by default, as numbers are). With the `0` flag and a `numeric` body, zeros go
/// between the sign and the body.
fn pad(f: &mut fmt::Formatter<'_>, sign: &str, body: &str, numeric: bool) -> fmt::Result {
    let len = sign.chars().count() + body.chars().count();
    let Some(fill_n) = f
        .width()
        .and_then(|w| w.checked_sub(len))
        .filter(|&n| n > 0)
    else {
        f.write_str(sign)?;
        return f.write_str(body);
    };
    if numeric && f.sign_aware_zero_pad() {
        f.write_str(sign)?;
        for _ in 0..fill_n {
            f.write_char('0')?;
        }
        return f.write_str(body);
    }
    let (before, after) = match f.align() {
        Some(fmt::Alignment::Left) => (0, fill_n),
        Some(fmt::Alignment::Center) => (fill_n / 2, fill_n - fill_n / 2),
        Some(fmt::Alignment::Right) | None => (fill_n, 0),
    };
    let fill = f.fill();
    for _ in 0..before {
        f.write_char(fill)?;
    }
    f.write_str(sign)?;
    f.write_str(body)?;
    for _ in 0..after {
        f.write_char(fill)?;
    }
    Ok(())
}

/// A small stack buffer for one formatted number (no allocation when printing).
pub(super) struct Buf {
    bytes: [u8; 48],
    len: usize,
}

impl Buf {
    pub(super) fn new() -> Buf {
        Buf {
            bytes: [0; 48],
            len: 0,
        }
    }

    pub(super) fn push(&mut self, c: u8) {
        if self.len < self.bytes.len() {
            self.bytes[self.len] = c;
            self.len += 1;
        }
    }

    pub(super) fn as_str(&self) -> &str {
        // Only ASCII and whole `str`s are ever written.
        core::str::from_utf8(&self.bytes[..self.len]).unwrap_or("")
    }
}

impl fmt::Write for Buf {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        if self.len + s.len() > self.bytes.len() {
            return Err(fmt::Error);
        }
        self.bytes[self.len..self.len + s.len()].copy_from_slice(s.as_bytes());
        self.len += s.len();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_values::f64s;
    use crate::{Sf32, Sf64};

    /// `x` for a value near `m = 0.802469135802469` whose spread gives `x.digits()` digits.
    const DIGIT_LADDER: [&str; 16] = [
        "@.0",
        "8e-1",
        "8.0e-1",
        "8.02e-1",
        "8.025e-1",
        "8.0247e-1",
        "8.02469e-1",
        "8.024691e-1",
        "8.0246914e-1",
        "8.02469136e-1",
        "8.024691358e-1",
        "8.0246913580e-1",
        "8.02469135802e-1",
        "8.024691358025e-1",
        "8.0246913580247e-1",
        "8.02469135802469e-1",
    ];

    /// Relative spreads from a computed zero to identical samples.
    fn spreads(finest: i32) -> Vec<f64> {
        let mut v = vec![0.5, 0.3, 0.2];
        v.extend((1..=finest).map(|k| 10f64.powi(-k)));
        v.push(0.0);
        v
    }

    /// Prints, for each spread down to `10^-finest`, the value `show` builds with it, and
    /// checks the text against [`DIGIT_LADDER`], the digits never decreasing as the spread
    /// narrows, and every count from 0 to `full` met.
    fn check_ladder(finest: i32, full: usize, show: impl Fn(f64) -> (String, usize)) {
        let mut seen = Vec::new();
        for d in spreads(finest) {
            let (text, n) = show(d);
            assert_eq!(text, DIGIT_LADDER[n], "spread {d:e}, {n} digits");
            seen.push(n);
        }
        assert!(seen.windows(2).all(|w| w[0] <= w[1]), "{seen:?}");
        for n in 0..=full {
            assert!(seen.contains(&n), "no case with {n} digits: {seen:?}");
        }
    }

    #[test]
    fn display_digit_ladder_f64() {
        let m = 0.802469135802469;
        check_ladder(17, 15, |d| {
            let x = Sf64::from_samples([m * (1.0 - d), m, m * (1.0 + d)]);
            let n = x.digits() as usize;
            let neg = if n == 0 {
                "@.0".to_string()
            } else {
                format!("-{}", DIGIT_LADDER[n])
            };
            assert_eq!(format!("{}", -x), neg);
            (format!("{x}"), n)
        });
    }

    #[test]
    fn display_digit_ladder_f32() {
        let m = 0.802_469_1_f32;
        check_ladder(9, 7, |d| {
            let d = d as f32;
            let x = Sf32::from_samples([m * (1.0 - d), m, m * (1.0 + d)]);
            (format!("{x}"), x.digits() as usize)
        });
        assert_eq!(format!("{}", Sf32::new(0.1)), "1.000000e-1");
        assert_eq!(format!("{}", Sf32::new(1.0) / 3.0), "3.333333e-1");
        assert_eq!(format!("{:#}", Sf32::new(0.1)), " 0.1000000E+000");
    }

    #[test]
    fn display_exact_values() {
        assert_eq!(format!("{}", Sf64::new(123.456)), "1.23456000000000e2");
        assert_eq!(format!("{}", Sf64::new(-123.456)), "-1.23456000000000e2");
        assert_eq!(format!("{}", Sf64::new(1e-300)), "1.00000000000000e-300");
        assert_eq!(format!("{}", Sf64::new(1e300)), "1.00000000000000e300");
        assert_eq!(format!("{}", Sf64::new(f64::MAX)), "1.79769313486232e308");
        // A subnormal holds fewer digits (`digits()`), and `{}` prints no more than those.
        assert_eq!(format!("{}", Sf64::new(5e-324)), "5e-324");
        let sub = Sf64::new(5.23704643935263e-319);
        assert_eq!(sub.digits(), 5);
        assert_eq!(format!("{sub}"), "5.2370e-319");
        assert_eq!(format!("{sub:e}"), "5.2370e-319");
        assert_eq!(format!("{}", Sf32::new(1e-40)), "1.000e-40");
        assert_eq!(format!("{}", Sf64::new(0.1)), "1.00000000000000e-1");
    }

    #[test]
    fn rump_polynomial() {
        // Samples of CADNA's f(10864, 18817) and f(1/3, 2/3) = 9x^4 - y^4 + 2y^2.
        let zero = f64s([0xc02c000000000000, 0x4000000000000000, 0xc02c000000000000]);
        assert_eq!(format!("{zero}"), "@.0");
        assert_eq!(format!("{zero:#}"), " @.0");
        let r = f64s([0x3fe9add3c0ca458b, 0x3fe9add3c0ca4588, 0x3fe9add3c0ca4589]);
        assert_eq!(format!("{r}"), "8.02469135802469e-1");
        assert_eq!(format!("{r:#}"), " 0.802469135802469E+000");
    }

    #[test]
    fn zeros() {
        let noise = Sf64::from_samples([1e-17, -3e-17, 4e-17]);
        assert_eq!(format!("{noise}"), "@.0");
        assert_eq!(format!("{:+}", noise), "@.0");
        assert_eq!(format!("{:>6}", noise), "   @.0");
        assert_eq!(format!("{:06}", noise), "   @.0");
        assert_eq!(
            format!("{}", Sf64::from_samples([1e-17, -2e-17, 1e-17])),
            "@.0"
        );
        assert_eq!(format!("{}", Sf64::ZERO), "0.00000000000000e0");
        assert_eq!(format!("{}", Sf64::new(-0.0)), "-0.00000000000000e0");
        assert_eq!(
            format!("{}", Sf64::from_samples([0.0, -0.0, 0.0])),
            "0.00000000000000e0"
        );
        // Samples of both signs (an exact difference rounded up and down) print +0, whatever
        // the first sample, as round-to-nearest gives.
        assert_eq!(
            format!("{}", Sf64::from_samples([-0.0, 0.0, -0.0])),
            "0.00000000000000e0"
        );
        assert_eq!(
            format!("{:.3}", Sf64::from_samples([-0.0, 0.0, -0.0])),
            "0.000"
        );
        assert_eq!(format!("{:.3}", Sf64::new(-0.0)), "-0.000");
        let a = Sf64::new(0.1) + Sf64::new(0.2);
        for _ in 0..20 {
            assert_eq!(format!("{:.2}", a - a), "0.00");
        }
        assert_eq!(format!("{}", Sf32::ZERO), "0.000000e0");
        assert_eq!(format!("{:#}", Sf64::ZERO), " 0.000000000000000E+000");
        assert_eq!(format!("{:#}", Sf64::new(-0.0)), " 0.000000000000000E+000");
        assert_eq!(format!("{:#}", Sf32::ZERO), " 0.0000000E+000");
        assert_eq!(
            format!("{}", Sf32::from_samples([1e-8, -3e-8, 4e-8])),
            "@.0"
        );
    }

    #[test]
    fn non_finite() {
        let (inf, nan) = (f64::INFINITY, f64::NAN);
        assert_eq!(format!("{}", Sf64::NAN), "NaN");
        assert_eq!(format!("{}", Sf64::INFINITY), "inf");
        assert_eq!(format!("{}", Sf64::NEG_INFINITY), "-inf");
        assert_eq!(format!("{}", Sf64::from_samples([1.0, nan, 1.0])), "NaN");
        assert_eq!(format!("{}", Sf64::from_samples([1.0, inf, 1.0])), "inf");
        assert_eq!(format!("{}", Sf64::from_samples([-inf, 1.0, 1.0])), "-inf");
        assert_eq!(format!("{}", Sf64::from_samples([inf, -inf, inf])), "NaN");
        assert_eq!(format!("{:+}", Sf64::INFINITY), "+inf");
        assert_eq!(format!("{:>5}", Sf64::NAN), "  NaN");
        assert_eq!(format!("{:05}", Sf64::NEG_INFINITY), " -inf");
        assert_eq!(format!("{}", Sf32::NAN), "NaN");
        assert_eq!(format!("{}", Sf32::NEG_INFINITY), "-inf");
        for x in [Sf64::NAN, Sf64::INFINITY, Sf64::NEG_INFINITY] {
            assert_eq!(format!("{x:#}"), " @.0");
        }
        for x in [Sf32::NAN, Sf32::INFINITY, Sf32::NEG_INFINITY] {
            assert_eq!(format!("{x:#}"), " @.0");
        }
    }

    #[test]
    fn width_fill_alignment_sign_precision() {
        let x = Sf64::new(1.0) / 3.0;
        assert_eq!(format!("{x:22}"), "   3.33333333333333e-1");
        assert_eq!(format!("{x:<22}|"), "3.33333333333333e-1   |");
        assert_eq!(format!("{x:^23}"), "  3.33333333333333e-1  ");
        assert_eq!(format!("{x:*>21}"), "**3.33333333333333e-1");
        assert_eq!(format!("{x:+}"), "+3.33333333333333e-1");
        assert_eq!(format!("{:022}", -x), "-003.33333333333333e-1");
        assert_eq!(format!("{:+022}", x), "+003.33333333333333e-1");
        // A precision means what it means for f64 (decimals after the point, every flag).
        for (got, want) in [
            (format!("{x:.3}"), format!("{:.3}", 1.0 / 3.0)),
            (format!("{x:.0}"), "0".into()),
            (format!("{x:>10.2}"), "      0.33".into()),
            (format!("{x:<+10.2}|"), "+0.33     |".into()),
            (format!("{:^+9.2}|", -x), "  -0.33  |".into()),
            (format!("{:010.4}", -x), "-0000.3333".into()),
            (format!("{x:.20}"), format!("{:.20}", x.to_f64())),
            (format!("{:5.1}", Sf64::new(17.0)), " 17.0".into()),
            (format!("{:.3e}", Sf64::new(17.0)), "1.700e1".into()),
            (format!("{:+12.3E}", Sf64::new(17.0)), "    +1.700E1".into()),
            (format!("{:.*}", 2, Sf32::new(0.1)), "0.10".into()),
            (format!("{:.10}", Sf32::new(0.1)), format!("{:.10}", 0.1f32)),
        ] {
            assert_eq!(got, want);
        }
        assert_eq!(format!("{x:8}"), "3.33333333333333e-1");
        // The alternate form pads but keeps CADNA's own sign column and digits.
        assert_eq!(format!("{x:#26}"), "    0.333333333333333E+000");
        assert_eq!(format!("{x:<#24}|"), " 0.333333333333333E+000 |");
        assert_eq!(format!("{x:+#}"), " 0.333333333333333E+000");
        assert_eq!(format!("{x:#.3}"), " 0.333333333333333E+000");
        // Rounding may carry into the exponent.
        let nine = Sf64::from_samples([9.96, 9.99, 10.02]);
        assert_eq!(
            format!("{nine}"),
            format!("{:.*e}", nine.digits() as usize - 1, 9.99)
        );
    }
}
