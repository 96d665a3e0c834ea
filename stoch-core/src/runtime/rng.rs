//! Random bits for random rounding: one xoshiro256++ generator per thread, drawn 64 bits at a time.
//!
//! Each thread's generator is seeded from the configured seed (default fixed, so a run repeats
//! exactly; `STOCH_SEED` or [`Config::seed`](crate::Config::seed) change it) and the thread's
//! index, a number given to threads in the order they first draw random bits (the first thread
//! is 0). A run with the same seed and the same thread creation order repeats bit for bit.

use core::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};

use rand_core::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// The default seed: runs repeat exactly unless a seed is configured.
pub const DEFAULT_SEED: u64 = 0x005E_ED0F_DA5A_C0DE;

pub(crate) static SEED: AtomicU64 = AtomicU64::new(DEFAULT_SEED);
static NEXT_THREAD: AtomicU64 = AtomicU64::new(0);
/// Bumped by [`seed`]: threads compare it with the epoch their generator was seeded in.
static EPOCH: AtomicU64 = AtomicU64::new(0);

struct State {
    rng: Cell<Option<Xoshiro256PlusPlus>>,
    /// The next direction pairs, in place from bit `DIR_SHIFT` up, below a marker bit (see
    /// [`dir2`]).
    bits: Cell<u64>,
    /// Bits drawn from the generator and not yet moved into `bits`, the next lowest.
    spare: Cell<u128>,
    /// How many of `spare`'s bits are valid.
    spare_len: Cell<u32>,
    index: Cell<u64>,
    /// Epoch of the seed the generator was drawn from.
    epoch: Cell<u64>,
}

thread_local! {
    static STATE: State = const {
        State {
            rng: Cell::new(None),
            bits: Cell::new(0),
            spare: Cell::new(0),
            spare_len: Cell::new(0),
            index: Cell::new(u64::MAX),
            epoch: Cell::new(0),
        }
    };
}

fn stream_seed(seed: u64, index: u64) -> u64 {
    // SplitMix64 finaliser of (seed, index): distinct, well-mixed per-thread seeds.
    let mut z = seed ^ index.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Seeds this thread's generator from the configured seed and the thread's index, and draws.
#[cold]
#[inline(never)]
fn reseed_next(st: &State, epoch: u64) -> u64 {
    crate::runtime::state::ensure_init();
    // Every operation draws random bits before it rounds, so the rounding path is chosen
    // before the first operation of every thread.
    #[cfg(all(target_arch = "x86_64", not(target_feature = "avx512f")))]
    crate::runtime::path::ensure_detected();
    if st.index.get() == u64::MAX {
        st.index.set(NEXT_THREAD.fetch_add(1, Ordering::Relaxed));
    }
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(stream_seed(
        SEED.load(Ordering::Relaxed),
        st.index.get(),
    ));
    st.epoch.set(EPOCH.load(Ordering::Acquire).max(epoch));
    // Bits left from the previous stream are not used.
    st.spare.set(0);
    st.spare_len.set(0);
    let x = rng.next_u64();
    st.rng.set(Some(rng));
    x
}

/// The next 64 random bits of this thread's generator.
#[inline(always)]
fn next(st: &State) -> u64 {
    let epoch = EPOCH.load(Ordering::Relaxed);
    match st.rng.take() {
        Some(mut rng) if st.epoch.get() == epoch => {
            let x = rng.next_u64();
            st.rng.set(Some(rng));
            x
        }
        // Out of line without clobbering the caller's registers (see `cold`).
        _ => crate::runtime::cold::run((st, epoch), |c| reseed_next(c.0, c.1)),
    }
}

/// Direction pairs per word: bits `DIR_SHIFT` to 62, the marker at 63.
const PAIRS: u32 = (63 - DIR_SHIFT) / 2;

/// A word below this has no pair left at bit `DIR_SHIFT` (the marker is at or below it).
const REFILL_BELOW: u64 = 1 << (DIR_SHIFT + 2);

/// The next word of direction pairs: the next `2·PAIRS` bits of the generator's stream in place
/// from bit `DIR_SHIFT`, the marker bit above them. Pairs come out in the stream's order, two bits
/// at a time from bit 0 of each 64-bit draw, so that a seed gives the same directions whatever
/// the word's size (the stream as it was when each operation used bits 0 and 1 of the word).
#[inline(always)]
fn refill(st: &State) -> u64 {
    const TAKE: u32 = 2 * PAIRS;
    if st.spare_len.get() < TAKE {
        let x = next(st); // a reseed empties `spare`: read it after
        let len = st.spare_len.get();
        st.spare.set(st.spare.get() | (u128::from(x) << len));
        st.spare_len.set(len + 64);
    }
    let spare = st.spare.get();
    st.spare.set(spare >> TAKE);
    st.spare_len.set(st.spare_len.get() - TAKE);
    ((spare as u64 & ((1 << TAKE) - 1)) << DIR_SHIFT) | (1 << 63)
}

/// Marks the branch that calls it as the unlikely one (a refill every 29 operations), so the
/// compiler lays out the common case as the straight path, without taken jumps.
#[cold]
#[inline(always)]
fn refill_is_rare() {}

/// A direction word for one random rounding: two random bits in place at bit
/// [`DIR_SHIFT`], whatever in the others (the kernels ignore them).
///
/// Everything, the generator's step included, is inline: a call on the hot path would make the
/// compiler keep every live vector register in memory across the loop.
#[inline(always)]
pub(crate) fn dir2() -> u32 {
    // A tiny closure, so that `with` inlines; the state is used through the pointer at once,
    // on this thread, which owns it.
    let st: *const State = STATE.with(|st| st as *const State);
    // SAFETY: the thread-local outlives this call on its own thread, and `State` is only
    // accessed through shared references to `Cell`s.
    let st = unsafe { &*st };
    // One load, one test and one store per operation, and no shift to place the bits: the
    // word moves down two places per operation and the kernels read the pair at `DIR_SHIFT`
    // (as a byte offset into their tables). When the marker bit comes down to the pair, the
    // call takes the next word.
    let b = st.bits.get();
    let b = if b < REFILL_BELOW {
        refill_is_rare();
        refill(st)
    } else {
        b
    };
    st.bits.set(b >> 2);
    b as u32
}

/// Sets the seed of every thread's generator and restarts the calling thread's stream, so that a
/// computation can be replayed. Other threads restart their streams at their next refill
/// (within 58 operations). Thread indices are kept.
///
/// # Examples
///
/// ```
/// use stoch_core::Sf64;
/// stoch_core::seed(42);
/// let a = (Sf64::new(1.0) / Sf64::new(3.0)).samples();
/// stoch_core::seed(42);
/// let b = (Sf64::new(1.0) / Sf64::new(3.0)).samples();
/// assert_eq!(a, b);
/// ```
pub fn seed(seed: u64) {
    crate::runtime::state::ensure_init();
    set_seed(seed);
}

/// [`seed`] without the lazy initialisation (called while applying a configuration).
pub(crate) fn set_seed(seed: u64) {
    SEED.store(seed, Ordering::Relaxed);
    EPOCH.fetch_add(1, Ordering::AcqRel);
    STATE.with(|st| {
        st.bits.set(0);
        st.spare_len.set(0);
        st.spare.set(0);
    });
}

/// The seed in use: [`DEFAULT_SEED`] unless [`seed`], a [`Config`](crate::Config) or
/// `STOCH_SEED` set another.
///
/// ```
/// stoch_core::seed(1234);
/// assert_eq!(stoch_core::current_seed(), 1234);
/// ```
pub fn current_seed() -> u64 {
    SEED.load(Ordering::Relaxed)
}

/// A uniform number in `[−1, 1]` from the thread's generator (data uncertainty).
pub(crate) fn uniform_pm1() -> f64 {
    let x = STATE.with(next);
    (x >> 11) as f64 * (2.0 / (1u64 << 53) as f64) - 1.0
}

/// Where the two random bits of a direction word lie. A `dir` argument of the kernels rounds
/// sample `x` down when its bit `DIR_SHIFT` is set and `y` down when bit `DIR_SHIFT + 1` is,
/// `z` the opposite way of `y`; its other bits are ignored. The generator hands out its bits in
/// place (`dir & DIR_MASK`), which is the byte offset of the row to read in a table of four
/// 32-byte rows: no shift on the hot path.
#[doc(hidden)]
pub const DIR_SHIFT: u32 = 5;

/// The two random bits of a direction word, in place.
#[doc(hidden)]
pub const DIR_MASK: u32 = 3 << DIR_SHIFT;

/// The direction code (0 to 3: bit 0 for `x`, bit 1 for `y`) of a direction word.
#[doc(hidden)]
#[inline(always)]
pub const fn dir_code(dir: u32) -> u32 {
    (dir >> DIR_SHIFT) & 3
}

/// The direction word of a direction code (0 to 3: bit 0 rounds `x` down, bit 1 `y`).
#[doc(hidden)]
#[inline(always)]
pub const fn dir_word(code: u32) -> u32 {
    (code & 3) << DIR_SHIFT
}

/// The byte offset of the row that the direction word `dir` picks in a table of four 32-byte
/// rows: its random bits in place.
#[inline(always)]
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(crate) const fn row_offset(dir: u32) -> usize {
    (dir & DIR_MASK) as usize
}

/// The samples that round down for direction code `code` (0 to 3), as mask-register bits:
/// bit 0 `x`, bit 1 `y`, bit 2 `z` (the same convention as [`directions`]).
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(crate) const fn down_lanes(code: u32) -> u8 {
    let (x, y) = ((code & 1) as u8, ((code >> 1) & 1) as u8);
    x | y << 1 | (1 - y) << 2
}

/// The direction of each of the three samples for the two random bits `dir`:
/// `[x, y, z]`, `true` meaning "round down".
#[inline(always)]
pub(crate) fn directions(dir: u32) -> [bool; 3] {
    let code = dir_code(dir);
    let y = code & 2 != 0;
    [code & 1 != 0, y, !y]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::rng::dir_code;
    use std::sync::Mutex;

    /// The seed is process-wide: tests that set it run one at a time, or one's `seed` would
    /// restart the other's stream half-way.
    static SEED_LOCK: Mutex<()> = Mutex::new(());

    #[test]
    fn bits_are_balanced_and_replayable() {
        let _lock = SEED_LOCK.lock().unwrap_or_else(|e| e.into_inner());
        seed(7);
        let a: Vec<u32> = (0..10_000).map(|_| dir_code(dir2())).collect();
        seed(7);
        let b: Vec<u32> = (0..10_000).map(|_| dir_code(dir2())).collect();
        assert_eq!(a, b);
        let ones: u32 = a.iter().map(|d| d.count_ones()).sum();
        let frac = ones as f64 / 20_000.0;
        assert!((frac - 0.5).abs() < 0.02, "fraction of ones {frac}");
    }

    /// The direction pairs are the generator's stream two bits at a time from bit 0 of each
    /// draw, whatever the word in which `dir2` keeps them: a seed gives the directions it
    /// always gave.
    #[test]
    fn pairs_follow_the_stream_in_order() {
        let _lock = SEED_LOCK.lock().unwrap_or_else(|e| e.into_inner());
        seed(0x5eed);
        let got: Vec<u32> = (0..1000).map(|_| dir_code(dir2())).collect();
        let index = STATE.with(|st| st.index.get());
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(stream_seed(0x5eed, index));
        let want: Vec<u32> = (0..1000 / 32 + 1)
            .flat_map(|_| {
                let x = rng.next_u64();
                (0..32).map(move |k| ((x >> (2 * k)) & 3) as u32)
            })
            .take(1000)
            .collect();
        assert_eq!(got, want);
        // The other bits of a word are not the pair's: the kernels must mask them.
        let words: Vec<u32> = (0..64).map(|_| dir2()).collect();
        assert!(words
            .iter()
            .any(|w| w & !crate::runtime::rng::DIR_MASK != 0));
    }

    #[test]
    fn threads_get_distinct_streams() {
        let _lock = SEED_LOCK.lock().unwrap_or_else(|e| e.into_inner());
        seed(11);
        let here: Vec<u32> = (0..64).map(|_| dir_code(dir2())).collect();
        let there = std::thread::spawn(|| (0..64).map(|_| dir_code(dir2())).collect::<Vec<u32>>())
            .join()
            .unwrap();
        assert_ne!(here, there);
    }
}
