//! The global-sum experiment on the device (`--features gpu`), through `stoch-gpu`.
//!
//! - The stochastic types (`Sf32`, `Sf64`) use the shipped kernels of `kernels/stoch_sum.cu`
//!   through [`Gpu::sum`](stoch_gpu::Gpu::sum), in the seed papers' three modes.
//! - Plain `float` and `double` have no shipped summation kernel, so this module carries its
//!   own, [`PLAIN_SUM_SOURCE`]: the same three modes with the same loops, chunks and launch
//!   shapes as `stoch_sum.cu`, in round-to-nearest IEEE arithmetic. It is compiled at run time
//!   by NVRTC with the crate's options (FMA contraction off, no flush-to-zero) through
//!   [`Gpu::user_function`](stoch_gpu::Gpu::user_function) and launched through the documented
//!   `unsafe` path, [`Gpu::launch_builder`](stoch_gpu::Gpu::launch_builder).
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
use stoch_gpu::cudarc::driver::{CudaSlice, DeviceRepr, LaunchConfig, PushKernelArg};
use stoch_gpu::kernels::SUM_BLOCK;
use stoch_gpu::{Gpu, GpuError, GpuFloat, SumMode};

use super::{
    global_sum_data, GlobalSumConfig, GpuGlobalSum, GpuMode, GpuSumError, GpuSumRow, Method,
    SumOutcome, GPU_METHODS, RANGES,
};

/// File name of [`PLAIN_SUM_SOURCE`] in NVRTC's messages.
pub const PLAIN_SUM_NAME: &str = "repro_plain_sum.cu";

/// Entry points of [`PLAIN_SUM_SOURCE`].
pub const PLAIN_SUM_ENTRIES: [&str; 6] = [
    "repro_plain_sum_partials_f32",
    "repro_plain_sum_partials_f64",
    "repro_plain_sum_atomic_f32",
    "repro_plain_sum_atomic_f64",
    "repro_plain_sum_tree_f32",
    "repro_plain_sum_tree_f64",
];

/// Plain (round-to-nearest) `float` / `double` summation kernels in the three modes of
/// `kernels/stoch_sum.cu`, with the same chunks, loops and launch shapes.
pub const PLAIN_SUM_SOURCE: &str = r#"
// Plain IEEE global summation for the repro suite: the modes of kernels/stoch_sum.cu in
// round-to-nearest float/double (compiled with --fmad=false --ftz=false).
#define REPRO_SUM_BLOCK 256

template <class T> __device__ __forceinline__ T repro_chunk_sum(const T* in, long long n, long long chunk, long long t) {
    T acc = (T)0;
    long long begin = t * chunk, end = begin + chunk < n ? begin + chunk : n;
    for (long long i = begin; i < end; ++i) acc = acc + in[i];
    return acc;
}

template <class T> __device__ __forceinline__ void repro_partials(const T* in, T* partial, long long n, long long chunk, int threads) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= threads) return;
    partial[t] = repro_chunk_sum(in, n, chunk, t);
}

template <class T> __device__ __forceinline__ void repro_atomic(const T* in, T* out, long long n, long long chunk, int threads) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= threads) return;
    atomicAdd(out, repro_chunk_sum(in, n, chunk, t));
}

template <class T> __device__ __forceinline__ void repro_tree(const T* in, T* block_out, long long n) {
    __shared__ T buf[REPRO_SUM_BLOCK];
    long long t = (long long)blockIdx.x * REPRO_SUM_BLOCK + threadIdx.x;
    long long stride = (long long)gridDim.x * REPRO_SUM_BLOCK;
    T acc = (T)0;
    for (long long i = t; i < n; i += stride) acc = acc + in[i];
    buf[threadIdx.x] = acc;
    __syncthreads();
    for (int s = REPRO_SUM_BLOCK / 2; s > 0; s >>= 1) {
        if ((int)threadIdx.x < s) buf[threadIdx.x] = buf[threadIdx.x] + buf[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) block_out[blockIdx.x] = buf[0];
}

extern "C" __global__ void repro_plain_sum_partials_f32(const float* in, float* partial, long long n, long long chunk, int threads) { repro_partials(in, partial, n, chunk, threads); }
extern "C" __global__ void repro_plain_sum_partials_f64(const double* in, double* partial, long long n, long long chunk, int threads) { repro_partials(in, partial, n, chunk, threads); }
extern "C" __global__ void repro_plain_sum_atomic_f32(const float* in, float* out, long long n, long long chunk, int threads) { repro_atomic(in, out, n, chunk, threads); }
extern "C" __global__ void repro_plain_sum_atomic_f64(const double* in, double* out, long long n, long long chunk, int threads) { repro_atomic(in, out, n, chunk, threads); }
extern "C" __global__ void __launch_bounds__(REPRO_SUM_BLOCK) repro_plain_sum_tree_f32(const float* in, float* block_out, long long n) { repro_tree(in, block_out, n); }
extern "C" __global__ void __launch_bounds__(REPRO_SUM_BLOCK) repro_plain_sum_tree_f64(const double* in, double* block_out, long long n) { repro_tree(in, block_out, n); }
"#;

/// `f32` or `f64` in the plain kernels.
trait Plain:
    DeviceRepr + stoch_gpu::cudarc::driver::ValidAsZeroBits + Copy + std::ops::Add<Output = Self>
{
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

fn cfg_1d(threads: usize) -> Result<LaunchConfig, GpuError> {
    let blocks = u32::try_from(threads.div_ceil(256).max(1))
        .map_err(|_| GpuError::InvalidArgument(format!("{threads} threads is too many")))?;
    Ok(LaunchConfig {
        grid_dim: (blocks, 1, 1),
        block_dim: (256, 1, 1),
        shared_mem_bytes: 0,
    })
}

/// Blocks of the first tree level for `n` values (as `Gpu::sum`'s tree mode).
fn tree_blocks(n: usize) -> usize {
    n.div_ceil(SUM_BLOCK as usize).clamp(1, 1024)
}

/// The number of (non-empty) partial sums of a launch: `threads` chunks, or the tree's first
/// level.
fn partial_sums(n: usize, mode: GpuMode, threads: usize) -> usize {
    match mode {
        GpuMode::Partials | GpuMode::Atomic => threads.min(n.div_ceil(n.div_ceil(threads))),
        GpuMode::Tree => (tree_blocks(n) * SUM_BLOCK as usize).min(n),
    }
}

/// Sum `input` (`n` values) with the plain kernels; the result comes back to the host.
fn plain_sum<P: Plain>(
    gpu: &Gpu,
    input: &CudaSlice<P>,
    n: usize,
    mode: GpuMode,
    threads: usize,
) -> Result<P, GpuError> {
    let entry = |m: &str| format!("repro_plain_sum_{m}_{}", P::SUFFIX);
    match mode {
        GpuMode::Partials | GpuMode::Atomic => {
            let t32 = i32::try_from(threads)
                .ok()
                .filter(|&t| t > 0)
                .ok_or_else(|| GpuError::InvalidArgument(format!("threads = {threads}")))?;
            let atomic = mode == GpuMode::Atomic;
            let f = gpu.user_function(
                PLAIN_SUM_NAME,
                PLAIN_SUM_SOURCE,
                &[],
                &entry(if atomic { "atomic" } else { "partials" }),
            )?;
            let (n64, chunk) = (n as i64, n.max(1).div_ceil(threads) as i64);
            let mut out = gpu.zeros_plain::<P>(if atomic { 1 } else { threads })?;
            let mut l = gpu.launch_builder(&f);
            l.arg(input).arg(&mut out).arg(&n64).arg(&chunk).arg(&t32);
            // SAFETY: matches `repro_plain_sum_{partials,atomic}_{f32,f64}(const T*, T*, long
            // long n, long long chunk, int threads)` of PLAIN_SUM_SOURCE with T = P; `input`
            // holds n values (the caller's upload), `out` holds `threads` values (1 for
            // atomic); threads t >= `threads` return at once, and thread t reads only
            // [t*chunk, min((t+1)*chunk, n)); 1-D blocks of 256 threads; no stochastic
            // arithmetic.
            unsafe { l.launch(cfg_1d(threads)?) }?;
            let host = gpu.download_plain(&out)?;
            Ok(host.into_iter().fold(P::ZERO, |acc, v| acc + v))
        }
        GpuMode::Tree => {
            let f = gpu.user_function(PLAIN_SUM_NAME, PLAIN_SUM_SOURCE, &[], &entry("tree"))?;
            let mut len = n;
            let mut current: Option<CudaSlice<P>> = None;
            loop {
                let blocks = tree_blocks(len);
                let mut out = gpu.zeros_plain::<P>(blocks)?;
                let n64 = len as i64;
                let src = current.as_ref().unwrap_or(input);
                let mut l = gpu.launch_builder(&f);
                l.arg(src).arg(&mut out).arg(&n64);
                // SAFETY: matches `repro_plain_sum_tree_{f32,f64}(const T*, T*, long long n)`;
                // `src` holds `len` values, `out` one per block; blocks of exactly
                // REPRO_SUM_BLOCK (256 = SUM_BLOCK) threads, as its shared buffer and
                // `__launch_bounds__` require; reads are bounds-checked against n.
                unsafe {
                    l.launch(LaunchConfig {
                        grid_dim: (blocks as u32, 1, 1),
                        block_dim: (SUM_BLOCK, 1, 1),
                        shared_mem_bytes: 0,
                    })
                }?;
                if blocks == 1 {
                    return Ok(gpu.download_plain(&out)?[0]);
                }
                len = blocks;
                current = Some(out);
            }
        }
    }
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

fn plain_outcome<P: Plain>(
    gpu: &Gpu,
    input: &CudaSlice<P>,
    n: usize,
    mode: GpuMode,
    threads: usize,
) -> Result<SumOutcome, GpuError> {
    let t0 = Instant::now();
    let r = plain_sum(gpu, input, n, mode, threads)?;
    Ok(SumOutcome {
        value: r.to_f64(),
        digits: None,
        computed_zero: None,
        seconds: t0.elapsed().as_secs_f64(),
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
        Uploaded::F32(b) => plain_outcome(gpu, b, n, mode, threads),
        Uploaded::F64(b) => plain_outcome(gpu, b, n, mode, threads),
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
    let blocks = cfg.sizes.len() * cfg.ranges.len();
    let mut block = 0;
    for &size in &cfg.sizes {
        for &range in &cfg.ranges {
            block += 1;
            progress(&format!(
                "[{block}/{blocks}] global-sum on the GPU ({}): {size} values, range {}",
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
                        let counts: Vec<Option<usize>> = match mode {
                            GpuMode::Tree => vec![None],
                            _ => cfg.workers.iter().map(|&w| Some(w)).collect(),
                        };
                        for workers in counts {
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
    }
    Ok(GpuGlobalSum {
        device: format!("{} (sm_{})", gpu.name(), gpu.arch()),
        rows,
    })
}
