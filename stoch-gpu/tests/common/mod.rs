//! Helpers shared by the stoch-gpu tests: skip-or-fail probes and a CPU rounding oracle.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use stoch_core::Sf64;
use stoch_gpu::{nvrtc, Gpu};

/// The workspace root (stoch-gpu's parent).
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
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
