//! What stochastic arithmetic costs: plain floating point against `Sf64`/`Sf32` on four
//! kernels, timed in one process.
//!
//! ```text
//! cargo run --release --example overhead            # full sizes (about a minute)
//! cargo run --release --example overhead -- --quick # tiny sizes (the test suite runs this)
//! cargo run --release --example overhead -- --runs 11
//! cargo run --release --example overhead -- --wall  # wall-clock instead of thread CPU time
//! ```
//!
//! Kernels (the same generic code runs with the plain and the stochastic type):
//!
//! - `dot`: dot product of two 10^6-element `f64` vectors, one accumulator (latency-bound);
//! - `matmul`: 200×200 `f64` matrix product, `c[i][j] = Σ_k a[i][k]·b[k][j]` with one
//!   accumulator per element (B stored transposed, so both walk contiguous memory);
//! - `wave`: 3-D acoustic wave equation, `f32`, 64³ grid, 8th-order Laplacian (radius 4),
//!   100 leap-frog steps, Ricker point source at the centre; plain coefficients;
//! - `sum`: left-to-right sum of 10^6 `f32` values (latency-bound).
//!
//! Each kernel is timed plain, stochastic with every check off
//! (`Config::default().detect_all(false)`), and stochastic with every check on (the default),
//! the three interleaved, `--runs` times (default 7); the table shows medians and the ratios
//! stochastic/plain, next to CADNA 3.1.12's ratios measured on the project's machine (issue 2:
//! detection off; issue 3: detection on) and the project's goals (half, resp. a third, of
//! CADNA's ratios). Times are the thread's CPU time on Linux (`--wall` for wall-clock time):
//! on a small machine shared with other work, wall-clock time charges a long run for the
//! other processes' time slices more than a short one, and inflates the ratios. It also
//! prints the rounding path that runs (`stoch_core::path::describe()`: AVX-512 embedded
//! rounding, compiled in or chosen at run time; AVX2 vectors for `+` and `*`; the portable path
//! with hardware FMA; or the slow portable path with Dekker products) and, per kernel, the
//! exact digits of the stochastic result and the instabilities the checks found. Both
//! stochastic runs start from one seed, and the example stops if checks on and off give
//! different samples (a check must never change a result).
//!
//! Expected output (measured on 2026-11-25 on a 2-core AMD EPYC Zen 5 with AVX-512; the times
//! depend on the machine and move by up to about 15% from run to run; a build for the default
//! target on that machine prints "AVX-512 embedded rounding, chosen at run time", and README
//! gives both builds' ranges there and on a Zen 4, where the plain dot product and sum take
//! twice as long and every ratio is lower; on an Intel Xeon, Emerald Rapids, README gives
//! both builds' ranges too, higher for matmul and the wave):
//!
//! ```text
//! stoch overhead: median of 7 interleaved runs, thread CPU time (--wall: wall-clock time)
//! rounding path: AVX-512 embedded rounding (target: avx512f true, fma true)
//! kernel                   plain  stoch off  ratio   stoch on  ratio | CADNA off     on | goal off     on | digits  instab.
//! dot f64 1e6           490.5 us    1.92 ms   3.9x    2.53 ms   5.2x |      9.1x  15.9x |     4.5x   5.3x |     13        0
//! matmul f64 200x200     2.74 ms   14.34 ms   5.2x   19.79 ms   7.2x |      8.8x  21.5x |     4.4x   7.2x |     11      188
//! wave f32 64^3 x100    65.29 ms  662.77 ms  10.2x     1.14 s  17.5x |     47.0x 111.0x |    23.0x  37.0x |      5    14423
//! sum f32 1e6           487.7 us    1.38 ms   2.8x    1.76 ms   3.6x |      4.2x  11.1x |     3.0x   3.7x |      4        0
//! ```

use std::hint::black_box;
use std::ops::{Add, Mul, Sub};
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

fn usage() -> ! {
    eprintln!("usage: overhead [--quick] [--runs N] [--wall]");
    std::process::exit(2);
}

fn main() {
    let mut sizes = Sizes {
        dot: 1_000_000,
        mat: 200,
        grid: 64,
        steps: 100,
        sum: 1_000_000,
        runs: 7,
    };
    let mut args = std::env::args().skip(1);
    let mut runs = None;
    while let Some(a) = args.next() {
        match a.as_str() {
            "--quick" => {
                sizes = Sizes {
                    dot: 10_000,
                    mat: 24,
                    grid: 16,
                    steps: 10,
                    sum: 10_000,
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
            _ => usage(),
        }
    }
    if let Some(r) = runs {
        sizes.runs = r;
    }
    let runs = sizes.runs;

    let clock = if WALL.load(std::sync::atomic::Ordering::Relaxed) || !cfg!(target_os = "linux") {
        "wall-clock time"
    } else {
        "thread CPU time (--wall: wall-clock time)"
    };
    println!("stoch overhead: median of {runs} interleaved runs, {clock}");
    println!(
        "rounding path: {} (target: avx512f {}, fma {})",
        stoch_core::path::describe(),
        cfg!(target_feature = "avx512f"),
        cfg!(target_feature = "fma")
    );
    let mut rows = Vec::new();

    // Dot product, f64.
    {
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
    {
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
    {
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
    {
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
            "{:<20} {:>9} {:>10} {:>5.1}x {:>10} {:>5.1}x | {:>8.1}x {:>5.1}x | {:>7.1}x {:>5.1}x | {:>6} {:>8}",
            r.name,
            fmt_time(r.plain),
            fmt_time(r.off),
            ratio(r.off),
            fmt_time(r.on),
            ratio(r.on),
            r.cadna.0,
            r.cadna.1,
            r.goal.0,
            r.goal.1,
            r.digits,
            r.found
        );
    }
    println!(
        "ratios: stochastic time / plain time. CADNA: CADNA 3.1.12 on the project's machine \
         (issues 2 and 3); goals: half of CADNA's ratio with detection off, a third with it on \
         (at -C target-cpu=native). digits: exact digits of the stochastic result (matmul: the \
         least over C). instab.: instabilities found in one run with every check on."
    );
    reset();
}

/// `1e6` for 1000000, else the number.
fn sci(n: usize) -> String {
    match (3..19).find(|&k| 10usize.checked_pow(k) == Some(n)) {
        Some(k) => format!("1e{k}"),
        None => n.to_string(),
    }
}
