//! The tour: classic numerical traps, each computed twice — in IEEE arithmetic and under
//! `#[stochastic]` — with the exact digits of each stochastic result, then the instability
//! report with the source lines that caused them.
//!
//! Run: `cargo run --release --example tour` (README's first command; a few seconds).
//! Expected output: seven blocks (Rump's polynomial: IEEE 2 vs `@.0`; the quadratic: IEEE
//! complex roots vs the double root 3.5; Muller: IEEE → 100 vs digits draining to `@.0`;
//! Newton on a double root: IEEE runs to the iteration limit, DSA stops early; Gaussian
//! elimination: a `@.0` pivot; Hilbert determinants losing digits with n; a float sum that
//! should be 0: IEEE garbage vs `@.0`), then the report on stderr: cancellations, unstable
//! divisions and branchings, the accuracy collapse, each with `file:line:col`.
//! Each case is also its own example (`--example rump`, `quadratic`, `muller`, `newton`,
//! `gauss`, `hilbert`, `cancel_sum`) with comments on what to look at.
// Textbook loops, written as the numerical literature writes them.
#![allow(clippy::needless_range_loop, clippy::assign_op_pattern)]
use stoch_core::stochastic;

#[path = "cancel_sum.rs"]
mod cancel_sum;
#[path = "gauss.rs"]
mod gauss;
#[path = "hilbert.rs"]
mod hilbert;
#[path = "muller.rs"]
mod muller;
#[path = "newton.rs"]
mod newton;
#[path = "quadratic.rs"]
mod quadratic;
#[path = "rump.rs"]
mod rump;

#[stochastic]
fn main() {
    println!("stoch tour: IEEE arithmetic vs Discrete Stochastic Arithmetic (exact digits only)\n");
    rump::show();
    println!();
    quadratic::show();
    println!();
    muller::show();
    println!();
    newton::show();
    println!();
    gauss::show();
    println!();
    hilbert::show();
    println!();
    cancel_sum::show();
    println!("\nThe instability report follows (stderr).");
}
