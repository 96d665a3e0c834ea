//! CPU references of the shipped kernels, written with `Stochastic<T>`, performing the same
//! operations in the same order as the device code.
//! Validation runs a kernel and its reference on the same input and compares digit by digit.

use stoch_core::{StochFloat, Stochastic};

/// Stochastic matrix product, same loop as `stoch_matmul_*`.
///
/// # Panics
///
/// When a slice's length is not the product of its sizes.
#[must_use]
pub fn matmul<T: StochFloat>(
    a: &[Stochastic<T>],
    b: &[Stochastic<T>],
    n: usize,
    m: usize,
    k: usize,
) -> Vec<Stochastic<T>> {
    assert_eq!(a.len(), n * k, "a must be n x k");
    assert_eq!(b.len(), k * m, "b must be k x m");
    let mut c = Vec::with_capacity(n * m);
    for row in 0..n {
        for col in 0..m {
            let mut temp = Stochastic::<T>::ZERO;
            for i in 0..k {
                temp += a[row * k + i] * b[i * m + col];
            }
            c.push(temp);
        }
    }
    c
}

/// Sequential sum on the CPU.
#[must_use]
pub fn sum<T: StochFloat>(values: &[Stochastic<T>]) -> Stochastic<T> {
    values.iter().fold(Stochastic::<T>::ZERO, |acc, v| acc + *v)
}
