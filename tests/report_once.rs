//! The report is printed exactly once at the end of a process (issue 3): runs
//! `examples/report_once.rs` (which `cargo test` builds) in its modes and reads its stderr; also
//! `STOCH_REPORT=json` and `json:PATH`, and a bad `STOCH_REPORT` value. Also runs
//! `examples/overhead.rs --quick` and `examples/instability_cost.rs --quick`, so the speed
//! examples keep working (the second also checks its counts).

mod common;

use common::{run, stderr, HEADER};

fn text_reports(err: &str) -> usize {
    err.matches(HEADER).count()
}

/// Checks one text report naming the three instabilities of the example.
#[track_caller]
fn assert_one_text_report(err: &str) {
    assert_eq!(text_reports(err), 1, "stderr:\n{err}");
    assert!(err.contains("3 numerical instabilities detected"), "{err}");
    for what in ["unstable division", "unstable branching", "cancellation"] {
        assert!(err.contains(what), "{what}: {err}");
    }
    assert!(
        err.contains("report_once.rs:"),
        "sites name the file: {err}"
    );
    assert!(err.contains("CRITICAL: self-validation failed"), "{err}");
}

#[test]
fn finish_twice_prints_once() {
    let out = run("report_once", &["finish-twice"], &[]);
    assert!(out.status.success(), "{out:?}");
    assert_one_text_report(&stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("result: "));
}

#[test]
fn guard_and_finish_print_once() {
    let out = run("report_once", &["guard"], &[]);
    assert!(out.status.success(), "{out:?}");
    assert_one_text_report(&stderr(&out));
}

#[test]
fn guard_prints_once_when_unwinding_from_a_panic() {
    let out = run("report_once", &["guard-panic"], &[]);
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(err.contains("deliberate panic"), "{err}");
    assert_one_text_report(&err);
    // The panic message comes first, the report while unwinding.
    assert!(err.find("deliberate panic").unwrap() < err.find(HEADER).unwrap());
}

#[test]
fn the_report_is_printed_at_exit_when_never_asked_for() {
    // A run that recorded instabilities ends with its report whatever its entry point.
    let out = run("report_once", &["none"], &[]);
    assert!(out.status.success());
    assert_one_text_report(&stderr(&out));
    let off = run("report_once", &["none"], &[("STOCH_REPORT", "off")]);
    assert!(off.status.success());
    assert_eq!(text_reports(&stderr(&off)), 0, "{}", stderr(&off));
}

#[test]
fn report_off_prints_nothing() {
    for mode in ["finish-twice", "guard"] {
        let out = run("report_once", &[mode], &[("STOCH_REPORT", "off")]);
        assert!(out.status.success());
        assert_eq!(stderr(&out).trim(), "", "{mode}");
    }
}

#[test]
fn json_report_is_printed_once() {
    for mode in ["finish-twice", "guard"] {
        let out = run("report_once", &[mode], &[("STOCH_REPORT", "json")]);
        assert!(out.status.success(), "{out:?}");
        let err = stderr(&out);
        assert_eq!(err.matches("\"total\":").count(), 1, "{mode}: {err}");
        assert_eq!(text_reports(&err), 0, "{err}");
        assert!(err.contains("\"total\": 3"), "{err}");
        assert!(err.contains("\"self_validation_failed\": true"), "{err}");
        assert!(err.contains("report_once.rs"), "{err}");
        // Stderr is the JSON document and nothing else.
        let t = err.trim();
        assert!(t.starts_with('{') && t.ends_with('}'), "{err}");
    }
}

#[test]
fn json_file_report_is_written_once() {
    let dir = std::env::temp_dir().join(format!("stoch-report-once-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for mode in ["finish-twice", "guard"] {
        let path = dir.join(format!("{mode}.json"));
        let _ = std::fs::remove_file(&path);
        let spec = format!("json:{}", path.display());
        let out = run("report_once", &[mode], &[("STOCH_REPORT", &spec)]);
        assert!(out.status.success(), "{out:?}");
        assert_eq!(stderr(&out).trim(), "", "{mode}: nothing on stderr");
        let json = std::fs::read_to_string(&path).expect("the report file");
        assert_eq!(json.matches("\"total\":").count(), 1, "{json}");
        assert!(json.contains("\"total\": 3"), "{json}");
        assert!(json.contains("\"division\": 1"), "{json}");
    }
    // A path that cannot be written: the report falls back to stderr, still once.
    let spec = format!("json:{}", dir.join("no/such/dir/r.json").display());
    let out = run("report_once", &["finish-twice"], &[("STOCH_REPORT", &spec)]);
    let err = stderr(&out);
    assert!(err.contains("cannot write the report"), "{err}");
    assert_eq!(text_reports(&err), 1, "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_stoch_report_names_the_variable() {
    // Read on first use: the error is printed once and the defaults are used.
    let out = run("report_once", &["finish-twice"], &[("STOCH_REPORT", "xml")]);
    let err = stderr(&out);
    assert!(err.contains("STOCH_REPORT"), "{err}");
    assert!(err.contains("\"xml\""), "{err}");
    assert!(err.contains("json:PATH"), "the accepted values: {err}");
    assert_eq!(err.matches("STOCH_REPORT=").count(), 1, "{err}");
    assert_eq!(text_reports(&err), 1, "{err}");
    // Config::from_env: the program reports the error and stops.
    let out = run("report_once", &["guard"], &[("STOCH_REPORT", "xml")]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("STOCH_REPORT") && err.contains("xml"), "{err}");
    assert_eq!(text_reports(&err), 0, "{err}");
}

#[test]
fn a_bad_variable_leaves_the_others_applied() {
    // Lazy initialisation: the bad `STOCH_REPORT` keeps its default (text), the good
    // `STOCH_DETECT=none` is applied, so the example's three instabilities go unchecked.
    let out = run(
        "report_once",
        &["finish-twice"],
        &[("STOCH_REPORT", "xml"), ("STOCH_DETECT", "none")],
    );
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert_eq!(err.matches("STOCH_REPORT=").count(), 1, "{err}");
    assert!(err.contains("the others are applied"), "{err}");
    assert_eq!(text_reports(&err), 1, "{err}");
    assert!(err.contains("No instability detected"), "{err}");
}

#[test]
fn other_bad_variables_name_themselves() {
    for (var, value) in [
        ("STOCH_SEED", "seven"),
        ("STOCH_CANCEL_LEVEL", "0"),
        ("STOCH_DETECT", "divisionz"),
        ("STOCH_MAX_SITES", "-1"),
        ("STOCH_PANIC_ON", "all-of-them"),
    ] {
        let out = run("report_once", &["guard"], &[(var, value)]);
        assert_eq!(out.status.code(), Some(2), "{var}={value}");
        let err = stderr(&out);
        assert!(err.contains(var) && err.contains(value), "{err}");
        assert!(err.contains("expected"), "{err}");
    }
}

#[test]
fn stoch_panic_on_stops_at_the_site() {
    let out = run(
        "report_once",
        &["finish-twice"],
        &[("STOCH_PANIC_ON", "division")],
    );
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(err.contains("unstable division at "), "{err}");
    assert!(err.contains("report_once.rs:"), "{err}");
}

#[test]
fn stoch_detect_from_the_environment() {
    let out = run(
        "report_once",
        &["finish-twice"],
        &[("STOCH_DETECT", "-division,-branching")],
    );
    let err = stderr(&out);
    assert!(err.contains("1 numerical instability detected"), "{err}");
    assert!(err.contains("Not checked: division, branching."), "{err}");
}

#[test]
fn environment_is_read_before_a_first_check_that_draws_no_random_bits() {
    // `abs` draws no random bits; the detection mask it reads must already be the environment's.
    let out = run(
        "report_once",
        &["abs-first"],
        &[("STOCH_DETECT", "-intrinsic")],
    );
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("No instability detected."), "{err}");
    assert!(err.contains("Not checked: intrinsic."), "{err}");
    let out = run("report_once", &["abs-first"], &[]);
    let err = stderr(&out);
    assert!(err.contains("1 numerical instability detected"), "{err}");
    assert!(err.contains("unstable intrinsic function"), "{err}");
}

#[test]
fn init_names_environment_variables_it_does_not_apply() {
    let out = run(
        "report_once",
        &["explicit"],
        &[("STOCH_SEED", "7"), ("STOCH_REPORT", "json")],
    );
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("stoch: STOCH_SEED=7, STOCH_REPORT=json are not applied"),
        "{err}"
    );
    assert_eq!(
        text_reports(&err),
        1,
        "the text report of the explicit config: {err}"
    );
    // A variable the explicit configuration happens to hold is not named.
    let out = run("report_once", &["explicit"], &[("STOCH_SEED", "1")]);
    assert!(!stderr(&out).contains("not applied"), "{}", stderr(&out));
    // `guard` builds its configuration from the environment: nothing to name.
    let out = run("report_once", &["guard"], &[("STOCH_SEED", "7")]);
    assert!(!stderr(&out).contains("not applied"), "{}", stderr(&out));
}

#[test]
fn misspelled_variables_are_named() {
    for mode in ["finish-twice", "guard"] {
        let out = run("report_once", &[mode], &[("STOCH_DETECTS", "none")]);
        let err = stderr(&out);
        assert!(out.status.success(), "{err}");
        assert_eq!(
            err.matches(
                "stoch: unknown variable STOCH_DETECTS is ignored (did you mean STOCH_DETECT?)"
            )
            .count(),
            1,
            "{mode}: {err}"
        );
        // The misspelled setting is not applied: every kind is still checked.
        assert!(
            err.contains("3 numerical instabilities detected"),
            "{mode}: {err}"
        );
    }
}

#[test]
fn instability_cost_example_counts_every_event() {
    // The example exits with an error if the report's count is not one cancellation per
    // iteration of every thread.
    let out = run("instability_cost", &["--quick", "--threads", "3"], &[]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", stderr(&out));
    for row in [
        "plain",
        "checks off",
        "slow path, nothing found",
        "cancellation found",
    ] {
        assert!(stdout.contains(row), "{row}: {stdout}");
    }
    assert!(
        stdout.contains(
            "counted: 40000 cancellations and 40000 branchings (10000 + 3 x 10000) each, \
             as expected"
        ),
        "{stdout}"
    );
}

#[test]
fn overhead_example_runs_quick() {
    let out = run("overhead", &["--quick"], &[]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", stderr(&out));
    for kernel in [
        "dot f64",
        "matmul f64",
        "wave f32",
        "sum f32",
        "nbody f64",
        "spectral f64",
        "per operation",
        "sqrt f32",
        "mul_add f64",
    ] {
        assert!(stdout.contains(kernel), "{kernel}: {stdout}");
    }
    assert!(stdout.contains("rounding path:"), "{stdout}");
    assert_eq!(text_reports(&stderr(&out)), 0);
}
