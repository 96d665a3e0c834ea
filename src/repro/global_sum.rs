//! Global summation (seeds 000, 001 and 003): data, orders, methods, the experiment and its tables.

use std::fmt::Write as _;
use std::time::Instant;

use stoch_core::accum::{
    sum_parallel, Accumulator, CompositeSum, DoubleWordSum, Kahan, ModifiedNitadori, Naive, Narumi,
    Neumaier, Nitadori, Pairwise, ReproducibleSum, TakahashiIitaka,
};

use super::rng::Rng;
use super::stochastic;

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

pub(super) fn run_acc<A, T>(xs: &[T], workers: usize, out: impl Fn(T) -> f64) -> SumOutcome
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

pub(super) fn cell(o: &SumOutcome) -> String {
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
