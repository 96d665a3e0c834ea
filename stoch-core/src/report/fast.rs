//! A thread's lock-free counters for the sites it has met already: the inline path of
//! [`count_if_seen`](super::count_if_seen).

use std::sync::atomic::{AtomicU32, AtomicU64, AtomicU8, AtomicUsize, Ordering};

use super::shard::{add_count, Totals};

/// Slots of a thread's [`FastTable`] (a power of two).
const FAST_SLOTS: usize = 64;
/// The kind code of collapses in a [`FastTable`] (instabilities: their index).
pub(super) const FAST_COLLAPSE: u8 = 7;

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
pub(super) struct FastTable {
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
    pub(super) fn new(epoch: u64) -> FastTable {
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
    pub(super) fn bump(&self, epoch: u64, code: u8, addr: usize) -> bool {
        if self.epoch.load(Ordering::Relaxed) != epoch {
            self.restart(epoch);
            return false;
        }
        self.bump_seen(epoch, code, addr)
    }

    /// [`bump`](Self::bump) without its restart after a reset (which is out of line).
    #[inline(always)]
    pub(super) fn bump_seen(&self, epoch: u64, code: u8, addr: usize) -> bool {
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
    pub(super) fn learn(&self, epoch: u64, code: u8, addr: usize, id: u32) {
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
    pub(super) fn add_to(&self, epoch: u64, totals: &mut Totals) {
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
            add_count(sums, s.id.load(Ordering::Relaxed), count);
        }
    }
}
