// Calls into the stoch-core API keep their plain arguments: data known to a relative error.
use stoch_core::{stochastic, Sf64, Stochastic};

#[stochastic]
fn kinetic_energy(m: f64, v: f64) -> f64 {
    0.5 * m * v * v
}

#[stochastic]
fn main() {
    let m = Sf64::with_relative_error(2.0, 1e-6);
    let v = Stochastic::<f64>::new(3.0);
    let e = kinetic_energy(m, v);
    assert!(e.digits() <= 7, "{e:?}");
    assert!(e.digits() >= 4, "{e:?}");
    let exact = kinetic_energy(2.0, 3.0);
    assert!(exact == 9.0 && exact.digits() == 15);
}
