//! The launch API that the crate's own operations ([`crate::ops`]) and callers' kernels share.
//!
//! A launch goes through five steps, each a public call:
//!
//! 1. the entry point: [`Gpu::function`] (a shipped kernel), [`Gpu::kernel`] (any
//!    [`KernelSource`](crate::kernels::KernelSource), e.g. a table of the caller's own `.cu`
//!    files) or [`Gpu::user_function`] (a source string); NVRTC compiles each with the crate's
//!    options and the in-memory header `stochastic.cuh`, once per [`Gpu`];
//! 2. the buffers: [`Gpu::upload`], [`Gpu::zeros`] (stochastic values, byte for byte) and
//!    [`Gpu::upload_plain`], [`Gpu::zeros_plain`] (plain data);
//! 3. the shape: [`grid_1d`], [`grid_2d`], [`grid_3d`], [`Chunks`], with the scalar arguments
//!    checked by [`c_int`] and [`check_len`];
//! 4. the launch: [`Gpu::launch_builder`], the one `unsafe` step, or [`reduce_tree`], the
//!    loop of a block-wise tree reduction;
//! 5. the results: [`Gpu::download`], and [`crate::record_flags`] to merge the device flags
//!    into the report.
//!
//! # Examples
//!
//! A chunked sum of plain `float`s with a kernel of the caller's own:
//!
//! ```no_run
//! # fn main() -> Result<(), stoch_gpu::GpuError> {
//! use stoch_gpu::cudarc::driver::PushKernelArg;
//! use stoch_gpu::launch::Chunks;
//! use stoch_gpu::Gpu;
//!
//! let src = r#"extern "C" __global__ void part(const float* in, float* out, long long n,
//!                                             long long chunk, int threads) {
//!     int t = blockIdx.x * blockDim.x + threadIdx.x;
//!     if (t >= threads) return;
//!     float acc = 0.0f;
//!     for (long long i = t * chunk; i < n && i < (t + 1) * chunk; ++i) acc += in[i];
//!     out[t] = acc;
//! }"#;
//! let gpu = Gpu::new()?;
//! let f = gpu.user_function("part.cu", src, &[], "part")?;
//! let input = gpu.upload_plain(&vec![0.5f32; 1000])?;
//! let split = Chunks::new(1000, 10)?;
//! let mut out = gpu.zeros_plain::<f32>(10)?;
//! let mut launch = gpu.launch_builder(&f);
//! launch.arg(&input).arg(&mut out).arg(&split.n).arg(&split.chunk).arg(&split.threads);
//! // SAFETY: the arguments match `part`; `input` holds n values, `out` one per thread;
//! // threads past `threads` return, and thread t reads only its own chunk below n.
//! unsafe { launch.launch(split.config()?) }?;
//! let total: f32 = gpu.download_plain(&out)?.iter().sum();
//! # Ok(()) }
//! ```

use cudarc::driver::LaunchConfig;

use crate::error::{GpuError, Result};

#[cfg(doc)]
use crate::device::Gpu;

/// Threads per block of the one-dimensional launches ([`grid_1d`]).
pub const BLOCK_1D: u32 = 256;

/// Most blocks of one level of [`reduce_tree`]: the threads of a level sum with a grid stride
/// beyond that.
pub const TREE_MAX_BLOCKS: usize = 1024;

/// `v` as a C `int` argument.
///
/// # Errors
///
/// [`GpuError::InvalidArgument`], naming `what`, when `v` does not fit.
pub fn c_int(v: usize, what: &str) -> Result<i32> {
    i32::try_from(v)
        .map_err(|_| GpuError::InvalidArgument(format!("{what} = {v} does not fit in a C int")))
}

/// Two lengths that must agree.
///
/// # Errors
///
/// [`GpuError::LengthMismatch`] when they differ.
pub fn check_len(left: usize, right: usize) -> Result<()> {
    if left == right {
        Ok(())
    } else {
        Err(GpuError::LengthMismatch { left, right })
    }
}

/// Blocks of `per` threads covering `n` (at least one), as a grid dimension.
fn blocks(n: usize, per: u32, what: &str) -> Result<u32> {
    u32::try_from(n.div_ceil(per as usize).max(1))
        .map_err(|_| GpuError::InvalidArgument(format!("{what} = {n} is too large for one launch")))
}

/// One thread per item for `n` items: blocks of [`BLOCK_1D`] threads (at least one block);
/// the kernel checks `i < n`.
///
/// # Errors
///
/// [`GpuError::InvalidArgument`] when the grid would be too large.
pub fn grid_1d(n: usize) -> Result<LaunchConfig> {
    Ok(LaunchConfig {
        grid_dim: (blocks(n, BLOCK_1D, "n")?, 1, 1),
        block_dim: (BLOCK_1D, 1, 1),
        shared_mem_bytes: 0,
    })
}

/// One thread per element of a `rows x cols` matrix: 16x16 blocks, `x` along the columns.
///
/// # Errors
///
/// [`GpuError::InvalidArgument`] when the grid would be too large.
pub fn grid_2d(rows: usize, cols: usize) -> Result<LaunchConfig> {
    Ok(LaunchConfig {
        grid_dim: (blocks(cols, 16, "cols")?, blocks(rows, 16, "rows")?, 1),
        block_dim: (16, 16, 1),
        shared_mem_bytes: 0,
    })
}

/// One thread per point of an `[nx, ny, nz]` grid (`x` fastest): 32x4x2 blocks.
///
/// # Errors
///
/// [`GpuError::InvalidArgument`] when the grid would be too large.
pub fn grid_3d(dims: [usize; 3]) -> Result<LaunchConfig> {
    Ok(LaunchConfig {
        grid_dim: (
            blocks(dims[0], 32, "nx")?,
            blocks(dims[1], 4, "ny")?,
            blocks(dims[2], 2, "nz")?,
        ),
        block_dim: (32, 4, 2),
        shared_mem_bytes: 0,
    })
}

/// `n` values split among `threads` threads, thread `t` taking the contiguous chunk
/// `[t * chunk, min((t + 1) * chunk, n))` with `chunk = ceil(n / threads)`: the arguments of the
/// chunked sums, as the kernels take them (`long long n, long long chunk, int threads`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chunks {
    /// Number of values.
    pub n: i64,
    /// Values per thread (at least 1).
    pub chunk: i64,
    /// Number of threads.
    pub threads: i32,
}

impl Chunks {
    /// The split of `n` values among `threads` threads.
    ///
    /// # Errors
    ///
    /// [`GpuError::InvalidArgument`] for zero threads or more than a C `int` holds.
    pub fn new(n: usize, threads: usize) -> Result<Chunks> {
        if threads == 0 {
            return Err(GpuError::InvalidArgument("threads must be > 0".into()));
        }
        let invalid = || GpuError::InvalidArgument(format!("n = {n} is too large"));
        Ok(Chunks {
            n: i64::try_from(n).map_err(|_| invalid())?,
            chunk: i64::try_from(n.max(1).div_ceil(threads)).map_err(|_| invalid())?,
            threads: c_int(threads, "threads")?,
        })
    }

    /// Number of non-empty chunks (threads past the end of the values sum nothing).
    #[must_use]
    pub fn partial_sums(&self) -> usize {
        (self.threads as usize).min((self.n as usize).div_ceil(self.chunk as usize))
    }

    /// One thread per chunk ([`grid_1d`] of `threads`).
    ///
    /// # Errors
    ///
    /// As [`grid_1d`].
    pub fn config(&self) -> Result<LaunchConfig> {
        grid_1d(self.threads as usize)
    }
}

/// Blocks of the first level of [`reduce_tree`] for `n` values: `ceil(n / block)`, between 1
/// and [`TREE_MAX_BLOCKS`].
#[must_use]
pub fn tree_blocks(n: usize, block: u32) -> usize {
    n.div_ceil(block as usize).clamp(1, TREE_MAX_BLOCKS)
}

/// The launch loop of a block-wise tree reduction: each level launches [`tree_blocks`] blocks
/// of `block` threads that reduce `len` values (grid-stride, then pairwise in shared memory) to
/// one value per block, and the next level reduces those, until one block is left. Returns the
/// buffer holding the one value.
///
/// `alloc(blocks)` allocates a level's output; `launch(src, out, len, config)` launches one
/// level on the `len` values of `src` (the caller's kernel, arguments and `unsafe` block).
///
/// # Errors
///
/// The first error of `alloc` or `launch`.
pub fn reduce_tree<B>(
    input: &B,
    len: usize,
    block: u32,
    mut alloc: impl FnMut(usize) -> Result<B>,
    mut launch: impl FnMut(&B, &mut B, usize, LaunchConfig) -> Result<()>,
) -> Result<B> {
    let mut len = len;
    let mut current: Option<B> = None;
    loop {
        let blocks = tree_blocks(len, block);
        let mut out = alloc(blocks)?;
        let config = LaunchConfig {
            grid_dim: (blocks as u32, 1, 1),
            block_dim: (block, 1, 1),
            shared_mem_bytes: 0,
        };
        launch(current.as_ref().unwrap_or(input), &mut out, len, config)?;
        if blocks == 1 {
            return Ok(out);
        }
        len = blocks;
        current = Some(out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_cover_the_items() {
        let c = grid_1d(1000).unwrap();
        assert_eq!((c.grid_dim, c.block_dim), ((4, 1, 1), (256, 1, 1)));
        assert_eq!(grid_1d(0).unwrap().grid_dim, (1, 1, 1));
        let c = grid_2d(33, 17).unwrap();
        assert_eq!((c.grid_dim, c.block_dim), ((2, 3, 1), (16, 16, 1)));
        let c = grid_3d([33, 9, 3]).unwrap();
        assert_eq!((c.grid_dim, c.block_dim), ((2, 3, 2), (32, 4, 2)));
        assert!(grid_1d(usize::MAX).is_err());
        assert!(c_int(1 << 31, "n").is_err());
        assert_eq!(c_int(7, "n").unwrap(), 7);
        assert!(matches!(
            check_len(2, 3),
            Err(GpuError::LengthMismatch { left: 2, right: 3 })
        ));
    }

    #[test]
    fn chunks_split_like_the_kernels() {
        let s = Chunks::new(1000, 10).unwrap();
        assert_eq!(
            (s.n, s.chunk, s.threads, s.partial_sums()),
            (1000, 100, 10, 10)
        );
        // 10 values among 4 threads: chunks of 3, the last one short.
        let s = Chunks::new(10, 4).unwrap();
        assert_eq!((s.chunk, s.partial_sums()), (3, 4));
        // More threads than values: one value each, the rest idle.
        let s = Chunks::new(5, 1000).unwrap();
        assert_eq!((s.chunk, s.partial_sums()), (1, 5));
        assert_eq!(Chunks::new(0, 3).unwrap().partial_sums(), 0);
        assert!(Chunks::new(10, 0).is_err());
        assert_eq!(s.config().unwrap().grid_dim, (4, 1, 1));
    }

    /// The loop on host vectors: every level sums blocks of its input, as the kernels do.
    #[test]
    fn reduce_tree_relaunches_until_one_value() {
        let input: Vec<u64> = (1..=1_000_000).collect();
        let mut levels = Vec::new();
        let out = reduce_tree(
            &input,
            input.len(),
            256,
            |blocks| Ok(vec![0u64; blocks]),
            |src, out, len, cfg| {
                let blocks = cfg.grid_dim.0 as usize;
                assert_eq!(blocks, out.len());
                assert_eq!(cfg.block_dim, (256, 1, 1));
                levels.push((len, blocks));
                for (i, v) in src[..len].iter().enumerate() {
                    out[(i / 256) % blocks] += v; // grid stride past TREE_MAX_BLOCKS blocks
                }
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(out, vec![500_000_500_000]);
        assert_eq!(levels, vec![(1_000_000, 1024), (1024, 4), (4, 1)]);
        let one = reduce_tree(
            &vec![5u64],
            1,
            256,
            |b| Ok(vec![0; b]),
            |s, o, _, _| {
                o[0] = s[0];
                Ok(())
            },
        );
        assert_eq!(one.unwrap(), vec![5]);
    }
}
