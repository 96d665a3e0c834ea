//! When the report is written: [`finish`], the guard of [`init`], and the `atexit` handler
//! that prints it at the end of any run that found something.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

use super::document::report;
use crate::config::{self, Config, ReportMode};

/// Whether [`finish`] wrote the report (cleared by `reset`, so that it writes again).
pub(super) static PRINTED: AtomicBool = AtomicBool::new(false);

/// Whether the exit-time report is registered.
static EXIT_ARMED: std::sync::Once = std::sync::Once::new();
/// Set by `#[stochastic(report = false)]` on `main`: no report at exit.
static EXIT_REPORT_OFF: AtomicBool = AtomicBool::new(false);

/// Registers, once per process, a handler that prints the report when the process exits
/// (`main` returns, `std::process::exit`, a panic that ends `main`), unless it was printed
/// already ([`finish`], the guard of [`init`] or of `#[stochastic]` on `main`), turned off
/// (`STOCH_REPORT=off`, `report = false`) or has nothing to say. Called at the first event
/// recorded at each new site, so a run that found instabilities always ends with its report,
/// also when its `main` is not annotated.
pub(super) fn arm_exit_report() {
    EXIT_ARMED.call_once(|| {
        // SAFETY: `atexit` takes a plain `extern "C" fn()` with no captured state; the handler
        // catches every panic, so none unwinds into the C library.
        unsafe {
            libc::atexit(exit_report);
        }
    });
}

/// The `atexit` handler (see [`arm_exit_report`]).
extern "C" fn exit_report() {
    let _ = std::panic::catch_unwind(|| {
        if EXIT_REPORT_OFF.load(Ordering::Acquire)
            || PRINTED.load(Ordering::Acquire)
            || *config::current().get_report() == ReportMode::Off
        {
            return;
        }
        let r = report();
        if r.total == 0 && r.collapse_total == 0 && r.inexact_prints == 0 && r.gpu.is_empty() {
            return;
        }
        finish();
    });
}

/// No report at exit from the handler of [`arm_exit_report`] (`report = false` on `main`).
pub(crate) fn exit_report_off() {
    EXIT_REPORT_OFF.store(true, Ordering::Release);
}

/// Writes the report as configured (text or JSON on stderr, JSON to a file, or nothing), once
/// per process: later calls do nothing until [`reset`](super::reset).
pub fn finish() {
    if PRINTED.swap(true, Ordering::AcqRel) {
        return;
    }
    if *config::current().get_report() == ReportMode::Off {
        // Nothing to write: no snapshot (reading the stacks of dependency sites takes time).
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
}
