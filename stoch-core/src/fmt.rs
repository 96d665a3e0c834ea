//! Printing and parsing of stochastic numbers.
//!
//! * `{}` shows only the exact significant digits: the mean rounded to [`digits`] significant
//!   digits in Rust's exponent style (`8.02469135802469e-1`), or `@.0` for a computed zero.
//! * `{:.p}`, `{:.pe}`, `{:.pE}` mean what they mean for `f64`: the mean printed with `p`
//!   decimals after the point, in fixed or exponent notation, with the width, fill, alignment,
//!   sign and zero flags of the format, so that a program's layout and its format-then-parse
//!   round trips stay those of the plain program. Digits printed beyond the exact ones are
//!   counted, and the report at exit says how many values were printed with digits that are
//!   not exact, and shows the first one with its exact digits.
//! * `{:#}` prints what CADNA prints for the same samples (` 0.802469135802469E+000`, ` @.0`), so
//!   that outputs can be compared with a CADNA run line by line.
//! * `{:?}` shows the three samples (shortest round-trip form) and the instability flags.
//! * [`FromStr`] reads a float literal into an exact value.
//!
//! [`digits`]: Stochastic::digits

use core::fmt::{self, Write as _};
use core::num::ParseFloatError;
use core::str::FromStr;

use crate::instability::{Flags, Instability};
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
struct Buf {
    bytes: [u8; 48],
    len: usize,
}

impl Buf {
    fn new() -> Buf {
        Buf {
            bytes: [0; 48],
            len: 0,
        }
    }

    fn push(&mut self, c: u8) {
        if self.len < self.bytes.len() {
            self.bytes[self.len] = c;
            self.len += 1;
        }
    }

    fn as_str(&self) -> &str {
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

// ---------------------------------------------------------------------------------------------
// CADNA's format. Every operation below mirrors, in round-to-nearest, the arithmetic CADNA
// 3.1.12 performs when it prints a value (observed and checked against its output on 40 000
// sample triplets), including its quirks: the mean is `x/3 + y/3 + z/3` in the sample type,
// the digits are produced by repeated multiplication by ten and truncation, and the digit
// count comes from the binary exponent of the variance ratio.

/// CADNA's `{:#}` string for three samples.
fn cadna_str<T: StochFloat>(s: [T; 3], out: &mut Buf) {
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
    let sum = x + y + z;
    if sum == 0.0 {
        return if x == y && x == z { 15 } else { 0 };
    }
    let inv = 3.0 / sum;
    let (x0, x1, x2) = (x * inv - 1.0, y * inv - 1.0, z * inv - 1.0);
    let q = (x0 * x0 + x1 * x1 + x2 * x2) * CADNA_K;
    if q <= 1e-30 {
        15
    } else {
        binary_digits(q)
    }
}

/// CADNA's digit count for `f32` samples (sum in `f32`, the rest in `f64`).
fn cadna_digits_f32([x, y, z]: [f32; 3]) -> u32 {
    let sum = f64::from(x + y + z);
    if sum == 0.0 {
        return if x == y && x == z { 7 } else { 0 };
    }
    let inv = 3.0 / sum;
    let d = |v: f32| f64::from(v) * inv - 1.0;
    let (x0, x1, x2) = (d(x), d(y), d(z));
    let q = (x0 * x0 + x1 * x1 + x2 * x2) * CADNA_K;
    if q <= 1e-14 {
        7
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
    let acc = cadna_digits_f64(s).min(15);
    if acc == 0 {
        let _ = out.write_str(" @.0");
        return;
    }
    let [x, y, z] = s;
    let res = x / 3.0 + y / 3.0 + z / 3.0;
    let _ = out.write_str(if res < 0.0 { "-0." } else { " 0." });
    let res = res.abs();
    let (mut nn, mut fract) = (0i32, 0.0f64);
    if res != 0.0 {
        let lg = res.log10() as i32;
        nn = if res >= 1.0 { lg + 1 } else { lg };
        fract = res * 10f64.powf(f64::from(-nn));
        if fract < 0.1 {
            fract = 0.1;
        }
        if fract >= 1.0 {
            fract = 0.1;
            nn += 1;
        }
    }
    for _ in 1..acc {
        let d = (fract * 10.0) as i32;
        cadna_digit(out, d);
        fract = 10.0 * fract - f64::from(d);
    }
    cadna_digit(out, ((fract * 10.0) as i32).min(9));
    cadna_exponent(out, nn);
}

fn cadna_str_f32(s: [f32; 3], out: &mut Buf) {
    let acc = cadna_digits_f32(s).min(7);
    if acc == 0 {
        let _ = out.write_str(" @.0");
        return;
    }
    let [x, y, z] = s;
    let res = x / 3.0 + y / 3.0 + z / 3.0;
    let _ = out.write_str(if res < 0.0 { "-0." } else { " 0." });
    let res = f64::from(res.abs());
    let (mut nn, mut fract) = (0i32, 0.0f32);
    if res != 0.0 {
        let lg = res.log10() as i32;
        nn = if res >= 1.0 { lg + 1 } else { lg };
        fract = (res * 10f64.powf(f64::from(-nn))) as f32;
        if f64::from(fract) < 0.1 {
            fract = 0.1;
        }
        if fract >= 1.0 {
            fract = 0.1;
            nn += 1;
        }
    }
    for _ in 1..acc {
        let d = (f64::from(fract) * 10.0) as i32;
        cadna_digit(out, d);
        fract = (10.0 * f64::from(fract) - f64::from(d)) as f32;
    }
    cadna_digit(out, ((f64::from(fract) * 10.0) as i32).min(9));
    cadna_exponent(out, nn);
}

// ---------------------------------------------------------------------------------------------

/// `{:?}`: the three samples in Rust's shortest round-trip form, and the flags by name:
/// `Stochastic { samples: [0.1, 0.1, 0.1], flags: [] }`,
/// `Stochastic { samples: [1e-17, -3e-17, 4e-17], flags: [division, cancellation] }`.
///
/// ```
/// use stoch_core::Sf64;
/// let x = Sf64::from_samples([1.0, 0.1, -2.5]);
/// assert_eq!(format!("{x:?}"), "Stochastic { samples: [1.0, 0.1, -2.5], flags: [] }");
/// ```
impl<T: StochFloat> fmt::Debug for Stochastic<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Stochastic")
            .field("samples", &self.s())
            .field("flags", &FlagNames(self.flags()))
            .finish()
    }
}

/// The flags as a list of bare kind names.
struct FlagNames(Flags);

impl fmt::Debug for FlagNames {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.0.iter().map(BareName)).finish()
    }
}

struct BareName(Instability);

impl fmt::Debug for BareName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0.name())
    }
}

// ---------------------------------------------------------------------------------------------

/// Parses a float literal into an exact value: three equal samples, each the float nearest to
/// the literal (parsed directly in the sample type, so an `Sf32` gets the nearest `f32`, not
/// a double rounding through `f64`).
///
/// Accepts what `f64::from_str` accepts (`1`, `-2.5e-3`, `1E+000`, `inf`, `NaN`, ...), with
/// surrounding whitespace ignored, so that `{}` and `{:#}` output of a value with digits
/// parses back. A literal beyond the type's range gives an infinity, as `f64::from_str` does.
///
/// # Errors
///
/// [`ParseStochasticError`] when the text is empty, is `@.0` (a computed zero carries no
/// value), or is not a float literal.
///
/// # Examples
///
/// ```
/// use stoch_core::{Sf32, Sf64};
/// let x: Sf64 = "0.1".parse().unwrap();
/// assert_eq!(x.samples(), [0.1; 3]);
/// let y: Sf32 = " 0.1000000E+000".parse().unwrap();
/// assert_eq!(y.samples(), [0.1f32; 3]);
/// let e = "1.2.3".parse::<Sf64>().unwrap_err();
/// assert_eq!(e.to_string(), "invalid float literal `1.2.3` for a stochastic number");
/// ```
impl<T: StochFloat> FromStr for Stochastic<T> {
    type Err = ParseStochasticError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let t = s.trim();
        let parsed = if T::NAME == "f32" {
            t.parse::<f32>().map(f64::from)
        } else {
            t.parse::<f64>()
        };
        match parsed {
            Ok(v) => Ok(Stochastic::new(T::from_f64(v))),
            Err(source) => Err(ParseStochasticError::new(t, source)),
        }
    }
}

/// The error of parsing a [`Stochastic`] from a string.
///
/// Its `Display` says what was wrong; [`source`](std::error::Error::source) is the underlying
/// float parsing error.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ParseStochasticError {
    kind: ParseErrorKind,
    source: ParseFloatError,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum ParseErrorKind {
    Empty,
    ComputedZero,
    /// The offending text, shortened to a readable length.
    Invalid(String),
}

/// Longest input quoted back in an error message, in characters.
const QUOTE_MAX: usize = 40;

impl ParseStochasticError {
    fn new(text: &str, source: ParseFloatError) -> Self {
        let kind = if text.is_empty() {
            ParseErrorKind::Empty
        } else if text == "@.0" {
            ParseErrorKind::ComputedZero
        } else {
            let mut q: String = text.chars().take(QUOTE_MAX).collect();
            if text.chars().count() > QUOTE_MAX {
                q.push('…');
            }
            ParseErrorKind::Invalid(q)
        };
        ParseStochasticError { kind, source }
    }
}

impl fmt::Display for ParseStochasticError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            ParseErrorKind::Empty => {
                f.write_str("cannot parse a stochastic number from an empty string")
            }
            ParseErrorKind::ComputedZero => {
                f.write_str("`@.0` is a computed zero: it has no value to parse")
            }
            ParseErrorKind::Invalid(text) => {
                write!(f, "invalid float literal `{text}` for a stochastic number")
            }
        }
    }
}

impl std::error::Error for ParseStochasticError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Sf32, Sf64};

    fn f64s(bits: [u64; 3]) -> Sf64 {
        Sf64::from_samples(bits.map(f64::from_bits))
    }

    fn f32s(bits: [u32; 3]) -> Sf32 {
        Sf32::from_samples(bits.map(f32::from_bits))
    }

    /// What CADNA 3.1.12 printed (`cout << x`, `strp(x)` and `x.str()` agree) for `double_st`
    /// values built from these samples: (case, sample bits, output).
    const CADNA_F64: &[(&str, [u64; 3], &str)] = &[
        (
            "123.456 15 digits",
            [0x405edd2f1a9fbe77, 0x405edd2f1a9fbe77, 0x405edd2f1a9fbe77],
            " 0.123456000000000E+003",
        ),
        (
            "-123.456 15 digits",
            [0xc05edd2f1a9fbe77, 0xc05edd2f1a9fbe77, 0xc05edd2f1a9fbe77],
            "-0.123456000000000E+003",
        ),
        (
            "0.802469135802469 15 digits",
            [0x3fe9add3c0ca4587, 0x3fe9add3c0ca4587, 0x3fe9add3c0ca4587],
            " 0.802469135802468E+000",
        ),
        (
            "1e-300 15 digits",
            [0x01a56e1fc2f8f359, 0x01a56e1fc2f8f359, 0x01a56e1fc2f8f359],
            " 0.100000000000000E-299",
        ),
        (
            "1e300 15 digits",
            [0x7e37e43c8800759c, 0x7e37e43c8800759c, 0x7e37e43c8800759c],
            " 0.100000000000000E+301",
        ),
        (
            "123.456 10 digits",
            [0x405edd2f1a9d17c2, 0x405edd2f1a9fbe77, 0x405edd2f1aa2652c],
            " 0.1234560000E+003",
        ),
        (
            "-123.456 10 digits",
            [0xc05edd2f1a9d17c2, 0xc05edd2f1a9fbe77, 0xc05edd2f1aa2652c],
            "-0.1234560000E+003",
        ),
        (
            "0.802469135802469 10 digits",
            [0x3fe9add3c0c810d7, 0x3fe9add3c0ca4587, 0x3fe9add3c0cc7a37],
            " 0.8024691358E+000",
        ),
        (
            "1e-300 10 digits",
            [0x01a56e1fc2f71c18, 0x01a56e1fc2f8f359, 0x01a56e1fc2faca9a],
            " 0.1000000000E-299",
        ),
        (
            "1e300 10 digits",
            [0x7e37e43c87fe683b, 0x7e37e43c8800759c, 0x7e37e43c880282fd],
            " 0.1000000000E+301",
        ),
        (
            "123.456 7 digits",
            [0x405edd2f10448bed, 0x405edd2f1a9fbe77, 0x405edd2f24faf101],
            " 0.1234559E+003",
        ),
        (
            "-123.456 7 digits",
            [0xc05edd2f10448bed, 0xc05edd2f1a9fbe77, 0xc05edd2f24faf101],
            "-0.1234559E+003",
        ),
        (
            "0.802469135802469 7 digits",
            [0x3fe9add3b82c7613, 0x3fe9add3c0ca4587, 0x3fe9add3c96814fc],
            " 0.8024691E+000",
        ),
        (
            "1e-300 7 digits",
            [0x01a56e1fbbc81ce1, 0x01a56e1fc2f8f359, 0x01a56e1fca29c9d2],
            " 0.1000000E-299",
        ),
        (
            "1e300 7 digits",
            [0x7e37e43c7ffc30e6, 0x7e37e43c8800759c, 0x7e37e43c9004ba53],
            " 0.1000000E+301",
        ),
        (
            "123.456 3 digits",
            [0x405edb9a90399e88, 0x405edd2f1a9fbe77, 0x405edec3a505de66],
            " 0.123E+003",
        ),
        (
            "-123.456 3 digits",
            [0xc05edb9a90399e88, 0xc05edd2f1a9fbe77, 0xc05edec3a505de66],
            "-0.123E+003",
        ),
        (
            "0.802469135802469 3 digits",
            [0x3fe9ac832c52a0c1, 0x3fe9add3c0ca4587, 0x3fe9af245541ea4d],
            " 0.802E+000",
        ),
        (
            "1e-300 3 digits",
            [0x01a56d06df3f3fe5, 0x01a56e1fc2f8f359, 0x01a56f38a6b2a6cd],
            " 0.100E-299",
        ),
        (
            "1e300 3 digits",
            [0x7e37e303614473f3, 0x7e37e43c8800759c, 0x7e37e575aebc7745],
            " 0.100E+301",
        ),
        (
            "123.456 1 digits",
            [0x405e3f290abb44e5, 0x405edd2f1a9fbe77, 0x405f7b352a843809],
            " 0.1E+003",
        ),
        (
            "-123.456 1 digits",
            [0xc05e3f290abb44e5, 0xc05edd2f1a9fbe77, 0xc05f7b352a843809],
            "-0.1E+003",
        ),
        (
            "0.802469135802469 1 digits",
            [0x3fe92a59c20de7fa, 0x3fe9add3c0ca4587, 0x3fea314dbf86a314],
            " 0.8E+000",
        ),
        (
            "1e-300 1 digits",
            [0x01a50066ce6eda00, 0x01a56e1fc2f8f359, 0x01a5dbd8b7830cb2],
            " 0.1E-299",
        ),
        (
            "1e300 1 digits",
            [0x7e3769e9668fcf6b, 0x7e37e43c8800759c, 0x7e385e8fa9711bcd],
            " 0.1E+301",
        ),
        (
            "ladder 1e-1",
            [0x3feccccccccccccd, 0x3ff0000000000000, 0x3ff199999999999a],
            " @.0",
        ),
        (
            "ladder 1e-2",
            [0x3fefae147ae147ae, 0x3ff0000000000000, 0x3ff028f5c28f5c29],
            " 0.1E+001",
        ),
        (
            "ladder 1e-3",
            [0x3feff7ced916872b, 0x3ff0000000000000, 0x3ff004189374bc6a],
            " 0.10E+001",
        ),
        (
            "ladder 1e-4",
            [0x3fefff2e48e8a71e, 0x3ff0000000000000, 0x3ff00068db8bac71],
            " 0.100E+001",
        ),
        (
            "ladder 1e-5",
            [0x3fefffeb074a771d, 0x3ff0000000000000, 0x3ff0000a7c5ac472],
            " 0.1000E+001",
        ),
        (
            "ladder 1e-6",
            [0x3feffffde7210be9, 0x3ff0000000000000, 0x3ff000010c6f7a0b],
            " 0.10000E+001",
        ),
        (
            "ladder 1e-7",
            [0x3fefffffca501acb, 0x3ff0000000000000, 0x3ff000001ad7f29b],
            " 0.100000E+001",
        ),
        (
            "ladder 1e-8",
            [0x3feffffffaa19c47, 0x3ff0000000000000, 0x3ff0000002af31dc],
            " 0.1000000E+001",
        ),
        (
            "ladder 1e-9",
            [0x3fefffffff768fa1, 0x3ff0000000000000, 0x3ff000000044b830],
            " 0.10000000E+001",
        ),
        (
            "ladder 1e-10",
            [0x3feffffffff24190, 0x3ff0000000000000, 0x3ff000000006df38],
            " 0.100000000E+001",
        ),
        (
            "ladder 1e-11",
            [0x3feffffffffea028, 0x3ff0000000000000, 0x3ff000000000afec],
            " 0.1000000000E+001",
        ),
        (
            "ladder 1e-12",
            [0x3fefffffffffdcd1, 0x3ff0000000000000, 0x3ff0000000001198],
            " 0.10000000000E+001",
        ),
        (
            "ladder 1e-13",
            [0x3feffffffffffc7b, 0x3ff0000000000000, 0x3ff00000000001c2],
            " 0.100000000000E+001",
        ),
        (
            "ladder 1e-14",
            [0x3fefffffffffffa6, 0x3ff0000000000000, 0x3ff000000000002d],
            " 0.1000000000000E+001",
        ),
        (
            "ladder 1e-15",
            [0x3feffffffffffff7, 0x3ff0000000000000, 0x3ff0000000000005],
            " 0.10000000000000E+001",
        ),
        (
            "ladder 1e-16",
            [0x3fefffffffffffff, 0x3ff0000000000000, 0x3ff0000000000000],
            " 0.100000000000000E+001",
        ),
        (
            "rump(10864,18817)",
            [0xc02c000000000000, 0x4000000000000000, 0xc02c000000000000],
            " @.0",
        ),
        (
            "rump(1/3,2/3)",
            [0x3fe9add3c0ca458b, 0x3fe9add3c0ca4588, 0x3fe9add3c0ca4589],
            " 0.802469135802469E+000",
        ),
        (
            "exact zero",
            [0x0000000000000000, 0x0000000000000000, 0x0000000000000000],
            " 0.000000000000000E+000",
        ),
        (
            "exact -0",
            [0x8000000000000000, 0x8000000000000000, 0x8000000000000000],
            " 0.000000000000000E+000",
        ),
        (
            "zeros of both signs",
            [0x0000000000000000, 0x8000000000000000, 0x0000000000000000],
            " 0.000000000000000E+000",
        ),
        (
            "noise summing to 0",
            [0x3c670ef54646d497, 0xbc770ef54646d497, 0x3c670ef54646d497],
            " @.0",
        ),
        (
            "noise",
            [0x3c670ef54646d497, 0xbc814b37f4b51f71, 0x3c870ef54646d497],
            " @.0",
        ),
        (
            "negative noise",
            [0xbc670ef54646d497, 0xbc814b37f4b51f71, 0xbc870ef54646d497],
            " @.0",
        ),
        (
            "123.456 exact",
            [0x405edd2f1a9fbe77, 0x405edd2f1a9fbe77, 0x405edd2f1a9fbe77],
            " 0.123456000000000E+003",
        ),
        (
            "1e-300 exact",
            [0x01a56e1fc2f8f359, 0x01a56e1fc2f8f359, 0x01a56e1fc2f8f359],
            " 0.100000000000000E-299",
        ),
        (
            "1e300 exact",
            [0x7e37e43c8800759c, 0x7e37e43c8800759c, 0x7e37e43c8800759c],
            " 0.100000000000000E+301",
        ),
        (
            "-1e300 exact",
            [0xfe37e43c8800759c, 0xfe37e43c8800759c, 0xfe37e43c8800759c],
            "-0.100000000000000E+301",
        ),
        (
            "1/3 exact",
            [0x3fd5555555555555, 0x3fd5555555555555, 0x3fd5555555555555],
            " 0.333333333333333E+000",
        ),
        (
            "-7 exact",
            [0xc01c000000000000, 0xc01c000000000000, 0xc01c000000000000],
            "-0.700000000000000E+001",
        ),
        (
            "1 exact",
            [0x3ff0000000000000, 0x3ff0000000000000, 0x3ff0000000000000],
            " 0.100000000000000E+001",
        ),
        (
            "0.1 exact",
            [0x3fb999999999999a, 0x3fb999999999999a, 0x3fb999999999999a],
            " 0.100000000000000E+000",
        ),
        (
            "nextdown(1)",
            [0x3fefffffffffffff, 0x3fefffffffffffff, 0x3fefffffffffffff],
            " 0.100000000000000E+001",
        ),
        (
            "nextdown(1000)",
            [0x408f3fffffffffff, 0x408f3fffffffffff, 0x408f3fffffffffff],
            " 0.100000000000000E+004",
        ),
        (
            "5e307",
            [0x7fd1ccf385ebc8a0, 0x7fd1ccf385ebc8a0, 0x7fd1ccf385ebc8a0],
            " 0.499999999999999E+308",
        ),
        (
            "1e308 (sum overflows)",
            [0x7fe1ccf385ebc8a0, 0x7fe1ccf385ebc8a0, 0x7fe1ccf385ebc8a0],
            " @.0",
        ),
        (
            "max",
            [0x7fefffffffffffff, 0x7fefffffffffffff, 0x7fefffffffffffff],
            " @.0",
        ),
        (
            "min positive normal",
            [0x0010000000000000, 0x0010000000000000, 0x0010000000000000],
            " 0.222507385850720E-307",
        ),
        (
            "1e-310 subnormal",
            [0x000012688b70e62b, 0x000012688b70e62b, 0x000012688b70e62b],
            " @.0",
        ),
        (
            "NaN",
            [0x7ff8000000000000, 0x7ff8000000000000, 0x7ff8000000000000],
            " @.0",
        ),
        (
            "inf",
            [0x7ff0000000000000, 0x7ff0000000000000, 0x7ff0000000000000],
            " @.0",
        ),
        (
            "-inf",
            [0xfff0000000000000, 0xfff0000000000000, 0xfff0000000000000],
            " @.0",
        ),
        (
            "1,NaN,1",
            [0x3ff0000000000000, 0x7ff8000000000000, 0x3ff0000000000000],
            " @.0",
        ),
        (
            "1,inf,1",
            [0x3ff0000000000000, 0x7ff0000000000000, 0x3ff0000000000000],
            " @.0",
        ),
        (
            "inf,-inf,inf",
            [0x7ff0000000000000, 0xfff0000000000000, 0x7ff0000000000000],
            " @.0",
        ),
        (
            "C=0.60 (0.9,1,1.1)",
            [0x3feccccccccccccd, 0x3ff0000000000000, 0x3ff199999999999a],
            " @.0",
        ),
        (
            "C<0.5 (0.8,1,1.2)",
            [0x3fe999999999999a, 0x3ff0000000000000, 0x3ff3333333333333],
            " @.0",
        ),
        (
            "(1,1,1+ulp)",
            [0x3ff0000000000000, 0x3ff0000000000000, 0x3ff0000000000001],
            " 0.100000000000000E+001",
        ),
    ];

    /// The same for `float_st`.
    const CADNA_F32: &[(&str, [u32; 3], &str)] = &[
        (
            "123.456f 7 digits",
            [0x42f6e979, 0x42f6e979, 0x42f6e979],
            " 0.1234560E+003",
        ),
        (
            "-123.456f 7 digits",
            [0xc2f6e979, 0xc2f6e979, 0xc2f6e979],
            "-0.1234560E+003",
        ),
        (
            "1e-30f 7 digits",
            [0x0da24260, 0x0da24260, 0x0da24260],
            " 0.1000000E-029",
        ),
        (
            "1e30f 7 digits",
            [0x7149f2ca, 0x7149f2ca, 0x7149f2ca],
            " 0.1000000E+031",
        ),
        (
            "123.456f 5 digits",
            [0x42f6e959, 0x42f6e979, 0x42f6e999],
            " 0.12345E+003",
        ),
        (
            "-123.456f 5 digits",
            [0xc2f6e959, 0xc2f6e979, 0xc2f6e999],
            "-0.12345E+003",
        ),
        (
            "1e-30f 5 digits",
            [0x0da2424b, 0x0da24260, 0x0da24275],
            " 0.10000E-029",
        ),
        (
            "1e30f 5 digits",
            [0x7149f2b0, 0x7149f2ca, 0x7149f2e4],
            " 0.10000E+031",
        ),
        (
            "123.456f 3 digits",
            [0x42f6dcd5, 0x42f6e979, 0x42f6f61d],
            " 0.123E+003",
        ),
        (
            "-123.456f 3 digits",
            [0xc2f6dcd5, 0xc2f6e979, 0xc2f6f61d],
            "-0.123E+003",
        ),
        (
            "1e-30f 3 digits",
            [0x0da23a11, 0x0da24260, 0x0da24aaf],
            " 0.100E-029",
        ),
        (
            "1e30f 3 digits",
            [0x7149e873, 0x7149f2ca, 0x7149fd21],
            " 0.100E+031",
        ),
        (
            "123.456f 1 digits",
            [0x42f1f948, 0x42f6e979, 0x42fbd9aa],
            " 0.1E+003",
        ),
        (
            "-123.456f 1 digits",
            [0xc2f1f948, 0xc2f6e979, 0xc2fbd9aa],
            "-0.1E+003",
        ),
        (
            "1e-30f 1 digits",
            [0x0d9f039c, 0x0da24260, 0x0da58124],
            " 0.1E-029",
        ),
        (
            "1e30f 1 digits",
            [0x7145e8d0, 0x7149f2ca, 0x714dfcc4],
            " 0.1E+031",
        ),
        (
            "ladder f32 1e-1",
            [0x3f666666, 0x3f800000, 0x3f8ccccd],
            " @.0",
        ),
        (
            "ladder f32 1e-2",
            [0x3f7d70a4, 0x3f800000, 0x3f8147ae],
            " 0.1E+001",
        ),
        (
            "ladder f32 1e-3",
            [0x3f7fbe77, 0x3f800000, 0x3f8020c5],
            " 0.10E+001",
        ),
        (
            "ladder f32 1e-4",
            [0x3f7ff972, 0x3f800000, 0x3f800347],
            " 0.100E+001",
        ),
        (
            "ladder f32 1e-5",
            [0x3f7fff58, 0x3f800000, 0x3f800054],
            " 0.1000E+001",
        ),
        (
            "ladder f32 1e-6",
            [0x3f7fffef, 0x3f800000, 0x3f800008],
            " 0.10000E+001",
        ),
        (
            "ladder f32 1e-7",
            [0x3f7ffffe, 0x3f800000, 0x3f800001],
            " 0.100000E+001",
        ),
        (
            "ladder f32 1e-8",
            [0x3f800000, 0x3f800000, 0x3f800000],
            " 0.1000000E+001",
        ),
        (
            "f32 exact zero",
            [0x00000000, 0x00000000, 0x00000000],
            " 0.0000000E+000",
        ),
        ("f32 noise", [0x322bcc77, 0xb300d959, 0x332bcc77], " @.0"),
        ("f32 NaN", [0x7fc00000, 0x7fc00000, 0x7fc00000], " @.0"),
        ("f32 inf", [0x7f800000, 0x7f800000, 0x7f800000], " @.0"),
        ("f32 -inf", [0xff800000, 0xff800000, 0xff800000], " @.0"),
        (
            "f32 -7 exact",
            [0xc0e00000, 0xc0e00000, 0xc0e00000],
            "-0.6999999E+001",
        ),
        (
            "f32 1/3 exact",
            [0x3eaaaaab, 0x3eaaaaab, 0x3eaaaaab],
            " 0.3333333E+000",
        ),
        (
            "f32 pi exact",
            [0x40490fdb, 0x40490fdb, 0x40490fdb],
            " 0.3141592E+001",
        ),
        ("f32 max", [0x7f7fffff, 0x7f7fffff, 0x7f7fffff], " @.0"),
        (
            "f32 denorm min",
            [0x00000001, 0x00000001, 0x00000001],
            " 0.0000000E+000",
        ),
        (
            "f32 1e-40 subnormal",
            [0x000116c2, 0x000116c2, 0x000116c2],
            " 0.9999805E-040",
        ),
        (
            "f32 123.456 exact",
            [0x42f6e979, 0x42f6e979, 0x42f6e979],
            " 0.1234560E+003",
        ),
        (
            "f32 0.1 exact",
            [0x3dcccccd, 0x3dcccccd, 0x3dcccccd],
            " 0.1000000E+000",
        ),
    ];

    /// Random triplets (magnitudes 1e-307..1e307 and 1e-37..1e38, spreads from identical to
    /// 1e0, both signs) and values near powers of ten: `D|F x y z` (sample bits in hex), then
    /// CADNA's output. Five per (type, CADNA digit count), drawn from 40 000 checked triplets.
    const CADNA_RANDOM: &str = "\
D c473427e30d1c4ed c4767ac9c1936978 c47549561fd0c48b  @.0
D 41778cac91b02ef6 417157cae4fb10d1 4177ba0f256f3746  @.0
D baaeedd9261d7e65 bab17275abe113c6 bab425c72d20ed8a  @.0
D 426cd679d7aace13 4262ec677b4e692e 42648230179efad4  @.0
D c445eb8552c99744 c444d0a87d734b03 c440ce3ac00563da  @.0
D 444a9773f00e69da 444b054c27cf57bf 44493c3c8f41d17e  0.9E+021
D 3de4cc277ca70238 3de56afdb843b019 3de4ccf460c649ac  0.1E-009
D 418759d59a75b8ef 41855adda7276e95 41870dc3c3049730  0.4E+008
D 61cc8dc4c43bb7cb 61cd3ce639c23ef5 61cdc99921fa48d1  0.1E+164
D c1b2823beb9d73f5 c1b3191cfc8827f5 c1b18b1a3bcecac3 -0.3E+009
D 3c9bee05ae86a750 3c9be5e38251a2b4 3c9bccec208fe798  0.96E-016
D 3c31eea111f05ebf 3c31f1b255945050 3c31e01f2a4d08f7  0.97E-018
D c5e02e42768dd3e1 c5e0513f295744fe c5e043a2fc01dab4 -0.40E+029
D 0ef383b964eefabf 0ef37b38500417ed 0ef37887e0410b57  0.11E-235
D 42c3c50b35f29cad 42c3c25432dadc98 42c3cc518644a89a  0.43E+014
D c2f383534cd2a9d0 c2f3810d72e31b4b c2f38220e427cf87 -0.343E+015
D 435dbb03b4c3cabf 435dbeaa359889e5 435dbac5ebb2f7d5  0.334E+017
D 5f23575e1b041be1 5f235801d5b8f6b2 5f235721a416f539  0.197E+151
D 3e0720f9d5e8771e 3e07205e3cc63665 3e071f7b422a438c  0.673E-009
D 3fe379b0de0994f1 3fe37915e6588fa8 3fe378e219b2028d  0.608E+000
D 3e6a76a1d26094da 3e6a76d81bf11fc4 3e6a76ba4bd69f78  0.4929E-007
D 683d5a9b66c5494f 683d5a4732ec9e44 683d5a7836f822b3  0.1339E+195
D 3de236f2ffe7ef19 3de236f70557ddb0 3de236e16c23fdc1  0.1325E-009
D c5bf226b5198afc9 c5bf227707decef8 c5bf22a521a7a53c -0.9635E+028
D c101dfd4588789bd c101dfedeced2dc3 c101dfc05579fb15 -0.1464E+006
D 617f9ae59b62cdc9 617f9ae71f6d5dcf 617f9ae9c9a367d1  0.44433E+162
D be073e6d92dc3c71 be073e7256ea040a be073e729c25f5c7 -0.67648E-009
D cdfa0b53cc4267c9 cdfa0b5a164bfd85 cdfa0b57310747db -0.43884E+068
D 5fa42d5c07098a5e 5fa42d59c4cf6b1a 5fa42d55a7352cb3  0.52838E+153
D 3cc843040b226e0e 3cc843089adb979a 3cc8430730030597  0.67340E-015
D 40cebdd9b9db2ef8 40cebddaa5c6bd2d 40cebdda9064d4fc  0.157397E+005
D 3a5331da9600eef4 3a5331dc0007d42a 3a5331daf59922f8  0.969087E-027
D 3d66292194d4da1f 3d662920e832bac4 3d66292175bfbfca  0.629843E-012
D f74ed569d2f037ab f74ed569ff73c7bc f74ed56a18edfa42 -0.497108E+267
D 50b4f0cdf83c5e60 50b4f0ce805b1aeb 50b4f0cdb40d1bdb  0.620738E+081
D 3f79a9b00f8d2f91 3f79a9b01f8e8070 3f79a9b02136ac85  0.6265342E-002
D a62c628eb92bc843 a62c628eaf71444f a62c628eb0d6710a -0.8386496E-124
D 7bda273e5dd40fcb 7bda273e64b48f09 7bda273e5ca3ad87  0.3982376E+289
D bcc17b4cafc8e5de bcc17b4cb15b1a14 bcc17b4cb67f0db9 -0.4852129E-015
D be3f9117a043159e be3f9117990df49d be3f9117a15a9fcd -0.7349710E-008
D 4740714922f10275 47407149215a77f3 4740714921247b6c  0.17074891E+036
D c473094f9cd7a32d c473094f9b659ced c473094f9c023330 -0.56185450E+022
D c52506b58871fc16 c52506b589f2eabb c52506b58b3529e7 -0.12709562E+026
D 3e2bf34127d57b1f 3e2bf3412854c6c8 3e2bf341273e4b05  0.32538330E-008
D ba79c4243e41e988 ba79c4244367bec0 ba79c4243d66b690 -0.52034382E-026
D 43415534ca2a0831 43415534ca265711 43415534ca5d531d  0.975751964E+016
D 4154a145b84debfc 4154a145b823ae27 4154a145b8641cc8  0.540802287E+007
D 3a17ddd4ba710d85 3a17ddd4ba150257 3a17ddd4ba984d87  0.753094810E-028
D c3a848c8f2eeb2fb c3a848c8f2c3d099 c3a848c8f3020fc7 -0.874934700E+018
D 41444f009ed08be3 41444f009ebdb8c4 41444f009ec0f4a4  0.266188924E+007
D c1cda92a50e41b02 c1cda92a50db827f c1cda92a50e3c0fd -0.9952513617E+009
D 42569ca959417c84 42569ca959414873 42569ca959440b7a  0.3884704985E+012
D c41ecb51ddb9e18a c41ecb51ddb8af62 c41ecb51ddb25b5f -0.1420132642E+021
D c054a7cbec96dcdb c054a7cbec943325 c054a7cbec9602a2 -0.8262182154E+002
D 689d4ac9cf9c4d5c 689d4ac9cf9555fb 689d4ac9cf985e3a  0.8553194107E+196
D 6bf1929b3a60930e 6bf1929b3a600995 6bf1929b3a608a9f  0.92434690697E+212
D 45443260e391f152 45443260e392194b 45443260e391f957  0.48832844004E+026
D 3161c8b01a5f4dbf 3161c8b01a5f373a 3161c8b01a5eb11a  0.80522813652E-070
D 40810681a9a3720d 40810681a9a42e35 40810681a9a482e6  0.54481331184E+003
D ba1d65fd749e7f52 ba1d65fd749e18f3 ba1d65fd749e7ce1 -0.92764989562E-028
D 3b20de64cd7a90ed 3b20de64cd7a8edd 3b20de64cd7a921a  0.697674139831E-023
D c22ebc08793f2d40 c22ebc08793f2470 c22ebc08793f2c26 -0.660018454075E+011
D 16fa6f5c2025b430 16fa6f5c2025b441 16fa6f5c2025afbb  0.552563466927E-197
D 4306f36f9636d3db 4306f36f9636b427 4306f36f9636c115  0.807513759340E+015
D 3b31f4c7ed9eea7b 3b31f4c7ed9ee8d7 3b31f4c7ed9eee90  0.148530003834E-022
D 4308d82de3be7024 4308d82de3be7032 4308d82de3be6ef9  0.8741363808865E+015
D ba4c586d9ede587a ba4c586d9ede58a5 ba4c586d9ede5771 -0.7155390653470E-027
D bac70a88c2e862e3 bac70a88c2e86213 bac70a88c2e8625f -0.1488999375189E-024
D 4444957dc0e9c217 4444957dc0e9c191 4444957dc0e9c25a  0.7594137189362E+021
D 439e267e21e638b2 439e267e21e63a35 439e267e21e63a31  0.5431406385786E+018
D 08a6c423d58512bc 08a6c423d58512cd 08a6c423d58512af  0.55159949926750E-266
D 41f0ee33bf696d80 41f0ee33bf696d84 41f0ee33bf696d7d  0.45447403425892E+010
D bbc073533a41b035 bbc073533a41b043 bbc073533a41b038 -0.69670529644532E-020
D 4433f48f1d8f4fa3 4433f48f1d8f4fad 4433f48f1d8f4fa4  0.36811047376875E+021
D 436c377cdf3c081d 436c377cdf3c07dc 436c377cdf3c07a7  0.63538470468992E+017
D 596620f07835ccd7 596620f07835ccd7 596620f07835ccd7  0.457134028289571E+123
D 792b0ffff94fafcb 792b0ffff94fafcb 792b0ffff94fafcb  0.468483130597015E+276
D 3f497751815c70ee 3f497751815c70ee 3f497751815c70ee  0.777163312452281E-003
D 40728ed3ca1785ea 40728ed3ca1785ea 40728ed3ca1785ea  0.296926706401717E+003
D c4c3fbadc393ea27 c4c3fbadc393ea26 c4c3fbadc393ea27 -0.188735233902094E+024
F 37ddc2c4 37a2313e 3815a110  @.0
F 300b87f6 30a05122 30a11d2f  @.0
F 3bf0ff10 3bb8eab5 3bdda7c5  @.0
F 4831f48f 48244c7d 483e4bd8  @.0
F 1a0abcb9 1b0fa794 1afc71a2  @.0
F 3514e616 351174dc 3514dd1d  0.5E-006
F 3b4d13c0 3b489f61 3b42aae1  0.3E-002
F bc104b88 bc0ff8f9 bc126e3b -0.8E-002
F 0f32a42a 0f2ebd9e 0f2b3e17  0.8E-029
F 4aeaa889 4af1c619 4aeda001  0.7E+007
F 31fd35a0 31fcbd92 31fde86c  0.73E-008
F 41192200 4119c81e 411b4999  0.96E+001
F 34825a4e 348297bd 3482a6e9  0.24E-006
F 3c10c6f1 3c10cdaa 3c10905c  0.88E-002
F 3a6e60cd 3a6c7a49 3a6d5926  0.90E-003
F 3a01e713 3a01e909 3a01d27b  0.495E-003
F 3865d8d7 3865da5a 3865e2f5  0.548E-004
F 18becdb0 18beb5e0 18beb9e0  0.493E-023
F 56b694b0 56b692e7 56b6897d  0.100E+015
F d0141eb1 d014218a d0142b56 -0.994E+010
F c44ab66f c44abaa0 c44ab7ad -0.8108E+003
F 8b8a8f4b 8b8a9040 8b8a8eed -0.5337E-031
F 4e25c23e 4e25c6cd 4e25c486  0.6952E+009
F 1168312f 11683124 11682f62  0.1831E-027
F 3dc65745 3dc6588c 3dc658f4  0.9684E-001
F 43b0db74 43b0db7c 43b0dbd3  0.35371E+003
F 3d1eac42 3d1eacbd 3d1eac74  0.38738E-001
F 4288bec6 4288bed0 4288bebe  0.68372E+002
F 4ba29529 4ba29569 4ba29563  0.21310E+008
F c9541615 c9541623 c9541635 -0.86870E+006
F 32dc7e71 32dc7e73 32dc7e7d  0.256688E-007
F ccb3c21c ccb3c22d ccb3c225 -0.942451E+008
F 3713e719 3713e717 3713e71b  0.881568E-005
F 3288c1be 3288c1bd 3288c1be  0.159205E-007
F 4f822bf4 4f822bf9 4f822bf8  0.436783E+010
F 49158efe 49158efe 49158efe  0.6125918E+006
F 360e6cc9 360e6cc9 360e6cc9  0.2122296E-005
F 0a11a25e 0a11a25e 0a11a25e  0.7012034E-032
F d1420fee d1420fee d1420fee -0.5209318E+011
F bbab279d bbab279d bbab279d -0.5223228E-002
F 6fa18f08 6fa18f08 6fa18f08  0.1000000E+030
F 14461206 14461206 14461206  0.1000000E-025
F 4cbebc21 4cbebc21 4cbebc21  0.1000000E+009
F 3727c5ab 3727c5ab 3727c5ab  0.9999998E-005
D 0bd25432b14ecea4 0bd25432b14ecea4 0bd25432b14ecea4  0.100000000000000E-250
F 77f684de 77f684de 77f684de  0.9999999E+034
F 3c23d70a 3c23d70a 3c23d70a  0.1000000E-001
D 547d42aea2879f2d 547d42aea2879f2d 547d42aea2879f2d  0.100000000000000E+100
F 40000000 40000000 40000000  0.2000000E+001
D 3a53ce9a36f23c11 3a53ce9a36f23c11 3a53ce9a36f23c11  0.100000000000000E-026
F c0124925 c0124925 c0124925 -0.2285714E+001
D 1eb67e9c127b6e74 1eb67e9c127b6e74 1eb67e9c127b6e74  0.100000000000000E-159
D 6d3221563a9b7322 6d3221563a9b7322 6d3221563a9b7322  0.100000000000000E+219
F 15f79688 15f79688 15f79688  0.1000000E-024
D 4197d78400000000 4197d78400000000 4197d78400000000  0.100000000000000E+009
D 7bba44df832b8d45 7bba44df832b8d45 7bba44df832b8d45  0.100000000000000E+289
F 5368d4a6 5368d4a6 5368d4a6  0.1000000E+013
F 501502f8 501502f8 501502f8  0.9999998E+010
D c001249249249249 c001249249249249 c001249249249249 -0.214285714285714E+001
D 28e33d4032c2c7f4 28e33d4032c2c7f4 28e33d4032c2c7f4  0.999999999999999E-111
D 53088ba3bf284e25 53088ba3bf284e25 53088ba3bf284e25  0.100000000000000E+093
F 7149f2ca 7149f2ca 7149f2ca  0.1000000E+031
F 56b5e621 56b5e621 56b5e621  0.1000000E+015
D bff0000000000000 bff0000000000000 bff0000000000000 -0.100000000000000E+001
F 0f4ad2f9 0f4ad2f9 0f4ad2f9  0.1000000E-028
D 4480f0cf064dd593 4480f0cf064dd593 4480f0cf064dd593  0.100000000000000E+023
F 65a96817 65a96817 65a96817  0.1000000E+024
F bf800000 bf800000 bf800000 -0.1000000E+001
F 10fd87b6 10fd87b6 10fd87b6  0.1000000E-027
F 5d5e0b6c 5d5e0b6c 5d5e0b6c  0.1000000E+019
F 3dcccccc 3dcccccc 3dcccccc  0.9999999E-001
F 49742401 49742401 49742401  0.1000000E+007
D 73024e8d737c5f0c 73024e8d737c5f0c 73024e8d737c5f0c  0.100000000000000E+247
D 4bc4643e5ae44d12 4bc4643e5ae44d12 4bc4643e5ae44d12  0.100000000000000E+058
D 2a56ef5b40c2fc77 2a56ef5b40c2fc77 2a56ef5b40c2fc77  0.999999999999999E-104
D 58d8c8dac6a0342a 58d8c8dac6a0342a 58d8c8dac6a0342a  0.100000000000000E+121
D 7475d2ce55747a18 7475d2ce55747a18 7475d2ce55747a18  0.100000000000000E+254
D 7475d2ce55747a17 7475d2ce55747a17 7475d2ce55747a17  0.100000000000000E+254
D 0775a391d56bdc87 0775a391d56bdc87 0775a391d56bdc87  0.100000000000000E-271
D c004924924924925 c004924924924925 c004924924924925 -0.257142857142857E+001
";

    #[test]
    fn alternate_matches_cadna_f64() {
        for (case, bits, want) in CADNA_F64 {
            assert_eq!(format!("{:#}", f64s(*bits)), *want, "{case}");
        }
    }

    #[test]
    fn alternate_matches_cadna_f32() {
        for (case, bits, want) in CADNA_F32 {
            assert_eq!(format!("{:#}", f32s(*bits)), *want, "{case}");
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

    #[test]
    fn display_digit_ladder_f64() {
        let m = 0.802469135802469;
        let mut seen = Vec::new();
        for d in spreads(17) {
            let x = Sf64::from_samples([m * (1.0 - d), m, m * (1.0 + d)]);
            let n = x.digits() as usize;
            assert_eq!(format!("{x}"), DIGIT_LADDER[n], "spread {d:e}, {n} digits");
            let neg = if n == 0 {
                "@.0".to_string()
            } else {
                format!("-{}", DIGIT_LADDER[n])
            };
            assert_eq!(format!("{}", -x), neg);
            seen.push(n);
        }
        assert!(seen.windows(2).all(|w| w[0] <= w[1]), "{seen:?}");
        for n in 0..=15 {
            assert!(seen.contains(&n), "no case with {n} digits: {seen:?}");
        }
    }

    #[test]
    fn display_digit_ladder_f32() {
        let m = 0.802_469_1_f32;
        let want = [
            "@.0",
            "8e-1",
            "8.0e-1",
            "8.02e-1",
            "8.025e-1",
            "8.0247e-1",
            "8.02469e-1",
            "8.024691e-1",
        ];
        let mut seen = Vec::new();
        for d in spreads(9) {
            let d = d as f32;
            let x = Sf32::from_samples([m * (1.0 - d), m, m * (1.0 + d)]);
            let n = x.digits() as usize;
            assert_eq!(format!("{x}"), want[n], "spread {d:e}, {n} digits");
            seen.push(n);
        }
        assert!(seen.windows(2).all(|w| w[0] <= w[1]), "{seen:?}");
        for n in 0..=7 {
            assert!(seen.contains(&n), "no case with {n} digits: {seen:?}");
        }
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

    #[test]
    fn debug() {
        let x = Sf64::from_samples([1.0, 0.1, -2.5]);
        assert_eq!(
            format!("{x:?}"),
            "Stochastic { samples: [1.0, 0.1, -2.5], flags: [] }"
        );
        let y = Sf64::from_parts(
            [1e-17, -3e-17, 4e-17],
            Flags::from_bits(Instability::Division.bit() | Instability::Cancellation.bit()),
        );
        assert_eq!(
            format!("{y:?}"),
            "Stochastic { samples: [1e-17, -3e-17, 4e-17], flags: [division, cancellation] }"
        );
        let all = Sf32::from_parts([0.1, f32::NAN, f32::NEG_INFINITY], Flags::from_bits(0x7f));
        assert_eq!(
            format!("{all:?}"),
            "Stochastic { samples: [0.1, NaN, -inf], flags: [division, multiplication, power, \
             branching, intrinsic, math_function, cancellation] }"
        );
        assert_eq!(
            format!("{x:#?}"),
            "Stochastic {\n    samples: [\n        1.0,\n        0.1,\n        -2.5,\n    ],\n    \
             flags: [],\n}"
        );
        // Full precision: the samples read back exactly.
        let z = Sf64::from_samples([0.1 + 0.2, 1.0 / 3.0, f64::MIN_POSITIVE / 7.0]);
        let text = format!("{z:?}");
        let inner = &text[text.find('[').unwrap() + 1..text.find(']').unwrap()];
        let back: Vec<f64> = inner.split(", ").map(|s| s.parse().unwrap()).collect();
        assert_eq!(back, z.samples().to_vec());
    }

    #[test]
    fn parse() {
        let x: Sf64 = "0.1".parse().unwrap();
        assert_eq!(x.samples(), [0.1; 3]);
        assert!(x.flags().is_empty());
        assert_eq!("-2.5e-3".parse::<Sf64>().unwrap().samples(), [-2.5e-3; 3]);
        assert_eq!("1E+000".parse::<Sf64>().unwrap().samples(), [1.0; 3]);
        assert_eq!(
            " 0.802469135802469E+000 "
                .parse::<Sf64>()
                .unwrap()
                .samples(),
            [0.802469135802469; 3]
        );
        assert_eq!(
            "8.02469135802469e-1".parse::<Sf64>().unwrap().samples(),
            [0.802469135802469; 3]
        );
        assert_eq!(
            "1e400".parse::<Sf64>().unwrap().samples(),
            [f64::INFINITY; 3]
        );
        assert_eq!(
            "-inf".parse::<Sf64>().unwrap().samples(),
            [f64::NEG_INFINITY; 3]
        );
        assert!("NaN"
            .parse::<Sf64>()
            .unwrap()
            .samples()
            .iter()
            .all(|v| v.is_nan()));
        assert_eq!("0.1".parse::<Sf32>().unwrap().samples(), [0.1f32; 3]);
        assert_eq!(
            "1e39".parse::<Sf32>().unwrap().samples(),
            [f32::INFINITY; 3]
        );
        // Nearest f32, not f64 then f32: 1 + 2^-24 + 2^-60 rounds up to 1 + 2^-23 directly,
        // but to 1 through f64 (1 + 2^-24 is a tie that f32 breaks to even).
        let s = "1.000000059604644776130344";
        assert_eq!(
            s.parse::<Sf32>().unwrap().samples(),
            [1.0 + f32::EPSILON; 3]
        );
        assert_eq!(s.parse::<f64>().unwrap() as f32, 1.0);
        // Round trips.
        for v in [0.1, -123.456, 1e-300, 6.02214076e23, f64::MAX] {
            let x = Sf64::new(v);
            assert_eq!(
                format!("{x}").parse::<Sf64>().unwrap().samples()[0],
                format!("{x}").parse::<f64>().unwrap()
            );
            assert_eq!(format!("{v:e}").parse::<Sf64>().unwrap().samples(), [v; 3]);
        }
    }

    #[test]
    fn parse_errors() {
        use std::error::Error as _;
        let e = "".parse::<Sf64>().unwrap_err();
        assert_eq!(
            e.to_string(),
            "cannot parse a stochastic number from an empty string"
        );
        assert_eq!("  ".parse::<Sf32>().unwrap_err(), e);
        let e = "1.2.3".parse::<Sf64>().unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid float literal `1.2.3` for a stochastic number"
        );
        assert!(e.source().is_some());
        let e = " @.0".parse::<Sf64>().unwrap_err();
        assert_eq!(
            e.to_string(),
            "`@.0` is a computed zero: it has no value to parse"
        );
        let long = "x".repeat(100);
        let msg = long.parse::<Sf64>().unwrap_err().to_string();
        assert!(msg.contains(&format!("`{}…`", "x".repeat(40))), "{msg}");
        // Error types are ordinary: Send, Sync, 'static, boxable.
        let boxed: Box<dyn std::error::Error + Send + Sync> =
            Box::new("z".parse::<Sf64>().unwrap_err());
        assert!(boxed.to_string().starts_with("invalid float literal"));
    }
}
