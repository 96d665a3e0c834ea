//! Finds MPI, builds stoch-mpi's check programs and examples, and runs them under `mpiexec`
//! with a time limit, for the tests in `tests/`.
//!
//! stoch-mpi is not a member of the root workspace (rsmpi's build needs an MPI library and
//! libclang, and the workspace must build without them), so this crate, which is a member,
//! builds it with a nested `cargo build` into `target/mpi` when MPI is present. Without MPI
//! the tests print one line saying how to install it and pass, unless `STOCH_REQUIRE_MPI=1`
//! (set by `.ci/run`), where they fail.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// How to get MPI, in one line.
pub const INSTALL_HINT: &str =
    "apt-get install -y mpich libmpich-dev libclang-dev (or Open MPI: openmpi-bin libopenmpi-dev)";

/// The MPI installation found on this machine.
#[derive(Clone, Debug)]
pub struct Mpi {
    /// `mpiexec`'s extra flags: Open MPI needs `--oversubscribe` (more ranks than cores) and,
    /// as root (CI), `--allow-run-as-root`; MPICH's Hydra needs neither.
    pub flags: Vec<String>,
    /// The first line of `mpiexec --version`.
    pub version: String,
}

fn probe() -> Result<Mpi, String> {
    let out = Command::new("mpiexec")
        .arg("--version")
        .output()
        .map_err(|e| format!("no mpiexec on PATH ({e})"))?;
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    let ok = Command::new("mpicc")
        .arg("-show")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if !ok {
        return Err("mpiexec found but no mpicc (the MPI development files)".into());
    }
    let mut flags = Vec::new();
    if text.contains("Open MPI") || text.contains("OpenRTE") {
        flags.push("--oversubscribe".to_string());
        flags.push("--allow-run-as-root".to_string());
    }
    let version = text
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim()
        .to_string();
    Ok(Mpi { flags, version })
}

/// MPI, or `None` after printing why the caller skips; panics instead of skipping when
/// `STOCH_REQUIRE_MPI=1`.
///
/// # Panics
///
/// When MPI is missing and `STOCH_REQUIRE_MPI=1`.
#[must_use]
pub fn mpi_or_skip() -> Option<Mpi> {
    static FOUND: OnceLock<Result<Mpi, String>> = OnceLock::new();
    match FOUND.get_or_init(probe) {
        Ok(m) => Some(m.clone()),
        Err(why) => {
            assert!(
                !required(),
                "STOCH_REQUIRE_MPI=1 but MPI is not usable: {why}; install it: {INSTALL_HINT}"
            );
            println!("skipped: no MPI ({why}); to run the MPI tests: {INSTALL_HINT}");
            None
        }
    }
}

/// The root of the workspace.
#[must_use]
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Where the nested build puts stoch-mpi: `<target>/mpi`.
#[must_use]
pub fn target_dir() -> PathBuf {
    let base = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("target"));
    base.join("mpi")
}

fn required() -> bool {
    std::env::var("STOCH_REQUIRE_MPI").is_ok_and(|v| v == "1")
}

/// Builds stoch-mpi's examples (the checks included) once per test process, in the
/// `release` profile when `release`, and returns the folder of the example binaries; or
/// `None` after printing why the caller skips (MPI without libclang, say), unless
/// `STOCH_REQUIRE_MPI=1`.
///
/// # Panics
///
/// When the build fails under `STOCH_REQUIRE_MPI=1` (its output is shown).
#[must_use]
pub fn build(release: bool) -> Option<PathBuf> {
    static DEBUG: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    static RELEASE: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let cell = if release { &RELEASE } else { &DEBUG };
    let r = cell.get_or_init(|| {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let mut cmd = Command::new(cargo);
        cmd.current_dir(workspace_root().join("stoch-mpi"))
            .args(["build", "--examples", "--quiet"])
            .env("CARGO_TARGET_DIR", target_dir());
        if release {
            cmd.arg("--release");
        }
        let out = cmd.output().map_err(|e| format!("cannot run cargo: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "building stoch-mpi failed (it needs the MPI development files and libclang: \
                 {INSTALL_HINT}):\n{}",
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        Ok(target_dir()
            .join(if release { "release" } else { "debug" })
            .join("examples"))
    });
    match r {
        Ok(p) => Some(p.clone()),
        Err(e) if required() => panic!("STOCH_REQUIRE_MPI=1: {e}"),
        Err(e) => {
            let first = e.lines().next().unwrap_or_default();
            println!("skipped: {first}");
            None
        }
    }
}

/// What a job left.
#[derive(Debug)]
pub struct JobOutput {
    /// Its exit status (`None` when it was killed at the time limit).
    pub status: Option<ExitStatus>,
    /// Standard output, all ranks.
    pub stdout: String,
    /// Standard error, all ranks.
    pub stderr: String,
    /// How long it ran.
    pub elapsed: Duration,
}

impl JobOutput {
    /// Whether it ended in time with status 0.
    #[must_use]
    pub fn success(&self) -> bool {
        self.status.is_some_and(|s| s.success())
    }

    /// Stdout's lines that start with `prefix`, sorted (ranks print in any order).
    #[must_use]
    pub fn lines(&self, prefix: &str) -> Vec<String> {
        let mut v: Vec<String> = self
            .stdout
            .lines()
            .filter(|l| l.starts_with(prefix))
            .map(str::to_string)
            .collect();
        v.sort();
        v
    }
}

/// Runs `mpiexec -n ranks <program> args` with `env`, killed (with its ranks) after
/// `limit`.
///
/// # Panics
///
/// When `mpiexec` cannot be started.
pub fn run(
    mpi: &Mpi,
    ranks: u32,
    program: &Path,
    args: &[&str],
    env: &[(&str, &str)],
    limit: Duration,
) -> JobOutput {
    let dir = std::env::temp_dir();
    let tag = format!(
        "stoch-mpi-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0)
    );
    let (out_path, err_path) = (
        dir.join(format!("{tag}.out")),
        dir.join(format!("{tag}.err")),
    );
    let out_file = std::fs::File::create(&out_path).expect("temporary file");
    let err_file = std::fs::File::create(&err_path).expect("temporary file");
    let mut cmd = Command::new("mpiexec");
    cmd.args(&mpi.flags)
        .arg("-n")
        .arg(ranks.to_string())
        .arg(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(out_file)
        .stderr(err_file);
    // The test environment's STOCH_* settings are not the job's unless passed in `env`.
    for (k, _) in std::env::vars() {
        if k.starts_with("STOCH_") && k != "STOCH_REQUIRE_MPI" {
            cmd.env_remove(k);
        }
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    let start = Instant::now();
    let mut child = cmd.spawn().expect("cannot start mpiexec");
    let status = loop {
        if let Some(s) = child.try_wait().expect("waiting for mpiexec") {
            break Some(s);
        }
        if start.elapsed() > limit {
            // mpiexec passes SIGTERM on to its ranks and ends them (MPICH's Hydra and Open
            // MPI's mpirun both do); SIGKILL if it has not ended a few seconds later. (Its own
            // process group would make that simpler, but there Hydra cut a panicking rank's
            // output short.)
            let _ = Command::new("kill")
                .args(["-TERM", &child.id().to_string()])
                .status();
            let grace = Instant::now();
            while grace.elapsed() < Duration::from_secs(5) {
                if child.try_wait().ok().flatten().is_some() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let elapsed = start.elapsed();
    let stdout = std::fs::read_to_string(&out_path).unwrap_or_default();
    let stderr = std::fs::read_to_string(&err_path).unwrap_or_default();
    let _ = std::fs::remove_file(out_path);
    let _ = std::fs::remove_file(err_path);
    JobOutput {
        status,
        stdout,
        stderr,
        elapsed,
    }
}
