//! The CUDA sources shipped with the crate, embedded at build time.
//!
//! Every file of the workspace's `kernels/` folder is listed here (a test checks it), with the
//! entry points it defines. NVRTC compiles them at run time, so building needs no CUDA toolkit.
//! A program's own kernels can use the same [`KernelSource`] table shape and be launched
//! through [`Gpu::kernel`](crate::Gpu::kernel) (see [`crate::launch`]).

/// One `.cu` file and its `extern "C"` entry points: a shipped kernel of `kernels/`, or a
/// caller's own, compiled by [`crate::nvrtc::compile_kernel`].
#[derive(Debug, Clone, Copy)]
pub struct KernelSource {
    /// File name, e.g. `"stoch_matmul.cu"` (used in NVRTC messages).
    pub name: &'static str,
    /// The CUDA C++ source.
    pub source: &'static str,
    /// The `extern "C" __global__` functions it defines.
    pub entries: &'static [&'static str],
    /// Whether it uses stochastic arithmetic: its PTX must pass [`crate::nvrtc::lint_ptx`].
    /// Plain IEEE kernels (e.g. timing baselines) are round-to-nearest on purpose.
    pub stochastic: bool,
}

/// File name of the device header, as user kernels include it: `#include "stochastic.cuh"`.
pub const HEADER_NAME: &str = "stochastic.cuh";

/// The device header: `stoch_float` / `stoch_double` and their operators.
pub const HEADER: &str = include_str!("../../kernels/stochastic.cuh");

/// Entry point names of the shipped kernels.
pub mod entry {
    /// Element-wise binary operation (`f32`).
    pub const BINARY_F32: &str = "stoch_binary_f32";
    /// Element-wise binary operation (`f64`).
    pub const BINARY_F64: &str = "stoch_binary_f64";
    /// Element-wise unary operation (`f32`).
    pub const UNARY_F32: &str = "stoch_unary_f32";
    /// Element-wise unary operation (`f64`).
    pub const UNARY_F64: &str = "stoch_unary_f64";
    /// Element-wise relation (`f32`).
    pub const COMPARE_F32: &str = "stoch_compare_f32";
    /// Element-wise relation (`f64`).
    pub const COMPARE_F64: &str = "stoch_compare_f64";
    /// Digits and computed-zero test on the device (`f32`).
    pub const DIGITS_F32: &str = "stoch_digits_f32";
    /// Digits and computed-zero test on the device (`f64`).
    pub const DIGITS_F64: &str = "stoch_digits_f64";
    /// Writes the device layout of the stochastic types.
    pub const LAYOUT_PROBE: &str = "stoch_layout_probe";
    /// Stochastic matrix product (`f32`).
    pub const MATMUL_F32: &str = "stoch_matmul_f32";
    /// Stochastic matrix product (`f64`).
    pub const MATMUL_F64: &str = "stoch_matmul_f64";
    /// Sum: per-thread partial sums (`f32`).
    pub const SUM_PARTIALS_F32: &str = "stoch_sum_partials_f32";
    /// Sum: per-thread partial sums (`f64`).
    pub const SUM_PARTIALS_F64: &str = "stoch_sum_partials_f64";
    /// Sum: atomic additions (`f32`).
    pub const SUM_ATOMIC_F32: &str = "stoch_sum_atomic_f32";
    /// Sum: atomic additions (`f64`).
    pub const SUM_ATOMIC_F64: &str = "stoch_sum_atomic_f64";
    /// Sum: block tree reduction (`f32`).
    pub const SUM_TREE_F32: &str = "stoch_sum_tree_f32";
    /// Sum: block tree reduction (`f64`).
    pub const SUM_TREE_F64: &str = "stoch_sum_tree_f64";
}

/// Defines every [`KernelSource`] is compiled with: the random-generator state is sized for
/// blocks of at most 256 threads (3 KiB of shared memory per block instead of 12 KiB), which is
/// what the shapes of [`crate::launch`] use. A larger block traps on the device.
pub const SHIPPED_DEFINES: &[(&str, &str)] = &[("STOCH_MAX_BLOCK_THREADS", "256")];

/// Largest block the shipped kernels accept (see [`SHIPPED_DEFINES`]).
pub const SHIPPED_MAX_BLOCK_THREADS: u32 = 256;

/// Block size the tree reduction is compiled for (`STOCH_SUM_BLOCK` in `stoch_sum.cu`).
pub const SUM_BLOCK: u32 = 256;

/// Every `.cu` file of `kernels/`.
pub const KERNELS: &[KernelSource] = &[
    KernelSource {
        name: "stoch_ops.cu",
        source: include_str!("../../kernels/stoch_ops.cu"),
        entries: &[
            entry::BINARY_F32,
            entry::BINARY_F64,
            entry::UNARY_F32,
            entry::UNARY_F64,
            entry::COMPARE_F32,
            entry::COMPARE_F64,
            entry::DIGITS_F32,
            entry::DIGITS_F64,
            entry::LAYOUT_PROBE,
        ],
        stochastic: true,
    },
    KernelSource {
        name: "stoch_matmul.cu",
        source: include_str!("../../kernels/stoch_matmul.cu"),
        entries: &[entry::MATMUL_F32, entry::MATMUL_F64],
        stochastic: true,
    },
    KernelSource {
        name: "stoch_sum.cu",
        source: include_str!("../../kernels/stoch_sum.cu"),
        entries: &[
            entry::SUM_PARTIALS_F32,
            entry::SUM_PARTIALS_F64,
            entry::SUM_ATOMIC_F32,
            entry::SUM_ATOMIC_F64,
            entry::SUM_TREE_F32,
            entry::SUM_TREE_F64,
        ],
        stochastic: true,
    },
];

/// The shipped source that defines `entry`.
#[must_use]
pub fn source_of(entry: &str) -> Option<&'static KernelSource> {
    KERNELS.iter().find(|k| k.entries.contains(&entry))
}
