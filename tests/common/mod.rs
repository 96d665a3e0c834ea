//! Running the workspace's example programs from end-to-end tests (each test binary uses part
//! of this module).
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Mutex, PoisonError};

/// The line that starts every text report.
pub const HEADER: &str = ": Discrete Stochastic Arithmetic, 3 samples";

/// `target/<profile>/examples/<name>`, next to this test's `deps/` directory, where `cargo test`
/// builds the examples. The first call for a set of names in a process runs `cargo build` on
/// them with this test's profile, features and target directory: a no-op after `cargo test`;
/// after a single `cargo test --test <name>` it builds the missing examples and rebuilds the
/// stale ones (whose reports would name old line numbers).
pub fn example(name: &str) -> PathBuf {
    examples(&[name]).pop().expect("one path")
}

/// The paths of several examples, built together (one cargo run) when first asked for.
pub fn examples(names: &[&str]) -> Vec<PathBuf> {
    static BUILT: Mutex<Vec<String>> = Mutex::new(Vec::new());
    let exe = std::env::current_exe().expect("test executable path");
    let profile_dir = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("target/<profile>/deps");
    {
        let mut built = BUILT.lock().unwrap_or_else(PoisonError::into_inner);
        let missing: Vec<&str> = names
            .iter()
            .copied()
            .filter(|n| !built.iter().any(|b| b == n))
            .collect();
        if !missing.is_empty() {
            build(&missing, profile_dir);
            built.extend(missing.iter().map(|n| n.to_string()));
        }
    }
    names
        .iter()
        .map(|name| {
            let path = profile_dir
                .join("examples")
                .join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
            assert!(
                path.exists(),
                "{} is missing: run `cargo build --example {name}`",
                path.display()
            );
            path
        })
        .collect()
}

fn build(names: &[&str], profile_dir: &Path) {
    let profile = profile_dir
        .file_name()
        .and_then(|p| p.to_str())
        .unwrap_or("debug");
    let profile = if profile == "debug" { "dev" } else { profile };
    let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cmd.args(["build", "--quiet", "--profile", profile]);
    if cfg!(feature = "gpu") {
        // The features this test was built with, so that nothing is rebuilt without them.
        cmd.args(["--features", "gpu"]);
    }
    for name in names {
        cmd.args(["--example", name]);
    }
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"));
    if let Some(target_dir) = profile_dir.parent() {
        cmd.arg("--target-dir").arg(target_dir);
    }
    let status = cmd.status().expect("run cargo build");
    assert!(
        status.success(),
        "cargo build of the examples {names:?} failed"
    );
}

/// Runs the example `name` with `args` and `env`, every other `STOCH_*` variable (and
/// `RUST_BACKTRACE`) removed.
pub fn run(name: &str, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(example(name));
    cmd.args(args);
    for (k, _) in std::env::vars() {
        if k.starts_with("STOCH_") {
            cmd.env_remove(k);
        }
    }
    cmd.env_remove("RUST_BACKTRACE");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("run the example")
}

/// The program's standard output.
pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The program's standard error.
pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}
