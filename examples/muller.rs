//! Muller's recurrence x(n+1) = 111 − 1130/x(n) + 3000/(x(n)·x(n−1)), x0 = 5.5, x1 = 61/11.
//!
//! What to look at: the exact sequence converges to 6, but any rounding error excites the
//! repelling solution and floating point converges to 100. IEEE double prints 100 with full
//! confidence after ~30 iterations; the stochastic run shows the exact digits draining away,
//! one or two per iteration, until no digit is left (`@.0`), and the report points at the
//! divisions by the noisy x(n). Afterwards all three samples are attracted to 100 and agree
//! again: the digit count rises, but the value's flags carry the unstable divisions that
//! invalidated it (self-validation failed), which is why DSA reports them.
//!
//! Run: `cargo run --release --example muller`. Expected: a table of x(n) for n = 5, 10, .., 30,
//! IEEE vs stochastic with its digits and flags; IEEE ends at 100; the stochastic digits fall
//! from 10 at x(5) to 4 at x(10) and `@.0` at x(15), then rise to 15 at x(30) (all samples at
//! 100), every value from x(15) on flagged `division` and `multiplication`; the report: unstable
//! divisions at the two divisions, unstable multiplications at `x1 * x0` (two `@.0` factors),
//! and the self-validation warning.
// Textbook loops, written as the numerical literature writes them.
#![allow(clippy::needless_range_loop, clippy::assign_op_pattern)]
use stoch_core::stochastic;

/// The code under `#[stochastic]`; `ieee` is the same code, unchanged, in IEEE arithmetic.
#[allow(dead_code, missing_docs)]
#[stochastic(plain = ieee)]
pub mod stoch {
    /// The first `n + 1` terms x(0..=n).
    pub fn muller(n: usize) -> Vec<f64> {
        let mut xs = vec![5.5, 61.0 / 11.0];
        while xs.len() <= n {
            let k = xs.len();
            let (x1, x0) = (xs[k - 1], xs[k - 2]);
            xs.push(111.0 - 1130.0 / x1 + 3000.0 / (x1 * x0));
        }
        xs.truncate(n + 1);
        xs
    }
}

/// Prints the case: IEEE vs stochastic, every fifth term.
pub fn show() {
    println!("Muller's recurrence (exact limit 6; floating point goes to 100)");
    let n = 30;
    let a = ieee::muller(n);
    let b = stoch::muller(n);
    for k in (5..=n).step_by(5) {
        println!(
            "  x({k:2})            IEEE: {:<24} stochastic: {} ({} digit{}, flags {:?})",
            a[k],
            b[k],
            b[k].digits(),
            if b[k].digits() == 1 { "" } else { "s" },
            b[k].flags()
        );
    }
}

#[allow(dead_code)]
#[stochastic]
fn main() {
    show();
}
