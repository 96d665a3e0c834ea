//! Gaussian elimination with partial pivoting on a system where an entry becomes exactly zero in
//! real arithmetic (CADNA's classic 4×4 example; the exact solution is (1, 1, 1e-8, 1)).
//!
//! What to look at: after two elimination steps the entry a[2][2] is exactly 0 in real
//! arithmetic; IEEE gives round-off that looks like a number, the stochastic run shows `@.0`.
//! Partial pivoting then picks the row with 1.7 (a significant comparison, no branching
//! instability), and DSA reports how many digits of each unknown survive: x2 = 1e-8 and x3
//! keep all 15, x0 and x1 11 or 12, matching the IEEE errors (about 1e-12).
//!
//! Run: `cargo run --release --example gauss`. Expected: the noise entry, IEEE
//! 4.470348358154297e-6 vs `@.0`; the pivots 21, -0.476190476190..., 1.7 (not the `@.0` entry),
//! -626.388; the solution IEEE vs stochastic (x2 = 1.00000000000000e-8); the report: three
//! cancellations at the elimination line, nothing else. (With other random bits, as in the
//! tour, `abs` of the `@.0` entry can also be reported as an unstable intrinsic: its samples
//! differ in sign.)
// Textbook loops, written as the numerical literature writes them.
#![allow(clippy::needless_range_loop, clippy::assign_op_pattern)]
use stoch_core::stochastic;

/// The code under `#[stochastic]`; `ieee` is the same code, unchanged, in IEEE arithmetic.
#[allow(dead_code, missing_docs)]
#[stochastic(plain = ieee)]
pub mod stoch {
    /// The system: A and b with x = (1, 1, 1e-8, 1).
    pub fn system() -> (Vec<Vec<f64>>, Vec<f64>) {
        let a = vec![
            vec![21.0, 130.0, 0.0, 2.1],
            vec![13.0, 80.0, 4.74e8, 752.0],
            vec![0.0, -0.4, 3.9816e8, 4.2],
            vec![0.0, 0.0, 1.7, 9.0e-9],
        ];
        let b = vec![153.1, 849.74, 7.7816, 2.6e-8];
        (a, b)
    }

    /// Solves A x = b by elimination with partial pivoting; returns x, the pivots, and the
    /// entry a[2][2] after two elimination steps (exactly 0 in real arithmetic).
    pub fn solve(mut a: Vec<Vec<f64>>, mut b: Vec<f64>) -> (Vec<f64>, Vec<f64>, f64) {
        let n = b.len();
        let mut pivots = Vec::new();
        let mut zero = 0.0;
        for k in 0..n {
            if k == 2 {
                zero = a[2][2];
            }
            let mut p = k;
            for i in k + 1..n {
                if a[i][k].abs() > a[p][k].abs() {
                    p = i;
                }
            }
            a.swap(k, p);
            b.swap(k, p);
            pivots.push(a[k][k]);
            for i in k + 1..n {
                let m = a[i][k] / a[k][k];
                for j in k..n {
                    a[i][j] = a[i][j] - m * a[k][j];
                }
                b[i] = b[i] - m * b[k];
            }
        }
        let mut x = vec![0.0; n];
        for i in (0..n).rev() {
            let mut s = b[i];
            for j in i + 1..n {
                s = s - a[i][j] * x[j];
            }
            x[i] = s / a[i][i];
        }
        (x, pivots, zero)
    }
}

/// Prints the case: IEEE vs stochastic.
pub fn show() {
    println!("Gaussian elimination with a zero pivot (exact solution: 1, 1, 1e-8, 1)");
    let (a, b) = ieee::system();
    let (xi, pi, zi) = ieee::solve(a, b);
    let (a, b) = stoch::system();
    let (xs, ps, zs) = stoch::solve(a, b);
    println!("  a[2][2] (= 0)    IEEE: {zi:<24e} stochastic: {zs}");
    for k in 0..pi.len() {
        println!(
            "  pivot {k}          IEEE: {:<24} stochastic: {}",
            pi[k], ps[k]
        );
    }
    for k in 0..xi.len() {
        println!(
            "  x{k}               IEEE: {:<24} stochastic: {}",
            xi[k], xs[k]
        );
    }
}

#[allow(dead_code)]
#[stochastic]
fn main() {
    show();
}
