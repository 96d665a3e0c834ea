// Constants and statics declared inside function bodies: scalars and a matrix.
use stoch_core::stochastic;

#[stochastic]
fn rotate(p: [f64; 2]) -> [f64; 2] {
    const R: [[f64; 2]; 2] = [[0.0, -1.0], [1.0, 0.0]];
    [R[0][0] * p[0] + R[0][1] * p[1], R[1][0] * p[0] + R[1][1] * p[1]]
}

#[stochastic]
fn main() {
    const STEPS: usize = 4;
    static START: [f64; 2] = [1.0, 2.0];
    let mut p = START;
    for _ in 0..STEPS {
        p = rotate(p);
    }
    assert!(p[0] == 1.0 && p[1] == 2.0);
}
