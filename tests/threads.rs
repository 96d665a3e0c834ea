//! Counting is exact under threads (issue 3): a deterministic workload with instabilities at
//! several sites, split over 1, 2 and 8 threads, gives identical counts per kind and per site,
//! and the counts the workload implies; also when some threads have ended and others are still
//! running at the report, and for instabilities found in thread-local destructors.
//!
//! The operands are built with `from_samples`, so whether each check fires does not depend on the
//! random rounding (whose streams differ per thread).

use std::sync::{Mutex, MutexGuard, PoisonError};

use stoch_core::{report, reset, Config, Instability, ReportMode, Sf64};

static LOCK: Mutex<()> = Mutex::new(());

fn setup(cfg: Config) -> MutexGuard<'static, ()> {
    let guard = LOCK.lock().unwrap_or_else(PoisonError::into_inner);
    stoch_core::clear_hook();
    cfg.report(ReportMode::Off).apply();
    reset();
    guard
}

const N: usize = 24_000;

/// Noise around `m`: samples `m·(1 ∓ 0.2)`, well beyond the computed-zero threshold.
fn noise(m: f64) -> Sf64 {
    Sf64::from_samples([m * 0.8, m, m * 1.2])
}

/// The instabilities of item `i`, each at its own line. Returns a value so nothing is optimised
/// away.
fn item(i: usize) -> f64 {
    let m = 1.0 + i as f64 * 1e-3;
    let mut acc = Sf64::new(m);
    if i.is_multiple_of(2) {
        acc += Sf64::ONE / noise(m); // division
    }
    if i.is_multiple_of(3) {
        let a = Sf64::from_samples([m * (1.0 - 1e-10), m, m * (1.0 + 1e-10)]);
        acc += a - Sf64::new(m * 0.999_9); // cancellation
    }
    if i.is_multiple_of(5) && noise(m) > Sf64::new(m) {
        // branching (the comparison is unstable and false)
        acc += 1.0;
    }
    if i.is_multiple_of(7) {
        let f = m.floor();
        acc += Sf64::from_samples([f - 1e-9, f + 1e-9, f]).floor(); // intrinsic
    }
    if i.is_multiple_of(11) {
        acc += noise(m) * noise(2.0 * m); // multiplication
    }
    if i % 4 == 1 {
        acc += noise(m).exp(); // math function
    }
    if i % 17 == 3 {
        acc += noise(m).powi(2); // power
    }
    if i.is_multiple_of(13) {
        let e = f64::EPSILON;
        let a = Sf64::from_samples([1.0, 1.0 + 2.0 * e, 1.0 - e]);
        acc += a - Sf64::new(1.0); // accuracy collapse (and cancellation)
    }
    acc.samples()[0]
}

fn multiples(k: usize, r: usize) -> u64 {
    (0..N).filter(|i| i % k == r).count() as u64
}

/// Runs the workload over `threads` threads, contiguous chunks.
fn run(threads: usize) -> stoch_core::Report {
    reset();
    let chunk = N.div_ceil(threads);
    std::thread::scope(|s| {
        for t in 0..threads {
            s.spawn(move || {
                let lo = t * chunk;
                let hi = ((t + 1) * chunk).min(N);
                let mut x = 0.0;
                for i in lo..hi {
                    x += item(i);
                }
                std::hint::black_box(x);
            });
        }
    });
    report()
}

#[test]
fn counts_are_identical_over_1_2_and_8_threads() {
    let _g = setup(Config::default());
    let one = run(1);
    let expect = [
        (Instability::Division, multiples(2, 0)),
        (Instability::Multiplication, multiples(11, 0)),
        (Instability::Power, multiples(17, 3)),
        (Instability::Branching, multiples(5, 0)),
        (Instability::Intrinsic, multiples(7, 0)),
        (Instability::MathFunction, multiples(4, 1)),
        (
            Instability::Cancellation,
            multiples(3, 0) + multiples(13, 0),
        ),
    ];
    for (kind, n) in expect {
        assert_eq!(one.count(kind), n, "{kind}: {one}");
    }
    assert_eq!(one.collapse_total(), multiples(13, 0), "{one}");
    // Eight sites: one per instability line, cancellation at two.
    assert_eq!(one.sites().len(), 8, "{one}");
    assert!(one.sites().iter().all(|s| s.file.ends_with("threads.rs")));
    assert_eq!(one.collapses().len(), 1);
    for threads in [2, 8] {
        let r = run(threads);
        assert_eq!(r.total(), one.total(), "{threads} threads: {r}");
        for kind in Instability::ALL {
            assert_eq!(r.count(kind), one.count(kind), "{threads} threads, {kind}");
        }
        assert_eq!(r.sites(), one.sites(), "{threads} threads");
        assert_eq!(r.collapses(), one.collapses(), "{threads} threads");
        assert_eq!(r.overflow_events(), 0);
    }
}

#[test]
fn bounded_sites_stay_consistent_under_threads() {
    // With room for 3 sites, which ones are kept depends on the threads' timing, but every
    // event is counted once: in a kept site or in the overflow bucket.
    let _g = setup(Config::default().max_sites(3));
    for threads in [1, 2, 8] {
        let r = run(threads);
        assert_eq!(r.sites().len(), 3, "{r}");
        let in_sites: u64 = r.sites().iter().map(|s| s.count).sum();
        assert_eq!(in_sites + r.overflow_events(), r.total(), "{threads}: {r}");
        assert_eq!(
            r.count(Instability::Division),
            multiples(2, 0),
            "{threads}: {r}"
        );
    }
}

#[test]
fn hook_runs_on_the_thread_that_found_the_instability() {
    let _g = setup(Config::default());
    let seen = std::sync::Arc::new(Mutex::new(Vec::new()));
    let sink = seen.clone();
    stoch_core::set_hook(move |e| {
        sink.lock()
            .unwrap()
            .push((std::thread::current().name().map(str::to_string), e.kind));
    });
    std::thread::Builder::new()
        .name("worker".into())
        .spawn(|| {
            let _ = Sf64::ONE / noise(1.0);
        })
        .unwrap()
        .join()
        .unwrap();
    stoch_core::clear_hook();
    assert_eq!(
        *seen.lock().unwrap(),
        [(Some("worker".to_string()), Instability::Division)]
    );
}

/// Checks that `r` has the counts, sites and collapses of `want`.
fn assert_same(r: &stoch_core::Report, want: &stoch_core::Report, what: &str) {
    for kind in Instability::ALL {
        assert_eq!(r.count(kind), want.count(kind), "{what}, {kind}: {r}");
    }
    assert_eq!(r.sites(), want.sites(), "{what}");
    assert_eq!(r.collapses(), want.collapses(), "{what}");
    assert_eq!(r.collapse_total(), want.collapse_total(), "{what}");
    assert_eq!(r.overflow_events(), 0, "{what}");
}

#[test]
fn ended_and_running_threads_are_counted_once() {
    let _g = setup(Config::default());
    let want = run(1);
    reset();
    // Four quarters of the workload: two on threads that end (spawn + join), two on threads
    // still running when the report is taken.
    let quarter = N.div_ceil(4);
    let work = move |q: usize| {
        let x: f64 = (q * quarter..((q + 1) * quarter).min(N)).map(item).sum();
        std::hint::black_box(x);
    };
    for q in 0..2 {
        std::thread::spawn(move || work(q)).join().unwrap();
    }
    let (done, all_done) = std::sync::mpsc::channel();
    let release = std::sync::Arc::new(std::sync::Barrier::new(3));
    let running: Vec<_> = (2..4)
        .map(|q| {
            let (done, release) = (done.clone(), release.clone());
            std::thread::spawn(move || {
                work(q);
                done.send(()).unwrap();
                release.wait();
            })
        })
        .collect();
    all_done.recv().unwrap();
    all_done.recv().unwrap();
    assert_same(&report(), &want, "two threads still running");
    release.wait();
    for t in running {
        t.join().unwrap();
    }
    assert_same(&report(), &want, "every thread ended");
}

/// Divides by noise when dropped: stochastic arithmetic in a thread-local destructor, which
/// may run after the thread's own counters are destroyed.
struct DivideOnDrop;

impl Drop for DivideOnDrop {
    fn drop(&mut self) {
        std::hint::black_box(Sf64::ONE / noise(1.0));
    }
}

thread_local! {
    static FIRST: DivideOnDrop = const { DivideOnDrop };
    static LAST: DivideOnDrop = const { DivideOnDrop };
}

#[test]
fn instabilities_in_thread_local_destructors_are_counted() {
    let _g = setup(Config::default());
    for _ in 0..3 {
        std::thread::spawn(|| {
            // `FIRST` is registered before this thread's counters, `LAST` after: whatever
            // the order of destruction, one of them is dropped after the counters.
            FIRST.with(|_| ());
            std::hint::black_box(Sf64::ONE / noise(2.0));
            LAST.with(|_| ());
        })
        .join()
        .unwrap();
    }
    let r = report();
    assert_eq!(r.count(Instability::Division), 9, "{r}");
    // Two sites: the division in the threads' body (3) and the one in `DivideOnDrop` (6).
    assert_eq!(r.sites().len(), 2, "{r}");
    assert_eq!(r.sites()[0].count, 6, "{r}");
}
