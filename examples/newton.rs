//! Newton's method with a stopping test, on f(x) = 1.47x³ + 1.19x² − 1.83x + 0.45, whose root
//! 3/7 is double.
//!
//! What to look at: near a double root Newton's method converges only linearly and f(x), f'(x)
//! both shrink to round-off: the iterate stops improving after 8 digits. IEEE prints 16 digits
//! of which 8 are right; the stochastic result shows only the exact ones, and the report
//! points at the cancellations inside f and f' that limit the accuracy. The stopping test
//! `|y − x| ≤ tol || y == x` uses DSA's equality under `#[stochastic]`.
//!
//! Run: `cargo run --release --example newton`. Expected: IEEE 0.4285714335453048 after 25
//! iterations, stochastic 4.2857143e-1 (8 digits) after 24; the report: cancellations in f, in
//! f' and in the stopping test's `y - x`, and one unstable branching in the stopping test (the
//! last `<=` compares noise).
// Textbook loops, written as the numerical literature writes them.
#![allow(clippy::needless_range_loop, clippy::assign_op_pattern)]
use stoch_core::stochastic;

/// The code under `#[stochastic]`; `ieee` is the same code, unchanged, in IEEE arithmetic.
#[allow(dead_code, missing_docs)]
#[stochastic(plain = ieee)]
pub mod stoch {
    pub fn f(x: f64) -> f64 {
        ((1.47 * x + 1.19) * x - 1.83) * x + 0.45
    }

    pub fn df(x: f64) -> f64 {
        (4.41 * x + 2.38) * x - 1.83
    }

    /// Newton's iteration from `x0`, stopping when two iterates agree (`tol = 0` means "equal",
    /// which for stochastic numbers is DSA's equality), or after `max_iter` iterations.
    pub fn newton(x0: f64, tol: f64, max_iter: usize) -> (f64, usize) {
        let mut x = x0;
        for i in 1..=max_iter {
            let y = x - f(x) / df(x);
            if (y - x).abs() <= tol || y == x {
                return (y, i);
            }
            x = y;
        }
        (x, max_iter)
    }
}

/// Prints the case: IEEE vs stochastic.
pub fn show() {
    println!("Newton's method on a double root (exact root 3/7 = 0.428571428571428...)");
    let (xi, ni) = ieee::newton(0.5, 1e-15, 100);
    let (xs, ns) = stoch::newton(0.5.into(), 1e-15.into(), 100);
    println!("  root             IEEE: {xi:<24} stochastic: {xs}");
    println!("  iterations       IEEE: {ni:<24} stochastic: {ns}");
}

#[allow(dead_code)]
#[stochastic]
fn main() {
    show();
}
