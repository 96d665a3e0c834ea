//! End to end through the root package with the `gpu` feature: kernels validated against the
//! CPU, and GPU instabilities in the same report as the CPU's. The GPU parts skip with a printed
//! reason when there is no GPU, and fail instead under `STOCH_REQUIRE_GPU=1`.
#![cfg(feature = "gpu")]

use std::io::Write;

use stoch::repro::gpu_kernels::{do_undo, plain_matmul, plain_wave_step, wave_step};
use stoch::repro::gpu_reference::{self, DoUndoMode, WaveProblem};
use stoch_core::{Instability, Sf32};
use stoch_gpu::{record_flags, reference, validate, Gpu};

fn gpu_or_skip(test: &str) -> Option<Gpu> {
    match Gpu::new() {
        Ok(g) => Some(g),
        Err(e) => {
            assert!(
                std::env::var("STOCH_REQUIRE_GPU").map_or(true, |v| v != "1"),
                "{test}: STOCH_REQUIRE_GPU=1 but no GPU: {e}"
            );
            let _ = writeln!(std::io::stderr(), "SKIP {test}: {e}");
            None
        }
    }
}

/// The seed's 4x4 example: a computed zero in each matrix meet in one product.
fn cadna_gpu_example() -> (Vec<Sf32>, Vec<Sf32>) {
    let noise = Sf32::from_samples([1e-7, -1e-7, 2e-7]);
    let mut m1: Vec<Sf32> = (0..16).map(|i| Sf32::new(i as f32)).collect();
    let mut m2 = vec![Sf32::new(1.0); 16];
    m1[2 * 4 + 1] = noise;
    m2[4 + 1] = noise;
    (m1, m2)
}

#[test]
fn cpu_reference_flags_the_multiplication_of_two_computed_zeros() {
    // No GPU needed: the reference the GPU is validated against.
    let (m1, m2) = cadna_gpu_example();
    let res = reference::matmul(&m1, &m2, 4, 4, 4);
    assert!(res[2 * 4 + 1].flags().contains(Instability::Multiplication));
    assert!(!res[0].flags().contains(Instability::Multiplication));
    let v = validate::compare(&res, &res).unwrap();
    assert_eq!(v.summary.inconsistent, 0);
    assert_eq!(v.summary.gpu_flags.get(Instability::Multiplication), 1);
}

#[test]
fn gpu_matmul_flags_reach_the_report() {
    let Some(gpu) = gpu_or_skip("gpu_matmul_flags_reach_the_report") else {
        return;
    };
    stoch_core::reset();
    let (m1, m2) = cadna_gpu_example();
    let (d1, d2) = (gpu.upload(&m1).unwrap(), gpu.upload(&m2).unwrap());
    let res = gpu
        .download(&gpu.matmul(&d1, &d2, 4, 4, 4).unwrap())
        .unwrap();
    let counts = record_flags("stoch_matmul_f32", &res);
    assert_eq!(counts.get(Instability::Multiplication), 1, "{counts}");
    assert!(res[2 * 4 + 1].flags().contains(Instability::Multiplication));
    let report = stoch_core::report();
    assert_eq!(report.gpu_count(Instability::Multiplication), 1);
    assert!(report.to_string().contains("stoch_matmul_f32"), "{report}");
    // The CPU reference agrees element by element.
    let cpu = reference::matmul(&m1, &m2, 4, 4, 4);
    for (g, c) in res.iter().zip(&cpu) {
        assert_eq!(g.flags(), c.flags());
    }
}

#[test]
fn gpu_wave_step_validates_against_the_cpu() {
    let Some(gpu) = gpu_or_skip("gpu_wave_step_validates_against_the_cpu") else {
        return;
    };
    let p = WaveProblem::new(20);
    let steps = 30;
    let vel = gpu.upload_plain(&p.vel).unwrap();
    let check = validate::validate(
        || {
            let init = p.u0_stochastic();
            let (mut a, mut b, mut c) = (
                gpu.upload(&init)?,
                gpu.upload(&init)?,
                gpu.zeros::<f32>(init.len())?,
            );
            for _ in 0..steps {
                wave_step(&gpu, &a, &b, &mut c, &vel, p.dims)?;
                std::mem::swap(&mut a, &mut b);
                std::mem::swap(&mut b, &mut c);
            }
            gpu.download(&b)
        },
        || p.run_stochastic(steps),
    )
    .unwrap();
    eprintln!("wave:\n{check}");
    assert!(
        check.summary.inconsistent * 20 < check.summary.len,
        "{check}"
    );
    // IEEE on the GPU (no FMA contraction) is bit-identical to IEEE on the CPU.
    let (mut a, mut b, mut c) = (
        gpu.upload_plain(&p.u0).unwrap(),
        gpu.upload_plain(&p.u0).unwrap(),
        gpu.zeros_plain::<f32>(p.u0.len()).unwrap(),
    );
    for _ in 0..steps {
        plain_wave_step(&gpu, &a, &b, &mut c, &vel, p.dims).unwrap();
        std::mem::swap(&mut a, &mut b);
        std::mem::swap(&mut b, &mut c);
    }
    assert_eq!(gpu.download_plain(&b).unwrap(), p.run_plain(steps));
    // Sizes are checked before any launch.
    let short = gpu.zeros::<f32>(10).unwrap();
    let mut out = gpu.zeros::<f32>(p.u0.len()).unwrap();
    assert!(matches!(
        wave_step(&gpu, &short, &short, &mut out, &vel, p.dims),
        Err(stoch_gpu::GpuError::LengthMismatch { .. })
    ));
}

#[test]
fn gpu_do_undo_validates_against_the_cpu() {
    let Some(gpu) = gpu_or_skip("gpu_do_undo_validates_against_the_cpu") else {
        return;
    };
    // Seeded inputs in [1, 100).
    let value = |i: usize| 1.0 + ((i * 7919 + 13) % 9901) as f32 / 100.0;
    let x: Vec<Sf32> = (0..4096).map(|i| Sf32::new(value(i))).collect();
    let y: Vec<Sf32> = (0..97).map(|i| Sf32::new(value(i * 31 + 5))).collect();
    for mode in [
        DoUndoMode::MulDiv,
        DoUndoMode::AddSub,
        DoUndoMode::SquareSqrt,
    ] {
        let check = validate::validate(
            || {
                let mut dx = gpu.upload(&x)?;
                do_undo(&gpu, &mut dx, &gpu.upload(&y)?, 1000, mode)?;
                gpu.download(&dx)
            },
            || {
                let mut cx = x.clone();
                gpu_reference::do_undo(&mut cx, &y, 1000, mode);
                cx
            },
        )
        .unwrap();
        eprintln!("do/undo {mode:?}:\n{check}");
        if mode == DoUndoMode::MulDiv {
            assert!(check.summary.mean_common_digits >= 4.0, "{check}");
        }
        assert!(
            check.summary.inconsistent * 20 < check.summary.len,
            "{mode:?}: at most 5% inconsistent"
        );
    }
    let mut dx = gpu.upload(&x).unwrap();
    let empty = gpu.zeros::<f32>(0).unwrap();
    assert!(do_undo(&gpu, &mut dx, &empty, 1, DoUndoMode::MulDiv).is_err());
}

#[test]
fn gpu_plain_matmul_is_the_cpu_binary32_product() {
    let Some(gpu) = gpu_or_skip("gpu_plain_matmul_is_the_cpu_binary32_product") else {
        return;
    };
    let (n, m, k) = (33, 17, 65);
    let a: Vec<f32> = (0..n * k)
        .map(|i| ((i * 7919) % 1000) as f32 / 100.0 - 5.0)
        .collect();
    let b: Vec<f32> = (0..k * m)
        .map(|i| 1.0 / (1 + (i * 104_729) % 97) as f32)
        .collect();
    let (da, db) = (gpu.upload_plain(&a).unwrap(), gpu.upload_plain(&b).unwrap());
    let c = gpu
        .download_plain(&plain_matmul(&gpu, &da, &db, n, m, k).unwrap())
        .unwrap();
    assert_eq!(c, gpu_reference::plain_matmul(&a, &b, n, m, k));
    assert!(plain_matmul(&gpu, &da, &db, n, m, k + 1).is_err());
}
