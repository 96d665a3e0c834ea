// Gaussian elimination with partial pivoting on Vec<Vec<f64>>.
use stoch_core::stochastic;

#[stochastic]
fn solve(mut a: Vec<Vec<f64>>, mut b: Vec<f64>) -> Vec<f64> {
    let n = b.len();
    for k in 0..n {
        let mut p = k;
        for i in k + 1..n {
            if a[i][k].abs() > a[p][k].abs() {
                p = i;
            }
        }
        a.swap(k, p);
        b.swap(k, p);
        for i in k + 1..n {
            let m = a[i][k] / a[k][k];
            for j in k..n {
                let t = a[k][j];
                a[i][j] -= m * t;
            }
            let t = b[k];
            b[i] -= m * t;
        }
    }
    let mut x = vec![0.0; n];
    for i in (0..n).rev() {
        let s: f64 = (i + 1..n).map(|j| a[i][j] * x[j]).sum();
        x[i] = (b[i] - s) / a[i][i];
    }
    x
}

#[stochastic]
fn main() {
    let a = vec![vec![2.0, 1.0, -1.0], vec![-3.0, -1.0, 2.0], vec![-2.0, 1.0, 2.0]];
    let b = vec![8.0, -11.0, -3.0];
    let x = solve(a, b);
    let expected = [2.0, 3.0, -1.0];
    for (xi, ei) in x.iter().zip(expected) {
        assert!(xi.digits() >= 13, "{xi:?}");
        assert!((xi - ei).abs() < 1e-12);
    }
}
