//! The multi-process checks of stoch-mpi, one program with one mode per check, launched by
//! `stoch-mpi/driver`'s tests as `mpiexec -n N mpi_checks MODE` (N = 1, 2, 4).
//!
//! Every rank checks what it can see and exits non-zero on a failure (a failed `assert!`
//! unwinds through the job guard, which aborts the whole job); what only the launcher can
//! compare (across rank counts or runs) is printed on stdout as `rank R: ...` lines.
//!
//! Modes: `datatypes`, `reduce`, `report`, `repeat`, `panic`, `errors`.

use mpi::traits::*;
use stoch_core::accum::ReproducibleSum;
use stoch_core::composite::Composite;
use stoch_core::{Config, Flags, Instability, Sf32, Sf64, StochFloat, Stochastic};
use stoch_mpi::{
    all_reduce, all_reduce_composite, all_reduce_reproducible, all_reduce_slice,
    all_reduce_stoch_reproducible, reduce, unwire, wire, wire_mut, Error, MpiFloat, Op,
    StochReproducibleSum, Wire,
};

fn main() -> Result<(), Error> {
    let mode = std::env::args().nth(1).unwrap_or_default();
    let job = stoch_mpi::init(Config::from_env()?)?;
    // An error on one rank while the others wait in a collective would hang the job: end it.
    if let Err(e) = run(&job, &mode) {
        eprintln!("mpi_checks: rank {}: {e}", job.rank());
        job.world().abort(1);
    }
    Ok(())
}

fn run(job: &stoch_mpi::Job, mode: &str) -> Result<(), Error> {
    match mode {
        "datatypes" => datatypes(job),
        "reduce" => reductions(job)?,
        "report" => report_workload(job),
        "repeat" => repeat(job)?,
        "panic" => panic_on_last_rank(job)?,
        "errors" => errors(job)?,
        other => {
            eprintln!("mpi_checks: unknown mode `{other}` (datatypes, reduce, report, repeat, panic, errors)");
            std::process::exit(2);
        }
    }
    Ok(())
}

/// A value with distinct samples, flags and awkward bits (signed zero, subnormal, NaN with a
/// payload, infinity), the same on every rank for the same `(i, salt)`.
fn value<T: StochFloat + MpiFloat>(
    i: usize,
    salt: u64,
    from_bits: impl Fn(u64) -> T,
) -> Stochastic<T> {
    let k = (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ salt;
    let special = [
        from_bits(0x8000_0000_0000_0000), // -0.0 (f64), a plain pattern for f32
        from_bits(1),                     // smallest subnormal
        from_bits(0x7FF8_0000_DEAD_BEEF), // NaN with payload (f64)
    ];
    let samples = match i % 5 {
        0 => special,
        _ => [
            from_bits(k),
            from_bits(k >> 3),
            from_bits(k.rotate_left(17)),
        ],
    };
    Stochastic::from_parts(samples, Flags::from_bits((i % 128) as u8))
}

fn f64v(i: usize, salt: u64) -> Sf64 {
    // Exponent field kept below the top so most are finite; NaN payloads come from `special`.
    value(i, salt, |b| f64::from_bits(b & 0xBFFF_FFFF_FFFF_FFFF))
}

fn f32v(i: usize, salt: u64) -> Sf32 {
    value(i, salt, |b| {
        f32::from_bits((b as u32) & 0xBFFF_FFFF | (b >> 63) as u32)
    })
}

fn bits64(x: &Sf64) -> ([u64; 3], u8) {
    (x.samples().map(f64::to_bits), x.flags().bits())
}

fn bits32(x: &Sf32) -> ([u32; 3], u8) {
    (x.samples().map(f32::to_bits), x.flags().bits())
}

fn same64(got: &[Sf64], want: &[Sf64], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert_eq!(bits64(g), bits64(w), "{what}: value {i} changed");
    }
}

fn same32(got: &[Sf32], want: &[Sf32], what: &str) {
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert_eq!(bits32(g), bits32(w), "{what}: value {i} changed");
    }
}

fn datatypes(job: &stoch_mpi::Job) {
    let world = job.world();
    let (rank, size) = (world.rank(), world.size());
    // No hole: MPI moves whole values, and the stride is Rust's.
    assert_eq!(
        stoch_mpi::size_and_extent::<f64>(),
        (32, 32),
        "Sf64 datatype"
    );
    assert_eq!(
        stoch_mpi::size_and_extent::<f32>(),
        (16, 16),
        "Sf32 datatype"
    );
    let n = 37;
    let mine = |r: i32| (0..n).map(|i| f64v(i, r as u64)).collect::<Vec<_>>();
    let mine32 = |r: i32| (0..n).map(|i| f32v(i, r as u64)).collect::<Vec<_>>();

    // Point to point: every rank sends its slice to the next, receives from the previous.
    let next = world.process_at_rank((rank + 1) % size);
    let prev = (rank + size - 1) % size;
    let mut got = vec![Sf64::ZERO; n];
    let mut got32 = vec![Sf32::ZERO; n];
    let from = world.process_at_rank(prev);
    mpi::point_to_point::send_receive_into(wire(&mine(rank)), &next, wire_mut(&mut got), &from);
    mpi::point_to_point::send_receive_into(wire(&mine32(rank)), &next, wire_mut(&mut got32), &from);
    same64(&got, &mine(prev), "send/receive Sf64");
    same32(&got32, &mine32(prev), "send/receive Sf32");

    // A single value and an array of values (`[Wire<T>; N]`).
    let root = world.process_at_rank(0);
    let mut one = if rank == 0 {
        Wire(f64v(3, 99))
    } else {
        Wire(Sf64::ZERO)
    };
    root.broadcast_into(&mut one);
    same64(&[one.0], &[f64v(3, 99)], "broadcast of one Sf64");
    let mut arr: [Wire<f32>; 4] = if rank == 0 {
        [0, 1, 2, 3].map(|i| Wire(f32v(i, 7)))
    } else {
        [Wire(Sf32::ZERO); 4]
    };
    root.broadcast_into(&mut arr);
    same32(
        unwire(&arr),
        &[0, 1, 2, 3].map(|i| f32v(i, 7)),
        "broadcast of [Wire<f32>; 4]",
    );

    // Broadcast of a slice.
    let mut b = if rank == 0 {
        mine(1000)
    } else {
        vec![Sf64::ZERO; n]
    };
    root.broadcast_into(wire_mut(&mut b));
    same64(&b, &mine(1000), "broadcast");

    // Gather to rank 0.
    if rank == 0 {
        let mut all = vec![Sf64::ZERO; n * size as usize];
        root.gather_into_root(wire(&mine(rank)), wire_mut(&mut all));
        for r in 0..size {
            same64(&all[r as usize * n..][..n], &mine(r), "gather");
        }
    } else {
        root.gather_into(wire(&mine(rank)));
    }

    // Scatter from rank 0: rank r gets mine(100 + r).
    let mut part = vec![Sf64::ZERO; n];
    if rank == 0 {
        let all: Vec<Sf64> = (0..size).flat_map(|r| mine(100 + r)).collect();
        root.scatter_into_root(wire(&all), wire_mut(&mut part));
    } else {
        root.scatter_into(wire_mut(&mut part));
    }
    same64(&part, &mine(100 + rank), "scatter");

    // All-to-all: block j of rank r is f32v(.., 1000·r + j), received as block r of rank j.
    let send: Vec<Sf32> = (0..size)
        .flat_map(|j| (0..n).map(move |i| f32v(i, (1000 * rank + j) as u64)))
        .collect();
    let mut recv = vec![Sf32::ZERO; n * size as usize];
    world.all_to_all_into(wire(&send), wire_mut(&mut recv));
    for j in 0..size {
        let want: Vec<Sf32> = (0..n).map(|i| f32v(i, (1000 * j + rank) as u64)).collect();
        same32(&recv[j as usize * n..][..n], &want, "all-to-all");
    }
    println!("rank {rank}: datatypes ok");
}

/// `(RD(S), RU(S))` of the exact sum `S` held by `s`.
fn faithful_pair(s: &ReproducibleSum) -> (f64, f64) {
    let near = s.result_f64();
    let mut rest = s.clone();
    rest.add_f64(-near);
    let r = rest.result_f64();
    if r > 0.0 {
        (near, near.next_up())
    } else if r < 0.0 {
        (near.next_down(), near)
    } else {
        (near, near)
    }
}

/// `(RD(S), RU(S))` in `f32` of the exact sum `S` held by `s`.
fn faithful_pair_f32(s: &ReproducibleSum) -> (f32, f32) {
    let near = s.result_f32();
    let mut rest = s.clone();
    rest.add_f64(-f64::from(near));
    let r = rest.result_f64();
    if r > 0.0 {
        (near, near.next_up())
    } else if r < 0.0 {
        (near.next_down(), near)
    } else {
        (near, near)
    }
}

/// The `Sf32` sum operator (its own datatype and operator): faithful samples, both
/// directions taken, as for `Sf64`.
fn faithful_f32(world: &mpi::topology::SimpleCommunicator) -> Result<(), Error> {
    let (rank, size) = (world.rank(), world.size());
    let term = |r: i32, i: usize| -> f32 {
        if r == 0 {
            (2 * i + 1) as f32 * 2f32.powi(-30)
        } else {
            (r as usize * 3 + i) as f32
        }
    };
    let xs: Vec<Sf32> = (0..64).map(|i| Sf32::new(term(rank, i))).collect();
    let mut sums = vec![Sf32::ZERO; 64];
    all_reduce_slice(world, &xs, &mut sums, Op::Sum)?;
    let (mut down, mut up) = (false, false);
    for (i, s) in sums.iter().enumerate() {
        let mut exact = ReproducibleSum::new();
        for r in 0..size {
            exact.add_f32(term(r, i));
        }
        let (rd, ru) = faithful_pair_f32(&exact);
        for v in s.samples() {
            assert!(
                v == rd || v == ru,
                "Sf32 element {i}: {v:e} not in [{rd:e}, {ru:e}]"
            );
            down |= rd != ru && v == rd;
            up |= rd != ru && v == ru;
        }
    }
    assert!(size == 1 || (down && up), "Sf32 sums all rounded one way");
    Ok(())
}

fn reductions(job: &stoch_mpi::Job) -> Result<(), Error> {
    let world = job.world();
    let (rank, size) = (world.rank(), world.size());
    faithful_f32(world)?;
    let m = 64;
    // Rank 0 holds a tiny term, the others integers: all positive, so each sample of any
    // randomly rounded reduction tree stays between RD(S) and RU(S) of the exact sum S.
    let term = |r: i32, i: usize| -> f64 {
        if r == 0 {
            (2 * i + 1) as f64 * 2f64.powi(-60)
        } else {
            (r as usize * 3 + i) as f64
        }
    };
    // Rank 1's terms carry the Branching flag: the sums must carry it.
    let xs: Vec<Sf64> = (0..m)
        .map(|i| {
            let f = if rank == 1 {
                Flags::EMPTY.with(Instability::Branching)
            } else {
                Flags::EMPTY
            };
            Stochastic::from_parts([term(rank, i); 3], f)
        })
        .collect();
    let mut sums = vec![Sf64::ZERO; m];
    all_reduce_slice(world, &xs, &mut sums, Op::Sum)?;
    let mut saw_down = false;
    let mut saw_up = false;
    for (i, s) in sums.iter().enumerate() {
        let mut exact = ReproducibleSum::new();
        for r in 0..size {
            exact.add_f64(term(r, i));
        }
        let (rd, ru) = faithful_pair(&exact);
        for v in s.samples() {
            assert!(
                v == rd || v == ru,
                "element {i}: sample {v:e} not in [{rd:e}, {ru:e}]"
            );
            saw_down |= rd != ru && v == rd;
            saw_up |= rd != ru && v == ru;
        }
        assert_eq!(
            s.flags().contains(Instability::Branching),
            size > 1,
            "element {i}: flags {:?}",
            s.flags()
        );
    }
    if size > 1 {
        // Random rounding: both neighbours occur (round-to-nearest would give one of them).
        assert!(
            saw_down && saw_up,
            "sums all rounded one way: not random rounding"
        );
    }

    // Product, min, max of exact data are exact; reduce to a root gives the same.
    // Rank 0's value carries the Cancellation flag: every result carries it, the maximum
    // too, which comes from another rank's value (the flags of both operands are ORed).
    let f = if rank == 0 {
        Flags::EMPTY.with(Instability::Cancellation)
    } else {
        Flags::EMPTY
    };
    let x = Stochastic::from_parts([f64::from(rank + 2); 3], f);
    let prod: f64 = (0..size).map(|r| f64::from(r + 2)).product();
    let (p, lo, hi) = (
        all_reduce(world, x, Op::Product)?,
        all_reduce(world, x, Op::Min)?,
        all_reduce(world, x, Op::Max)?,
    );
    assert_eq!(p.samples(), [prod; 3]);
    assert_eq!(lo.samples(), [2.0; 3]);
    assert_eq!(hi.samples(), [f64::from(size + 1); 3]);
    for v in [p, lo, hi] {
        assert!(
            v.flags().contains(Instability::Cancellation),
            "{:?}",
            v.flags()
        );
    }
    let root = size - 1;
    let r = reduce(world, root, Sf32::new(1.5), Op::Sum)?;
    assert_eq!(r.is_some(), rank == root);
    if let Some(r) = r {
        assert_eq!(r.samples(), [1.5 * size as f32; 3]);
    }

    // A cancellation in a global sum is recorded by the operator (on the rank that combines).
    let v = if rank == 0 {
        Sf64::new(1.0) + Sf64::new(1e-13) // 1 + 1e-13 with its 15 digits
    } else if rank == 1 {
        Sf64::new(-1.0)
    } else {
        Sf64::ZERO
    };
    stoch_core::reset();
    let c = all_reduce(world, v, Op::Sum)?;
    let here = stoch_core::report();
    let mut cancellations = 0u64;
    world.all_reduce_into(
        &here.count(Instability::Cancellation),
        &mut cancellations,
        mpi::collective::SystemOperation::sum(),
    );
    if size > 1 {
        assert!(c.digits() < 8, "{c}");
        assert!(
            cancellations >= 1,
            "no cancellation recorded in the global sum"
        );
        if here.count(Instability::Cancellation) > 0 {
            assert!(
                here.sites()
                    .iter()
                    .any(|s| s.file.ends_with("reduce.rs") && s.kind == Instability::Cancellation),
                "{here}"
            );
        }
    }

    // Composite pair across ranks: 1e16 on rank 0, 1 on the others. A plain sum loses the
    // ones (the ulp of 1e16 is 2); each sample of the pair keeps them: value - 1e16 + error
    // is exactly size - 1.
    let pair = Composite::new(Sf64::new(if rank == 0 { 1e16 } else { 1.0 }), Sf64::ZERO);
    let total = all_reduce_composite(world, pair)?;
    for (v, e) in total.value.samples().into_iter().zip(total.error.samples()) {
        assert_eq!(
            (v - 1e16) + e,
            f64::from(size - 1),
            "composite total {v:e} + {e:e}"
        );
    }

    // The order-independent sums: the same bits for every rank count (the launcher compares
    // these lines across runs of 1, 2 and 4 ranks). Rank r holds terms r, r+size, ...
    let n_terms = 4000;
    let data: Vec<f64> = (0..n_terms)
        .map(|k| {
            let x = ((k * 7919) % 1000) as f64 * 1.000_000_1e-3;
            if k % 2 == 0 {
                x * 1e6
            } else {
                -x * 1e-6
            }
        })
        .collect();
    let mut plain = ReproducibleSum::new();
    let mut stoch = StochReproducibleSum::<f64>::new();
    for k in (rank as usize..n_terms).step_by(size as usize) {
        plain.add_f64(data[k]);
        // Terms with three different samples, the same whichever rank holds them.
        let d = data[k];
        stoch.add(Sf64::from_samples([
            d,
            d * (1.0 + 1e-12),
            d * (1.0 - 3e-12),
        ]));
    }
    let p = all_reduce_reproducible(world, &plain)?.result_f64();
    let s = all_reduce_stoch_reproducible(world, &stoch)?.result();
    if rank == 0 {
        let sb = s.samples().map(f64::to_bits);
        println!(
            "rank 0: reproducible {:016x}, stochastic {:016x} {:016x} {:016x}",
            p.to_bits(),
            sb[0],
            sb[1],
            sb[2]
        );
    }
    println!("rank {rank}: reductions ok");
    Ok(())
}

/// Units of work with known instabilities, spread evenly over the ranks: each unit makes one
/// cancellation, one unstable division and one unstable branching, at fixed lines.
fn report_workload(job: &stoch_mpi::Job) {
    const UNITS: i32 = 48;
    let (rank, size) = (job.rank(), job.size());
    let noise = Sf64::from_samples([1e-17, -1e-17, 2e-17]);
    for _ in (rank..UNITS).step_by(size as usize) {
        let a = Sf64::new(1.0) + Sf64::new(1e-13);
        let c = a - Sf64::new(1.0); // cancellation
        let q = Sf64::new(1.0) / noise; // division
        let b = noise > Sf64::ZERO; // branching
        std::hint::black_box((c, q, b));
    }
    println!("rank {rank}: report workload done");
}

/// A stochastic computation whose samples depend on the rank's random stream.
fn repeat(job: &stoch_mpi::Job) -> Result<(), Error> {
    let world = job.world();
    let rank = world.rank();
    let mut acc = Sf64::ZERO;
    for k in 1..2000 {
        acc += Sf64::new(1.0) / f64::from(k);
    }
    // Same local work on every rank: the samples differ only through the rank's stream.
    let mine = acc.samples().map(f64::to_bits);
    let mut flat = vec![0u64; 3 * world.size() as usize];
    world.all_gather_into(&mine[..], &mut flat[..]);
    let all: Vec<&[u64]> = flat.chunks_exact(3).collect();
    let total = all_reduce(world, acc, Op::Sum)?;
    // Every rank holds the same bits of an all-reduced result (else ranks could branch
    // apart on it): 64 inexact sums, small (MPI's short-message algorithms) and 20000 long.
    for len in [64, 20_000] {
        let xs: Vec<Sf64> = (0..len)
            .map(|i| Sf64::new(1.0) / (3.0 + i as f64 + f64::from(rank) / 7.0))
            .collect();
        let mut sums = vec![Sf64::ZERO; len];
        all_reduce_slice(world, &xs, &mut sums, Op::Sum)?;
        let mine: Vec<u64> = sums
            .iter()
            .flat_map(|s| s.samples().map(f64::to_bits))
            .collect();
        let mut root_copy = mine.clone();
        world.process_at_rank(0).broadcast_into(&mut root_copy[..]);
        assert!(
            mine == root_copy,
            "rank {rank}'s copy of an all-reduced slice of {len} differs from rank 0's"
        );
    }
    if rank == 0 {
        for (r, s) in all.iter().enumerate() {
            println!(
                "rank 0: local sum of rank {r}: {:016x} {:016x} {:016x}",
                s[0], s[1], s[2]
            );
        }
        let t = total.samples().map(f64::to_bits);
        println!(
            "rank 0: global sum {:016x} {:016x} {:016x}",
            t[0], t[1], t[2]
        );
    }
    Ok(())
}

/// The last rank panics after some work, while the others go on to the report's gather.
fn panic_on_last_rank(job: &stoch_mpi::Job) -> Result<(), Error> {
    let (rank, size) = (job.rank(), job.size());
    let x = all_reduce(job.world(), Sf64::new(1.0), Op::Sum)?;
    if rank == size - 1 {
        std::thread::sleep(std::time::Duration::from_millis(300));
        panic!("rank {rank} fails on purpose after the reduction ({x})");
    }
    println!("rank {rank}: waiting in the report gather");
    Ok(())
}

/// The fallible calls answer errors, not panics.
fn errors(job: &stoch_mpi::Job) -> Result<(), Error> {
    let world = job.world();
    let e = stoch_mpi::init(Config::default())
        .err()
        .expect("a second init must fail");
    assert!(matches!(e, Error::AlreadyInitialized), "{e}");
    assert!(e.to_string().contains("stoch_mpi::init"), "{e}");
    let e = reduce(world, world.size(), Sf64::ONE, Op::Sum).unwrap_err();
    assert!(matches!(e, Error::BadRoot { .. }), "{e}");
    let mut out = vec![Sf64::ZERO; 2];
    let e = all_reduce_slice(world, &[Sf64::ONE; 3], &mut out, Op::Sum).unwrap_err();
    assert!(
        matches!(
            e,
            Error::LengthMismatch {
                got: 2,
                expected: 3,
                ..
            }
        ),
        "{e}"
    );
    // The Sf64 operator handed Sf32's datatype: refused, the value left alone.
    let mut y = Sf64::new(2.0);
    let e = stoch_mpi::__sum_op_with_datatype::<f64>(Sf64::ONE, &mut y, f32::stochastic_type())
        .unwrap_err();
    assert!(
        matches!(
            e,
            Error::TypeMismatch {
                expected: "f64",
                ..
            }
        ),
        "{e}"
    );
    assert_eq!(y.samples(), [2.0; 3]);
    stoch_mpi::__sum_op_with_datatype::<f64>(Sf64::ONE, &mut y, f64::stochastic_type())?;
    assert_eq!(y.samples(), [3.0; 3]);
    println!("rank {}: errors ok", world.rank());
    Ok(())
}
