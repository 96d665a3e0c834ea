//! The `main` that `#[stochastic]` generates (issue 4): runs `examples/stochastic_main.rs` (built
//! or rebuilt by `tests/common` when needed) in its modes `ok`, `err` and `panic`, and checks
//! that the report is printed exactly once in each, the exit status, the error text, a bad
//! `STOCH_SEED` stopping the program at start, and `STOCH_REPORT=off`. Also runs
//! `examples/stochastic_main_quiet.rs`, the same program under `#[stochastic(report = false)]`,
//! which prints no report in any mode.

mod common;

use std::process::Output;

use common::{stderr, stdout, HEADER};

/// Runs `examples/stochastic_main.rs` with `args` and `env` (no other `STOCH_*` variable).
fn run(args: &[&str], env: &[(&str, &str)]) -> Output {
    common::run("stochastic_main", args, env)
}

/// What the example prints on stdout before it acts on its mode.
const WORK: &str = "rump(10864, 18817): IEEE 2, stochastic @.0";

/// One text report, naming the cancellation of Rump's polynomial in the example.
#[track_caller]
fn assert_one_report(err: &str) {
    assert_eq!(err.matches(HEADER).count(), 1, "stderr:\n{err}");
    assert!(err.contains("cancellation"), "{err}");
    assert!(
        err.contains("examples/shared/main_demo.rs:10:"),
        "the site is the polynomial's line: {err}"
    );
    assert!(err.contains("accuracy collapse"), "{err}");
}

#[test]
fn ok_exits_0_with_one_report() {
    let out = run(&["ok"], &[]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(stdout(&out).trim(), WORK);
    let err = stderr(&out);
    assert_one_report(&err);
    assert!(!err.contains("Error:"), "{err}");
    // The default mode is `ok`.
    let out = run(&[], &[]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_one_report(&stderr(&out));
}

#[test]
fn err_exits_1_with_the_error_and_one_report() {
    let out = run(&["err"], &[]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert_eq!(stdout(&out).trim(), WORK);
    let err = stderr(&out);
    assert_one_report(&err);
    let error = "Error: \"deliberate error (the stochastic result was @.0)\"";
    assert!(err.contains(error), "{err}");
    // The guard is dropped when `main` returns, before the runtime prints the error.
    assert!(
        err.find(HEADER).unwrap() < err.find(error).unwrap(),
        "{err}"
    );
    // Any other `Err`, too.
    let out = run(&["bogus"], &[]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let err = stderr(&out);
    assert!(err.contains("unknown mode \\\"bogus\\\""), "{err}");
    assert_one_report(&err);
}

#[test]
fn panic_exits_101_with_the_message_and_one_report() {
    let out = run(&["panic"], &[]);
    assert_eq!(out.status.code(), Some(101), "{out:?}");
    assert_eq!(stdout(&out).trim(), WORK);
    let err = stderr(&out);
    assert_one_report(&err);
    let message = "deliberate panic (the stochastic result was @.0)";
    assert!(
        err.contains("panicked at examples/shared/main_demo.rs:"),
        "{err}"
    );
    assert!(err.contains(message), "{err}");
    // The panic message comes first, the report while unwinding.
    assert!(
        err.find(message).unwrap() < err.find(HEADER).unwrap(),
        "{err}"
    );
}

#[test]
fn bad_seed_stops_at_start_with_status_2() {
    for mode in ["ok", "err", "panic"] {
        let out = run(&[mode], &[("STOCH_SEED", "abc")]);
        assert_eq!(out.status.code(), Some(2), "{mode}: {out:?}");
        assert_eq!(stdout(&out), "", "{mode}: main's body must not run");
        let err = stderr(&out);
        assert_eq!(
            err.trim(),
            "error: invalid STOCH_SEED=\"abc\": expected an unsigned 64-bit integer, decimal \
             or 0x-prefixed hex",
            "{mode}"
        );
    }
}

#[test]
fn good_seed_is_applied() {
    let out = run(&["ok"], &[("STOCH_SEED", "0x10")]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let err = stderr(&out);
    assert_one_report(&err);
    assert!(err.contains("seed 0x10, "), "{err}");
}

#[test]
fn report_off_prints_nothing() {
    for (mode, code) in [("ok", 0), ("err", 1), ("panic", 101)] {
        let out = run(&[mode], &[("STOCH_REPORT", "off")]);
        assert_eq!(out.status.code(), Some(code), "{mode}: {out:?}");
        assert_eq!(stdout(&out).trim(), WORK, "{mode}");
        let err = stderr(&out);
        assert!(!err.contains(HEADER), "{mode}: {err}");
        assert!(!err.contains("instabilit"), "{mode}: {err}");
        // Only what the runtime itself prints for `Err` or a panic.
        match mode {
            "ok" => assert_eq!(err, "", "{mode}"),
            "err" => assert!(err.starts_with("Error: "), "{err}"),
            _ => assert!(err.contains("deliberate panic"), "{err}"),
        }
    }
}

#[test]
fn misspelled_variable_is_named_at_start() {
    let out = run(&["ok"], &[("STOCH_SEEED", "7")]);
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(
        err.starts_with(
            "stoch: unknown variable STOCH_SEEED is ignored (did you mean STOCH_SEED?)\n"
        ),
        "{err}"
    );
    assert_eq!(err.matches(HEADER).count(), 1, "{err}");
}

/// Runs `examples/stochastic_main_quiet.rs` (`#[stochastic(report = false)]` on `main`).
fn run_quiet(args: &[&str], env: &[(&str, &str)]) -> Output {
    common::run("stochastic_main_quiet", args, env)
}

#[test]
fn report_false_on_main_prints_no_report() {
    // The program with the attribute's default prints the report ...
    let out = run(&["ok"], &[]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_one_report(&stderr(&out));
    // ... the same program under `#[stochastic(report = false)]` does the same work and prints
    // none, however `main` ends, also when `STOCH_REPORT` asks for the text report.
    for env in [&[][..], &[("STOCH_REPORT", "text")][..]] {
        for (mode, code) in [("ok", 0), ("err", 1), ("panic", 101)] {
            let out = run_quiet(&[mode], env);
            assert_eq!(out.status.code(), Some(code), "{mode} {env:?}: {out:?}");
            assert_eq!(stdout(&out).trim(), WORK, "{mode} {env:?}");
            let err = stderr(&out);
            assert!(!err.contains(HEADER), "{mode} {env:?}: {err}");
            assert!(!err.contains("instabilit"), "{mode} {env:?}: {err}");
            assert!(!err.contains("cancellation"), "{mode} {env:?}: {err}");
            // Only what the runtime itself prints for `Err` or a panic.
            match mode {
                "ok" => assert_eq!(err, "", "{mode} {env:?}"),
                "err" => assert_eq!(
                    err.trim(),
                    "Error: \"deliberate error (the stochastic result was @.0)\"",
                    "{env:?}"
                ),
                _ => assert!(
                    err.contains("deliberate panic (the stochastic result was @.0)"),
                    "{env:?}: {err}"
                ),
            }
        }
    }
    // The configuration is still read at start: a bad value stops it before any work.
    let out = run_quiet(&["ok"], &[("STOCH_SEED", "abc")]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert_eq!(stdout(&out), "", "main's body must not run");
    assert!(
        stderr(&out).starts_with("error: invalid STOCH_SEED=\"abc\""),
        "{}",
        stderr(&out)
    );
}
