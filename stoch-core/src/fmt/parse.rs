//! [`FromStr`]: a float literal read into an exact value, and the error that says why not.

use core::fmt;
use core::num::ParseFloatError;
use core::str::FromStr;

use crate::{StochFloat, Stochastic};

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
    use crate::{Sf32, Sf64};

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
