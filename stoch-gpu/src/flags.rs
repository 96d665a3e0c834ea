//! Device instability flags, counted on the host and merged into the stoch report.

use std::fmt;

use stoch_core::{Instability, StochFloat, Stochastic};

/// How many values carry each instability flag.
///
/// Device flags are sticky per element: a value's flag byte is the OR of every check made in
/// its history (CADNA-GPU's scheme, no device counters). A count is therefore the number of
/// *elements* whose history met that kind, not the number of events.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FlagCounts {
    counts: [u64; 7],
    /// Values looked at.
    pub values: u64,
    /// Values with at least one flag.
    pub flagged: u64,
}

impl FlagCounts {
    /// Count the flags of raw flag bytes.
    #[must_use]
    pub fn from_bytes(bytes: impl IntoIterator<Item = u8>) -> FlagCounts {
        let mut c = FlagCounts::default();
        for b in bytes {
            c.values += 1;
            if b & 0x7F != 0 {
                c.flagged += 1;
            }
            for (i, kind) in Instability::ALL.iter().enumerate() {
                if b & kind.bit() != 0 {
                    c.counts[i] += 1;
                }
            }
        }
        c
    }

    /// Count the flags of stochastic values.
    #[must_use]
    pub fn of<T: StochFloat>(values: &[Stochastic<T>]) -> FlagCounts {
        Self::from_bytes(values.iter().map(|v| v.flags().bits()))
    }

    /// Number of values flagged with `kind`.
    #[must_use]
    pub fn get(&self, kind: Instability) -> u64 {
        Instability::ALL
            .iter()
            .position(|k| *k == kind)
            .map_or(0, |i| self.counts[i])
    }

    /// `(kind, count)` for every kind with a non-zero count.
    pub fn iter(&self) -> impl Iterator<Item = (Instability, u64)> + '_ {
        Instability::ALL
            .iter()
            .zip(self.counts)
            .filter(|(_, c)| *c > 0)
            .map(|(k, c)| (*k, c))
    }

    /// Sum of the counts over all kinds.
    #[must_use]
    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// Whether no value is flagged.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.flagged == 0
    }
}

impl fmt::Display for FlagCounts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            return write!(f, "no flagged value among {}", self.values);
        }
        write!(f, "{} of {} values flagged:", self.flagged, self.values)?;
        for (k, c) in self.iter() {
            write!(f, " {} {c}", k.name())?;
        }
        Ok(())
    }
}

/// Count the flags of `values` (the outputs of `kernel`, downloaded) and add the counts to the
/// GPU section of the stoch report (`stoch_core::record_gpu`). Call it once per result, on the
/// final values: flags are sticky, so recording intermediate results counts them again.
pub fn record_flags<T: StochFloat>(kernel: &str, values: &[Stochastic<T>]) -> FlagCounts {
    let counts = FlagCounts::of(values);
    for (kind, n) in counts.iter() {
        stoch_core::record_gpu(kernel, kind, n);
    }
    counts
}
