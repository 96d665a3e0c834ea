//! The repro suite's own device kernels (`src/repro/kernels/`, `stoch::repro::gpu_kernels`)
//! without a GPU:
//! - the table lists every file of the folder, as embedded;
//! - NVRTC compiles each for Ampere, Hopper and Blackwell, the PTX defines exactly the listed
//!   entry points, and the stochastic ones round every sample operation up or down
//!   (`stoch_gpu::nvrtc::check_kernel`); skipped with a printed reason without NVRTC, failing
//!   instead under `STOCH_REQUIRE_NVRTC=1`;
//! - the host C++ compiler builds them on stoch-gpu's emulation shims (FPU rounding modes for
//!   the directed intrinsics, one thread after another: `tests/gpu_emulation/emu_suite.cpp`),
//!   and they are checked against their CPU references (`stoch::repro::gpu_reference`):
//!   digit by digit for the stochastic ones, bit for bit for the plain ones. Skipped with a
//!   printed reason without a C++ compiler.
#![cfg(feature = "gpu")]

use std::io::Write;
use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

use stoch::repro::gpu_kernels::KERNELS;
use stoch::repro::gpu_reference::{self, DoUndoMode, WaveProblem};
use stoch_core::{Sf32, Sf64, StochFloat, Stochastic};
use stoch_gpu::nvrtc::{self, Target};
use stoch_gpu::validate;

fn note(msg: &str) {
    let _ = writeln!(std::io::stderr(), "{msg}");
}

/// The workspace root: `$STOCH_WORKSPACE` (a test binary carried away from its tree), else the
/// root package's folder.
fn workspace() -> PathBuf {
    std::env::var_os("STOCH_WORKSPACE")
        .map_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")), PathBuf::from)
}

fn suite_kernels_dir() -> PathBuf {
    let dir = workspace().join("src/repro/kernels");
    assert!(
        dir.is_dir(),
        "{} not found: set STOCH_WORKSPACE to the repository root",
        dir.display()
    );
    dir
}

#[test]
fn every_file_of_the_suite_kernels_folder_is_in_the_table() {
    let dir = suite_kernels_dir();
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    files.sort();
    let mut listed: Vec<String> = KERNELS.iter().map(|k| k.name.to_string()).collect();
    listed.sort();
    assert_eq!(files, listed, "src/repro/kernels/ vs gpu_kernels::KERNELS");
    for k in KERNELS {
        let on_disk = std::fs::read_to_string(dir.join(k.name)).unwrap();
        assert_eq!(
            on_disk, k.source,
            "{} differs from the embedded copy",
            k.name
        );
        assert!(
            stoch_gpu::kernels::KERNELS.iter().all(|s| s.name != k.name),
            "{} has the name of a shipped kernel",
            k.name
        );
    }
}

#[test]
fn suite_kernels_compile_and_the_stochastic_ones_are_directed() {
    if !nvrtc::available() {
        assert!(
            std::env::var("STOCH_REQUIRE_NVRTC").map_or(true, |v| v != "1"),
            "STOCH_REQUIRE_NVRTC=1 but NVRTC cannot be loaded (source .ci/nvrtc-env)"
        );
        note("SKIP suite_kernels_compile_and_the_stochastic_ones_are_directed: NVRTC not found (source .ci/nvrtc-env)");
        return;
    }
    for k in KERNELS {
        for arch in [80, 90, 100] {
            let check = nvrtc::check_kernel(k, Target::Real(arch))
                .unwrap_or_else(|e| panic!("{} for sm_{arch}: {e}", k.name));
            assert!(check.problems.is_empty(), "{:#?}", check.problems);
            if k.stochastic {
                note(&format!(
                    "PTX check {} sm_{arch}: {} directed FP instructions, 0 violations",
                    k.name,
                    check.lint.directed_total()
                ));
            } else {
                // Plain IEEE on purpose: every floating-point operation rounded to nearest (the
                // lint sees each one), none contracted into an FMA, no flush-to-zero.
                let ops = &check.lint.violations;
                assert!(
                    check.lint.directed_total() == 0 && !ops.is_empty(),
                    "{}: {:?}",
                    k.name,
                    check.lint.directed
                );
                for op in ops.iter().map(|v| v.instruction.as_str()) {
                    assert!(
                        op.contains(".rn.")
                            && !op.contains(".ftz")
                            && !op.starts_with("fma")
                            && !op.starts_with("mad"),
                        "{} sm_{arch}: {op}",
                        k.name
                    );
                }
            }
        }
    }
}

/// The emulation library, built once per test run; `None` (with a printed reason) without a
/// C++ compiler.
fn library() -> Option<&'static libloading::Library> {
    static LIB: OnceLock<Option<libloading::Library>> = OnceLock::new();
    LIB.get_or_init(|| {
        let root = workspace();
        let src = root.join("tests/gpu_emulation/emu_suite.cpp");
        let out =
            std::env::temp_dir().join(format!("libstoch_emu_suite_{}.so", std::process::id()));
        let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".to_string());
        let include = |p: &str| -> [PathBuf; 2] { ["-I".into(), root.join(p)] };
        let status = Command::new(&cxx)
            .args(["-std=c++17", "-O0", "-frounding-math", "-fno-fast-math"])
            .args(["-ffp-contract=off", "-fPIC", "-shared", "-w"])
            .args(include("kernels"))
            .args(include("src/repro/kernels"))
            .args(include("stoch-gpu/tests/emulation"))
            .arg("-o")
            .arg(&out)
            .arg(&src)
            .status();
        match status {
            Ok(s) if s.success() => {}
            Ok(s) => panic!("{cxx} failed to compile {} ({s})", src.display()),
            Err(e) => {
                note(&format!(
                    "SKIP emulated suite kernels: no C++ compiler `{cxx}` ({e})"
                ));
                return None;
            }
        }
        // SAFETY: loading our own freshly built library runs no initialiser with preconditions.
        let lib = unsafe { libloading::Library::new(&out) }.expect("load the emulation library");
        let _ = std::fs::remove_file(&out); // stays mapped
        Some(lib)
    })
    .as_ref()
}

/// A function of the emulation library.
fn sym<F: Copy>(name: &str) -> Option<F> {
    // SAFETY: each caller names an `extern "C"` function of emu_suite.cpp with the type `F` it
    // has.
    Some(*unsafe { library()?.get::<F>(name.as_bytes()) }.expect("symbol in the emulation library"))
}

type Wave =
    unsafe extern "C" fn(*const Sf32, *const Sf32, *mut Sf32, *const f32, i32, i32, i32, u64);
type PlainWave = unsafe extern "C" fn(*const f32, *const f32, *mut f32, *const f32, i32, i32, i32);
type PlainMatmul = unsafe extern "C" fn(*const f32, *const f32, *mut f32, i32, i32, i32);
type DoUndo<T> =
    unsafe extern "C" fn(*mut Stochastic<T>, *const Stochastic<T>, i32, i32, i32, i32, u64);

/// `steps` steps of an emulated stencil from the field `init`.
fn run_emulated<V: Clone>(
    init: Vec<V>,
    steps: usize,
    step: impl Fn(&[V], &[V], &mut [V], u64),
) -> Vec<V> {
    let (mut u0, mut u1, mut u2) = (init.clone(), init.clone(), init);
    for s in 0..steps {
        step(&u0, &u1, &mut u2, s as u64);
        std::mem::swap(&mut u0, &mut u1);
        std::mem::swap(&mut u1, &mut u2);
    }
    u1
}

#[test]
fn emulated_wave_validates_against_the_cpu() {
    let (Some(stoch), Some(plain)) = (
        sym::<Wave>("emu_wave_step_f32"),
        sym::<PlainWave>("emu_plain_wave_step_f32"),
    ) else {
        return;
    };
    let p = WaveProblem::new(16);
    let steps = 12;
    let [nx, ny, nz] = p.dims.map(|d| d as i32);
    let dev = run_emulated(p.u0_stochastic(), steps, |a, b, c, seed| {
        // SAFETY: every array holds nx*ny*nz points.
        unsafe {
            stoch(
                a.as_ptr(),
                b.as_ptr(),
                c.as_mut_ptr(),
                p.vel.as_ptr(),
                nx,
                ny,
                nz,
                seed,
            )
        }
    });
    let v = validate::compare(&dev, &p.run_stochastic(steps)).unwrap();
    note(&format!(
        "emulated wave step vs CPU reference ({steps} steps, 16^3):\n{}",
        v.summary
    ));
    assert!(v.summary.inconsistent * 20 <= v.summary.len, "{v}");
    assert!(v.summary.mean_common_digits > 3.0, "{v}");
    // The plain kernel is bit for bit the CPU's binary32.
    let dev = run_emulated(p.u0.clone(), steps, |a, b, c, _| {
        // SAFETY: as above.
        unsafe {
            plain(
                a.as_ptr(),
                b.as_ptr(),
                c.as_mut_ptr(),
                p.vel.as_ptr(),
                nx,
                ny,
                nz,
            )
        }
    });
    assert_eq!(dev, p.run_plain(steps));
}

#[test]
fn emulated_plain_matmul_is_the_cpu_binary32_product() {
    let Some(f) = sym::<PlainMatmul>("emu_plain_matmul_f32") else {
        return;
    };
    let (n, m, k) = (20, 9, 33);
    let a: Vec<f32> = (0..n * k)
        .map(|i| ((i * 7919) % 1000) as f32 / 100.0 - 5.0)
        .collect();
    let b: Vec<f32> = (0..k * m)
        .map(|i| 1.0 / (1 + (i * 104_729) % 97) as f32)
        .collect();
    let mut c = vec![0.0f32; n * m];
    // SAFETY: a holds n*k values, b k*m, c n*m.
    unsafe {
        f(
            a.as_ptr(),
            b.as_ptr(),
            c.as_mut_ptr(),
            n as i32,
            m as i32,
            k as i32,
        )
    };
    assert_eq!(c, gpu_reference::plain_matmul(&a, &b, n, m, k));
}

fn check_do_undo<T: StochFloat>(name: &str, x: &[Stochastic<T>], y: &[Stochastic<T>]) {
    let Some(f) = sym::<DoUndo<T>>(name) else {
        return;
    };
    for mode in [
        DoUndoMode::MulDiv,
        DoUndoMode::AddSub,
        DoUndoMode::SquareSqrt,
    ] {
        let mut dev = x.to_vec();
        // SAFETY: x holds x.len() values, y y.len() > 0.
        unsafe {
            f(
                dev.as_mut_ptr(),
                y.as_ptr(),
                x.len() as i32,
                y.len() as i32,
                300,
                mode as i32,
                4,
            )
        };
        let mut cpu = x.to_vec();
        gpu_reference::do_undo(&mut cpu, y, 300, mode);
        let v = validate::compare(&dev, &cpu).unwrap();
        assert!(
            v.summary.inconsistent * 20 <= v.summary.len,
            "{name} {mode:?}: {v}"
        );
        // The kernel did something: the samples moved off the exact start somewhere.
        assert!(
            dev.iter().zip(x).any(|(d, s)| d.samples() != s.samples()),
            "{name} {mode:?}: no sample changed"
        );
    }
}

#[test]
fn emulated_do_undo_validates_against_the_cpu() {
    let value = |i: usize| 1.0 + ((i * 7919 + 13) % 9901) as f64 / 100.0;
    let x: Vec<Sf64> = (0..512).map(|i| Sf64::new(value(i))).collect();
    let y: Vec<Sf64> = (0..31).map(|i| Sf64::new(value(i * 31 + 5))).collect();
    check_do_undo("emu_do_undo_f64", &x, &y);
    let x32: Vec<Sf32> = x.iter().map(|v| Sf32::new(v.to_f64() as f32)).collect();
    let y32: Vec<Sf32> = y.iter().map(|v| Sf32::new(v.to_f64() as f32)).collect();
    check_do_undo("emu_do_undo_f32", &x32, &y32);
}
