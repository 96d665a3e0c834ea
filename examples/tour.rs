//! The tour: classic numerical traps, each computed twice — in IEEE arithmetic and under
//! `#[stochastic]` — with the exact digits of each stochastic result, then the instability
//! report with the source lines that caused them.
//!
//! Run: `cargo run --release --example tour` (README's first command; a few seconds).
//! Expected output: seven blocks, then the report on stderr.
//! - Rump's polynomial: IEEE 2 vs `@.0` (exact: 1).
//! - The quadratic: IEEE computes the discriminant 8.881784197001252e-16 instead of 0 and
//!   prints two real roots, 3.499999950329463 and 3.5000000496705375 (Rust never fuses the
//!   discriminant's product and difference into a multiply-add, so this is the same
//!   everywhere); DSA: discriminant `@.0` and the double root 3.50000000000000e0.
//! - Muller: IEEE goes to 100; the stochastic digits drain from 12 at x(5) to 1 at x(15), then
//!   the samples agree on 100 again, carrying the `division` flag.
//! - Newton on a double root: IEEE stops after 25 iterations at 0.4285714335453048 (8 of its
//!   digits right), DSA after 24 at 4.2857143e-1 (only those 8 digits).
//! - Gaussian elimination: the entry that is 0 in exact arithmetic is 4.47e-6 in IEEE and `@.0`
//!   in DSA; partial pivoting rejects it for the row with 1.7, and the solution keeps 12 to 15
//!   digits.
//! - Hilbert determinants: exact digits falling from 12 at n = 4 to 1 at n = 12, while IEEE
//!   prints 16 or 17 digits (at n = 12, 2.84e-78 for 2.64e-78).
//! - A float sum that should be 0: IEEE -1.4575195e-1 vs `@.0`.
//!
//! The report: cancellations, two unstable divisions (Muller), an unstable branching (Newton's
//! stopping test), an unstable intrinsic (`abs` of Gauss's `@.0` entry, whose samples differ in
//! sign), the self-validation warning and the accuracy collapses, each with `file:line:col`.
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
