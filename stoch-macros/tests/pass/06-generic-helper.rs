// A generic helper (std operator bounds) called with rewritten f64 values.
use std::ops::{Add, Mul};
use stoch_core::stochastic;

fn dot<T: Copy + Add<Output = T> + Mul<Output = T>>(a: &[T], b: &[T], zero: T) -> T {
    a.iter().zip(b).fold(zero, |acc, (x, y)| acc + *x * *y)
}

fn largest<T: PartialOrd + Copy>(xs: &[T]) -> T {
    let mut m = xs[0];
    for &x in xs {
        if x > m {
            m = x;
        }
    }
    m
}

#[stochastic]
fn main() {
    let a: Vec<f64> = vec![1.0, 2.0, 3.0];
    let b = vec![0.5, 0.25, 0.125];
    let d = dot(&a, &b, 0.0);
    assert!(d == 1.375 && d.digits() >= 15);
    let m = largest(&[0.1, 0.7, 0.3]);
    assert!(m == 0.7);
}
