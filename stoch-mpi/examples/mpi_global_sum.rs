//! The source papers' global summation (seeds 000 and 001) spread over 1, 2, 4 and 8 MPI
//! ranks, summed with naive, Kahan, composite and the order-independent sum, in plain and in
//! stochastic arithmetic.
//!
//! ```sh
//! cd stoch-mpi && cargo build --release --example mpi_global_sum
//! mpiexec -n 8 ../target/mpi/release/examples/mpi_global_sum            # MPICH; Open MPI: add --oversubscribe
//! mpiexec -n 8 ../target/mpi/release/examples/mpi_global_sum --sizes 100000 --out /tmp/gs   # quicker
//! ```
//!
//! One job of 8 ranks runs every rank count: the first k ranks form a communicator, each
//! holds a contiguous k-th of the (shuffled) data, sums it, and the partial sums are reduced
//! across the k ranks (plain: `MPI_SUM` and rsmpi; stochastic: stoch-mpi's operators).
//!
//! What to expect (rank 0 prints the table and writes `mpi-global-sum.md` and
//! `mpi-global-sum.svg` to `--out`, default the workspace's `docs/`):
//! - the data are pairs `x, -x` (seed 000: O(1e-6) & O(1e6); seed 001's widest range (1e-7,
//!   1e-6)&(1e6,1e7), 10^7 values), so the exact sum is 0: the plain naive and Kahan sums
//!   are not 0, and change with the rank count;
//! - their stochastic versions print `@.0` (a computed zero: no digit is exact), with the mean
//!   of the samples in parentheses: DSA says none of those digits can be trusted;
//! - on the data plus one `1.0` (exact sum 1), the digits DSA prints are the digits that are
//!   right;
//! - the order-independent sum is bit-identical for every rank count, plain and stochastic.
//!
//! The job's report (stderr, rank 0) lists the cancellations met in the sums, per rank.

use std::fmt::Write as _;
use std::path::PathBuf;

use mpi::collective::SystemOperation;
use mpi::topology::Color;
use mpi::traits::*;
use stoch::repro::{symmetric_data, Order, RANGES};
use stoch_core::accum::{Accumulator, CompositeSum, Kahan, Naive, ReproducibleSum};
use stoch_core::{Sf32, Sf64, StochFloat, Stochastic};
use stoch_mpi::{
    all_reduce, all_reduce_composite, all_reduce_composite_plain, all_reduce_reproducible,
    all_reduce_stoch_reproducible, Op, StochReproducibleSum,
};

#[allow(dead_code)]
#[path = "../../examples/repro_suite/plots.rs"]
mod plots;

type Res<T = ()> = Result<T, Box<dyn std::error::Error>>;

/// One data set: its label, its values.
struct DataSet {
    label: String,
    values: Vec<f64>,
    exact: f64,
}

/// The results of one data set on one rank count.
struct Row {
    data: String,
    ranks: i32,
    plain: [f64; 4],
    stoch: [Sf64; 4],
    /// The naive sum in `f32` (the papers' `float`), plain and stochastic.
    single: (f32, Sf32),
}

const METHODS: [&str; 4] = ["naive", "kahan", "composite", "order-independent"];

fn main() -> Res {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let sizes: Vec<usize> = match value("--sizes") {
        Some(s) => s.split(',').map(str::parse).collect::<Result<_, _>>()?,
        None => vec![1_000_000, 10_000_000],
    };
    let out = value("--out")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs")));
    let job = stoch_mpi::init(stoch_core::Config::from_env()?)?;
    let world = job.world();
    let (rank, size) = (world.rank(), world.size());

    // Seed 000's range for the first size, seed 001's widest for the others; plus the first
    // data set with one more 1.0 (exact sum 1), to set DSA's digits against the right ones.
    let mut sets = Vec::new();
    for (k, &n) in sizes.iter().enumerate() {
        let range = if k == 0 { RANGES[2] } else { RANGES[3] };
        let values = Order::Shuffled(1).apply(&symmetric_data(n, &range, 2010), 2010);
        sets.push(DataSet {
            label: format!("{n:.0e} in {}", range.label()),
            values,
            exact: 0.0,
        });
    }
    let mut plus_one = sets[0].values.clone();
    plus_one.insert(plus_one.len() / 3, 1.0);
    sets.push(DataSet {
        label: format!("{} + 1.0", sets[0].label),
        values: plus_one,
        exact: 1.0,
    });

    let mut rows = Vec::new();
    let counts: Vec<i32> = [1, 2, 4, 8].into_iter().filter(|&k| k <= size).collect();
    for set in &sets {
        for &k in &counts {
            let color = if rank < k {
                Color::with_value(0)
            } else {
                Color::undefined()
            };
            if let Some(comm) = world.split_by_color(color) {
                let n = set.values.len();
                let (lo, hi) = (
                    n * rank as usize / k as usize,
                    n * (rank as usize + 1) / k as usize,
                );
                let row = sum_on(&comm, &set.values[lo..hi])?;
                if rank == 0 {
                    rows.push(Row {
                        data: set.label.clone(),
                        ranks: k,
                        plain: row.0,
                        stoch: row.1,
                        single: row.2,
                    });
                }
            }
            world.barrier();
        }
    }
    if rank == 0 {
        let table = table(&rows, &sets);
        println!("{table}");
        std::fs::create_dir_all(&out)?;
        std::fs::write(out.join("mpi-global-sum.md"), &table)?;
        picture(
            &out.join("mpi-global-sum.svg"),
            &rows,
            &sets[sets.len() - 2].label,
            &counts,
        )?;
        eprintln!("wrote {}/mpi-global-sum.{{md,svg}}", out.display());
    }
    Ok(())
}

/// The four methods, plain and stochastic, and the naive `f32` sum, over the ranks of `comm`.
#[allow(clippy::type_complexity)]
fn sum_on(comm: &impl Communicator, xs: &[f64]) -> Res<([f64; 4], [Sf64; 4], (f32, Sf32))> {
    let sx: Vec<Sf64> = xs.iter().map(|&x| Sf64::new(x)).collect();
    let mpi_sum = |x: f64| {
        let mut t = 0.0;
        comm.all_reduce_into(&x, &mut t, SystemOperation::sum());
        t
    };
    // Naive and Kahan: each rank's partial sum, then MPI's sum of the partial sums.
    let naive = mpi_sum(local::<Naive<f64>, f64>(xs).result());
    let kahan = mpi_sum(local::<Kahan<f64>, f64>(xs).result());
    let composite = all_reduce_composite_plain(comm, local::<CompositeSum<f64>, f64>(xs).pair())?;
    let mut repro = ReproducibleSum::new();
    xs.iter().for_each(|&x| repro.add_f64(x));
    let repro = all_reduce_reproducible(comm, &repro)?.result_f64();

    let s_naive = all_reduce(comm, local::<Naive<Sf64>, Sf64>(&sx).result(), Op::Sum)?;
    let s_kahan = all_reduce(comm, local::<Kahan<Sf64>, Sf64>(&sx).result(), Op::Sum)?;
    let pair = all_reduce_composite(comm, local::<CompositeSum<Sf64>, Sf64>(&sx).pair())?;
    let mut s_repro = StochReproducibleSum::<f64>::new();
    sx.iter().for_each(|&x| s_repro.add(x));
    let s_repro = all_reduce_stoch_reproducible(comm, &s_repro)?.result();
    // The data are f32-representable: the same values in single precision.
    let x32: Vec<f32> = xs.iter().map(|&x| x as f32).collect();
    let s32: Vec<Sf32> = x32.iter().map(|&x| Sf32::new(x)).collect();
    let mut naive32 = 0.0f32;
    comm.all_reduce_into(
        &local::<Naive<f32>, f32>(&x32).result(),
        &mut naive32,
        SystemOperation::sum(),
    );
    let s_naive32 = all_reduce(comm, local::<Naive<Sf32>, Sf32>(&s32).result(), Op::Sum)?;
    Ok((
        [naive, kahan, composite.value + composite.error, repro],
        [s_naive, s_kahan, pair.value + pair.error, s_repro],
        (naive32, s_naive32),
    ))
}

fn local<A: Accumulator<T>, T: Copy>(xs: &[T]) -> A {
    let mut a = A::default();
    a.add_slice(xs);
    a
}

fn stoch_cell<T: StochFloat + std::fmt::LowerExp>(x: &Stochastic<T>) -> String {
    if x.is_exact_zero() {
        "0 (exact)".into()
    } else if x.is_computed_zero() {
        format!("@.0 ({:.4e})", x.mean())
    } else {
        format!("{x} [{} dig]", x.digits())
    }
}

fn table(rows: &[Row], sets: &[DataSet]) -> String {
    let mut t = String::new();
    let _ = writeln!(
        t,
        "# Global summation over MPI ranks (seeds 000, 001)\n\n\
         Data: pairs `x, -x` (exact sum 0), shuffled, split in contiguous blocks over the ranks; \
         each rank sums its block, then the partial sums are reduced across the ranks (plain: \
         `MPI_SUM`; stochastic: stoch-mpi's randomly rounded operators; composite: the pair; \
         order-independent: exact long accumulators merged exactly). Plain cells: the result to 16 digits (8 for `f32`); \
         stochastic cells: the exact digits and their count, `@.0 (mean)` for a computed zero. \
         Produced by `mpiexec -n 8 mpi_global_sum` (stoch-mpi/examples).\n\n\
         Kahan's partial sums are merged across ranks by adding their results: the compensation \
         each rank holds is left out, the same in all three samples, a loss that DSA cannot see \
         (it measures rounding, not terms a method drops). Where that loss dominates, the samples \
         can agree on a wrong value and a Kahan Sf64 cell shows digits where the exact sum is 0. \
         The composite pair and the order-independent sum carry everything across ranks.\n"
    );
    for set in sets {
        let _ = writeln!(t, "\n## {} (exact sum {})\n", set.label, set.exact);
        let _ = write!(t, "| ranks | naive f32 | naive Sf32 |");
        for m in METHODS {
            let _ = write!(t, " {m} f64 |");
        }
        for m in METHODS {
            let _ = write!(t, " {m} Sf64 |");
        }
        let _ = writeln!(t, "\n|---:|{}", "---:|".repeat(10));
        for r in rows.iter().filter(|r| r.data == set.label) {
            let _ = write!(
                t,
                "| {} | {:.7e} | {} |",
                r.ranks,
                r.single.0,
                stoch_cell(&r.single.1)
            );
            for p in r.plain {
                let _ = write!(t, " {p:.15e} |");
            }
            for s in &r.stoch {
                let _ = write!(t, " {} |", stoch_cell(s));
            }
            let _ = writeln!(t);
        }
        let repro: Vec<u64> = rows
            .iter()
            .filter(|r| r.data == set.label)
            .map(|r| r.plain[3].to_bits())
            .collect();
        let same = repro.windows(2).all(|w| w[0] == w[1]);
        let _ = writeln!(
            t,
            "\nOrder-independent f64 sum bit-identical for every rank count: {}.",
            if same { "yes" } else { "NO" }
        );
    }
    t
}

fn picture(path: &std::path::Path, rows: &[Row], label: &str, counts: &[i32]) -> Res {
    let groups: Vec<String> = counts
        .iter()
        .map(|&k| format!("{k} rank{}", if k == 1 { "" } else { "s" }))
        .collect();
    let mut series: Vec<(String, Vec<Option<f64>>)> = vec![(
        "naive f32".into(),
        counts
            .iter()
            .map(|&k| {
                rows.iter()
                    .find(|r| r.data == label && r.ranks == k)
                    .map(|r| f64::from(r.single.0.abs()))
            })
            .collect(),
    )];
    series.extend((0..4).map(|m| {
        let v = counts
            .iter()
            .map(|&k| {
                rows.iter()
                    .find(|r| r.data == label && r.ranks == k)
                    .map(|r| r.plain[m].abs())
            })
            .collect();
        (format!("{} f64", METHODS[m]), v)
    }));
    plots::grouped_bars_log(
        path,
        &format!("|global sum| over MPI ranks, {label} (exact 0)"),
        "|computed sum|",
        &groups,
        &series,
        1e-12,
    )
}
