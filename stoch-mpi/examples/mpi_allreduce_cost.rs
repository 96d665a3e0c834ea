//! The cost of a stochastic all-reduce: 10^6 `Sf64` summed element by element across the
//! ranks with stoch-mpi's operator, against a plain `f64` `MPI_SUM` of the same length, in the
//! same run.
//!
//! ```sh
//! cd stoch-mpi && cargo build --release --example mpi_allreduce_cost
//! mpiexec -n 2 ../target/mpi/release/examples/mpi_allreduce_cost [LEN] [REPEATS]
//! ```
//!
//! Rank 0 prints the median time of each over REPEATS (default 11) runs and their ratio.
//! The stochastic one moves 4 times the bytes (three samples and the flags in 32 bytes) and
//! rounds each sample at random in the operator; see docs/performance.md for figures.

use mpi::collective::SystemOperation;
use mpi::traits::*;
use stoch_core::Sf64;
use stoch_mpi::{all_reduce_slice, Op};

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let len: usize = args.first().map_or(Ok(1_000_000), |s| s.parse())?;
    let repeats: usize = args.get(1).map_or(Ok(11), |s| s.parse())?;
    let job = stoch_mpi::init(stoch_core::Config::from_env()?)?;
    let world = job.world();
    let rank = world.rank();
    let plain: Vec<f64> = (0..len)
        .map(|i| (i as f64 + 1.0) / (rank as f64 + 3.0))
        .collect();
    let stoch: Vec<Sf64> = plain.iter().map(|&x| Sf64::new(x)).collect();
    let mut plain_out = vec![0.0; len];
    let mut stoch_out = vec![Sf64::ZERO; len];
    let (mut tp, mut ts) = (Vec::new(), Vec::new());
    for _ in 0..repeats {
        world.barrier();
        let t0 = mpi::time();
        world.all_reduce_into(&plain[..], &mut plain_out[..], SystemOperation::sum());
        let t1 = mpi::time();
        world.barrier();
        let t2 = mpi::time();
        all_reduce_slice(world, &stoch, &mut stoch_out, Op::Sum)?;
        let t3 = mpi::time();
        tp.push(t1 - t0);
        ts.push(t3 - t2);
    }
    if rank == 0 {
        let (p, s) = (median(tp), median(ts));
        println!(
            "all-reduce of {len} values over {} rank(s) (median of {repeats}): f64 MPI_SUM {:.2} ms, \
             Sf64 stochastic sum {:.2} ms, ratio {:.1}; digits of element 0: {}",
            world.size(),
            p * 1e3,
            s * 1e3,
            s / p,
            stoch_out[0].digits()
        );
    }
    Ok(())
}
