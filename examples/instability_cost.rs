//! What a check costs when it does find something, with one thread and with several.
//!
//! ```text
//! cargo run --release --example instability_cost             # 10^6 iterations per thread
//! cargo run --release --example instability_cost -- --quick  # 10^4 (the test suite runs this)
//! cargo run --release --example instability_cost -- --threads 8
//! ```
//!
//! The `overhead` example times loops whose checks almost never fire. This one times the other
//! end: every iteration of `acc = acc + (a + b)` with `b ≈ −a` reaches a check's slow path,
//! which runs out of line through the register-saving trampoline. Four loops, each timed with
//! one thread and then with `--threads` threads at once (default: the processor count, at least
//! 2), each thread running the same number of iterations:
//!
//! - `plain`: the loop in `f64`;
//! - `checks off`: `Sf64` with every check switched off;
//! - `slow path, nothing found`: exact operands, so the cancellation pre-test fires (the sum is
//!   far smaller than its operands) but the digits show no loss and nothing is recorded;
//! - `cancellation found`: `a` carries noise in its last digits, so every `a + b` loses them
//!   all: one cancellation and one accuracy collapse recorded per iteration, at the same two
//!   source sites by every thread;
//! - `branching, not checked` and `branching found`: `acc += a < b` on two values whose
//!   difference is numerical noise, with the branching check off, then on: every iteration of
//!   the second records one unstable branching at an already-seen site, so the difference of
//!   the two lines is the cost of recording one event (out-of-line call included).
//!
//! Times are wall-clock nanoseconds per iteration of one thread: with `T` threads on `T` free
//! cores, a figure equal to the one-thread figure means `T` times the throughput. The example
//! also checks that the report counted exactly one cancellation per iteration of every thread
//! and exits with an error if not.
//!
//! Expected output (2026-11-27, the project's 2-core AMD EPYC Zen 4, `-C target-cpu=native`,
//! under load from other builds: figures move by 10-50% from run to run on that shared machine,
//! and the two-thread column shares the cores with them):
//!
//! ```text
//! stoch instability cost: 1000000 iterations per thread, wall-clock ns per iteration
//! loop                         1 thread   2 threads
//! plain                             1.1         2.2
//! checks off                        5.4         6.9
//! slow path, nothing found         43.9        60.5
//! cancellation found              137.1       208.7
//! branching, not checked           10.7        21.3
//! branching found                  11.3        22.3
//! recording one event at a seen site: 0.6 ns (branching found - not checked, 1 thread)
//! counted: 3000000 cancellations and 3000000 branchings (1000000 + 2 x 1000000) each, as expected
//! ```
//!
//! The branching rows' difference is the cost of recording an event at a site already met;
//! before the lock-free counters of 2026-11-27 it was 57 ns here (cancellation found: 168 ns).
//!
//! On a 2-core Intel Xeon (Emerald Rapids, 2026-11-26, before the branching rows and the
//! lock-free counters) the rows `slow path, nothing found` and `cancellation found` read about
//! 26 and 130-155 ns (440-610 ns before the trampoline cleared the upper halves of the vector
//! registers for the slow path's calls into the C library).

use std::hint::black_box;
use std::time::Instant;

use stoch_core::{report, reset, Config, Instability, ReportMode, Sf64};

/// Which checks a timed loop runs with.
#[derive(Clone, Copy)]
enum Checks {
    On,
    Off,
    AllButBranching,
}

/// A timed loop: its name, its checks, and its body.
type Row = (&'static str, Checks, fn(usize));

/// Runs `body(n)` on `threads` threads at once and returns the wall-clock time per iteration
/// of one thread, in nanoseconds.
fn per_iteration(threads: usize, n: usize, body: fn(usize)) -> f64 {
    let t = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(move || body(n));
        }
    });
    t.elapsed().as_nanos() as f64 / n as f64
}

/// The loop in plain `f64`.
fn plain(n: usize) {
    let (a, b) = (black_box(1.0 + 1e-12), black_box(-1.0));
    let mut acc = 0.0f64;
    for _ in 0..n {
        acc += black_box(black_box(a) + black_box(b));
    }
    black_box(acc);
}

/// The stochastic loop on `a` and `b = −1`.
fn stochastic(n: usize, a: Sf64) {
    let b = black_box(Sf64::new(-1.0));
    let mut acc = Sf64::new(0.0);
    for _ in 0..n {
        acc += black_box(black_box(a) + black_box(b));
    }
    black_box(acc);
}

/// The stochastic loop on exact operands: the pre-test fires, nothing is lost.
fn exact(n: usize) {
    stochastic(n, black_box(Sf64::new(1.0 + 1e-12)));
}

/// The stochastic loop on a noisy `a`: every `a + b` is a cancellation and a collapse.
fn noisy(n: usize) {
    stochastic(
        n,
        black_box(Sf64::from_samples([1.0 + 1e-12, 1.0 - 1e-12, 1.0 + 3e-13])),
    );
}

/// Comparisons of two values whose difference is numerical noise: an unstable branching each.
fn branching(n: usize) {
    let a = black_box(Sf64::from_samples([1.0 + 1e-12, 1.0 - 1e-12, 1.0 + 3e-13]));
    let b = black_box(Sf64::new(1.0));
    let mut acc = 0u64;
    for _ in 0..n {
        acc += u64::from(black_box(a) < black_box(b));
    }
    black_box(acc);
}

/// The checks of a row; no report at exit.
fn checks(which: Checks) {
    let c = Config::default().report(ReportMode::Off);
    match which {
        Checks::On => c.detect_all(true),
        Checks::Off => c.detect_all(false),
        Checks::AllButBranching => c.detect_all(true).disable(Instability::Branching),
    }
    .apply();
}

fn main() {
    let mut n = 1_000_000;
    let mut threads = std::thread::available_parallelism()
        .map(|p| p.get())
        .unwrap_or(2)
        .max(2);
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--quick" => n = 10_000,
            "--threads" => {
                threads = match args.next().and_then(|v| v.parse().ok()) {
                    Some(t) if t >= 1 => t,
                    _ => {
                        eprintln!("--threads needs a whole number of at least 1");
                        std::process::exit(2);
                    }
                }
            }
            other => {
                eprintln!("unknown argument {other:?} (accepted: --quick, --threads N)");
                std::process::exit(2);
            }
        }
    }
    println!("stoch instability cost: {n} iterations per thread, wall-clock ns per iteration");
    println!(
        "{:<26} {:>10} {:>11}",
        "loop",
        "1 thread",
        format!("{threads} threads")
    );
    let rows: [Row; 6] = [
        ("plain", Checks::Off, plain),
        ("checks off", Checks::Off, exact),
        ("slow path, nothing found", Checks::On, exact),
        ("cancellation found", Checks::On, noisy),
        ("branching, not checked", Checks::AllButBranching, branching),
        ("branching found", Checks::On, branching),
    ];
    let mut found = [0; 2];
    let mut times = [0.0; 2];
    for (name, which, body) in rows {
        checks(which);
        reset();
        let one = per_iteration(1, n, body);
        let many = per_iteration(threads, n, body);
        println!("{name:<26} {one:>10.1} {many:>11.1}");
        let r = report();
        if name == "cancellation found" {
            found[0] = r.count(Instability::Cancellation);
        } else if name == "branching found" {
            found[1] = r.count(Instability::Branching);
            times[1] = one;
        } else if name == "branching, not checked" {
            times[0] = one;
        }
    }
    println!(
        "recording one event at a seen site: {:.1} ns (branching found - not checked, 1 thread)",
        times[1] - times[0]
    );
    let want = (n + threads * n) as u64;
    for (got, what) in found.into_iter().zip(["cancellations", "branchings"]) {
        if got != want {
            eprintln!("counted {got} {what}, expected {want} ({n} + {threads} x {n})");
            std::process::exit(1);
        }
    }
    println!("counted: {want} cancellations and {want} branchings ({n} + {threads} x {n}) each, as expected");
}
