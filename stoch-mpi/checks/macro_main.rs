//! `#[stochastic]` on the `main` of an MPI program: the attribute rewrites the `f64` code, and
//! `stoch_mpi::init` inside it turns each process's own report off, so the job's report (rank
//! 0) is the only one printed. Launched by `stoch-mpi/driver`'s tests.

use stoch_core::stochastic;
use stoch_mpi::Op;

#[stochastic]
fn main() -> Result<(), stoch_mpi::Error> {
    let job = stoch_mpi::init(stoch_core::Config::from_env()?)?;
    // Rewritten to Sf64: one cancellation per rank at the subtraction.
    let a: f64 = 1.0 + 1e-13;
    let c: f64 = a - 1.0;
    let total = stoch_mpi::all_reduce(job.world(), c, Op::Sum)?;
    if job.rank() == 0 {
        println!("rank 0: total {total} with {} digits", total.digits());
    }
    Ok(())
}
