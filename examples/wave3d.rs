//! The 3-D acoustic wave code of seed paper 004 (oil exploration): finite differences of order 2
//! in time and 8 in space ("scheme 1", nearest neighbours first), single precision, a Ricker
//! point source in the middle, computed twice: in IEEE `f32` and under `#[stochastic]`.
//!
//! What to look at: the paper found that two runs of this code on different machines agree on
//! 0 to 7 digits, about 4 on average. Here one stochastic run estimates, for every grid point,
//! how many digits round-off leaves exact: the histogram of exact digits over the grid, their
//! mean, the number of `@.0` points, the values at the paper's three points (IEEE vs exact
//! digits), and the report. The digits of the middle slice are written as an SVG picture.
//!
//! Run: `cargo run --release --example wave3d [N] [STEPS] [OUT.svg]` (defaults 64, 100, and
//! `wave3d-digits.svg` in the system's temporary directory; the paper used 64³ and 1000 steps;
//! the default run takes about half a minute). Expected output at the defaults: 175616 points
//! reached, most keeping 4 to 6 digits (1 to 7 overall), a mean of 5.02 digits and no `@.0`
//! point; the report: only cancellations, about 14000, at the stencil lines and the update
//! line, about half of them accuracy collapses of intermediate sums (the final values keep
//! digits). At 16³ and 40 steps: 512 points reached, 4 to 7 digits, mean 5.83.
// Textbook loops, written as the numerical literature writes them.
#![allow(clippy::needless_range_loop, clippy::assign_op_pattern)]
use plotters::prelude::*;
use stoch_core::stochastic;

/// The code under `#[stochastic]`; `ieee` is the same code, unchanged, in IEEE arithmetic.
#[allow(dead_code, missing_docs)]
#[stochastic(plain = ieee)]
pub mod stoch {
    /// Finite-difference coefficients of the 8th-order second derivative (a0, a1..a4).
    pub const A: [f32; 5] = [-2.847_222_3, 1.6, -0.2, 0.025_396_826, -0.001_785_714_3];
    /// (c·Δt/Δh)², inside the stability limit of the 3-D scheme.
    pub const COURANT2: f32 = 0.09;

    /// Pressure at two time levels on an n³ grid; the 4 outer layers stay 0.
    pub struct Wave {
        /// Points per side.
        pub n: usize,
        /// Pressure at the current step.
        pub u: Vec<f32>,
        /// Pressure at the previous step.
        pub prev: Vec<f32>,
    }

    impl Wave {
        /// A grid at rest.
        pub fn new(n: usize) -> Wave {
            Wave {
                n,
                u: vec![0.0; n * n * n],
                prev: vec![0.0; n * n * n],
            }
        }

        /// Index of point (i, j, k).
        pub fn idx(&self, i: usize, j: usize, k: usize) -> usize {
            (i * self.n + j) * self.n + k
        }

        /// Ricker wavelet of peak frequency 0.05 per step, delayed by 20 steps.
        pub fn ricker(t: f32) -> f32 {
            let a = 0.05 * std::f32::consts::PI * (t - 20.0);
            let a2 = a * a;
            (1.0 - 2.0 * a2) * (-a2).exp()
        }

        /// One time step: u(n+1) = 2u(n) − u(n−1) + C·Σ a_l (u(i+l) + u(j+l) + u(k+l)) + source.
        pub fn step(&mut self, t: usize) {
            let n = self.n;
            let mut next = vec![0.0; n * n * n];
            for i in 4..n - 4 {
                for j in 4..n - 4 {
                    for k in 4..n - 4 {
                        let c = self.idx(i, j, k);
                        let mut lap = A[0] * 3.0 * self.u[c];
                        for l in 1..5 {
                            let (di, dj) = (l * n * n, l * n);
                            lap = lap
                                + A[l]
                                    * (self.u[c + di]
                                        + self.u[c - di]
                                        + self.u[c + dj]
                                        + self.u[c - dj]
                                        + self.u[c + l]
                                        + self.u[c - l]);
                        }
                        next[c] = 2.0 * self.u[c] - self.prev[c] + COURANT2 * lap;
                    }
                }
            }
            let m = self.idx(n / 2, n / 2, n / 2);
            next[m] = next[m] + COURANT2 * Wave::ricker(t as f32);
            self.prev = std::mem::replace(&mut self.u, next);
        }
    }
}

/// The paper's three points, scaled to an n³ grid and kept inside the computed region.
fn points(n: usize) -> [(usize, usize, usize); 3] {
    let s = |x: usize| (x * n / 64).clamp(4, n - 5);
    [
        (s(0), s(19), s(62)),
        (s(50), s(12), s(2)),
        (s(20), s(1), s(46)),
    ]
}

/// Writes the digits of the slice i = n/2 as an SVG heat map (0 digits: dark red, 7: white).
fn picture(w: &stoch::Wave, path: &std::path::Path) -> Result<(), Box<dyn std::error::Error>> {
    let n = w.n;
    let cell = (512 / n).max(2) as i32;
    let size = (cell as u32 * n as u32, cell as u32 * n as u32 + 24);
    let root = SVGBackend::new(path, size).into_drawing_area();
    root.fill(&WHITE)?;
    let palette = |d: u32| {
        let t = d as f64 / 7.0;
        RGBColor(
            (120.0 + 135.0 * t) as u8,
            (255.0 * t) as u8,
            (255.0 * t * t) as u8,
        )
    };
    for j in 0..n {
        for k in 0..n {
            let v = w.u[w.idx(n / 2, j, k)];
            let colour = if v.is_exact_zero() {
                RGBColor(220, 220, 235)
            } else {
                palette(v.digits())
            };
            let (x, y) = (k as i32 * cell, j as i32 * cell);
            root.draw(&Rectangle::new(
                [(x, y), (x + cell, y + cell)],
                colour.filled(),
            ))?;
        }
    }
    for d in 0..=7u32 {
        let x = d as i32 * 30 + 4;
        let y = n as i32 * cell + 4;
        root.draw(&Rectangle::new(
            [(x, y), (x + 26, y + 16)],
            palette(d).filled(),
        ))?;
    }
    root.present()?;
    Ok(())
}

/// Prints the histogram of exact digits, their mean and the number of computed zeros.
fn summary(b: &stoch::Wave) {
    let mut hist = [0usize; 8];
    let (mut zeros, mut exact_zero, mut sum, mut count) = (0usize, 0usize, 0u64, 0usize);
    for v in &b.u {
        if v.is_exact_zero() {
            exact_zero += 1;
            continue;
        }
        if v.is_computed_zero() {
            zeros += 1;
        }
        let d = v.digits() as usize;
        hist[d.min(7)] += 1;
        sum += d as u64;
        count += 1;
    }
    println!("points not reached by the wave (exact zeros): {exact_zero}");
    println!("exact digits over the {count} other points:");
    for (d, h) in hist.iter().enumerate() {
        let bar = "#".repeat((60 * h).div_ceil(count.max(1)));
        println!("  {d} digits: {h:8}  {bar}");
    }
    println!(
        "mean exact digits: {:.2}; computed zeros (@.0): {zeros}",
        sum as f64 / count.max(1) as f64
    );
}

#[stochastic]
fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let count = |i: usize, what: &str, default: usize| -> Result<usize, String> {
        args.get(i).map_or(Ok(default), |s| {
            s.parse()
                .map_err(|e| format!("{what} must be a whole number, not {s:?} ({e})"))
        })
    };
    let n = count(1, "N (points per side)", 64)?;
    let steps = count(2, "STEPS", 100)?;
    // An absolute default, so that the picture lands in the same place from any directory.
    let out = args.get(3).map_or_else(
        || std::env::temp_dir().join("wave3d-digits.svg"),
        std::path::PathBuf::from,
    );
    if n < 12 {
        return Err("the grid needs at least 12 points per side".into());
    }
    println!("3-D acoustic wave, {n}^3 points, {steps} steps, f32, 8th order in space");
    let mut a = ieee::Wave::new(n);
    let mut b = stoch::Wave::new(n);
    for t in 0..steps {
        a.step(t);
        b.step(t);
    }
    summary(&b);
    println!("the paper's three points:");
    for (i, j, k) in points(n) {
        let (x, y) = (a.u[a.idx(i, j, k)], b.u[b.idx(i, j, k)]);
        println!(
            "  ({i:2},{j:2},{k:2})  IEEE: {x:<16e} stochastic: {y:<16} {:#} ({} digits)",
            y,
            y.digits()
        );
    }
    picture(&b, &out)?;
    println!(
        "digits of the slice i = {} written to {}",
        n / 2,
        out.display()
    );
    Ok(())
}
