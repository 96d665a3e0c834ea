//! Configuration: a builder, environment variables, and the process-wide settings the hot path
//! reads (plain relaxed atomics: no lock on any arithmetic operation).

use std::fmt;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use crate::instability::Instability;
use crate::runtime::state::{self, CANCEL_LEVEL, DETECT};

/// Where and how the report is written at the end of a run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReportMode {
    /// Human-readable text on stderr (the default).
    Text,
    /// JSON on stderr.
    Json,
    /// JSON written to a file.
    JsonFile(PathBuf),
    /// No report.
    Off,
}

/// Bit of the detection mask for accuracy collapses (a significant value becoming a computed
/// zero in one operation); the seven kinds use bits 0-6.
pub(crate) use crate::runtime::state::COLLAPSE_BIT;

/// Settings of a stochastic run.
///
/// Build one with [`Config::default`] or [`Config::from_env`], adjust it with the builder
/// methods, and apply it with [`init`](crate::init).
///
/// # Examples
///
/// ```
/// use stoch_core::{Config, Instability, ReportMode};
/// let cfg = Config::default()
///     .seed(1234)
///     .cancel_level(3)
///     .disable(Instability::Branching)
///     .report(ReportMode::Off);
/// assert_eq!(cfg.get_cancel_level(), 3);
/// assert!(!cfg.detects(Instability::Branching));
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Config {
    seed: u64,
    cancel_level: u32,
    #[serde(with = "kind_list")]
    detect: u8,
    report: ReportMode,
    max_sites: usize,
    confidence: f64,
    #[serde(with = "kind_list")]
    panic_on: u8,
}

/// A kind mask in JSON: the list of the kinds' names in report order (`"division"`, ...,
/// `"cancellation"`), then `"collapse"` for accuracy collapses.
mod kind_list {
    use serde::de::Error as _;
    use serde::{Deserialize, Deserializer, Serializer};

    use super::COLLAPSE_BIT;
    use crate::instability::Instability;

    pub(super) fn serialize<S: Serializer>(mask: &u8, s: S) -> Result<S::Ok, S::Error> {
        let kinds = Instability::ALL
            .iter()
            .filter(|k| mask & k.bit() != 0)
            .map(|k| k.name());
        let collapse = (mask & COLLAPSE_BIT != 0).then_some("collapse");
        s.collect_seq(kinds.chain(collapse))
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u8, D::Error> {
        let names = Vec::<String>::deserialize(d)?;
        names.iter().try_fold(0u8, |mask, n| {
            if n == "collapse" {
                Ok(mask | COLLAPSE_BIT)
            } else {
                Instability::from_name(n)
                    .map(|k| mask | k.bit())
                    .ok_or_else(|| {
                        D::Error::custom(format!(
                            "unknown kind {n:?}: expected division, multiplication, power, \
                             branching, intrinsic, math_function, cancellation or collapse"
                        ))
                    })
            }
        })
    }
}

impl Default for Config {
    fn default() -> Self {
        Config {
            seed: crate::runtime::rng::DEFAULT_SEED,
            cancel_level: 4,
            detect: 0xff,
            report: ReportMode::Text,
            max_sites: 1000,
            confidence: 0.95,
            panic_on: 0,
        }
    }
}

/// A configuration value that cannot be used: names the variable, the value and what is accepted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    variable: String,
    value: String,
    expected: String,
}

impl ConfigError {
    fn new(variable: &str, value: &str, expected: impl Into<String>) -> Self {
        ConfigError {
            variable: variable.to_string(),
            value: value.to_string(),
            expected: expected.into(),
        }
    }

    /// The variable (or builder setting) that was rejected.
    #[must_use]
    pub fn variable(&self) -> &str {
        &self.variable
    }

    /// The rejected value.
    #[must_use]
    pub fn value(&self) -> &str {
        &self.value
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "invalid {}={:?}: expected {}",
            self.variable, self.value, self.expected
        )
    }
}

impl std::error::Error for ConfigError {}

const DETECT_EXPECTED: &str = "`all`, `none`, or a comma-separated list of kinds (division, \
multiplication, power, branching, intrinsic, math, cancellation, collapse), each optionally \
prefixed by `-` to switch it off, e.g. `all,-cancellation`";

fn parse_kind_or_collapse(s: &str) -> Option<u8> {
    let t = s.trim().to_ascii_lowercase();
    if t == "collapse" || t == "collapses" {
        return Some(COLLAPSE_BIT);
    }
    Instability::from_name(&t).map(Instability::bit)
}

/// Parses a `STOCH_DETECT` value into a detection mask.
fn parse_detect(var: &str, value: &str) -> Result<u8, ConfigError> {
    let items: Vec<&str> = value
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    if items.is_empty() {
        return Err(ConfigError::new(var, value, DETECT_EXPECTED));
    }
    // A list that starts with a removal starts from everything on.
    let mut mask = if items[0].starts_with('-') { 0xff } else { 0 };
    for item in items {
        let (off, name) = match item.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, item.strip_prefix('+').unwrap_or(item)),
        };
        let bits = match name.to_ascii_lowercase().as_str() {
            "all" => 0xff,
            "none" => {
                if off {
                    return Err(ConfigError::new(var, value, DETECT_EXPECTED));
                }
                mask = 0;
                continue;
            }
            other => parse_kind_or_collapse(other)
                .ok_or_else(|| ConfigError::new(var, value, DETECT_EXPECTED))?,
        };
        if off {
            mask &= !bits;
        } else {
            mask |= bits;
        }
    }
    Ok(mask)
}

fn parse_kinds(var: &str, value: &str) -> Result<u8, ConfigError> {
    const EXPECTED: &str = "a comma-separated list of kinds (division, multiplication, power, \
branching, intrinsic, math, cancellation) or `all`/`none`";
    let mut mask = 0u8;
    for item in value.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        match item.to_ascii_lowercase().as_str() {
            "all" => mask = 0x7f,
            "none" => mask = 0,
            other => {
                mask |= Instability::from_name(other)
                    .ok_or_else(|| ConfigError::new(var, value, EXPECTED))?
                    .bit()
            }
        }
    }
    Ok(mask)
}

impl Config {
    /// The defaults, overridden by the `STOCH_*` environment variables that are set:
    ///
    /// | variable | accepted values | default |
    /// |---|---|---|
    /// | `STOCH_SEED` | an unsigned integer (decimal or `0x` hex) | fixed |
    /// | `STOCH_CANCEL_LEVEL` | 1 to 15 | 4 |
    /// | `STOCH_DETECT` | `all`, `none`, kinds, `-kind`, `collapse` | `all` |
    /// | `STOCH_REPORT` | `text`, `json`, `json:PATH`, `off` | `text` |
    /// | `STOCH_MAX_SITES` | 1 to 1000000 | 1000 |
    /// | `STOCH_CONFIDENCE` | a probability in (0.5, 0.99], e.g. `0.95` | 0.95 |
    /// | `STOCH_PANIC_ON` | kinds, comma-separated | none |
    ///
    /// # Errors
    ///
    /// A [`ConfigError`] naming the first variable whose value is not accepted.
    pub fn from_env() -> Result<Config, ConfigError> {
        Config::default().merge_env(|k| std::env::var(k).ok())
    }

    /// [`merge_env`](Config::merge_env) one variable at a time: every variable with a valid
    /// value is applied, and each bad one gives an error (and leaves its setting as it was).
    /// The lazy initialisation (no [`init`](crate::init)) reads the environment this way.
    ///
    /// ```
    /// use stoch_core::Config;
    /// let env = |k: &str| match k {
    ///     "STOCH_SEED" => Some("seven".to_string()),
    ///     "STOCH_CANCEL_LEVEL" => Some("6".to_string()),
    ///     _ => None,
    /// };
    /// let (cfg, errors) = Config::default().merge_env_each(env);
    /// assert_eq!(cfg.get_cancel_level(), 6);
    /// assert_eq!(errors.len(), 1);
    /// assert!(errors[0].to_string().contains("STOCH_SEED"));
    /// ```
    #[must_use]
    pub fn merge_env_each(
        self,
        get: impl Fn(&str) -> Option<String>,
    ) -> (Config, Vec<ConfigError>) {
        let mut cfg = self;
        let mut errors = Vec::new();
        for var in Self::ENV_VARS {
            let Some(value) = get(var) else { continue };
            match cfg.clone().merge_env(|k| (k == var).then(|| value.clone())) {
                Ok(c) => cfg = c,
                Err(e) => errors.push(e),
            }
        }
        (cfg, errors)
    }

    /// The environment variables that [`merge_env`](Config::merge_env) reads.
    pub const ENV_VARS: [&'static str; 7] = [
        "STOCH_SEED",
        "STOCH_CANCEL_LEVEL",
        "STOCH_DETECT",
        "STOCH_REPORT",
        "STOCH_MAX_SITES",
        "STOCH_CONFIDENCE",
        "STOCH_PANIC_ON",
    ];

    /// The variables set in the environment (through `get`) whose value this configuration
    /// does not hold, as `NAME=value`: what [`init`](crate::init) with this configuration leaves
    /// unapplied.
    pub(crate) fn env_not_applied(&self, get: impl Fn(&str) -> Option<String>) -> Vec<String> {
        Self::ENV_VARS
            .iter()
            .filter_map(|name| {
                let v = get(name)?;
                let applied = self
                    .clone()
                    .merge_env(|k| (k == *name).then(|| v.clone()))
                    .is_ok_and(|c| c == *self);
                (!applied).then(|| format!("{name}={v}"))
            })
            .collect()
    }

    /// Like [`from_env`](Config::from_env) with a custom variable lookup (for tests).
    ///
    /// # Errors
    ///
    /// As [`from_env`](Config::from_env).
    pub fn merge_env(
        mut self,
        get: impl Fn(&str) -> Option<String>,
    ) -> Result<Config, ConfigError> {
        if let Some(v) = get("STOCH_SEED") {
            let t = v.trim();
            let parsed = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
                Some(hex) => u64::from_str_radix(hex, 16),
                None => t.parse::<u64>(),
            };
            self.seed = parsed.map_err(|_| {
                ConfigError::new(
                    "STOCH_SEED",
                    &v,
                    "an unsigned 64-bit integer, decimal or 0x-prefixed hex",
                )
            })?;
        }
        if let Some(v) = get("STOCH_CANCEL_LEVEL") {
            let n = v
                .trim()
                .parse::<u32>()
                .ok()
                .filter(|n| (1..=15).contains(n));
            self.cancel_level = n.ok_or_else(|| {
                ConfigError::new("STOCH_CANCEL_LEVEL", &v, "an integer from 1 to 15")
            })?;
        }
        if let Some(v) = get("STOCH_DETECT") {
            self.detect = parse_detect("STOCH_DETECT", &v)?;
        }
        if let Some(v) = get("STOCH_REPORT") {
            let t = v.trim();
            self.report = match t {
                "text" => ReportMode::Text,
                "json" => ReportMode::Json,
                "off" | "none" => ReportMode::Off,
                _ => match t.strip_prefix("json:") {
                    Some(p) if !p.is_empty() => ReportMode::JsonFile(PathBuf::from(p)),
                    _ => {
                        return Err(ConfigError::new(
                            "STOCH_REPORT",
                            &v,
                            "`text`, `json`, `json:PATH` or `off`",
                        ))
                    }
                },
            };
        }
        if let Some(v) = get("STOCH_MAX_SITES") {
            let n = v
                .trim()
                .parse::<usize>()
                .ok()
                .filter(|n| (1..=1_000_000).contains(n));
            self.max_sites = n.ok_or_else(|| {
                ConfigError::new("STOCH_MAX_SITES", &v, "an integer from 1 to 1000000")
            })?;
        }
        if let Some(v) = get("STOCH_CONFIDENCE") {
            let c = v
                .trim()
                .parse::<f64>()
                .ok()
                .filter(|c| *c > 0.5 && *c <= 0.99);
            self.confidence = c.ok_or_else(|| {
                ConfigError::new(
                    "STOCH_CONFIDENCE",
                    &v,
                    "a probability above 0.5 and at most 0.99, e.g. 0.95",
                )
            })?;
        }
        if let Some(v) = get("STOCH_PANIC_ON") {
            self.panic_on = parse_kinds("STOCH_PANIC_ON", &v)?;
        }
        Ok(self)
    }

    /// Sets the seed of the random rounding.
    #[must_use]
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// Sets the number of lost digits that makes a cancellation (1 to 15; default 4).
    /// Values outside are clamped.
    #[must_use]
    pub fn cancel_level(mut self, level: u32) -> Self {
        self.cancel_level = level.clamp(1, 15);
        self
    }

    /// Switches detection of `kind` on.
    #[must_use]
    pub fn enable(mut self, kind: Instability) -> Self {
        self.detect |= kind.bit();
        self
    }

    /// Switches detection of `kind` off: its check costs nothing any more.
    #[must_use]
    pub fn disable(mut self, kind: Instability) -> Self {
        self.detect &= !kind.bit();
        self
    }

    /// Switches every detection, accuracy collapses included, on or off.
    #[must_use]
    pub fn detect_all(mut self, on: bool) -> Self {
        self.detect = if on { 0xff } else { 0 };
        self
    }

    /// Switches detection of accuracy collapses on or off.
    #[must_use]
    pub fn collapses(mut self, on: bool) -> Self {
        if on {
            self.detect |= COLLAPSE_BIT;
        } else {
            self.detect &= !COLLAPSE_BIT;
        }
        self
    }

    /// Sets where the report goes.
    #[must_use]
    pub fn report(mut self, mode: ReportMode) -> Self {
        self.report = mode;
        self
    }

    /// Sets how many distinct instability sites are kept; further sites go to one overflow
    /// bucket. At least 1.
    #[must_use]
    pub fn max_sites(mut self, n: usize) -> Self {
        self.max_sites = n.max(1);
        self
    }

    /// Sets the confidence level β of the digit estimate (default 0.95). Values outside
    /// (0.5, 0.99] are clamped to [0.51, 0.99]: above 0.99 the computed-zero threshold falls
    /// below the spreads that the cheap pre-tests of every operation rule out as noise (a
    /// relative spread of 1/42 per sample), and instabilities could be missed.
    #[must_use]
    pub fn confidence(mut self, beta: f64) -> Self {
        self.confidence = if beta.is_nan() {
            0.95
        } else {
            beta.clamp(0.51, 0.99)
        };
        self
    }

    /// Panics at the first instability of `kind`, naming its site (for debugging).
    #[must_use]
    pub fn panic_on(mut self, kind: Instability) -> Self {
        self.panic_on |= kind.bit();
        self
    }

    /// The seed.
    #[must_use]
    pub fn get_seed(&self) -> u64 {
        self.seed
    }
    /// The cancellation level.
    #[must_use]
    pub fn get_cancel_level(&self) -> u32 {
        self.cancel_level
    }
    /// Whether `kind` is detected.
    #[must_use]
    pub fn detects(&self, kind: Instability) -> bool {
        self.detect & kind.bit() != 0
    }
    /// Whether accuracy collapses are detected.
    #[must_use]
    pub fn detects_collapses(&self) -> bool {
        self.detect & COLLAPSE_BIT != 0
    }
    /// Where the report goes.
    #[must_use]
    pub fn get_report(&self) -> &ReportMode {
        &self.report
    }
    /// How many distinct sites are kept.
    #[must_use]
    pub fn get_max_sites(&self) -> usize {
        self.max_sites
    }
    /// The confidence level β.
    #[must_use]
    pub fn get_confidence(&self) -> f64 {
        self.confidence
    }

    /// Makes this configuration the process's: seed, detection, thresholds, report mode.
    /// Counters are kept (see [`reset`](crate::reset)).
    pub fn apply(&self) {
        // An explicit configuration replaces the environment's: mark the lazy initialisation
        // done (running it first if another thread is inside it, so this one wins).
        state::mark_initialised();
        self.apply_inner();
    }

    fn apply_inner(&self) {
        *CURRENT.lock().unwrap_or_else(|e| e.into_inner()) = Some(self.clone());
        DETECT.store(self.detect, Ordering::Relaxed);
        #[cfg(all(target_arch = "x86_64", not(target_feature = "avx512f")))]
        crate::runtime::path::set_mode();
        CANCEL_LEVEL.store(self.cancel_level, Ordering::Relaxed);
        // A loss of `level` digits needs |result| < 2·max(|a|,|b|)·10^(1−level); we test with
        // a factor 2 of margin (see `ops::check_add`).
        let factor = 4.0 * 10f64.powi(1 - self.cancel_level as i32);
        #[cfg(not(target_arch = "x86_64"))]
        {
            state::CANCEL_FACTOR.store(factor.to_bits(), Ordering::Relaxed);
            state::CANCEL_FACTOR_F32.store((factor as f32).to_bits(), Ordering::Relaxed);
        }
        #[cfg(target_arch = "x86_64")]
        crate::runtime::tables::set_factors(
            factor,
            self.detect & Instability::Cancellation.bit() != 0,
            self.detect & COLLAPSE_BIT != 0,
        );
        PANIC_ON.store(self.panic_on, Ordering::Relaxed);
        MAX_SITES.store(self.max_sites as u64, Ordering::Relaxed);
        crate::digits::set_confidence(self.confidence);
        crate::runtime::rng::set_seed(self.seed);
    }
}

pub(crate) static PANIC_ON: AtomicU8 = AtomicU8::new(0);
pub(crate) static MAX_SITES: AtomicU64 = AtomicU64::new(1000);
pub(crate) static ENV_ERROR_PRINTED: AtomicBool = AtomicBool::new(false);
static CURRENT: Mutex<Option<Config>> = Mutex::new(None);

/// The configuration in force.
#[must_use]
pub fn current() -> Config {
    state::ensure_init();
    CURRENT
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone()
        .unwrap_or_default()
}

/// Reads the environment, the first time stochastic arithmetic or the report is used without an
/// explicit [`init`](crate::init) (run once by `runtime::state::ensure_init`). A bad value is
/// printed to stderr (once, naming the variable and what it accepts); that setting keeps its
/// default and the other variables are applied.
#[linkme::distributed_slice(state::INIT_HOOKS)]
static READ_ENV: fn() = read_env;

fn read_env() {
    warn_unknown_env();
    let (cfg, errors) = Config::default().merge_env_each(|k| std::env::var(k).ok());
    if !ENV_ERROR_PRINTED.swap(true, Ordering::Relaxed) {
        for e in errors {
            eprintln!("stoch: {e}; that setting keeps its default, the others are applied");
        }
    }
    cfg.apply_inner();
}

/// `STOCH_*` variables read by the workspace's own tools and tests (GPU and NVRTC test
/// switches, seeds of the property tests) and the rounding-path choice `STOCH_PATH`
/// (read once, when the path is chosen), not by the configuration.
const TOOL_VARS: &[&str] = &[
    "STOCH_PATH",
    "STOCH_REQUIRE_AVX2",
    "STOCH_REQUIRE_AVX512",
    "STOCH_REQUIRE_GPU",
    "STOCH_REQUIRE_NVRTC",
    "STOCH_REQUIRE_MPI",
    "STOCH_REQUIRE_CORPUS",
    "STOCH_NVRTC_DIR",
    "STOCH_WORKSPACE",
    "STOCH_TEST_SEED",
    "STOCH_ORACLE_N",
    "STOCH_ORACLE_SHOW",
];

/// One line per `STOCH_*` name in `names` that nothing reads (a misspelling, most likely),
/// with the closest known name when it is near.
pub(crate) fn unknown_env_vars(names: impl Iterator<Item = String>) -> Vec<String> {
    let known = || Config::ENV_VARS.iter().chain(TOOL_VARS.iter());
    names
        .filter(|n| n.starts_with("STOCH_") && !known().any(|k| k == n))
        .map(|n| {
            let near = known()
                .map(|k| (edit_distance(&n, k), *k))
                .min()
                .filter(|(d, _)| *d <= 3);
            match near {
                Some((_, k)) => format!("unknown variable {n} is ignored (did you mean {k}?)"),
                None => format!(
                    "unknown variable {n} is ignored (stoch reads {})",
                    Config::ENV_VARS.join(", ")
                ),
            }
        })
        .collect()
}

/// Levenshtein distance (short names only).
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

/// Prints, once per process, the `STOCH_*` variables of the environment that nothing reads.
pub(crate) fn warn_unknown_env() {
    static WARNED: AtomicBool = AtomicBool::new(false);
    if WARNED.swap(true, Ordering::Relaxed) {
        return;
    }
    for line in unknown_env_vars(std::env::vars_os().filter_map(|(k, _)| k.into_string().ok())) {
        eprintln!("stoch: {line}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The factors' initial values are the ones `apply` stores for the default level, in both
    /// widths.
    #[test]
    fn initial_cancel_factors_are_the_default_levels() {
        let factor = 4.0 * 10f64.powi(1 - Config::default().cancel_level as i32);
        assert_eq!(factor.to_bits(), 0x3F70_624D_D2F1_A9FC);
        assert_eq!((factor as f32).to_bits(), 0x3B83_126F);
        // The run-time AVX-512 path's fused pre-tests start from the same configuration.
        #[cfg(target_arch = "x86_64")]
        {
            let (cancel, collapse) = crate::runtime::tables::DEFAULT_FACTORS;
            assert_eq!(cancel.to_bits(), factor.to_bits());
            assert_eq!(collapse == 1.0, Config::default().detects_collapses());
            assert!(Config::default().detects(Instability::Cancellation));
        }
    }

    fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |k| {
            pairs
                .iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn unknown_variables_are_named_with_the_closest_known_one() {
        let names = [
            "STOCH_SEDE",
            "STOCH_SEED",
            "STOCH_REQUIRE_GPU",
            "STOCH_XYZZY_PLUGH",
            "PATH",
        ];
        let lines = unknown_env_vars(names.iter().map(|s| s.to_string()));
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert_eq!(
            lines[0],
            "unknown variable STOCH_SEDE is ignored (did you mean STOCH_SEED?)"
        );
        assert!(lines[1]
            .starts_with("unknown variable STOCH_XYZZY_PLUGH is ignored (stoch reads STOCH_SEED,"));
        assert_eq!(edit_distance("STOCH_DETECTS", "STOCH_DETECT"), 1);
    }

    #[test]
    fn env_values_parse() {
        let c = Config::default()
            .merge_env(env(&[
                ("STOCH_SEED", "0x10"),
                ("STOCH_CANCEL_LEVEL", "3"),
                ("STOCH_DETECT", "-cancellation,-branching"),
                ("STOCH_REPORT", "json:/tmp/x.json"),
                ("STOCH_MAX_SITES", "5"),
                ("STOCH_PANIC_ON", "division"),
            ]))
            .unwrap();
        assert_eq!(c.get_seed(), 16);
        assert_eq!(c.get_cancel_level(), 3);
        assert!(!c.detects(Instability::Cancellation));
        assert!(!c.detects(Instability::Branching));
        assert!(c.detects(Instability::Division));
        assert!(c.detects_collapses());
        assert_eq!(c.get_report(), &ReportMode::JsonFile("/tmp/x.json".into()));
        assert_eq!(c.get_max_sites(), 5);
        assert_eq!(c.panic_on, Instability::Division.bit());
    }

    #[test]
    fn detect_lists() {
        assert_eq!(parse_detect("V", "none").unwrap(), 0);
        assert_eq!(parse_detect("V", "all").unwrap(), 0xff);
        assert_eq!(
            parse_detect("V", "division,power").unwrap(),
            Instability::Division.bit() | Instability::Power.bit()
        );
        assert_eq!(parse_detect("V", "all,-collapse").unwrap(), !COLLAPSE_BIT);
    }

    #[test]
    fn bad_values_name_the_variable() {
        for (k, v) in [
            ("STOCH_SEED", "-3"),
            ("STOCH_CANCEL_LEVEL", "0"),
            ("STOCH_CANCEL_LEVEL", "abc"),
            ("STOCH_DETECT", "divisions,foo"),
            ("STOCH_REPORT", "xml"),
            ("STOCH_MAX_SITES", "0"),
            ("STOCH_CONFIDENCE", "2"),
            ("STOCH_PANIC_ON", "everything"),
        ] {
            let err = Config::default().merge_env(env(&[(k, v)])).unwrap_err();
            let msg = err.to_string();
            assert!(msg.contains(k), "{msg}");
            assert!(msg.contains(v), "{msg}");
            assert!(msg.contains("expected"), "{msg}");
        }
    }

    #[test]
    fn default_cancel_factor_matches_level_4() {
        assert_eq!(f64::from_bits(0x3F70_624D_D2F1_A9FC), 0.004);
    }
}
