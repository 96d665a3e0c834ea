//! Instabilities flagged on a GPU: the counts `stoch-gpu` adds, per kernel and kind.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::exit::arm_exit_report;
use super::recorder::{Recorder, RECORDER};
use crate::instability::Instability;

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

impl Recorder {
    /// Adds `count` to the GPU count of `kernel` and `kind`.
    pub(super) fn record_gpu(&self, kernel: &str, kind: Instability, count: u64) {
        *self
            .registry()
            .gpu
            .entry((kernel.to_string(), kind.index()))
            .or_insert(0) += count;
    }
}

/// The GPU section of a snapshot: the registry's counts, by kernel then kind.
pub(super) fn gpu_counts(counts: &BTreeMap<(String, usize), u64>) -> Vec<GpuCount> {
    counts
        .iter()
        .map(|((kernel, k), &count)| GpuCount {
            kernel: kernel.clone(),
            kind: Instability::ALL[*k],
            count,
        })
        .collect()
}
