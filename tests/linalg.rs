//! examples/linalg.rs, compiled in: on Hilbert systems the digits DSA estimates for each
//! solver agree with the true error against the exact (integer) solution, and fall with the
//! order as IEEE's true digits do.
// Textbook loops in the example.
#![allow(clippy::needless_range_loop)]

#[allow(dead_code, unused_imports)]
#[path = "../examples/linalg.rs"]
mod linalg;

#[test]
fn exact_solution_and_determinant_are_right() {
    assert_eq!(linalg::exact_solution(3), vec![3.0, -24.0, 30.0]);
    // det H(3) = 1/2160, det H(4) = 1/6048000.
    assert!((linalg::exact_det(3) * 2160.0 - 1.0).abs() < 1e-15);
    assert!((linalg::exact_det(4) * 6048000.0 - 1.0).abs() < 1e-15);
}

#[test]
fn estimated_digits_agree_with_the_true_error() {
    stoch_core::seed(11);
    for n in [4, 6, 8, 10, 12] {
        let (rows, det, det_digits) = linalg::rows(n);
        for r in &rows {
            let (Some(est), Some(truth), Some(ieee)) = (r.dsa, r.dsa_true, r.ieee_true) else {
                assert_eq!(r.method, "cholesky", "{r:?}");
                continue;
            };
            // IEEE's true digits fall about 1.5 per order.
            assert!(ieee <= 16.0 - 1.2 * (n as f64 - 2.0), "{r:?}");
            if r.unstable {
                // DSA warns that the estimate may be wrong; it must still not promise digits
                // that are not there by more than one.
                assert!(est as f64 <= truth + 1.5, "{r:?}");
                continue;
            }
            // The estimate is conservative at 95%: at most a digit above the truth, and not
            // four below it.
            assert!(est as f64 <= truth + 1.0, "{r:?}");
            assert!(est as f64 >= truth.min(15.0) - 3.5, "{r:?}");
            if r.method != "svd" {
                // Direct solvers keep what IEEE keeps, within two digits.
                assert!((truth - ieee).abs() <= 2.0, "{r:?}");
            }
        }
        let det_truth = det[0].unwrap();
        assert!(
            det_digits as f64 <= det_truth + 1.0,
            "n={n}: det {det_digits} vs {det_truth}"
        );
        assert!(
            det_digits as f64 >= det_truth - 3.0,
            "n={n}: det {det_digits} vs {det_truth}"
        );
    }
}

/// Under `#[stochastic]`, `2.0 * m` is written as in f64 code: the literal becomes a stochastic
/// scalar, which this crate's impls put on the left of a matrix (plain `2.0 * m` with an `f64`
/// is nalgebra's to implement, for the primitive types only).
#[stoch_core::stochastic]
fn scaled(m: nalgebra::DMatrix<f64>) -> nalgebra::DMatrix<f64> {
    2.0 * &m + m * 0.5
}

#[test]
fn scalar_on_the_left_in_macro_code() {
    let m = nalgebra::DMatrix::from_element(2, 2, stoch_core::Sf64::ONE / 3.0);
    let r = scaled(m);
    assert!(r
        .iter()
        .all(|x| (x.to_f64() - 2.5 / 3.0).abs() < 1e-15 && x.digits() >= 14));
}

/// The report names nalgebra's lines: the pivot search that compared noise (an unstable
/// branching) and the division by a pivot that became noise (an unstable division).
#[test]
fn report_names_the_pivots_that_became_noise() {
    use nalgebra::{DMatrix, DVector};
    use stoch_core::{Instability, Sf64};
    let h = DMatrix::from_fn(13, 13, |i, j| Sf64::ONE / ((i + j + 1) as f64));
    let x = h.lu().solve(&DVector::from_element(13, Sf64::ONE)).unwrap();
    assert!(x.iter().any(|v| v.flags().contains(Instability::Division)));
    let report = stoch_core::report();
    let at = |kind: Instability, file: &str| {
        report
            .sites()
            .iter()
            .any(|s| s.kind == kind && s.file.contains("nalgebra") && s.file.ends_with(file))
    };
    // The pivot search (`icamax`) compares moduli in nalgebra's base/min_max.rs.
    assert!(at(Instability::Branching, "min_max.rs"), "{report}");
    assert!(at(Instability::Division, "lu.rs"), "{report}");
}
