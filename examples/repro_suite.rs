//! The reproducibility suite of the source papers (seeds 000-003), rerun on this machine.
//!
//! ```text
//! cargo run --release --example repro_suite -- global-sum [--sizes 1000,10000] [--ranges 0,1,2,3|all]
//!                                   [--workers 1,10,100,1000] [--methods float,double,...]
//!                                   [--seed N] [--out DIR] [--gpu]
//! cargo run --release --example repro_suite -- do-undo [--iterations 1000000] [--trials 1,2,3]
//!                                   [--repeats 3] [--seed N] [--out DIR]
//! cargo run --release --example repro_suite -- forces [--n 2048] [--seed N] [--out DIR]
//! ```
//!
//! `global-sum --gpu` also sums float, double, Sf32 and Sf64 on the device (root package built
//! with `--features gpu`; `stoch-gpu`, kernels of `kernels/stoch_sum.cu` and plain twins) in the
//! three modes of the seed papers (partial sums finished on the host, atomics, tree reduction),
//! `w` workers being `w` GPU threads, and adds a GPU section (CPU next to GPU) to the tables, the
//! report and the charts. Without the feature or without a device it prints one line saying
//! why and runs the CPU part.
//!
//! Each subcommand prints its tables, shows progress on stderr, and writes `report.md` and
//! SVG charts into `--out` (default `target/repro_suite/<subcommand>`). The experiments live in
//! `stoch::repro`, where the tests call them.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use stoch::repro::{
    accumulation_digits, do_undo, do_undo_input, dsa_digits_report, forces_report,
    global_sum_gpu_report, global_sum_report, gpu_mean_abs_shuffled, gpu_skip_line, lj_system,
    mean_abs_shuffled, run_dsa_digits, run_forces, run_global_sum, sci, DoUndoOp, ForceMethod,
    GlobalSumConfig, GlobalSumGpu, GlobalSumRow, GpuGlobalSum, GpuMode, GpuSumError, Kind, Method,
    RANGES, TRIALS,
};

#[path = "repro_suite/plots.rs"]
mod plots;

const USAGE: &str = "usage: repro_suite <global-sum|do-undo|forces> [options]
  global-sum  --sizes 1000,10000,...  --ranges 0,1,2,3|all  --workers 1,10,100,1000
              --methods float,double,float2,double2,kahan,neumaier,pairwise,takahashi-iitaka,
                        nitadori,mod-nitadori,narumi,double-word,reproducible,Sf32,Sf64,
                        Sf32-kahan,Sf32-float2,Sf64-kahan,Sf64-double2
              --seed N  --out DIR  --gpu
  do-undo     --iterations 1000000  --trials 1,2,3  --repeats 3  --seed N  --out DIR
  forces      --n 2048  --seed N  --out DIR";

type Res<T = ()> = Result<T, Box<dyn std::error::Error>>;

/// `--name value` options after the subcommand, plus flags.
struct Args {
    values: HashMap<String, String>,
    flags: Vec<String>,
}

impl Args {
    fn parse(raw: &[String]) -> Res<Self> {
        let mut values = HashMap::new();
        let mut flags = Vec::new();
        let mut it = raw.iter().peekable();
        while let Some(a) = it.next() {
            let Some(name) = a.strip_prefix("--") else {
                return Err(format!("unexpected argument `{a}`\n{USAGE}").into());
            };
            if name == "gpu" {
                flags.push(name.to_string());
                continue;
            }
            let v = it
                .next()
                .ok_or_else(|| format!("option --{name} needs a value\n{USAGE}"))?;
            values.insert(name.to_string(), v.clone());
        }
        Ok(Self { values, flags })
    }

    fn list<T: std::str::FromStr + Clone>(&self, name: &str, default: &[T]) -> Res<Vec<T>> {
        match self.values.get(name) {
            None => Ok(default.to_vec()),
            Some(s) => s
                .split(',')
                .map(|x| {
                    x.trim()
                        .replace('_', "")
                        .parse::<T>()
                        .map_err(|_| format!("--{name}: cannot parse `{x}`").into())
                })
                .collect(),
        }
    }

    fn one<T: std::str::FromStr + Clone>(&self, name: &str, default: T) -> Res<T> {
        Ok(self.list(name, &[default])?.remove(0))
    }

    /// Rejects options the subcommand does not know.
    fn only(&self, known: &[&str]) -> Res {
        match self.values.keys().find(|k| !known.contains(&k.as_str())) {
            Some(k) => Err(format!("unknown option --{k}\n{USAGE}").into()),
            None => Ok(()),
        }
    }

    fn out(&self, sub: &str) -> PathBuf {
        self.values.get("out").map_or_else(
            || Path::new("target").join("repro_suite").join(sub),
            PathBuf::from,
        )
    }
}

fn progress(start: Instant) -> impl FnMut(&str) {
    move |msg| eprintln!("[{:7.1}s] {msg}", start.elapsed().as_secs_f64())
}

fn main() {
    let raw: Vec<String> = std::env::args().skip(1).collect();
    if raw.iter().any(|a| a == "--help" || a == "-h") {
        println!("{USAGE}");
        return;
    }
    let result = match raw.first().map(String::as_str) {
        Some("global-sum") => Args::parse(&raw[1..]).and_then(|a| global_sum_cmd(&a)),
        Some("do-undo") => Args::parse(&raw[1..]).and_then(|a| do_undo_cmd(&a)),
        Some("forces") => Args::parse(&raw[1..]).and_then(|a| forces_cmd(&a)),
        Some("help") => {
            println!("{USAGE}");
            Ok(())
        }
        _ => Err(USAGE.into()),
    };
    if let Err(e) = result {
        eprintln!("error: {e}");
        std::process::exit(2);
    }
}

fn write_report(dir: &Path, title: &str, body: &str) -> Res {
    std::fs::create_dir_all(dir)?;
    let path = dir.join("report.md");
    std::fs::write(&path, format!("# {title}\n\n{body}"))?;
    eprintln!("report: {}", path.display());
    Ok(())
}

fn machine() -> String {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    format!(
        "{} {} with {cores} hardware threads; release build: {}",
        std::env::consts::OS,
        std::env::consts::ARCH,
        !cfg!(debug_assertions)
    )
}

// ---------------------------------------------------------------------------------------------

fn global_sum_cmd(a: &Args) -> Res {
    a.only(&["sizes", "ranges", "workers", "methods", "seed", "out"])?;
    let defaults = GlobalSumConfig::default();
    let ranges: Vec<usize> = match a.values.get("ranges").map(String::as_str) {
        Some("all") => (0..RANGES.len()).collect(),
        _ => a.list("ranges", &defaults.ranges)?,
    };
    if let Some(&r) = ranges.iter().find(|&&r| r >= RANGES.len()) {
        return Err(format!("--ranges: no range {r} (0 to {})", RANGES.len() - 1).into());
    }
    let methods = match a.values.get("methods") {
        None => defaults.methods.clone(),
        Some(s) => s
            .split(',')
            .map(|m| Method::parse(m.trim()).ok_or_else(|| format!("--methods: unknown `{m}`")))
            .collect::<Result<Vec<_>, _>>()?,
    };
    let cfg = GlobalSumConfig {
        sizes: a.list("sizes", &defaults.sizes)?,
        ranges,
        workers: a.list("workers", &defaults.workers)?,
        methods,
        orders: defaults.orders.clone(),
        seed: a.one("seed", defaults.seed)?,
    };
    if cfg.workers.contains(&0) || cfg.sizes.contains(&0) {
        return Err("--workers and --sizes must be positive".into());
    }
    let mut notes = String::new();
    let skipped = |e: &GpuSumError, notes: &mut String| {
        let line = gpu_skip_line(e);
        eprintln!("{line}");
        let _ = writeln!(notes, "> {line}\n");
    };
    // Open the device first, so that the reason it cannot be used is the first line printed.
    let device = if a.flags.iter().any(|f| f == "gpu") {
        match GlobalSumGpu::open() {
            Ok(g) => {
                eprintln!("--gpu: running on {}", g.device());
                Some(g)
            }
            Err(e) => {
                skipped(&e, &mut notes);
                None
            }
        }
    } else {
        None
    };
    let start = Instant::now();
    let rows = run_global_sum(&cfg, &mut progress(start));
    let gpu = device.and_then(|g| match g.run(&cfg, &mut progress(start)) {
        Ok(r) => Some(r),
        Err(e) => {
            skipped(&e, &mut notes);
            None
        }
    });
    let dsa = run_dsa_digits(&cfg, &mut progress(start));
    let mut tables = global_sum_report(&cfg, &rows);
    tables.push_str(&dsa_digits_report(&dsa));
    if let Some(g) = &gpu {
        tables.push_str(&global_sum_gpu_report(&cfg, &rows, g));
    }
    println!("{tables}");
    let dir = a.out("global-sum");
    std::fs::create_dir_all(&dir)?;
    let mut pics = String::new();
    let plotted: Vec<Method> = [
        Method::Float,
        Method::Double,
        Method::Float2,
        Method::Double2,
        Method::Kahan,
        Method::TakahashiIitaka,
        Method::Narumi,
        Method::Reproducible,
    ]
    .into_iter()
    .filter(|m| cfg.methods.contains(m))
    .collect();
    for &size in &cfg.sizes {
        for &range in &cfg.ranges {
            let groups: Vec<String> = cfg
                .workers
                .iter()
                .map(|&w| format!("{w} thread{}", if w == 1 { "" } else { "s" }))
                .collect();
            let series: Vec<(String, Vec<Option<f64>>)> = plotted
                .iter()
                .map(|&m| {
                    let v = cfg
                        .workers
                        .iter()
                        .map(|&w| mean_abs_shuffled(&rows, size, range, w, m))
                        .collect();
                    (m.label().to_string(), v)
                })
                .collect();
            let name = format!("global-sum-{size}-range{range}.svg");
            plots::grouped_bars_log(
                &dir.join(&name),
                &format!(
                    "Global sum of {size} values, {}: mean |result| over 4 shuffles (exact: 0)",
                    RANGES[range].label()
                ),
                "|result| (log; exact zero drawn at the floor)",
                &groups,
                &series,
                1e-17,
            )?;
            let _ = writeln!(pics, "![{name}]({name})\n");
            if let Some(g) = &gpu {
                let name = format!("global-sum-gpu-{size}-range{range}.svg");
                gpu_plot(&dir.join(&name), &cfg, &rows, g, size, range, &groups)?;
                let _ = writeln!(pics, "![{name}]({name})\n");
            }
        }
    }
    let body = format!(
        "Machine: {}. Seed {}. Data: pairs `x, -x` (exact sum 0), `f32`-representable; the \
         `f32` methods sum the same values as `f32`. Workers are real threads, each summing a \
         contiguous chunk in order; the partial sums are merged in worker order. Narumi and \
         modified Nitadori use the paper's `LARGE = 3·2^20`: outside ±2^20 (terms or partial \
         sums) they leave their design range. Sf32/Sf64 cells (naive, Kahan and the composite \
         pair in stochastic arithmetic) show the mean of the samples and the DSA digits; `@.0` \
         is a computed zero. In the shuffled orders the stochastic sums of this data are noise \
         around 0, computed zeros whose mean of the samples shows their size. Sorted orders can \
         fool DSA: there the small terms meet large partial sums, each such addition rounds to \
         a neighbour of the partial sum, up or down at random, so every sample moves by about \
         half an ulp of the partial sum per term (far more than the term) and in the same \
         direction for a run of same-sign terms; the samples drift together and agree on a \
         wrong value, and a few sorted-order cells (e.g. Sf32, Sf64 or Sf32-float2, at some \
         worker counts) claim 1 or 2 digits (`[1 dig]`, `[2 dig]`) where the exact sum is 0: \
         the known bias of random rounding under systematic absorption, not significant digits. The last \
         table adds one `1.0` to the data, so that the DSA digits of each method can be set \
         against its correct digits.\n\n{notes}{pics}\n\
         {tables}",
        machine(),
        cfg.seed
    );
    write_report(&dir, "Global summation (seeds 000, 001, 003)", &body)
}

/// The device chart of one (size, range): for float and double, the CPU bar next to the three
/// device modes (mean |result| over the shuffled orders), per worker count.
fn gpu_plot(
    path: &Path,
    cfg: &GlobalSumConfig,
    rows: &[GlobalSumRow],
    gpu: &GpuGlobalSum,
    size: usize,
    range: usize,
    groups: &[String],
) -> Res {
    let mut series: Vec<(String, Vec<Option<f64>>)> = Vec::new();
    for m in [Method::Float, Method::Double]
        .into_iter()
        .filter(|m| cfg.methods.contains(m))
    {
        series.push((
            format!("{} CPU", m.label()),
            cfg.workers
                .iter()
                .map(|&w| mean_abs_shuffled(rows, size, range, w, m))
                .collect(),
        ));
        for mode in GpuMode::ALL {
            series.push((
                format!("{} GPU {}", m.label(), mode.label()),
                cfg.workers
                    .iter()
                    .map(|&w| gpu_mean_abs_shuffled(&gpu.rows, size, range, w, m, mode))
                    .collect(),
            ));
        }
    }
    if series.is_empty() {
        return Ok(());
    }
    plots::grouped_bars_log(
        path,
        &format!(
            "GPU ({}) vs CPU, {size} values, {}: mean |result| over 4 shuffles (exact: 0)",
            gpu.device,
            RANGES[range].label()
        ),
        "|result| (log; exact zero drawn at the floor)",
        groups,
        &series,
        1e-17,
    )
}

// ---------------------------------------------------------------------------------------------

fn mean_sd(v: &[f64]) -> (f64, f64) {
    let n = v.len().max(1) as f64;
    let m = v.iter().sum::<f64>() / n;
    let var = if v.len() > 1 {
        v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (n - 1.0)
    } else {
        0.0
    };
    (m, var.sqrt())
}

fn do_undo_cmd(a: &Args) -> Res {
    a.only(&["iterations", "trials", "repeats", "seed", "out"])?;
    if a.flags.iter().any(|f| f == "gpu") {
        return Err("--gpu applies to global-sum only".into());
    }
    let iterations: usize = a.one("iterations", 1_000_000)?;
    let trials: Vec<usize> = a.list("trials", &[1, 2, 3])?;
    let repeats: usize = a.one("repeats", 3)?.max(1);
    let seed: u64 = a.one("seed", 2010)?;
    if let Some(t) = trials.iter().find(|&&t| t == 0 || t > TRIALS.len()) {
        return Err(format!("--trials: no trial {t} (1 to 3)").into());
    }
    let dir = a.out("do-undo");
    std::fs::create_dir_all(&dir)?;
    let start = Instant::now();
    let mut log = progress(start);
    let mut drift_table = String::from(
        "| trial | operation | type | final x | relative drift | drift per iteration | digits (DSA) |\n|---|---|---|---:|---:|---:|---:|\n",
    );
    let mut time_table = String::from(
        "| trial | operation | type | avg (s) | stdv (s) | vs float |\n|---|---|---|---:|---:|---:|\n",
    );
    let mut pics = String::new();
    for &t in &trials {
        let trial = TRIALS[t - 1];
        let input = do_undo_input(&trial, iterations, seed + t as u64);
        for op in [DoUndoOp::MulDiv, DoUndoOp::DivMul] {
            log(&format!(
                "do-undo trial {t}, {}: {iterations} iterations x {} types x {repeats} repeats",
                op.label(),
                Kind::ALL.len()
            ));
            let mut series = Vec::new();
            let mut float_time = None;
            for kind in Kind::ALL {
                let runs: Vec<_> = (0..repeats)
                    .map(|_| do_undo(kind, op, &input, 200))
                    .collect();
                let run = &runs[0];
                let times: Vec<f64> = runs.iter().map(|r| r.seconds).collect();
                let (avg, sd) = mean_sd(&times);
                if kind == Kind::Float {
                    float_time = Some(avg);
                }
                let _ = writeln!(
                    drift_table,
                    "| {t} | {} | {} | {:.9e} | {} | {} | {} |",
                    op.label(),
                    kind.label(),
                    run.final_value,
                    sci(run.final_drift()),
                    sci(run.final_drift() / iterations as f64),
                    run.digits.map_or_else(|| "-".into(), |d| d.to_string())
                );
                let _ = writeln!(
                    time_table,
                    "| {t} | {} | {} | {avg:.4} | {sd:.4} | {} |",
                    op.label(),
                    kind.label(),
                    float_time.map_or_else(|| "-".into(), |f| format!("{:.2}", avg / f))
                );
                series.push((
                    kind.label().to_string(),
                    run.drift.iter().map(|&(i, d)| (i as f64, d)).collect(),
                ));
            }
            let name = format!(
                "do-undo-trial{t}-{}.svg",
                if op == DoUndoOp::MulDiv {
                    "muldiv"
                } else {
                    "divmul"
                }
            );
            plots::lines_log(
                &dir.join(&name),
                &format!(
                    "Trial {t}: {}, x in ({:e},{:e}), y in ({:e},{:e})",
                    op.label(),
                    trial.x.0,
                    trial.x.1,
                    trial.y.0,
                    trial.y.1
                ),
                "iteration",
                "|relative drift| (log; 0 drawn at 1e-18)",
                &series,
                1e-18,
            )?;
            let _ = writeln!(pics, "![{name}]({name})\n");
        }
    }
    println!("{drift_table}\n{time_table}");
    let body = format!(
        "Machine: {}. Seed {seed}, {iterations} iterations, timings over {repeats} repeats in one \
         run (Table VI layout). `x0` and every `y` are `f32` values with random signs, the same \
         for every type. Drift = (x_n - x_0)/x_0 in `f64`. float2 (fig. 5) is seed 000's \
         division as printed (IEEE evaluation, no FMA); float2 (karp) is the slides' division \
         with an FMA remainder.\n\n## Drift\n\n{drift_table}\n## Timing\n\n{time_table}\n{pics}",
        machine()
    );
    write_report(&dir, "Do/undo programs (seed 000)", &body)
}

// ---------------------------------------------------------------------------------------------

fn forces_cmd(a: &Args) -> Res {
    a.only(&["n", "seed", "out"])?;
    if a.flags.iter().any(|f| f == "gpu") {
        return Err("--gpu applies to global-sum only".into());
    }
    let n: usize = a.one("n", 2048)?;
    let seed: u64 = a.one("seed", 2008)?;
    if n < 2 {
        return Err("--n must be at least 2".into());
    }
    let start = Instant::now();
    let sys = lj_system(n, seed);
    let rows = run_forces(&sys, &ForceMethod::ALL, &mut progress(start));
    let table = forces_report(&rows);
    println!("{table}");
    let subset = n.min(256);
    progress(start)(&format!(
        "forces: DSA digits of each accumulation ({subset} particles)"
    ));
    let mut dsa = String::from(
        "| accumulation of the same f32 pair forces in Sf32 | mean digits (DSA, max 7) |\n|---|---:|\n",
    );
    for (name, d) in accumulation_digits(&sys, subset) {
        let _ = writeln!(dsa, "| {name} | {d:.2} |");
    }
    println!("{dsa}");
    let dir = a.out("forces");
    std::fs::create_dir_all(&dir)?;
    let groups: Vec<String> = rows
        .iter()
        .map(|r| r.method.label().split(' ').next().unwrap_or("").to_string())
        .collect();
    let series = vec![
        (
            "average error (eq. 10)".to_string(),
            rows.iter().map(|r| Some(r.error)).collect(),
        ),
        (
            "accumulation error (against exact sums of the f32 forces)".to_string(),
            rows.iter().map(|r| Some(r.accumulation_error)).collect(),
        ),
        (
            "average offset (eq. 11)".to_string(),
            rows.iter().map(|r| Some(r.offset)).collect(),
        ),
    ];
    plots::grouped_bars_log(
        &dir.join("forces.svg"),
        &format!("Lennard-Jones forces, N = {n}, no cutoff: error and offset per method"),
        "relative (log; exact zero drawn at the floor)",
        &groups,
        &series,
        1e-20,
    )?;
    let body = format!(
        "Machine: {}. N = {n} particles, seed {seed}, 16 random atom types (System 2 style), \
         jittered lattice, all N(N-1) pairwise forces without cutoff. Error: eq. 10 against \
         method G (so it includes the error of the f32 pairwise forces); accumulation error: \
         eq. 10 against the exact sums of the same f32 pairwise forces; offset: eq. 11 with the \
         numerator summed exactly. F is Figure 8 as printed (truncating cast); F' rounds the \
         low part to nearest.\n\n![forces.svg](forces.svg)\n\n{table}\n\n## DSA: digits kept by \
         each accumulation\n\nThe f32 pairwise forces of the first {subset} particles, as exact \
         stochastic values, accumulated in `Sf32` by each generic method; the mean number of \
         exact significant digits of the results.\n\n{dsa}",
        machine()
    );
    write_report(&dir, "Force accumulation (seed 002)", &body)
}
