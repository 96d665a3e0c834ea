//! The reproducibility suite of the source papers, as library functions.
//!
//! `examples/repro_suite.rs` is the command-line front end (tables, plots, markdown report);
//! the functions here do the experiments, so that `tests/repro_*.rs` can check the papers'
//! key facts at small sizes:
//!
//! - [`global_sum`]: seeds 000, 001 and 003. Arrays of large and small values, each followed
//!   by its negation (exact sum 0), summed in shuffled, ascending and descending order by 1 to
//!   1000 workers (real threads), partial sums merged at the end.
//! - [`GlobalSumGpu`]: the same experiment on a GPU (`--features gpu`, through `stoch-gpu`):
//!   plain `float`/`double` and `Sf32`/`Sf64` summed in the seed papers' three device modes
//!   ([`GpuMode`]), tabulated beside the CPU results by [`global_sum_gpu_report`]. Without the
//!   feature or without a device it returns why ([`GpuSumError`]), never panics.
//! - `gpu_kernels` (`--features gpu`): the suite's own device kernels (the CADNA-GPU
//!   paper's wave stencil, do/undo, plain IEEE baselines), launched through `stoch-gpu`'s
//!   public launch API; [`gpu_reference`]: their CPU references.
//! - [`do_undo`]: seed 000's do/undo programs, `x = (x*y)/y` and `x = (x/y)*y`.
//! - [`forces`]: seed 002's Lennard-Jones force accumulation, methods A-G of its Table 1, with
//!   the average force error (eq. 10) and the average force offset (eq. 11).
//!
//! Everything is seeded and deterministic, except timings and, for order-dependent methods,
//! nothing else: partial sums are merged in worker order.
//!
//! # Examples
//!
//! ```
//! use stoch::repro::{global_sum, symmetric_data, Method, Order, RANGES};
//!
//! let data = symmetric_data(1000, &RANGES[2], 7);
//! let ordered = Order::Shuffled(1).apply(&data, 7);
//! let float = global_sum(Method::Float, &ordered, 1);
//! let repro = global_sum(Method::Reproducible, &ordered, 10);
//! assert!(float.value.abs() > 1e-3);
//! assert_eq!(repro.value, 0.0);
//! ```
//!
//! One module per experiment; everything public is re-exported here.

mod do_undo;
mod forces;
mod global_sum;
mod gpu_sum;
mod rng;
mod stochastic;

#[cfg(feature = "gpu")]
pub mod gpu;
#[cfg(feature = "gpu")]
pub mod gpu_kernels;
pub mod gpu_reference;

pub use do_undo::*;
pub use forces::*;
pub use global_sum::*;
pub use gpu_sum::*;
pub use rng::*;
