//! `global-sum --gpu`: the device part of the global-sum experiment.
//!
//! Without a GPU (or without the `gpu` feature) the suite must say why in one line and still
//! give the CPU results. With a GPU, the device sums of the symmetric data are checked: plain
//! float is non-zero garbage (and, in the partial-sum mode, the CPU's result bit for bit),
//! stochastic float is a computed zero. The GPU checks skip with a printed reason when there is
//! no GPU, and fail instead under `STOCH_REQUIRE_GPU=1`.

mod common;

use std::path::PathBuf;

use stoch::repro::{
    global_sum_gpu_report, global_sum_report, gpu_skip_line, run_global_sum, GlobalSumConfig,
    GlobalSumGpu, GpuGlobalSum, GpuMode, GpuSumError, GpuSumRow, Method, Order, GPU_METHODS,
};

const SEED: u64 = 2010;

fn require_gpu() -> bool {
    std::env::var("STOCH_REQUIRE_GPU").is_ok_and(|v| v == "1")
}

fn config(workers: Vec<usize>, methods: Vec<Method>, orders: Vec<Order>) -> GlobalSumConfig {
    GlobalSumConfig {
        sizes: vec![1000],
        ranges: vec![2],
        workers,
        methods,
        orders,
        seed: SEED,
    }
}

fn gpu_or_skip(test: &str) -> Option<GlobalSumGpu> {
    match GlobalSumGpu::open() {
        Ok(g) => Some(g),
        Err(e) => {
            assert!(
                !require_gpu(),
                "{test}: STOCH_REQUIRE_GPU=1 but the GPU cannot be used: {e}"
            );
            eprintln!("SKIP {test}: {e}");
            None
        }
    }
}

/// The no-GPU path: one line with the reason, and the CPU part still runs.
#[test]
fn without_a_gpu_the_reason_is_printed_and_the_cpu_results_remain() {
    let e = match GlobalSumGpu::open() {
        Ok(g) => {
            eprintln!(
                "SKIP without_a_gpu_...: a GPU is present ({}); the no-GPU path cannot run here",
                g.device()
            );
            return;
        }
        Err(e) => e,
    };
    if cfg!(feature = "gpu") {
        assert!(
            matches!(&e, GpuSumError::NoDevice(r) if !r.is_empty()),
            "{e:?}"
        );
    } else {
        assert_eq!(e, GpuSumError::NotBuilt);
    }
    let line = gpu_skip_line(&e);
    eprintln!("{line}");
    assert!(!line.contains('\n'), "one line: {line}");
    assert!(line.starts_with("--gpu: "), "{line}");
    assert!(line.contains(&e.to_string()), "{line}");
    assert!(line.ends_with("running the CPU part only."), "{line}");

    let cfg = config(
        vec![1, 10],
        vec![Method::Float, Method::Double, Method::StochFloat],
        vec![Order::Shuffled(1), Order::Ascending],
    );
    let rows = run_global_sum(&cfg, &mut |_| {});
    assert_eq!(rows.len(), 2 * 2 * 3);
    for r in &rows {
        match r.method {
            Method::Float => assert!(r.outcome.value != 0.0, "{r:?}"),
            Method::StochFloat => assert_eq!(r.outcome.computed_zero, Some(true), "{r:?}"),
            _ => {}
        }
    }
    let tables = global_sum_report(&cfg, &rows);
    assert!(
        tables.contains("| Sorting | float | double | Sf32 |"),
        "{tables}"
    );
    assert!(!tables.contains("GPU"), "{tables}");
    stoch_core::reset();
}

/// The GPU section's layout, on made-up device rows (no GPU needed): every method's CPU column
/// next to its three device modes, the tree repeated in every worker table.
#[test]
fn the_gpu_section_puts_the_device_sums_next_to_the_cpu_ones() {
    let cfg = config(
        vec![1, 10],
        vec![Method::Float, Method::Kahan, Method::StochFloat],
        vec![Order::Shuffled(1), Order::Descending],
    );
    let cpu = run_global_sum(&cfg, &mut |_| {});
    let mut rows = Vec::new();
    for r in cpu.iter().filter(|r| GPU_METHODS.contains(&r.method)) {
        for mode in GpuMode::ALL {
            if mode == GpuMode::Tree && r.workers != 1 {
                continue;
            }
            let mut outcome = r.outcome;
            outcome.value = match mode {
                GpuMode::Partials => r.outcome.value,
                GpuMode::Atomic => -1.5,
                GpuMode::Tree => -2.25,
            };
            rows.push(GpuSumRow {
                size: r.size,
                range: r.range,
                workers: (mode != GpuMode::Tree).then_some(r.workers),
                partial_sums: r.workers,
                order: r.order,
                method: r.method,
                mode,
                outcome,
            });
        }
    }
    let gpu = GpuGlobalSum {
        device: "made-up device (sm_00)".into(),
        rows,
    };
    let report = global_sum_gpu_report(&cfg, &cpu, &gpu);
    assert!(
        report.contains("## GPU: made-up device (sm_00)"),
        "{report}"
    );
    assert!(
        report.contains(
            "| Sorting | float CPU | float GPU partials | float GPU atomic | float GPU tree | Sf32 CPU | Sf32 GPU partials | Sf32 GPU atomic | Sf32 GPU tree |"
        ),
        "{report}"
    );
    assert!(!report.contains("kahan"), "{report}");
    assert!(
        report.contains("#### GPU: 1000 elements, 10 threads"),
        "{report}"
    );
    // The tree's (fixed-shape) result appears in both worker tables; the atomic one in each.
    // (2 orders x 2 worker tables of float cells; Sf32 cells read `@.0 (-2.2500e+00)`.)
    assert_eq!(report.matches(" -2.2500e+00 |").count(), 2 * 2, "{report}");
    assert_eq!(report.matches(" -1.5000e+00 |").count(), 2 * 2, "{report}");
    assert_eq!(
        report.matches("@.0 (-2.2500e+00) |").count(),
        2 * 2,
        "{report}"
    );
    // The shuffled-order summary and the timings.
    assert!(
        report.contains("| 1000 | (1e-6,1e-5)&(1e5,1e6) | 10 |"),
        "{report}"
    );
    assert!(
        report.contains("| 1000 | Sf32 | tree | fixed |"),
        "{report}"
    );
    stoch_core::reset();
}

/// With a GPU: the device sums of the symmetric data. Float: non-zero garbage in every mode
/// (and the CPU's result bit for bit in the partial-sum mode, whose split is the CPU's when the
/// worker count divides the size); stochastic float: a computed zero in every mode.
#[test]
fn gpu_sums_of_the_symmetric_data() {
    let Some(gpu) = gpu_or_skip("gpu_sums_of_the_symmetric_data") else {
        return;
    };
    let cfg = config(
        vec![1, 10, 100, 1000],
        GPU_METHODS.to_vec(),
        Order::PAPER.to_vec(),
    );
    let cpu = run_global_sum(&cfg, &mut |_| {});
    let res = gpu
        .run(&cfg, &mut |m| eprintln!("{m}"))
        .unwrap_or_else(|e| panic!("{}: {e}", gpu.device()));
    eprintln!("device: {}", res.device);
    // 6 orders x 4 methods x (4 worker counts x 2 modes + 1 tree).
    assert_eq!(res.rows.len(), 6 * 4 * 9);
    for mode in GpuMode::ALL {
        let floats: Vec<&GpuSumRow> = res
            .rows
            .iter()
            .filter(|r| r.method == Method::Float && r.mode == mode)
            .collect();
        let mean = floats.iter().map(|r| r.outcome.value.abs()).sum::<f64>() / floats.len() as f64;
        eprintln!(
            "{}: mean |float GPU {}| = {mean:e}",
            res.device,
            mode.label()
        );
        assert!(
            mean > 1e-3,
            "float GPU {} mean |sum| {mean:e}",
            mode.label()
        );
        let zeros = floats.iter().filter(|r| r.outcome.value == 0.0).count();
        assert!(zeros * 4 <= floats.len(), "{zeros} exact zeros: {floats:?}");
    }
    for r in &res.rows {
        match (r.method, r.mode) {
            (Method::StochFloat, _) => {
                assert_eq!(r.outcome.computed_zero, Some(true), "{r:?}");
                assert_eq!(r.outcome.digits, Some(0), "{r:?}");
            }
            (Method::Float | Method::Double, GpuMode::Partials) => {
                let w = r.workers.expect("partials rows have a worker count");
                let c = cpu
                    .iter()
                    .find(|c| c.workers == w && c.order == r.order && c.method == r.method)
                    .expect("CPU row");
                assert_eq!(
                    r.outcome.value, c.outcome.value,
                    "{:?} {:?} {w} workers: GPU partials vs CPU",
                    r.method, r.order
                );
            }
            _ => {}
        }
    }
    let report = global_sum_gpu_report(&cfg, &cpu, &res);
    assert!(report.contains("## GPU: "), "{report}");
    assert!(report.contains("Sf32 GPU tree"), "{report}");
    stoch_core::reset();
}

/// The example itself (built or rebuilt by `tests/common` when needed): `global-sum --gpu`
/// prints the reason in one line (no GPU) or the GPU section (GPU), and the CPU tables and
/// report either way.
#[test]
fn repro_suite_global_sum_with_the_gpu_flag() {
    let bin = common::example("repro_suite");
    let out_dir: PathBuf =
        std::env::temp_dir().join(format!("stoch-repro-gpu-{}", std::process::id()));
    let out = std::process::Command::new(&bin)
        .args([
            "global-sum",
            "--sizes",
            "1000",
            "--workers",
            "1,10",
            "--methods",
            "float,double,Sf32",
            "--out",
        ])
        .arg(&out_dir)
        .arg("--gpu")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stdout.contains("| Sorting | float | double | Sf32 |"),
        "{stdout}"
    );
    let report = std::fs::read_to_string(out_dir.join("report.md")).unwrap();
    assert!(
        report.contains("| Sorting | float | double | Sf32 |"),
        "{report}"
    );
    let gpu_lines: Vec<&str> = stderr.lines().filter(|l| l.starts_with("--gpu:")).collect();
    match GlobalSumGpu::open() {
        Err(e) => {
            // The example binary may have been built with or without the `gpu` feature (the
            // last `cargo build` decides); either way it says why in one line.
            let _ = e;
            assert_eq!(gpu_lines.len(), 1, "{stderr}");
            assert!(
                gpu_lines[0].ends_with("running the CPU part only."),
                "{stderr}"
            );
            assert!(report.contains(gpu_lines[0]), "{report}");
            assert!(!stdout.contains("## GPU"), "{stdout}");
        }
        Ok(g) => {
            assert_eq!(gpu_lines.len(), 1, "{stderr}");
            assert!(gpu_lines[0].contains(&g.device()), "{stderr}");
            assert!(stdout.contains("## GPU: "), "{stdout}");
            assert!(report.contains("## GPU: "), "{report}");
            assert!(out_dir.join("global-sum-gpu-1000-range2.svg").exists());
        }
    }
    let _ = std::fs::remove_dir_all(&out_dir);
}
