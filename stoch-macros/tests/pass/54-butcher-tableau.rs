// A Runge-Kutta tableau written as associated constants of a trait, rows naming other rows
// and elements of other constants (`Self::B`, `Self::C[1]`), as adaptive solvers write them.
use stoch_core::stochastic;

#[stochastic]
trait Tableau {
    const C: [f64; 3] = [0.0, 0.5, 1.0];
    const B: [f64; 3] = [1.0 / 6.0, 2.0 / 3.0, 1.0 / 6.0];
    const A: [[f64; 3]; 3] = [[0.0, 0.0, 0.0], [Self::C[1], 0.0, 0.0], [-1.0, 2.0, 0.0]];
    const WEIGHTS: [[f64; 3]; 2] = [Self::B, [0.0, 1.0, 0.0]];
}

#[stochastic]
struct Rk3;

#[stochastic]
impl Tableau for Rk3 {}

#[stochastic]
fn step(f: impl Fn(f64, f64) -> f64, t: f64, y: f64, h: f64) -> f64 {
    let mut k = [0.0; 3];
    for i in 0..3 {
        let mut yi = y;
        for j in 0..i {
            yi += h * Rk3::A[i][j] * k[j];
        }
        k[i] = f(t + Rk3::C[i] * h, yi);
    }
    let mut out = y;
    for i in 0..3 {
        out += h * Rk3::WEIGHTS[0][i] * k[i];
    }
    out
}

#[stochastic(report = false)]
fn main() {
    // y' = y, one step of h = 0.1 from y = 1: 1 + h + h²/2 + h³/6.
    let y = step(|_, y| y, 0.0, 1.0, 0.1);
    assert!((y - 1.1051666666666667).abs() < 1e-12, "{y}");
    assert!(y.digits() >= 13, "{y}");
    assert!(Rk3::A[1][0] == 0.5 && Rk3::WEIGHTS[0][1] == 2.0 / 3.0);
}
