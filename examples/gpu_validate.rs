//! Validate GPU kernels with Discrete Stochastic Arithmetic: the 3-D acoustic wave stencil and
//! the matrix product of the CADNA-GPU paper, each run on the GPU and against a CPU reference
//! written with `Stochastic<T>`.
//!
//! ```text
//! cargo run --release --features gpu --example gpu_validate -- [--n 48] [--steps 200] [--time-n 256]
//! ```
//!
//! Prints, like the seed paper's table, the value at three grid points for IEEE binary32 on the
//! CPU and the GPU and for stochastic arithmetic on both (only the exact digits are printed),
//! then the digit histograms, the worst elements, the instabilities found on the GPU (merged
//! into the stoch report), and the time of a stochastic wave step against a plain one on a
//! `time-n`^3 grid, with all instability checks, with CADNA-GPU's set (multiplication, division,
//! branching) and with none; the last two compile the suite's wave kernel again with
//! `-DSTOCH_DETECT=...` ([`Gpu::user_function`](stoch_gpu::Gpu::user_function)). The wave
//! kernels are the repro suite's own (`stoch::repro::gpu_kernels`, launched through
//! `stoch-gpu`'s public launch API), the matrix product is the library's.
//!
//! Without a GPU (or without the `gpu` feature) it says why and exits with status 0.

#[cfg(not(feature = "gpu"))]
fn main() {
    println!(
        "gpu_validate: built without the `gpu` feature; run with `--features gpu`. Nothing to do."
    );
}

#[cfg(feature = "gpu")]
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |name: &str, default: usize| -> usize {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let (n, steps, tn) = (
        arg("--n", 48).max(12),
        arg("--steps", 200),
        arg("--time-n", 256).max(12),
    );
    let gpu = match stoch_gpu::Gpu::new() {
        Ok(g) => g,
        Err(e) => {
            println!("gpu_validate: no GPU to validate on: {e}");
            println!("gpu_validate: nothing to do (exit 0).");
            return;
        }
    };
    if let Err(e) = gpu_demo::run(&gpu, n, steps, tn) {
        eprintln!("gpu_validate: {e}");
        let mut source = std::error::Error::source(&e);
        while let Some(s) = source {
            eprintln!("  caused by: {s}");
            source = s.source();
        }
        std::process::exit(1);
    }
}

#[cfg(feature = "gpu")]
mod gpu_demo {
    use std::time::Instant;

    use stoch::repro::gpu_kernels::{self, entry, plain_wave_step, wave_step, WAVE};
    use stoch::repro::gpu_reference::WaveProblem;
    use stoch_core::Sf32;
    use stoch_gpu::kernels::SHIPPED_DEFINES;
    use stoch_gpu::{record_flags, reference, validate, DeviceBuffer, Gpu, Result};

    pub fn run(gpu: &Gpu, n: usize, steps: usize, tn: usize) -> Result<()> {
        let (major, minor) = stoch_gpu::nvrtc::version()?;
        println!(
            "device: {} (sm_{}), NVRTC {major}.{minor}",
            gpu.name(),
            gpu.arch()
        );
        wave(gpu, n, steps, tn)?;
        matmul(gpu)?;
        println!("\n{}", stoch_core::report());
        Ok(())
    }

    fn wave(gpu: &Gpu, n: usize, steps: usize, tn: usize) -> Result<()> {
        println!("\n== 3-D acoustic wave, {n}x{n}x{n}, {steps} steps, binary32, 8th order in space (scheme 1) ==");
        let p = WaveProblem::new(n);
        let points = [
            p.index(n / 2, n / 3, 3 * n / 4),
            p.index(3 * n / 4, n / 4 + 1, n / 2),
            p.index(n / 3, n / 3, n / 3),
        ];

        // IEEE binary32, CPU and GPU.
        let t = Instant::now();
        let ieee_cpu = p.run_plain(steps);
        let cpu_plain_s = t.elapsed().as_secs_f64();
        let vel = gpu.upload_plain(&p.vel)?;
        let (mut a, mut b, mut c) = (
            gpu.upload_plain(&p.u0)?,
            gpu.upload_plain(&p.u0)?,
            gpu.zeros_plain::<f32>(p.u0.len())?,
        );
        for _ in 0..steps {
            plain_wave_step(gpu, &a, &b, &mut c, &vel, p.dims)?;
            std::mem::swap(&mut a, &mut b);
            std::mem::swap(&mut b, &mut c);
        }
        let ieee_gpu = gpu.download_plain(&b)?;

        // Stochastic, GPU then CPU, compared element by element.
        let init = p.u0_stochastic();
        let mut cpu_stoch_s = 0.0;
        let check = validate::validate(
            || {
                let (mut u0, mut u1, mut u2) = (
                    gpu.upload(&init)?,
                    gpu.upload(&init)?,
                    gpu.zeros::<f32>(init.len())?,
                );
                for _ in 0..steps {
                    wave_step(gpu, &u0, &u1, &mut u2, &vel, p.dims)?;
                    std::mem::swap(&mut u0, &mut u1);
                    std::mem::swap(&mut u1, &mut u2);
                }
                let out = gpu.download(&u1)?;
                record_flags("stoch_wave_step_f32", &out);
                Ok(out)
            },
            || {
                let t = Instant::now();
                let r = p.run_stochastic(steps);
                cpu_stoch_s = t.elapsed().as_secs_f64();
                r
            },
        )?;

        println!("\nResults at 3 points (stochastic: exact digits only, @.0 = computed zero)");
        print!("{:<16}", "");
        for (i, &q) in points.iter().enumerate() {
            let (x, y, z) = (q % n, (q / n) % n, q / (n * n));
            print!("{:>22}", format!("p{} = ({x}, {y}, {z})", i + 1));
        }
        println!();
        let row = |label: &str, f: &dyn Fn(usize) -> String| {
            print!("{label:<16}");
            for &q in &points {
                print!("{:>22}", f(q));
            }
            println!();
        };
        row("IEEE CPU", &|q| format!("{:.6E}", ieee_cpu[q]));
        row("IEEE GPU", &|q| format!("{:.6E}", ieee_gpu[q]));
        row("stochastic CPU", &|q| check.elements[q].cpu.to_string());
        row("stochastic GPU", &|q| check.elements[q].gpu.to_string());
        row("digits CPU/GPU", &|q| {
            format!(
                "{} / {}",
                check.elements[q].cpu_digits, check.elements[q].gpu_digits
            )
        });

        println!(
            "\nStochastic GPU vs stochastic CPU, all {} points:\n{check}",
            check.elements.len()
        );
        let same_ieee = ieee_cpu
            .iter()
            .zip(&ieee_gpu)
            .filter(|(a, b)| a == b)
            .count();
        println!(
            "IEEE GPU equals IEEE CPU bit for bit at {same_ieee} of {} points",
            ieee_gpu.len()
        );

        println!(
            "Time on the CPU ({steps} steps, one thread): plain {cpu_plain_s:.2} s, stochastic {cpu_stoch_s:.2} s, ratio {:.1}",
            cpu_stoch_s / cpu_plain_s.max(1e-9)
        );
        timing(gpu, tn)
    }

    /// Device time per step of `reps` steps of `step` on the fields `a, b, c` (rotated).
    fn time_steps<B>(
        gpu: &Gpu,
        reps: usize,
        (mut a, mut b, mut c): (B, B, B),
        mut step: impl FnMut(&B, &B, &mut B) -> Result<()>,
    ) -> Result<f32> {
        step(&a, &b, &mut c)?; // warm-up: compile and load
        let ms = gpu.time_ms(|| {
            for _ in 0..reps {
                step(&a, &b, &mut c)?;
                std::mem::swap(&mut a, &mut b);
                std::mem::swap(&mut b, &mut c);
            }
            Ok(())
        })?;
        Ok(ms / reps as f32)
    }

    /// Device time per step of the plain and the stochastic stencil on an `n`^3 grid.
    fn timing(gpu: &Gpu, n: usize) -> Result<()> {
        let p = WaveProblem::new(n);
        let reps = 50;
        let vel = gpu.upload_plain(&p.vel)?;
        let plain = (
            gpu.upload_plain(&p.u0)?,
            gpu.upload_plain(&p.u0)?,
            gpu.zeros_plain::<f32>(p.u0.len())?,
        );
        let plain_ms = time_steps(gpu, reps, plain, |a, b, c| {
            plain_wave_step(gpu, a, b, c, &vel, p.dims)
        })?;

        let init = p.u0_stochastic();
        let fields = || -> Result<(DeviceBuffer<f32>, DeviceBuffer<f32>, DeviceBuffer<f32>)> {
            Ok((
                gpu.upload(&init)?,
                gpu.upload(&init)?,
                gpu.zeros::<f32>(init.len())?,
            ))
        };
        let all_ms = time_steps(gpu, reps, fields()?, |a, b, c| {
            wave_step(gpu, a, b, c, &vel, p.dims)
        })?;
        // The same kernel compiled with fewer checks.
        let variant = |detect: &str| -> Result<f32> {
            let mut defines = SHIPPED_DEFINES.to_vec();
            defines.push(("STOCH_DETECT", detect));
            let f = gpu.user_function(WAVE.name, WAVE.source, &defines, entry::WAVE_STEP_F32)?;
            time_steps(gpu, reps, fields()?, |a, b, c| {
                // SAFETY: `f` is `stoch_wave_step_f32` of WAVE's source, compiled for blocks of
                // 256 threads.
                unsafe { gpu_kernels::wave_step_in(gpu, &f, a, b, c, &vel, p.dims) }
            })
        };
        let cadna_ms = variant("0x0B")?;
        let none_ms = variant("0")?;
        println!("\nTime per wave step on the GPU, {n}^3 points ({reps} steps each):");
        println!("  plain f32                                  {plain_ms:>9.4} ms   1.00");
        println!(
            "  stochastic, all checks (cancellation too)  {all_ms:>9.4} ms  {:>5.2}",
            all_ms / plain_ms
        );
        println!(
            "  stochastic, mul/div/branching (CADNA-GPU)  {cadna_ms:>9.4} ms  {:>5.2}",
            cadna_ms / plain_ms
        );
        println!(
            "  stochastic, no checks                      {none_ms:>9.4} ms  {:>5.2}",
            none_ms / plain_ms
        );
        println!("  goal: <= 4; CADNA-GPU reported 7.2 (mul/div/branching) on its wave code");
        Ok(())
    }

    fn show(name: &str, m: &[Sf32], n: usize) {
        println!("{name} =");
        for r in 0..n {
            for v in &m[r * n..(r + 1) * n] {
                let flags = v.flags();
                let tag = if flags.contains(stoch_core::Instability::Multiplication) {
                    " MUL"
                } else {
                    ""
                };
                print!("{:>16}", format!("{v}{tag}"));
            }
            println!();
        }
    }

    fn matmul(gpu: &Gpu) -> Result<()> {
        println!("\n== Matrix product (CADNA-GPU example) ==");
        // The seed's 4x4 example: mat1 = 0..15 with a computed zero at (2, 1), mat2 = ones with a
        // computed zero at (1, 1): row 2 x column 1 multiplies two computed zeros.
        let noise = Sf32::from_samples([1e-7, -1e-7, 2e-7]);
        let mut m1: Vec<Sf32> = (0..16).map(|i| Sf32::new(i as f32)).collect();
        let mut m2 = vec![Sf32::new(1.0); 16];
        m1[2 * 4 + 1] = noise;
        m2[4 + 1] = noise;
        let (d1, d2) = (gpu.upload(&m1)?, gpu.upload(&m2)?);
        let res = gpu.download(&gpu.matmul(&d1, &d2, 4, 4, 4)?)?;
        record_flags("stoch_matmul_f32", &res);
        show("mat1", &m1, 4);
        show("mat2", &m2, 4);
        show("res (GPU)", &res, 4);

        // A larger product against the CPU reference.
        let n = 128;
        let a: Vec<Sf32> = (0..n * n)
            .map(|i| Sf32::new(((i * 7919) % 1000) as f32 / 100.0 - 5.0))
            .collect();
        let b: Vec<Sf32> = (0..n * n)
            .map(|i| Sf32::new(1.0 / (1 + (i * 104_729) % 97) as f32))
            .collect();
        let check = validate::validate(
            || {
                let (da, db) = (gpu.upload(&a)?, gpu.upload(&b)?);
                let c = gpu.download(&gpu.matmul(&da, &db, n, n, n)?)?;
                record_flags("stoch_matmul_f32", &c);
                Ok(c)
            },
            || reference::matmul(&a, &b, n, n, n),
        )?;
        println!("\n{n}x{n} product, stochastic GPU vs stochastic CPU:\n{check}");
        Ok(())
    }
}
