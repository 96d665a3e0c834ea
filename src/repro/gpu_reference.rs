//! CPU references of the suite's device kernels (`stoch::repro::gpu_kernels`, with
//! `--features gpu`): the CADNA-GPU paper's 3-D acoustic wave stencil, do/undo and the plain
//! matrix product, with the same operations in the same order as the device code, so that a
//! kernel and its reference can be compared digit by digit (`stoch_gpu::validate`) or, for
//! plain IEEE code, bit for bit. They need no GPU.

use std::ops::{Add, AddAssign, Mul, Sub};

use stoch_core::{Sf32, StochFloat, Stochastic};

/// Grid dimensions `[nx, ny, nz]` of the wave stencil (x fastest).
pub type Dims = [usize; 3];

/// The operation pairs of do/undo (`kernels/stoch_do_undo.cu`, codes as there).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DoUndoMode {
    /// `x = x * y; x = x / y`
    MulDiv = 0,
    /// `x = x + y; x = x - y`
    AddSub = 1,
    /// `x = x * x; x = sqrt(x)` (`y` unused; `x > 0`)
    SquareSqrt = 2,
}

/// Stencil coefficients `[3 a0, a1, a2, a3, a4]` of the 8th-order second derivative, as in
/// `src/repro/kernels/stoch_wave.cu` (same decimal literals, so the same `f32` values).
#[allow(clippy::excessive_precision)] // the literals of the .cu, digit for digit
pub const WAVE_COEFFS: [f32; 5] = [
    -8.541_666_666_666_666_7,
    1.6,
    -0.2,
    0.025_396_825_396_825_397,
    -0.001_785_714_285_714_285_7,
];

/// One step of a stencil: `(u_prev, u, vel, dims) -> u_next`.
type Step<V> = fn(&[V], &[V], &[f32], Dims) -> Vec<V>;

fn interior(d: Dims, i: usize, j: usize, k: usize) -> bool {
    i >= 4 && j >= 4 && k >= 4 && i + 4 < d[0] && j + 4 < d[1] && k + 4 < d[2]
}

/// One step of the stencil on values of type `V` (`Sf32` or `f32`), in the kernels' order.
fn stencil<V>(u_prev: &[V], u: &[V], vel: &[f32], d: Dims, zero: V) -> Vec<V>
where
    V: Copy + Add<Output = V> + AddAssign + Sub<Output = V> + Mul<f32, Output = V>,
{
    let points = d[0] * d[1] * d[2];
    assert!(
        u_prev.len() == points && u.len() == points && vel.len() == points,
        "arrays must hold nx*ny*nz points"
    );
    let (sx, sy, sz) = (1, d[0], d[0] * d[1]);
    let mut next = vec![zero; points];
    for k in 0..d[2] {
        for j in 0..d[1] {
            for i in 0..d[0] {
                if !interior(d, i, j, k) {
                    continue;
                }
                let p = i + sy * j + sz * k;
                let mut lap = u[p] * WAVE_COEFFS[0];
                for (l, &a) in WAVE_COEFFS.iter().enumerate().skip(1) {
                    let mut s = u[p + l * sx] + u[p - l * sx];
                    s += u[p + l * sy];
                    s += u[p - l * sy];
                    s += u[p + l * sz];
                    s += u[p - l * sz];
                    lap += s * a;
                }
                next[p] = (u[p] * 2.0 - u_prev[p]) + lap * vel[p];
            }
        }
    }
    next
}

/// One stochastic step of the wave stencil, same operations and order as `stoch_wave_step_f32`.
///
/// # Panics
///
/// When a slice does not hold `nx * ny * nz` points.
#[must_use]
pub fn wave_step(u_prev: &[Sf32], u: &[Sf32], vel: &[f32], d: Dims) -> Vec<Sf32> {
    stencil(u_prev, u, vel, d, Sf32::ZERO)
}

/// One plain binary32 step of the wave stencil, same operations and order as
/// `plain_wave_step_f32`.
///
/// # Panics
///
/// When a slice does not hold `nx * ny * nz` points.
#[must_use]
pub fn plain_wave_step(u_prev: &[f32], u: &[f32], vel: &[f32], d: Dims) -> Vec<f32> {
    stencil(u_prev, u, vel, d, 0.0)
}

/// A wave problem: grid, velocity term and a Gaussian pressure pulse as initial state
/// (`u_prev = u = pulse`), the same on the CPU and the GPU.
#[derive(Debug, Clone)]
pub struct WaveProblem {
    /// Grid size `[nx, ny, nz]`.
    pub dims: Dims,
    /// `c^2 dt^2 / h^2` per point (a two-layer medium).
    pub vel: Vec<f32>,
    /// Initial pressure field.
    pub u0: Vec<f32>,
}

impl WaveProblem {
    /// An `n x n x n` grid (n >= 9) with a pulse of amplitude 1000 at a third of the diagonal.
    ///
    /// # Panics
    ///
    /// When `n < 9`.
    #[must_use]
    pub fn new(n: usize) -> WaveProblem {
        assert!(n >= 9, "the stencil needs at least 9 points per axis");
        let dims = [n, n, n];
        let c = n as f32 / 3.0;
        let w = (n as f32 / 12.0).max(1.5);
        let mut vel = Vec::with_capacity(n * n * n);
        let mut u0 = Vec::with_capacity(n * n * n);
        for k in 0..n {
            for j in 0..n {
                for i in 0..n {
                    vel.push(if k < n / 2 { 0.04 } else { 0.09 });
                    let r2 =
                        (i as f32 - c).powi(2) + (j as f32 - c).powi(2) + (k as f32 - c).powi(2);
                    let inside = interior(dims, i, j, k);
                    u0.push(if inside {
                        1000.0 * (-r2 / (w * w)).exp()
                    } else {
                        0.0
                    });
                }
            }
        }
        WaveProblem { dims, vel, u0 }
    }

    /// Linear index of grid point `(i, j, k)`.
    #[must_use]
    pub fn index(&self, i: usize, j: usize, k: usize) -> usize {
        i + self.dims[0] * (j + self.dims[1] * k)
    }

    /// The initial field as stochastic values (exact samples).
    #[must_use]
    pub fn u0_stochastic(&self) -> Vec<Sf32> {
        self.u0.iter().map(|&v| Sf32::new(v)).collect()
    }

    /// Run `steps` steps of `step` from the initial field; returns the last field.
    fn run<V: Clone>(&self, init: Vec<V>, steps: usize, step: Step<V>) -> Vec<V> {
        let (mut prev, mut cur) = (init.clone(), init);
        for _ in 0..steps {
            let next = step(&prev, &cur, &self.vel, self.dims);
            prev = std::mem::replace(&mut cur, next);
        }
        cur
    }

    /// Run `steps` plain binary32 steps on the CPU; returns the last field.
    #[must_use]
    pub fn run_plain(&self, steps: usize) -> Vec<f32> {
        self.run(self.u0.clone(), steps, plain_wave_step)
    }

    /// Run `steps` stochastic steps on the CPU; returns the last field.
    #[must_use]
    pub fn run_stochastic(&self, steps: usize) -> Vec<Sf32> {
        self.run(self.u0_stochastic(), steps, wave_step)
    }
}

/// Do/undo on the CPU, same operations and order as `stoch_do_undo_*`: each `x[i]` goes
/// through `iters` rounds of an operation and its inverse with `y[(i + it) % y.len()]`.
///
/// # Panics
///
/// When `y` is empty.
pub fn do_undo<T: StochFloat>(
    x: &mut [Stochastic<T>],
    y: &[Stochastic<T>],
    iters: u32,
    mode: DoUndoMode,
) {
    assert!(!y.is_empty(), "y must not be empty");
    for (i, v) in x.iter_mut().enumerate() {
        for it in 0..iters as usize {
            let w = y[(i + it) % y.len()];
            match mode {
                DoUndoMode::MulDiv => {
                    *v *= w;
                    *v /= w;
                }
                DoUndoMode::AddSub => {
                    *v += w;
                    *v -= w;
                }
                DoUndoMode::SquareSqrt => {
                    *v = *v * *v;
                    *v = v.sqrt();
                }
            }
        }
    }
}

/// Plain binary32 matrix product, the loop of `stoch_matmul_*` in round-to-nearest (no FMA).
///
/// # Panics
///
/// When a slice's length is not the product of its sizes.
#[must_use]
pub fn plain_matmul(a: &[f32], b: &[f32], n: usize, m: usize, k: usize) -> Vec<f32> {
    assert_eq!(a.len(), n * k, "a must be n x k");
    assert_eq!(b.len(), k * m, "b must be k x m");
    let mut c = Vec::with_capacity(n * m);
    for row in 0..n {
        for col in 0..m {
            let mut temp = 0.0f32;
            for i in 0..k {
                temp += a[row * k + i] * b[i * m + col];
            }
            c.push(temp);
        }
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stochastic_stencil_tracks_the_plain_one() {
        let p = WaveProblem::new(12);
        let (plain, stoch) = (p.run_plain(5), p.run_stochastic(5));
        let mut large = 0;
        for (x, s) in plain.iter().zip(&stoch) {
            if x.abs() > 1.0 {
                large += 1;
                let rel = (s.to_f64() - f64::from(*x)) / f64::from(*x);
                assert!(rel.abs() < 1e-3, "{x} vs {s}");
            }
        }
        assert!(large > 50, "{large} points above 1");
        // The 4 outer layers stay zero.
        assert_eq!(plain[p.index(3, 5, 5)], 0.0);
        assert_eq!(stoch[p.index(5, 5, 11)].samples(), [0.0; 3]);
    }

    #[test]
    fn do_undo_returns_near_the_start() {
        let x0: Vec<Sf32> = (1..50).map(|i| Sf32::new(i as f32 * 1.25)).collect();
        let y: Vec<Sf32> = (1..8).map(|i| Sf32::new(i as f32 / 3.0)).collect();
        for mode in [
            DoUndoMode::MulDiv,
            DoUndoMode::AddSub,
            DoUndoMode::SquareSqrt,
        ] {
            let mut x = x0.clone();
            do_undo(&mut x, &y, 100, mode);
            for (a, b) in x.iter().zip(&x0) {
                assert!(
                    (a.to_f64() - b.to_f64()).abs() <= 1e-3 * b.to_f64(),
                    "{mode:?}"
                );
            }
        }
    }
}
