//! Counting instabilities per kind and per source site, and the report at the end of a run.
//!
//! Recording is the rare path: it takes one process-wide lock, so counts are exact whatever the
//! number of threads. Memory is bounded: after `max_sites` distinct sites, further sites are
//! counted in one overflow bucket.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::io::Write;
use std::panic::Location;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock};

use serde::{Deserialize, Serialize};

use crate::config::{self, Config, ReportMode};
use crate::instability::{Event, Instability};
use crate::StochFloat;

type Hook = Arc<dyn Fn(&Event) + Send + Sync>;

#[derive(Default)]
struct State {
    counts: [u64; 7],
    sites: HashMap<(usize, &'static Location<'static>), u64>,
    overflow_events: u64,
    collapses: HashMap<&'static Location<'static>, u64>,
    collapse_total: u64,
    collapse_overflow: u64,
    gpu: BTreeMap<(String, usize), u64>,
}

static STATE: Mutex<Option<State>> = Mutex::new(None);
static HOOK: RwLock<Option<Hook>> = RwLock::new(None);
static HAS_HOOK: AtomicBool = AtomicBool::new(false);
static PRINTED: AtomicBool = AtomicBool::new(false);

fn state() -> MutexGuard<'static, Option<State>> {
    STATE.lock().unwrap_or_else(|e| e.into_inner())
}

/// A function a debugger can break on: called once for every instability event, after it is
/// counted. It does nothing else. In gdb or lldb: `break stoch_instability_breakpoint`.
#[no_mangle]
#[inline(never)]
pub extern "Rust" fn stoch_instability_breakpoint(event: &Event) {
    std::hint::black_box(event);
}

/// Installs a hook called on every instability event (kind, site, operands' samples), on the
/// thread that performed the operation. Replaces any previous hook.
///
/// ```
/// use std::sync::atomic::{AtomicUsize, Ordering};
/// use std::sync::Arc;
/// use stoch_core::Sf64;
/// let seen = Arc::new(AtomicUsize::new(0));
/// let s = seen.clone();
/// stoch_core::set_hook(move |e| {
///     assert_eq!(e.kind, stoch_core::Instability::Division);
///     s.fetch_add(1, Ordering::Relaxed);
/// });
/// let noise = Sf64::from_samples([1e-17, -1e-17, 2e-17]);
/// let _ = Sf64::new(1.0) / noise;
/// stoch_core::clear_hook();
/// assert_eq!(seen.load(Ordering::Relaxed), 1);
/// # stoch_core::reset();
/// ```
pub fn set_hook(hook: impl Fn(&Event) + Send + Sync + 'static) {
    *HOOK.write().unwrap_or_else(|e| e.into_inner()) = Some(Arc::new(hook));
    HAS_HOOK.store(true, Ordering::Release);
}

/// Removes the hook installed by [`set_hook`].
pub fn clear_hook() {
    HAS_HOOK.store(false, Ordering::Release);
    *HOOK.write().unwrap_or_else(|e| e.into_inner()) = None;
}

/// Records one instability of `kind` at `loc` (the one counting entry point).
#[cold]
#[inline(never)]
pub(crate) fn record<T: StochFloat>(
    kind: Instability,
    loc: &'static Location<'static>,
    ops: &[&[T; 3]],
) {
    config::ensure_init();
    let max = config::MAX_SITES.load(Ordering::Relaxed) as usize;
    {
        let mut g = state();
        let st = g.get_or_insert_with(State::default);
        st.counts[kind.index()] += 1;
        let key = (kind.index(), loc);
        if let Some(c) = st.sites.get_mut(&key) {
            *c += 1;
        } else if st.sites.len() < max {
            st.sites.insert(key, 1);
        } else {
            st.overflow_events += 1;
        }
    }
    let mut operands = [[f64::NAN; 3]; 2];
    for (o, s) in operands.iter_mut().zip(ops) {
        *o = s.map(|x| x.to_f64());
    }
    let event = Event {
        kind,
        location: loc,
        operands,
        operand_count: ops.len().min(2),
    };
    stoch_instability_breakpoint(&event);
    if HAS_HOOK.load(Ordering::Acquire) {
        let hook = HOOK.read().unwrap_or_else(|e| e.into_inner()).clone();
        if let Some(h) = hook {
            h(&event);
        }
    }
    if config::PANIC_ON.load(Ordering::Relaxed) & kind.bit() != 0 {
        panic!(
            "stoch: {} at {}:{}:{} (STOCH_PANIC_ON)",
            kind.description(),
            loc.file(),
            loc.line(),
            loc.column()
        );
    }
}

/// Records an accuracy collapse at `loc`.
#[cold]
#[inline(never)]
pub(crate) fn record_collapse(loc: &'static Location<'static>) {
    config::ensure_init();
    let max = config::MAX_SITES.load(Ordering::Relaxed) as usize;
    let mut g = state();
    let st = g.get_or_insert_with(State::default);
    st.collapse_total += 1;
    if let Some(c) = st.collapses.get_mut(&loc) {
        *c += 1;
    } else if st.collapses.len() < max {
        st.collapses.insert(loc, 1);
    } else {
        st.collapse_overflow += 1;
    }
}

/// Adds instabilities found on a GPU to the report's GPU section: `count` elements of the
/// output of `kernel` carry the flag of `kind`. Used by `stoch-gpu`.
///
/// ```
/// use stoch_core::{record_gpu, report, Instability};
/// record_gpu("matmul", Instability::Multiplication, 3);
/// assert_eq!(report().gpu_count(Instability::Multiplication), 3);
/// # stoch_core::reset();
/// ```
pub fn record_gpu(kernel: &str, kind: Instability, count: u64) {
    if count == 0 {
        return;
    }
    let mut g = state();
    let st = g.get_or_insert_with(State::default);
    *st.gpu
        .entry((kernel.to_string(), kind.index()))
        .or_insert(0) += count;
}

/// Clears every counter, site and GPU count, and allows [`finish`] to print again (for tests).
pub fn reset() {
    *state() = None;
    PRINTED.store(false, Ordering::Relaxed);
}

/// One source location where instabilities of one kind occurred.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Site {
    /// The kind.
    pub kind: Instability,
    /// Source file, as the compiler names it.
    pub file: String,
    /// Line, from 1.
    pub line: u32,
    /// Column, from 1.
    pub column: u32,
    /// How many times.
    pub count: u64,
}

/// One source location where a significant value became a computed zero.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CollapseSite {
    /// Source file.
    pub file: String,
    /// Line, from 1.
    pub line: u32,
    /// Column, from 1.
    pub column: u32,
    /// How many times.
    pub count: u64,
}

/// Instabilities flagged on a GPU for one kernel and kind.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GpuCount {
    /// The kernel's name.
    pub kernel: String,
    /// The kind.
    pub kind: Instability,
    /// Elements flagged.
    pub count: u64,
}

/// A snapshot of the instabilities found so far.
///
/// JSON schema (`serde_json::to_string(&report)`), all fields always present:
///
/// ```text
/// {
///   "total": u64,                        // CPU instabilities, all kinds
///   "counts": { "division": u64, "multiplication": u64, "power": u64, "branching": u64,
///               "intrinsic": u64, "math_function": u64, "cancellation": u64 },
///   "self_validation_failed": bool,      // any division, multiplication or power instability
///   "sites": [ { "kind": "cancellation", "file": str, "line": u32, "column": u32,
///                "count": u64 } ],       // most frequent first
///   "overflow_events": u64,              // events at sites beyond max_sites
///   "collapses": [ { "file": str, "line": u32, "column": u32, "count": u64 } ],
///   "collapse_total": u64,               // all collapses, kept sites and overflow
///   "collapse_overflow": u64,            // collapses at sites beyond max_sites
///   "gpu": [ { "kernel": str, "kind": "division", "count": u64 } ],
///   "config": { "seed": u64, "cancel_level": u32,
///               "detect": [kind],            // kinds checked, plus "collapse"
///               "report": "text" | "json" | "off" | { "json_file": str },
///               "max_sites": usize, "confidence": f64,
///               "panic_on": [kind] },        // kinds that panic at their first event
///   "hardware_fma": bool                 // false: random rounding ran the slow software
///                                        // path (no FMA in the build, no AVX-512 in the CPU)
/// }
/// ```
///
/// A `kind` is one of `"division"`, `"multiplication"`, `"power"`, `"branching"`,
/// `"intrinsic"`, `"math_function"`, `"cancellation"` ([`Instability::name`]), the same
/// names as in the text report and in `STOCH_DETECT`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    total: u64,
    counts: BTreeMap<Instability, u64>,
    self_validation_failed: bool,
    sites: Vec<Site>,
    overflow_events: u64,
    collapses: Vec<CollapseSite>,
    collapse_total: u64,
    collapse_overflow: u64,
    gpu: Vec<GpuCount>,
    config: Config,
    hardware_fma: bool,
}

/// Takes a snapshot of the counters.
///
/// ```
/// use stoch_core::{report, Instability, Sf64};
/// let noise = Sf64::from_samples([1e-17, -1e-17, 2e-17]);
/// let _ = Sf64::new(1.0) / noise;
/// let r = report();
/// assert_eq!(r.count(Instability::Division), 1);
/// assert!(r.self_validation_failed());
/// # stoch_core::reset();
/// ```
#[must_use]
pub fn report() -> Report {
    let config = config::current();
    let g = state();
    let empty = State::default();
    let st = g.as_ref().unwrap_or(&empty);
    let mut sites: Vec<Site> = st
        .sites
        .iter()
        .map(|(&(k, loc), &count)| Site {
            kind: Instability::ALL[k],
            file: loc.file().to_string(),
            line: loc.line(),
            column: loc.column(),
            count,
        })
        .collect();
    sites.sort_by(|a, b| {
        b.count.cmp(&a.count).then_with(|| {
            (&a.file, a.line, a.column, a.kind).cmp(&(&b.file, b.line, b.column, b.kind))
        })
    });
    let mut collapses: Vec<CollapseSite> = st
        .collapses
        .iter()
        .map(|(loc, &count)| CollapseSite {
            file: loc.file().to_string(),
            line: loc.line(),
            column: loc.column(),
            count,
        })
        .collect();
    collapses.sort_by(|a, b| {
        b.count
            .cmp(&a.count)
            .then_with(|| (&a.file, a.line, a.column).cmp(&(&b.file, b.line, b.column)))
    });
    let counts = Instability::ALL
        .iter()
        .map(|k| (*k, st.counts[k.index()]))
        .collect();
    let gpu = st
        .gpu
        .iter()
        .map(|((kernel, k), &count)| GpuCount {
            kernel: kernel.clone(),
            kind: Instability::ALL[*k],
            count,
        })
        .collect();
    Report {
        total: st.counts.iter().sum(),
        counts,
        self_validation_failed: Instability::ALL
            .iter()
            .any(|k| k.breaks_self_validation() && st.counts[k.index()] > 0),
        sites,
        overflow_events: st.overflow_events,
        collapses,
        collapse_total: st.collapse_total,
        collapse_overflow: st.collapse_overflow,
        gpu,
        config,
        hardware_fma: !crate::rounding::slow_software_path(),
    }
}

impl Report {
    /// Instabilities of `kind` found on the CPU.
    #[must_use]
    pub fn count(&self, kind: Instability) -> u64 {
        self.counts.get(&kind).copied().unwrap_or(0)
    }

    /// All CPU instabilities.
    #[must_use]
    pub fn total(&self) -> u64 {
        self.total
    }

    /// Sites, most frequent first.
    #[must_use]
    pub fn sites(&self) -> &[Site] {
        &self.sites
    }

    /// Events at sites beyond the configured maximum number of sites.
    #[must_use]
    pub fn overflow_events(&self) -> u64 {
        self.overflow_events
    }

    /// Accuracy collapses, most frequent first.
    #[must_use]
    pub fn collapses(&self) -> &[CollapseSite] {
        &self.collapses
    }

    /// Number of accuracy collapses.
    #[must_use]
    pub fn collapse_total(&self) -> u64 {
        self.collapse_total
    }

    /// Accuracy collapses at sites beyond the configured maximum number of sites (counted in
    /// [`collapse_total`](Report::collapse_total), not in [`collapses`](Report::collapses)).
    #[must_use]
    pub fn collapse_overflow(&self) -> u64 {
        self.collapse_overflow
    }

    /// Whether a division, multiplication or power instability invalidated the estimate
    /// (CPU or GPU).
    #[must_use]
    pub fn self_validation_failed(&self) -> bool {
        self.self_validation_failed
            || self
                .gpu
                .iter()
                .any(|g| g.kind.breaks_self_validation() && g.count > 0)
    }

    /// GPU elements flagged with `kind`, all kernels together.
    #[must_use]
    pub fn gpu_count(&self, kind: Instability) -> u64 {
        self.gpu
            .iter()
            .filter(|g| g.kind == kind)
            .map(|g| g.count)
            .sum()
    }

    /// The GPU section: counts per kernel and kind.
    #[must_use]
    pub fn gpu(&self) -> &[GpuCount] {
        &self.gpu
    }

    /// The configuration in force when the snapshot was taken.
    #[must_use]
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The report as JSON (see the schema on [`Report`]).
    #[must_use]
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
    }

    /// Sites shown by `Display`.
    const SHOWN_SITES: usize = 20;
}

fn plural(n: u64, word: &str) -> String {
    if n == 1 {
        format!("{n} {word}")
    } else if let Some(stem) = word.strip_suffix('y') {
        format!("{n} {stem}ies")
    } else {
        format!("{n} {word}s")
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let rule = "-".repeat(72);
        writeln!(f, "{rule}")?;
        writeln!(
            f,
            "stoch {}: Discrete Stochastic Arithmetic, 3 samples, confidence {}%, seed {:#x}",
            env!("CARGO_PKG_VERSION"),
            // At most 6 decimals, trailing zeros trimmed (99.73, not 99.72999999999999).
            format!("{:.6}", self.config.get_confidence() * 100.0)
                .trim_end_matches('0')
                .trim_end_matches('.'),
            self.config.get_seed()
        )?;
        if self.total == 0 {
            writeln!(f, "No instability detected.")?;
        } else {
            writeln!(
                f,
                "{} detected:",
                plural(self.total, "numerical instability")
            )?;
            for k in Instability::ALL {
                let n = self.count(k);
                if n > 0 {
                    writeln!(f, "  {:>10}  {}", n, k.description())?;
                }
            }
        }
        let off: Vec<&str> = Instability::ALL
            .iter()
            .filter(|k| !self.config.detects(**k))
            .map(|k| k.name())
            .collect();
        if !off.is_empty() {
            writeln!(f, "Not checked: {}.", off.join(", "))?;
        }
        if self.config.detects(Instability::Cancellation) {
            writeln!(
                f,
                "Cancellation level: {} digits.",
                self.config.get_cancel_level()
            )?;
        }
        if self.self_validation_failed() {
            writeln!(
                f,
                "CRITICAL: self-validation failed (unstable division, multiplication or power):\n\
                 the estimated digits may be wrong; fix these first."
            )?;
        }
        if !self.sites.is_empty() {
            writeln!(f, "Sites (most frequent first):")?;
            for s in self.sites.iter().take(Self::SHOWN_SITES) {
                writeln!(
                    f,
                    "  {}:{}:{}  {}  {}",
                    s.file, s.line, s.column, s.kind, s.count
                )?;
            }
            if self.sites.len() > Self::SHOWN_SITES {
                writeln!(
                    f,
                    "  ... {} more sites (see the JSON report)",
                    self.sites.len() - Self::SHOWN_SITES
                )?;
            }
        }
        if self.overflow_events > 0 {
            writeln!(
                f,
                "  {} beyond the limit of {} sites (STOCH_MAX_SITES)",
                plural(self.overflow_events, "further event"),
                self.config.get_max_sites()
            )?;
        }
        if self.collapse_total > 0 {
            writeln!(
                f,
                "{} (a significant value became a computed zero):",
                plural(self.collapse_total, "accuracy collapse")
            )?;
            for s in self.collapses.iter().take(Self::SHOWN_SITES) {
                writeln!(f, "  {}:{}:{}  {}", s.file, s.line, s.column, s.count)?;
            }
            if self.collapses.len() > Self::SHOWN_SITES {
                writeln!(
                    f,
                    "  ... {} more sites (see the JSON report)",
                    self.collapses.len() - Self::SHOWN_SITES
                )?;
            }
            if self.collapse_overflow > 0 {
                writeln!(
                    f,
                    "  {} beyond the limit of {} sites (STOCH_MAX_SITES)",
                    plural(self.collapse_overflow, "further collapse"),
                    self.config.get_max_sites()
                )?;
            }
        }
        if !self.gpu.is_empty() {
            writeln!(f, "GPU (elements flagged per kernel):")?;
            for g in &self.gpu {
                writeln!(f, "  {}  {}  {}", g.kernel, g.kind, g.count)?;
            }
        }
        if !self.hardware_fma {
            writeln!(
                f,
                "Note: built without hardware FMA (and this processor has no AVX-512); random \
                 rounding runs a slower software path.\n\
                 Build with RUSTFLAGS=\"-C target-cpu=native\" (or -C target-feature=+fma)."
            )?;
        }
        write!(f, "{rule}")
    }
}

/// Writes the report as configured (text or JSON on stderr, JSON to a file, or nothing), once
/// per process: later calls do nothing until [`reset`].
pub fn finish() {
    if PRINTED.swap(true, Ordering::AcqRel) {
        return;
    }
    let r = report();
    match r.config.get_report().clone() {
        ReportMode::Off => {}
        ReportMode::Text => {
            let _ = writeln!(std::io::stderr().lock(), "{r}");
        }
        ReportMode::Json => {
            let _ = writeln!(std::io::stderr().lock(), "{}", r.to_json());
        }
        ReportMode::JsonFile(path) => {
            if let Err(e) = std::fs::write(&path, r.to_json()) {
                let _ = writeln!(
                    std::io::stderr().lock(),
                    "stoch: cannot write the report to {}: {e}; printing it here\n{r}",
                    path.display()
                );
            }
        }
    }
}

/// Applies `config` and returns a guard that prints the report when dropped, also when the
/// thread unwinds from a panic.
///
/// `config` is applied as given: the `STOCH_*` environment variables are not read. Start from
/// [`Config::from_env`] to let them in. A variable that is set but not in force is named on
/// stderr (`stoch: STOCH_SEED=7 is not applied: ...`), so that nothing is ignored silently.
///
/// ```
/// use stoch_core::{Config, ReportMode};
/// // The environment's settings, then the program's own choices on top.
/// let config = Config::from_env().expect("valid STOCH_* variables").report(ReportMode::Off);
/// let _guard = stoch_core::init(config);
/// ```
#[must_use = "the report is printed when the guard is dropped"]
pub fn init(config: Config) -> Guard {
    config::warn_unknown_env();
    let unapplied = config.env_not_applied(|k| std::env::var(k).ok());
    if !unapplied.is_empty() {
        let _ = writeln!(
            std::io::stderr().lock(),
            "stoch: {} not applied: stoch_core::init was given an explicit configuration \
             (build it from Config::from_env() to honour the environment)",
            unapplied.join(", ") + if unapplied.len() == 1 { " is" } else { " are" }
        );
    }
    config.apply();
    Guard { _private: () }
}

/// Prints the report when dropped (see [`init`]).
#[derive(Debug)]
pub struct Guard {
    _private: (),
}

impl Drop for Guard {
    fn drop(&mut self) {
        finish();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample_report() -> Report {
        let mut counts = BTreeMap::new();
        for k in Instability::ALL {
            counts.insert(k, 0);
        }
        counts.insert(Instability::Division, 2);
        counts.insert(Instability::Cancellation, 5);
        Report {
            total: 7,
            counts,
            self_validation_failed: true,
            sites: vec![
                Site {
                    kind: Instability::Cancellation,
                    file: "src/main.rs".into(),
                    line: 12,
                    column: 9,
                    count: 5,
                },
                Site {
                    kind: Instability::Division,
                    file: "src/lib.rs".into(),
                    line: 3,
                    column: 17,
                    count: 2,
                },
            ],
            overflow_events: 0,
            collapses: vec![CollapseSite {
                file: "src/main.rs".into(),
                line: 20,
                column: 5,
                count: 1,
            }],
            collapse_total: 1,
            collapse_overflow: 0,
            gpu: vec![GpuCount {
                kernel: "matmul".into(),
                kind: Instability::Multiplication,
                count: 4,
            }],
            config: Config::default().seed(42),
            hardware_fma: true,
        }
    }

    #[test]
    fn golden_text() {
        let want = format!(
            "{rule}
stoch {v}: Discrete Stochastic Arithmetic, 3 samples, confidence 95%, seed 0x2a
7 numerical instabilities detected:
           2  unstable division
           5  cancellation
Cancellation level: 4 digits.
CRITICAL: self-validation failed (unstable division, multiplication or power):
the estimated digits may be wrong; fix these first.
Sites (most frequent first):
  src/main.rs:12:9  cancellation  5
  src/lib.rs:3:17  division  2
1 accuracy collapse (a significant value became a computed zero):
  src/main.rs:20:5  1
GPU (elements flagged per kernel):
  matmul  multiplication  4
{rule}",
            rule = "-".repeat(72),
            v = env!("CARGO_PKG_VERSION")
        );
        assert_eq!(sample_report().to_string(), want);
    }

    #[test]
    fn golden_text_clean() {
        let mut r = sample_report();
        r.total = 0;
        r.counts.values_mut().for_each(|c| *c = 0);
        r.self_validation_failed = false;
        r.sites.clear();
        r.collapses.clear();
        r.collapse_total = 0;
        r.gpu.clear();
        r.config = r.config.disable(Instability::Branching);
        let text = r.to_string();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[2], "No instability detected.");
        assert_eq!(lines[3], "Not checked: branching.");
        assert_eq!(lines.len(), 6);
    }

    #[test]
    fn golden_json_document() {
        // Every field, in the order of the schema on `Report`; the configuration's kind lists
        // and report mode in their JSON forms.
        let mut r = sample_report();
        r.collapse_total = 3;
        r.collapse_overflow = 2;
        r.overflow_events = 6;
        r.config = r
            .config
            .disable(Instability::Branching)
            .panic_on(Instability::Division)
            .report(ReportMode::JsonFile("out/report.json".into()));
        let want = r#"{
  "total": 7,
  "counts": {
    "division": 2,
    "multiplication": 0,
    "power": 0,
    "branching": 0,
    "intrinsic": 0,
    "math_function": 0,
    "cancellation": 5
  },
  "self_validation_failed": true,
  "sites": [
    {
      "kind": "cancellation",
      "file": "src/main.rs",
      "line": 12,
      "column": 9,
      "count": 5
    },
    {
      "kind": "division",
      "file": "src/lib.rs",
      "line": 3,
      "column": 17,
      "count": 2
    }
  ],
  "overflow_events": 6,
  "collapses": [
    {
      "file": "src/main.rs",
      "line": 20,
      "column": 5,
      "count": 1
    }
  ],
  "collapse_total": 3,
  "collapse_overflow": 2,
  "gpu": [
    {
      "kernel": "matmul",
      "kind": "multiplication",
      "count": 4
    }
  ],
  "config": {
    "seed": 42,
    "cancel_level": 4,
    "detect": [
      "division",
      "multiplication",
      "power",
      "intrinsic",
      "math_function",
      "cancellation",
      "collapse"
    ],
    "report": {
      "json_file": "out/report.json"
    },
    "max_sites": 1000,
    "confidence": 0.95,
    "panic_on": [
      "division"
    ]
  },
  "hardware_fma": true
}"#;
        let json = r.to_json();
        assert_eq!(json, want);
        let back: Report = serde_json::from_str(&json).unwrap();
        assert_eq!(back, r);
        // The text report names the collapses beyond the site limit.
        assert!(
            r.to_string()
                .contains("  2 further collapses beyond the limit of 1000 sites"),
            "{r}"
        );
    }

    #[test]
    fn unknown_kind_in_json_config_is_an_error() {
        let json = sample_report()
            .to_json()
            .replace("\"panic_on\": []", "\"panic_on\": [\"divisions_by_zero\"]");
        let err = serde_json::from_str::<Report>(&json).unwrap_err();
        assert!(err.to_string().contains("divisions_by_zero"), "{err}");
    }

    #[test]
    fn env_variables_not_in_an_explicit_config_are_named() {
        let get = |k: &str| match k {
            "STOCH_SEED" => Some("7".to_string()),
            "STOCH_REPORT" => Some("off".to_string()),
            _ => None,
        };
        let cfg = Config::default().seed(7);
        assert_eq!(
            cfg.env_not_applied(get),
            vec!["STOCH_REPORT=off".to_string()]
        );
        let from_env = Config::default().merge_env(get).unwrap();
        assert!(from_env.env_not_applied(get).is_empty());
        assert!(Config::default().env_not_applied(|_| None).is_empty());
    }

    #[test]
    fn golden_json() {
        let json = sample_report().to_json();
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(v["total"], 7);
        assert_eq!(v["counts"]["division"], 2);
        assert_eq!(v["counts"]["math_function"], 0);
        assert_eq!(v["counts"]["cancellation"], 5);
        assert_eq!(v["self_validation_failed"], true);
        assert_eq!(v["sites"][0]["kind"], "cancellation");
        assert_eq!(v["sites"][0]["line"], 12);
        assert_eq!(v["collapses"][0]["line"], 20);
        assert_eq!(v["gpu"][0]["kernel"], "matmul");
        assert_eq!(v["config"]["seed"], 42);
        assert_eq!(v["config"]["report"], "text");
        let back: Report = serde_json::from_str(&json).unwrap();
        assert_eq!(back, sample_report());
    }
}
