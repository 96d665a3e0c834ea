// Determinant of the Hilbert matrix by elimination: an ill-conditioned problem loses digits.
use stoch_core::stochastic;

#[stochastic]
fn hilbert(n: usize) -> Vec<Vec<f64>> {
    (0..n).map(|i| (0..n).map(|j| 1.0 / (i + j + 1) as f64).collect()).collect()
}

#[stochastic]
fn determinant(mut a: Vec<Vec<f64>>) -> f64 {
    let n = a.len();
    let mut det = 1.0;
    for k in 0..n {
        let pivot = a[k][k];
        det *= pivot;
        for i in k + 1..n {
            let m = a[i][k] / pivot;
            for j in k..n {
                let t = a[k][j];
                a[i][j] -= m * t;
            }
        }
    }
    det
}

#[stochastic]
fn main() {
    let d3 = determinant(hilbert(3));
    assert!((d3 - 1.0 / 2160.0).abs() < 1e-15, "{d3:?}");
    assert!(d3.digits() >= 12, "{d3:?}");
    let d10 = determinant(hilbert(10));
    println!("det H10 = {d10}");
    assert!(d10.digits() >= 1 && d10.digits() <= 10, "{d10:?}");
}
