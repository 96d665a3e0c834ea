//! The error type of every fallible `stoch-gpu` call.

use cudarc::driver::DriverError;
use cudarc::nvrtc::result::NvrtcError;

/// What went wrong in a GPU call. Arithmetic never fails; only finding the GPU, compiling,
/// moving data and launching do.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GpuError {
    /// The CUDA driver library (`libcuda.so`) could not be loaded: no NVIDIA driver here.
    #[error("no CUDA driver: libcuda could not be loaded (is an NVIDIA driver installed?)")]
    NoDriver,
    /// The driver loaded but reports no usable device (or initialisation failed).
    #[error("no CUDA device available{}", .0.map(|e| format!(" ({e})")).unwrap_or_default())]
    NoDevice(Option<DriverError>),
    /// The NVRTC library (`libnvrtc.so.13`) could not be loaded.
    #[error(
        "NVRTC not found: put the folder holding libnvrtc.so.13 and libnvrtc-builtins.so.13.* on \
         LD_LIBRARY_PATH or in STOCH_NVRTC_DIR (e.g. `pip install nvidia-cuda-nvrtc==13.0.88`)"
    )]
    NoNvrtc,
    /// A library was found but could not be loaded from the given folder.
    #[error("could not load `{path}`: {reason}")]
    LibraryLoad {
        /// The file that failed to load.
        path: String,
        /// The loader's message.
        reason: String,
    },
    /// NVRTC rejected a kernel source; `log` holds the compiler's messages.
    #[error("NVRTC failed to compile `{kernel}`:\n{log}")]
    Compile {
        /// File name of the source that failed.
        kernel: String,
        /// NVRTC's program log (errors with file and line).
        log: String,
        /// The NVRTC status.
        #[source]
        source: NvrtcError,
    },
    /// Another NVRTC call failed.
    #[error("NVRTC call failed")]
    Nvrtc(#[from] NvrtcError),
    /// A CUDA driver call failed.
    #[error("CUDA driver call failed")]
    Driver(#[from] DriverError),
    /// No shipped kernel has that entry point.
    #[error("unknown kernel entry point `{0}`")]
    UnknownKernel(String),
    /// Two operands that must have the same length do not.
    #[error("operand lengths differ ({left} vs {right})")]
    LengthMismatch {
        /// Length of the first operand.
        left: usize,
        /// Length of the second operand.
        right: usize,
    },
    /// An argument is out of the range a kernel accepts.
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
}

/// Shorthand for `Result<T, GpuError>`.
pub type Result<T, E = GpuError> = std::result::Result<T, E>;
