//! The determinant of the Hilbert matrix H(i, j) = 1/(i + j + 1), by Gaussian elimination.
//!
//! What to look at: the matrix is notoriously ill-conditioned. The determinant of H(n) is
//! known exactly: 1/det is an integer, computed here from its closed form with exact integer
//! arithmetic. IEEE double prints 16 or 17 digits for every n, of which fewer and fewer are right
//! (at n = 12 only the first: 2.84e-78 for 2.64e-78), but the stochastic run shows the
//! exact digits falling as n grows, about 1.5 per unit of n, until one remains.
//!
//! Run: `cargo run --release --example hilbert`. Expected: a table n, exact det, IEEE det,
//! stochastic det and its digits, for n = 4, 6, 8, 10, 12: exact 1.653439e-7 .. 2.637781e-78,
//! stochastic digits 12, 10, 7, 4, 1 (the tour, with other random bits, shows 12, 9, 6, 3, 1);
//! the report: only cancellations, at the elimination line.
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

/// The exact integer 1/det H(n) = c(2n) / c(n)⁴ with c(m) = Π_{k<m} k!, as little-endian base-2⁶⁴
/// digits: the exponent of each prime p in c(m) is Σ_{k<m} v_p(k!) (Legendre's formula), and
/// the product of the prime powers is computed in integer arithmetic, without rounding.
pub fn inverse_det(n: usize) -> Vec<u64> {
    // v_p(k!) = Σ_i ⌊k / p^i⌋, so v_p(c(m)) = Σ_{k<m} v_p(k!).
    let v_fact = |p: usize, k: usize| {
        let (mut e, mut q) = (0, p);
        while q <= k {
            e += k / q;
            q *= p;
        }
        e
    };
    let v_c = |p: usize, m: usize| (0..m).map(|k| v_fact(p, k)).sum::<usize>();
    let mut digits = vec![1u64];
    for p in (2..2 * n).filter(|&p| (2..p).all(|d| p % d != 0)) {
        // c(n)⁴ divides c(2n): 1/det is an integer.
        for _ in 0..v_c(p, 2 * n) - 4 * v_c(p, n) {
            let mut carry = 0u128;
            for d in digits.iter_mut() {
                let t = u128::from(*d) * p as u128 + carry;
                *d = t as u64;
                carry = t >> 64;
            }
            if carry > 0 {
                digits.push(carry as u64);
            }
        }
    }
    digits
}

/// An integer in base-2⁶⁴ digits (little-endian), correctly rounded to the nearest `f64`.
pub fn to_f64(digits: &[u64]) -> f64 {
    let bits = 64 * digits.len() as i32 - digits.last().map_or(64, |d| d.leading_zeros() as i32);
    if bits <= 64 {
        return digits.first().copied().unwrap_or(0) as f64;
    }
    // The top 64 bits, with every lower bit folded into the last one (a sticky bit: 11 bits
    // below the 53 kept, so the u64 → f64 conversion rounds as the whole integer would).
    let shift = bits - 64;
    let bit = |i: i32| (digits[(i / 64) as usize] >> (i % 64)) & 1;
    let mut top = 0u64;
    for i in (shift..bits).rev() {
        top = top << 1 | bit(i);
    }
    let sticky = (0..shift).any(|i| bit(i) == 1);
    (top | u64::from(sticky)) as f64 * 2f64.powi(shift)
}

/// det H(n) = 1 / [`inverse_det`]`(n)`: the exact integer, rounded to `f64`, then inverted (two
/// roundings: the relative error is below 2⁻⁵², far below the digits that matter here).
pub fn exact_det(n: usize) -> f64 {
    1.0 / to_f64(&inverse_det(n))
}

/// Prints the case: IEEE vs stochastic.
pub fn show() {
    println!("Determinant of the Hilbert matrix (exact value: 1/det is an integer)");
    for n in [4, 6, 8, 10, 12] {
        let s = stoch::hilbert_det(n);
        println!(
            "  n = {n:2}  exact: {:<12.6e} IEEE: {:<24e} stochastic: {} ({} digit{})",
            exact_det(n),
            ieee::hilbert_det(n),
            s,
            s.digits(),
            if s.digits() == 1 { "" } else { "s" }
        );
    }
}

#[allow(dead_code)]
#[stochastic]
fn main() {
    show();
}
