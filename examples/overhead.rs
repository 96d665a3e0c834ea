//! What stochastic arithmetic costs: plain floating point against `Sf64`/`Sf32` on six kernels
//! and per operation, timed in one process.
//!
//! ```text
//! cargo run --release --example overhead            # full sizes (about a minute of CPU time)
//! cargo run --release --example overhead -- --quick # tiny sizes (the test suite runs this)
//! cargo run --release --example overhead -- --runs 11
//! cargo run --release --example overhead -- --wall  # wall-clock instead of thread CPU time
//! cargo run --release --example overhead -- --only nbody,spectral,ops
//! ```
//!
//! Kernels (the same generic code runs with the plain and the stochastic type):
//!
//! - `dot`: dot product of two 10^6-element `f64` vectors, one accumulator (latency-bound);
//! - `matmul`: 200×200 `f64` matrix product, `c[i][j] = Σ_k a[i][k]·b[k][j]` with one
//!   accumulator per element (B stored transposed, so both walk contiguous memory);
//! - `wave`: 3-D acoustic wave equation, `f32`, 64³ grid, 8th-order Laplacian (radius 4),
//!   100 leap-frog steps, Ricker point source at the centre; plain coefficients;
//! - `sum`: left-to-right sum of 10^6 `f32` values (latency-bound);
//! - `nbody`: the Benchmarks Game's n-body, 5 bodies (the Sun and the four giant planets),
//!   `f64`, 4·10^5 steps: per pair and step one square root and one division;
//! - `spectral`: the Benchmarks Game's spectral norm, `f64`, n = 1000: ten power steps on
//!   `AᵀA` with `A(i,j) = 1/((i+j)(i+j+1)/2 + i + 1)`, a division per element, a square root at
//!   the end.
//!
//! Before timing, the plain n-body and spectral norm are checked against the Benchmarks Game's
//! published outputs. Each kernel is timed plain, stochastic with every check off
//! (`Config::default().detect_all(false)`), and stochastic with every check on (the default),
//! the three interleaved, `--runs` times (default 7); the table shows medians and the ratios
//! stochastic/plain, next to CADNA 3.1.12's ratios measured on the project's machines (issues
//! 2, 3 and 26) and the project's goals. Times are the thread's CPU time on Linux (`--wall` for
//! wall-clock time): on a small machine shared with other work, wall-clock time charges a long
//! run for the other processes' time slices more than a short one, and inflates the ratios. It
//! also prints the rounding path that runs (AVX-512 embedded rounding, compiled in or chosen at
//! run time; AVX2 vectors for `+` and `*`; the portable path with hardware FMA; or the slow
//! portable path with Dekker products) and, per kernel, the exact digits of the stochastic
//! result and the instabilities the checks found. Both stochastic runs start from one seed, and
//! the example stops if checks on and off give different samples (a check must never change a
//! result).
//!
//! Then a table per operation (`+ * / sqrt mul_add`, `f32` and `f64`): ns per operation plain,
//! stochastic with the checks off and on, and the ratios to plain, for an independent stream
//! (`out[i] = op(a[i], b[i], c[i])` over 1024 elements: throughput, where the plain loop may use
//! vector instructions) and a dependent chain (`x = op(x, b[i], c[i])`: latency; the square
//! root's chain is `x = sqrt(x + b[i])`, and a last line gives it less the `+` chain). Operands
//! are positive and near 1: no instability.
//!
//! Expected output (`--runs 7`, measured on 2026-11-27 on a 2-core Intel Xeon, Emerald Rapids,
//! with AVX-512, `-C target-cpu=native`, while other builds ran on the machine; the times depend
//! on the machine and move by 15% or more from run to run; docs/performance.md gives both
//! builds' ranges on several processors):
//!
//! ```text
//! stoch overhead: median of 7 interleaved runs, thread CPU time (--wall: wall-clock time)
//! rounding path: avx512 (AVX-512 embedded rounding (the build's target)) (target: avx512f true, avx2 true, fma true)
//! kernel                   plain  stoch off  ratio   stoch on  ratio | CADNA off     on | goal off     on | digits  instab.
//! dot f64 1e6            1.82 ms    7.38 ms   4.0x    9.72 ms   5.3x |      9.1x  15.9x |     4.5x   5.3x |     13        0
//! matmul f64 200x200     5.13 ms   34.87 ms   6.8x   56.49 ms  11.0x |      8.8x  21.5x |     4.4x   7.2x |     11      188
//! wave f32 64^3 x100   110.71 ms     1.66 s  15.0x     3.21 s  29.0x |     47.0x 111.0x |    23.0x  37.0x |      5    14423
//! sum f32 1e6           766.1 us    3.38 ms   4.4x    4.84 ms   6.3x |      4.2x  11.1x |     3.0x   3.7x |      4        0
//! nbody f64 5 x400000   18.45 ms  391.30 ms  21.2x  650.66 ms  35.3x |     24.0x  67.0x |        -  28.0x |     12      525
//! spectral f64 n=1000   57.70 ms  457.96 ms   7.9x  735.74 ms  12.8x |         -  15.3x |        -  12.0x |     14        0
//! ratios: stochastic time / plain time. CADNA: CADNA 3.1.12 on the project's machine (issues 2 and 3; nbody and spectral: issue 26, an AVX2 AMD EPYC); goals: half of CADNA's ratio with detection off, a third with it on (at -C target-cpu=native; nbody and spectral: issue 26's targets with every check). digits: exact digits of the stochastic result (matmul: the least over C; nbody: the final energy). instab.: instabilities found in one run with every check on.
//!
//! per operation, ns (ratio to plain): stream = 1024 independent operations, chain = each waits for the one before
//! op            stream       stoch off        stoch on |   chain       stoch off        stoch on
//! + f32          0.080    2.62 (32.9x)    5.18 (65.1x) |   0.661     4.22 (6.4x)     5.77 (8.7x)
//! * f32          0.088    2.81 (31.8x)    5.15 (58.3x) |   1.468     6.42 (4.4x)     7.56 (5.2x)
//! / f32          0.221    6.93 (31.3x)    7.68 (34.7x) |   3.627    11.70 (3.2x)    12.72 (3.5x)
//! sqrt f32       0.258    8.29 (32.1x)    8.81 (34.2x) |   5.008    17.57 (3.5x)    23.56 (4.7x)
//! mul_add f32    0.104    3.94 (37.9x)    5.44 (52.3x) |   1.325     4.83 (3.6x)     6.06 (4.6x)
//! + f64          0.125    3.26 (26.2x)    4.22 (33.9x) |   0.672     5.08 (7.6x)     5.38 (8.0x)
//! * f64          0.163    3.79 (23.3x)    4.01 (24.6x) |   1.349     5.98 (4.4x)     7.27 (5.4x)
//! / f64          0.678   11.22 (16.5x)   11.25 (16.6x) |   4.691    15.69 (3.3x)    16.08 (3.4x)
//! sqrt f64       1.009   14.47 (14.3x)   14.37 (14.2x) |   7.255    24.45 (3.4x)    28.10 (3.9x)
//! mul_add f64    0.157    3.45 (21.9x)    4.41 (28.0x) |   1.350     3.77 (2.8x)     5.82 (4.3x)
//! sqrt f32 chain less the + chain: plain 4.347 ns, stoch off 13.35 ns (3.1x), on 17.79 ns (4.1x)
//! sqrt f64 chain less the + chain: plain 6.584 ns, stoch off 19.37 ns (2.9x), on 22.72 ns (3.5x)
//! ```

use std::hint::black_box;
use std::ops::{Add, Div, Mul, Sub};
use std::time::{Duration, Instant};

use stoch_core::{report, reset, Config, ReportMode, Sf32, Sf64};

/// What the kernels need of a number type `Self` with plain coefficients of type `P`:
/// `f64`/`Sf64` with `P = f64`, `f32`/`Sf32` with `P = f32`.
trait Num<P>:
    Copy
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Mul<P, Output = Self>
    + From<P>
{
}

impl<P, T> Num<P> for T where
    T: Copy + Add<Output = T> + Sub<Output = T> + Mul<Output = T> + Mul<P, Output = T> + From<P>
{
}

/// [`Num`] with division, square root and fused multiply-add: what the n-body step, the
/// spectral norm and the per-operation table need.
trait Real<P>: Num<P> + Div<Output = Self> {
    fn sqrt(self) -> Self;
    /// `self * a + b`.
    fn mul_add(self, a: Self, b: Self) -> Self;
}

macro_rules! real {
    ($($t:ty: $p:ty),*) => {$(
        impl Real<$p> for $t {
            #[inline(always)]
            fn sqrt(self) -> Self {
                <$t>::sqrt(self)
            }
            #[inline(always)]
            fn mul_add(self, a: Self, b: Self) -> Self {
                <$t>::mul_add(self, a, b)
            }
        }
    )*};
}
real!(f64: f64, Sf64: f64, f32: f32, Sf32: f32);

#[inline(never)]
fn dot<T: Num<f64>>(a: &[T], b: &[T]) -> T {
    let mut acc = T::from(0.0);
    for (x, y) in a.iter().zip(b) {
        acc = acc + *x * *y;
    }
    acc
}

/// `c = a·b` for `n×n` row-major `a`, with `bt` the transpose of `b`.
#[inline(never)]
fn matmul<T: Num<f64>>(a: &[T], bt: &[T], c: &mut [T], n: usize) {
    for i in 0..n {
        let row = &a[i * n..(i + 1) * n];
        for j in 0..n {
            let col = &bt[j * n..(j + 1) * n];
            let mut acc = T::from(0.0);
            for k in 0..n {
                acc = acc + row[k] * col[k];
            }
            c[i * n + j] = acc;
        }
    }
}

#[inline(never)]
fn sum<T: Num<f32>>(x: &[T]) -> T {
    let mut acc = T::from(0.0);
    for v in x {
        acc = acc + *v;
    }
    acc
}

/// Second-derivative coefficients of order 8 (radius 4).
const FD8: [f32; 5] = [
    -205.0 / 72.0,
    8.0 / 5.0,
    -1.0 / 5.0,
    8.0 / 315.0,
    -1.0 / 560.0,
];

/// `(c·dt/h)²`, well inside the stability limit of the 8th-order scheme in 3-D.
const COURANT2: f32 = 0.09;

/// `steps` leap-frog steps of `u_tt = c²Δu + source` on an `n³` grid with a zero boundary of
/// width 4; `u` and `prev` are the current and previous fields; `src` holds the source amplitude
/// per step. Returns the final current field.
#[inline(never)]
fn wave<T: Num<f32>>(mut u: Vec<T>, mut prev: Vec<T>, n: usize, src: &[f32]) -> Vec<T> {
    let nn = n * n;
    let r = 4;
    let w0 = COURANT2 * 3.0 * FD8[0];
    let w = [
        0.0,
        COURANT2 * FD8[1],
        COURANT2 * FD8[2],
        COURANT2 * FD8[3],
        COURANT2 * FD8[4],
    ];
    let centre = (n / 2) * nn + (n / 2) * n + n / 2;
    for &s in src {
        for z in r..n - r {
            for y in r..n - r {
                let base = z * nn + y * n;
                for i in base + r..base + n - r {
                    let mut lap = u[i] * w0;
                    for (k, &wk) in w.iter().enumerate().skip(1) {
                        let ring = u[i - k]
                            + u[i + k]
                            + u[i - k * n]
                            + u[i + k * n]
                            + u[i - k * nn]
                            + u[i + k * nn];
                        lap = lap + ring * wk;
                    }
                    prev[i] = u[i] * 2.0 - prev[i] + lap;
                }
            }
        }
        prev[centre] = prev[centre] + T::from(s);
        std::mem::swap(&mut u, &mut prev);
    }
    u
}

/// Ricker wavelet, peak at step 20.
fn ricker(steps: usize) -> Vec<f32> {
    (0..steps)
        .map(|t| {
            let a = std::f32::consts::PI * 0.05 * (t as f32 - 20.0);
            (1.0 - 2.0 * a * a) * (-a * a).exp()
        })
        .collect()
}

/// One body of the n-body system: position, velocity (per year), mass (in solar masses × 4π²).
#[derive(Clone, Copy)]
struct Body<T> {
    x: [T; 3],
    v: [T; 3],
    m: T,
}

const SOLAR_MASS: f64 = 4.0 * std::f64::consts::PI * std::f64::consts::PI;
const DAYS_PER_YEAR: f64 = 365.24;

/// The Benchmarks Game's five bodies (the Sun, Jupiter, Saturn, Uranus, Neptune: positions in
/// AU, velocities in AU/day, masses in solar masses), with the Sun's velocity set so that the
/// total momentum is zero.
fn jovian<T: Real<f64>>() -> [Body<T>; 5] {
    const B: [([f64; 3], [f64; 3], f64); 5] = [
        ([0.0; 3], [0.0; 3], 1.0),
        (
            [
                4.841_431_442_464_72e0,
                -1.160_320_044_027_428_4e0,
                -1.036_220_444_711_231_1e-1,
            ],
            [
                1.660_076_642_744_037e-3,
                7.699_011_184_197_404e-3,
                -6.904_600_169_720_63e-5,
            ],
            9.547_919_384_243_266e-4,
        ),
        (
            [
                8.343_366_718_244_58e0,
                4.124_798_564_124_305e0,
                -4.035_234_171_143_214e-1,
            ],
            [
                -2.767_425_107_268_624e-3,
                4.998_528_012_349_172e-3,
                2.304_172_975_737_639_3e-5,
            ],
            2.858_859_806_661_308e-4,
        ),
        (
            [
                1.289_436_956_213_913_1e1,
                -1.511_115_140_169_863_1e1,
                -2.233_075_788_926_557_3e-1,
            ],
            [
                2.964_601_375_647_616e-3,
                2.378_471_739_594_809_5e-3,
                -2.965_895_685_402_375_6e-5,
            ],
            4.366_244_043_351_563e-5,
        ),
        (
            [
                1.537_969_711_485_091_1e1,
                -2.591_931_460_998_796_4e1,
                1.792_587_729_503_711_8e-1,
            ],
            [
                2.680_677_724_903_893_2e-3,
                1.628_241_700_382_423e-3,
                -9.515_922_545_197_159e-5,
            ],
            5.151_389_020_466_114_5e-5,
        ),
    ];
    let mut bodies = B.map(|(x, v, m)| Body {
        x: x.map(T::from),
        v: v.map(|c| T::from(c * DAYS_PER_YEAR)),
        m: T::from(m * SOLAR_MASS),
    });
    let mut p = [T::from(0.0); 3];
    for b in &bodies {
        for (pk, &vk) in p.iter_mut().zip(&b.v) {
            *pk = *pk + vk * b.m;
        }
    }
    for (vk, &pk) in bodies[0].v.iter_mut().zip(&p) {
        *vk = T::from(0.0) - pk / T::from(SOLAR_MASS);
    }
    bodies
}

/// `steps` steps of the Benchmarks Game's n-body advance (time step `dt`): per pair, the
/// distance's cube through one square root and one division, then the velocities; then the
/// positions.
#[inline(never)]
fn advance<T: Real<f64>>(bodies: &mut [Body<T>; 5], dt: f64, steps: usize) {
    let dt_t = T::from(dt);
    for _ in 0..steps {
        for i in 0..5 {
            let (head, tail) = bodies.split_at_mut(i + 1);
            let bi = &mut head[i];
            for bj in tail.iter_mut() {
                let d = [bi.x[0] - bj.x[0], bi.x[1] - bj.x[1], bi.x[2] - bj.x[2]];
                let d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
                let mag = dt_t / (d2 * d2.sqrt());
                let (mi, mj) = (bi.m * mag, bj.m * mag);
                for (k, &dk) in d.iter().enumerate() {
                    bi.v[k] = bi.v[k] - dk * mj;
                    bj.v[k] = bj.v[k] + dk * mi;
                }
            }
        }
        for b in bodies.iter_mut() {
            for k in 0..3 {
                b.x[k] = b.x[k] + b.v[k] * dt;
            }
        }
    }
}

/// Total energy: kinetic minus the pairs' potential.
fn energy<T: Real<f64>>(bodies: &[Body<T>; 5]) -> T {
    let mut e = T::from(0.0);
    for (i, b) in bodies.iter().enumerate() {
        let v2 = b.v[0] * b.v[0] + b.v[1] * b.v[1] + b.v[2] * b.v[2];
        e = e + b.m * v2 * 0.5;
        for c in &bodies[i + 1..] {
            let d = [b.x[0] - c.x[0], b.x[1] - c.x[1], b.x[2] - c.x[2]];
            let dist = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
            e = e - b.m * c.m / dist;
        }
    }
    e
}

/// The n-body run that is timed: `steps` steps of 0.01 year from the initial state, then the
/// energy.
#[inline(never)]
fn nbody<T: Real<f64>>(steps: usize) -> ([Body<T>; 5], T) {
    let mut bodies = black_box(jovian::<T>());
    advance(&mut bodies, 0.01, black_box(steps));
    let e = energy(&bodies);
    (bodies, e)
}

/// The spectral norm's matrix, `A(i, j) = 1 / ((i+j)(i+j+1)/2 + i + 1)`, one division of the
/// number type per element (as the Benchmarks Game computes it).
#[inline(always)]
fn spectral_a<T: Real<f64>>(i: usize, j: usize) -> T {
    T::from(1.0) / T::from(((i + j) * (i + j + 1) / 2 + i + 1) as f64)
}

/// `out = A·u`, or `Aᵀ·u` when `transpose`.
#[inline(never)]
fn a_times<T: Real<f64>>(u: &[T], out: &mut [T], transpose: bool) {
    for (i, o) in out.iter_mut().enumerate() {
        let mut s = T::from(0.0);
        for (j, &uj) in u.iter().enumerate() {
            let a: T = if transpose {
                spectral_a(j, i)
            } else {
                spectral_a(i, j)
            };
            s = s + a * uj;
        }
        *o = s;
    }
}

/// The Benchmarks Game's spectral norm of the `n×n` matrix `A`: ten steps of the power method
/// on `AᵀA` from a vector of ones, `sqrt(uᵀv / vᵀv)`.
#[inline(never)]
fn spectral_norm<T: Real<f64>>(n: usize) -> T {
    let mut u = vec![T::from(1.0); n];
    let mut v = vec![T::from(0.0); n];
    let mut tmp = vec![T::from(0.0); n];
    for _ in 0..10 {
        a_times(black_box(&u), &mut tmp, false);
        a_times(&tmp, &mut v, true);
        a_times(black_box(&v), &mut tmp, false);
        a_times(&tmp, &mut u, true);
    }
    let (mut vbv, mut vv) = (T::from(0.0), T::from(0.0));
    for (&ui, &vi) in u.iter().zip(&v) {
        vbv = vbv + ui * vi;
        vv = vv + vi * vi;
    }
    (vbv / vv).sqrt()
}

/// One operation of the per-operation table, applied to `x` (and `y`, `z` where it takes them).
trait Op {
    const NAME: &'static str;
    fn apply<P, T: Real<P>>(x: T, y: T, z: T) -> T;
    /// One step of the dependent chain, whose result is the next `x`.
    #[inline(always)]
    fn step<P, T: Real<P>>(x: T, y: T, z: T) -> T {
        Self::apply(x, y, z)
    }
}

struct AddOp;
struct MulOp;
struct DivOp;
/// `sqrt(x + y)`: a square root cannot feed itself without converging to an exact 1, so its
/// chain adds an operand first; the table also gives the chain minus the `+` chain.
struct SqrtOp;
struct MulAddOp;

impl Op for AddOp {
    const NAME: &'static str = "+";
    #[inline(always)]
    fn apply<P, T: Real<P>>(x: T, y: T, _: T) -> T {
        x + y
    }
}
impl Op for MulOp {
    const NAME: &'static str = "*";
    #[inline(always)]
    fn apply<P, T: Real<P>>(x: T, y: T, _: T) -> T {
        x * y
    }
}
impl Op for DivOp {
    const NAME: &'static str = "/";
    #[inline(always)]
    fn apply<P, T: Real<P>>(x: T, y: T, _: T) -> T {
        x / y
    }
}
impl Op for SqrtOp {
    const NAME: &'static str = "sqrt";
    #[inline(always)]
    fn apply<P, T: Real<P>>(x: T, _: T, _: T) -> T {
        x.sqrt()
    }
    #[inline(always)]
    fn step<P, T: Real<P>>(x: T, y: T, _: T) -> T {
        (x + y).sqrt()
    }
}
impl Op for MulAddOp {
    const NAME: &'static str = "mul_add";
    #[inline(always)]
    fn apply<P, T: Real<P>>(x: T, y: T, z: T) -> T {
        x.mul_add(y, z)
    }
}

/// Independent stream (throughput): `out[i] = op(a[i], b[i], c[i])`, `reps` times. The inputs
/// go through `black_box` on every pass and the output after it, so that no pass can be
/// folded or hoisted; the plain loop is free to use vector instructions, as user code is.
#[inline(never)]
fn stream<O: Op, P, T: Real<P>>(a: &[T], b: &[T], c: &[T], out: &mut [T], reps: usize) {
    for _ in 0..reps {
        let (a, b, c) = (black_box(a), black_box(b), black_box(c));
        for (o, ((&x, &y), &z)) in out.iter_mut().zip(a.iter().zip(b).zip(c)) {
            *o = O::apply(x, y, z);
        }
        black_box(&mut *out);
    }
}

/// Dependent chain (latency): `x = op(x, b[i], c[i])` along the arrays from `x0`, `reps`
/// times; each operation waits for the one before ([`Op::step`]).
#[inline(never)]
fn chain<O: Op, P, T: Real<P>>(x0: T, b: &[T], c: &[T], reps: usize) -> T {
    let mut last = x0;
    for _ in 0..reps {
        let (b, c) = (black_box(b), black_box(c));
        // `x` starts as a load through an opaque reference and ends copied into `last`, which
        // `black_box` reads: never a function's result or argument, so it stays in registers
        // as in a user's loop (as either, it stayed in memory where the lanes are an array,
        // a store and a load on each operation of the chain: docs/performance.md).
        let mut x = *black_box(&x0);
        for (&y, &z) in b.iter().zip(c) {
            x = O::step(x, y, z);
        }
        last = x;
        black_box(&last);
    }
    black_box(last)
}

/// Elements of the per-operation arrays: with the `Sf64`s, four arrays fit in the L2 cache.
const OP_LEN: usize = 1024;

/// Operands for the per-operation table: `a` and `b` log-uniform in `[2^-0.5, 2^0.5)` (so that
/// long chains of products and quotients neither overflow nor underflow), `c` in `[0, 2^-10)`
/// (the addend of `mul_add`), all positive: no cancellation, no instability.
fn op_operands(len: usize) -> [Vec<f64>; 3] {
    let lg = |seed| {
        values(len, seed, -0.5, 0.5)
            .into_iter()
            .map(f64::exp2)
            .collect()
    };
    [lg(11), lg(12), values(len, 13, 0.0, 1.0 / 1024.0)]
}

/// Per-operation times, ns per operation: `[plain, checks off, checks on]` for the stream and
/// for the chain.
struct OpRow {
    op: &'static str,
    ty: &'static str,
    stream: [f64; 3],
    chain: [f64; 3],
}

/// Times one operation on one type (`T` plain, `S` stochastic), stream and chain, interleaved.
fn per_op<O: Op, P: Copy, T: Real<P>, S: Real<P> + FingerprintAll>(
    ty: &'static str,
    from: impl Fn(f64) -> P,
    runs: usize,
    reps: usize,
) -> OpRow {
    let [a, b, c] = op_operands(OP_LEN).map(|v| v.into_iter().map(&from).collect::<Vec<P>>());
    let t = |v: &[P]| v.iter().map(|&x| T::from(x)).collect::<Vec<T>>();
    let s = |v: &[P]| v.iter().map(|&x| S::from(x)).collect::<Vec<S>>();
    let (ta, tb, tc) = (t(&a), t(&b), t(&c));
    let (sa, sb, sc) = (s(&a), s(&b), s(&c));
    let mut tout = ta.clone();
    let mut sout = sa.clone();
    let per =
        |ts: [Vec<Duration>; 3]| ts.map(|v| median(v).as_secs_f64() * 1e9 / (OP_LEN * reps) as f64);
    let (st, _) = measure(
        runs,
        || stream::<O, P, T>(&ta, &tb, &tc, &mut tout, reps),
        || {
            stream::<O, P, S>(&sa, &sb, &sc, &mut sout, reps);
            S::fingerprint_all(&sout)
        },
    );
    let (ch, _) = measure(
        runs,
        || chain::<O, P, T>(ta[0], &tb, &tc, reps),
        || S::fingerprint_all(&[chain::<O, P, S>(sa[0], &sb, &sc, reps)]),
    );
    OpRow {
        op: O::NAME,
        ty,
        stream: per(st),
        chain: per(ch),
    }
}

/// [`fingerprint`] for both stochastic types, callable from generic code.
trait FingerprintAll: Sized {
    fn fingerprint_all(v: &[Self]) -> u64;
}
impl<F: stoch_core::StochFloat + Into<f64>> FingerprintAll for stoch_core::Stochastic<F> {
    fn fingerprint_all(v: &[Self]) -> u64 {
        fingerprint(v)
    }
}

/// The five operations on one type.
fn per_op_rows<P: Copy, T: Real<P>, S: Real<P> + FingerprintAll>(
    ty: &'static str,
    from: impl Fn(f64) -> P + Copy,
    runs: usize,
    reps: usize,
) -> Vec<OpRow> {
    vec![
        per_op::<AddOp, P, T, S>(ty, from, runs, reps),
        per_op::<MulOp, P, T, S>(ty, from, runs, reps),
        per_op::<DivOp, P, T, S>(ty, from, runs, reps),
        per_op::<SqrtOp, P, T, S>(ty, from, runs, reps),
        per_op::<MulAddOp, P, T, S>(ty, from, runs, reps),
    ]
}

/// Prints the per-operation table: ns per operation and the ratio to the plain operation.
fn print_per_op(rows: &[OpRow]) {
    println!();
    println!(
        "per operation, ns (ratio to plain): stream = {OP_LEN} independent operations, \
         chain = each waits for the one before"
    );
    println!(
        "{:<12} {:>7} {:>15} {:>15} | {:>7} {:>15} {:>15}",
        "op", "stream", "stoch off", "stoch on", "chain", "stoch off", "stoch on"
    );
    let cell = |t: f64, plain: f64| format!("{t:.2} ({:.1}x)", t / plain);
    for r in rows {
        println!(
            "{:<12} {:>7.3} {:>15} {:>15} | {:>7.3} {:>15} {:>15}",
            format!("{} {}", r.op, r.ty),
            r.stream[0],
            cell(r.stream[1], r.stream[0]),
            cell(r.stream[2], r.stream[0]),
            r.chain[0],
            cell(r.chain[1], r.chain[0]),
            cell(r.chain[2], r.chain[0]),
        );
    }
    // The square root's own chain latency: its chain minus the `+` chain of the same type.
    for sq in rows.iter().filter(|r| r.op == "sqrt") {
        if let Some(add) = rows.iter().find(|r| r.op == "+" && r.ty == sq.ty) {
            let own: Vec<f64> = (0..3).map(|k| sq.chain[k] - add.chain[k]).collect();
            println!(
                "sqrt {} chain less the + chain: plain {:.3} ns, stoch off {:.2} ns ({:.1}x), \
                 on {:.2} ns ({:.1}x)",
                sq.ty,
                own[0],
                own[1],
                own[1] / own[0],
                own[2],
                own[2] / own[0]
            );
        }
    }
}

/// Deterministic values in `[lo, hi)` (SplitMix64).
fn values(n: usize, seed: u64, lo: f64, hi: f64) -> Vec<f64> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = s;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^= z >> 31;
            lo + (hi - lo) * ((z >> 11) as f64 / (1u64 << 53) as f64)
        })
        .collect()
}

struct Sizes {
    dot: usize,
    mat: usize,
    grid: usize,
    steps: usize,
    sum: usize,
    /// n-body steps.
    nbody: usize,
    /// Spectral norm's order.
    spectral: usize,
    /// Passes over the per-operation arrays ([`OP_LEN`] operations each).
    op_reps: usize,
    runs: usize,
}

/// One row of the table.
struct Row {
    name: String,
    plain: Duration,
    off: Duration,
    on: Duration,
    cadna: (f64, f64),
    goal: (f64, f64),
    digits: u32,
    found: u64,
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort_unstable();
    v[v.len() / 2]
}

/// Which clock the table uses.
static WALL: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

fn time<R>(f: impl FnOnce() -> R) -> (Duration, R) {
    if WALL.load(std::sync::atomic::Ordering::Relaxed) {
        let t = Instant::now();
        let r = black_box(f());
        return (t.elapsed(), r);
    }
    let t = thread_cpu_time();
    let r = black_box(f());
    (thread_cpu_time().saturating_sub(t), r)
}

/// CPU time of the calling thread: unlike wall-clock time it does not grow while other
/// processes hold the CPU, which matters on a small shared machine.
#[cfg(target_os = "linux")]
fn thread_cpu_time() -> Duration {
    #[repr(C)]
    struct Timespec {
        tv_sec: i64,
        tv_nsec: i64,
    }
    extern "C" {
        fn clock_gettime(clock: i32, ts: *mut Timespec) -> i32;
    }
    const CLOCK_THREAD_CPUTIME_ID: i32 = 3;
    let mut ts = Timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable `struct timespec` (two 64-bit fields on 64-bit Linux),
    // and CLOCK_THREAD_CPUTIME_ID is a clock every Linux kernel since 2.6.12 provides.
    let rc = unsafe { clock_gettime(CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID)");
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// Elsewhere: wall-clock time since the first call.
#[cfg(not(target_os = "linux"))]
fn thread_cpu_time() -> Duration {
    static START: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    START.get_or_init(Instant::now).elapsed()
}

fn detection(on: bool) {
    Config::default()
        .detect_all(on)
        .report(ReportMode::Off)
        .apply();
}

/// Times `plain`, then `stoch` with detection off and on, `runs` times interleaved. Also
/// returns the instabilities found by the last run with detection on.
///
/// `stoch` returns a [`fingerprint`] of its result. Both stochastic runs start from the same
/// seed, and the checks never change a sample (a check only reads values and sets flags), so
/// the two fingerprints must be equal: this catches a slow path that corrupts the registers of
/// the optimised loop around it.
fn measure<A>(
    runs: usize,
    mut plain: impl FnMut() -> A,
    mut stoch: impl FnMut() -> u64,
) -> ([Vec<Duration>; 3], u64) {
    let mut t = [Vec::new(), Vec::new(), Vec::new()];
    let mut found = 0;
    for _ in 0..runs {
        t[0].push(time(&mut plain).0);
        detection(false);
        stoch_core::seed(RUN_SEED);
        let (d, off) = time(&mut stoch);
        t[1].push(d);
        detection(true);
        reset();
        stoch_core::seed(RUN_SEED);
        let (d, on) = time(&mut stoch);
        t[2].push(d);
        found = report().total();
        assert_eq!(
            off, on,
            "the same seed gave different samples with the checks off and on: a check changed a result"
        );
    }
    (t, found)
}

/// The seed of every timed stochastic run.
const RUN_SEED: u64 = 2026;

/// A hash (FNV-1a) of the samples of `values`, flags left out.
fn fingerprint<F: stoch_core::StochFloat + Into<f64>>(values: &[stoch_core::Stochastic<F>]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for v in values {
        for s in v.samples() {
            h = (h ^ s.into().to_bits()).wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

fn row(
    name: String,
    (t, found): ([Vec<Duration>; 3], u64),
    digits: u32,
    cadna: (f64, f64),
    goal: (f64, f64),
) -> Row {
    let [p, off, on] = t;
    Row {
        name,
        plain: median(p),
        off: median(off),
        on: median(on),
        cadna,
        goal,
        digits,
        found,
    }
}

fn fmt_time(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s >= 1.0 {
        format!("{s:.2} s")
    } else if s >= 1e-3 {
        format!("{:.2} ms", s * 1e3)
    } else {
        format!("{:.1} us", s * 1e6)
    }
}

/// What `--only` selects from: the kernels, and `ops` for the per-operation table.
const KERNELS: [&str; 7] = ["dot", "matmul", "wave", "sum", "nbody", "spectral", "ops"];

fn usage() -> ! {
    eprintln!(
        "usage: overhead [--quick] [--runs N] [--wall] [--only KERNEL,...]\n\
         kernels: {}",
        KERNELS.join(",")
    );
    std::process::exit(2);
}

fn main() {
    let mut sizes = Sizes {
        dot: 1_000_000,
        mat: 200,
        grid: 64,
        steps: 100,
        sum: 1_000_000,
        nbody: 400_000,
        spectral: 1000,
        op_reps: 512,
        runs: 7,
    };
    let mut args = std::env::args().skip(1);
    let mut runs = None;
    let mut only: Option<Vec<String>> = None;
    while let Some(a) = args.next() {
        match a.as_str() {
            "--quick" => {
                sizes = Sizes {
                    dot: 10_000,
                    mat: 24,
                    grid: 16,
                    steps: 10,
                    sum: 10_000,
                    nbody: 1_000,
                    spectral: 40,
                    op_reps: 8,
                    runs: 3,
                }
            }
            "--runs" => {
                runs = Some(
                    args.next()
                        .and_then(|n| n.parse::<usize>().ok())
                        .filter(|n| *n > 0)
                        .unwrap_or_else(|| usage()),
                )
            }
            "--wall" => WALL.store(true, std::sync::atomic::Ordering::Relaxed),
            "--only" => {
                let list: Vec<String> = args
                    .next()
                    .unwrap_or_else(|| usage())
                    .split(',')
                    .map(str::to_owned)
                    .collect();
                if list.iter().any(|k| !KERNELS.contains(&k.as_str())) {
                    usage();
                }
                only = Some(list);
            }
            _ => usage(),
        }
    }
    if let Some(r) = runs {
        sizes.runs = r;
    }
    let runs = sizes.runs;
    let want = |k: &str| only.as_ref().is_none_or(|o| o.iter().any(|x| x == k));

    let clock = if WALL.load(std::sync::atomic::Ordering::Relaxed) || !cfg!(target_os = "linux") {
        "wall-clock time"
    } else {
        "thread CPU time (--wall: wall-clock time)"
    };
    println!("stoch overhead: median of {runs} interleaved runs, {clock}");
    println!(
        "rounding path: {} (target: avx512f {}, avx2 {}, fma {})",
        rounding_path(),
        cfg!(target_feature = "avx512f"),
        cfg!(target_feature = "avx2"),
        cfg!(target_feature = "fma")
    );
    check_plain_kernels();
    let mut rows = Vec::new();

    // Dot product, f64.
    if want("dot") {
        let n = sizes.dot;
        let a = values(n, 1, -1.0, 1.0);
        let b = values(n, 2, -1.0, 1.0);
        let sa: Vec<Sf64> = a.iter().map(|&x| Sf64::new(x)).collect();
        let sb: Vec<Sf64> = b.iter().map(|&x| Sf64::new(x)).collect();
        let t = measure(
            runs,
            || dot(black_box(&a), black_box(&b)),
            || fingerprint(&[dot(black_box(&sa), black_box(&sb))]),
        );
        let digits = dot(&sa, &sb).digits();
        rows.push(row(
            format!("dot f64 {}", sci(n)),
            t,
            digits,
            (9.1, 15.9),
            (4.5, 5.3),
        ));
    }

    // Matrix product, f64.
    if want("matmul") {
        let n = sizes.mat;
        let a = values(n * n, 3, -1.0, 1.0);
        let bt = values(n * n, 4, -1.0, 1.0);
        let sa: Vec<Sf64> = a.iter().map(|&x| Sf64::new(x)).collect();
        let sbt: Vec<Sf64> = bt.iter().map(|&x| Sf64::new(x)).collect();
        let mut c = vec![0.0; n * n];
        let mut sc = vec![Sf64::ZERO; n * n];
        let t = measure(
            runs,
            || matmul(black_box(&a), black_box(&bt), &mut c, n),
            || {
                matmul(black_box(&sa), black_box(&sbt), &mut sc, n);
                fingerprint(&sc)
            },
        );
        let digits = sc.iter().map(|x| x.digits()).min().unwrap_or(0);
        rows.push(row(
            format!("matmul f64 {n}x{n}"),
            t,
            digits,
            (8.8, 21.5),
            (4.4, 7.2),
        ));
    }

    // 3-D wave, f32.
    if want("wave") {
        let n = sizes.grid;
        let src = ricker(sizes.steps);
        let zero = vec![0f32; n * n * n];
        let szero = vec![Sf32::ZERO; n * n * n];
        let probe = (n / 2) * n * n + (n / 2) * n + n / 2 + 2;
        let t = measure(
            runs,
            || wave(zero.clone(), zero.clone(), n, black_box(&src))[probe],
            || fingerprint(&wave(szero.clone(), szero.clone(), n, black_box(&src))),
        );
        let digits = wave(szero.clone(), szero.clone(), n, &src)[probe].digits();
        rows.push(row(
            format!("wave f32 {n}^3 x{}", sizes.steps),
            t,
            digits,
            (47.0, 111.0),
            (23.0, 37.0),
        ));
    }

    // Sum, f32.
    if want("sum") {
        let n = sizes.sum;
        let x: Vec<f32> = values(n, 5, 0.0, 1.0).iter().map(|&v| v as f32).collect();
        let sx: Vec<Sf32> = x.iter().map(|&v| Sf32::new(v)).collect();
        let t = measure(
            runs,
            || sum(black_box(&x)),
            || fingerprint(&[sum(black_box(&sx))]),
        );
        let digits = sum(&sx).digits();
        rows.push(row(
            format!("sum f32 {}", sci(n)),
            t,
            digits,
            (4.2, 11.1),
            (3.0, 3.7),
        ));
    }

    // N-body, f64.
    if want("nbody") {
        let steps = sizes.nbody;
        let t = measure(
            runs,
            || nbody::<f64>(steps).1,
            || {
                let (b, e) = nbody::<Sf64>(steps);
                let mut all: Vec<Sf64> =
                    b.iter().flat_map(|b| b.x.into_iter().chain(b.v)).collect();
                all.push(e);
                fingerprint(&all)
            },
        );
        let digits = nbody::<Sf64>(steps).1.digits();
        rows.push(row(
            format!("nbody f64 5 x{}", sci(steps)),
            t,
            digits,
            (24.0, 67.0),
            (f64::NAN, 28.0),
        ));
    }

    // Spectral norm, f64.
    if want("spectral") {
        let n = sizes.spectral;
        let t = measure(
            runs,
            || spectral_norm::<f64>(n),
            || fingerprint(&[spectral_norm::<Sf64>(n)]),
        );
        let digits = spectral_norm::<Sf64>(n).digits();
        rows.push(row(
            format!("spectral f64 n={n}"),
            t,
            digits,
            (f64::NAN, 15.3),
            (f64::NAN, 12.0),
        ));
    }

    println!(
        "{:<20} {:>9} {:>10} {:>6} {:>10} {:>6} | {:>9} {:>6} | {:>8} {:>6} | {:>6} {:>8}",
        "kernel",
        "plain",
        "stoch off",
        "ratio",
        "stoch on",
        "ratio",
        "CADNA off",
        "on",
        "goal off",
        "on",
        "digits",
        "instab."
    );
    for r in &rows {
        let ratio = |d: Duration| d.as_secs_f64() / r.plain.as_secs_f64();
        println!(
            "{:<20} {:>9} {:>10} {:>5.1}x {:>10} {:>5.1}x | {:>9} {:>6} | {:>8} {:>6} | {:>6} {:>8}",
            r.name,
            fmt_time(r.plain),
            fmt_time(r.off),
            ratio(r.off),
            fmt_time(r.on),
            ratio(r.on),
            fmt_ratio(r.cadna.0),
            fmt_ratio(r.cadna.1),
            fmt_ratio(r.goal.0),
            fmt_ratio(r.goal.1),
            r.digits,
            r.found
        );
    }
    println!(
        "ratios: stochastic time / plain time. CADNA: CADNA 3.1.12 on the project's machine \
         (issues 2 and 3; nbody and spectral: issue 26, an AVX2 AMD EPYC); goals: half of \
         CADNA's ratio with detection off, a third with it on (at -C target-cpu=native; nbody \
         and spectral: issue 26's targets with every check). digits: exact digits of the \
         stochastic result (matmul: the least over C; nbody: the final energy). instab.: \
         instabilities found in one run with every check on."
    );

    if want("ops") {
        let mut ops = per_op_rows::<f32, f32, Sf32>("f32", |x| x as f32, runs, sizes.op_reps);
        ops.extend(per_op_rows::<f64, f64, Sf64>(
            "f64",
            |x| x,
            runs,
            sizes.op_reps,
        ));
        print_per_op(&ops);
    }
    reset();
}

/// The rounding path this process runs (`STOCH_PATH` chooses one in a build for the default
/// target), and in words.
fn rounding_path() -> String {
    format!(
        "{} ({})",
        stoch_core::path::current(),
        stoch_core::path::describe()
    )
}

/// Checks the plain n-body and spectral norm against the Benchmarks Game's published outputs
/// (energy -0.169075164 before and -0.169087605 after 1000 steps; spectral norm 1.274219991
/// for n = 100), so that the timed kernels are the published algorithms.
fn check_plain_kernels() {
    let e0 = energy(&jovian::<f64>());
    let e1 = nbody::<f64>(1000).1;
    let s = spectral_norm::<f64>(100);
    for (what, got, want) in [
        ("n-body energy, start", e0, "-0.169075164"),
        ("n-body energy, 1000 steps", e1, "-0.169087605"),
        ("spectral norm, n = 100", s, "1.274219991"),
    ] {
        assert_eq!(format!("{got:.9}"), want, "plain {what}");
    }
}

/// A ratio such as `12.3x`, or `-` where there is none.
fn fmt_ratio(r: f64) -> String {
    if r.is_nan() {
        "-".into()
    } else {
        format!("{r:.1}x")
    }
}

/// `1e6` for 1000000, else the number.
fn sci(n: usize) -> String {
    match (3..19).find(|&k| 10usize.checked_pow(k) == Some(n)) {
        Some(k) => format!("1e{k}"),
        None => n.to_string(),
    }
}
