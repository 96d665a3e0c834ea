//! Which random-rounding path this process runs.
//!
//! Every path gives the same samples for the same random bits (each is tested against one exact
//! oracle); they differ in speed. A build for the host (`-C target-cpu=native`) compiles in the
//! best path the processor has; a build for the default target chooses AVX-512 or AVX2 at run
//! time where the processor has them. `STOCH_PATH=portable|avx2|avx512` asks for a path instead
//! (read once, before the first operation); a path the build or the processor cannot run is
//! refused on stderr, naming what it can run, and the best available one is kept.
//!
//! ```
//! use stoch_core::path;
//!
//! println!("random rounding: {} ({})", path::current(), path::describe());
//! assert!(!path::describe().is_empty());
//! ```

pub use crate::runtime::path::{Path, PathError};

/// The path this process runs (chosen before its first operation).
#[must_use]
pub fn current() -> Path {
    crate::runtime::path::chosen()
}

/// Whether this build, on this processor, can run `path`; if not, why (the processor lacks the
/// instructions, the build's target fixed another path, or the path is not for this
/// architecture).
///
/// ```
/// use stoch_core::path::{self, Path};
///
/// assert!(path::can_run(path::current()).is_ok());
/// if let Err(e) = path::can_run(Path::Avx512) {
///     println!("no AVX-512 here: {e}");
/// }
/// ```
pub fn can_run(path: Path) -> Result<(), PathError> {
    crate::runtime::path::can_run(path)
}

/// The path this process runs, in words: what it computes with, and whether the build's target
/// or the run-time choice picked it (the `overhead` example and the report's header print it).
#[must_use]
pub fn describe() -> &'static str {
    crate::arch::describe()
}
