//! Global summation on the GPU (`--features gpu`, through stoch-gpu), tabulated beside the CPU.

use std::fmt::Write as _;

use super::global_sum::{
    cell, mean_abs_shuffled, sci, GlobalSumConfig, GlobalSumRow, Method, Order, SumOutcome, RANGES,
};

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
    /// the same arrays and orders as [`run_global_sum`](super::run_global_sum), each summed in
    /// the three [`GpuMode`]s, the partial-sum and atomic modes once per worker count (`w` workers = `w`
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
            super::gpu::run(&self.gpu, cfg, progress)
        }
        #[cfg(not(feature = "gpu"))]
        {
            let _ = progress;
            match self.never {}
        }
    }
}

/// The worker counts a mode runs with: each of `cfg.workers` for the chunked modes, one
/// fixed launch shape (`None`) for the tree.
pub(super) fn worker_counts(cfg: &GlobalSumConfig, mode: GpuMode) -> Vec<Option<usize>> {
    match mode {
        GpuMode::Tree => vec![None],
        _ => cfg.workers.iter().map(|&w| Some(w)).collect(),
    }
}

/// The mean of some values, `None` for none.
fn mean(values: impl IntoIterator<Item = f64>) -> Option<f64> {
    let (sum, n) = values
        .into_iter()
        .fold((0.0, 0usize), |(s, n), v| (s + v, n + 1));
    (n > 0).then(|| sum / n as f64)
}

impl GpuSumRow {
    /// Whether the row belongs to the device cell (size, range, workers, method, mode);
    /// `workers` is ignored for [`GpuMode::Tree`].
    fn in_cell(
        &self,
        size: usize,
        range: usize,
        workers: usize,
        method: Method,
        mode: GpuMode,
    ) -> bool {
        self.size == size
            && self.range == range
            && self.method == method
            && self.mode == mode
            && self.workers.is_none_or(|w| w == workers)
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
    mean(
        rows.iter()
            .filter(|r| {
                r.in_cell(size, range, workers, method, mode)
                    && matches!(r.order, Order::Shuffled(_))
            })
            .map(|r| r.outcome.value.abs()),
    )
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
    rows.iter()
        .find(|r| r.order == order && r.in_cell(size, range, workers, method, mode))
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
    // The rule under a header: the first columns', then one right-aligned column per
    // method and device mode (CPU and the three modes).
    let rule = |out: &mut String, first: &str| {
        out.push_str(first);
        out.push_str(&"---:|".repeat(methods.len() * 4));
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
                rule(&mut out, "|---|");
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
    rule(&mut out, "|---:|---|---:|");
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
    for &size in &cfg.sizes {
        for &m in &methods {
            for mode in GpuMode::ALL {
                for w in worker_counts(cfg, mode) {
                    let sel: Vec<&GpuSumRow> = gpu
                        .rows
                        .iter()
                        .filter(|r| {
                            r.size == size && r.method == m && r.mode == mode && r.workers == w
                        })
                        .collect();
                    let Some(t) = mean(sel.iter().map(|r| r.outcome.seconds)) else {
                        continue;
                    };
                    let parts = sel.first().map_or(0, |r| r.partial_sums);
                    let cpu_t = w.and_then(|w| {
                        mean(
                            cpu.iter()
                                .filter(|r| r.size == size && r.method == m && r.workers == w)
                                .map(|r| r.outcome.seconds),
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
