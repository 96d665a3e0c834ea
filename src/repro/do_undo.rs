//! Seed 000's do/undo programs, `x = (x*y)/y` and `x = (x/y)*y`.

use std::time::Instant;

use stoch_core::composite::{Composite, DoubleWord};

use super::rng::Rng;
use super::stochastic;

/// A do/undo trial: `x` and `y` magnitude intervals (seed 000, §V.C).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Trial {
    /// Interval of `|x|`.
    pub x: (f64, f64),
    /// Interval of `|y|`.
    pub y: (f64, f64),
}

/// The paper's three trials: x, y in (1,100); x in (1e5,1e6), y in (1e-6,1e-5); x in
/// (1e-6,1e-5), y in (1e5,1e6).
pub const TRIALS: [Trial; 3] = [
    Trial {
        x: (1.0, 100.0),
        y: (1.0, 100.0),
    },
    Trial {
        x: (1e5, 1e6),
        y: (1e-6, 1e-5),
    },
    Trial {
        x: (1e-6, 1e-5),
        y: (1e5, 1e6),
    },
];

/// Which operation is done and undone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DoUndoOp {
    /// `x = (x * y) / y`
    MulDiv,
    /// `x = (x / y) * y`
    DivMul,
}

impl DoUndoOp {
    /// `"*,/"` or `"/,*"`.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            DoUndoOp::MulDiv => "x=(x*y)/y",
            DoUndoOp::DivMul => "x=(x/y)*y",
        }
    }
}

/// The number type of a do/undo run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// `f32`.
    Float,
    /// `f64`.
    Double,
    /// Composite `f32` pair, Figures 4-5 of seed 000 (division as printed in the paper).
    Float2,
    /// Composite `f32` pair with the slides' division (Karp's quotient, FMA remainder).
    Float2Karp,
    /// Normalised `f32` double word.
    DoubleWord,
    /// Stochastic `f32`.
    StochFloat,
    /// Stochastic `f64`.
    StochDouble,
    /// The composite pair of Figures 4-5 over stochastic `f32` (its DSA digits).
    StochFloat2,
    /// The normalised double word over stochastic `f32` (its DSA digits).
    StochDoubleWord,
}

impl Kind {
    /// Every kind.
    pub const ALL: [Kind; 9] = [
        Kind::Float,
        Kind::Double,
        Kind::Float2,
        Kind::Float2Karp,
        Kind::DoubleWord,
        Kind::StochFloat,
        Kind::StochDouble,
        Kind::StochFloat2,
        Kind::StochDoubleWord,
    ];

    /// Label for tables and plots.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            Kind::Float => "float",
            Kind::Double => "double",
            Kind::Float2 => "float2 (fig. 5)",
            Kind::Float2Karp => "float2 (karp)",
            Kind::DoubleWord => "double-word f32",
            Kind::StochFloat => "Sf32",
            Kind::StochDouble => "Sf64",
            Kind::StochFloat2 => "float2 of Sf32",
            Kind::StochDoubleWord => "double-word of Sf32",
        }
    }
}

/// Operands of one do/undo run: the start value and the `y` of each iteration, all
/// `f32`-representable so every type starts from the same numbers.
#[derive(Clone, Debug)]
pub struct DoUndoInput {
    /// Start value.
    pub x0: f32,
    /// One `y` per iteration.
    pub ys: Vec<f32>,
}

/// Draws `x0` and `iterations` values of `y` for `trial` (random signs).
#[must_use]
pub fn do_undo_input(trial: &Trial, iterations: usize, seed: u64) -> DoUndoInput {
    let mut rng = Rng::new(seed);
    let x0 = (rng.sign() * rng.uniform(trial.x.0, trial.x.1)) as f32;
    let ys = (0..iterations)
        .map(|_| (rng.sign() * rng.uniform(trial.y.0, trial.y.1)) as f32)
        .collect();
    DoUndoInput { x0, ys }
}

/// One do/undo run.
#[derive(Clone, Debug)]
pub struct DoUndoRun {
    /// The number type.
    pub kind: Kind,
    /// The operation pair.
    pub op: DoUndoOp,
    /// `(iteration, relative drift (x_i - x_0)/x_0)` at `checkpoints` evenly spaced points
    /// (the last one is the final value).
    pub drift: Vec<(usize, f64)>,
    /// The final `x` as `f64`.
    pub final_value: f64,
    /// Exact significant digits of the final `x` (stochastic kinds only).
    pub digits: Option<u32>,
    /// Seconds for the iterations.
    pub seconds: f64,
}

impl DoUndoRun {
    /// The final relative drift `(x_n - x_0)/x_0`.
    #[must_use]
    pub fn final_drift(&self) -> f64 {
        self.drift.last().map_or(0.0, |d| d.1)
    }
}

/// Iterates `step` over the `ys`, recording the drift at `checkpoints` points.
pub(super) fn iterate<X: Copy, Y: Copy>(
    x0: X,
    ys: &[Y],
    checkpoints: usize,
    step: impl Fn(X, Y) -> X,
    value: impl Fn(X) -> f64,
) -> (X, Vec<(usize, f64)>, f64) {
    let start = value(x0);
    let n = ys.len();
    let every = (n / checkpoints.max(1)).max(1);
    let mut drift = Vec::with_capacity(checkpoints + 1);
    let mut x = x0;
    let t0 = Instant::now();
    for (block, chunk) in ys.chunks(every).enumerate() {
        for &y in chunk {
            x = step(x, y);
        }
        let done = block * every + chunk.len();
        drift.push((done, (value(x) - start) / start));
    }
    (x, drift, t0.elapsed().as_secs_f64())
}

/// Runs `x = (x op y) op⁻¹ y` over `input.ys` in number type `kind`.
#[must_use]
pub fn do_undo(kind: Kind, op: DoUndoOp, input: &DoUndoInput, checkpoints: usize) -> DoUndoRun {
    macro_rules! run {
        ($x0:expr, $conv:expr, $mul:expr, $div:expr, $val:expr) => {{
            let conv = $conv;
            let ys: Vec<_> = input.ys.iter().map(|&y| conv(y)).collect();
            let (x, drift, seconds) = match op {
                DoUndoOp::MulDiv => {
                    iterate($x0, &ys, checkpoints, |x, y| $div($mul(x, y), y), $val)
                }
                DoUndoOp::DivMul => {
                    iterate($x0, &ys, checkpoints, |x, y| $mul($div(x, y), y), $val)
                }
            };
            (x, drift, seconds)
        }};
    }
    let x0 = input.x0;
    let (final_value, drift, seconds, digits) = match kind {
        Kind::Float => {
            let (x, d, s) = run!(
                x0,
                |y: f32| y,
                |a: f32, b| a * b,
                |a: f32, b| a / b,
                |x: f32| x as f64
            );
            (x as f64, d, s, None)
        }
        Kind::Double => {
            let (x, d, s) = run!(
                x0 as f64,
                |y: f32| y as f64,
                |a: f64, b| a * b,
                |a: f64, b| a / b,
                |x: f64| x
            );
            (x, d, s, None)
        }
        Kind::Float2 => {
            let (x, d, s) = run!(
                Composite::from_value(x0),
                Composite::from_value,
                |a: Composite<f32>, b| a.mul(b),
                |a: Composite<f32>, b| a.div(b),
                |x: Composite<f32>| x.to_f64()
            );
            (x.to_f64(), d, s, None)
        }
        Kind::Float2Karp => {
            let (x, d, s) = run!(
                Composite::from_value(x0),
                Composite::from_value,
                |a: Composite<f32>, b| a.mul(b),
                |a: Composite<f32>, b| a.div_karp(b),
                |x: Composite<f32>| x.to_f64()
            );
            (x.to_f64(), d, s, None)
        }
        Kind::DoubleWord => {
            let (x, d, s) = run!(
                DoubleWord::from_value(x0),
                |y: f32| y,
                |a: DoubleWord<f32>, b| a.mul_fp(b),
                |a: DoubleWord<f32>, b| a / DoubleWord::from_value(b),
                |x: DoubleWord<f32>| x.to_f64()
            );
            (x.to_f64(), d, s, None)
        }
        Kind::StochFloat | Kind::StochDouble | Kind::StochFloat2 | Kind::StochDoubleWord => {
            return stochastic::do_undo(kind, op, input, checkpoints)
        }
    };
    DoUndoRun {
        kind,
        op,
        drift,
        final_value,
        digits,
        seconds,
    }
}
