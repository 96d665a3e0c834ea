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
//!
//! The files: `display` (`{}`, `{:e}` and the precisions), `cadna` (`{:#}`), `debug` (`{:?}`),
//! `parse` ([`FromStr`]).
//!
//! [`FromStr`]: core::str::FromStr

mod cadna;
mod debug;
mod display;
mod parse;

pub use parse::ParseStochasticError;

#[cfg(test)]
mod cadna_cases;

/// Values built from sample bits, for the tests of the formats.
#[cfg(test)]
mod test_values {
    use crate::{Sf32, Sf64};

    pub(super) fn f64s(bits: [u64; 3]) -> Sf64 {
        Sf64::from_samples(bits.map(f64::from_bits))
    }

    pub(super) fn f32s(bits: [u32; 3]) -> Sf32 {
        Sf32::from_samples(bits.map(f32::from_bits))
    }
}
