//! approx on stochastic values and nalgebra matrices of them (features `approx`, `nalgebra`).
#![cfg(all(feature = "approx", feature = "nalgebra"))]

use approx::{assert_relative_eq, relative_eq};
use nalgebra::{Matrix3, Vector3};
use stoch_core::Sf64;

#[test]
fn assert_relative_eq_on_stochastic_matrices() {
    let a = Matrix3::new(4.0, 1.0, 0.0, 1.0, 4.0, 1.0, 0.0, 1.0, 4.0).map(Sf64::new);
    let inv = a.try_inverse().unwrap();
    assert_relative_eq!(a * inv, Matrix3::identity(), epsilon = Sf64::new(1e-15));
    let x = a
        .lu()
        .solve(&Vector3::new(5.0, 6.0, 5.0).map(Sf64::new))
        .unwrap();
    assert_relative_eq!(
        x,
        Vector3::from_element(Sf64::ONE),
        max_relative = Sf64::new(1e-15)
    );
    // A difference that is significant is seen; records nothing in the report.
    let before = stoch_core::report().total();
    assert!(!relative_eq!(
        x,
        Vector3::new(1.0, 1.0, 1.0 + 1e-12).map(Sf64::new)
    ));
    assert_eq!(stoch_core::report().total(), before);
}

/// With `ndarray` on, approx compares arrays of stochastic values too.
#[cfg(feature = "ndarray")]
#[test]
fn assert_relative_eq_on_stochastic_arrays() {
    let a = ndarray::Array1::from_elem(3, Sf64::ONE / 3.0) * Sf64::new(3.0);
    assert_relative_eq!(a, ndarray::Array1::from_elem(3, Sf64::ONE));
    assert!(!relative_eq!(
        a,
        ndarray::Array1::from_elem(3, Sf64::new(1.001))
    ));
}
