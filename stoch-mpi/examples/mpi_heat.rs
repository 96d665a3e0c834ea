//! A 2-D steady heat (Laplace) problem solved by Jacobi iterations on a grid split by rows
//! across MPI ranks: halo exchange with the neighbours every iteration, a global residual norm
//! by all-reduce, and a stopping test `residual < tol`.
//!
//! ```sh
//! cd stoch-mpi && cargo build --release --example mpi_heat
//! mpiexec -n 4 ../target/mpi/release/examples/mpi_heat [--grid 32]   # digits over the iterations
//! mpiexec -n 2 ../target/mpi/release/examples/mpi_heat --time 256 300 # stochastic/plain cost
//! ```
//!
//! The same solver runs in `f64` (rsmpi, `MPI_SUM`) and in `Sf64` (stoch-mpi's `Wire` rows
//! and stochastic all-reduce). What to expect from rank 0:
//! - a line every N²/2 iterations (512 for the default 32×32 grid): the stochastic residual with only its exact digits, the
//!   plain residual, the digits of the solution at the centre and the fewest digits on the
//!   grid. The residual loses its digits as it falls toward the round-off level of the
//!   solution, and becomes `@.0` (numerical noise): from there on, `residual < tol` compares
//!   noise, and the plain solver's decision to go on or stop depends on round-off alone;
//! - the job's report (stderr) names that stopping test as an unstable branching, with the
//!   ranks that took it (every rank evaluates it), plus the cancellations of the residual;
//! - with `--time N ITER`: the time of ITER iterations on an N×N grid, plain and stochastic,
//!   and their ratio (figures in docs/performance.md).

use std::ops::{Add, Mul, Sub};

use mpi::collective::SystemOperation;
use mpi::datatype::Equivalence;
use mpi::traits::*;
use stoch_core::Sf64;
use stoch_mpi::{wire, wire_mut, Op, Wire};

type Res<T = ()> = Result<T, Box<dyn std::error::Error>>;

/// What the solver needs of its number type: arithmetic, and how MPI moves and sums it.
trait Field: Copy + Add<Output = Self> + Sub<Output = Self> + Mul<Output = Self> + PartialOrd {
    /// The MPI-equivalent form of a row.
    type W: Equivalence;
    fn of(x: f64) -> Self;
    fn sqrt(self) -> Self;
    fn wire(xs: &[Self]) -> &[Self::W];
    fn wire_mut(xs: &mut [Self]) -> &mut [Self::W];
    fn global_sum(comm: &impl Communicator, x: Self) -> Res<Self>;
}

impl Field for f64 {
    type W = f64;
    fn of(x: f64) -> Self {
        x
    }
    fn sqrt(self) -> Self {
        f64::sqrt(self)
    }
    fn wire(xs: &[Self]) -> &[f64] {
        xs
    }
    fn wire_mut(xs: &mut [Self]) -> &mut [f64] {
        xs
    }
    fn global_sum(comm: &impl Communicator, x: Self) -> Res<Self> {
        let mut t = 0.0;
        comm.all_reduce_into(&x, &mut t, SystemOperation::sum());
        Ok(t)
    }
}

impl Field for Sf64 {
    type W = Wire<f64>;
    fn of(x: f64) -> Self {
        Sf64::new(x)
    }
    fn sqrt(self) -> Self {
        Sf64::sqrt(self)
    }
    fn wire(xs: &[Self]) -> &[Wire<f64>] {
        wire(xs)
    }
    fn wire_mut(xs: &mut [Self]) -> &mut [Wire<f64>] {
        wire_mut(xs)
    }
    fn global_sum(comm: &impl Communicator, x: Self) -> Res<Self> {
        Ok(stoch_mpi::all_reduce(comm, x, Op::Sum)?)
    }
}

/// This rank's rows of the `n × n` interior grid, with one ghost row above and below and the
/// boundary columns (1 on the top edge, 0 on the others).
struct Grid<T> {
    n: usize,
    first: usize,
    rows: usize,
    u: Vec<T>,
    next: Vec<T>,
}

impl<T: Field> Grid<T> {
    fn new(n: usize, rank: usize, size: usize) -> Self {
        let first = n * rank / size;
        let rows = n * (rank + 1) / size - first;
        let mut u = vec![T::of(0.0); (rows + 2) * (n + 2)];
        if rank == 0 {
            for x in &mut u[..n + 2] {
                *x = T::of(1.0); // the hot top edge
            }
        }
        Grid {
            n,
            first,
            rows,
            next: u.clone(),
            u,
        }
    }

    fn at(&self, i: usize, j: usize) -> T {
        self.u[i * (self.n + 2) + j]
    }

    /// Swaps the edge rows with the neighbours' ghost rows.
    fn exchange(&mut self, world: &impl Communicator) {
        let (rank, size) = (world.rank(), world.size());
        let w = self.n + 2;
        let top = self.u[w..2 * w].to_vec();
        let bottom = self.u[self.rows * w..(self.rows + 1) * w].to_vec();
        let (ghosts_top, rest) = self.u.split_at_mut(w);
        let ghost_bottom = &mut rest[self.rows * w..];
        mpi::request::scope(|scope| {
            let mut sent = Vec::new();
            if rank > 0 {
                sent.push(
                    world
                        .process_at_rank(rank - 1)
                        .immediate_send(scope, T::wire(&top)),
                );
            }
            if rank + 1 < size {
                sent.push(
                    world
                        .process_at_rank(rank + 1)
                        .immediate_send(scope, T::wire(&bottom)),
                );
            }
            if rank > 0 {
                world
                    .process_at_rank(rank - 1)
                    .receive_into(T::wire_mut(ghosts_top));
            }
            if rank + 1 < size {
                world
                    .process_at_rank(rank + 1)
                    .receive_into(T::wire_mut(ghost_bottom));
            }
            for s in sent {
                s.wait();
            }
        });
    }

    /// One Jacobi sweep; returns this rank's sum of squared updates.
    fn sweep(&mut self) -> T {
        let w = self.n + 2;
        let quarter = T::of(0.25);
        let mut sq = T::of(0.0);
        for i in 1..=self.rows {
            for j in 1..=self.n {
                let k = i * w + j;
                let v = quarter * (self.u[k - w] + self.u[k + w] + self.u[k - 1] + self.u[k + 1]);
                let d = v - self.u[k];
                sq = sq + d * d;
                self.next[k] = v;
            }
        }
        std::mem::swap(&mut self.u, &mut self.next);
        // The ghost rows and boundary columns of `next` are stale: carry them over.
        let (a, b) = (&self.u, &mut self.next);
        b[..w].copy_from_slice(&a[..w]);
        b[(self.rows + 1) * w..].copy_from_slice(&a[(self.rows + 1) * w..]);
        sq
    }

    fn step(&mut self, world: &impl Communicator) -> Res<T> {
        self.exchange(world);
        let local = self.sweep();
        Ok(T::global_sum(world, local)?.sqrt())
    }
}

/// The centre value (on the rank that holds it, NaN elsewhere) and the fewest digits on this
/// rank's rows.
fn digits(g: &Grid<Sf64>) -> (Sf64, u32) {
    let c = g.n / 2;
    let centre = if (g.first..g.first + g.rows).contains(&c) {
        g.at(c - g.first + 1, c + 1)
    } else {
        Sf64::NAN
    };
    let mut fewest = u32::MAX;
    for i in 1..=g.rows {
        for j in 1..=g.n {
            fewest = fewest.min(g.at(i, j).digits());
        }
    }
    (centre, fewest)
}

fn main() -> Res {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let job = stoch_mpi::init(stoch_core::Config::from_env()?)?;
    let world = job.world();
    let (rank, size) = (world.rank() as usize, world.size() as usize);
    if args.first().map(String::as_str) == Some("--time") {
        let n: usize = args.get(1).map_or(Ok(256), |s| s.parse())?;
        let iters: usize = args.get(2).map_or(Ok(300), |s| s.parse())?;
        return time(world, n, iters);
    }

    // `--grid N` (default 32): a smaller grid converges, and reaches the noise, sooner.
    let n: usize = match args.iter().position(|a| a == "--grid") {
        Some(i) => args.get(i + 1).ok_or("--grid needs a size")?.parse()?,
        None => 32,
    };
    let (tol, max_iter) = (Sf64::new(1e-17), 8 * n * n + 1000);
    let mut plain = Grid::<f64>::new(n, rank, size);
    let mut stoch = Grid::<Sf64>::new(n, rank, size);
    let mut plain_stopped = None;
    if rank == 0 {
        println!(
            "Jacobi on a {n}x{n} grid over {size} ranks, stop when residual < {}",
            tol.mean()
        );
        println!(
            "{:>6}  {:>24}  {:>12}  {:>22}  {:>6}",
            "iter", "residual (Sf64)", "plain", "centre (Sf64)", "fewest"
        );
    }
    let mut iter = 0;
    loop {
        iter += 1;
        let r = stoch.step(world)?;
        let p = plain.step(world)?;
        if plain_stopped.is_none() && p < 1e-17 {
            plain_stopped = Some(iter);
        }
        let (centre, fewest) = digits(&stoch);
        // The centre value lives on one rank: a sum with exact zeros from the others brings
        // it, unchanged, to every rank; the fewest digits are a minimum over the ranks.
        let mut fewest_all = 0u32;
        world.all_reduce_into(&fewest, &mut fewest_all, SystemOperation::min());
        let here = if centre.is_nan() { Sf64::ZERO } else { centre };
        let centre = stoch_mpi::all_reduce(world, here, Op::Sum)?;
        if rank == 0 && (iter % (n * n / 2) == 0 || iter == 1) {
            println!(
                "{iter:>6}  {:>24}  {:>12.3e}  {:>22}  {:>6}",
                r.to_string(),
                p,
                centre.to_string(),
                fewest_all
            );
        }
        // The stopping test: once `r` is numerical noise, this compares noise with `tol`
        // (an unstable branching, counted on every rank).
        if r < tol || iter >= max_iter {
            if rank == 0 {
                println!(
                    "stochastic solver stopped at iteration {iter}; the plain one's residual went \
                     below the tolerance at {}",
                    plain_stopped.map_or("no iteration".into(), |i| i.to_string())
                );
            }
            break;
        }
    }
    Ok(())
}

/// Times `iters` iterations on an `n × n` grid, plain then stochastic, and prints the ratio.
fn time(world: &impl Communicator, n: usize, iters: usize) -> Res {
    let (rank, size) = (world.rank() as usize, world.size() as usize);
    let mut plain = Grid::<f64>::new(n, rank, size);
    let mut stoch = Grid::<Sf64>::new(n, rank, size);
    world.barrier();
    let t0 = mpi::time();
    for _ in 0..iters {
        std::hint::black_box(plain.step(world)?);
    }
    world.barrier();
    let t1 = mpi::time();
    for _ in 0..iters {
        std::hint::black_box(stoch.step(world)?);
    }
    world.barrier();
    let t2 = mpi::time();
    if rank == 0 {
        println!(
            "heat {n}x{n}, {iters} iterations, {size} rank(s): plain {:.3} s, stochastic {:.3} s, ratio {:.1}",
            t1 - t0,
            t2 - t1,
            (t2 - t1) / (t1 - t0)
        );
    }
    Ok(())
}
