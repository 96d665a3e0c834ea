//! Seed 002's Lennard-Jones force accumulation, methods A-G of its Table 1.

use std::fmt::Write as _;
use std::time::Instant;

use stoch_core::accum::{
    Accumulator, CompositeSum, DoubleWordSum, Kahan, ModifiedNitadori, Naive, Narumi,
    NarumiRounding, Neumaier, Nitadori, Pairwise, ReproducibleSum, TakahashiIitaka,
};

use super::global_sum::sci;
use super::rng::Rng;
use super::stochastic;

/// Number of atom types (seed 002's System 2: 16, randomly assigned).
pub const ATOM_TYPES: usize = 16;

/// Particles with random atom types and random Lennard-Jones parameters (seed 002's
/// System 2 style), on a jittered cubic lattice (spacing 1.3, jitter ±0.2 per axis, so no two
/// particles are closer than 0.9 and every pairwise force stays far below Narumi's 2^20).
#[derive(Clone, Debug)]
pub struct LjSystem {
    /// Positions, `f32`.
    pub pos: Vec<[f32; 3]>,
    /// Atom type of each particle.
    pub types: Vec<u8>,
    /// `24 ε_ij` per type pair (Lorentz-Berthelot mixing of ε in [0.5, 1.5]).
    pub eps24: [[f32; ATOM_TYPES]; ATOM_TYPES],
    /// `σ_ij²` per type pair (σ in [0.8, 1.2], arithmetic mean).
    pub sigma2: [[f32; ATOM_TYPES]; ATOM_TYPES],
}

/// A system of `n` particles from `seed`.
///
/// ```
/// let s = stoch::repro::lj_system(100, 1);
/// assert_eq!(s.pos.len(), 100);
/// ```
#[must_use]
pub fn lj_system(n: usize, seed: u64) -> LjSystem {
    let mut rng = Rng::new(seed);
    let eps: Vec<f64> = (0..ATOM_TYPES).map(|_| rng.uniform(0.5, 1.5)).collect();
    let sig: Vec<f64> = (0..ATOM_TYPES).map(|_| rng.uniform(0.8, 1.2)).collect();
    let mut eps24 = [[0.0; ATOM_TYPES]; ATOM_TYPES];
    let mut sigma2 = [[0.0; ATOM_TYPES]; ATOM_TYPES];
    for i in 0..ATOM_TYPES {
        for j in 0..ATOM_TYPES {
            eps24[i][j] = (24.0 * (eps[i] * eps[j]).sqrt()) as f32;
            let s = 0.5 * (sig[i] + sig[j]);
            sigma2[i][j] = (s * s) as f32;
        }
    }
    let side = (n as f64).cbrt().ceil() as usize;
    let mut sites: Vec<[usize; 3]> = (0..side * side * side)
        .map(|k| [k % side, (k / side) % side, k / (side * side)])
        .collect();
    rng.shuffle(&mut sites);
    let pos = sites[..n]
        .iter()
        .map(|s| s.map(|c| (1.3 * c as f64 + rng.uniform(-0.2, 0.2)) as f32))
        .collect();
    let types = (0..n).map(|_| rng.below(ATOM_TYPES) as u8).collect();
    LjSystem {
        pos,
        types,
        eps24,
        sigma2,
    }
}

/// `(24 ε_ij, σ_ij²)` of the pair's types.
#[inline]
pub(super) fn pair_setup(s: &LjSystem, i: usize, j: usize) -> (f32, f32) {
    let (ti, tj) = (s.types[i] as usize, s.types[j] as usize);
    (s.eps24[ti][tj], s.sigma2[ti][tj])
}

/// The pairwise force on `i` from `j` in `f32` (seed 002, Figure 7, with per-type ε and σ):
/// exactly antisymmetric, `f(j, i) = -f(i, j)` bit for bit.
#[inline]
#[must_use]
pub fn pair_force_f32(s: &LjSystem, i: usize, j: usize) -> [f32; 3] {
    let (ri, rj) = (s.pos[i], s.pos[j]);
    let d = [ri[0] - rj[0], ri[1] - rj[1], ri[2] - rj[2]];
    let r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    if r2 == 0.0 {
        return [0.0; 3];
    }
    let (ti, tj) = (s.types[i] as usize, s.types[j] as usize);
    let rs = 1.0 / r2;
    let s2 = s.sigma2[ti][tj] * rs;
    let q = s2 * s2 * s2;
    let p = s.eps24[ti][tj] * rs * q * (2.0 * q - 1.0);
    [p * d[0], p * d[1], p * d[2]]
}

/// The same force in `f64` from the same (`f32`) positions and parameters (method G).
#[inline]
#[must_use]
pub fn pair_force_f64(s: &LjSystem, i: usize, j: usize) -> [f64; 3] {
    let (ri, rj) = (s.pos[i].map(f64::from), s.pos[j].map(f64::from));
    let d = [ri[0] - rj[0], ri[1] - rj[1], ri[2] - rj[2]];
    let r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    if r2 == 0.0 {
        return [0.0; 3];
    }
    let (ti, tj) = (s.types[i] as usize, s.types[j] as usize);
    let rs = 1.0 / r2;
    let s2 = s.sigma2[ti][tj] as f64 * rs;
    let q = s2 * s2 * s2;
    let p = s.eps24[ti][tj] as f64 * rs * q * (2.0 * q - 1.0);
    [p * d[0], p * d[1], p * d[2]]
}

/// Force accumulation methods: A-G of seed 002's Table 1, and more.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ForceMethod {
    /// A: single-precision force, single-precision accumulation.
    A,
    /// B: single-precision force, double-precision accumulation.
    B,
    /// C: single, Takahashi & Iitaka's trick.
    C,
    /// D: single, Nitadori's trick.
    D,
    /// E: single, modified Nitadori's trick (`LARGE = 3 << 20`).
    E,
    /// F: single, Narumi's trick (float + int, Figure 8 with C's truncating `(int)` cast).
    F,
    /// F with the low part rounded to nearest instead of truncated.
    FNearest,
    /// G: double-precision force and accumulation (the reference).
    G,
    /// Single, Kahan.
    Kahan,
    /// Single, Neumaier.
    Neumaier,
    /// Single, pairwise.
    Pairwise,
    /// Single, composite float2 (seed 000, Figure 3).
    Float2,
    /// Single, normalised double word.
    DoubleWord,
    /// Single, exact reproducible sum.
    Reproducible,
    /// Everything in stochastic `f32` (force and naive accumulation): DSA digits.
    StochFloat,
}

impl ForceMethod {
    /// Every method, in table order.
    pub const ALL: [ForceMethod; 15] = [
        ForceMethod::A,
        ForceMethod::B,
        ForceMethod::C,
        ForceMethod::D,
        ForceMethod::E,
        ForceMethod::F,
        ForceMethod::FNearest,
        ForceMethod::G,
        ForceMethod::Kahan,
        ForceMethod::Neumaier,
        ForceMethod::Pairwise,
        ForceMethod::Float2,
        ForceMethod::DoubleWord,
        ForceMethod::Reproducible,
        ForceMethod::StochFloat,
    ];

    /// Label for tables.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            ForceMethod::A => "A single",
            ForceMethod::B => "B double accumulation",
            ForceMethod::C => "C Takahashi-Iitaka",
            ForceMethod::D => "D Nitadori",
            ForceMethod::E => "E modified Nitadori",
            ForceMethod::F => "F Narumi",
            ForceMethod::FNearest => "F' Narumi, rounding to nearest",
            ForceMethod::G => "G double",
            ForceMethod::Kahan => "Kahan",
            ForceMethod::Neumaier => "Neumaier",
            ForceMethod::Pairwise => "pairwise",
            ForceMethod::Float2 => "float2 (composite)",
            ForceMethod::DoubleWord => "double-word f32",
            ForceMethod::Reproducible => "reproducible",
            ForceMethod::StochFloat => "Sf32 (DSA)",
        }
    }
}

/// The forces of one method.
#[derive(Clone, Debug)]
pub struct ForceRun {
    /// Method.
    pub method: ForceMethod,
    /// Force on each particle, as `f64`.
    pub forces: Vec<[f64; 3]>,
    /// Seconds for the `N (N - 1)` pairwise interactions.
    pub seconds: f64,
    /// Mean exact significant digits of the force components (stochastic method only).
    pub mean_digits: Option<f64>,
}

impl ForceRun {
    /// Pairwise interactions per second.
    #[must_use]
    pub fn interactions_per_second(&self) -> f64 {
        let n = self.forces.len() as f64;
        n * (n - 1.0) / self.seconds
    }
}

fn accumulate_f32<A: Accumulator<f32>>(
    s: &LjSystem,
    make: impl Fn() -> A,
    out: impl Fn(&A) -> f64,
) -> Vec<[f64; 3]> {
    let n = s.pos.len();
    (0..n)
        .map(|i| {
            let mut acc = [make(), make(), make()];
            for j in 0..n {
                if j != i {
                    let f = pair_force_f32(s, i, j);
                    for k in 0..3 {
                        acc[k].add(f[k]);
                    }
                }
            }
            [out(&acc[0]), out(&acc[1]), out(&acc[2])]
        })
        .collect()
}

/// Computes the force on every particle from all the others (no cutoff) with `method`.
#[must_use]
pub fn forces(s: &LjSystem, method: ForceMethod) -> ForceRun {
    let t0 = Instant::now();
    let forces = match method {
        ForceMethod::A => accumulate_f32(s, Naive::<f32>::default, |a| a.result_f64()),
        ForceMethod::B => {
            let n = s.pos.len();
            (0..n)
                .map(|i| {
                    let mut acc = [0.0f64; 3];
                    for j in (0..n).filter(|&j| j != i) {
                        let f = pair_force_f32(s, i, j);
                        for k in 0..3 {
                            acc[k] += f[k] as f64;
                        }
                    }
                    acc
                })
                .collect()
        }
        ForceMethod::C => accumulate_f32(s, TakahashiIitaka::<f32>::default, |a| a.result_f64()),
        ForceMethod::D => accumulate_f32(s, Nitadori::<f32>::default, |a| a.result_f64()),
        ForceMethod::E => accumulate_f32(s, ModifiedNitadori::<f32>::default, |a| a.result_f64()),
        ForceMethod::F => accumulate_f32(s, Narumi::truncating, Narumi::result_f64),
        ForceMethod::FNearest => accumulate_f32(
            s,
            || Narumi::new(NarumiRounding::Nearest),
            Narumi::result_f64,
        ),
        ForceMethod::G => {
            let n = s.pos.len();
            (0..n)
                .map(|i| {
                    let mut acc = [0.0f64; 3];
                    for j in (0..n).filter(|&j| j != i) {
                        let f = pair_force_f64(s, i, j);
                        for k in 0..3 {
                            acc[k] += f[k];
                        }
                    }
                    acc
                })
                .collect()
        }
        ForceMethod::Kahan => accumulate_f32(s, Kahan::<f32>::default, |a| a.result_f64()),
        ForceMethod::Neumaier => accumulate_f32(s, Neumaier::<f32>::default, |a| a.result_f64()),
        ForceMethod::Pairwise => accumulate_f32(s, Pairwise::<f32>::default, |a| a.result_f64()),
        ForceMethod::Float2 => accumulate_f32(s, CompositeSum::<f32>::default, |a| a.result_f64()),
        ForceMethod::DoubleWord => {
            accumulate_f32(s, DoubleWordSum::<f32>::default, |a| a.result_f64())
        }
        ForceMethod::Reproducible => accumulate_f32(s, ReproducibleSum::new, |a| a.result_f64()),
        ForceMethod::StochFloat => return stochastic::forces(s),
    };
    ForceRun {
        method,
        forces,
        seconds: t0.elapsed().as_secs_f64(),
        mean_digits: None,
    }
}

fn norm(v: [f64; 3]) -> f64 {
    (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt()
}

/// Average force error, seed 002's eq. 10: `Σ|F_method,i - F_double,i| / Σ|F_double,i|`.
///
/// ```
/// let f = vec![[1.0, 0.0, 0.0], [-1.0, 0.0, 0.0]];
/// let g = vec![[1.0, 0.0, 0.0], [-1.5, 0.0, 0.0]];
/// assert_eq!(stoch::repro::force_error(&g, &f), 0.25);
/// ```
#[must_use]
pub fn force_error(method: &[[f64; 3]], reference: &[[f64; 3]]) -> f64 {
    let num: f64 = method
        .iter()
        .zip(reference)
        .map(|(a, b)| norm([a[0] - b[0], a[1] - b[1], a[2] - b[2]]))
        .sum();
    let den: f64 = reference.iter().map(|&f| norm(f)).sum();
    num / den
}

/// Average force offset, seed 002's eq. 11: `|Σ F_i| / Σ|F_i|`. The numerator is summed
/// exactly ([`ReproducibleSum`] per component), so the offset is the method's, not this
/// function's.
///
/// ```
/// let f = vec![[1.0, 2.0, 0.0], [-1.0, -2.0, 0.0]];
/// assert_eq!(stoch::repro::force_offset(&f), 0.0);
/// ```
#[must_use]
pub fn force_offset(forces: &[[f64; 3]]) -> f64 {
    let mut total = [
        ReproducibleSum::new(),
        ReproducibleSum::new(),
        ReproducibleSum::new(),
    ];
    for f in forces {
        for k in 0..3 {
            total[k].add_f64(f[k]);
        }
    }
    let sum = [
        total[0].result_f64(),
        total[1].result_f64(),
        total[2].result_f64(),
    ];
    let den: f64 = forces.iter().map(|&f| norm(f)).sum();
    norm(sum) / den
}

/// Mean DSA digits of the forces when the same `f32` pairwise forces (exact stochastic
/// values) are accumulated in stochastic `f32` by each generic method: how many digits each
/// accumulation keeps. Uses the first `particles` particles' forces (all partners).
#[must_use]
pub fn accumulation_digits(s: &LjSystem, particles: usize) -> Vec<(&'static str, f64)> {
    stochastic::accumulation_digits(s, particles)
}

/// One row of the forces table.
#[derive(Clone, Debug)]
pub struct ForceRow {
    /// Method.
    pub method: ForceMethod,
    /// Eq. 10 against method G.
    pub error: f64,
    /// Eq. 10 against the exact sums of the same `f32` pairwise forces (the error of the
    /// accumulation alone; method G's value includes the `f32` force error).
    pub accumulation_error: f64,
    /// Eq. 11.
    pub offset: f64,
    /// Pairwise interactions per second.
    pub interactions_per_second: f64,
    /// Mean digits (stochastic method only).
    pub mean_digits: Option<f64>,
}

/// Runs `methods` (G is always run, as the reference) and measures eq. 10, eq. 11 and the
/// throughput; `progress` is called before each method.
pub fn run_forces(
    s: &LjSystem,
    methods: &[ForceMethod],
    progress: &mut dyn FnMut(&str),
) -> Vec<ForceRow> {
    progress("forces: method G (reference) and the exact sums of the f32 forces");
    let reference = forces(s, ForceMethod::G);
    let exact = forces(s, ForceMethod::Reproducible);
    methods
        .iter()
        .map(|&m| {
            progress(&format!("forces: method {}", m.label()));
            let run = match m {
                ForceMethod::G => reference.clone(),
                ForceMethod::Reproducible => exact.clone(),
                _ => forces(s, m),
            };
            ForceRow {
                method: m,
                error: force_error(&run.forces, &reference.forces),
                accumulation_error: force_error(&run.forces, &exact.forces),
                offset: force_offset(&run.forces),
                interactions_per_second: run.interactions_per_second(),
                mean_digits: run.mean_digits,
            }
        })
        .collect()
}

/// The forces table in markdown (seed 002's Figures 10-12 as numbers).
#[must_use]
pub fn forces_report(rows: &[ForceRow]) -> String {
    let mut out = String::from(
        "| method | average error (eq. 10) | accumulation error | average offset (eq. 11) | interactions/s | digits |\n|---|---:|---:|---:|---:|---:|\n",
    );
    for r in rows {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {:.3e} | {} |",
            r.method.label(),
            sci(r.error),
            sci(r.accumulation_error),
            sci(r.offset),
            r.interactions_per_second,
            r.mean_digits
                .map_or_else(|| "-".into(), |d| format!("{d:.2}"))
        );
    }
    out
}
