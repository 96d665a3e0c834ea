//! The process's counters: the registry of live shards and ended threads' totals, the
//! thread-local handle that registers a shard, and the snapshot that sums them all.

use std::collections::BTreeMap;
use std::panic::Location;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::LocalKey;

use super::fast::{FastTable, FAST_COLLAPSE};
use super::gpu::{gpu_counts, GpuCount};
use super::lock;
use super::shard::{addr, Counts, Shard, Tally, Totals};
use super::sites::Tables;
use crate::instability::Instability;

/// The process's counters.
pub(super) static RECORDER: Recorder = Recorder::new();

thread_local! {
    /// This thread's shard of [`RECORDER`], registered at the thread's first event.
    pub(super) static LOCAL: Local = Local::register(&RECORDER);
    /// This thread's [`FastTable`] of [`RECORDER`] while its [`LOCAL`] lives (null before and
    /// after): read by [`count_if_seen`] without the lazy initialisation of `LOCAL`.
    pub(super) static FAST: core::cell::Cell<*const FastTable> = const { core::cell::Cell::new(core::ptr::null()) };
}

/// The live shards, and the counts of the threads that ended.
pub(super) struct Registry {
    shards: Vec<Arc<Mutex<Shard>>>,
    /// The live threads' lock-free tables.
    fast: Vec<Arc<FastTable>>,
    /// The ended threads' counts, and events recorded while a thread's shard was being
    /// destroyed.
    retired: Totals,
    pub(super) gpu: BTreeMap<(String, usize), u64>,
}

/// Every counter of a [`Recorder`]. Locks are taken in this order: the registry, then shards,
/// then the tables. A thread that records holds only its own shard, and the tables while it
/// numbers a new site.
pub(super) struct Recorder {
    registry: Mutex<Registry>,
    tables: Mutex<Tables>,
    /// Moved on by every [`reset`](Recorder::reset): the [`FastTable`]s of an older epoch
    /// count nothing.
    pub(super) epoch: AtomicU64,
}

/// The sum of a recorder's counters: sites by value with their counts, in no order.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Snapshot {
    pub(super) counts: Counts,
    /// Kind, site, count, and the user's line that led to a site inside a dependency.
    pub(super) sites: Vec<(Instability, &'static Location<'static>, u64, Option<String>)>,
    pub(super) collapses: Vec<(&'static Location<'static>, u64, Option<String>)>,
    pub(super) gpu: Vec<GpuCount>,
}

impl Recorder {
    pub(super) const fn new() -> Recorder {
        Recorder {
            registry: Mutex::new(Registry {
                shards: Vec::new(),
                fast: Vec::new(),
                retired: Totals::new(),
                gpu: BTreeMap::new(),
            }),
            tables: Mutex::new(Tables::new()),
            epoch: AtomicU64::new(0),
        }
    }

    pub(super) fn registry(&self) -> MutexGuard<'_, Registry> {
        lock(&self.registry)
    }

    /// Counts one event at `loc` in this thread's shard (`local`, a shard of `self`), or, once
    /// the shard is destroyed (another thread-local's destructor doing stochastic arithmetic),
    /// in the ended threads' totals.
    pub(super) fn tally(
        &self,
        local: &'static LocalKey<Local>,
        what: Tally,
        loc: &'static Location<'static>,
        max: usize,
    ) {
        let code = match what {
            Tally::Instability(kind) => kind as u8,
            Tally::Collapse => FAST_COLLAPSE,
        };
        let a = addr(loc);
        let counted = local.try_with(|l| {
            let epoch = self.epoch.load(Ordering::Relaxed);
            if l.fast.bump(epoch, code, a) {
                return;
            }
            let id = lock(&l.shard).tally(&self.tables, what, loc, max);
            if let Some(id) = id {
                l.fast.learn(epoch, code, a, id);
            }
        });
        if counted.is_err() {
            self.tally_retired(what, loc, max);
        }
    }

    /// Counts one event directly in the ended threads' totals, under the registry's lock.
    #[cold]
    #[inline(never)]
    fn tally_retired(&self, what: Tally, loc: &'static Location<'static>, max: usize) {
        let mut reg = self.registry();
        let mut shard = Shard::default();
        shard.tally(&self.tables, what, loc, max);
        shard.add_to(&mut reg.retired);
    }

    /// The ended threads' totals plus every live shard.
    pub(super) fn snapshot(&self) -> Snapshot {
        let reg = self.registry();
        let mut totals = reg.retired.clone();
        let epoch = self.epoch.load(Ordering::Relaxed);
        for fast in &reg.fast {
            fast.add_to(epoch, &mut totals);
        }
        for shard in &reg.shards {
            lock(shard).add_to(&mut totals);
        }
        let mut tables = lock(&self.tables);
        // Every number in a shard is in the tables (`reset` clears both at once); a number met
        // after its shard was read counts nothing yet and is left out.
        let sites = tables
            .sites
            .counted(&totals.sites)
            .into_iter()
            .filter_map(|(kind, loc, count, via)| {
                Some((*Instability::ALL.get(usize::from(kind))?, loc, count, via))
            })
            .collect();
        let collapses = tables
            .collapses
            .counted(&totals.collapses)
            .into_iter()
            .map(|(_, loc, count, via)| (loc, count, via))
            .collect();
        let gpu = gpu_counts(&reg.gpu);
        Snapshot {
            counts: totals.counts,
            sites,
            collapses,
            gpu,
        }
    }

    /// Clears the ended threads' totals, every live shard and the site tables, at once.
    pub(super) fn reset(&self) {
        let mut reg = self.registry();
        let shards = reg.shards.clone();
        let mut guards: Vec<_> = shards.iter().map(|s| lock(s)).collect();
        let mut tables = lock(&self.tables);
        for shard in &mut guards {
            shard.clear();
        }
        *tables = Tables::new();
        reg.retired = Totals::new();
        reg.gpu.clear();
        self.epoch.fetch_add(1, Ordering::Relaxed);
    }
}

/// A thread's handle on its shard: registers it at the thread's first event, and at the
/// thread's end adds its counts to the ended threads' totals and unregisters it.
pub(super) struct Local {
    shard: Arc<Mutex<Shard>>,
    fast: Arc<FastTable>,
    recorder: &'static Recorder,
}

impl Local {
    fn register(recorder: &'static Recorder) -> Local {
        let shard = Arc::new(Mutex::new(Shard::default()));
        let mut reg = recorder.registry();
        let fast = Arc::new(FastTable::new(recorder.epoch.load(Ordering::Relaxed)));
        reg.shards.push(Arc::clone(&shard));
        reg.fast.push(Arc::clone(&fast));
        if core::ptr::eq(recorder, &RECORDER) {
            FAST.set(Arc::as_ptr(&fast));
        }
        Local {
            shard,
            fast,
            recorder,
        }
    }
}

impl Drop for Local {
    fn drop(&mut self) {
        if FAST.get() == Arc::as_ptr(&self.fast) {
            FAST.set(core::ptr::null());
        }
        // Under the registry's lock: a report sees these counts once, in the thread's tables
        // or in the totals.
        let mut reg = self.recorder.registry();
        let epoch = self.recorder.epoch.load(Ordering::Relaxed);
        let mut retired = std::mem::take(&mut reg.retired);
        self.fast.add_to(epoch, &mut retired);
        lock(&self.shard).add_to(&mut retired);
        reg.retired = retired;
        reg.shards.retain(|s| !Arc::ptr_eq(s, &self.shard));
        reg.fast.retain(|f| !Arc::ptr_eq(f, &self.fast));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Declares a recorder of its own and its thread-local shard, so that a test does not see
    /// the events of the tests running beside it.
    macro_rules! recorder {
        ($rec:ident, $local:ident) => {
            static $rec: Recorder = Recorder::new();
            thread_local! {
                static $local: Local = Local::register(&$rec);
            }
        };
    }

    /// A live thread that runs `work` at each [`step`](Worker::step) and hands back its result,
    /// until [`stop`](Worker::stop) ends it: its shard stays registered in between.
    struct Worker<T> {
        go: std::sync::mpsc::Sender<bool>,
        done: std::sync::mpsc::Receiver<T>,
        thread: std::thread::JoinHandle<()>,
    }

    impl<T: Send + 'static> Worker<T> {
        fn spawn(work: impl Fn() -> T + Send + 'static) -> Self {
            let (done, wait_done) = std::sync::mpsc::channel();
            let (go, wait_go) = std::sync::mpsc::channel();
            let thread = std::thread::spawn(move || {
                while wait_go.recv().unwrap() {
                    done.send(work()).unwrap();
                }
            });
            Worker {
                go,
                done: wait_done,
                thread,
            }
        }

        fn step(&self) -> T {
            self.go.send(true).unwrap();
            self.done.recv().unwrap()
        }

        /// Ends the thread and waits until its thread-local destructors ran.
        fn stop(self) {
            self.go.send(false).unwrap();
            self.thread.join().unwrap();
        }
    }

    /// The location of the call: a distinct `&'static Location` per call site.
    #[track_caller]
    fn here() -> &'static Location<'static> {
        Location::caller()
    }

    const DIVISION: Tally = Tally::Instability(0);
    const CANCEL: Tally = Tally::Instability(6);

    /// Count of `kind` at `loc` in `s` (0 when absent), compared by value.
    fn at(s: &Snapshot, kind: Instability, loc: &Location<'_>) -> u64 {
        let found: Vec<u64> = s
            .sites
            .iter()
            .filter(|(k, l, _, _)| *k == kind && *l == loc)
            .map(|s| s.2)
            .collect();
        assert!(found.len() <= 1, "one site per kind and location: {s:?}");
        found.first().copied().unwrap_or(0)
    }

    #[test]
    fn ended_threads_move_their_counts_to_the_totals() {
        recorder!(R, L);
        let (a, b) = (here(), here());
        for _ in 0..3 {
            std::thread::spawn(move || {
                for _ in 0..100 {
                    R.tally(&L, DIVISION, a, 10);
                }
                R.tally(&L, CANCEL, b, 10);
                R.tally(&L, Tally::Collapse, b, 10);
            })
            .join()
            .unwrap();
        }
        // `join` returns after the thread's thread-local destructors ran: no shard is left.
        assert_eq!(R.registry().shards.len(), 0);
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    for _ in 0..100 {
                        R.tally(&L, DIVISION, a, 10);
                    }
                });
            }
        });
        // A scoped thread's shard may outlive `scope` for a moment: counted once either way.
        let snap = R.snapshot();
        assert_eq!(snap.counts.kinds[0], 700);
        assert_eq!(snap.counts.kinds[6], 3);
        assert_eq!(snap.counts.collapse_total, 3);
        assert_eq!(at(&snap, Instability::Division, a), 700);
        assert_eq!(at(&snap, Instability::Cancellation, b), 3);
        assert_eq!(snap.collapses, [(b, 3, None)]);
        assert_eq!(snap.sites.len(), 2);
    }

    #[test]
    fn live_shards_are_counted_once() {
        recorder!(R, L);
        let a = here();
        let worker = Worker::spawn(move || {
            for _ in 0..5 {
                R.tally(&L, DIVISION, a, 10);
            }
        });
        worker.step();
        R.tally(&L, DIVISION, a, 10);
        assert_eq!(R.registry().shards.len(), 2);
        let alive = R.snapshot();
        assert_eq!(alive.counts.kinds[0], 6);
        assert_eq!(at(&alive, Instability::Division, a), 6);
        worker.stop();
        assert_eq!(R.registry().shards.len(), 1);
        assert_eq!(R.snapshot(), alive);
    }

    #[test]
    fn the_bound_on_sites_is_shared_by_all_threads() {
        recorder!(R, L);
        let locs = [here(), here(), here(), here(), here(), here()];
        std::thread::scope(|s| {
            for t in 0..4 {
                s.spawn(move || {
                    for i in 0..locs.len() {
                        let loc = locs[(i + t) % locs.len()];
                        R.tally(&L, CANCEL, loc, 3);
                        R.tally(&L, Tally::Collapse, loc, 2);
                    }
                });
            }
        });
        let snap = R.snapshot();
        assert_eq!(snap.counts.kinds[6], 24);
        // Three sites in all, not three per thread; every event in a kept site or overflowing.
        assert_eq!(snap.sites.len(), 3, "{snap:?}");
        let kept: u64 = snap.sites.iter().map(|s| s.2).sum();
        assert_eq!(kept + snap.counts.overflow_events, 24);
        assert_eq!(kept, 12, "each kept site was met by each thread: {snap:?}");
        // The collapse sites have their own bound.
        assert_eq!(snap.counts.collapse_total, 24);
        assert_eq!(snap.collapses.len(), 2, "{snap:?}");
        assert_eq!(snap.counts.collapse_overflow, 16);
    }

    #[test]
    fn a_larger_bound_admits_sites_that_overflowed() {
        recorder!(R, L);
        let (a, b) = (here(), here());
        R.tally(&L, DIVISION, a, 1);
        R.tally(&L, DIVISION, b, 1);
        R.tally(&L, DIVISION, b, 1);
        let snap = R.snapshot();
        assert_eq!(snap.counts.overflow_events, 2);
        assert_eq!(snap.sites.len(), 1);
        R.tally(&L, DIVISION, b, 2);
        R.tally(&L, DIVISION, a, 2);
        let snap = R.snapshot();
        assert_eq!(snap.counts.overflow_events, 2);
        assert_eq!(at(&snap, Instability::Division, a), 2);
        assert_eq!(at(&snap, Instability::Division, b), 1);
    }

    #[test]
    fn two_addresses_of_one_location_are_one_site() {
        recorder!(R, L);
        let a = here();
        // A copy at another address, as inlining across crates can give.
        let b: &'static Location<'static> = Box::leak(Box::new(*a));
        assert!(!std::ptr::eq(a, b));
        assert_eq!(a, b);
        let c = here();
        std::thread::spawn(move || R.tally(&L, CANCEL, b, 1))
            .join()
            .unwrap();
        // The bound is one site: the second address finds the site of the first.
        R.tally(&L, CANCEL, a, 1);
        R.tally(&L, CANCEL, b, 1);
        R.tally(&L, Tally::Collapse, a, 1);
        R.tally(&L, Tally::Collapse, b, 1);
        R.tally(&L, CANCEL, c, 1);
        let snap = R.snapshot();
        assert_eq!(snap.sites.len(), 1, "{snap:?}");
        assert_eq!(at(&snap, Instability::Cancellation, a), 3);
        assert_eq!(snap.counts.overflow_events, 1);
        assert_eq!(snap.collapses, [(a, 2, None)]);
        assert_eq!(snap.counts.collapse_overflow, 0);
    }

    /// Events at a site already met are counted by the thread's lock-free table, not its
    /// shard, with exact counts across a reset (the live thread's table of the old epoch counts
    /// nothing) and at the thread's end.
    #[test]
    fn seen_sites_are_counted_by_the_fast_table() {
        recorder!(R, L);
        let (a, b) = (here(), here());
        let worker = Worker::spawn(move || {
            for _ in 0..1000 {
                R.tally(&L, DIVISION, a, 10);
                R.tally(&L, Tally::Collapse, a, 10);
            }
            L.with(|l| lock(&l.shard).counts)
        });
        let shard = worker.step();
        // The shard counted the first meeting of each site, the table the 999 others.
        assert_eq!((shard.kinds[0], shard.collapse_total), (1, 1));
        let snap = R.snapshot();
        assert_eq!(at(&snap, Instability::Division, a), 1000);
        assert_eq!(snap.counts.kinds[0], 1000);
        assert_eq!(
            (snap.counts.collapse_total, snap.collapses.clone()),
            (1000, vec![(a, 1000, None)])
        );
        R.reset();
        assert_eq!(R.snapshot(), Snapshot::default());
        R.tally(&L, DIVISION, b, 10);
        worker.step();
        let snap = R.snapshot();
        assert_eq!(at(&snap, Instability::Division, a), 1000);
        assert_eq!(at(&snap, Instability::Division, b), 1);
        assert_eq!(snap.counts.kinds[0], 1001);
        worker.stop();
        // The ended thread's table went to the totals.
        let snap = R.snapshot();
        assert_eq!(at(&snap, Instability::Division, a), 1000);
        assert_eq!(snap.counts.collapse_total, 1000);
    }

    #[test]
    fn reset_clears_live_shards_and_their_site_numbers() {
        recorder!(R, L);
        let (a, b) = (here(), here());
        let worker = Worker::spawn(move || {
            R.tally(&L, DIVISION, a, 10);
            R.tally(&L, Tally::Collapse, a, 10);
        });
        worker.step();
        assert_eq!(at(&R.snapshot(), Instability::Division, a), 1);
        R.record_gpu("k", Instability::Power, 2);
        R.reset();
        assert_eq!(R.snapshot(), Snapshot::default());
        // `b` takes number 0, the number `a` had before the reset; the live thread must not
        // count `a` under it.
        R.tally(&L, DIVISION, b, 10);
        worker.step();
        let snap = R.snapshot();
        assert_eq!(snap.counts.kinds[0], 2);
        assert_eq!(at(&snap, Instability::Division, a), 1);
        assert_eq!(at(&snap, Instability::Division, b), 1);
        assert_eq!(snap.collapses, [(a, 1, None)]);
        worker.stop();
    }

    #[test]
    fn events_after_the_shard_is_destroyed_go_to_the_totals() {
        recorder!(R, L);
        static LATE: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        /// Records one event when dropped, noting whether this thread's shard was gone.
        struct TallyOnDrop;
        impl Drop for TallyOnDrop {
            fn drop(&mut self) {
                if L.try_with(|_| ()).is_err() {
                    LATE.fetch_add(1, Ordering::Relaxed);
                }
                R.tally(&L, CANCEL, Location::caller(), 10);
            }
        }
        thread_local! {
            static BEFORE: TallyOnDrop = const { TallyOnDrop };
            static AFTER: TallyOnDrop = const { TallyOnDrop };
        }
        std::thread::spawn(|| {
            // Destructors run in the order of registration or in the reverse order: one of
            // `BEFORE` and `AFTER` is dropped after the shard.
            BEFORE.with(|_| ());
            R.tally(&L, CANCEL, here(), 10);
            AFTER.with(|_| ());
        })
        .join()
        .unwrap();
        assert_eq!(LATE.load(Ordering::Relaxed), 1);
        assert_eq!(R.registry().shards.len(), 0);
        let snap = R.snapshot();
        assert_eq!(snap.counts.kinds[6], 3);
        assert_eq!(snap.sites.len(), 2, "{snap:?}");
    }
}
