//! The kinds of numerical instability that Discrete Stochastic Arithmetic detects, the sticky
//! flag byte every value carries, and the events passed to a debugging hook.

use core::fmt;
use std::panic::Location;

use serde::{Deserialize, Serialize};

/// A kind of numerical instability (DESIGN §4).
///
/// The first three invalidate the first-order model behind the digit estimate
/// ("self-validation"): a report that holds any of them says the estimate cannot be trusted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Instability {
    /// The divisor is a computed zero (numerical noise). An exact zero divisor is an IEEE
    /// division by zero and is not counted.
    Division,
    /// Both operands of a product are stochastic and both are numerical noise.
    Multiplication,
    /// The base or the exponent of `powf`/`powi` is numerical noise.
    Power,
    /// An ordering comparison (`< <= > >=`) whose difference is numerical noise: the branch
    /// taken depends on round-off.
    Branching,
    /// `abs` of a value whose samples differ in sign, or `floor ceil round trunc` and conversions
    /// to integers whose per-sample results differ.
    Intrinsic,
    /// The argument of a mathematical function is numerical noise, or a test such as `is_nan`
    /// whose samples disagree.
    MathFunction,
    /// An addition or subtraction lost at least `cancel_level` exact digits.
    Cancellation,
}

impl Instability {
    /// Every kind, in report order.
    pub const ALL: [Instability; 7] = [
        Instability::Division,
        Instability::Multiplication,
        Instability::Power,
        Instability::Branching,
        Instability::Intrinsic,
        Instability::MathFunction,
        Instability::Cancellation,
    ];

    /// The kind's bit in a [`Flags`] byte (`1 << index`); the same bits as the device header.
    ///
    /// ```
    /// use stoch_core::Instability;
    /// assert_eq!(Instability::Division.bit(), 0x01);
    /// assert_eq!(Instability::Cancellation.bit(), 0x40);
    /// ```
    #[inline]
    #[must_use]
    pub const fn bit(self) -> u8 {
        1 << self.index()
    }

    /// Position of the kind in [`Instability::ALL`].
    #[inline]
    #[must_use]
    pub const fn index(self) -> usize {
        match self {
            Instability::Division => 0,
            Instability::Multiplication => 1,
            Instability::Power => 2,
            Instability::Branching => 3,
            Instability::Intrinsic => 4,
            Instability::MathFunction => 5,
            Instability::Cancellation => 6,
        }
    }

    /// Short lowercase name, as accepted by `STOCH_DETECT` and `STOCH_PANIC_ON`, printed in the
    /// report's site lines and used as the kind's JSON name.
    ///
    /// ```
    /// use stoch_core::Instability;
    /// for k in Instability::ALL {
    ///     assert_eq!(Instability::from_name(k.name()), Some(k));
    /// }
    /// assert_eq!(Instability::MathFunction.name(), "math_function");
    /// ```
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Instability::Division => "division",
            Instability::Multiplication => "multiplication",
            Instability::Power => "power",
            Instability::Branching => "branching",
            Instability::Intrinsic => "intrinsic",
            Instability::MathFunction => "math_function",
            Instability::Cancellation => "cancellation",
        }
    }

    /// How the report names the kind (`"unstable division"`, `"cancellation"`, ...).
    #[must_use]
    pub const fn description(self) -> &'static str {
        match self {
            Instability::Division => "unstable division",
            Instability::Multiplication => "unstable multiplication",
            Instability::Power => "unstable power function",
            Instability::Branching => "unstable branching",
            Instability::Intrinsic => "unstable intrinsic function",
            Instability::MathFunction => "unstable mathematical function",
            Instability::Cancellation => "cancellation",
        }
    }

    /// Whether this kind invalidates the self-validation of the estimate.
    #[must_use]
    pub const fn breaks_self_validation(self) -> bool {
        matches!(
            self,
            Instability::Division | Instability::Multiplication | Instability::Power
        )
    }

    /// Parses a name as accepted by [`Instability::name`] (also `math_function`, plural forms).
    #[must_use]
    pub fn from_name(s: &str) -> Option<Instability> {
        let s = s.trim().to_ascii_lowercase();
        let s = s.strip_suffix('s').unwrap_or(&s);
        Some(match s {
            "division" | "div" => Instability::Division,
            "multiplication" | "mul" => Instability::Multiplication,
            "power" | "pow" => Instability::Power,
            "branching" | "branch" => Instability::Branching,
            "intrinsic" => Instability::Intrinsic,
            "math" | "math_function" | "mathfunction" | "math-function" => {
                Instability::MathFunction
            }
            "cancellation" | "cancel" => Instability::Cancellation,
            _ => return None,
        })
    }
}

impl fmt::Display for Instability {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.name())
    }
}

/// The sticky instability flags of a value: the kinds that touched its history. Every operation
/// ORs its operands' flags into its result.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Flags(u8);

impl Flags {
    /// No flag.
    pub const EMPTY: Flags = Flags(0);

    /// The raw byte (bit `1 << k` for kind index `k`).
    #[inline]
    #[must_use]
    pub const fn bits(self) -> u8 {
        self.0
    }

    /// From a raw byte; the unused top bit is dropped.
    #[inline]
    #[must_use]
    pub const fn from_bits(bits: u8) -> Flags {
        Flags(bits & 0x7f)
    }

    /// Whether `kind` touched the value.
    #[inline]
    #[must_use]
    pub const fn contains(self, kind: Instability) -> bool {
        self.0 & kind.bit() != 0
    }

    /// Whether no kind touched the value.
    #[inline]
    #[must_use]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The kinds set, in report order.
    pub fn iter(self) -> impl Iterator<Item = Instability> {
        Instability::ALL
            .into_iter()
            .filter(move |k| self.contains(*k))
    }

    /// These flags with `kind` added.
    #[inline]
    #[must_use]
    pub const fn with(self, kind: Instability) -> Flags {
        Flags(self.0 | kind.bit())
    }
}

impl fmt::Debug for Flags {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.iter().map(|k| k.name()))
            .finish()
    }
}

/// One detected instability, as passed to a hook installed with [`set_hook`](crate::set_hook).
#[derive(Clone, Copy, Debug)]
pub struct Event {
    /// What was detected.
    pub kind: Instability,
    /// The user's expression that performed the operation.
    pub location: &'static Location<'static>,
    /// The operands' samples, widened to `f64` (one or two operands; unused ones are NaN), as
    /// the user wrote them: for `a − b`, `a` and `b`. Two exceptions: for `mul_add(a, b, c)`'s
    /// cancellation the first operand is the product `a·b` (rounded to nearest) and the second
    /// `c`; for `t − x` with a plain `t`, they are `−x` and `t`.
    pub operands: [[f64; 3]; 2],
    /// How many entries of `operands` are meaningful.
    pub operand_count: usize,
}
