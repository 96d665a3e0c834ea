//! The detection state every checked operation reads (the mask and the cancellation factors),
//! and the process's lazy initialisation. The configuration (`crate::config`) writes these; it
//! registers how to read the environment in [`INIT_HOOKS`], so that this module, below it, never
//! calls up into it.

use std::sync::atomic::{AtomicU32, AtomicU8, Ordering};
use std::sync::Once;

/// The bit of the detection mask for accuracy collapses (the kinds' bits are
/// [`Instability::bit`](crate::Instability::bit)).
pub(crate) const COLLAPSE_BIT: u8 = 0x80;

/// The bits of the sum's pre-test that count under detection mask `mask` (`ops::add_pretest`):
/// bit 0 (a possible cancellation) always, bits 1 and 2 (a possible collapse) where collapse
/// detection is on.
#[inline(always)]
pub(crate) const fn add_lanes_for(mask: u8) -> u8 {
    if mask & COLLAPSE_BIT != 0 {
        0b111
    } else {
        0b001
    }
}

/// The detection mask in force.
pub(crate) static DETECT: AtomicU8 = AtomicU8::new(0xff);
/// The cancellation level in force (digits lost).
pub(crate) static CANCEL_LEVEL: AtomicU32 = AtomicU32::new(4);
/// 4·10^(1−level): the sums' cancellation pre-test factor (0.004 at level 4), which
/// `StochFloat::cancel_factor` reads where `runtime::tables` is not built (on x86-64, from
/// there).
#[cfg(not(target_arch = "x86_64"))]
pub(crate) static CANCEL_FACTOR: std::sync::atomic::AtomicU64 =
    std::sync::atomic::AtomicU64::new(0x3F70_624D_D2F1_A9FC);
/// The same rounded to `f32`, for the checks of `f32` sums.
#[cfg(not(target_arch = "x86_64"))]
pub(crate) static CANCEL_FACTOR_F32: AtomicU32 = AtomicU32::new(0x3B83_126F);

/// The factor of the noise pre-tests: a value whose samples `y` and `z` are within `|x|/42` of
/// its sample `x` cannot be numerical noise (see `ops::checks::maybe_noise`).
pub(crate) const SPREAD_FACTOR: f64 = 42.0;

/// The factor of the products' and quotients' pre-test on their operands (`ops::arith`): where
/// the samples `y` and `z` of both operands are within `|x|/84` of their `x`, those of a product
/// or quotient rounded within a unit of the exact one are within `0.0242·|x|` of its `x`
/// (`(1 + 1/84)² − 1` and `(1 + 1/84)/(1 − 1/84) − 1`, and the roundings), below the spread
/// of 0.05·|x| under which `digits::is_noise` answers `false`; and an operand that is noise
/// passes the test at 84 as it passes it at 42.
#[cfg(target_arch = "x86_64")]
pub(crate) const OPERAND_SPREAD: f64 = 2.0 * SPREAD_FACTOR;

static INIT: Once = Once::new();

/// What runs once, before the first operation that reads the state, unless a configuration was
/// applied first: the configuration's reading of the environment.
#[linkme::distributed_slice]
pub(crate) static INIT_HOOKS: [fn()];

/// Runs [`INIT_HOOKS`] once per process: an acquire load when done. The first time, out of
/// line through the trampoline (`runtime::cold`), so that a loop with this test inlined keeps
/// its values in registers.
#[inline(always)]
pub(crate) fn ensure_init() {
    if !INIT.is_completed() {
        super::cold::run((), |_| init_slow());
    }
}

/// Inside `call_once`: other threads wait until the environment's settings are in force before
/// their first operation.
#[cold]
#[inline(never)]
fn init_slow() {
    INIT.call_once(|| {
        for hook in INIT_HOOKS {
            hook();
        }
    });
}

/// Marks the lazy initialisation done (an explicit configuration replaces the environment's),
/// running it first if another thread is inside it.
pub(crate) fn mark_initialised() {
    INIT.call_once(|| {});
}

/// The detection mask in force (the kinds' bits and the collapse bit), read once per operation
/// by the checks of operations that draw random bits first (which runs [`ensure_init`]).
#[inline(always)]
pub(crate) fn mask() -> u8 {
    DETECT.load(Ordering::Relaxed)
}

/// [`mask`] for an operation that may be a program's first without drawing random bits
/// (`fract`, `%`, ...): reads the environment first if nothing has yet.
#[inline(always)]
pub(crate) fn mask_init() -> u8 {
    ensure_init();
    mask()
}

/// Whether detection of `kind` (bit) is on. Reads the environment first if nothing has yet
/// (operations that draw no random bits, such as `abs` or a cast, can be a program's first):
/// after that, one acquire load of the initialisation state and one relaxed load of the mask.
#[inline(always)]
pub(crate) fn on(bit: u8) -> bool {
    mask_init() & bit != 0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sum's pre-test keeps its cancellation bit under every mask, and its collapse bits
    /// exactly where collapses are detected.
    #[test]
    fn add_lanes_follow_the_collapse_bit() {
        for mask in 0..=u8::MAX {
            let lanes = add_lanes_for(mask);
            assert_eq!(lanes & 1, 1, "{mask:#x}");
            assert_eq!(lanes & 0b110 != 0, mask & COLLAPSE_BIT != 0, "{mask:#x}");
            assert_eq!(lanes & !0b111, 0, "{mask:#x}");
        }
    }
}
