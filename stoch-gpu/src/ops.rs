//! Safe launch helpers for the kernels shipped in `kernels/`.
//!
//! Each helper checks sizes, allocates the output, and launches with a fresh seed from
//! [`Gpu::next_seed`]. Results stay on the device until [`Gpu::download`]; merge their flags
//! into the report with [`crate::record_flags`].

use cudarc::driver::{CudaSlice, LaunchConfig, PushKernelArg};
use stoch_core::{Flags, Stochastic};

use crate::device::{DeviceBuffer, Gpu, GpuFloat};
use crate::error::{GpuError, Result};
use crate::kernels::{entry, SUM_BLOCK};

/// Element-wise binary operations of `stoch_binary_*` (codes as in `kernels/stoch_ops.cu`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum BinaryOp {
    /// `a + b`
    Add,
    /// `a - b`
    Sub,
    /// `a * b`
    Mul,
    /// `a / b`
    Div,
    /// `fma(a, b, a)`: `a * b + a` with one rounding per sample
    MulAddSelf,
    /// `a + b.x` (plain right operand: the first sample of `b`)
    AddPlain,
    /// `a - b.x`
    SubPlain,
    /// `a * b.x`
    MulPlain,
    /// `a / b.x`
    DivPlain,
    /// `pow(a, b)`
    Pow,
    /// `fmin(a, b)`: the smaller by the stochastic `<=` (Branching on noise, as the host `min`)
    Min,
    /// `fmax(a, b)`: the larger by the stochastic `>=`
    Max,
    /// `copysign(a, b)` per sample
    CopySign,
    /// `log(a, b)`: logarithm of `a` in base `b`
    LogBase,
    /// `a % b` (fmod per sample; Intrinsic when the truncated quotients differ)
    Rem,
    /// `a % b.x`
    RemPlain,
    /// `a.x % b` (plain left operand: the first sample of `a`)
    PlainRem,
    /// `clamp(a, -b, b)`
    ClampSym,
    /// `rem_euclid(a, b)`: least non-negative remainder per sample
    RemEuclid,
    /// `div_euclid(a, b)`: Euclidean quotient per sample
    DivEuclid,
}

impl BinaryOp {
    fn code(self) -> i32 {
        self as i32
    }
}

/// Element-wise unary operations of `stoch_unary_*`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum UnaryOp {
    /// `sqrt(a)`
    Sqrt,
    /// `-a`
    Neg,
    /// `|a|`
    Abs,
    /// `floor(a)`
    Floor,
    /// `ceil(a)`
    Ceil,
    /// `round(a)`
    Round,
    /// `trunc(a)`
    Trunc,
    /// `exp(a)`
    Exp,
    /// `ln(a)`
    Ln,
    /// `sin(a)`
    Sin,
    /// `cos(a)`
    Cos,
    /// `tan(a)`
    Tan,
    /// `atan(a)`
    Atan,
    /// `tanh(a)`
    Tanh,
    /// `log10(a)`
    Log10,
    /// `cbrt(a)`
    Cbrt,
    /// `a^3` by multiplication (`powi`)
    Cube,
    /// `signum(a)` per sample
    Signum,
    /// `fract(a)`: `a - trunc(a)` per sample
    Fract,
    /// `recip(a)`: `1 / a`
    Recip,
    /// `to_degrees(a)`
    ToDegrees,
    /// `to_radians(a)`
    ToRadians,
    /// `sin(a)` from `sincos`, with the flags of the cosine too
    SinCos,
    /// `stoch_is_nan(a)` as an exact 1 or 0, with `a`'s flags after the test
    IsNan,
    /// `stoch_is_finite(a)` (1 or 0, with `a`'s flags)
    IsFinite,
    /// `stoch_is_infinite(a)` (1 or 0, with `a`'s flags)
    IsInfinite,
    /// `stoch_is_sign_positive(a)` (1 or 0, with `a`'s flags)
    IsSignPositive,
    /// `stoch_is_sign_negative(a)` (1 or 0, with `a`'s flags)
    IsSignNegative,
}

/// Relations of `stoch_compare_*`, with DSA semantics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum CompareOp {
    /// `a < b`
    Lt,
    /// `a <= b`
    Le,
    /// `a > b`
    Gt,
    /// `a >= b`
    Ge,
    /// `a == b` (the difference is a computed zero)
    Eq,
    /// `a != b`
    Ne,
    /// `a == b.x` (plain right operand: the first sample of `b`)
    EqPlain,
    /// `a != b.x`
    NePlain,
    /// `b.x == a` (plain left operand)
    PlainEq,
    /// `b.x < a`
    PlainLt,
    /// `b.x >= a`
    PlainGe,
}

/// How [`Gpu::sum`] sums: the three modes of the seed papers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SumMode {
    /// `threads` threads each sum a contiguous chunk; the host adds the partial sums in order.
    Partials {
        /// Number of partial sums.
        threads: u32,
    },
    /// The same chunks, then atomic additions on the device (order not repeatable).
    Atomic {
        /// Number of partial sums.
        threads: u32,
    },
    /// Block-wise tree reduction in shared memory, repeated until one value is left.
    Tree,
}

/// The operation pairs of [`Gpu::do_undo`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DoUndoMode {
    /// `x = x * y; x = x / y`
    MulDiv = 0,
    /// `x = x + y; x = x - y`
    AddSub = 1,
    /// `x = x * x; x = sqrt(x)` (`y` unused; `x > 0`)
    SquareSqrt = 2,
}

/// Grid dimensions `[nx, ny, nz]` of the wave stencil (x fastest).
pub type Dims = [usize; 3];

fn to_i32(v: usize, what: &str) -> Result<i32> {
    i32::try_from(v)
        .map_err(|_| GpuError::InvalidArgument(format!("{what} = {v} does not fit in a C int")))
}

fn same_len(a: usize, b: usize) -> Result<()> {
    if a == b {
        Ok(())
    } else {
        Err(GpuError::LengthMismatch { left: a, right: b })
    }
}

fn cfg_1d(n: usize) -> Result<LaunchConfig> {
    let blocks = u32::try_from(n.div_ceil(256).max(1)).map_err(|_| {
        GpuError::InvalidArgument(format!("{n} elements is too many for one launch"))
    })?;
    Ok(LaunchConfig {
        grid_dim: (blocks, 1, 1),
        block_dim: (256, 1, 1),
        shared_mem_bytes: 0,
    })
}

fn cfg_2d(rows: usize, cols: usize) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (
            cols.div_ceil(16).max(1) as u32,
            rows.div_ceil(16).max(1) as u32,
            1,
        ),
        block_dim: (16, 16, 1),
        shared_mem_bytes: 0,
    }
}

fn cfg_3d(d: Dims) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (
            d[0].div_ceil(32).max(1) as u32,
            d[1].div_ceil(4).max(1) as u32,
            d[2].div_ceil(2).max(1) as u32,
        ),
        block_dim: (32, 4, 2),
        shared_mem_bytes: 0,
    }
}

fn name<T: GpuFloat>(base: &str) -> String {
    format!("{base}_{}", T::SUFFIX)
}

impl Gpu {
    /// `out[i] = a[i] op b[i]` with the device operators.
    ///
    /// # Errors
    ///
    /// [`GpuError::LengthMismatch`], or a compile / driver error.
    pub fn binary<T: GpuFloat>(
        &self,
        op: BinaryOp,
        a: &DeviceBuffer<T>,
        b: &DeviceBuffer<T>,
    ) -> Result<DeviceBuffer<T>> {
        same_len(a.len(), b.len())?;
        let f = self.function(&name::<T>("stoch_binary"))?;
        let mut out = self.zeros::<T>(a.len())?;
        let (n, code, seed) = (to_i32(a.len(), "n")?, op.code(), self.next_seed());
        let mut l = self.launch_builder(&f);
        l.arg(a.raw())
            .arg(b.raw())
            .arg(out.raw_mut())
            .arg(&n)
            .arg(&code)
            .arg(&seed);
        // SAFETY: matches `stoch_binary_{f32,f64}(const stoch_t*, const stoch_t*, stoch_t*, int,
        // int, unsigned long long)` in stoch_ops.cu; the three buffers hold n values of T; 1-D
        // blocks of 256 threads; the kernel bounds-checks i < n.
        unsafe { l.launch(cfg_1d(a.len())?) }?;
        Ok(out)
    }

    /// `out[i] = op(a[i])`.
    ///
    /// # Errors
    ///
    /// A compile or driver error.
    pub fn unary<T: GpuFloat>(&self, op: UnaryOp, a: &DeviceBuffer<T>) -> Result<DeviceBuffer<T>> {
        let f = self.function(&name::<T>("stoch_unary"))?;
        let mut out = self.zeros::<T>(a.len())?;
        let (n, code, seed) = (to_i32(a.len(), "n")?, op as i32, self.next_seed());
        let mut l = self.launch_builder(&f);
        l.arg(a.raw())
            .arg(out.raw_mut())
            .arg(&n)
            .arg(&code)
            .arg(&seed);
        // SAFETY: matches `stoch_unary_{f32,f64}(const stoch_t*, stoch_t*, int, int, unsigned
        // long long)`; both buffers hold n values; the kernel bounds-checks i < n.
        unsafe { l.launch(cfg_1d(a.len())?) }?;
        Ok(out)
    }

    /// Evaluate `a[i] op b[i]` on the device: the relation per element, and `a[i]`'s flags
    /// after the comparison (a branching instability sets [`stoch_core::Instability::Branching`]).
    ///
    /// # Errors
    ///
    /// [`GpuError::LengthMismatch`], or a compile / driver error.
    pub fn compare<T: GpuFloat>(
        &self,
        op: CompareOp,
        a: &DeviceBuffer<T>,
        b: &DeviceBuffer<T>,
    ) -> Result<(Vec<bool>, Vec<Flags>)> {
        same_len(a.len(), b.len())?;
        let f = self.function(&name::<T>("stoch_compare"))?;
        let mut result = self.zeros_plain::<u8>(a.len().max(1))?;
        let mut flags = self.zeros_plain::<u8>(a.len().max(1))?;
        let (n, code, seed) = (to_i32(a.len(), "n")?, op as i32, self.next_seed());
        let mut l = self.launch_builder(&f);
        l.arg(a.raw())
            .arg(b.raw())
            .arg(&mut result)
            .arg(&mut flags)
            .arg(&n)
            .arg(&code)
            .arg(&seed);
        // SAFETY: matches `stoch_compare_{f32,f64}(const stoch_t*, const stoch_t*, unsigned
        // char*, unsigned char*, int, int, unsigned long long)`; all buffers hold >= n items.
        unsafe { l.launch(cfg_1d(a.len())?) }?;
        let r = self.download_plain(&result)?;
        let fl = self.download_plain(&flags)?;
        Ok((
            r[..a.len()].iter().map(|&x| x != 0).collect(),
            fl[..a.len()].iter().map(|&x| Flags::from_bits(x)).collect(),
        ))
    }

    /// Exact significant digits and the computed-zero test, evaluated on the device.
    ///
    /// # Errors
    ///
    /// A compile or driver error.
    pub fn digits<T: GpuFloat>(&self, a: &DeviceBuffer<T>) -> Result<(Vec<u32>, Vec<bool>)> {
        let f = self.function(&name::<T>("stoch_digits"))?;
        let mut digits = self.zeros_plain::<i32>(a.len().max(1))?;
        let mut zero = self.zeros_plain::<u8>(a.len().max(1))?;
        let n = to_i32(a.len(), "n")?;
        let mut l = self.launch_builder(&f);
        l.arg(a.raw()).arg(&mut digits).arg(&mut zero).arg(&n);
        // SAFETY: matches `stoch_digits_{f32,f64}(const stoch_t*, int*, unsigned char*, int)`;
        // all buffers hold >= n items.
        unsafe { l.launch(cfg_1d(a.len())?) }?;
        let d = self.download_plain(&digits)?;
        let z = self.download_plain(&zero)?;
        Ok((
            d[..a.len()].iter().map(|&x| x.max(0) as u32).collect(),
            z[..a.len()].iter().map(|&x| x != 0).collect(),
        ))
    }

    /// The layout words written by `stoch_layout_probe` for `stoch_float` and `stoch_double`:
    /// `size | x << 8 | y << 16 | z << 24 | flags << 32 | pad << 40 | align << 48`.
    ///
    /// # Errors
    ///
    /// A compile or driver error.
    pub fn layout_probe(&self) -> Result<[u64; 2]> {
        let f = self.function(entry::LAYOUT_PROBE)?;
        let mut out = self.zeros_plain::<u64>(2)?;
        let mut l = self.launch_builder(&f);
        l.arg(&mut out);
        let one = LaunchConfig {
            grid_dim: (1, 1, 1),
            block_dim: (1, 1, 1),
            shared_mem_bytes: 0,
        };
        // SAFETY: matches `stoch_layout_probe(unsigned long long*)`; one thread writes out[0..2].
        unsafe { l.launch(one) }?;
        let v = self.download_plain(&out)?;
        Ok([v[0], v[1]])
    }

    /// Stochastic matrix product `C = A B` (row-major; `a` is `n x k`, `b` is `k x m`).
    ///
    /// # Errors
    ///
    /// [`GpuError::LengthMismatch`] when a buffer's length is not the product of its sizes.
    pub fn matmul<T: GpuFloat>(
        &self,
        a: &DeviceBuffer<T>,
        b: &DeviceBuffer<T>,
        n: usize,
        m: usize,
        k: usize,
    ) -> Result<DeviceBuffer<T>> {
        same_len(a.len(), n * k)?;
        same_len(b.len(), k * m)?;
        let f = self.function(&name::<T>("stoch_matmul"))?;
        let mut c = self.zeros::<T>(n * m)?;
        let (n32, m32, k32, seed) = (
            to_i32(n, "n")?,
            to_i32(m, "m")?,
            to_i32(k, "k")?,
            self.next_seed(),
        );
        let mut l = self.launch_builder(&f);
        l.arg(a.raw())
            .arg(b.raw())
            .arg(c.raw_mut())
            .arg(&n32)
            .arg(&m32)
            .arg(&k32)
            .arg(&seed);
        // SAFETY: matches `stoch_matmul_{f32,f64}(const stoch_t*, const stoch_t*, stoch_t*, int
        // n, int m, int k, unsigned long long)`; a holds n*k, b k*m, c n*m values (checked);
        // 16x16 blocks; the kernel bounds-checks row < n and col < m.
        unsafe { l.launch(cfg_2d(n, m)) }?;
        Ok(c)
    }

    /// Plain binary32 matrix product with the same loop (IEEE baseline and timing).
    ///
    /// # Errors
    ///
    /// [`GpuError::LengthMismatch`], or a compile / driver error.
    pub fn plain_matmul(
        &self,
        a: &CudaSlice<f32>,
        b: &CudaSlice<f32>,
        n: usize,
        m: usize,
        k: usize,
    ) -> Result<CudaSlice<f32>> {
        same_len(a.len(), n * k)?;
        same_len(b.len(), k * m)?;
        let f = self.function(entry::PLAIN_MATMUL_F32)?;
        let mut c = self.zeros_plain::<f32>((n * m).max(1))?;
        let (n32, m32, k32) = (to_i32(n, "n")?, to_i32(m, "m")?, to_i32(k, "k")?);
        let mut l = self.launch_builder(&f);
        l.arg(a).arg(b).arg(&mut c).arg(&n32).arg(&m32).arg(&k32);
        // SAFETY: matches `plain_matmul_f32(const float*, const float*, float*, int, int, int)`;
        // sizes checked as in `matmul`.
        unsafe { l.launch(cfg_2d(n, m)) }?;
        Ok(c)
    }

    /// Sum all values of `input` in the given mode; the result comes back to the host.
    ///
    /// # Errors
    ///
    /// [`GpuError::InvalidArgument`] for zero threads, or a compile / driver error.
    pub fn sum<T: GpuFloat>(
        &self,
        input: &DeviceBuffer<T>,
        mode: SumMode,
    ) -> Result<Stochastic<T>> {
        let n = input.len() as i64;
        match mode {
            SumMode::Partials { threads } | SumMode::Atomic { threads } => {
                if threads == 0 {
                    return Err(GpuError::InvalidArgument("threads must be > 0".into()));
                }
                let chunk = (n.max(1) + threads as i64 - 1) / threads as i64;
                let t32 = threads as i32;
                let seed = self.next_seed();
                let atomic = matches!(mode, SumMode::Atomic { .. });
                let f = self.function(&name::<T>(if atomic {
                    "stoch_sum_atomic"
                } else {
                    "stoch_sum_partials"
                }))?;
                let mut out = self.zeros::<T>(if atomic { 1 } else { threads as usize })?;
                let mut l = self.launch_builder(&f);
                l.arg(input.raw())
                    .arg(out.raw_mut())
                    .arg(&n)
                    .arg(&chunk)
                    .arg(&t32)
                    .arg(&seed);
                // SAFETY: matches `stoch_sum_{partials,atomic}_{f32,f64}(const stoch_t*, stoch_t*,
                // long long n, long long chunk, int threads, unsigned long long)`; `input` holds
                // n values, `out` holds `threads` values (1 for atomic); threads >= t return.
                unsafe { l.launch(cfg_1d(threads as usize)?) }?;
                let host = self.download(&out)?;
                Ok(host
                    .into_iter()
                    .fold(Stochastic::<T>::ZERO, |acc, v| acc + v))
            }
            SumMode::Tree => {
                let f = self.function(&name::<T>("stoch_sum_tree"))?;
                let mut len = input.len();
                let mut current: Option<DeviceBuffer<T>> = None;
                loop {
                    let blocks = len.div_ceil(SUM_BLOCK as usize).clamp(1, 1024);
                    let mut out = self.zeros::<T>(blocks)?;
                    let (n64, seed) = (len as i64, self.next_seed());
                    let src = current.as_ref().unwrap_or(input);
                    let mut l = self.launch_builder(&f);
                    l.arg(src.raw()).arg(out.raw_mut()).arg(&n64).arg(&seed);
                    // SAFETY: matches `stoch_sum_tree_{f32,f64}(const stoch_t*, stoch_t*, long
                    // long n, unsigned long long)`; `src` holds n values, `out` one per block;
                    // blocks of exactly STOCH_SUM_BLOCK (256) threads as the kernel requires.
                    unsafe {
                        l.launch(LaunchConfig {
                            grid_dim: (blocks as u32, 1, 1),
                            block_dim: (SUM_BLOCK, 1, 1),
                            shared_mem_bytes: 0,
                        })
                    }?;
                    if blocks == 1 {
                        return Ok(self.download(&out)?[0]);
                    }
                    len = blocks;
                    current = Some(out);
                }
            }
        }
    }

    /// Do/undo: each `x[i]` goes through `iters` rounds of an operation and its inverse with
    /// `y[(i + it) % y.len()]`, in place.
    ///
    /// # Errors
    ///
    /// [`GpuError::InvalidArgument`] for an empty `y`, or a compile / driver error.
    pub fn do_undo<T: GpuFloat>(
        &self,
        x: &mut DeviceBuffer<T>,
        y: &DeviceBuffer<T>,
        iters: u32,
        mode: DoUndoMode,
    ) -> Result<()> {
        if y.is_empty() {
            return Err(GpuError::InvalidArgument("y must not be empty".into()));
        }
        let f = self.function(&name::<T>("stoch_do_undo"))?;
        let (n, m, it, md, seed) = (
            to_i32(x.len(), "n")?,
            to_i32(y.len(), "m")?,
            to_i32(iters as usize, "iters")?,
            mode as i32,
            self.next_seed(),
        );
        let cfg = cfg_1d(x.len())?;
        let mut l = self.launch_builder(&f);
        l.arg(x.raw_mut())
            .arg(y.raw())
            .arg(&n)
            .arg(&m)
            .arg(&it)
            .arg(&md)
            .arg(&seed);
        // SAFETY: matches `stoch_do_undo_{f32,f64}(stoch_t*, const stoch_t*, int n, int m, int
        // iters, int mode, unsigned long long)`; x holds n values, y holds m > 0 values.
        unsafe { l.launch(cfg) }?;
        Ok(())
    }

    /// One stochastic step of the 3-D acoustic wave stencil: `u_next` from `u_prev` and `u`
    /// (`vel` = c^2 dt^2 / h^2 per point).
    ///
    /// # Errors
    ///
    /// [`GpuError::LengthMismatch`] unless every array holds `nx * ny * nz` points.
    pub fn wave_step(
        &self,
        u_prev: &DeviceBuffer<f32>,
        u: &DeviceBuffer<f32>,
        u_next: &mut DeviceBuffer<f32>,
        vel: &CudaSlice<f32>,
        dims: Dims,
    ) -> Result<()> {
        let points = dims[0] * dims[1] * dims[2];
        for len in [u_prev.len(), u.len(), u_next.len(), vel.len()] {
            same_len(len, points)?;
        }
        let f = self.function(entry::WAVE_STEP_F32)?;
        let (nx, ny, nz, seed) = (
            to_i32(dims[0], "nx")?,
            to_i32(dims[1], "ny")?,
            to_i32(dims[2], "nz")?,
            self.next_seed(),
        );
        let mut l = self.launch_builder(&f);
        l.arg(u_prev.raw())
            .arg(u.raw())
            .arg(u_next.raw_mut())
            .arg(vel)
            .arg(&nx)
            .arg(&ny)
            .arg(&nz)
            .arg(&seed);
        // SAFETY: matches `stoch_wave_step_f32(const stoch_float*, const stoch_float*,
        // stoch_float*, const float*, int, int, int, unsigned long long)`; all arrays hold
        // nx*ny*nz points (checked); 32x4x2 blocks; the kernel bounds-checks every index.
        unsafe { l.launch(cfg_3d(dims)) }?;
        Ok(())
    }

    /// One plain binary32 step of the same stencil (IEEE baseline and timing).
    ///
    /// # Errors
    ///
    /// [`GpuError::LengthMismatch`] unless every array holds `nx * ny * nz` points.
    pub fn plain_wave_step(
        &self,
        u_prev: &CudaSlice<f32>,
        u: &CudaSlice<f32>,
        u_next: &mut CudaSlice<f32>,
        vel: &CudaSlice<f32>,
        dims: Dims,
    ) -> Result<()> {
        let points = dims[0] * dims[1] * dims[2];
        for len in [u_prev.len(), u.len(), u_next.len(), vel.len()] {
            same_len(len, points)?;
        }
        let f = self.function(entry::PLAIN_WAVE_STEP_F32)?;
        let (nx, ny, nz) = (
            to_i32(dims[0], "nx")?,
            to_i32(dims[1], "ny")?,
            to_i32(dims[2], "nz")?,
        );
        let mut l = self.launch_builder(&f);
        l.arg(u_prev)
            .arg(u)
            .arg(u_next)
            .arg(vel)
            .arg(&nx)
            .arg(&ny)
            .arg(&nz);
        // SAFETY: matches `plain_wave_step_f32(const float*, const float*, float*, const float*,
        // int, int, int)`; sizes checked as in `wave_step`.
        unsafe { l.launch(cfg_3d(dims)) }?;
        Ok(())
    }
}
