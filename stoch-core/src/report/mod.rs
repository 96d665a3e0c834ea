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
//!
//! The files, from the arithmetic's side to the user's: `record` (entry points, hook), `fast`
//! (a thread's lock-free counters), `shard` (a thread's locked counters), `sites` (site tables
//! and names), `recorder` (all threads' counters), `gpu` (GPU counts), `document` (the
//! [`Report`] type and its JSON form), `text` (its text form), `exit` (when it is written).

use std::sync::{Mutex, MutexGuard};

mod document;
mod exit;
mod fast;
mod gpu;
mod record;
mod recorder;
mod shard;
mod sites;
mod text;

pub use document::{report, CollapseSite, Report, Site};
pub(crate) use exit::exit_report_off;
pub use exit::{finish, init, Guard};
pub use gpu::{record_gpu, GpuCount};
pub use record::{clear_hook, reset, set_hook, stoch_instability_breakpoint};
pub(crate) use record::{count_if_seen, note_inexact_print, record, record_collapse};

/// Locks `m`, also when a thread panicked while holding it (the counters stay usable).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
