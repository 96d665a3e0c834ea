//! # stoch-mpi: Discrete Stochastic Arithmetic across MPI ranks
//!
//! Validate a distributed code with the numbers of `stoch-core`, on MPI through rsmpi (the
//! `mpi` crate):
//!
//! - **Datatypes.** [`Wire<T>`] is the MPI-equivalent form of `Stochastic<T>`; [`wire`] and
//!   [`wire_mut`] view slices of stochastic values as `Wire<T>` without copying, so every rsmpi
//!   call moves the three samples and the flags unchanged.
//! - **Reductions.** [`all_reduce`], [`reduce`] and their slice forms with [`Op`] `Sum`,
//!   `Product`, `Min`, `Max`: MPI user operations that round each sample at random, OR the
//!   flags and record the instabilities they meet. [`all_reduce_composite`] adds composite
//!   pairs; [`all_reduce_reproducible`] and [`all_reduce_stoch_reproducible`] give a global
//!   sum that is bit-identical for every rank count.
//! - **Random streams.** [`init`] seeds rank `r` with [`rank_seed`]`(seed, r)`: each rank
//!   rounds independently, and a run with the same seed and rank count repeats exactly.
//! - **One report.** The [`Job`] that [`init`] returns merges every rank's report up a
//!   binomial tree to rank 0 when dropped, which prints one [`JobReport`]: totals per kind,
//!   one line per rank, sites with the ranks that hit them (JSON too). A rank that panics
//!   aborts the job instead of leaving the others waiting for its part.
//!
//! ```no_run
//! use stoch_core::Sf64;
//! use stoch_mpi::{all_reduce, Op};
//!
//! fn main() -> Result<(), stoch_mpi::Error> {
//!     let job = stoch_mpi::init(stoch_core::Config::from_env()?)?;
//!     let mine = Sf64::new(1.0) / (job.rank() as f64 + 3.0);
//!     let total = all_reduce(job.world(), mine, Op::Sum)?;
//!     if job.rank() == 0 {
//!         println!("total = {total}");
//!     }
//!     Ok(()) // `job` drops: rank 0 prints the job's report, then MPI finalizes
//! }
//! ```
//!
//! Run it with `mpiexec -n 4 target/release/my_program`. Building needs an MPI library and
//! libclang (`apt-get install mpich libmpich-dev libclang-dev`); a binary started without the
//! MPI library it was linked with does not load (the loader names the missing library).
#![warn(missing_docs)]
#![doc(test(attr(deny(warnings))))]

mod datatype;
mod error;
mod job;
mod reduce;
mod seed;

pub use datatype::{size_and_extent, unwire, wire, wire_mut, MpiFloat, Wire, WirePair};
pub use error::Error;
pub use job::{init, Job, JobReport, JobSite, RankCount, RankLine, EVERY_RANK_VAR};
pub use reduce::{
    all_reduce, all_reduce_composite, all_reduce_composite_plain, all_reduce_reproducible,
    all_reduce_slice, all_reduce_stoch_reproducible, reduce, reduce_slice, Op,
    StochReproducibleSum,
};
pub use seed::rank_seed;

#[doc(hidden)]
pub use reduce::__sum_op_with_datatype;

/// rsmpi, as this crate uses it (so that user code names the same version).
pub use mpi;
