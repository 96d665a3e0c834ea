//! One thread's counters (its shard) and the sums over shards: counts per kind and per site
//! number, with the shard's cache from a `Location`'s address to the site's number.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::panic::Location;
use std::sync::Mutex;

use super::exit::arm_exit_report;
use super::lock;
use super::sites::{in_dependency, Tables, Via};

/// The address of a `Location`: the key of a shard's site cache.
pub(super) fn addr(loc: &'static Location<'static>) -> usize {
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
pub(super) const OVERFLOW: u32 = u32::MAX;

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
pub(super) struct Counts {
    /// Per kind, indexed by [`Instability::index`].
    pub(super) kinds: [u64; 7],
    pub(super) overflow_events: u64,
    pub(super) collapse_total: u64,
    pub(super) collapse_overflow: u64,
}

impl Counts {
    pub(super) const ZERO: Counts = Counts {
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
pub(super) struct Totals {
    pub(super) counts: Counts,
    /// Indexed by the number of a site in [`Tables::sites`].
    pub(super) sites: Vec<u64>,
    /// Indexed by the number of a site in [`Tables::collapses`].
    pub(super) collapses: Vec<u64>,
}

impl Totals {
    pub(super) const fn new() -> Totals {
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
        add_count(sums, slot.id, slot.count);
    }
}

/// Adds `count` to `sums[id]`, growing `sums` as needed.
pub(super) fn add_count(sums: &mut Vec<u64>, id: u32, count: u64) {
    let i = id as usize;
    if sums.len() <= i {
        sums.resize(i + 1, 0);
    }
    sums[i] += count;
}

/// What one event counts: an instability of a kind (its index), or an accuracy collapse.
#[derive(Clone, Copy, Debug)]
pub(super) enum Tally {
    Instability(usize),
    Collapse,
}

/// One thread's counters. Aligned to 128 bytes (a pair of cache lines), so the allocation that
/// holds a shard and its lock shares no cache line with other threads' data.
#[repr(align(128))]
#[derive(Default)]
pub(super) struct Shard {
    pub(super) counts: Counts,
    sites: AddrMap,
    collapses: AddrMap,
    /// The bound on sites the cached [`OVERFLOW`] entries were decided with.
    max_sites: usize,
}

impl Shard {
    /// Counts one event at `loc`; takes the lock of `tables` if this shard has not met `loc`.
    pub(super) fn tally(
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
        let numbered = lock(tables).of_kind(key.0).id(key.0, loc, max);
        if let Some((id, true)) = numbered {
            if in_dependency(loc.file()) {
                // Once per site and process: a stack walk of a few microseconds.
                let trace = Box::new(std::backtrace::Backtrace::force_capture());
                lock(tables)
                    .of_kind(key.0)
                    .via
                    .insert(id, Via::Stack(trace));
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
    pub(super) fn add_to(&self, totals: &mut Totals) {
        totals.counts.add(&self.counts);
        add_slots(&self.sites, &mut totals.sites);
        add_slots(&self.collapses, &mut totals.collapses);
    }

    /// Forgets every count and cached site number (the tables are cleared with it).
    pub(super) fn clear(&mut self) {
        self.counts = Counts::ZERO;
        self.sites.clear();
        self.collapses.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
