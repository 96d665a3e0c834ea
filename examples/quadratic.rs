//! A second-order equation whose discriminant is exactly zero: 0.3x² − 2.1x + 3.675 = 0 has the
//! double root 3.5.
//!
//! What to look at: in IEEE arithmetic b² − 4ac is not zero (0.3, 2.1 and 3.675 are not binary
//! numbers): it is +8.88e-16 (4 units of 2⁻⁵²), so the program takes the `d > 0` branch and
//! reports two real roots, wrong from their 8th digit. Rust never contracts `b * b - 4.0 * a * c`
//! into a fused multiply-add, so every platform and optimisation level computes this. Under
//! `#[stochastic]` the discriminant is a computed zero (`@.0`), the test `d == 0.0` is true by
//! DSA's stochastic equality, and the double root 3.5 comes out with 15 digits.
//!
//! Run: `cargo run --release --example quadratic`. Expected: IEEE discriminant
//! 8.881784197001252e-16 and "real roots 3.499999950329463, 3.5000000496705375"; stochastic
//! discriminant `@.0` and "double root 3.50000000000000e0"; the report: one cancellation (an
//! accuracy collapse) at the `b * b - 4.0 * a * c` line. (With three samples, DSA can miss: if
//! the three samples of the discriminant happen to be identical, it is shown with 15 digits;
//! the seed makes each run repeat.)
// Textbook loops, written as the numerical literature writes them.
#![allow(clippy::needless_range_loop, clippy::assign_op_pattern)]
use stoch_core::stochastic;

/// The code under `#[stochastic]`; `ieee` is the same code, unchanged, in IEEE arithmetic.
#[allow(dead_code, missing_docs)]
#[stochastic(plain = ieee)]
pub mod stoch {
    /// The roots of ax² + bx + c, as the textbook writes them.
    #[derive(Debug)]
    pub enum Roots {
        Double(f64),
        Real(f64, f64),
        Complex(f64, f64),
    }

    pub fn discriminant(a: f64, b: f64, c: f64) -> f64 {
        b * b - 4.0 * a * c
    }

    /// The discriminant and the roots.
    pub fn solve(a: f64, b: f64, c: f64) -> (f64, Roots) {
        let d = discriminant(a, b, c);
        let roots = if d == 0.0 {
            Roots::Double(-b / (2.0 * a))
        } else if d > 0.0 {
            let s = d.sqrt();
            Roots::Real((-b - s) / (2.0 * a), (-b + s) / (2.0 * a))
        } else {
            let s = (-d).sqrt();
            Roots::Complex(-b / (2.0 * a), s / (2.0 * a))
        };
        (d, roots)
    }
}

fn describe_ieee(r: &ieee::Roots) -> String {
    match r {
        ieee::Roots::Double(x) => format!("double root {x}"),
        ieee::Roots::Real(x, y) => format!("real roots {x}, {y}"),
        ieee::Roots::Complex(re, im) => format!("complex roots {re} ± {im}i"),
    }
}

fn describe_stoch(r: &stoch::Roots) -> String {
    match r {
        stoch::Roots::Double(x) => format!("double root {x}"),
        stoch::Roots::Real(x, y) => format!("real roots {x}, {y}"),
        stoch::Roots::Complex(re, im) => format!("complex roots {re} ± {im}i"),
    }
}

/// Prints the case: IEEE vs stochastic.
pub fn show() {
    println!("Second-order equation 0.3x^2 - 2.1x + 3.675 = 0 (exact: double root 3.5)");
    let (a, b, c) = (0.3, -2.1, 3.675);
    let (di, ri) = ieee::solve(a, b, c);
    let (ds, rs) = stoch::solve(a.into(), b.into(), c.into());
    println!("  discriminant     IEEE: {di:<24e} stochastic: {ds}");
    println!(
        "  roots            IEEE: {}\n                   stochastic: {}",
        describe_ieee(&ri),
        describe_stoch(&rs)
    );
}

#[allow(dead_code)]
#[stochastic]
fn main() {
    show();
}
