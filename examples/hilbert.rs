//! The determinant of the Hilbert matrix H(i, j) = 1/(i + j + 1), by Gaussian elimination.
//!
//! What to look at: the matrix is notoriously ill-conditioned. The determinant of H(n) is
//! known exactly (1/det is an integer); IEEE double prints 16 digits for every n, but the
//! stochastic run shows the exact digits falling as n grows, about 1.5 per unit of n, until
//! none remains.
//!
//! Run: `cargo run --release --example hilbert`. Expected: a table n, exact det, IEEE det,
//! stochastic det and its digits, for n = 4, 6, 8, 10, 12.
// Textbook loops, written as the numerical literature writes them.
#![allow(clippy::needless_range_loop, clippy::assign_op_pattern)]
use stoch_core::stochastic;

/// The code under `#[stochastic]`; `ieee` is the same code, unchanged, in IEEE arithmetic.
#[allow(dead_code, missing_docs)]
#[stochastic(plain = ieee)]
pub mod stoch {
    /// det H(n) by elimination without pivoting (Hilbert matrices are positive definite).
    pub fn hilbert_det(n: usize) -> f64 {
        let mut a: Vec<Vec<f64>> = (0..n)
            .map(|i| (0..n).map(|j| 1.0 / ((i + j + 1) as f64)).collect())
            .collect();
        let mut det = 1.0;
        for k in 0..n {
            det = det * a[k][k];
            for i in k + 1..n {
                let m = a[i][k] / a[k][k];
                for j in k..n {
                    a[i][j] = a[i][j] - m * a[k][j];
                }
            }
        }
        det
    }
}

/// The exact determinant of H(n), in f64 (from the product formula with exact integers).
pub fn exact_det(n: usize) -> f64 {
    // det H(n) = c(n)^4 / c(2n) with c(n) = Π_{k<n} k!  — evaluated in log space.
    let lnfact = |k: usize| (1..=k).map(|i| (i as f64).ln()).sum::<f64>();
    let lnc = |m: usize| (0..m).map(lnfact).sum::<f64>();
    (4.0 * lnc(n) - lnc(2 * n)).exp()
}

/// Prints the case: IEEE vs stochastic.
pub fn show() {
    println!("Determinant of the Hilbert matrix (exact value from the product formula)");
    for n in [4, 6, 8, 10, 12] {
        let s = stoch::hilbert_det(n);
        println!(
            "  n = {n:2}  exact: {:<12.6e} IEEE: {:<24e} stochastic: {} ({} digits)",
            exact_det(n),
            ieee::hilbert_det(n),
            s,
            s.digits()
        );
    }
}

#[allow(dead_code)]
#[stochastic]
fn main() {
    show();
}
