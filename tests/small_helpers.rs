//! Issue 29, point 4: a site inside a one-line helper that `#[stochastic]` rewrote without
//! `track_caller` carries a note naming the helper (text and JSON report); under
//! `#[stochastic(track_caller)]` the same helper's site is its caller's line, without the note.
//! One test in this binary: the report is process-wide.

use stoch_core::{report, reset, stochastic, Instability, Site};

#[stochastic]
mod plain {
    /// The line of `diff`'s body below.
    pub const DIFF_LINE: u32 = line!() + 2;
    pub fn diff(a: f64, b: f64) -> f64 {
        a - b
    }

    /// Two statements: not a small helper, so no note.
    pub fn long_diff(a: f64, b: f64) -> f64 {
        let d = a - b;
        d.abs()
    }

    pub fn run() -> (f64, f64, u32) {
        let x = 1.0 + 1e-12;
        let (long, line) = (long_diff(x, 1.0), line!());
        (diff(x, 1.0), long, line)
    }
}

#[stochastic(track_caller)]
mod traced {
    pub fn diff(a: f64, b: f64) -> f64 {
        a - b
    }

    pub fn run() -> (f64, u32) {
        let x = 1.0 + 1e-12;
        (diff(x, 1.0), line!())
    }
}

fn cancellations() -> Vec<Site> {
    report()
        .sites()
        .iter()
        .filter(|s| s.kind == Instability::Cancellation && s.file.ends_with("small_helpers.rs"))
        .cloned()
        .collect()
}

#[test]
fn sites_inside_small_helpers_are_noted() {
    reset();
    let (d, _, long_line) = plain::run();
    assert!(d.digits() < 8, "the subtraction cancels: {d:?}");
    let sites = cancellations();
    assert_eq!(sites.len(), 2, "{sites:?}");
    let helper = sites.iter().find(|s| s.line == plain::DIFF_LINE);
    let helper = helper.unwrap_or_else(|| panic!("no site on diff's line: {sites:?}"));
    assert_eq!(helper.helper.as_deref(), Some("diff"), "{helper:?}");
    let long = sites.iter().find(|s| s.line != plain::DIFF_LINE).unwrap();
    assert_eq!(
        long.helper, None,
        "a two-statement fn is no helper: {long:?}"
    );
    assert!(
        long.line > long_line - 10 && long.line < long_line,
        "{long:?}"
    );
    let text = report().to_string();
    let note = format!(
        "small_helpers.rs:{}:{}  cancellation  1  (inside the one-line helper `diff`: \
         #[stochastic(track_caller)] reports its callers instead)",
        helper.line, helper.column
    );
    assert!(text.contains(&note), "{note:?} missing from:\n{text}");
    let json = report().to_json();
    assert!(json.contains("\"helper\": \"diff\""), "{json}");

    reset();
    let (d, line) = traced::run();
    assert!(d.digits() < 8, "the subtraction cancels: {d:?}");
    let sites = cancellations();
    assert_eq!(sites.len(), 1, "{sites:?}");
    assert_eq!(sites[0].line, line, "the caller's line: {sites:?}");
    assert_eq!(sites[0].helper, None, "{sites:?}");
    assert!(!report().to_string().contains("one-line helper"));
    reset();
}
