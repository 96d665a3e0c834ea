//! The entry points of the arithmetic: counting an event (inline when its site is known, out
//! of line otherwise), the hook and the debugger's breakpoint, and [`reset`].

use std::panic::Location;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use super::exit::{arm_exit_report, PRINTED};
use super::lock;
use super::recorder::{FAST, LOCAL, RECORDER};
use super::shard::{addr, Tally};
use crate::config;
use crate::instability::{Event, Instability};
use crate::StochFloat;

type Hook = Arc<dyn Fn(&Event) + Send + Sync>;

/// The hook of [`set_hook`], and whether there is one (read without the lock on every event).
static HOOK: RwLock<Option<Hook>> = RwLock::new(None);
static HAS_HOOK: AtomicBool = AtomicBool::new(false);

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

/// Clears every counter, site and GPU count, of ended and running threads alike, and allows
/// [`finish`](super::finish) to print again (for tests).
pub fn reset() {
    RECORDER.reset();
    INEXACT_PRINTS.store(0, Ordering::Relaxed);
    *lock(&INEXACT_FIRST) = None;
    PRINTED.store(false, Ordering::Relaxed);
}

/// Values printed with more significant digits than they have exact (`{:.p}`, `{:.pe}`).
pub(super) static INEXACT_PRINTS: AtomicU64 = AtomicU64::new(0);
/// The first of them, described for the report.
pub(super) static INEXACT_FIRST: Mutex<Option<String>> = Mutex::new(None);

/// Counts a value printed with digits that are not exact; `describe` says what was printed
/// (called for the first such value only).
pub(crate) fn note_inexact_print(describe: impl FnOnce() -> String) {
    if INEXACT_PRINTS.fetch_add(1, Ordering::Relaxed) == 0 {
        let text = describe();
        lock(&INEXACT_FIRST).get_or_insert(text);
    }
    arm_exit_report();
}
