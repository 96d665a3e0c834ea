//! Safe launch helpers for the kernels shipped in `kernels/`.
//!
//! Each helper checks sizes, allocates the output, and launches with a fresh seed from
//! [`Gpu::next_seed`], through the public launch API of [`crate::launch`]. Results stay on the
//! device until [`Gpu::download`]; merge their flags into the report with
//! [`crate::record_flags`].

use cudarc::driver::PushKernelArg;
use stoch_core::{Flags, Stochastic};

use crate::device::{DeviceBuffer, Gpu, GpuFloat};
use crate::error::Result;
use crate::kernels::SUM_BLOCK;
use crate::launch::{c_int, check_len, grid_1d, grid_2d, reduce_tree, Chunks};

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
    /// `threads` threads each sum a contiguous chunk ([`Chunks`]); the host adds the partial
    /// sums in order.
    Partials {
        /// Number of partial sums.
        threads: u32,
    },
    /// The same chunks, then atomic additions on the device (order not repeatable).
    Atomic {
        /// Number of partial sums.
        threads: u32,
    },
    /// Block-wise tree reduction in shared memory, repeated until one value is left
    /// ([`reduce_tree`]).
    Tree,
}

fn name<T: GpuFloat>(base: &str) -> String {
    format!("{base}_{}", T::SUFFIX)
}

impl Gpu {
    /// `out[i] = a[i] op b[i]` with the device operators.
    ///
    /// # Errors
    ///
    /// [`GpuError::LengthMismatch`](crate::GpuError::LengthMismatch), or a compile / driver
    /// error.
    pub fn binary<T: GpuFloat>(
        &self,
        op: BinaryOp,
        a: &DeviceBuffer<T>,
        b: &DeviceBuffer<T>,
    ) -> Result<DeviceBuffer<T>> {
        check_len(a.len(), b.len())?;
        self.elementwise(a, Some(b), op.code())
    }

    /// `out[i] = op(a[i])`.
    ///
    /// # Errors
    ///
    /// A compile or driver error.
    pub fn unary<T: GpuFloat>(&self, op: UnaryOp, a: &DeviceBuffer<T>) -> Result<DeviceBuffer<T>> {
        self.elementwise(a, None, op as i32)
    }

    /// One launch of `stoch_binary_*` (with `b`) or `stoch_unary_*` (without), operation `code`.
    fn elementwise<T: GpuFloat>(
        &self,
        a: &DeviceBuffer<T>,
        b: Option<&DeviceBuffer<T>>,
        code: i32,
    ) -> Result<DeviceBuffer<T>> {
        let kernel = if b.is_some() {
            "stoch_binary"
        } else {
            "stoch_unary"
        };
        let f = self.function(&name::<T>(kernel))?;
        let mut out = self.zeros::<T>(a.len())?;
        let (n, seed) = (c_int(a.len(), "n")?, self.next_seed());
        let mut l = self.launch_builder(&f);
        l.arg(a.raw());
        if let Some(b) = b {
            l.arg(b.raw());
        }
        l.arg(out.raw_mut()).arg(&n).arg(&code).arg(&seed);
        // SAFETY: matches `stoch_binary_{f32,f64}(const stoch_t*, const stoch_t*, stoch_t*, int,
        // int, unsigned long long)` with `b`, `stoch_unary_{f32,f64}(const stoch_t*, stoch_t*,
        // int, int, unsigned long long)` without (stoch_ops.cu); every buffer holds n values of
        // T (`binary` checks b's length); 1-D blocks of 256 threads; the kernels bounds-check
        // i < n.
        unsafe { l.launch(grid_1d(a.len())?) }?;
        Ok(out)
    }

    /// Evaluate `a[i] op b[i]` on the device: the relation per element, and `a[i]`'s flags
    /// after the comparison (a branching instability sets [`stoch_core::Instability::Branching`]).
    ///
    /// # Errors
    ///
    /// [`GpuError::LengthMismatch`](crate::GpuError::LengthMismatch), or a compile / driver
    /// error.
    pub fn compare<T: GpuFloat>(
        &self,
        op: CompareOp,
        a: &DeviceBuffer<T>,
        b: &DeviceBuffer<T>,
    ) -> Result<(Vec<bool>, Vec<Flags>)> {
        check_len(a.len(), b.len())?;
        let f = self.function(&name::<T>("stoch_compare"))?;
        let mut result = self.zeros_plain::<u8>(a.len().max(1))?;
        let mut flags = self.zeros_plain::<u8>(a.len().max(1))?;
        let (n, code, seed) = (c_int(a.len(), "n")?, op as i32, self.next_seed());
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
        unsafe { l.launch(grid_1d(a.len())?) }?;
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
        let n = c_int(a.len(), "n")?;
        let mut l = self.launch_builder(&f);
        l.arg(a.raw()).arg(&mut digits).arg(&mut zero).arg(&n);
        // SAFETY: matches `stoch_digits_{f32,f64}(const stoch_t*, int*, unsigned char*, int)`;
        // all buffers hold >= n items.
        unsafe { l.launch(grid_1d(a.len())?) }?;
        let d = self.download_plain(&digits)?;
        let z = self.download_plain(&zero)?;
        Ok((
            d[..a.len()].iter().map(|&x| x.max(0) as u32).collect(),
            z[..a.len()].iter().map(|&x| x != 0).collect(),
        ))
    }

    /// Stochastic matrix product `C = A B` (row-major; `a` is `n x k`, `b` is `k x m`).
    ///
    /// # Errors
    ///
    /// [`GpuError::LengthMismatch`](crate::GpuError::LengthMismatch) when a buffer's length is
    /// not the product of its sizes.
    pub fn matmul<T: GpuFloat>(
        &self,
        a: &DeviceBuffer<T>,
        b: &DeviceBuffer<T>,
        n: usize,
        m: usize,
        k: usize,
    ) -> Result<DeviceBuffer<T>> {
        check_len(a.len(), n * k)?;
        check_len(b.len(), k * m)?;
        let f = self.function(&name::<T>("stoch_matmul"))?;
        let mut c = self.zeros::<T>(n * m)?;
        let (n32, m32, k32, seed) = (
            c_int(n, "n")?,
            c_int(m, "m")?,
            c_int(k, "k")?,
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
        unsafe { l.launch(grid_2d(n, m)?) }?;
        Ok(c)
    }

    /// Sum all values of `input` in the given mode; the result comes back to the host.
    ///
    /// # Errors
    ///
    /// [`GpuError::InvalidArgument`](crate::GpuError::InvalidArgument) for zero threads, or a
    /// compile / driver error.
    pub fn sum<T: GpuFloat>(
        &self,
        input: &DeviceBuffer<T>,
        mode: SumMode,
    ) -> Result<Stochastic<T>> {
        match mode {
            SumMode::Partials { threads } | SumMode::Atomic { threads } => {
                let split = Chunks::new(input.len(), threads as usize)?;
                let atomic = matches!(mode, SumMode::Atomic { .. });
                let f = self.function(&name::<T>(if atomic {
                    "stoch_sum_atomic"
                } else {
                    "stoch_sum_partials"
                }))?;
                let mut out = self.zeros::<T>(if atomic { 1 } else { threads as usize })?;
                let seed = self.next_seed();
                let mut l = self.launch_builder(&f);
                l.arg(input.raw())
                    .arg(out.raw_mut())
                    .arg(&split.n)
                    .arg(&split.chunk)
                    .arg(&split.threads)
                    .arg(&seed);
                // SAFETY: matches `stoch_sum_{partials,atomic}_{f32,f64}(const stoch_t*, stoch_t*,
                // long long n, long long chunk, int threads, unsigned long long)`; `input` holds
                // n values, `out` holds `threads` values (1 for atomic); threads >= t return.
                unsafe { l.launch(split.config()?) }?;
                let host = self.download(&out)?;
                Ok(host
                    .into_iter()
                    .fold(Stochastic::<T>::ZERO, |acc, v| acc + v))
            }
            SumMode::Tree => {
                let f = self.function(&name::<T>("stoch_sum_tree"))?;
                let out = reduce_tree(
                    input,
                    input.len(),
                    SUM_BLOCK,
                    |blocks| self.zeros::<T>(blocks),
                    |src, out, len, config| {
                        let (n, seed) = (len as i64, self.next_seed());
                        let mut l = self.launch_builder(&f);
                        l.arg(src.raw()).arg(out.raw_mut()).arg(&n).arg(&seed);
                        // SAFETY: matches `stoch_sum_tree_{f32,f64}(const stoch_t*, stoch_t*,
                        // long long n, unsigned long long)`; `src` holds n values, `out` one per
                        // block; blocks of exactly STOCH_SUM_BLOCK (256) threads as the kernel
                        // requires.
                        unsafe { l.launch(config) }?;
                        Ok(())
                    },
                )?;
                Ok(self.download(&out)?[0])
            }
        }
    }
}
