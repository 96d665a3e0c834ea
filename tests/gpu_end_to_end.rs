//! End to end through the root package with the `gpu` feature: kernels validated against the
//! CPU, and GPU instabilities in the same report as the CPU's. The GPU parts skip with a printed
//! reason when there is no GPU, and fail instead under `STOCH_REQUIRE_GPU=1`.
#![cfg(feature = "gpu")]

use std::io::Write;

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
    let p = reference::WaveProblem::new(20);
    let steps = 30;
    let check = validate::validate(
        || {
            let init: Vec<Sf32> = p.u0.iter().map(|&v| Sf32::new(v)).collect();
            let vel = gpu.upload_plain(&p.vel)?;
            let (mut a, mut b, mut c) = (
                gpu.upload(&init)?,
                gpu.upload(&init)?,
                gpu.zeros::<f32>(init.len())?,
            );
            for _ in 0..steps {
                gpu.wave_step(&a, &b, &mut c, &vel, p.dims)?;
                std::mem::swap(&mut a, &mut b);
                std::mem::swap(&mut b, &mut c);
            }
            gpu.download(&b)
        },
        || p.run_stochastic(steps),
    )
    .unwrap();
    assert!(
        check.summary.inconsistent * 20 < check.summary.len,
        "{check}"
    );
    // IEEE on the GPU (no FMA contraction) is bit-identical to IEEE on the CPU.
    let vel = gpu.upload_plain(&p.vel).unwrap();
    let (mut a, mut b, mut c) = (
        gpu.upload_plain(&p.u0).unwrap(),
        gpu.upload_plain(&p.u0).unwrap(),
        gpu.zeros_plain::<f32>(p.u0.len()).unwrap(),
    );
    for _ in 0..steps {
        gpu.plain_wave_step(&a, &b, &mut c, &vel, p.dims).unwrap();
        std::mem::swap(&mut a, &mut b);
        std::mem::swap(&mut b, &mut c);
    }
    assert_eq!(gpu.download_plain(&b).unwrap(), p.run_plain(steps));
}
