//! Counting instabilities per kind and per source site, and the report at the end of a run.
//!
//! Recording is the rare path, but a multi-threaded program with many instabilities records
//! often, so every thread counts into its own shard: a lock that only its owner takes while the
//! program runs (uncontended), and that [`report`] and [`reset`] take to read or clear it. A
//! global registry lists the live shards and keeps the totals of the threads that ended: when a
//! thread exits, its counts are added to those totals and its shard is removed, both under the
//! registry's lock, so counts are exact whatever the number of threads, and a report is the
//! ended threads' totals plus every live shard.
//!
//! Memory is bounded: a process-wide table numbers the distinct sites (kind, file, line,
//! column), at most `max_sites` of them (and as many collapse sites); events at further sites are
//! counted in one overflow bucket. A thread takes the table's lock only the first time it meets
//! a site: its shard caches the site's number under the address of its `Location`, with a cheap
//! hash of that address. Two addresses of one file:line:column (after inlining across crates)
//! get one number, so the report shows them as one site.

use std::collections::hash_map::DefaultHasher;
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::hash::{BuildHasherDefault, Hasher};
use std::io::Write;
use std::panic::Location;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicU8, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock};
use std::thread::LocalKey;

use serde::{Deserialize, Serialize};

use crate::config::{self, Config, ReportMode};
use crate::instability::{Event, Instability};
use crate::StochFloat;

type Hook = Arc<dyn Fn(&Event) + Send + Sync>;

static HOOK: RwLock<Option<Hook>> = RwLock::new(None);
static HAS_HOOK: AtomicBool = AtomicBool::new(false);
static PRINTED: AtomicBool = AtomicBool::new(false);

/// The process's counters.
static RECORDER: Recorder = Recorder::new();

thread_local! {
    /// This thread's shard of [`RECORDER`], registered at the thread's first event.
    static LOCAL: Local = Local::register(&RECORDER);
    /// This thread's [`FastTable`] of [`RECORDER`] while its [`LOCAL`] lives (null before and
    /// after): read by [`count_if_seen`] without the lazy initialisation of `LOCAL`.
    static FAST: core::cell::Cell<*const FastTable> = const { core::cell::Cell::new(core::ptr::null()) };
}

/// Locks `m`, also when a thread panicked while holding it (the counters stay usable).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The address of a `Location`: the key of a shard's site cache.
fn addr(loc: &'static Location<'static>) -> usize {
    (loc as *const Location<'static>).addr()
}

/// A multiplicative hash for the shards' caches, whose keys are a `Location`'s address and a
/// small number: a few instructions where SipHash takes tens of nanoseconds.
#[derive(Default)]
struct AddrHasher(u64);

impl AddrHasher {
    fn mix(&mut self, n: u64) {
        // FxHash's step: the product spreads the bits of `n` upwards.
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x517C_C1B7_2722_0A95);
    }
}

impl Hasher for AddrHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.mix(u64::from(b));
        }
    }

    fn write_u8(&mut self, n: u8) {
        self.mix(u64::from(n));
    }

    fn write_usize(&mut self, n: usize) {
        self.mix(n as u64);
    }

    fn finish(&self) -> u64 {
        // The low bits choose the bucket: fold the well-mixed high half onto them (an address's
        // low bits are zeros, and a product's low bits depend on the factors' low bits only).
        self.0 ^ (self.0 >> 32)
    }
}

/// A shard's cache: `(kind, address of a Location)` to the site's number and count.
type AddrMap = HashMap<(u8, usize), Slot, BuildHasherDefault<AddrHasher>>;

/// The number of a site beyond the bound on sites (its events go to the overflow counter).
const OVERFLOW: u32 = u32::MAX;

/// A cached site of a shard: its number in the process-wide table and this thread's count.
#[derive(Clone, Copy)]
struct Slot {
    id: u32,
    count: u64,
}

impl Slot {
    /// Counts one event; false when the site is beyond the bound.
    fn bump(&mut self) -> bool {
        if self.id == OVERFLOW {
            false
        } else {
            self.count += 1;
            true
        }
    }
}

/// The counters that do not depend on a site.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Counts {
    /// Per kind, indexed by [`Instability::index`].
    kinds: [u64; 7],
    overflow_events: u64,
    collapse_total: u64,
    collapse_overflow: u64,
}

impl Counts {
    const ZERO: Counts = Counts {
        kinds: [0; 7],
        overflow_events: 0,
        collapse_total: 0,
        collapse_overflow: 0,
    };

    fn add(&mut self, other: &Counts) {
        for (a, b) in self.kinds.iter_mut().zip(other.kinds) {
            *a += b;
        }
        self.overflow_events += other.overflow_events;
        self.collapse_total += other.collapse_total;
        self.collapse_overflow += other.collapse_overflow;
    }
}

/// Sums over threads: counts, and events per site number.
#[derive(Clone, Debug, Default)]
struct Totals {
    counts: Counts,
    /// Indexed by the number of a site in [`Tables::sites`].
    sites: Vec<u64>,
    /// Indexed by the number of a site in [`Tables::collapses`].
    collapses: Vec<u64>,
}

impl Totals {
    const fn new() -> Totals {
        Totals {
            counts: Counts::ZERO,
            sites: Vec::new(),
            collapses: Vec::new(),
        }
    }
}

/// Adds the counts of `map` (a shard's cache) to `sums` (indexed by site number).
fn add_slots(map: &AddrMap, sums: &mut Vec<u64>) {
    for slot in map.values() {
        if slot.id == OVERFLOW || slot.count == 0 {
            continue;
        }
        let i = slot.id as usize;
        if sums.len() <= i {
            sums.resize(i + 1, 0);
        }
        sums[i] += slot.count;
    }
}

/// What one event counts: an instability of a kind (its index), or an accuracy collapse.
#[derive(Clone, Copy, Debug)]
enum Tally {
    Instability(usize),
    Collapse,
}

/// Distinct sites by value (kind, file, line, column), numbered from 0 in the order they were
/// first met; shared by all threads.
struct SiteTable {
    ids: HashMap<(u8, &'static Location<'static>), u32, BuildHasherDefault<DefaultHasher>>,
    /// The sites, indexed by number.
    keys: Vec<(u8, &'static Location<'static>)>,
    /// For a site inside a dependency: the user's line that first led there (see
    /// [`user_line`]), by site number.
    via: BTreeMap<u32, Via>,
}

/// The user's line of a site inside a dependency: the stack captured at the site's first
/// event, read when a report first needs it (reading the debug information of a program can
/// take a few hundred milliseconds, capturing the stack takes microseconds).
enum Via {
    Stack(Box<std::backtrace::Backtrace>),
    Line(Option<String>),
}

impl Via {
    /// The line, reading the stack the first time.
    fn line(&mut self) -> Option<String> {
        if let Via::Stack(trace) = self {
            *self = Via::Line(user_line(&trace.to_string()));
        }
        match self {
            Via::Line(line) => line.clone(),
            Via::Stack(_) => None,
        }
    }
}

impl SiteTable {
    const fn new() -> SiteTable {
        SiteTable {
            ids: HashMap::with_hasher(BuildHasherDefault::new()),
            keys: Vec::new(),
            via: BTreeMap::new(),
        }
    }

    /// The number of `(kind, loc)`, compared by value (`Location`'s `Eq`), given if there are
    /// fewer than `max` sites, and whether it was numbered by this call; `None` beyond the
    /// bound.
    fn id(&mut self, kind: u8, loc: &'static Location<'static>, max: usize) -> Option<(u32, bool)> {
        if let Some(&id) = self.ids.get(&(kind, loc)) {
            return Some((id, false));
        }
        if self.keys.len() >= max {
            return None;
        }
        // `Config::max_sites` has no upper bound: numbers stop below `OVERFLOW`.
        let id = u32::try_from(self.keys.len())
            .ok()
            .filter(|&id| id != OVERFLOW)?;
        self.ids.insert((kind, loc), id);
        self.keys.push((kind, loc));
        Some((id, true))
    }
}

/// The process-wide site tables: instability sites (per kind) and collapse sites, each with its
/// own bound.
struct Tables {
    sites: SiteTable,
    collapses: SiteTable,
}

impl Tables {
    const fn new() -> Tables {
        Tables {
            sites: SiteTable::new(),
            collapses: SiteTable::new(),
        }
    }
}

/// One thread's counters. Aligned to 128 bytes (a pair of cache lines), so the allocation that
/// holds a shard and its lock shares no cache line with other threads' data.
#[repr(align(128))]
#[derive(Default)]
struct Shard {
    counts: Counts,
    sites: AddrMap,
    collapses: AddrMap,
    /// The bound on sites the cached [`OVERFLOW`] entries were decided with.
    max_sites: usize,
}

impl Shard {
    /// Counts one event at `loc`; takes the lock of `tables` if this shard has not met `loc`.
    fn tally(
        &mut self,
        tables: &Mutex<Tables>,
        what: Tally,
        loc: &'static Location<'static>,
        max: usize,
    ) -> Option<u32> {
        if self.max_sites != max {
            // The bound changed (`Config::apply`): sites that were beyond it may fit now.
            // The numbers given stay valid: the table only grows until `reset`.
            self.max_sites = max;
            self.sites.retain(|_, s| s.id != OVERFLOW);
            self.collapses.retain(|_, s| s.id != OVERFLOW);
        }
        let (map, kind, total, overflow) = match what {
            Tally::Instability(kind) => (
                &mut self.sites,
                kind as u8,
                &mut self.counts.kinds[kind],
                &mut self.counts.overflow_events,
            ),
            Tally::Collapse => (
                &mut self.collapses,
                u8::MAX,
                &mut self.counts.collapse_total,
                &mut self.counts.collapse_overflow,
            ),
        };
        *total += 1;
        let id = Self::bump(map, tables, kind, loc, max);
        if id.is_none() {
            *overflow += 1;
        }
        id
    }

    /// Counts one event at `(kind, loc)` in `map` and returns the site's number; `None` when
    /// the site is beyond the bound. `kind` is `u8::MAX` for collapses.
    #[inline]
    fn bump(
        map: &mut AddrMap,
        tables: &Mutex<Tables>,
        kind: u8,
        loc: &'static Location<'static>,
        max: usize,
    ) -> Option<u32> {
        let key = (kind, addr(loc));
        let kept = match map.get_mut(&key) {
            Some(slot) => slot.bump(),
            None => Self::first_meeting(map, tables, key, loc, max),
        };
        kept.then(|| map.get(&key).map(|s| s.id)).flatten()
    }

    /// The first event of this shard at `key`: numbers its site in the process-wide table.
    #[cold]
    #[inline(never)]
    fn first_meeting(
        map: &mut AddrMap,
        tables: &Mutex<Tables>,
        key: (u8, usize),
        loc: &'static Location<'static>,
        max: usize,
    ) -> bool {
        arm_exit_report();
        let numbered = {
            let mut t = lock(tables);
            let table = if key.0 == u8::MAX {
                &mut t.collapses
            } else {
                &mut t.sites
            };
            table.id(key.0, loc, max)
        };
        if let Some((id, true)) = numbered {
            if in_dependency(loc.file()) {
                // Once per site and process: a stack walk of a few microseconds.
                let trace = Box::new(std::backtrace::Backtrace::force_capture());
                let mut t = lock(tables);
                let table = if key.0 == u8::MAX {
                    &mut t.collapses
                } else {
                    &mut t.sites
                };
                table.via.insert(id, Via::Stack(trace));
            }
        }
        let mut slot = Slot {
            id: numbered.map_or(OVERFLOW, |(id, _)| id),
            count: 0,
        };
        let kept = slot.bump();
        map.insert(key, slot);
        kept
    }

    /// Adds this shard's counts to `totals`.
    fn add_to(&self, totals: &mut Totals) {
        totals.counts.add(&self.counts);
        add_slots(&self.sites, &mut totals.sites);
        add_slots(&self.collapses, &mut totals.collapses);
    }

    /// Forgets every count and cached site number (the tables are cleared with it).
    fn clear(&mut self) {
        self.counts = Counts::ZERO;
        self.sites.clear();
        self.collapses.clear();
    }
}

/// Slots of a thread's [`FastTable`] (a power of two).
const FAST_SLOTS: usize = 64;
/// The kind code of collapses in a [`FastTable`] (instabilities: their index).
const FAST_COLLAPSE: u8 = 7;

/// One site a thread has met, counted without a lock: its `Location`'s address (0: free slot),
/// kind code, number in the site tables and this thread's count since it was learnt.
#[derive(Default)]
struct FastSlot {
    addr: AtomicUsize,
    kind: AtomicU8,
    id: AtomicU32,
    count: AtomicU64,
}

/// A thread's lock-free counters for the sites it has already met: an event at such a site
/// costs two counter increments. Only the owning thread writes (plain loads and stores, no
/// read-modify-write); [`Recorder::snapshot`] reads, and [`Recorder::reset`] only moves the
/// recorder's epoch on, after which the owner clears its table before it counts again and
/// readers ignore the table until then. A site whose slot is taken by another, or beyond the
/// bound on sites, is counted by the [`Shard`].
struct FastTable {
    /// The recorder's epoch the counts belong to.
    epoch: AtomicU64,
    /// Per kind code (`FAST_COLLAPSE` for collapses).
    kinds: [AtomicU64; 8],
    slots: [FastSlot; FAST_SLOTS],
}

/// One more on a counter only its owner writes.
#[inline(always)]
fn increment(c: &AtomicU64) {
    c.store(c.load(Ordering::Relaxed).wrapping_add(1), Ordering::Relaxed);
}

impl FastTable {
    fn new(epoch: u64) -> FastTable {
        FastTable {
            epoch: AtomicU64::new(epoch),
            kinds: Default::default(),
            slots: core::array::from_fn(|_| FastSlot::default()),
        }
    }

    #[inline(always)]
    fn slot(&self, code: u8, addr: usize) -> &FastSlot {
        let h = (addr as u64 ^ u64::from(code)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        &self.slots[(h >> 58) as usize % FAST_SLOTS]
    }

    /// Counts an event of kind `code` at `addr` if this table knows the site (owner only).
    #[inline(always)]
    fn bump(&self, epoch: u64, code: u8, addr: usize) -> bool {
        if self.epoch.load(Ordering::Relaxed) != epoch {
            self.restart(epoch);
            return false;
        }
        self.bump_seen(epoch, code, addr)
    }

    /// [`bump`](Self::bump) without its restart after a reset (which is out of line).
    #[inline(always)]
    fn bump_seen(&self, epoch: u64, code: u8, addr: usize) -> bool {
        if self.epoch.load(Ordering::Relaxed) != epoch {
            return false;
        }
        let s = self.slot(code, addr);
        if s.addr.load(Ordering::Relaxed) != addr || s.kind.load(Ordering::Relaxed) != code {
            return false;
        }
        increment(&s.count);
        increment(&self.kinds[usize::from(code)]);
        true
    }

    /// Learns that site number `id` is the site of kind `code` at `addr`, if its slot is free
    /// (owner only).
    fn learn(&self, epoch: u64, code: u8, addr: usize, id: u32) {
        let s = self.slot(code, addr);
        if self.epoch.load(Ordering::Relaxed) != epoch || s.addr.load(Ordering::Relaxed) != 0 {
            return;
        }
        s.id.store(id, Ordering::Relaxed);
        s.kind.store(code, Ordering::Relaxed);
        s.count.store(0, Ordering::Relaxed);
        s.addr.store(addr, Ordering::Release);
    }

    /// Forgets every site and count, for the recorder's new `epoch` (owner only).
    #[cold]
    #[inline(never)]
    fn restart(&self, epoch: u64) {
        for s in &self.slots {
            s.addr.store(0, Ordering::Relaxed);
            s.count.store(0, Ordering::Relaxed);
        }
        for k in &self.kinds {
            k.store(0, Ordering::Relaxed);
        }
        self.epoch.store(epoch, Ordering::Release);
    }

    /// Adds the counts to `totals` if they belong to `epoch`.
    fn add_to(&self, epoch: u64, totals: &mut Totals) {
        if self.epoch.load(Ordering::Acquire) != epoch {
            return;
        }
        for (k, c) in self.kinds[..7].iter().enumerate() {
            totals.counts.kinds[k] += c.load(Ordering::Relaxed);
        }
        totals.counts.collapse_total +=
            self.kinds[usize::from(FAST_COLLAPSE)].load(Ordering::Relaxed);
        for s in &self.slots {
            if s.addr.load(Ordering::Acquire) == 0 {
                continue;
            }
            let count = s.count.load(Ordering::Relaxed);
            if count == 0 {
                continue;
            }
            let sums = if s.kind.load(Ordering::Relaxed) == FAST_COLLAPSE {
                &mut totals.collapses
            } else {
                &mut totals.sites
            };
            let i = s.id.load(Ordering::Relaxed) as usize;
            if sums.len() <= i {
                sums.resize(i + 1, 0);
            }
            sums[i] += count;
        }
    }
}

/// The live shards, and the counts of the threads that ended.
struct Registry {
    shards: Vec<Arc<Mutex<Shard>>>,
    /// The live threads' lock-free tables.
    fast: Vec<Arc<FastTable>>,
    /// The ended threads' counts, and events recorded while a thread's shard was being
    /// destroyed.
    retired: Totals,
    gpu: BTreeMap<(String, usize), u64>,
}

/// Every counter of a [`Recorder`]. Locks are taken in this order: the registry, then shards,
/// then the tables. A thread that records holds only its own shard, and the tables while it
/// numbers a new site.
struct Recorder {
    registry: Mutex<Registry>,
    tables: Mutex<Tables>,
    /// Moved on by every [`reset`](Recorder::reset): the [`FastTable`]s of an older epoch
    /// count nothing.
    epoch: AtomicU64,
}

/// The sum of a recorder's counters: sites by value with their counts, in no order.
#[derive(Debug, Default, PartialEq, Eq)]
struct Snapshot {
    counts: Counts,
    /// Kind, site, count, and the user's line that led to a site inside a dependency.
    sites: Vec<(Instability, &'static Location<'static>, u64, Option<String>)>,
    collapses: Vec<(&'static Location<'static>, u64, Option<String>)>,
    gpu: Vec<GpuCount>,
}

impl Recorder {
    const fn new() -> Recorder {
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

    fn registry(&self) -> MutexGuard<'_, Registry> {
        lock(&self.registry)
    }

    /// Counts one event at `loc` in this thread's shard (`local`, a shard of `self`), or, once
    /// the shard is destroyed (another thread-local's destructor doing stochastic arithmetic),
    /// in the ended threads' totals.
    fn tally(
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
    fn snapshot(&self) -> Snapshot {
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
        let sites = totals
            .sites
            .iter()
            .enumerate()
            .filter(|&(_, &count)| count > 0)
            .filter_map(|(id, &count)| {
                let &(kind, loc) = tables.sites.keys.get(id)?;
                let via = tables.sites.via.get_mut(&(id as u32)).and_then(Via::line);
                Some((*Instability::ALL.get(kind as usize)?, loc, count, via))
            })
            .collect();
        let collapses = totals
            .collapses
            .iter()
            .enumerate()
            .filter(|&(_, &count)| count > 0)
            .filter_map(|(id, &count)| {
                let via = tables
                    .collapses
                    .via
                    .get_mut(&(id as u32))
                    .and_then(Via::line);
                Some((tables.collapses.keys.get(id)?.1, count, via))
            })
            .collect();
        let gpu = reg
            .gpu
            .iter()
            .map(|((kernel, k), &count)| GpuCount {
                kernel: kernel.clone(),
                kind: Instability::ALL[*k],
                count,
            })
            .collect();
        Snapshot {
            counts: totals.counts,
            sites,
            collapses,
            gpu,
        }
    }

    /// Clears the ended threads' totals, every live shard and the site tables, at once.
    fn reset(&self) {
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

    fn record_gpu(&self, kernel: &str, kind: Instability, count: u64) {
        *self
            .registry()
            .gpu
            .entry((kernel.to_string(), kind.index()))
            .or_insert(0) += count;
    }
}

/// A thread's handle on its shard: registers it at the thread's first event, and at the
/// thread's end adds its counts to the ended threads' totals and unregisters it.
struct Local {
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

/// A function a debugger can break on: called once for every instability event recorded out of
/// line, after it is counted. It does nothing else. In gdb or lldb: `break
/// stoch_instability_breakpoint`. An unstable branching at a site its thread has met already
/// is counted inline, without this call, unless a hook is installed ([`set_hook`]: install an
/// empty one to break on every event) or `STOCH_PANIC_ON` names branching.
#[no_mangle]
#[inline(never)]
pub extern "Rust" fn stoch_instability_breakpoint(event: &Event) {
    std::hint::black_box(event);
}

/// Installs a hook called on every instability event (kind, site, operands' samples), on the
/// thread that performed the operation. Replaces any previous hook.
///
/// ```
/// use std::sync::atomic::{AtomicUsize, Ordering};
/// use std::sync::Arc;
/// use stoch_core::Sf64;
/// let seen = Arc::new(AtomicUsize::new(0));
/// let s = seen.clone();
/// stoch_core::set_hook(move |e| {
///     assert_eq!(e.kind, stoch_core::Instability::Division);
///     s.fetch_add(1, Ordering::Relaxed);
/// });
/// let noise = Sf64::from_samples([1e-17, -1e-17, 2e-17]);
/// let _ = Sf64::new(1.0) / noise;
/// stoch_core::clear_hook();
/// assert_eq!(seen.load(Ordering::Relaxed), 1);
/// # stoch_core::reset();
/// ```
pub fn set_hook(hook: impl Fn(&Event) + Send + Sync + 'static) {
    *HOOK.write().unwrap_or_else(|e| e.into_inner()) = Some(Arc::new(hook));
    HAS_HOOK.store(true, Ordering::Release);
}

/// Removes the hook installed by [`set_hook`].
pub fn clear_hook() {
    HAS_HOOK.store(false, Ordering::Release);
    *HOOK.write().unwrap_or_else(|e| e.into_inner()) = None;
}

/// The bound on sites in force.
fn max_sites() -> usize {
    usize::try_from(config::MAX_SITES.load(Ordering::Relaxed)).unwrap_or(usize::MAX)
}

/// Counts an instability of `kind` at `loc`, inline, if this thread has met the site and
/// nothing else is to be done for it (no hook, `kind` not in `STOCH_PANIC_ON`): two counter
/// increments, no call, so a caller's hot path keeps its registers. `false` otherwise: then
/// [`record`] must be called (out of line).
#[inline(always)]
pub(crate) fn count_if_seen(kind: Instability, loc: &'static Location<'static>) -> bool {
    if HAS_HOOK.load(Ordering::Relaxed)
        || config::PANIC_ON.load(Ordering::Relaxed) & kind.bit() != 0
    {
        return false;
    }
    let t = FAST.get();
    if t.is_null() {
        return false;
    }
    // SAFETY: `FAST` holds the address of this thread's live `FastTable` (an `Arc` kept by its
    // `LOCAL`, which clears `FAST` before releasing it).
    let t = unsafe { &*t };
    t.bump_seen(
        RECORDER.epoch.load(Ordering::Relaxed),
        kind.index() as u8,
        addr(loc),
    )
}

/// Records one instability of `kind` at `loc` (the one counting entry point).
#[cold]
#[inline(never)]
pub(crate) fn record<T: StochFloat>(
    kind: Instability,
    loc: &'static Location<'static>,
    ops: &[&[T; 3]],
) {
    crate::runtime::state::ensure_init();
    RECORDER.tally(&LOCAL, Tally::Instability(kind.index()), loc, max_sites());
    // Built in place, sample by sample: a copy of an array assembled from 8-byte stores stalls
    // on store forwarding (about half the cost of this function when it was built that way).
    let mut event = Event {
        kind,
        location: loc,
        operands: [[f64::NAN; 3]; 2],
        operand_count: ops.len().min(2),
    };
    for (o, s) in event.operands.iter_mut().zip(ops) {
        for (d, x) in o.iter_mut().zip(s.iter()) {
            *d = StochFloat::to_f64(*x);
        }
    }
    stoch_instability_breakpoint(&event);
    if HAS_HOOK.load(Ordering::Acquire) {
        let hook = HOOK.read().unwrap_or_else(|e| e.into_inner()).clone();
        if let Some(h) = hook {
            h(&event);
        }
    }
    if config::PANIC_ON.load(Ordering::Relaxed) & kind.bit() != 0 {
        panic!(
            "stoch: {} at {}:{}:{} (STOCH_PANIC_ON)",
            kind.description(),
            loc.file(),
            loc.line(),
            loc.column()
        );
    }
}

/// Records an accuracy collapse at `loc`.
#[cold]
#[inline(never)]
pub(crate) fn record_collapse(loc: &'static Location<'static>) {
    crate::runtime::state::ensure_init();
    RECORDER.tally(&LOCAL, Tally::Collapse, loc, max_sites());
}

/// Adds instabilities found on a GPU to the report's GPU section: `count` elements of the
/// output of `kernel` carry the flag of `kind`. Used by `stoch-gpu`.
///
/// ```
/// use stoch_core::{record_gpu, report, Instability};
/// record_gpu("matmul", Instability::Multiplication, 3);
/// assert_eq!(report().gpu_count(Instability::Multiplication), 3);
/// # stoch_core::reset();
/// ```
pub fn record_gpu(kernel: &str, kind: Instability, count: u64) {
    if count == 0 {
        return;
    }
    arm_exit_report();
    RECORDER.record_gpu(kernel, kind, count);
}

/// Clears every counter, site and GPU count, of ended and running threads alike, and allows
/// [`finish`] to print again (for tests).
pub fn reset() {
    RECORDER.reset();
    INEXACT_PRINTS.store(0, Ordering::Relaxed);
    *lock(&INEXACT_FIRST) = None;
    PRINTED.store(false, Ordering::Relaxed);
}

/// Values printed with more significant digits than they have exact (`{:.p}`, `{:.pe}`).
static INEXACT_PRINTS: AtomicU64 = AtomicU64::new(0);
/// The first of them, described for the report.
static INEXACT_FIRST: Mutex<Option<String>> = Mutex::new(None);

/// Counts a value printed with digits that are not exact; `describe` says what was printed
/// (called for the first such value only).
pub(crate) fn note_inexact_print(describe: impl FnOnce() -> String) {
    if INEXACT_PRINTS.fetch_add(1, Ordering::Relaxed) == 0 {
        let text = describe();
        lock(&INEXACT_FIRST).get_or_insert(text);
    }
    arm_exit_report();
}

// ---------------------------------------------------------------------------------------------
// The report at exit, whatever the entry point.

/// Whether the exit-time report is registered.
static EXIT_ARMED: std::sync::Once = std::sync::Once::new();
/// Set by `#[stochastic(report = false)]` on `main`: no report at exit.
static EXIT_REPORT_OFF: AtomicBool = AtomicBool::new(false);

/// Registers, once per process, a handler that prints the report when the process exits
/// (`main` returns, `std::process::exit`, a panic that ends `main`), unless it was printed
/// already ([`finish`], the guard of [`init`] or of `#[stochastic]` on `main`), turned off
/// (`STOCH_REPORT=off`, `report = false`) or has nothing to say. Called at the first event
/// recorded at each new site, so a run that found instabilities always ends with its report,
/// also when its `main` is not annotated.
fn arm_exit_report() {
    EXIT_ARMED.call_once(|| {
        // SAFETY: `atexit` takes a plain `extern "C" fn()` with no captured state; the handler
        // catches every panic, so none unwinds into the C library.
        unsafe {
            libc::atexit(exit_report);
        }
    });
}

/// The `atexit` handler (see [`arm_exit_report`]).
extern "C" fn exit_report() {
    let _ = std::panic::catch_unwind(|| {
        if EXIT_REPORT_OFF.load(Ordering::Acquire)
            || PRINTED.load(Ordering::Acquire)
            || *config::current().get_report() == ReportMode::Off
        {
            return;
        }
        let r = report();
        if r.total == 0 && r.collapse_total == 0 && r.inexact_prints == 0 && r.gpu.is_empty() {
            return;
        }
        finish();
    });
}

/// No report at exit from the handler of [`arm_exit_report`] (`report = false` on `main`).
pub(crate) fn exit_report_off() {
    EXIT_REPORT_OFF.store(true, Ordering::Release);
}

// ---------------------------------------------------------------------------------------------
// Sites inside dependencies.

/// Whether a source path is outside the user's workspace: cargo names the files of workspace
/// members by relative paths, and those of other packages (registry, git, std) by absolute ones.
fn in_dependency(file: &str) -> bool {
    std::path::Path::new(file).is_absolute() || file.starts_with("/rustc/")
}

/// A path as the report shows it: a file of a registry package as `crate-version/path`
/// (`nalgebra-0.35.0/src/linalg/lu.rs`), a git checkout as `repo-rev/path`, the standard
/// library as `rust/library/...`, another absolute path from its package's directory (the one
/// above its last `src`), a relative path unchanged.
///
/// ```text
/// /home/u/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/nalgebra-0.35.0/src/linalg/lu.rs
///     -> nalgebra-0.35.0/src/linalg/lu.rs
/// ```
fn readable_path(file: &str) -> String {
    if !in_dependency(file) {
        return file.to_string();
    }
    let unix = file.replace('\\', "/");
    if let Some((_, rest)) = unix.split_once("/registry/src/") {
        // rest = index.crates.io-<hash>/<crate>-<version>/...
        if let Some((_, tail)) = rest.split_once('/') {
            return tail.to_string();
        }
    }
    if let Some((_, rest)) = unix.split_once("/git/checkouts/") {
        // rest = <repo>-<hash>/<rev>/...
        let mut parts = rest.splitn(3, '/');
        if let (Some(repo), Some(rev), Some(tail)) = (parts.next(), parts.next(), parts.next()) {
            let repo = repo.rsplit_once('-').map_or(repo, |(r, _)| r);
            return format!("{repo}-{rev}/{tail}");
        }
    }
    if let Some(rest) = unix.strip_prefix("/rustc/") {
        if let Some((_, tail)) = rest.split_once('/') {
            return format!("rust/{tail}");
        }
    }
    let parts: Vec<&str> = unix.split('/').collect();
    match parts.iter().rposition(|p| *p == "src") {
        Some(i) if i >= 1 => parts[i - 1..].join("/"),
        _ => unix,
    }
}

/// The user's source line on a stack (a `Backtrace` as text): the innermost frame, below the runtime's
/// entry frames, whose file is not a package of cargo's registry or git checkouts, the standard
/// library or stoch itself (a path relative to the current directory when it is under it).
/// `None` when the binary has no line tables (release builds without `debug`).
fn user_line(trace: &str) -> Option<String> {
    let cwd = std::env::current_dir().ok();
    for line in trace.lines().map(str::trim_start) {
        if line.contains("__rust_begin_short_backtrace") || line.contains("std::rt::lang_start") {
            return None;
        }
        let Some(at) = line.strip_prefix("at ") else {
            continue;
        };
        let path = at.strip_prefix("./").unwrap_or(at);
        let unix = path.replace('\\', "/");
        let elsewhere = [
            "/registry/src/",
            "/git/checkouts/",
            "/lib/rustlib/",
            "stoch-core/",
            "stoch-macros/",
            "stoch_core/",
        ]
        .iter()
        .any(|p| unix.contains(p))
            || unix.starts_with("/rustc/");
        if elsewhere {
            continue;
        }
        let shown = cwd
            .as_deref()
            .and_then(|d| std::path::Path::new(path).strip_prefix(d).ok())
            .map_or_else(|| path.to_string(), |p| p.display().to_string());
        return Some(shown);
    }
    None
}

/// The small helper holding `loc` (see [`Site::helper`]).
fn helper_at(loc: &Location<'_>) -> Option<String> {
    crate::small_helpers::small_helper(loc.file(), loc.line()).map(str::to_owned)
}

/// Ends a site line, with the note on a small helper holding it.
fn write_helper_note(f: &mut fmt::Formatter<'_>, helper: Option<&str>) -> fmt::Result {
    match helper {
        Some(name) => writeln!(
            f,
            "  (inside the one-line helper `{name}`: #[stochastic(track_caller)] reports its \
             callers instead)"
        ),
        None => writeln!(f),
    }
}

/// One source location where instabilities of one kind occurred.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Site {
    /// The kind.
    pub kind: Instability,
    /// Source file: as the compiler names it inside the user's workspace (`src/main.rs`), and
    /// as `crate-version/path` inside a dependency (`nalgebra-0.35.0/src/linalg/lu.rs`).
    pub file: String,
    /// Line, from 1.
    pub line: u32,
    /// Column, from 1.
    pub column: u32,
    /// How many times.
    pub count: u64,
    /// For a site inside a dependency (or the standard library): the user's own line that
    /// first led there (`src/main.rs:42:13`), found from the stack once per site; `None` for
    /// a site in the user's code, or when the program has no line tables (release builds
    /// without `debug = "line-tables-only"`).
    #[serde(default)]
    pub via: Option<String>,
    /// The name of the small fn (one statement or expression) the site lies in, when
    /// `#[stochastic]` rewrote it without `track_caller`: `#[stochastic(track_caller)]` would
    /// report its callers' lines instead.
    #[serde(default)]
    pub helper: Option<String>,
}

/// One source location where a significant value became a computed zero.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CollapseSite {
    /// Source file, named as in [`Site::file`].
    pub file: String,
    /// Line, from 1.
    pub line: u32,
    /// Column, from 1.
    pub column: u32,
    /// How many times.
    pub count: u64,
    /// The user's line that first led to a site inside a dependency, as [`Site::via`].
    #[serde(default)]
    pub via: Option<String>,
    /// The small helper the site lies in, as [`Site::helper`].
    #[serde(default)]
    pub helper: Option<String>,
}

/// Instabilities flagged on a GPU for one kernel and kind.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GpuCount {
    /// The kernel's name.
    pub kernel: String,
    /// The kind.
    pub kind: Instability,
    /// Elements flagged.
    pub count: u64,
}

/// A snapshot of the instabilities found so far.
///
/// JSON schema (`serde_json::to_string(&report)`), all fields always present:
///
/// ```text
/// {
///   "total": u64,                        // CPU instabilities, all kinds
///   "counts": { "division": u64, "multiplication": u64, "power": u64, "branching": u64,
///               "intrinsic": u64, "math_function": u64, "cancellation": u64 },
///   "self_validation_failed": bool,      // any division, multiplication or power instability
///   "sites": [ { "kind": "cancellation", "file": str, "line": u32, "column": u32,
///                "count": u64,           // most frequent first; file as in Site::file
///                "via": str | null,      // inside a dependency: the user's line (Site::via)
///                "helper": str | null } ], // inside a one-line helper: its name (Site::helper)
///   "overflow_events": u64,              // events at sites beyond max_sites
///   "collapses": [ { "file": str, "line": u32, "column": u32, "count": u64,
///                    "via": str | null, "helper": str | null } ],
///   "collapse_total": u64,               // all collapses, kept sites and overflow
///   "collapse_overflow": u64,            // collapses at sites beyond max_sites
///   "gpu": [ { "kernel": str, "kind": "division", "count": u64 } ],
///   "inexact_prints": u64,               // values printed ({:.p}, {:.pe}) with more
///                                        // significant digits than exact
///   "inexact_print_first": str | null,   // the first of them, and its exact digits
///   "config": { "seed": u64, "cancel_level": u32,
///               "detect": [kind],            // kinds checked, plus "collapse"
///               "report": "text" | "json" | "off" | { "json_file": str },
///               "max_sites": usize, "confidence": f64,
///               "panic_on": [kind] },        // kinds that panic at their first event
///   "hardware_fma": bool                 // false: random rounding ran the slow software
///                                        // path (no FMA in the build, no AVX-512 in the CPU)
/// }
/// ```
///
/// A `kind` is one of `"division"`, `"multiplication"`, `"power"`, `"branching"`,
/// `"intrinsic"`, `"math_function"`, `"cancellation"` ([`Instability::name`]), the same
/// names as in the text report and in `STOCH_DETECT`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    total: u64,
    counts: BTreeMap<Instability, u64>,
    self_validation_failed: bool,
    sites: Vec<Site>,
    overflow_events: u64,
    collapses: Vec<CollapseSite>,
    collapse_total: u64,
    collapse_overflow: u64,
    gpu: Vec<GpuCount>,
    #[serde(default)]
    inexact_prints: u64,
    #[serde(default)]
    inexact_print_first: Option<String>,
    /// Whether a site inside a dependency has no user's line (the program has no line tables).
    #[serde(skip)]
    dependency_site_without_via: bool,
    config: Config,
    hardware_fma: bool,
}

/// Takes a snapshot of the counters.
///
/// ```
/// use stoch_core::{report, Instability, Sf64};
/// let noise = Sf64::from_samples([1e-17, -1e-17, 2e-17]);
/// let _ = Sf64::new(1.0) / noise;
/// let r = report();
/// assert_eq!(r.count(Instability::Division), 1);
/// assert!(r.self_validation_failed());
/// # stoch_core::reset();
/// ```
#[must_use]
pub fn report() -> Report {
    let config = config::current();
    let snap = RECORDER.snapshot();
    let mut sites: Vec<Site> = snap
        .sites
        .iter()
        .map(|(kind, loc, count, via)| Site {
            kind: *kind,
            file: readable_path(loc.file()),
            line: loc.line(),
            column: loc.column(),
            count: *count,
            via: via.clone(),
            helper: helper_at(loc),
        })
        .collect();
    sites.sort_by(|a, b| {
        b.count.cmp(&a.count).then_with(|| {
            (&a.file, a.line, a.column, a.kind).cmp(&(&b.file, b.line, b.column, b.kind))
        })
    });
    let mut collapses: Vec<CollapseSite> = snap
        .collapses
        .iter()
        .map(|(loc, count, via)| CollapseSite {
            file: readable_path(loc.file()),
            line: loc.line(),
            column: loc.column(),
            count: *count,
            via: via.clone(),
            helper: helper_at(loc),
        })
        .collect();
    collapses.sort_by(|a, b| {
        b.count
            .cmp(&a.count)
            .then_with(|| (&a.file, a.line, a.column).cmp(&(&b.file, b.line, b.column)))
    });
    let kinds = snap.counts.kinds;
    let counts = Instability::ALL
        .iter()
        .map(|k| (*k, kinds[k.index()]))
        .collect();
    Report {
        total: kinds.iter().sum(),
        counts,
        self_validation_failed: Instability::ALL
            .iter()
            .any(|k| k.breaks_self_validation() && kinds[k.index()] > 0),
        sites,
        overflow_events: snap.counts.overflow_events,
        collapses,
        collapse_total: snap.counts.collapse_total,
        collapse_overflow: snap.counts.collapse_overflow,
        gpu: snap.gpu,
        inexact_prints: INEXACT_PRINTS.load(Ordering::Relaxed),
        inexact_print_first: lock(&INEXACT_FIRST).clone(),
        dependency_site_without_via: snap
            .sites
            .iter()
            .map(|(_, loc, _, via)| (loc, via))
            .chain(snap.collapses.iter().map(|(loc, _, via)| (loc, via)))
            .any(|(loc, via)| via.is_none() && in_dependency(loc.file())),
        config,
        hardware_fma: !crate::arch::slow_software_path(),
    }
}

impl Report {
    /// Instabilities of `kind` found on the CPU.
    #[must_use]
    pub fn count(&self, kind: Instability) -> u64 {
        self.counts.get(&kind).copied().unwrap_or(0)
    }

    /// All CPU instabilities.
    #[must_use]
    pub fn total(&self) -> u64 {
        self.total
    }

    /// Sites, most frequent first.
    #[must_use]
    pub fn sites(&self) -> &[Site] {
        &self.sites
    }

    /// Events at sites beyond the configured maximum number of sites.
    #[must_use]
    pub fn overflow_events(&self) -> u64 {
        self.overflow_events
    }

    /// Accuracy collapses, most frequent first.
    #[must_use]
    pub fn collapses(&self) -> &[CollapseSite] {
        &self.collapses
    }

    /// Number of accuracy collapses.
    #[must_use]
    pub fn collapse_total(&self) -> u64 {
        self.collapse_total
    }

    /// Accuracy collapses at sites beyond the configured maximum number of sites (counted in
    /// [`collapse_total`](Report::collapse_total), not in [`collapses`](Report::collapses)).
    #[must_use]
    pub fn collapse_overflow(&self) -> u64 {
        self.collapse_overflow
    }

    /// Whether a division, multiplication or power instability invalidated the estimate
    /// (CPU or GPU).
    #[must_use]
    pub fn self_validation_failed(&self) -> bool {
        self.self_validation_failed
            || self
                .gpu
                .iter()
                .any(|g| g.kind.breaks_self_validation() && g.count > 0)
    }

    /// GPU elements flagged with `kind`, all kernels together.
    #[must_use]
    pub fn gpu_count(&self, kind: Instability) -> u64 {
        self.gpu
            .iter()
            .filter(|g| g.kind == kind)
            .map(|g| g.count)
            .sum()
    }

    /// The GPU section: counts per kernel and kind.
    #[must_use]
    pub fn gpu(&self) -> &[GpuCount] {
        &self.gpu
    }

    /// Values printed with a precision (`{:.p}`, `{:.pe}`) that showed more significant digits
    /// than they have exact. Such a format prints what `f64` prints, so the text keeps its
    /// layout and parses back; this count (and [`inexact_print_first`]) says where that text
    /// claims digits that are not there.
    ///
    /// [`inexact_print_first`]: Report::inexact_print_first
    ///
    /// ```
    /// use stoch_core::{report, Sf64};
    /// let x = Sf64::from_samples([0.330, 0.334, 0.338]); // 2 exact digits
    /// assert_eq!(format!("{x:.5}"), "0.33400");
    /// assert_eq!(format!("{x:.1}"), "0.3"); // one digit: exact
    /// let r = report();
    /// assert_eq!(r.inexact_prints(), 1);
    /// assert_eq!(
    ///     r.inexact_print_first(),
    ///     Some("`{:.5}` printed 0.33400; exact digits: 2, 3.3e-1")
    /// );
    /// # stoch_core::reset();
    /// ```
    #[must_use]
    pub fn inexact_prints(&self) -> u64 {
        self.inexact_prints
    }

    /// The first value counted by [`inexact_prints`](Report::inexact_prints): the format, what
    /// it printed, and the value's exact digits.
    #[must_use]
    pub fn inexact_print_first(&self) -> Option<&str> {
        self.inexact_print_first.as_deref()
    }

    /// The configuration in force when the snapshot was taken.
    #[must_use]
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The report as JSON (see the schema on [`Report`]).
    #[must_use]
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
    }

    /// Sites shown by `Display`.
    const SHOWN_SITES: usize = 20;
}

fn plural(n: u64, word: &str) -> String {
    if n == 1 {
        format!("{n} {word}")
    } else if let Some(stem) = word.strip_suffix('y') {
        format!("{n} {stem}ies")
    } else {
        format!("{n} {word}s")
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let rule = "-".repeat(72);
        writeln!(f, "{rule}")?;
        writeln!(
            f,
            "stoch {}: Discrete Stochastic Arithmetic, 3 samples, confidence {}%, seed {:#x}",
            env!("CARGO_PKG_VERSION"),
            // At most 6 decimals, trailing zeros trimmed (99.73, not 99.72999999999999).
            format!("{:.6}", self.config.get_confidence() * 100.0)
                .trim_end_matches('0')
                .trim_end_matches('.'),
            self.config.get_seed()
        )?;
        if self.total == 0 {
            writeln!(f, "No instability detected.")?;
        } else {
            writeln!(
                f,
                "{} detected:",
                plural(self.total, "numerical instability")
            )?;
            for k in Instability::ALL {
                let n = self.count(k);
                if n > 0 {
                    writeln!(f, "  {:>10}  {}", n, k.description())?;
                }
            }
        }
        let off: Vec<&str> = Instability::ALL
            .iter()
            .filter(|k| !self.config.detects(**k))
            .map(|k| k.name())
            .collect();
        if !off.is_empty() {
            writeln!(f, "Not checked: {}.", off.join(", "))?;
        }
        if self.config.detects(Instability::Cancellation) {
            writeln!(
                f,
                "Cancellation level: {} digits.",
                self.config.get_cancel_level()
            )?;
        }
        if self.self_validation_failed() {
            writeln!(
                f,
                "CRITICAL: self-validation failed (unstable division, multiplication or power):\n\
                 the estimated digits may be wrong; fix these first."
            )?;
        }
        if !self.sites.is_empty() {
            writeln!(f, "Sites (most frequent first):")?;
            for s in self.sites.iter().take(Self::SHOWN_SITES) {
                write!(
                    f,
                    "  {}:{}:{}  {}  {}",
                    s.file, s.line, s.column, s.kind, s.count
                )?;
                if let Some(v) = &s.via {
                    write!(f, "  (from {v})")?;
                }
                write_helper_note(f, s.helper.as_deref())?;
            }
            if self.sites.len() > Self::SHOWN_SITES {
                writeln!(
                    f,
                    "  ... {} more sites (see the JSON report)",
                    self.sites.len() - Self::SHOWN_SITES
                )?;
            }
        }
        if self.overflow_events > 0 {
            writeln!(
                f,
                "  {} beyond the limit of {} sites (STOCH_MAX_SITES)",
                plural(self.overflow_events, "further event"),
                self.config.get_max_sites()
            )?;
        }
        if self.collapse_total > 0 {
            writeln!(
                f,
                "{} (a significant value became a computed zero):",
                plural(self.collapse_total, "accuracy collapse")
            )?;
            for s in self.collapses.iter().take(Self::SHOWN_SITES) {
                write!(f, "  {}:{}:{}  {}", s.file, s.line, s.column, s.count)?;
                if let Some(v) = &s.via {
                    write!(f, "  (from {v})")?;
                }
                write_helper_note(f, s.helper.as_deref())?;
            }
            if self.collapses.len() > Self::SHOWN_SITES {
                writeln!(
                    f,
                    "  ... {} more sites (see the JSON report)",
                    self.collapses.len() - Self::SHOWN_SITES
                )?;
            }
            if self.collapse_overflow > 0 {
                writeln!(
                    f,
                    "  {} beyond the limit of {} sites (STOCH_MAX_SITES)",
                    plural(self.collapse_overflow, "further collapse"),
                    self.config.get_max_sites()
                )?;
            }
        }
        if self.dependency_site_without_via {
            writeln!(
                f,
                "  (sites inside dependencies name the user's line that led there when the \
                 program has line tables: debug = \"line-tables-only\" in its [profile.release])"
            )?;
        }
        if self.inexact_prints > 0 {
            writeln!(
                f,
                "{} printed with more digits than exact ({{:.p}} prints what f64 prints; {{}} \
                 prints the exact digits only){}",
                plural(self.inexact_prints, "value"),
                self.inexact_print_first
                    .as_deref()
                    .map_or(String::new(), |t| format!(":\n  first: {t}"))
            )?;
        }
        if !self.gpu.is_empty() {
            writeln!(f, "GPU (elements flagged per kernel):")?;
            for g in &self.gpu {
                writeln!(f, "  {}  {}  {}", g.kernel, g.kind, g.count)?;
            }
        }
        if !self.hardware_fma {
            writeln!(
                f,
                "Note: built without hardware FMA, and the AVX-512 path is not running (this \
                 processor has no AVX-512, or STOCH_PORTABLE=1 asks for the portable path); \
                 random rounding runs a slower software path.\n\
                 Build with RUSTFLAGS=\"-C target-cpu=native\" (or -C target-feature=+fma)."
            )?;
        }
        write!(f, "{rule}")
    }
}

/// Writes the report as configured (text or JSON on stderr, JSON to a file, or nothing), once
/// per process: later calls do nothing until [`reset`].
pub fn finish() {
    if PRINTED.swap(true, Ordering::AcqRel) {
        return;
    }
    if *config::current().get_report() == ReportMode::Off {
        // Nothing to write: no snapshot (reading the stacks of dependency sites takes time).
        return;
    }
    let r = report();
    match r.config.get_report().clone() {
        ReportMode::Off => {}
        ReportMode::Text => {
            let _ = writeln!(std::io::stderr().lock(), "{r}");
        }
        ReportMode::Json => {
            let _ = writeln!(std::io::stderr().lock(), "{}", r.to_json());
        }
        ReportMode::JsonFile(path) => {
            if let Err(e) = std::fs::write(&path, r.to_json()) {
                let _ = writeln!(
                    std::io::stderr().lock(),
                    "stoch: cannot write the report to {}: {e}; printing it here\n{r}",
                    path.display()
                );
            }
        }
    }
}

/// Applies `config` and returns a guard that prints the report when dropped, also when the
/// thread unwinds from a panic.
///
/// `config` is applied as given: the `STOCH_*` environment variables are not read. Start from
/// [`Config::from_env`] to let them in. A variable that is set but not in force is named on
/// stderr (`stoch: STOCH_SEED=7 is not applied: ...`), so that nothing is ignored silently.
///
/// ```
/// use stoch_core::{Config, ReportMode};
/// // The environment's settings, then the program's own choices on top.
/// let config = Config::from_env().expect("valid STOCH_* variables").report(ReportMode::Off);
/// let _guard = stoch_core::init(config);
/// ```
#[must_use = "the report is printed when the guard is dropped"]
pub fn init(config: Config) -> Guard {
    config::warn_unknown_env();
    let unapplied = config.env_not_applied(|k| std::env::var(k).ok());
    if !unapplied.is_empty() {
        let _ = writeln!(
            std::io::stderr().lock(),
            "stoch: {} not applied: stoch_core::init was given an explicit configuration \
             (build it from Config::from_env() to honour the environment)",
            unapplied.join(", ") + if unapplied.len() == 1 { " is" } else { " are" }
        );
    }
    config.apply();
    Guard { _private: () }
}

/// Prints the report when dropped (see [`init`]).
#[derive(Debug)]
pub struct Guard {
    _private: (),
}

impl Drop for Guard {
    fn drop(&mut self) {
        finish();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample_report() -> Report {
        let mut counts = BTreeMap::new();
        for k in Instability::ALL {
            counts.insert(k, 0);
        }
        counts.insert(Instability::Division, 2);
        counts.insert(Instability::Cancellation, 5);
        Report {
            total: 7,
            counts,
            self_validation_failed: true,
            sites: vec![
                Site {
                    kind: Instability::Cancellation,
                    file: "src/main.rs".into(),
                    line: 12,
                    column: 9,
                    count: 5,
                    via: None,
                    helper: Some("abs".into()),
                },
                Site {
                    kind: Instability::Division,
                    file: "src/lib.rs".into(),
                    line: 3,
                    column: 17,
                    count: 2,
                    via: None,
                    helper: None,
                },
            ],
            overflow_events: 0,
            collapses: vec![CollapseSite {
                file: "src/main.rs".into(),
                line: 20,
                column: 5,
                count: 1,
                via: None,
                helper: None,
            }],
            collapse_total: 1,
            collapse_overflow: 0,
            gpu: vec![GpuCount {
                kernel: "matmul".into(),
                kind: Instability::Multiplication,
                count: 4,
            }],
            inexact_prints: 0,
            inexact_print_first: None,
            dependency_site_without_via: false,
            config: Config::default().seed(42),
            hardware_fma: true,
        }
    }

    #[test]
    fn golden_text() {
        let want = format!(
            "{rule}
stoch {v}: Discrete Stochastic Arithmetic, 3 samples, confidence 95%, seed 0x2a
7 numerical instabilities detected:
           2  unstable division
           5  cancellation
Cancellation level: 4 digits.
CRITICAL: self-validation failed (unstable division, multiplication or power):
the estimated digits may be wrong; fix these first.
Sites (most frequent first):
  src/main.rs:12:9  cancellation  5  (inside the one-line helper `abs`: #[stochastic(track_caller)] reports its callers instead)
  src/lib.rs:3:17  division  2
1 accuracy collapse (a significant value became a computed zero):
  src/main.rs:20:5  1
GPU (elements flagged per kernel):
  matmul  multiplication  4
{rule}",
            rule = "-".repeat(72),
            v = env!("CARGO_PKG_VERSION")
        );
        assert_eq!(sample_report().to_string(), want);
    }

    /// A run on the slow software path says so, why, and how to leave it.
    #[test]
    fn text_names_the_slow_path_and_its_causes() {
        let mut r = sample_report();
        assert!(!r.to_string().contains("slower software path"));
        r.hardware_fma = false;
        let text = r.to_string();
        for part in [
            "built without hardware FMA",
            "STOCH_PORTABLE=1",
            "slower software path",
            "-C target-cpu=native",
        ] {
            assert!(text.contains(part), "{part:?} missing from:\n{text}");
        }
        assert!(text.ends_with(&"-".repeat(72)), "{text}");
    }

    #[test]
    fn golden_text_clean() {
        let mut r = sample_report();
        r.total = 0;
        r.counts.values_mut().for_each(|c| *c = 0);
        r.self_validation_failed = false;
        r.sites.clear();
        r.collapses.clear();
        r.collapse_total = 0;
        r.gpu.clear();
        r.config = r.config.disable(Instability::Branching);
        let text = r.to_string();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[2], "No instability detected.");
        assert_eq!(lines[3], "Not checked: branching.");
        assert_eq!(lines.len(), 6);
    }

    #[test]
    fn golden_json_document() {
        // Every field, in the order of the schema on `Report`; the configuration's kind lists
        // and report mode in their JSON forms.
        let mut r = sample_report();
        r.collapse_total = 3;
        r.collapse_overflow = 2;
        r.overflow_events = 6;
        r.config = r
            .config
            .disable(Instability::Branching)
            .panic_on(Instability::Division)
            .report(ReportMode::JsonFile("out/report.json".into()));
        let want = r#"{
  "total": 7,
  "counts": {
    "division": 2,
    "multiplication": 0,
    "power": 0,
    "branching": 0,
    "intrinsic": 0,
    "math_function": 0,
    "cancellation": 5
  },
  "self_validation_failed": true,
  "sites": [
    {
      "kind": "cancellation",
      "file": "src/main.rs",
      "line": 12,
      "column": 9,
      "count": 5,
      "via": null,
      "helper": "abs"
    },
    {
      "kind": "division",
      "file": "src/lib.rs",
      "line": 3,
      "column": 17,
      "count": 2,
      "via": null,
      "helper": null
    }
  ],
  "overflow_events": 6,
  "collapses": [
    {
      "file": "src/main.rs",
      "line": 20,
      "column": 5,
      "count": 1,
      "via": null,
      "helper": null
    }
  ],
  "collapse_total": 3,
  "collapse_overflow": 2,
  "gpu": [
    {
      "kernel": "matmul",
      "kind": "multiplication",
      "count": 4
    }
  ],
  "inexact_prints": 0,
  "inexact_print_first": null,
  "config": {
    "seed": 42,
    "cancel_level": 4,
    "detect": [
      "division",
      "multiplication",
      "power",
      "intrinsic",
      "math_function",
      "cancellation",
      "collapse"
    ],
    "report": {
      "json_file": "out/report.json"
    },
    "max_sites": 1000,
    "confidence": 0.95,
    "panic_on": [
      "division"
    ]
  },
  "hardware_fma": true
}"#;
        let json = r.to_json();
        assert_eq!(json, want);
        let back: Report = serde_json::from_str(&json).unwrap();
        assert_eq!(back, r);
        // The text report names the collapses beyond the site limit.
        assert!(
            r.to_string()
                .contains("  2 further collapses beyond the limit of 1000 sites"),
            "{r}"
        );
    }

    #[test]
    fn unknown_kind_in_json_config_is_an_error() {
        let json = sample_report()
            .to_json()
            .replace("\"panic_on\": []", "\"panic_on\": [\"divisions_by_zero\"]");
        let err = serde_json::from_str::<Report>(&json).unwrap_err();
        assert!(err.to_string().contains("divisions_by_zero"), "{err}");
    }

    #[test]
    fn env_variables_not_in_an_explicit_config_are_named() {
        let get = |k: &str| match k {
            "STOCH_SEED" => Some("7".to_string()),
            "STOCH_REPORT" => Some("off".to_string()),
            _ => None,
        };
        let cfg = Config::default().seed(7);
        assert_eq!(
            cfg.env_not_applied(get),
            vec!["STOCH_REPORT=off".to_string()]
        );
        let from_env = Config::default().merge_env(get).unwrap();
        assert!(from_env.env_not_applied(get).is_empty());
        assert!(Config::default().env_not_applied(|_| None).is_empty());
    }

    #[test]
    fn golden_json() {
        let json = sample_report().to_json();
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(v["total"], 7);
        assert_eq!(v["counts"]["division"], 2);
        assert_eq!(v["counts"]["math_function"], 0);
        assert_eq!(v["counts"]["cancellation"], 5);
        assert_eq!(v["self_validation_failed"], true);
        assert_eq!(v["sites"][0]["kind"], "cancellation");
        assert_eq!(v["sites"][0]["line"], 12);
        assert_eq!(v["collapses"][0]["line"], 20);
        assert_eq!(v["gpu"][0]["kernel"], "matmul");
        assert_eq!(v["config"]["seed"], 42);
        assert_eq!(v["config"]["report"], "text");
        let back: Report = serde_json::from_str(&json).unwrap();
        assert_eq!(back, sample_report());
    }

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
        let (ready, wait_ready) = std::sync::mpsc::channel();
        let (go, wait_go) = std::sync::mpsc::channel::<()>();
        let t = std::thread::spawn(move || {
            for _ in 0..5 {
                R.tally(&L, DIVISION, a, 10);
            }
            ready.send(()).unwrap();
            wait_go.recv().unwrap();
        });
        wait_ready.recv().unwrap();
        R.tally(&L, DIVISION, a, 10);
        assert_eq!(R.registry().shards.len(), 2);
        let alive = R.snapshot();
        assert_eq!(alive.counts.kinds[0], 6);
        assert_eq!(at(&alive, Instability::Division, a), 6);
        go.send(()).unwrap();
        t.join().unwrap();
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

    #[test]
    fn dependency_paths_read_as_crate_and_path() {
        for (file, want) in [
            (
                "/home/u/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/nalgebra-0.35.0/src/linalg/lu.rs",
                "nalgebra-0.35.0/src/linalg/lu.rs",
            ),
            (
                "/home/u/.cargo/git/checkouts/cgmath-3bd2e5f1c9a0d7e6/a1b2c3d/src/vector.rs",
                "cgmath-a1b2c3d/src/vector.rs",
            ),
            (
                "/rustc/59807616e1fa2540724bfbac14d7976d7e4a3860/library/core/src/iter/traits/accum.rs",
                "rust/library/core/src/iter/traits/accum.rs",
            ),
            ("/opt/src/mylib/src/lib.rs", "mylib/src/lib.rs"),
            ("src/main.rs", "src/main.rs"),
            ("examples/wave3d.rs", "examples/wave3d.rs"),
        ] {
            assert_eq!(readable_path(file), want, "{file}");
        }
        assert!(in_dependency("/rustc/x/library/core/src/cmp.rs"));
        assert!(!in_dependency("src/main.rs"));
    }

    /// Events at a site already met are counted by the thread's lock-free table, not its
    /// shard, with exact counts across a reset (the live thread's table of the old epoch counts
    /// nothing) and at the thread's end.
    #[test]
    fn seen_sites_are_counted_by_the_fast_table() {
        recorder!(R, L);
        let (a, b) = (here(), here());
        let (done, wait_done) = std::sync::mpsc::channel();
        let (go, wait_go) = std::sync::mpsc::channel::<bool>();
        let t = std::thread::spawn(move || {
            while wait_go.recv().unwrap() {
                for _ in 0..1000 {
                    R.tally(&L, DIVISION, a, 10);
                    R.tally(&L, Tally::Collapse, a, 10);
                }
                let shard = L.with(|l| lock(&l.shard).counts);
                done.send(shard).unwrap();
            }
        });
        go.send(true).unwrap();
        let shard = wait_done.recv().unwrap();
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
        go.send(true).unwrap();
        wait_done.recv().unwrap();
        let snap = R.snapshot();
        assert_eq!(at(&snap, Instability::Division, a), 1000);
        assert_eq!(at(&snap, Instability::Division, b), 1);
        assert_eq!(snap.counts.kinds[0], 1001);
        go.send(false).unwrap();
        t.join().unwrap();
        // The ended thread's table went to the totals.
        let snap = R.snapshot();
        assert_eq!(at(&snap, Instability::Division, a), 1000);
        assert_eq!(snap.counts.collapse_total, 1000);
    }

    #[test]
    fn reset_clears_live_shards_and_their_site_numbers() {
        recorder!(R, L);
        let (a, b) = (here(), here());
        let (done, wait_done) = std::sync::mpsc::channel();
        let (go, wait_go) = std::sync::mpsc::channel::<bool>();
        let t = std::thread::spawn(move || {
            // Each message: record at `a`, or end.
            while wait_go.recv().unwrap() {
                R.tally(&L, DIVISION, a, 10);
                R.tally(&L, Tally::Collapse, a, 10);
                done.send(()).unwrap();
            }
        });
        go.send(true).unwrap();
        wait_done.recv().unwrap();
        assert_eq!(at(&R.snapshot(), Instability::Division, a), 1);
        R.record_gpu("k", Instability::Power, 2);
        R.reset();
        assert_eq!(R.snapshot(), Snapshot::default());
        // `b` takes number 0, the number `a` had before the reset; the live thread must not
        // count `a` under it.
        R.tally(&L, DIVISION, b, 10);
        go.send(true).unwrap();
        wait_done.recv().unwrap();
        let snap = R.snapshot();
        assert_eq!(snap.counts.kinds[0], 2);
        assert_eq!(at(&snap, Instability::Division, a), 1);
        assert_eq!(at(&snap, Instability::Division, b), 1);
        assert_eq!(snap.collapses, [(a, 1, None)]);
        go.send(false).unwrap();
        t.join().unwrap();
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

    #[test]
    fn addr_hasher_spreads_aligned_addresses_over_the_low_bits() {
        use std::hash::BuildHasher;
        let build = BuildHasherDefault::<AddrHasher>::default();
        // Addresses 16 bytes apart, as `Location`s in read-only data: the bucket index (low
        // bits) must take many values, not one in 16.
        let buckets: std::collections::BTreeSet<u64> = (0..64usize)
            .map(|i| build.hash_one((6u8, 0x5555_0000 + 16 * i)) & 63)
            .collect();
        assert!(buckets.len() > 32, "{} buckets of 64", buckets.len());
    }
}
