//! Helpers shared by the stoch-gpu tests: skip-or-fail probes and a CPU rounding oracle.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

use stoch_core::{Instability, Sf64};
use stoch_gpu::{nvrtc, Gpu};

/// Environment variable naming the workspace root (the folder holding `kernels/`), for test
/// binaries run away from the tree they were built in (e.g. carried to a GPU machine).
pub const WORKSPACE_VAR: &str = "STOCH_WORKSPACE";

fn has_header(dir: &Path) -> bool {
    dir.join("kernels/stochastic.cuh").is_file()
}

/// The workspace root: `$STOCH_WORKSPACE` if set, else the current directory if it holds
/// `kernels/stochastic.cuh`, else the build-time location (stoch-gpu's parent).
pub fn workspace() -> PathBuf {
    if let Some(dir) = std::env::var_os(WORKSPACE_VAR) {
        return PathBuf::from(dir);
    }
    if let Ok(cwd) = std::env::current_dir() {
        if has_header(&cwd) {
            return cwd;
        }
    }
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
}

/// The workspace's `kernels/` folder, or a failure that says how to point the tests at it.
pub fn kernels_dir() -> PathBuf {
    let root = workspace();
    assert!(
        has_header(&root),
        "kernels/stochastic.cuh not found under {}: run the tests from the repository root or \
         set {WORKSPACE_VAR} to it",
        root.display()
    );
    root.join("kernels")
}

/// Serialises the tests of one binary that reset or read the global report (or run host
/// stochastic code that records into it): the test harness runs tests in parallel threads.
pub fn serial() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The flag bits a host call leaves: the result's flags plus every kind the call recorded into
/// the report (predicates and comparisons record without a value to carry the flag; the device
/// puts those bits on the operand or the result). Call under [`serial`].
pub fn host_flags<R>(f: impl FnOnce() -> R, result_flags: impl Fn(&R) -> u8) -> (R, u8) {
    stoch_core::reset();
    let r = f();
    let report = stoch_core::report();
    let mut bits = result_flags(&r);
    for kind in Instability::ALL {
        if report.count(kind) > 0 {
            bits |= kind.bit();
        }
    }
    (r, bits)
}

/// Print a line to the real stderr, past the test harness's capture, so skips and figures
/// show in CI logs.
pub fn note(msg: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "{msg}");
}

fn required(var: &str) -> bool {
    std::env::var(var).is_ok_and(|v| v == "1")
}

/// Make NVRTC available if the workspace's `.nvrtc` folder (from `.ci/nvrtc-env`) has it, then
/// report whether NVRTC can be used. Skips (false, with a printed reason) unless
/// `STOCH_REQUIRE_NVRTC=1`, which turns a missing NVRTC into a failure.
pub fn nvrtc_or_skip(test: &str) -> bool {
    let local = workspace().join(".nvrtc/nvidia/cu13/lib");
    if std::env::var_os(nvrtc::NVRTC_DIR_VAR).is_none() && local.join("libnvrtc.so.13").exists() {
        nvrtc::preload_from(&local).expect("preload NVRTC from .nvrtc");
    }
    if nvrtc::available() {
        return true;
    }
    assert!(
        !required("STOCH_REQUIRE_NVRTC"),
        "{test}: STOCH_REQUIRE_NVRTC=1 but NVRTC cannot be loaded (source .ci/nvrtc-env)"
    );
    note(&format!(
        "SKIP {test}: NVRTC not found (source .ci/nvrtc-env, or set STOCH_NVRTC_DIR)"
    ));
    false
}

/// A GPU, or `None` with a printed reason. Fails under `STOCH_REQUIRE_GPU=1`.
pub fn gpu_or_skip(test: &str) -> Option<Gpu> {
    nvrtc_or_skip(test);
    match Gpu::new() {
        Ok(g) => Some(g),
        Err(e) => {
            assert!(
                !required("STOCH_REQUIRE_GPU"),
                "{test}: STOCH_REQUIRE_GPU=1 but no GPU: {e}"
            );
            note(&format!("SKIP {test}: {e}"));
            None
        }
    }
}

/// Exact result of `op` on f32 operands as (nearest f64, sign of the remaining error):
/// the exact value is `r + e` with `e` of the returned sign and `|e|` below half an ulp of `r`.
fn exact_f32(op: &str, a: f32, b: f32) -> (f64, i32) {
    let (x, y) = (f64::from(a), f64::from(b));
    let sign = |v: f64| {
        if v > 0.0 {
            1
        } else if v < 0.0 {
            -1
        } else {
            0
        }
    };
    match op {
        "add" | "sub" => {
            let y = if op == "sub" { -y } else { y };
            let s = x + y;
            let bb = s - x;
            let err = (x - (s - bb)) + (y - bb); // TwoSum
            (s, sign(err))
        }
        "mul" => (x * y, 0), // 24 + 24 bits: exact in f64
        "div" => {
            let q = x / y;
            let rem = (-q).mul_add(y, x); // exact
            (q, sign(rem) * sign(y))
        }
        "sqrt" => {
            let r = x.sqrt();
            let rem = (-r).mul_add(r, x);
            (r, sign(rem))
        }
        _ => unreachable!(),
    }
}

/// `(RD, RU)` of `op(a, b)` in f32 (for sqrt, `b` is ignored).
pub fn directed_f32(op: &str, a: f32, b: f32) -> (f32, f32) {
    let (r, e) = exact_f32(op, a, b);
    let f = r as f32;
    let fd = f64::from(f);
    let cmp = if fd > r {
        1
    } else if fd < r {
        -1
    } else {
        -e // f == r: compare with the exact r + e
    };
    match cmp {
        1 => (f.next_down(), f),
        -1 => (f, f.next_up()),
        _ => (f, f),
    }
}

/// `(RD, RU)` of `op(a, b)` in f64.
pub fn directed_f64(op: &str, a: f64, b: f64) -> (f64, f64) {
    let sign = |v: f64| {
        if v > 0.0 {
            1
        } else if v < 0.0 {
            -1
        } else {
            0
        }
    };
    let (r, e) = match op {
        "add" | "sub" => {
            let y = if op == "sub" { -b } else { b };
            let s = a + y;
            let bb = s - a;
            (s, sign((a - (s - bb)) + (y - bb)))
        }
        "mul" => {
            let p = a * b;
            (p, sign(a.mul_add(b, -p)))
        }
        "div" => {
            let q = a / b;
            (q, sign((-q).mul_add(b, a)) * sign(b))
        }
        "sqrt" => {
            let r = a.sqrt();
            (r, sign((-r).mul_add(r, a)))
        }
        _ => unreachable!(),
    };
    match e {
        1 => (r, r.next_up()),
        -1 => (r.next_down(), r),
        _ => (r, r),
    }
}

/// A small deterministic generator for test inputs (splitmix64).
pub struct Inputs(pub u64);

impl Inputs {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in [lo, hi).
    pub fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * ((self.next_u64() >> 11) as f64 / (1u64 << 53) as f64)
    }
}

/// Inputs whose instability outcome does not depend on the random roundings.
pub fn flag_cases() -> (Vec<Sf64>, Vec<Sf64>) {
    let noise = Sf64::from_samples([1e-9, -2e-9, 1.5e-9]);
    let noise2 = Sf64::from_samples([-3e-9, 1e-9, 2e-9]);
    let one = Sf64::new(1.0);
    let near_one = Sf64::from_samples([1.0 + 1e-13, 1.0 - 1e-13, 1.0 + 2e-13]);
    let two = Sf64::new(2.0);
    let zero = Sf64::new(0.0);
    let straddle = Sf64::from_samples([0.999_999_999_9, 1.000_000_000_1, 1.0]);
    let a = vec![
        noise, noise, one, near_one, two, zero, straddle, noise2, near_one,
    ];
    let b = vec![noise2, one, noise, one, one, two, one, noise, near_one];
    (a, b)
}

/// Values at the ends of the f64 range (tiny, huge, subnormal) and of the f32 range, with
/// spreads from noise to a few ulps: where (a+b+c)/3, squares of deviations and |m|/sigma
/// underflow or overflow unless rescaled as the host does.
pub fn extreme_values() -> Vec<Sf64> {
    let mut v = vec![
        Sf64::from_samples([1e-170, -2e-170, 1.5e-170]),
        Sf64::from_samples([1e-170, 1.0000001e-170, 0.9999999e-170]),
        Sf64::from_samples([1e-300, 1.000001e-300, 0.999999e-300]),
        Sf64::from_samples([1e-300, -1e-300, 3e-300]),
        Sf64::from_samples([3e-308, 3.0000000003e-308, 2.9999999997e-308]),
        Sf64::from_samples([1e200, 1.000001e200, 0.999999e200]),
        Sf64::from_samples([1e200, -2e200, 1.5e200]),
        Sf64::from_samples([1.7e308, 1.7e308, 1.69e308]),
        Sf64::from_samples([-1.7e308, -1.79e308, -1.75e308]),
        Sf64::from_samples([1.7e308, -1.7e308, 1e308]),
        Sf64::from_samples([5e-324, 1e-323, 5e-324]),
        Sf64::from_samples([4e-320, 4.1e-320, 3.9e-320]),
        Sf64::from_samples([4e-320, -4.1e-320, 3.9e-320]),
        Sf64::from_samples([
            2.2250738585072014e-308,
            2.225073858507201e-308,
            2.2250738585072014e-308,
        ]),
        Sf64::from_samples([1e-160, 1e-140, 1e-150]),
        Sf64::from_samples([1e150, 1.0000000001e150, 0.9999999999e150]),
        Sf64::from_samples([1e-150, 1.0000000001e-150, 0.9999999999e-150]),
        Sf64::from_samples([0.0, 1e-310, 0.0]),
        Sf64::from_samples([-0.0, 0.0, 0.0]),
        Sf64::from_samples([f64::NAN, 1e-300, 1e-300]),
        Sf64::from_samples([f64::INFINITY, 1e300, 1e300]),
    ];
    let mut rng = Inputs(21);
    for i in 0..4000 {
        let e = rng.uniform(-323.0, 308.0);
        let m = 10f64.powf(e) * if i % 2 == 0 { 1.0 } else { -1.0 };
        let spread = 10f64.powf(-rng.uniform(0.0, 17.0));
        let s = [
            m,
            m * (1.0 + spread * rng.uniform(-1.0, 1.0)),
            m * (1.0 + spread * rng.uniform(-1.0, 1.0)),
        ];
        if s.iter().all(|x| x.is_finite()) {
            v.push(Sf64::from_samples(s));
        }
    }
    v
}

/// Inputs for the functions added to mirror the host API: noise, NaN or infinite samples in
/// some samples only, signs that disagree, integer parts that differ.
pub fn api_cases() -> (Vec<Sf64>, Vec<Sf64>) {
    let (mut a, mut b) = flag_cases();
    let extra_a = [
        Sf64::from_samples([f64::NAN, 1.0, 1.0]),
        Sf64::from_samples([f64::INFINITY, 2.0, 2.0]),
        Sf64::from_samples([-0.0, 0.0, 0.0]),
        Sf64::from_samples([2.999_999_9, 3.000_000_1, 3.0]),
        Sf64::from_samples([7.5, 7.500_000_1, 7.499_999_9]),
        Sf64::new(f64::NAN),
        Sf64::new(1.0),
        Sf64::from_samples([1e-9, -2e-9, 1.5e-9]),
        Sf64::new(-2.5),
        Sf64::from_samples([0.5, 0.500_000_1, 0.499_999_9]),
    ];
    let extra_b = [
        Sf64::new(1.0),
        Sf64::from_samples([f64::NAN, 1.0, 1.0]),
        Sf64::new(2.0),
        Sf64::new(1.0),
        Sf64::from_samples([2.5, 2.500_000_1, 2.499_999_9]),
        Sf64::new(3.0),
        Sf64::new(1.0f64.next_up()),
        Sf64::from_samples([1e-9, 3e-9, -1e-9]),
        Sf64::new(2.0),
        Sf64::from_samples([0.5, 0.500_000_2, 0.499_999_8]),
    ];
    a.extend(extra_a);
    b.extend(extra_b);
    (a, b)
}

/// Samples equal bit for bit (NaN equal to NaN).
pub fn same_samples(x: &Sf64, y: &Sf64) -> bool {
    x.samples()
        .iter()
        .zip(y.samples())
        .all(|(p, q)| p.to_bits() == q.to_bits() || (p.is_nan() && q.is_nan()))
}
