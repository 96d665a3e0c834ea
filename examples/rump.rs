//! Rump's polynomial f(x, y) = 9x⁴ − y⁴ + 2y² (seed paper 004, CADNA's first example).
//!
//! What to look at: at (10864, 18817) IEEE double prints 2 with full confidence, but the exact
//! value is 1: the three terms are ~10^17 and cancel. The stochastic result is `@.0` (no exact
//! digit) and the report names the subtraction as a cancellation. At (1/3, 2/3) the same code
//! keeps its 15 digits: 8.02469135802469e-1.
//!
//! Run: `cargo run --release --example rump`. Expected output: the two evaluations, IEEE 2 vs
//! `@.0` and IEEE 0.8024691358024691 vs 8.02469135802469e-1, then the instability report: two
//! cancellations at the `a - b + c` line, one of them an accuracy collapse.
// Textbook loops, written as the numerical literature writes them.
#![allow(clippy::needless_range_loop, clippy::assign_op_pattern)]
use stoch_core::stochastic;

/// The code under `#[stochastic]`; `ieee` is the same code, unchanged, in IEEE arithmetic.
#[allow(dead_code, missing_docs)]
#[stochastic(plain = ieee)]
pub mod stoch {
    pub fn rump(x: f64, y: f64) -> f64 {
        let a = 9.0 * x * x * x * x;
        let b = y * y * y * y;
        let c = 2.0 * y * y;
        a - b + c
    }
}

/// Prints the case: IEEE vs stochastic.
pub fn show() {
    println!("Rump's polynomial 9x^4 - y^4 + 2y^2 (exact value at (10864, 18817): 1)");
    let ieee = ieee::rump(10864.0, 18817.0);
    let st = stoch::rump(10864.0.into(), 18817.0.into());
    println!("  f(10864, 18817)  IEEE: {ieee:<24} stochastic: {st}");
    let ieee = ieee::rump(1.0 / 3.0, 2.0 / 3.0);
    let third = stoch_core::Sf64::new(1.0) / 3.0;
    let st = stoch::rump(third, third * 2.0);
    println!("  f(1/3, 2/3)      IEEE: {ieee:<24} stochastic: {st}");
}

#[allow(dead_code)]
#[stochastic]
fn main() {
    show();
}
