//! The global-sum experiment on the device (`--features gpu`), through `stoch-gpu`.
//!
//! - The stochastic types (`Sf32`, `Sf64`) use the shipped kernels of `kernels/stoch_sum.cu`
//!   through [`Gpu::sum`](stoch_gpu::Gpu::sum), in the seed papers' three modes.
//! - Plain `float` and `double` have no shipped summation kernel, so the suite carries its
//!   own, `src/repro/kernels/plain_sum.cu` ([`PLAIN_SUM`](super::gpu_kernels::PLAIN_SUM)):
//!   the same three modes with the same loops, chunks and launch shapes as `stoch_sum.cu`, in
//!   round-to-nearest IEEE arithmetic.
//!   NVRTC compiles it at run time with the crate's options (FMA contraction off, no
//!   flush-to-zero); it is launched through `stoch-gpu`'s launch API ([`stoch_gpu::launch`]),
//!   the tree mode through the same loop as [`Gpu::sum`](stoch_gpu::Gpu::sum)'s
//!   ([`reduce_tree`]).
//!
//! Worker counts map to the launch as follows. In the partial-sum and atomic modes, `w` workers
//! are `w` GPU threads (any `w` from 1 up; blocks of 256 threads): thread `t` sums the
//! contiguous chunk `[t·c, (t+1)·c)` with `c = ceil(n / w)`, in order, from zero. That is the
//! CPU workers' split whenever `w` divides `n` (all the default sizes and worker counts); then
//! the partial-sum mode in `float` and `double` gives the CPU's result bit for bit (the host
//! adds the partial sums in thread order, as the CPU merges its workers). The atomic mode adds
//! the same partial sums with `atomicAdd` in whatever order the threads arrive. The tree
//! reduction has the fixed launch shape of `stoch_sum.cu` (blocks of 256 threads,
//! `ceil(n / 256)` blocks up to 1024, grid-stride partial sums, pairwise reduction in shared
//! memory, relaunched on the block results until one value is left): its result does not depend
//! on the worker count, so it is run once per order.

use std::time::Instant;

use stoch_core::Stochastic;
use stoch_gpu::cudarc::driver::{CudaSlice, DeviceRepr, PushKernelArg, ValidAsZeroBits};
use stoch_gpu::kernels::SUM_BLOCK;
use stoch_gpu::launch::{reduce_tree, tree_blocks, Chunks};
use stoch_gpu::{Gpu, GpuError, GpuFloat, SumMode};

use super::gpu_kernels::function;
use super::{
    global_sum_data, worker_counts, GlobalSumConfig, GpuGlobalSum, GpuMode, GpuSumError, GpuSumRow,
    Method, SumOutcome, GPU_METHODS, RANGES,
};

/// `f32` or `f64` in the plain kernels.
trait Plain: DeviceRepr + ValidAsZeroBits + Copy + std::ops::Add<Output = Self> {
    const SUFFIX: &'static str;
    const ZERO: Self;
    fn to_f64(self) -> f64;
}

impl Plain for f32 {
    const SUFFIX: &'static str = "f32";
    const ZERO: Self = 0.0;
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
}

impl Plain for f64 {
    const SUFFIX: &'static str = "f64";
    const ZERO: Self = 0.0;
    fn to_f64(self) -> f64 {
        self
    }
}

/// The number of (non-empty) partial sums of a launch: `threads` chunks, or the tree's first
/// level.
fn partial_sums(n: usize, mode: GpuMode, threads: usize) -> usize {
    match mode {
        GpuMode::Partials | GpuMode::Atomic => {
            Chunks::new(n, threads).map_or(0, |s| s.partial_sums())
        }
        GpuMode::Tree => (tree_blocks(n, SUM_BLOCK) * SUM_BLOCK as usize).min(n),
    }
}

/// Sum `input` (`n` values) with the plain kernels; the result comes back to the host.
/// `seconds`: the launches and the copy of the result.
fn plain_sum<P: Plain>(
    gpu: &Gpu,
    input: &CudaSlice<P>,
    n: usize,
    mode: GpuMode,
    threads: usize,
) -> Result<SumOutcome, GpuError> {
    let t0 = Instant::now();
    let entry = |m: &str| format!("repro_plain_sum_{m}_{}", P::SUFFIX);
    let r = match mode {
        GpuMode::Partials | GpuMode::Atomic => {
            let split = Chunks::new(n, threads)?;
            let atomic = mode == GpuMode::Atomic;
            let f = function(gpu, &entry(if atomic { "atomic" } else { "partials" }))?;
            let mut out = gpu.zeros_plain::<P>(if atomic { 1 } else { threads })?;
            let mut l = gpu.launch_builder(&f);
            l.arg(input)
                .arg(&mut out)
                .arg(&split.n)
                .arg(&split.chunk)
                .arg(&split.threads);
            // SAFETY: matches `repro_plain_sum_{partials,atomic}_{f32,f64}(const T*, T*, long
            // long n, long long chunk, int threads)` of plain_sum.cu with T = P; `input` holds
            // n values (the caller's upload), `out` holds `threads` values (1 for atomic);
            // threads t >= `threads` return at once, and thread t reads only
            // [t*chunk, min((t+1)*chunk, n)); 1-D blocks of 256 threads; no stochastic
            // arithmetic.
            unsafe { l.launch(split.config()?) }?;
            let host = gpu.download_plain(&out)?;
            host.into_iter().fold(P::ZERO, |acc, v| acc + v)
        }
        GpuMode::Tree => {
            let f = function(gpu, &entry("tree"))?;
            let out = reduce_tree(
                input,
                n,
                SUM_BLOCK,
                |blocks| gpu.zeros_plain::<P>(blocks),
                |src, out, len, config| {
                    let n64 = len as i64;
                    let mut l = gpu.launch_builder(&f);
                    l.arg(src).arg(out).arg(&n64);
                    // SAFETY: matches `repro_plain_sum_tree_{f32,f64}(const T*, T*, long long
                    // n)`; `src` holds `len` values, `out` one per block; blocks of exactly
                    // REPRO_SUM_BLOCK (256 = SUM_BLOCK) threads, as its shared buffer and
                    // `__launch_bounds__` require; reads are bounds-checked against n.
                    unsafe { l.launch(config) }?;
                    Ok(())
                },
            )?;
            gpu.download_plain(&out)?[0]
        }
    };
    Ok(SumOutcome {
        value: r.to_f64(),
        digits: None,
        computed_zero: None,
        seconds: t0.elapsed().as_secs_f64(),
    })
}

fn sum_mode(mode: GpuMode, threads: usize) -> Result<SumMode, GpuError> {
    let t = || {
        u32::try_from(threads)
            .map_err(|_| GpuError::InvalidArgument(format!("threads = {threads}")))
    };
    Ok(match mode {
        GpuMode::Partials => SumMode::Partials { threads: t()? },
        GpuMode::Atomic => SumMode::Atomic { threads: t()? },
        GpuMode::Tree => SumMode::Tree,
    })
}

fn kernel_name<T: GpuFloat>(mode: GpuMode) -> String {
    let m = match mode {
        GpuMode::Partials => "partials",
        GpuMode::Atomic => "atomic",
        GpuMode::Tree => "tree",
    };
    format!("stoch_sum_{m}_{}", T::SUFFIX)
}

/// One stochastic sum on the device; the result's flags go to the report's GPU section.
fn stoch_sum<T: GpuFloat>(
    gpu: &Gpu,
    input: &stoch_gpu::DeviceBuffer<T>,
    mode: GpuMode,
    threads: usize,
) -> Result<SumOutcome, GpuError> {
    let t0 = Instant::now();
    let r: Stochastic<T> = gpu.sum(input, sum_mode(mode, threads)?)?;
    let seconds = t0.elapsed().as_secs_f64();
    stoch_gpu::record_flags(&kernel_name::<T>(mode), &[r]);
    Ok(SumOutcome {
        value: r.to_f64(),
        digits: Some(r.digits()),
        computed_zero: Some(r.is_computed_zero()),
        seconds,
    })
}

/// The device copy of one ordered array, in the type of one method.
enum Uploaded {
    F32(CudaSlice<f32>),
    F64(CudaSlice<f64>),
    S32(stoch_gpu::DeviceBuffer<f32>),
    S64(stoch_gpu::DeviceBuffer<f64>),
}

fn upload(gpu: &Gpu, method: Method, data: &[f64]) -> Result<Uploaded, GpuError> {
    Ok(match method {
        Method::Float => {
            Uploaded::F32(gpu.upload_plain(&data.iter().map(|&x| x as f32).collect::<Vec<_>>())?)
        }
        Method::StochFloat => Uploaded::S32(
            gpu.upload(
                &data
                    .iter()
                    .map(|&x| Stochastic::<f32>::new(x as f32))
                    .collect::<Vec<_>>(),
            )?,
        ),
        Method::StochDouble => Uploaded::S64(
            gpu.upload(
                &data
                    .iter()
                    .map(|&x| Stochastic::<f64>::new(x))
                    .collect::<Vec<_>>(),
            )?,
        ),
        _ => Uploaded::F64(gpu.upload_plain(data)?),
    })
}

fn sum_uploaded(
    gpu: &Gpu,
    input: &Uploaded,
    n: usize,
    mode: GpuMode,
    threads: usize,
) -> Result<SumOutcome, GpuError> {
    match input {
        Uploaded::F32(b) => plain_sum(gpu, b, n, mode, threads),
        Uploaded::F64(b) => plain_sum(gpu, b, n, mode, threads),
        Uploaded::S32(b) => stoch_sum(gpu, b, mode, threads),
        Uploaded::S64(b) => stoch_sum(gpu, b, mode, threads),
    }
}

/// See [`super::GlobalSumGpu::run`].
pub(super) fn run(
    gpu: &Gpu,
    cfg: &GlobalSumConfig,
    progress: &mut dyn FnMut(&str),
) -> Result<GpuGlobalSum, GpuSumError> {
    let failed = |e: GpuError| GpuSumError::Failed(e.to_string());
    let methods: Vec<Method> = GPU_METHODS
        .into_iter()
        .filter(|m| cfg.methods.contains(m))
        .collect();
    let mut rows = Vec::new();
    let cells: Vec<(usize, usize)> = cfg
        .sizes
        .iter()
        .flat_map(|&size| cfg.ranges.iter().map(move |&range| (size, range)))
        .collect();
    for (k, &(size, range)) in cells.iter().enumerate() {
        progress(&format!(
            "[{}/{}] global-sum on the GPU ({}): {size} values, range {}",
            k + 1,
            cells.len(),
            gpu.name(),
            RANGES[range].label()
        ));
        let data = global_sum_data(cfg, size, range);
        for &order in &cfg.orders {
            let ordered = order.apply(&data, cfg.seed);
            let n = ordered.len();
            for &method in &methods {
                let input = upload(gpu, method, &ordered).map_err(failed)?;
                for mode in GpuMode::ALL {
                    for workers in worker_counts(cfg, mode) {
                        let threads = workers.unwrap_or(1);
                        let outcome =
                            sum_uploaded(gpu, &input, n, mode, threads).map_err(failed)?;
                        rows.push(GpuSumRow {
                            size,
                            range,
                            workers,
                            partial_sums: partial_sums(n, mode, threads),
                            order,
                            method,
                            mode,
                            outcome,
                        });
                    }
                }
            }
        }
    }
    Ok(GpuGlobalSum {
        device: format!("{} (sm_{})", gpu.name(), gpu.arch()),
        rows,
    })
}
