//! Validate CUDA kernels with Discrete Stochastic Arithmetic.
//!
//! Write kernels with the device types of `kernels/stochastic.cuh` (`stoch_float`,
//! `stoch_double`: three randomly rounded samples and a flag byte, the layout of
//! [`stoch_core::Stochastic`]), run them through [`Gpu`], and get per element the exact
//! significant digits and the instabilities met, merged into the same report as the CPU's.
//!
//! ```no_run
//! # fn main() -> Result<(), stoch_gpu::GpuError> {
//! use stoch_core::Sf32;
//! use stoch_gpu::{reference, validate, Gpu};
//!
//! let gpu = Gpu::new()?; // a clear error, never a panic, without driver, device or NVRTC
//! let (n, m, k) = (64, 64, 64);
//! let a: Vec<Sf32> = (0..n * k).map(|i| Sf32::new(i as f32 * 0.1)).collect();
//! let b: Vec<Sf32> = (0..k * m).map(|i| Sf32::new(1.0 / (1 + i % 7) as f32)).collect();
//! let check = validate::validate(
//!     || {
//!         let (da, db) = (gpu.upload(&a)?, gpu.upload(&b)?);
//!         let c = gpu.download(&gpu.matmul(&da, &db, n, m, k)?)?;
//!         stoch_gpu::record_flags("stoch_matmul_f32", &c);
//!         Ok(c)
//!     },
//!     || reference::matmul(&a, &b, n, m, k),
//! )?;
//! println!("{check}");
//! # Ok(()) }
//! ```
//!
//! # Pieces
//!
//! - [`nvrtc`]: NVRTC discovery and compilation (FMA contraction off, no flush-to-zero), and
//!   [`nvrtc::lint_ptx`], the check that every sample operation is directed (`.rp`/`.rm`).
//!   Works without a GPU.
//! - [`Gpu`]: device probe, module cache (CUBIN for the device's own `sm_XY`), device buffers
//!   of `Stochastic<T>` copied byte for byte, and safe launch helpers for the shipped kernels
//!   ([`ops`]).
//! - [`launch`]: the launch API those helpers are written with, public for a program's own
//!   kernels: compile a source or a table of them ([`Gpu::kernel`], [`Gpu::user_function`]),
//!   launch shapes and argument checks, the tree-reduction loop, and
//!   [`Gpu::launch_builder`], the one `unsafe` path.
//! - [`record_flags`]: element flags into the report's GPU section.
//! - [`validate`] and [`reference`](mod@reference): GPU against CPU, digit by digit.
//!
//! # Environment
//!
//! - `LD_LIBRARY_PATH` or `STOCH_NVRTC_DIR`: the folder of `libnvrtc.so.13` (and its builtins).
//! - `STOCH_SEED`: base seed of the launches (see [`Gpu`]).

pub mod device;
pub mod error;
pub mod flags;
pub mod kernels;
pub mod launch;
pub mod nvrtc;
pub mod ops;
pub mod reference;
pub mod validate;

pub use cudarc;
pub use device::{driver_available, DeviceBuffer, Gpu, GpuFloat};
pub use error::{GpuError, Result};
pub use flags::{record_flags, FlagCounts};
pub use ops::{BinaryOp, CompareOp, SumMode, UnaryOp};
