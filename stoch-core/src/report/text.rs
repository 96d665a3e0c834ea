//! The report as text, as `finish` writes it on stderr.

use std::fmt;

use super::document::Report;
use crate::instability::Instability;

/// Sites listed in the text (the JSON report has them all).
const SHOWN_SITES: usize = 20;

/// Writes the first [`SHOWN_SITES`] of `sites`, one a line: `  {place}` as `line` gives it,
/// the user's line that led there and the note on a small helper holding it; then how many
/// more there are.
fn write_sites<S>(
    f: &mut fmt::Formatter<'_>,
    sites: &[S],
    line: impl Fn(&S) -> (String, Option<&str>, Option<&str>),
) -> fmt::Result {
    for s in sites.iter().take(SHOWN_SITES) {
        let (place, via, helper) = line(s);
        write!(f, "  {place}")?;
        if let Some(v) = via {
            write!(f, "  (from {v})")?;
        }
        match helper {
            Some(name) => writeln!(
                f,
                "  (inside the one-line helper `{name}`: #[stochastic(track_caller)] reports \
                 its callers instead)"
            )?,
            None => writeln!(f)?,
        }
    }
    if sites.len() > SHOWN_SITES {
        writeln!(
            f,
            "  ... {} more sites (see the JSON report)",
            sites.len() - SHOWN_SITES
        )?;
    }
    Ok(())
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
            "stoch {}: Discrete Stochastic Arithmetic, 3 samples, confidence {}%, seed {:#x}{}",
            env!("CARGO_PKG_VERSION"),
            // At most 6 decimals, trailing zeros trimmed (99.73, not 99.72999999999999).
            format!("{:.6}", self.config.get_confidence() * 100.0)
                .trim_end_matches('0')
                .trim_end_matches('.'),
            self.config.get_seed(),
            if self.rounding_path.is_empty() {
                String::new()
            } else {
                format!(", {} rounding", self.rounding_path)
            }
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
            write_sites(f, &self.sites, |s| {
                let place = format!(
                    "{}:{}:{}  {}  {}",
                    s.file, s.line, s.column, s.kind, s.count
                );
                (place, s.via.as_deref(), s.helper.as_deref())
            })?;
        }
        // Events at sites beyond the bound, as a line of the list above.
        let beyond = |n, what| {
            let max = self.config.get_max_sites();
            format!(
                "  {} beyond the limit of {max} sites (STOCH_MAX_SITES)",
                plural(n, what)
            )
        };
        if self.overflow_events > 0 {
            writeln!(f, "{}", beyond(self.overflow_events, "further event"))?;
        }
        if self.collapse_total > 0 {
            writeln!(
                f,
                "{} (a significant value became a computed zero):",
                plural(self.collapse_total, "accuracy collapse")
            )?;
            write_sites(f, &self.collapses, |s| {
                let place = format!("{}:{}:{}  {}", s.file, s.line, s.column, s.count);
                (place, s.via.as_deref(), s.helper.as_deref())
            })?;
            if self.collapse_overflow > 0 {
                writeln!(f, "{}", beyond(self.collapse_overflow, "further collapse"))?;
            }
        }
        if self.dependency_site_without_via {
            writeln!(
                f,
                "  (sites inside dependencies name the user's line that led there when the \
                 program has line tables: debug = \"line-tables-only\" in its [profile.release])"
            )?;
        }
        if self.inexact_prints > 0 {
            writeln!(
                f,
                "{} printed with more digits than exact ({{:.p}} prints what f64 prints; {{}} \
                 prints the exact digits only){}",
                plural(self.inexact_prints, "value"),
                self.inexact_print_first
                    .as_deref()
                    .map_or(String::new(), |t| format!(":\n  first: {t}"))
            )?;
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
                "Note: random rounding ran the portable path of a build without hardware FMA \
                 (this processor has neither AVX2 nor AVX-512, or STOCH_PATH=portable asked \
                 for it), a slower software path.\n\
                 Build with RUSTFLAGS=\"-C target-cpu=native\" (or -C target-feature=+fma)."
            )?;
        }
        write!(f, "{rule}")
    }
}

#[cfg(test)]
mod tests {
    use super::super::document::sample_report;
    use super::*;

    #[test]
    fn golden_text() {
        let want = format!(
            "{rule}
stoch {v}: Discrete Stochastic Arithmetic, 3 samples, confidence 95%, seed 0x2a, avx512 rounding
7 numerical instabilities detected:
           2  unstable division
           5  cancellation
Cancellation level: 4 digits.
CRITICAL: self-validation failed (unstable division, multiplication or power):
the estimated digits may be wrong; fix these first.
Sites (most frequent first):
  src/main.rs:12:9  cancellation  5  (inside the one-line helper `abs`: #[stochastic(track_caller)] reports its callers instead)
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

    /// A run on the slow software path says so, why, and how to leave it.
    #[test]
    fn text_names_the_slow_path_and_its_causes() {
        let mut r = sample_report();
        assert!(!r.to_string().contains("slower software path"));
        r.hardware_fma = false;
        let text = r.to_string();
        for part in [
            "build without hardware FMA",
            "STOCH_PATH=portable",
            "slower software path",
            "-C target-cpu=native",
        ] {
            assert!(text.contains(part), "{part:?} missing from:\n{text}");
        }
        assert!(text.ends_with(&"-".repeat(72)), "{text}");
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
}
