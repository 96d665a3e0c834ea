// Matrix code on Vec<Vec<f64>>: product and transpose.
use stoch_core::stochastic;

#[stochastic]
mod linalg {
    pub type Matrix = Vec<Vec<f64>>;

    pub fn identity(n: usize) -> Matrix {
        let mut m = vec![vec![0.0; n]; n];
        for i in 0..n {
            m[i][i] = 1.0;
        }
        m
    }

    pub fn matmul(a: &Matrix, b: &Matrix) -> Matrix {
        let (n, m, p) = (a.len(), b.len(), b[0].len());
        let mut c = vec![vec![0.0; p]; n];
        for i in 0..n {
            for j in 0..p {
                let mut s = 0.0;
                for k in 0..m {
                    s += a[i][k] * b[k][j];
                }
                c[i][j] = s;
            }
        }
        c
    }

    pub fn transpose(a: &Matrix) -> Matrix {
        (0..a[0].len()).map(|j| a.iter().map(|row| row[j]).collect()).collect()
    }
}

#[stochastic]
fn main() {
    let a: linalg::Matrix = vec![vec![1.0, 2.0, 3.0], vec![4.0, 5.0, 6.0]];
    let at = linalg::transpose(&a);
    let g = linalg::matmul(&a, &at);
    assert!(g[0][0] == 14.0 && g[1][1] == 77.0 && g[0][1] == 32.0);
    let i3 = linalg::identity(3);
    let same = linalg::matmul(&a, &i3);
    for (r, s) in a.iter().zip(&same) {
        for (x, y) in r.iter().zip(s) {
            assert!(x == y && y.digits() >= 15);
        }
    }
}
