//! Hilbert systems H(n)·x = 1, n = 4 … 14, solved by nalgebra's LU, full-pivot LU, QR,
//! Cholesky and SVD and by a Gaussian elimination written for ndarray's `NdFloat`: how many
//! digits of the solution and of the determinant each method keeps.
//!
//! What to look at: H(n) = 1/(i + j + 1) is the classic ill-conditioned matrix (condition
//! number about e^(3.5n)); its exact inverse has integer entries, so the exact solution
//! x = H⁻¹·1 is known, and det H(n) is a Cauchy determinant. For each order and method the
//! table prints the digits DSA estimates (the fewest over the solution's entries), the digits
//! of the DSA mean that really are right (against the exact solution) and the digits of the
//! IEEE f64 result that are right. IEEE prints 16 digits every time; DSA's estimate follows the
//! true error down, about 1.5 digits per order, to `@.0` (no digit) at order 12 or 13. The
//! report at the end names nalgebra's lines where a pivot or a divisor became noise.
//!
//! Run: `cargo run --release --example linalg [OUT.svg]` (default: `linalg-digits.svg` in the
//! system's temporary directory; the README's picture is `docs/linalg.svg`). Expected, with
//! the default seed: order 4: 12 digits estimated for every method (12.4-12.8 right); order 6:
//! 9-10 (SVD 7); order 8: 6-7 (SVD `@.0`, and really none right, where IEEE's SVD keeps 8:
//! DSA's deflation tests take noise for zero); order 10: 3-4 (SVD 1); order 12: `@.0` or 1;
//! order 13 and 14: `@.0` everywhere, flagged unstable. The report (stderr): cancellations in the
//! ndarray elimination's line, unstable branchings, multiplications and divisions in nalgebra's
//! `givens.rs`, `svd.rs`, `lu.rs` and `min_max.rs` (the pivot searches).
// Textbook loops, written as the numerical literature writes them.
#![allow(clippy::needless_range_loop)]

use nalgebra::{DMatrix, DVector, RealField};
use ndarray::{Array1, Array2, NdFloat};
use plotters::prelude::*;
use stoch_core::Sf64;

/// The methods, in table order.
pub const METHODS: [&str; 6] = ["lu", "full_piv_lu", "qr", "cholesky", "svd", "ndarray"];

/// One order, one method: digits of the solution and of the determinant.
#[derive(Clone, Debug)]
pub struct Row {
    /// The order n.
    pub n: usize,
    /// One of [`METHODS`].
    pub method: &'static str,
    /// The fewest digits DSA estimates over the solution's entries (`None`: no solution).
    pub dsa: Option<u32>,
    /// The fewest right digits of the DSA means, against the exact solution.
    pub dsa_true: Option<f64>,
    /// The fewest right digits of the IEEE f64 solution.
    pub ieee_true: Option<f64>,
    /// Whether a division, multiplication or power instability touched the DSA solution
    /// (DSA then warns that its estimate cannot be trusted).
    pub unstable: bool,
}

/// The Hilbert matrix of order n.
pub fn hilbert<T: nalgebra::Scalar>(n: usize, one_over: impl Fn(f64) -> T) -> DMatrix<T> {
    DMatrix::from_fn(n, n, |i, j| one_over((i + j + 1) as f64))
}

/// The exact solution of H(n)·x = 1: the row sums of H(n)⁻¹, integers, computed exactly from
/// (H⁻¹)ij = (−1)^(i+j) (i+j+1) C(n+i, n−j−1) C(n+j, n−i−1) C(i+j, i)² (0-based), then rounded
/// to f64. Exact in i128 up to order 14.
pub fn exact_solution(n: usize) -> Vec<f64> {
    let c = |n: i128, k: i128| -> i128 {
        if k < 0 || k > n {
            return 0;
        }
        (0..k).fold(1, |acc, t| acc * (n - t) / (t + 1))
    };
    let m = n as i128;
    (0..m)
        .map(|i| {
            (0..m)
                .map(|j| {
                    let s = if (i + j) % 2 == 0 { 1 } else { -1 };
                    s * (i + j + 1) * c(m + i, m - j - 1) * c(m + j, m - i - 1) * c(i + j, i).pow(2)
                })
                .sum::<i128>() as f64
        })
        .collect()
}

/// det H(n) as a Cauchy determinant, Π_{i<j} (j − i)² / Π_{i,j} (i + j + 1), its factors
/// taken in an order that keeps the partial product near 1 (relative error about 1e-15).
pub fn exact_det(n: usize) -> f64 {
    let mut num: Vec<f64> = Vec::new();
    for i in 0..n {
        for j in i + 1..n {
            num.push(((j - i) * (j - i)) as f64);
        }
    }
    let den: Vec<f64> = (0..n)
        .flat_map(|i| (0..n).map(move |j| (i + j + 1) as f64))
        .collect();
    let (mut p, mut a, mut b) = (1.0f64, num.into_iter(), den.into_iter());
    loop {
        if p >= 1.0 {
            match b.next() {
                Some(d) => p /= d,
                None => break,
            }
        } else {
            match a.next() {
                Some(x) => p *= x,
                None => {
                    p /= b.by_ref().product::<f64>();
                    break;
                }
            }
        }
    }
    p * a.product::<f64>()
}

/// Right digits of `x` against the exact `e`, at most 16.
pub fn true_digits(x: f64, e: f64) -> f64 {
    if x == e {
        16.0
    } else {
        (-((x - e).abs() / e.abs()).log10()).clamp(0.0, 16.0)
    }
}

/// Gaussian elimination with partial pivoting, as generic ndarray code writes it: for any
/// `A: NdFloat`, `f64` or `Sf64`. Returns the solution and the determinant.
pub fn ndarray_gauss<A: NdFloat>(mut a: Array2<A>, mut b: Array1<A>) -> (Array1<A>, A) {
    let n = b.len();
    let mut det = A::one();
    for k in 0..n {
        let mut p = k;
        for i in k + 1..n {
            if a[[i, k]].abs() > a[[p, k]].abs() {
                p = i;
            }
        }
        if p != k {
            for j in 0..n {
                a.swap([k, j], [p, j]);
            }
            b.swap(k, p);
            det = -det;
        }
        det *= a[[k, k]];
        for i in k + 1..n {
            let m = a[[i, k]] / a[[k, k]];
            for j in k..n {
                a[[i, j]] = a[[i, j]] - m * a[[k, j]];
            }
            b[i] = b[i] - m * b[k];
        }
    }
    let mut x = Array1::zeros(n);
    for i in (0..n).rev() {
        let mut s = b[i];
        for j in i + 1..n {
            s -= a[[i, j]] * x[j];
        }
        x[i] = s / a[[i, i]];
    }
    (x, det)
}

/// Every method on H(n)·x = 1 in `T` (`f64` or `Sf64`): the solutions (`None` when the method
/// gives none) and the LU determinant.
pub fn solve_all<T>(h: &DMatrix<T>) -> (Vec<Option<DVector<T>>>, T)
where
    T: RealField + NdFloat,
{
    let n = h.nrows();
    let b = DVector::from_element(n, T::one());
    let eps = T::default_epsilon() * T::from(5.0).unwrap();
    let a = Array2::from_shape_fn((n, n), |(i, j)| h[(i, j)]);
    let (x, _) = ndarray_gauss(a, Array1::from_elem(n, T::one()));
    let sols = vec![
        h.clone().lu().solve(&b),
        h.clone().full_piv_lu().solve(&b),
        h.clone().qr().solve(&b),
        h.clone().cholesky().map(|c| c.solve(&b)),
        // The iteration limit: the plain `svd()` has none (see stoch-core's nalgebra notes).
        h.clone()
            .try_svd_unordered(true, true, eps, 1000)
            .and_then(|s| s.solve(&b, T::zero()).ok()),
        Some(DVector::from_iterator(n, x.iter().copied())),
    ];
    (sols, h.clone().lu().determinant())
}

/// The table rows of one order.
pub fn rows(n: usize) -> (Vec<Row>, [Option<f64>; 3], u32) {
    let exact = exact_solution(n);
    let hs: DMatrix<Sf64> = hilbert(n, |d| Sf64::ONE / d);
    let hf: DMatrix<f64> = hilbert(n, |d| 1.0 / d);
    let (xs, det_s) = solve_all(&hs);
    let (xf, det_f) = solve_all(&hf);
    let fewest = |v: &DVector<f64>| {
        v.iter()
            .zip(&exact)
            .map(|(x, e)| true_digits(*x, *e))
            .fold(16.0, |m: f64, d| if d.is_nan() { 0.0 } else { m.min(d) })
    };
    let rows = METHODS
        .iter()
        .zip(xs.iter().zip(&xf))
        .map(|(&method, (s, f))| Row {
            n,
            method,
            dsa: s
                .as_ref()
                .map(|s| s.iter().map(|x| x.digits()).min().unwrap()),
            dsa_true: s.as_ref().map(|s| fewest(&s.map(|x| x.to_f64()))),
            ieee_true: f.as_ref().map(fewest),
            unstable: s.as_ref().is_some_and(|s| {
                s.iter().any(|x| {
                    let f = x.flags();
                    f.iter().any(|k| k.breaks_self_validation())
                })
            }),
        })
        .collect();
    let e = exact_det(n);
    let det = [
        Some(true_digits(det_s.to_f64(), e)),
        Some(true_digits(det_f, e)),
        Some(e),
    ];
    (rows, det, det_s.digits())
}

fn show(d: Option<f64>) -> String {
    d.map_or("-".into(), |d| format!("{d:.1}"))
}

/// Digits against order, one line per method (DSA's estimate), and the IEEE LU's true digits.
fn picture(all: &[Row], path: &std::path::Path) -> Result<(), Box<dyn std::error::Error>> {
    let root = SVGBackend::new(path, (720, 440)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            "Hilbert systems H(n)x = 1: exact digits of the solution",
            ("sans-serif", 20),
        )
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(44)
        .build_cartesian_2d(3.5f64..14.5, 0f64..16.5)?;
    chart
        .configure_mesh()
        .x_desc("order n")
        .y_desc("digits")
        .draw()?;
    let colours = [&BLUE, &RED, &GREEN, &MAGENTA, &CYAN, &BLACK];
    for (m, colour) in METHODS.iter().zip(colours) {
        let pts: Vec<(f64, f64)> = all
            .iter()
            .filter(|r| r.method == *m)
            .filter_map(|r| r.dsa.map(|d| (r.n as f64, d as f64)))
            .collect();
        chart
            .draw_series(LineSeries::new(pts.clone(), colour.stroke_width(2)))?
            .label(format!("{m}: DSA digits"))
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], colour));
        chart.draw_series(pts.iter().map(|p| Circle::new(*p, 3, colour.filled())))?;
    }
    let ieee: Vec<(f64, f64)> = all
        .iter()
        .filter(|r| r.method == "lu")
        .filter_map(|r| r.ieee_true.map(|d| (r.n as f64, d)))
        .collect();
    let grey = RGBColor(140, 140, 140);
    chart
        .draw_series(DashedLineSeries::new(ieee, 6, 4, grey.stroke_width(2)))?
        .label("lu in IEEE f64: digits right (16 printed)")
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], grey));
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()?;
    root.present()?;
    Ok(())
}

#[allow(dead_code)]
fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out = std::env::args()
        .nth(1)
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join("linalg-digits.svg"));
    let mut all = Vec::new();
    println!("Hilbert systems H(n)·x = 1: digits of the solution (fewest over its entries)");
    println!(" n  method       DSA estimate  DSA right  IEEE right");
    for n in (4..=14)
        .step_by(2)
        .chain([13])
        .collect::<std::collections::BTreeSet<_>>()
    {
        let (rows, det, det_digits) = rows(n);
        for r in &rows {
            println!(
                "{:2}  {:<11}  {:>12}  {:>9}  {:>10}{}",
                r.n,
                r.method,
                r.dsa.map_or("-".into(), |d| if d == 0 {
                    "@.0".into()
                } else {
                    d.to_string()
                }),
                show(r.dsa_true),
                show(r.ieee_true),
                if r.unstable {
                    "  (unstable: estimate not trusted)"
                } else {
                    ""
                }
            );
        }
        println!(
            "{n:2}  determinant  {:>12}  {:>9}  {:>10}   exact {:.6e}",
            det_digits,
            show(det[0]),
            show(det[1]),
            det[2].unwrap()
        );
        all.extend(rows);
    }
    picture(&all, &out)?;
    println!("picture: {}", out.display());
    // The instability report, on stderr, once.
    stoch_core::finish();
    Ok(())
}
