//! ndarray with stochastic elements (feature `ndarray`): code written for `A: NdFloat` runs on
//! `Sf64` and `Sf32`, scalars combine with arrays on both sides, and the reductions (`sum`,
//! `mean`, `var`, `std`, `dot`) keep the digits DSA says they keep.
#![cfg(feature = "ndarray")]

use ndarray::{array, Array1, Array2, ArrayView1, Axis, NdFloat};
use stoch_core::{Instability, Sf32, Sf64};

/// Generic numeric code as ndarray users write it: the sample variance by the one-pass
/// textbook formula `(Σx² − (Σx)²/n)/(n − 1)`, which cancels when the mean is large.
fn naive_var<A: NdFloat>(x: ArrayView1<A>) -> A {
    let n = A::from(x.len()).unwrap();
    let s = x.sum();
    let s2 = x.dot(&x);
    (s2 - s * s / n) / (n - A::one())
}

/// Normalises the rows of a matrix to unit length, generic over `NdFloat`.
fn normalise_rows<A: NdFloat>(m: &Array2<A>) -> Array2<A> {
    let norms = m.map_axis(Axis(1), |r| r.dot(&r).sqrt());
    m / &norms.insert_axis(Axis(1))
}

#[test]
fn generic_ndfloat_code_runs_and_its_cancellation_shows() {
    // Data with a large mean: ndarray's own two-pass `var` keeps the digits, the one-pass
    // formula loses them, and DSA says so.
    let x: Array1<Sf64> = (0..100).map(|i| Sf64::new(1e8 + 0.1 * i as f64)).collect();
    let exact = 0.01 * 101.0 * 100.0 / 12.0; // Var of 0.1·i, i < 100: 0.01·n(n+1)/12
    let two_pass = x.var(Sf64::ONE);
    assert!(two_pass.digits() >= 7, "{two_pass}");
    // (The data themselves are rounded to f64: 1e8 + 0.1·i is off by up to 7e-9.)
    assert!(
        (two_pass.to_f64() - exact).abs() / exact < 1e-6,
        "{two_pass} vs {exact}"
    );
    let one_pass = naive_var(x.view());
    assert!(one_pass.digits() <= 4, "{one_pass}");
    assert!(one_pass.flags().contains(Instability::Cancellation));
    // The same generic code in f64 prints 16 digits of which far fewer are right.
    let xf = x.mapv(|v| v.to_f64());
    let f = naive_var(xf.view());
    assert!((f - exact).abs() / exact > 1e-9, "{f}");
    // std, mean, sum.
    assert!((x.std(Sf64::ONE).to_f64() - exact.sqrt()).abs() < 1e-6);
    assert_eq!(x.mean().unwrap().digits(), 15);
    assert!((x.sum().to_f64() - (1e10 + 495.0)).abs() < 1e-5);

    let m = array![[3.0, 4.0], [6.0, 8.0]].mapv(Sf32::new);
    let u = normalise_rows(&m);
    for (v, e) in u.iter().zip([0.6, 0.8, 0.6, 0.8]) {
        assert!((v.to_f64() - e).abs() < 1e-6, "{u}");
    }
    assert!(u.iter().all(|v| v.digits() >= 6));
}

#[test]
fn scalars_on_both_sides() {
    let a = array![1.0, 2.0, 4.0].mapv(Sf64::new);
    let s = Sf64::new(3.0);
    assert_eq!((&a * s).mapv(|v| v.to_f64()), array![3.0, 6.0, 12.0]);
    assert_eq!((s * &a).mapv(|v| v.to_f64()), array![3.0, 6.0, 12.0]);
    assert_eq!((s - &a).mapv(|v| v.to_f64()), array![2.0, 1.0, -1.0]);
    assert_eq!((s / a.clone()).mapv(|v| v.to_f64()), array![3.0, 1.5, 0.75]);
    assert_eq!((s + &a.view()).mapv(|v| v.to_f64()), array![4.0, 5.0, 7.0]);
    assert_eq!((&a - 1.0).mapv(|v| v.to_f64()), array![0.0, 1.0, 3.0]);
    assert_eq!(
        (a.clone() / 2.0).mapv(|v| v.to_f64()),
        array![0.5, 1.0, 2.0]
    );
    let m = Array2::from_shape_fn((2, 2), |(i, j)| Sf64::from((i + j) as u32));
    let p = m.dot(&m);
    assert_eq!(p.mapv(|v| v.to_f64()), array![[1.0, 2.0], [2.0, 5.0]]);
    let third = Sf64::ONE / 3.0;
    let v = Array1::from_elem(3, third);
    // 3 · (1/3)² summed: exact digits, not the 16 that f64 prints.
    assert!(v.dot(&v).digits() >= 14);
}
