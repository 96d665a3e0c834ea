//! The reproducibility suite of the source papers, as library functions.
//!
//! `examples/repro_suite.rs` is the command-line front end (tables, plots, markdown report);
//! the functions here do the experiments, so that `tests/repro_*.rs` can check the papers'
//! key facts at small sizes:
//!
//! - [`global_sum`]: seeds 000, 001 and 003. Arrays of large and small values, each followed
//!   by its negation (exact sum 0), summed in shuffled, ascending and descending order by 1 to
//!   1000 workers (real threads), partial sums merged at the end.
//! - [`GlobalSumGpu`]: the same experiment on a GPU (`--features gpu`, through `stoch-gpu`):
//!   plain `float`/`double` and `Sf32`/`Sf64` summed in the seed papers' three device modes
//!   ([`GpuMode`]), tabulated beside the CPU results by [`global_sum_gpu_report`]. Without the
//!   feature or without a device it returns why ([`GpuSumError`]), never panics.
//! - [`do_undo`]: seed 000's do/undo programs, `x = (x*y)/y` and `x = (x/y)*y`.
//! - [`forces`]: seed 002's Lennard-Jones force accumulation, methods A-G of its Table 1, with
//!   the average force error (eq. 10) and the average force offset (eq. 11).
//!
//! Everything is seeded and deterministic, except timings and, for order-dependent methods,
//! nothing else: partial sums are merged in worker order.
//!
//! # Examples
//!
//! ```
//! use stoch::repro::{global_sum, symmetric_data, Method, Order, RANGES};
//!
//! let data = symmetric_data(1000, &RANGES[2], 7);
//! let ordered = Order::Shuffled(1).apply(&data, 7);
//! let float = global_sum(Method::Float, &ordered, 1);
//! let repro = global_sum(Method::Reproducible, &ordered, 10);
//! assert!(float.value.abs() > 1e-3);
//! assert_eq!(repro.value, 0.0);
//! ```

use std::fmt::Write as _;
use std::time::Instant;

use stoch_core::accum::{
    sum_parallel, Accumulator, CompositeSum, DoubleWordSum, Kahan, ModifiedNitadori, Naive, Narumi,
    NarumiRounding, Neumaier, Nitadori, Pairwise, ReproducibleSum, TakahashiIitaka,
};
use stoch_core::composite::{Composite, DoubleWord};

/// SplitMix64: a small seeded generator for the suite's data (identical on every machine).
///
/// ```
/// use stoch::repro::Rng;
/// let mut r = Rng::new(1);
/// let x = r.uniform(2.0, 3.0);
/// assert!((2.0..3.0).contains(&x));
/// ```
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed.
    #[must_use]
    pub fn new(seed: u64) -> Self {
        Self(seed ^ 0x6A09_E667_F3BC_C908)
    }

    /// 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)` with 53 random bits.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in `[lo, hi)`.
    pub fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }

    /// `+1.0` or `-1.0`.
    pub fn sign(&mut self) -> f64 {
        if self.next_u64() & 1 == 0 {
            1.0
        } else {
            -1.0
        }
    }

    /// Uniform in `0..n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }

    /// Fisher-Yates shuffle.
    pub fn shuffle<T>(&mut self, xs: &mut [T]) {
        for i in (1..xs.len()).rev() {
            xs.swap(i, self.below(i + 1));
        }
    }
}

// ------------------------------------------------------------------------------------------
// Global summation (seeds 000, 001, 003)
// ------------------------------------------------------------------------------------------

/// The value ranges of the global-sum experiment: small values in `small`, large values in
/// `large` (seed 001: from (1e-4,1e-3)&(1e3,1e4) to (1e-7,1e-6)&(1e6,1e7)).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Range {
    /// Interval of the small magnitudes.
    pub small: (f64, f64),
    /// Interval of the large magnitudes.
    pub large: (f64, f64),
}

impl Range {
    /// `(1e-6,1e-5)&(1e5,1e6)` style label.
    ///
    /// ```
    /// assert_eq!(stoch::repro::RANGES[0].label(), "(1e-4,1e-3)&(1e3,1e4)");
    /// ```
    #[must_use]
    pub fn label(&self) -> String {
        format!(
            "({:e},{:e})&({:e},{:e})",
            self.small.0, self.small.1, self.large.0, self.large.1
        )
    }
}

/// The four ranges of seed 001, from the narrowest to the widest spread of magnitudes
/// (`RANGES[2]` is seed 000's O(1e-6) & O(1e6)).
pub const RANGES: [Range; 4] = [
    Range {
        small: (1e-4, 1e-3),
        large: (1e3, 1e4),
    },
    Range {
        small: (1e-5, 1e-4),
        large: (1e4, 1e5),
    },
    Range {
        small: (1e-6, 1e-5),
        large: (1e5, 1e6),
    },
    Range {
        small: (1e-7, 1e-6),
        large: (1e6, 1e7),
    },
];

/// `n` values (rounded up to even) made of pairs `x, -x`: `x` is small or large with equal
/// probability, uniform in its interval, with a random sign; its negation follows it. The
/// values are `f32`-representable (stored as `f64`), so the exact sum is 0 in every type.
///
/// ```
/// use stoch::repro::{symmetric_data, RANGES};
/// let d = symmetric_data(6, &RANGES[0], 1);
/// assert_eq!(d.len(), 6);
/// assert_eq!(d[0], -d[1]);
/// assert_eq!(d[0] as f32 as f64, d[0]);
/// ```
#[must_use]
pub fn symmetric_data(n: usize, range: &Range, seed: u64) -> Vec<f64> {
    let mut rng = Rng::new(seed);
    let mut v = Vec::with_capacity(n + 1);
    while v.len() < n {
        let (lo, hi) = if rng.next_u64() & 1 == 0 {
            range.small
        } else {
            range.large
        };
        let x = (rng.sign() * rng.uniform(lo, hi)) as f32 as f64;
        v.push(x);
        v.push(-x);
    }
    v
}

/// The order in which the array is summed (the rows of seed 000's Tables II-V).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// Randomly shuffled; the number (1 to 4 in the paper) picks the permutation.
    Shuffled(u32),
    /// Sorted by increasing value (most negative first).
    Ascending,
    /// Sorted by decreasing value.
    Descending,
}

impl Order {
    /// The six orders of the paper's tables.
    pub const PAPER: [Order; 6] = [
        Order::Shuffled(1),
        Order::Shuffled(2),
        Order::Shuffled(3),
        Order::Shuffled(4),
        Order::Descending,
        Order::Ascending,
    ];

    /// The row label used in the paper.
    ///
    /// ```
    /// assert_eq!(stoch::repro::Order::Shuffled(2).label(), "Unsorted, shuffled (2)");
    /// ```
    #[must_use]
    pub fn label(self) -> String {
        match self {
            Order::Shuffled(k) => format!("Unsorted, shuffled ({k})"),
            Order::Ascending => "Sorted ascending".into(),
            Order::Descending => "Sorted descending".into(),
        }
    }

    /// The data in this order (`seed` and the shuffle number pick the permutation).
    #[must_use]
    pub fn apply(self, data: &[f64], seed: u64) -> Vec<f64> {
        let mut v = data.to_vec();
        match self {
            Order::Shuffled(k) => {
                Rng::new(seed.wrapping_mul(31).wrapping_add(u64::from(k))).shuffle(&mut v);
            }
            Order::Ascending => v.sort_by(f64::total_cmp),
            Order::Descending => v.sort_by(|a, b| b.total_cmp(a)),
        }
        v
    }
}

/// A summation method of the global-sum experiment: a number type and an accumulator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Method {
    /// `f32`, naive (the papers' "float").
    Float,
    /// `f64`, naive ("double").
    Double,
    /// Composite `f32` pair, Figure 3 addition ("float2").
    Float2,
    /// Composite `f64` pair ("double2", seed 001).
    Double2,
    /// `f32` Kahan.
    Kahan,
    /// `f32` Neumaier.
    Neumaier,
    /// `f32` pairwise.
    Pairwise,
    /// `f32` Takahashi-Iitaka pair.
    TakahashiIitaka,
    /// `f32` Nitadori pair (`LARGE = 0`).
    Nitadori,
    /// `f32` modified Nitadori (`LARGE = 3·2^20`).
    ModifiedNitadori,
    /// Narumi's float + int (design range: terms and partial sums within ±2^20).
    Narumi,
    /// Normalised `f32` double word.
    DoubleWord,
    /// The exact, order-independent sum of `f32` terms, rounded to `f32`.
    Reproducible,
    /// Stochastic `f32` (Discrete Stochastic Arithmetic), naive.
    StochFloat,
    /// Stochastic `f64`, naive.
    StochDouble,
    /// Stochastic `f32`, Kahan: DSA's digits of the compensated sum.
    StochKahan,
    /// Composite pair of stochastic `f32` (float2 over `Sf32`, Figure 3 addition).
    StochFloat2,
    /// Stochastic `f64`, Kahan.
    StochDoubleKahan,
    /// Composite pair of stochastic `f64` (double2 over `Sf64`).
    StochDouble2,
}

impl Method {
    /// Every method, in table order.
    pub const ALL: [Method; 19] = [
        Method::Float,
        Method::Double,
        Method::Float2,
        Method::Double2,
        Method::Kahan,
        Method::Neumaier,
        Method::Pairwise,
        Method::TakahashiIitaka,
        Method::Nitadori,
        Method::ModifiedNitadori,
        Method::Narumi,
        Method::DoubleWord,
        Method::Reproducible,
        Method::StochFloat,
        Method::StochDouble,
        Method::StochKahan,
        Method::StochFloat2,
        Method::StochDoubleKahan,
        Method::StochDouble2,
    ];

    /// The column header.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            Method::Float => "float",
            Method::Double => "double",
            Method::Float2 => "float2",
            Method::Double2 => "double2",
            Method::Kahan => "kahan",
            Method::Neumaier => "neumaier",
            Method::Pairwise => "pairwise",
            Method::TakahashiIitaka => "takahashi-iitaka",
            Method::Nitadori => "nitadori",
            Method::ModifiedNitadori => "mod-nitadori",
            Method::Narumi => "narumi",
            Method::DoubleWord => "double-word",
            Method::Reproducible => "reproducible",
            Method::StochFloat => "Sf32",
            Method::StochDouble => "Sf64",
            Method::StochKahan => "Sf32-kahan",
            Method::StochFloat2 => "Sf32-float2",
            Method::StochDoubleKahan => "Sf64-kahan",
            Method::StochDouble2 => "Sf64-double2",
        }
    }

    /// Parses a column header (as printed by [`Method::label`]).
    #[must_use]
    pub fn parse(s: &str) -> Option<Method> {
        Method::ALL.into_iter().find(|m| m.label() == s)
    }

    /// Whether the method is a stochastic type (its outcome carries DSA digits).
    #[must_use]
    pub fn is_stochastic(self) -> bool {
        matches!(
            self,
            Method::StochFloat
                | Method::StochDouble
                | Method::StochKahan
                | Method::StochFloat2
                | Method::StochDoubleKahan
                | Method::StochDouble2
        )
    }
}

/// The result of one summation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SumOutcome {
    /// The sum as `f64` (for the stochastic types: the mean of the samples).
    pub value: f64,
    /// For the stochastic types: exact significant digits of the result (DSA); 0 for a
    /// computed zero.
    pub digits: Option<u32>,
    /// For the stochastic types: whether the result is a computed zero (`@.0`).
    pub computed_zero: Option<bool>,
    /// Wall-clock seconds for the summation (threads included).
    pub seconds: f64,
}

fn run_acc<A, T>(xs: &[T], workers: usize, out: impl Fn(T) -> f64) -> SumOutcome
where
    A: Accumulator<T> + Send,
    T: Copy + Sync,
{
    let t0 = Instant::now();
    let r = if workers == 1 {
        stoch_core::accum::sum::<A, T>(xs)
    } else {
        sum_parallel::<A, T>(xs, workers)
    };
    let seconds = t0.elapsed().as_secs_f64();
    SumOutcome {
        value: out(r),
        digits: None,
        computed_zero: None,
        seconds,
    }
}

/// Sums `data` (already in the wanted order) with `method`, split into `workers` contiguous
/// chunks, each summed by its own thread, the partial sums merged in worker order (one worker:
/// the calling thread sums alone, so its time is the summation's).
///
/// The `f32` methods take `data` rounded to `f32` (exact for [`symmetric_data`]).
///
/// # Panics
///
/// If `workers` is zero.
#[must_use]
pub fn global_sum(method: Method, data: &[f64], workers: usize) -> SumOutcome {
    let f32s = || data.iter().map(|&x| x as f32).collect::<Vec<f32>>();
    let w = |x: f32| x as f64;
    match method {
        Method::Float => run_acc::<Naive<f32>, _>(&f32s(), workers, w),
        Method::Double => run_acc::<Naive<f64>, _>(data, workers, |x| x),
        Method::Float2 => run_acc::<CompositeSum<f32>, _>(&f32s(), workers, w),
        Method::Double2 => run_acc::<CompositeSum<f64>, _>(data, workers, |x| x),
        Method::Kahan => run_acc::<Kahan<f32>, _>(&f32s(), workers, w),
        Method::Neumaier => run_acc::<Neumaier<f32>, _>(&f32s(), workers, w),
        Method::Pairwise => run_acc::<Pairwise<f32>, _>(&f32s(), workers, w),
        Method::TakahashiIitaka => run_acc::<TakahashiIitaka<f32>, _>(&f32s(), workers, w),
        Method::Nitadori => run_acc::<Nitadori<f32>, _>(&f32s(), workers, w),
        Method::ModifiedNitadori => run_acc::<ModifiedNitadori<f32>, _>(&f32s(), workers, w),
        Method::Narumi => run_acc::<Narumi, _>(&f32s(), workers, w),
        Method::DoubleWord => run_acc::<DoubleWordSum<f32>, _>(&f32s(), workers, w),
        Method::Reproducible => run_acc::<ReproducibleSum, f32>(&f32s(), workers, w),
        Method::StochFloat
        | Method::StochDouble
        | Method::StochKahan
        | Method::StochFloat2
        | Method::StochDoubleKahan
        | Method::StochDouble2 => stochastic::global_sum(method, data, workers),
    }
}

/// One cell of the global-sum experiment.
#[derive(Clone, Debug)]
pub struct GlobalSumRow {
    /// Array length.
    pub size: usize,
    /// Index into [`RANGES`].
    pub range: usize,
    /// Number of workers (threads).
    pub workers: usize,
    /// Summation order.
    pub order: Order,
    /// Method.
    pub method: Method,
    /// What came out.
    pub outcome: SumOutcome,
}

/// Settings of the global-sum experiment.
#[derive(Clone, Debug)]
pub struct GlobalSumConfig {
    /// Array lengths.
    pub sizes: Vec<usize>,
    /// Indices into [`RANGES`].
    pub ranges: Vec<usize>,
    /// Worker counts.
    pub workers: Vec<usize>,
    /// Methods (columns).
    pub methods: Vec<Method>,
    /// Orders (rows).
    pub orders: Vec<Order>,
    /// Data seed.
    pub seed: u64,
}

impl Default for GlobalSumConfig {
    /// Seed 000's setting: 1000 values, O(1e-6) & O(1e6), 1, 10, 100 and 1000 workers, the six
    /// orders, every method.
    fn default() -> Self {
        Self {
            sizes: vec![1000],
            ranges: vec![2],
            workers: vec![1, 10, 100, 1000],
            methods: Method::ALL.to_vec(),
            orders: Order::PAPER.to_vec(),
            seed: 2010,
        }
    }
}

/// The unordered array of one (size, range) cell of `cfg`: [`symmetric_data`] with the cell's
/// seed (the orders are then [`Order::apply`] with `cfg.seed`).
#[must_use]
pub fn global_sum_data(cfg: &GlobalSumConfig, size: usize, range: usize) -> Vec<f64> {
    symmetric_data(size, &RANGES[range], cfg.seed ^ range as u64)
}

/// Runs every (size, range, workers, order, method) of `cfg`; `progress` is called before each
/// (size, range) block, and before each order for arrays of a million values or more, with a
/// line to show.
pub fn run_global_sum(cfg: &GlobalSumConfig, progress: &mut dyn FnMut(&str)) -> Vec<GlobalSumRow> {
    let mut rows = Vec::new();
    let blocks = cfg.sizes.len() * cfg.ranges.len();
    let mut block = 0;
    for &size in &cfg.sizes {
        for &range in &cfg.ranges {
            block += 1;
            progress(&format!(
                "[{block}/{blocks}] global-sum: {size} values, range {}",
                RANGES[range].label()
            ));
            let data = global_sum_data(cfg, size, range);
            for (k, &order) in cfg.orders.iter().enumerate() {
                if size >= 1_000_000 {
                    progress(&format!(
                        "    order {}/{}: {}",
                        k + 1,
                        cfg.orders.len(),
                        order.label()
                    ));
                }
                let ordered = order.apply(&data, cfg.seed);
                for &workers in &cfg.workers {
                    for &method in &cfg.methods {
                        let outcome = global_sum(method, &ordered, workers);
                        rows.push(GlobalSumRow {
                            size,
                            range,
                            workers,
                            order,
                            method,
                            outcome,
                        });
                    }
                }
            }
        }
    }
    rows
}

/// Mean of `|result|` (the error: the exact sum is 0) over the shuffled orders, per method, for
/// one (size, range, workers) cell: the bars of seed 001's charts.
#[must_use]
pub fn mean_abs_shuffled(
    rows: &[GlobalSumRow],
    size: usize,
    range: usize,
    workers: usize,
    method: Method,
) -> Option<f64> {
    let v: Vec<f64> = rows
        .iter()
        .filter(|r| {
            r.size == size
                && r.range == range
                && r.workers == workers
                && r.method == method
                && matches!(r.order, Order::Shuffled(_))
        })
        .map(|r| r.outcome.value.abs())
        .collect();
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

/// Formats a result like the paper's tables (`-4.8750e+00`).
///
/// ```
/// assert_eq!(stoch::repro::sci(-4.875), "-4.8750e+00");
/// assert_eq!(stoch::repro::sci(0.0), "0.0000e+00");
/// ```
#[must_use]
pub fn sci(x: f64) -> String {
    let s = format!("{x:.4e}");
    match s.split_once('e') {
        Some((m, e)) => {
            let (sign, digits) = match e.strip_prefix('-') {
                Some(d) => ('-', d),
                None => ('+', e),
            };
            format!("{m}e{sign}{digits:0>2}")
        }
        None => s,
    }
}

fn cell(o: &SumOutcome) -> String {
    match (o.digits, o.computed_zero) {
        (Some(_), Some(true)) => format!("@.0 ({})", sci(o.value)),
        (Some(d), _) => format!("{} [{d} dig]", sci(o.value)),
        _ => sci(o.value),
    }
}

/// Markdown tables in the layout of seed 000's Tables II-V (rows: orders; columns: methods),
/// one per (size, range, workers), followed by seed 001's summary (mean `|error|` over the
/// shuffled orders per worker count) and the timings.
#[must_use]
pub fn global_sum_report(cfg: &GlobalSumConfig, rows: &[GlobalSumRow]) -> String {
    let mut out = String::new();
    for &size in &cfg.sizes {
        for &range in &cfg.ranges {
            for &workers in &cfg.workers {
                let _ = writeln!(
                    out,
                    "\n#### {size} elements, {} thread{}, range {} (expected result 0)\n",
                    workers,
                    if workers == 1 { "" } else { "s" },
                    RANGES[range].label()
                );
                let _ = write!(out, "| Sorting |");
                for m in &cfg.methods {
                    let _ = write!(out, " {} |", m.label());
                }
                let _ = write!(out, "\n|---|");
                for _ in &cfg.methods {
                    let _ = write!(out, "---:|");
                }
                out.push('\n');
                for &order in &cfg.orders {
                    let _ = write!(out, "| {} |", order.label());
                    for &m in &cfg.methods {
                        let c = rows
                            .iter()
                            .find(|r| {
                                r.size == size
                                    && r.range == range
                                    && r.workers == workers
                                    && r.order == order
                                    && r.method == m
                            })
                            .map_or_else(|| "-".into(), |r| cell(&r.outcome));
                        let _ = write!(out, " {c} |");
                    }
                    out.push('\n');
                }
            }
        }
    }
    let _ = writeln!(
        out,
        "\n### Mean |error| over the shuffled orders (seed 001's bars)\n"
    );
    let _ = write!(out, "| size | range | threads |");
    for m in &cfg.methods {
        let _ = write!(out, " {} |", m.label());
    }
    let _ = write!(out, "\n|---:|---|---:|");
    for _ in &cfg.methods {
        let _ = write!(out, "---:|");
    }
    out.push('\n');
    for &size in &cfg.sizes {
        for &range in &cfg.ranges {
            for &workers in &cfg.workers {
                let _ = write!(out, "| {size} | {} | {workers} |", RANGES[range].label());
                for &m in &cfg.methods {
                    let v = mean_abs_shuffled(rows, size, range, workers, m);
                    let _ = write!(out, " {} |", v.map_or_else(|| "-".into(), sci));
                }
                out.push('\n');
            }
        }
    }
    let _ = writeln!(
        out,
        "\n### Time per element (ns): one worker (no thread), mean over the orders\n"
    );
    let _ = writeln!(
        out,
        "| size | method | ns/element | vs float |\n|---:|---|---:|---:|"
    );
    for &size in &cfg.sizes {
        let per = |m: Method| {
            let v: Vec<f64> = rows
                .iter()
                .filter(|r| r.size == size && r.method == m && r.workers == 1)
                .map(|r| r.outcome.seconds)
                .collect();
            (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64 * 1e9 / size as f64)
        };
        let base = per(Method::Float);
        for &m in &cfg.methods {
            if let Some(t) = per(m) {
                let ratio = base.map_or_else(|| "-".into(), |b| format!("{:.2}", t / b));
                let _ = writeln!(out, "| {size} | {} | {t:.2} | {ratio} |", m.label());
            }
        }
    }
    out
}

/// The methods of [`run_dsa_digits`]: each stochastic method beside the plain one it runs
/// in stochastic arithmetic.
pub const DSA_PAIRS: [(Method, Method); 6] = [
    (Method::StochFloat, Method::Float),
    (Method::StochKahan, Method::Kahan),
    (Method::StochFloat2, Method::Float2),
    (Method::StochDouble, Method::Double),
    (Method::StochDoubleKahan, Method::Double),
    (Method::StochDouble2, Method::Double2),
];

/// One sum of [`run_dsa_digits`].
#[derive(Clone, Debug)]
pub struct DsaDigitsRow {
    /// Array length (before the appended 1).
    pub size: usize,
    /// Index into [`RANGES`].
    pub range: usize,
    /// Number of workers.
    pub workers: usize,
    /// A stochastic method.
    pub method: Method,
    /// Its result (mean of the samples), its DSA digits and whether it is a computed zero.
    pub outcome: SumOutcome,
    /// The plain method it runs in stochastic arithmetic, and that method's result.
    pub plain: (Method, f64),
}

/// Correct significant decimal digits of `x` against the exact value 1, `-log10|x - 1|`,
/// clamped to `0..=17` (17 for an exact 1).
///
/// ```
/// assert_eq!(stoch::repro::digits_of_one(1.0), 17.0);
/// assert!((stoch::repro::digits_of_one(1.001) - 3.0).abs() < 1e-9);
/// assert_eq!(stoch::repro::digits_of_one(-5.0), 0.0);
/// ```
#[must_use]
pub fn digits_of_one(x: f64) -> f64 {
    let e = (x - 1.0).abs();
    if e == 0.0 {
        17.0
    } else {
        (-e.log10()).clamp(0.0, 17.0)
    }
}

/// What DSA says each summation method keeps. On the symmetric data a stochastic sum in a
/// shuffled order is noise around 0 (DSA: a computed zero, 0 digits), and in a sorted order it
/// can even fool DSA: small terms added to large partial sums move every sample by about half
/// an ulp of the partial sum, in the same direction for a run of same-sign terms, so the
/// samples drift together and agree on a wrong value with 1 or 2 claimed digits where the
/// exact sum is 0. Neither says what a method keeps, so here each (size, range)
/// array of `cfg` gets one more term, `1.0`: the exact sum is 1, and the DSA digits of each
/// stochastic method in `cfg.methods` (first shuffle; one worker and the largest worker count
/// of `cfg`) can be set against the correct digits of its result and of the plain method it
/// runs in stochastic arithmetic ([`DSA_PAIRS`]). `progress` is called once per array.
pub fn run_dsa_digits(cfg: &GlobalSumConfig, progress: &mut dyn FnMut(&str)) -> Vec<DsaDigitsRow> {
    let methods: Vec<(Method, Method)> = DSA_PAIRS
        .into_iter()
        .filter(|(m, _)| cfg.methods.contains(m))
        .collect();
    let mut rows = Vec::new();
    if methods.is_empty() {
        return rows;
    }
    let mut workers = vec![1];
    workers.extend(cfg.workers.iter().copied().filter(|&w| w > 1).max());
    for &size in &cfg.sizes {
        for &range in &cfg.ranges {
            progress(&format!(
                "DSA digits: {size} values + 1.0, range {}",
                RANGES[range].label()
            ));
            let mut data = global_sum_data(cfg, size, range);
            data.push(1.0);
            let ordered = Order::Shuffled(1).apply(&data, cfg.seed);
            for &w in &workers {
                for &(m, p) in &methods {
                    rows.push(DsaDigitsRow {
                        size,
                        range,
                        workers: w,
                        method: m,
                        outcome: global_sum(m, &ordered, w),
                        plain: (p, global_sum(p, &ordered, w).value),
                    });
                }
            }
        }
    }
    rows
}

/// The markdown table of [`run_dsa_digits`].
#[must_use]
pub fn dsa_digits_report(rows: &[DsaDigitsRow]) -> String {
    if rows.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "\n### What each method keeps, measured by DSA (the same data plus one 1.0: exact sum 1, \
         first shuffle)\n\n| size | range | threads | stochastic method | result | DSA digits | \
         correct digits | plain method | plain result | its correct digits |\n\
         |---:|---|---:|---|---:|---:|---:|---|---:|---:|\n",
    );
    for r in rows {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {:.1} | {} | {} | {:.1} |",
            r.size,
            RANGES[r.range].label(),
            r.workers,
            r.method.label(),
            cell(&r.outcome),
            r.outcome.digits.unwrap_or(0),
            digits_of_one(r.outcome.value),
            r.plain.0.label(),
            sci(r.plain.1),
            digits_of_one(r.plain.1)
        );
    }
    out
}

// ------------------------------------------------------------------------------------------
// Global summation on the GPU (`--features gpu`, stoch-gpu)
// ------------------------------------------------------------------------------------------

/// The methods the device runs: plain `float` and `double`, and the stochastic types.
pub const GPU_METHODS: [Method; 4] = [
    Method::Float,
    Method::Double,
    Method::StochFloat,
    Method::StochDouble,
];

/// The seed papers' three ways of summing on a GPU (`kernels/stoch_sum.cu`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GpuMode {
    /// Each GPU thread sums a contiguous chunk; the host adds the partial sums in thread order.
    Partials,
    /// The same chunks, then atomic additions on the device (order not repeatable).
    Atomic,
    /// Block-wise tree reduction in shared memory, relaunched until one value is left (fixed
    /// launch shape: independent of the worker count).
    Tree,
}

impl GpuMode {
    /// The three modes, in table order.
    pub const ALL: [GpuMode; 3] = [GpuMode::Partials, GpuMode::Atomic, GpuMode::Tree];

    /// Column label.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            GpuMode::Partials => "partials",
            GpuMode::Atomic => "atomic",
            GpuMode::Tree => "tree",
        }
    }
}

/// One device summation.
#[derive(Clone, Debug)]
pub struct GpuSumRow {
    /// Array length.
    pub size: usize,
    /// Index into [`RANGES`].
    pub range: usize,
    /// The worker count this row stands for (that many GPU threads, each summing one chunk);
    /// `None` for [`GpuMode::Tree`], whose launch shape is fixed.
    pub workers: Option<usize>,
    /// Number of non-empty partial sums of the launch (of the first level, for the tree).
    pub partial_sums: usize,
    /// Summation order.
    pub order: Order,
    /// One of [`GPU_METHODS`].
    pub method: Method,
    /// How the device sums.
    pub mode: GpuMode,
    /// What came out (`seconds`: the launches and the copy of the result, not the upload).
    pub outcome: SumOutcome,
}

/// The device part of the global-sum experiment.
#[derive(Clone, Debug)]
pub struct GpuGlobalSum {
    /// Device name and architecture.
    pub device: String,
    /// Every (size, range, order, method, mode, workers) summed on the device.
    pub rows: Vec<GpuSumRow>,
}

/// Why the device part did not run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GpuSumError {
    /// Built without the root package's `gpu` feature.
    NotBuilt,
    /// No usable GPU: no driver, no device or no NVRTC (stoch-gpu's message).
    NoDevice(String),
    /// None of [`GPU_METHODS`] is among the configured methods.
    NoGpuMethod,
    /// The device failed during the run (compilation, launch or copy).
    Failed(String),
}

impl std::fmt::Display for GpuSumError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GpuSumError::NotBuilt => {
                write!(
                    f,
                    "this build has no GPU support (build with `--features gpu`)"
                )
            }
            GpuSumError::NoDevice(e) => write!(f, "no GPU available: {e}"),
            GpuSumError::NoGpuMethod => write!(
                f,
                "none of the GPU methods (float, double, Sf32, Sf64) is among --methods"
            ),
            GpuSumError::Failed(e) => write!(f, "the GPU run failed: {e}"),
        }
    }
}

impl std::error::Error for GpuSumError {}

/// The one line the suite prints when the device part does not run.
///
/// ```
/// use stoch::repro::{gpu_skip_line, GpuSumError};
/// assert_eq!(
///     gpu_skip_line(&GpuSumError::NotBuilt),
///     "--gpu: this build has no GPU support (build with `--features gpu`); running the CPU part only."
/// );
/// ```
#[must_use]
pub fn gpu_skip_line(e: &GpuSumError) -> String {
    format!("--gpu: {e}; running the CPU part only.")
}

/// An open device for the global-sum experiment. Without the `gpu` feature it cannot be
/// opened ([`GlobalSumGpu::open`] returns [`GpuSumError::NotBuilt`]).
#[derive(Debug)]
pub struct GlobalSumGpu {
    #[cfg(feature = "gpu")]
    gpu: stoch_gpu::Gpu,
    #[cfg(not(feature = "gpu"))]
    never: std::convert::Infallible,
}

impl GlobalSumGpu {
    /// Opens device 0 (`stoch_gpu::Gpu::new`).
    ///
    /// # Errors
    ///
    /// [`GpuSumError::NotBuilt`] without the `gpu` feature, [`GpuSumError::NoDevice`] without
    /// a driver, a device or NVRTC. Never panics.
    pub fn open() -> Result<Self, GpuSumError> {
        #[cfg(feature = "gpu")]
        {
            stoch_gpu::Gpu::new()
                .map(|gpu| Self { gpu })
                .map_err(|e| GpuSumError::NoDevice(e.to_string()))
        }
        #[cfg(not(feature = "gpu"))]
        {
            Err(GpuSumError::NotBuilt)
        }
    }

    /// Device name and architecture.
    #[must_use]
    pub fn device(&self) -> String {
        #[cfg(feature = "gpu")]
        {
            format!("{} (sm_{})", self.gpu.name(), self.gpu.arch())
        }
        #[cfg(not(feature = "gpu"))]
        match self.never {}
    }

    /// Runs the experiment of `cfg` on the device for the [`GPU_METHODS`] among `cfg.methods`:
    /// the same arrays and orders as [`run_global_sum`], each summed in the three
    /// [`GpuMode`]s, the partial-sum and atomic modes once per worker count (`w` workers = `w`
    /// GPU threads, each summing a contiguous chunk of `ceil(n / w)` values; the CPU's split
    /// whenever `w` divides `n`), the tree once per order (fixed launch shape). The flags of
    /// the stochastic results go to the report's GPU section. `progress` is called before each
    /// (size, range) block.
    ///
    /// # Errors
    ///
    /// [`GpuSumError::NoGpuMethod`], or [`GpuSumError::Failed`] when a compilation, launch or
    /// copy fails.
    pub fn run(
        &self,
        cfg: &GlobalSumConfig,
        progress: &mut dyn FnMut(&str),
    ) -> Result<GpuGlobalSum, GpuSumError> {
        if !GPU_METHODS.iter().any(|m| cfg.methods.contains(m)) {
            return Err(GpuSumError::NoGpuMethod);
        }
        #[cfg(feature = "gpu")]
        {
            gpu::run(&self.gpu, cfg, progress)
        }
        #[cfg(not(feature = "gpu"))]
        {
            let _ = progress;
            match self.never {}
        }
    }
}

/// Mean of `|result|` over the shuffled orders of one device cell (`workers` is ignored for
/// [`GpuMode::Tree`]).
#[must_use]
pub fn gpu_mean_abs_shuffled(
    rows: &[GpuSumRow],
    size: usize,
    range: usize,
    workers: usize,
    method: Method,
    mode: GpuMode,
) -> Option<f64> {
    let v: Vec<f64> = rows
        .iter()
        .filter(|r| {
            r.size == size
                && r.range == range
                && r.method == method
                && r.mode == mode
                && r.workers.is_none_or(|w| w == workers)
                && matches!(r.order, Order::Shuffled(_))
        })
        .map(|r| r.outcome.value.abs())
        .collect();
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

fn gpu_row(
    rows: &[GpuSumRow],
    size: usize,
    range: usize,
    workers: usize,
    order: Order,
    method: Method,
    mode: GpuMode,
) -> Option<&GpuSumRow> {
    rows.iter().find(|r| {
        r.size == size
            && r.range == range
            && r.order == order
            && r.method == method
            && r.mode == mode
            && r.workers.is_none_or(|w| w == workers)
    })
}

fn cpu_row(
    rows: &[GlobalSumRow],
    size: usize,
    range: usize,
    workers: usize,
    order: Order,
    method: Method,
) -> Option<&GlobalSumRow> {
    rows.iter().find(|r| {
        r.size == size
            && r.range == range
            && r.workers == workers
            && r.order == order
            && r.method == method
    })
}

/// The device section of the global-sum report, in markdown: per (size, range, workers) a
/// table of seed 000's layout with, for each method, the CPU result next to the three device
/// modes; seed 001's mean `|error|` summary the same way; and the device times.
#[must_use]
pub fn global_sum_gpu_report(
    cfg: &GlobalSumConfig,
    cpu: &[GlobalSumRow],
    gpu: &GpuGlobalSum,
) -> String {
    let methods: Vec<Method> = GPU_METHODS
        .into_iter()
        .filter(|m| cfg.methods.contains(m))
        .collect();
    let mut out = format!("\n## GPU: {}\n\n", gpu.device);
    out.push_str(
        "Same arrays and orders as the CPU tables. `partials`: `w` workers are `w` GPU threads, \
         each summing a contiguous chunk of ceil(n/w) values in order (the CPU workers' split \
         when w divides n), the host adding the partial sums in thread order; `atomic`: the \
         same chunks added on the device with atomics (order not repeatable); `tree`: block \
         tree reduction (256-thread blocks, ceil(n/256) blocks up to 1024, relaunched until one \
         value is left), whose launch shape does not depend on the worker count, so its column \
         repeats across the worker tables. float/double: plain round-to-nearest kernels \
         (FMA contraction off); Sf32/Sf64: the stochastic kernels of `kernels/stoch_sum.cu`, \
         with one random stream per launch from the device's base seed (`STOCH_SEED`, or \
         stoch-gpu's default), the flags of each result in the stoch report's GPU section.\n",
    );
    let header = |out: &mut String, first: &str| {
        let _ = write!(out, "{first}");
        for m in &methods {
            let _ = write!(out, " {} CPU |", m.label());
            for mode in GpuMode::ALL {
                let _ = write!(out, " {} GPU {} |", m.label(), mode.label());
            }
        }
        out.push('\n');
    };
    for &size in &cfg.sizes {
        for &range in &cfg.ranges {
            for &workers in &cfg.workers {
                let _ = writeln!(
                    out,
                    "\n#### GPU: {size} elements, {workers} thread{}, range {} (expected result 0)\n",
                    if workers == 1 { "" } else { "s" },
                    RANGES[range].label()
                );
                header(&mut out, "| Sorting |");
                let _ = write!(out, "|---|");
                for _ in 0..methods.len() * 4 {
                    let _ = write!(out, "---:|");
                }
                out.push('\n');
                for &order in &cfg.orders {
                    let _ = write!(out, "| {} |", order.label());
                    for &m in &methods {
                        let c = cpu_row(cpu, size, range, workers, order, m)
                            .map_or_else(|| "-".into(), |r| cell(&r.outcome));
                        let _ = write!(out, " {c} |");
                        for mode in GpuMode::ALL {
                            let c = gpu_row(&gpu.rows, size, range, workers, order, m, mode)
                                .map_or_else(|| "-".into(), |r| cell(&r.outcome));
                            let _ = write!(out, " {c} |");
                        }
                    }
                    out.push('\n');
                }
            }
        }
    }
    let _ = writeln!(
        out,
        "\n### GPU: mean |error| over the shuffled orders (seed 001's bars)\n"
    );
    header(&mut out, "| size | range | threads |");
    let _ = write!(out, "|---:|---|---:|");
    for _ in 0..methods.len() * 4 {
        let _ = write!(out, "---:|");
    }
    out.push('\n');
    for &size in &cfg.sizes {
        for &range in &cfg.ranges {
            for &workers in &cfg.workers {
                let _ = write!(out, "| {size} | {} | {workers} |", RANGES[range].label());
                for &m in &methods {
                    let v = mean_abs_shuffled(cpu, size, range, workers, m);
                    let _ = write!(out, " {} |", v.map_or_else(|| "-".into(), sci));
                    for mode in GpuMode::ALL {
                        let v = gpu_mean_abs_shuffled(&gpu.rows, size, range, workers, m, mode);
                        let _ = write!(out, " {} |", v.map_or_else(|| "-".into(), sci));
                    }
                }
                out.push('\n');
            }
        }
    }
    let _ = writeln!(
        out,
        "\n### GPU: time per element (ns), mean over the orders\n\nDevice: the launches and the \
         copy of the result back (not the upload). CPU: the same workers as real threads.\n"
    );
    let _ = writeln!(
        out,
        "| size | method | mode | threads | partial sums | GPU ns/element | CPU ns/element |\n|---:|---|---|---:|---:|---:|---:|"
    );
    let mean = |v: Vec<f64>| (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64);
    for &size in &cfg.sizes {
        for &m in &methods {
            for mode in GpuMode::ALL {
                let counts: Vec<Option<usize>> = match mode {
                    GpuMode::Tree => vec![None],
                    _ => cfg.workers.iter().map(|&w| Some(w)).collect(),
                };
                for w in counts {
                    let sel: Vec<&GpuSumRow> = gpu
                        .rows
                        .iter()
                        .filter(|r| {
                            r.size == size && r.method == m && r.mode == mode && r.workers == w
                        })
                        .collect();
                    let Some(t) = mean(sel.iter().map(|r| r.outcome.seconds).collect()) else {
                        continue;
                    };
                    let parts = sel.first().map_or(0, |r| r.partial_sums);
                    let cpu_t = w.and_then(|w| {
                        mean(
                            cpu.iter()
                                .filter(|r| r.size == size && r.method == m && r.workers == w)
                                .map(|r| r.outcome.seconds)
                                .collect(),
                        )
                    });
                    let ns = |s: f64| format!("{:.2}", s * 1e9 / size as f64);
                    let _ = writeln!(
                        out,
                        "| {size} | {} | {} | {} | {parts} | {} | {} |",
                        m.label(),
                        mode.label(),
                        w.map_or_else(|| "fixed".into(), |w| w.to_string()),
                        ns(t),
                        cpu_t.map_or_else(|| "-".into(), ns)
                    );
                }
            }
        }
    }
    out
}

#[cfg(feature = "gpu")]
#[path = "repro_gpu.rs"]
pub mod gpu;

// ------------------------------------------------------------------------------------------
// Do/undo (seed 000)
// ------------------------------------------------------------------------------------------

/// A do/undo trial: `x` and `y` magnitude intervals (seed 000, §V.C).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Trial {
    /// Interval of `|x|`.
    pub x: (f64, f64),
    /// Interval of `|y|`.
    pub y: (f64, f64),
}

/// The paper's three trials: x, y in (1,100); x in (1e5,1e6), y in (1e-6,1e-5); x in
/// (1e-6,1e-5), y in (1e5,1e6).
pub const TRIALS: [Trial; 3] = [
    Trial {
        x: (1.0, 100.0),
        y: (1.0, 100.0),
    },
    Trial {
        x: (1e5, 1e6),
        y: (1e-6, 1e-5),
    },
    Trial {
        x: (1e-6, 1e-5),
        y: (1e5, 1e6),
    },
];

/// Which operation is done and undone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DoUndoOp {
    /// `x = (x * y) / y`
    MulDiv,
    /// `x = (x / y) * y`
    DivMul,
}

impl DoUndoOp {
    /// `"*,/"` or `"/,*"`.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            DoUndoOp::MulDiv => "x=(x*y)/y",
            DoUndoOp::DivMul => "x=(x/y)*y",
        }
    }
}

/// The number type of a do/undo run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// `f32`.
    Float,
    /// `f64`.
    Double,
    /// Composite `f32` pair, Figures 4-5 of seed 000 (division as printed in the paper).
    Float2,
    /// Composite `f32` pair with the slides' division (Karp's quotient, FMA remainder).
    Float2Karp,
    /// Normalised `f32` double word.
    DoubleWord,
    /// Stochastic `f32`.
    StochFloat,
    /// Stochastic `f64`.
    StochDouble,
    /// The composite pair of Figures 4-5 over stochastic `f32` (its DSA digits).
    StochFloat2,
    /// The normalised double word over stochastic `f32` (its DSA digits).
    StochDoubleWord,
}

impl Kind {
    /// Every kind.
    pub const ALL: [Kind; 9] = [
        Kind::Float,
        Kind::Double,
        Kind::Float2,
        Kind::Float2Karp,
        Kind::DoubleWord,
        Kind::StochFloat,
        Kind::StochDouble,
        Kind::StochFloat2,
        Kind::StochDoubleWord,
    ];

    /// Label for tables and plots.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            Kind::Float => "float",
            Kind::Double => "double",
            Kind::Float2 => "float2 (fig. 5)",
            Kind::Float2Karp => "float2 (karp)",
            Kind::DoubleWord => "double-word f32",
            Kind::StochFloat => "Sf32",
            Kind::StochDouble => "Sf64",
            Kind::StochFloat2 => "float2 of Sf32",
            Kind::StochDoubleWord => "double-word of Sf32",
        }
    }
}

/// Operands of one do/undo run: the start value and the `y` of each iteration, all
/// `f32`-representable so every type starts from the same numbers.
#[derive(Clone, Debug)]
pub struct DoUndoInput {
    /// Start value.
    pub x0: f32,
    /// One `y` per iteration.
    pub ys: Vec<f32>,
}

/// Draws `x0` and `iterations` values of `y` for `trial` (random signs).
#[must_use]
pub fn do_undo_input(trial: &Trial, iterations: usize, seed: u64) -> DoUndoInput {
    let mut rng = Rng::new(seed);
    let x0 = (rng.sign() * rng.uniform(trial.x.0, trial.x.1)) as f32;
    let ys = (0..iterations)
        .map(|_| (rng.sign() * rng.uniform(trial.y.0, trial.y.1)) as f32)
        .collect();
    DoUndoInput { x0, ys }
}

/// One do/undo run.
#[derive(Clone, Debug)]
pub struct DoUndoRun {
    /// The number type.
    pub kind: Kind,
    /// The operation pair.
    pub op: DoUndoOp,
    /// `(iteration, relative drift (x_i - x_0)/x_0)` at `checkpoints` evenly spaced points
    /// (the last one is the final value).
    pub drift: Vec<(usize, f64)>,
    /// The final `x` as `f64`.
    pub final_value: f64,
    /// Exact significant digits of the final `x` (stochastic kinds only).
    pub digits: Option<u32>,
    /// Seconds for the iterations.
    pub seconds: f64,
}

impl DoUndoRun {
    /// The final relative drift `(x_n - x_0)/x_0`.
    #[must_use]
    pub fn final_drift(&self) -> f64 {
        self.drift.last().map_or(0.0, |d| d.1)
    }
}

/// Iterates `step` over the `ys`, recording the drift at `checkpoints` points.
fn iterate<X: Copy, Y: Copy>(
    x0: X,
    ys: &[Y],
    checkpoints: usize,
    step: impl Fn(X, Y) -> X,
    value: impl Fn(X) -> f64,
) -> (X, Vec<(usize, f64)>, f64) {
    let start = value(x0);
    let n = ys.len();
    let every = (n / checkpoints.max(1)).max(1);
    let mut drift = Vec::with_capacity(checkpoints + 1);
    let mut x = x0;
    let t0 = Instant::now();
    for (block, chunk) in ys.chunks(every).enumerate() {
        for &y in chunk {
            x = step(x, y);
        }
        let done = block * every + chunk.len();
        drift.push((done, (value(x) - start) / start));
    }
    (x, drift, t0.elapsed().as_secs_f64())
}

/// Runs `x = (x op y) op⁻¹ y` over `input.ys` in number type `kind`.
#[must_use]
pub fn do_undo(kind: Kind, op: DoUndoOp, input: &DoUndoInput, checkpoints: usize) -> DoUndoRun {
    macro_rules! run {
        ($x0:expr, $conv:expr, $mul:expr, $div:expr, $val:expr) => {{
            let conv = $conv;
            let ys: Vec<_> = input.ys.iter().map(|&y| conv(y)).collect();
            let (x, drift, seconds) = match op {
                DoUndoOp::MulDiv => {
                    iterate($x0, &ys, checkpoints, |x, y| $div($mul(x, y), y), $val)
                }
                DoUndoOp::DivMul => {
                    iterate($x0, &ys, checkpoints, |x, y| $mul($div(x, y), y), $val)
                }
            };
            (x, drift, seconds)
        }};
    }
    let x0 = input.x0;
    let (final_value, drift, seconds, digits) = match kind {
        Kind::Float => {
            let (x, d, s) = run!(
                x0,
                |y: f32| y,
                |a: f32, b| a * b,
                |a: f32, b| a / b,
                |x: f32| x as f64
            );
            (x as f64, d, s, None)
        }
        Kind::Double => {
            let (x, d, s) = run!(
                x0 as f64,
                |y: f32| y as f64,
                |a: f64, b| a * b,
                |a: f64, b| a / b,
                |x: f64| x
            );
            (x, d, s, None)
        }
        Kind::Float2 => {
            let (x, d, s) = run!(
                Composite::from_value(x0),
                Composite::from_value,
                |a: Composite<f32>, b| a.mul(b),
                |a: Composite<f32>, b| a.div(b),
                |x: Composite<f32>| x.to_f64()
            );
            (x.to_f64(), d, s, None)
        }
        Kind::Float2Karp => {
            let (x, d, s) = run!(
                Composite::from_value(x0),
                Composite::from_value,
                |a: Composite<f32>, b| a.mul(b),
                |a: Composite<f32>, b| a.div_karp(b),
                |x: Composite<f32>| x.to_f64()
            );
            (x.to_f64(), d, s, None)
        }
        Kind::DoubleWord => {
            let (x, d, s) = run!(
                DoubleWord::from_value(x0),
                |y: f32| y,
                |a: DoubleWord<f32>, b| a.mul_fp(b),
                |a: DoubleWord<f32>, b| a / DoubleWord::from_value(b),
                |x: DoubleWord<f32>| x.to_f64()
            );
            (x.to_f64(), d, s, None)
        }
        Kind::StochFloat | Kind::StochDouble | Kind::StochFloat2 | Kind::StochDoubleWord => {
            return stochastic::do_undo(kind, op, input, checkpoints)
        }
    };
    DoUndoRun {
        kind,
        op,
        drift,
        final_value,
        digits,
        seconds,
    }
}

// ------------------------------------------------------------------------------------------
// Lennard-Jones forces (seed 002)
// ------------------------------------------------------------------------------------------

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
fn pair_setup(s: &LjSystem, i: usize, j: usize) -> (f32, f32) {
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

// ------------------------------------------------------------------------------------------
// The stochastic types (DSA digits of each experiment)
// ------------------------------------------------------------------------------------------

#[path = "repro_stochastic.rs"]
mod stochastic;
