//! The [`Report`] document: its public types, how [`report`] builds it from a snapshot of the
//! counters, its accessors and its JSON form.

use std::collections::BTreeMap;
use std::panic::Location;
use std::sync::atomic::Ordering;

use serde::{Deserialize, Serialize};

use super::gpu::GpuCount;
use super::lock;
use super::record::{INEXACT_FIRST, INEXACT_PRINTS};
use super::recorder::RECORDER;
use super::sites::{helper_at, in_dependency, readable_path};
use crate::config::{self, Config};
use crate::instability::Instability;

/// Declares a public site type: its own leading fields, then the place, count and notes that
/// every site has (in this order, the JSON schema's), and `at`, which fills them from a
/// `Location`.
macro_rules! site_type {
    (
        $(#[$attr:meta])*
        pub struct $name:ident { $($(#[$fattr:meta])* pub $field:ident: $ty:ty,)* }
    ) => {
        $(#[$attr])*
        #[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
        pub struct $name {
            $($(#[$fattr])* pub $field: $ty,)*
            /// Source file: as the compiler names it inside the user's workspace
            /// (`src/main.rs`), and as `crate-version/path` inside a dependency
            /// (`nalgebra-0.35.0/src/linalg/lu.rs`).
            pub file: String,
            /// Line, from 1.
            pub line: u32,
            /// Column, from 1.
            pub column: u32,
            /// How many times.
            pub count: u64,
            /// For a site inside a dependency (or the standard library): the user's own line
            /// that first led there (`src/main.rs:42:13`), found from the stack once per site;
            /// `None` for a site in the user's code, or when the program has no line tables
            /// (release builds without `debug = "line-tables-only"`).
            #[serde(default)]
            pub via: Option<String>,
            /// The name of the small fn (one statement or expression) the site lies in, when
            /// `#[stochastic]` rewrote it without `track_caller`: `#[stochastic(track_caller)]`
            /// would report its callers' lines instead.
            #[serde(default)]
            pub helper: Option<String>,
        }

        impl $name {
            /// The site at `loc`, met `count` times, with its path made readable.
            fn at(loc: &Location<'_>, count: u64, via: Option<String>, $($field: $ty),*) -> Self {
                $name {
                    $($field,)*
                    file: readable_path(loc.file()),
                    line: loc.line(),
                    column: loc.column(),
                    count,
                    via,
                    helper: helper_at(loc),
                }
            }
        }
    };
}

site_type! {
    /// One source location where instabilities of one kind occurred.
    pub struct Site {
        /// The kind.
        pub kind: Instability,
    }
}

site_type! {
    /// One source location where a significant value became a computed zero.
    pub struct CollapseSite {}
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
///                "count": u64,           // most frequent first; file as in Site::file
///                "via": str | null,      // inside a dependency: the user's line (Site::via)
///                "helper": str | null } ], // inside a one-line helper: its name (Site::helper)
///   "overflow_events": u64,              // events at sites beyond max_sites
///   "collapses": [ { "file": str, "line": u32, "column": u32, "count": u64,
///                    "via": str | null, "helper": str | null } ],
///   "collapse_total": u64,               // all collapses, kept sites and overflow
///   "collapse_overflow": u64,            // collapses at sites beyond max_sites
///   "gpu": [ { "kernel": str, "kind": "division", "count": u64 } ],
///   "inexact_prints": u64,               // values printed ({:.p}, {:.pe}) with more
///                                        // significant digits than exact
///   "inexact_print_first": str | null,   // the first of them, and its exact digits
///   "config": { "seed": u64, "cancel_level": u32,
///               "detect": [kind],            // kinds checked, plus "collapse"
///               "report": "text" | "json" | "off" | { "json_file": str },
///               "max_sites": usize, "confidence": f64,
///               "panic_on": [kind] },        // kinds that panic at their first event
///   "hardware_fma": bool,                // false: random rounding ran the slow software
///                                        // path (the portable one, no FMA in the build)
///   "rounding_path": str                 // the path that ran: "portable", "avx2", "avx512"
/// }
/// ```
///
/// A `kind` is one of `"division"`, `"multiplication"`, `"power"`, `"branching"`,
/// `"intrinsic"`, `"math_function"`, `"cancellation"` ([`Instability::name`]), the same
/// names as in the text report and in `STOCH_DETECT`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub(super) total: u64,
    pub(super) counts: BTreeMap<Instability, u64>,
    pub(super) self_validation_failed: bool,
    pub(super) sites: Vec<Site>,
    pub(super) overflow_events: u64,
    pub(super) collapses: Vec<CollapseSite>,
    pub(super) collapse_total: u64,
    pub(super) collapse_overflow: u64,
    pub(super) gpu: Vec<GpuCount>,
    #[serde(default)]
    pub(super) inexact_prints: u64,
    #[serde(default)]
    pub(super) inexact_print_first: Option<String>,
    /// Whether a site inside a dependency has no user's line (the program has no line tables).
    #[serde(skip)]
    pub(super) dependency_site_without_via: bool,
    pub(super) config: Config,
    pub(super) hardware_fma: bool,
    /// The rounding path that ran ([`crate::path::Path::name`]); empty in a report written
    /// before the field existed.
    #[serde(default)]
    pub(super) rounding_path: String,
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
    let snap = RECORDER.snapshot();
    let mut sites: Vec<Site> = snap
        .sites
        .iter()
        .map(|(kind, loc, count, via)| Site::at(loc, *count, via.clone(), *kind))
        .collect();
    sites.sort_by(|a, b| {
        b.count.cmp(&a.count).then_with(|| {
            (&a.file, a.line, a.column, a.kind).cmp(&(&b.file, b.line, b.column, b.kind))
        })
    });
    let mut collapses: Vec<CollapseSite> = snap
        .collapses
        .iter()
        .map(|(loc, count, via)| CollapseSite::at(loc, *count, via.clone()))
        .collect();
    collapses.sort_by(|a, b| {
        b.count
            .cmp(&a.count)
            .then_with(|| (&a.file, a.line, a.column).cmp(&(&b.file, b.line, b.column)))
    });
    let kinds = snap.counts.kinds;
    let counts = Instability::ALL
        .iter()
        .map(|k| (*k, kinds[k.index()]))
        .collect();
    Report {
        total: kinds.iter().sum(),
        counts,
        self_validation_failed: Instability::ALL
            .iter()
            .any(|k| k.breaks_self_validation() && kinds[k.index()] > 0),
        sites,
        overflow_events: snap.counts.overflow_events,
        collapses,
        collapse_total: snap.counts.collapse_total,
        collapse_overflow: snap.counts.collapse_overflow,
        gpu: snap.gpu,
        inexact_prints: INEXACT_PRINTS.load(Ordering::Relaxed),
        inexact_print_first: lock(&INEXACT_FIRST).clone(),
        dependency_site_without_via: snap
            .sites
            .iter()
            .map(|(_, loc, _, via)| (loc, via))
            .chain(snap.collapses.iter().map(|(loc, _, via)| (loc, via)))
            .any(|(loc, via)| via.is_none() && in_dependency(loc.file())),
        config,
        hardware_fma: !crate::arch::slow_software_path(),
        rounding_path: crate::runtime::path::chosen().name().to_string(),
    }
}

impl Report {
    /// The rounding path that ran: `portable`, `avx2` or `avx512` (see [`crate::path`]).
    #[must_use]
    pub fn rounding_path(&self) -> &str {
        &self.rounding_path
    }

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

    /// Values printed with a precision (`{:.p}`, `{:.pe}`) that showed more significant digits
    /// than they have exact. Such a format prints what `f64` prints, so the text keeps its
    /// layout and parses back; this count (and [`inexact_print_first`]) says where that text
    /// claims digits that are not there.
    ///
    /// [`inexact_print_first`]: Report::inexact_print_first
    ///
    /// ```
    /// use stoch_core::{report, Sf64};
    /// let x = Sf64::from_samples([0.330, 0.334, 0.338]); // 2 exact digits
    /// assert_eq!(format!("{x:.5}"), "0.33400");
    /// assert_eq!(format!("{x:.1}"), "0.3"); // one digit: exact
    /// let r = report();
    /// assert_eq!(r.inexact_prints(), 1);
    /// assert_eq!(
    ///     r.inexact_print_first(),
    ///     Some("`{:.5}` printed 0.33400; exact digits: 2, 3.3e-1")
    /// );
    /// # stoch_core::reset();
    /// ```
    #[must_use]
    pub fn inexact_prints(&self) -> u64 {
        self.inexact_prints
    }

    /// The first value counted by [`inexact_prints`](Report::inexact_prints): the format, what
    /// it printed, and the value's exact digits.
    #[must_use]
    pub fn inexact_print_first(&self) -> Option<&str> {
        self.inexact_print_first.as_deref()
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
}

/// A report with two sites, a collapse and a GPU count, for the tests of its text and JSON.
#[cfg(test)]
pub(super) fn sample_report() -> Report {
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
                via: None,
                helper: Some("abs".into()),
            },
            Site {
                kind: Instability::Division,
                file: "src/lib.rs".into(),
                line: 3,
                column: 17,
                count: 2,
                via: None,
                helper: None,
            },
        ],
        overflow_events: 0,
        collapses: vec![CollapseSite {
            file: "src/main.rs".into(),
            line: 20,
            column: 5,
            count: 1,
            via: None,
            helper: None,
        }],
        collapse_total: 1,
        collapse_overflow: 0,
        gpu: vec![GpuCount {
            kernel: "matmul".into(),
            kind: Instability::Multiplication,
            count: 4,
        }],
        inexact_prints: 0,
        inexact_print_first: None,
        dependency_site_without_via: false,
        config: Config::default().seed(42),
        hardware_fma: true,
        rounding_path: "avx512".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ReportMode;

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
      "count": 5,
      "via": null,
      "helper": "abs"
    },
    {
      "kind": "division",
      "file": "src/lib.rs",
      "line": 3,
      "column": 17,
      "count": 2,
      "via": null,
      "helper": null
    }
  ],
  "overflow_events": 6,
  "collapses": [
    {
      "file": "src/main.rs",
      "line": 20,
      "column": 5,
      "count": 1,
      "via": null,
      "helper": null
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
  "inexact_prints": 0,
  "inexact_print_first": null,
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
  "hardware_fma": true,
  "rounding_path": "avx512"
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
