//! The suite's own device kernels (`--features gpu`): the CADNA-GPU paper's 3-D acoustic wave
//! stencil (stochastic and plain binary32), do/undo, the plain matrix product, and the plain
//! global sums of [`super::gpu`]. Their sources live in `src/repro/kernels/` ([`KERNELS`]);
//! they are compiled and launched through `stoch-gpu`'s public launch API
//! ([`stoch_gpu::launch`], [`Gpu::kernel`]), the one the library's own operations use. Their
//! CPU references are in [`super::gpu_reference`].
//!
//! Each launcher checks the sizes, takes a fresh seed ([`Gpu::next_seed`]) for stochastic
//! kernels, and leaves the results on the device; merge the flags of a final result with
//! [`stoch_gpu::record_flags`] after downloading it.

use stoch_gpu::cudarc::driver::{CudaFunction, CudaSlice, PushKernelArg};
use stoch_gpu::kernels::KernelSource;
use stoch_gpu::launch::{c_int, check_len, grid_1d, grid_2d, grid_3d};
use stoch_gpu::{DeviceBuffer, Gpu, GpuError, GpuFloat};

pub use super::gpu_reference::{Dims, DoUndoMode};

/// Entry point names of the suite's kernels.
pub mod entry {
    /// One stochastic step of the 3-D acoustic wave stencil.
    pub const WAVE_STEP_F32: &str = "stoch_wave_step_f32";
    /// One plain binary32 step of the same stencil.
    pub const PLAIN_WAVE_STEP_F32: &str = "plain_wave_step_f32";
    /// Plain binary32 matrix product.
    pub const PLAIN_MATMUL_F32: &str = "plain_matmul_f32";
    /// Do/undo drift kernel (`f32`).
    pub const DO_UNDO_F32: &str = "stoch_do_undo_f32";
    /// Do/undo drift kernel (`f64`).
    pub const DO_UNDO_F64: &str = "stoch_do_undo_f64";
    /// Plain global sums of [`super::super::gpu`]: the modes of `kernels/stoch_sum.cu` in
    /// round-to-nearest `float` and `double`.
    pub const PLAIN_SUM: [&str; 6] = [
        "repro_plain_sum_partials_f32",
        "repro_plain_sum_partials_f64",
        "repro_plain_sum_atomic_f32",
        "repro_plain_sum_atomic_f64",
        "repro_plain_sum_tree_f32",
        "repro_plain_sum_tree_f64",
    ];
}

/// The stochastic wave stencil.
pub const WAVE: KernelSource = KernelSource {
    name: "stoch_wave.cu",
    source: include_str!("kernels/stoch_wave.cu"),
    entries: &[entry::WAVE_STEP_F32],
    stochastic: true,
};

/// Do/undo.
pub const DO_UNDO: KernelSource = KernelSource {
    name: "stoch_do_undo.cu",
    source: include_str!("kernels/stoch_do_undo.cu"),
    entries: &[entry::DO_UNDO_F32, entry::DO_UNDO_F64],
    stochastic: true,
};

/// The plain binary32 baselines: the wave stencil and the matrix product.
pub const PLAIN: KernelSource = KernelSource {
    name: "plain.cu",
    source: include_str!("kernels/plain.cu"),
    entries: &[entry::PLAIN_WAVE_STEP_F32, entry::PLAIN_MATMUL_F32],
    stochastic: false,
};

/// The plain global sums of [`super::gpu`].
pub const PLAIN_SUM: KernelSource = KernelSource {
    name: "plain_sum.cu",
    source: include_str!("kernels/plain_sum.cu"),
    entries: &entry::PLAIN_SUM,
    stochastic: false,
};

/// Every `.cu` file of `src/repro/kernels/` (a test checks the folder against it).
pub const KERNELS: &[KernelSource] = &[WAVE, DO_UNDO, PLAIN, PLAIN_SUM];

/// A suite kernel by entry-point name ([`Gpu::kernel`] on its [`KERNELS`] entry), compiled
/// and loaded on first use.
///
/// # Errors
///
/// [`GpuError::UnknownKernel`] for a name no suite kernel defines, or a compile / load error.
pub fn function(gpu: &Gpu, entry: &str) -> Result<CudaFunction, GpuError> {
    let k = KERNELS
        .iter()
        .find(|k| k.entries.contains(&entry))
        .ok_or_else(|| GpuError::UnknownKernel(entry.to_string()))?;
    gpu.kernel(k, entry)
}

/// The C `int` arguments of an `[nx, ny, nz]` grid, after checking that every array holds
/// `nx * ny * nz` points.
fn grid_args(dims: Dims, lens: [usize; 4]) -> Result<[i32; 3], GpuError> {
    for len in lens {
        check_len(len, dims[0] * dims[1] * dims[2])?;
    }
    Ok([
        c_int(dims[0], "nx")?,
        c_int(dims[1], "ny")?,
        c_int(dims[2], "nz")?,
    ])
}

/// One stochastic step of the 3-D acoustic wave stencil: `u_next` from `u_prev` and `u`
/// (`vel` = c^2 dt^2 / h^2 per point).
///
/// # Errors
///
/// [`GpuError::LengthMismatch`] unless every array holds `nx * ny * nz` points, or a compile /
/// driver error.
pub fn wave_step(
    gpu: &Gpu,
    u_prev: &DeviceBuffer<f32>,
    u: &DeviceBuffer<f32>,
    u_next: &mut DeviceBuffer<f32>,
    vel: &CudaSlice<f32>,
    dims: Dims,
) -> Result<(), GpuError> {
    let f = function(gpu, entry::WAVE_STEP_F32)?;
    // SAFETY: `f` is the suite's own compilation of `stoch_wave_step_f32`.
    unsafe { wave_step_in(gpu, &f, u_prev, u, u_next, vel, dims) }
}

/// [`wave_step`] with a given compilation of `stoch_wave_step_f32`, e.g. one with other
/// `STOCH_DETECT` checks from [`Gpu::user_function`] on [`WAVE`]'s source. `f` must be that
/// kernel, compiled for blocks of at least 256 threads (`STOCH_MAX_BLOCK_THREADS`).
///
/// # Safety
///
/// `f` must be a compilation of `stoch_wave_step_f32` of [`WAVE`]'s source (any defines
/// except a `STOCH_MAX_BLOCK_THREADS` below 256): the launch passes it that signature's
/// arguments.
///
/// # Errors
///
/// [`GpuError::LengthMismatch`] unless every array holds `nx * ny * nz` points, or a driver
/// error.
pub unsafe fn wave_step_in(
    gpu: &Gpu,
    f: &CudaFunction,
    u_prev: &DeviceBuffer<f32>,
    u: &DeviceBuffer<f32>,
    u_next: &mut DeviceBuffer<f32>,
    vel: &CudaSlice<f32>,
    dims: Dims,
) -> Result<(), GpuError> {
    let [nx, ny, nz] = grid_args(dims, [u_prev.len(), u.len(), u_next.len(), vel.len()])?;
    let config = grid_3d(dims)?;
    let seed = gpu.next_seed();
    let mut l = gpu.launch_builder(f);
    l.arg(u_prev.raw())
        .arg(u.raw())
        .arg(u_next.raw_mut())
        .arg(vel)
        .arg(&nx)
        .arg(&ny)
        .arg(&nz)
        .arg(&seed);
    // SAFETY: `f` is `stoch_wave_step_f32(const stoch_float*, const stoch_float*, stoch_float*,
    // const float*, int, int, int, unsigned long long)` (the caller's contract); all arrays hold
    // nx*ny*nz points (checked by `grid_args`); 32x4x2 blocks of 256 threads, within
    // STOCH_MAX_BLOCK_THREADS; the kernel bounds-checks every index and calls stoch_init_at.
    unsafe { l.launch(config) }?;
    Ok(())
}

/// One plain binary32 step of the same stencil (IEEE baseline and timing).
///
/// # Errors
///
/// [`GpuError::LengthMismatch`] unless every array holds `nx * ny * nz` points, or a compile /
/// driver error.
pub fn plain_wave_step(
    gpu: &Gpu,
    u_prev: &CudaSlice<f32>,
    u: &CudaSlice<f32>,
    u_next: &mut CudaSlice<f32>,
    vel: &CudaSlice<f32>,
    dims: Dims,
) -> Result<(), GpuError> {
    let [nx, ny, nz] = grid_args(dims, [u_prev.len(), u.len(), u_next.len(), vel.len()])?;
    let f = function(gpu, entry::PLAIN_WAVE_STEP_F32)?;
    let mut l = gpu.launch_builder(&f);
    l.arg(u_prev)
        .arg(u)
        .arg(u_next)
        .arg(vel)
        .arg(&nx)
        .arg(&ny)
        .arg(&nz);
    // SAFETY: matches `plain_wave_step_f32(const float*, const float*, float*, const float*,
    // int, int, int)`; sizes checked as in `wave_step`; the kernel bounds-checks every index.
    unsafe { l.launch(grid_3d(dims)?) }?;
    Ok(())
}

/// Plain binary32 matrix product `C = A B` with the loop of `stoch_matmul_f32` (IEEE baseline
/// and timing; row-major, `a` is `n x k`, `b` is `k x m`).
///
/// # Errors
///
/// [`GpuError::LengthMismatch`] when a buffer's length is not the product of its sizes, or a
/// compile / driver error.
pub fn plain_matmul(
    gpu: &Gpu,
    a: &CudaSlice<f32>,
    b: &CudaSlice<f32>,
    n: usize,
    m: usize,
    k: usize,
) -> Result<CudaSlice<f32>, GpuError> {
    check_len(a.len(), n * k)?;
    check_len(b.len(), k * m)?;
    let f = function(gpu, entry::PLAIN_MATMUL_F32)?;
    let mut c = gpu.zeros_plain::<f32>((n * m).max(1))?;
    let (n32, m32, k32) = (c_int(n, "n")?, c_int(m, "m")?, c_int(k, "k")?);
    let mut l = gpu.launch_builder(&f);
    l.arg(a).arg(b).arg(&mut c).arg(&n32).arg(&m32).arg(&k32);
    // SAFETY: matches `plain_matmul_f32(const float*, const float*, float*, int, int, int)`;
    // a holds n*k, b k*m, c n*m values (checked); 16x16 blocks; the kernel bounds-checks
    // row < n and col < m.
    unsafe { l.launch(grid_2d(n, m)?) }?;
    Ok(c)
}

/// Do/undo: each `x[i]` goes through `iters` rounds of an operation and its inverse with
/// `y[(i + it) % y.len()]`, in place.
///
/// # Errors
///
/// [`GpuError::InvalidArgument`] for an empty `y`, or a compile / driver error.
pub fn do_undo<T: GpuFloat>(
    gpu: &Gpu,
    x: &mut DeviceBuffer<T>,
    y: &DeviceBuffer<T>,
    iters: u32,
    mode: DoUndoMode,
) -> Result<(), GpuError> {
    if y.is_empty() {
        return Err(GpuError::InvalidArgument("y must not be empty".into()));
    }
    let f = function(gpu, &format!("stoch_do_undo_{}", T::SUFFIX))?;
    let (n, m, it, md, seed) = (
        c_int(x.len(), "n")?,
        c_int(y.len(), "m")?,
        c_int(iters as usize, "iters")?,
        mode as i32,
        gpu.next_seed(),
    );
    let config = grid_1d(x.len())?;
    let mut l = gpu.launch_builder(&f);
    l.arg(x.raw_mut())
        .arg(y.raw())
        .arg(&n)
        .arg(&m)
        .arg(&it)
        .arg(&md)
        .arg(&seed);
    // SAFETY: matches `stoch_do_undo_{f32,f64}(stoch_t*, const stoch_t*, int n, int m, int
    // iters, int mode, unsigned long long)`; x holds n values, y holds m > 0 values; 1-D blocks
    // of 256 threads; the kernel bounds-checks i < n.
    unsafe { l.launch(config) }?;
    Ok(())
}
