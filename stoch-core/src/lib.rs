//! # stoch-core: Discrete Stochastic Arithmetic for Rust
//!
//! [`Stochastic<T>`] carries each floating-point value as three samples computed with random
//! rounding (every operation rounded toward +∞ or −∞ at random). The spread of the samples
//! estimates how many significant digits of the result are exact (the CESTAC method, at 95%
//! confidence), and the operations watch for the numerical instabilities that make that
//! estimate, or the program's branches, unreliable (CADNA's Discrete Stochastic Arithmetic).
//!
//! ```
//! use stoch_core::Sf64;
//!
//! // Rump's polynomial: a catastrophic cancellation that IEEE arithmetic hides.
//! fn rump(x: Sf64, y: Sf64) -> Sf64 {
//!     let a = 9.0 * x * x * x * x;
//!     let b = y * y * y * y;
//!     let c = 2.0 * y * y;
//!     a - b + c
//! }
//! let r = rump(Sf64::new(10864.0), Sf64::new(18817.0));
//! assert!(r.is_computed_zero());
//! assert_eq!(r.to_string(), "@.0");
//! let r = rump(Sf64::new(1.0) / 3.0, Sf64::new(2.0) / 3.0);
//! assert_eq!(r.digits(), 15);
//! # stoch_core::reset();
//! ```
//!
//! See the workspace README for the `#[stochastic]` attribute, the report, and the GPU crate.
#![warn(missing_docs)]
#![doc(test(attr(deny(warnings))))]

pub mod accum;
mod arch;
mod compare;
pub mod composite;
pub mod config;
mod digits;
pub mod eft;
mod float;
mod instability;
mod math;
mod num_traits_impl;
mod number;
mod ops;
pub mod path;
pub mod report;
mod runtime;

#[doc(hidden)]
pub mod __private {
    //! Used by the code `#[stochastic]` generates; not a public API.
    pub use crate::macro_support::*;

    /// Each rounding path's kernels, run directly, for the oracle tests.
    pub mod kernels {
        pub use crate::arch::{dispatch3, kernel3};
        pub use crate::runtime::rng::{dir_word, DIR_MASK};
    }
}
mod macro_support;
mod small_helpers;

/// `#[stochastic]`: rewrites `f32`/`f64` code to stochastic arithmetic (see `stoch-macros`).
#[cfg(feature = "macros")]
pub use stoch_macros::stochastic;

pub use config::{Config, ConfigError, ReportMode};
pub use digits::{student_tau, tau, TAU_95};
pub use float::StochFloat;
pub use instability::{Event, Flags, Instability};
pub use number::{Sf32, Sf64, Stochastic};
pub use report::{
    clear_hook, finish, init, record_gpu, report, reset, set_hook, stoch_instability_breakpoint,
    CollapseSite, GpuCount, Guard, Report, Site,
};
pub use runtime::rng::{current_seed, seed, DEFAULT_SEED};
mod fmt;
pub use fmt::ParseStochasticError;
#[cfg(feature = "approx")]
mod approx;
mod composite_stoch;
#[cfg(feature = "nalgebra")]
mod nalgebra;
#[cfg(feature = "ndarray")]
mod ndarray;
#[cfg(feature = "serde")]
mod serde;
