//! The rounding path this process runs, chosen once, before its first operation: the best one
//! the build and the processor allow, or the one `STOCH_PATH` names when they allow it. The
//! operations read the choice from one flag per run-time path (and, for `+`, `*` and `/` on
//! the run-time AVX-512 path, from the mode byte in [`TABLES`](super::tables::TABLES)).

use core::fmt;
use core::sync::atomic::{AtomicU8, Ordering};

#[cfg(all(target_arch = "x86_64", not(target_feature = "avx512f")))]
use super::tables::TABLES;

/// A random-rounding path.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Path {
    /// Error-free transformations on one sample at a time, on every target.
    Portable,
    /// The four lanes of a value in one AVX2 register, with hardware FMA (x86-64).
    Avx2,
    /// AVX-512 instructions with embedded rounding (x86-64).
    Avx512,
}

impl Path {
    /// Every path, slowest first.
    pub const ALL: [Path; 3] = [Path::Portable, Path::Avx2, Path::Avx512];

    /// The name `STOCH_PATH` takes: `portable`, `avx2` or `avx512`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Path::Portable => "portable",
            Path::Avx2 => "avx2",
            Path::Avx512 => "avx512",
        }
    }
}

impl fmt::Display for Path {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why a path cannot be parsed or run.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PathError {
    /// The name is not one of `portable`, `avx2`, `avx512`.
    #[error("{0:?} is not a rounding path: use portable, avx2 or avx512")]
    Unknown(String),
    /// The processor lacks the instructions the path needs.
    #[error("{path} needs {needs}, which this processor does not have")]
    Processor {
        /// The path asked for.
        path: Path,
        /// The instruction sets it needs.
        needs: &'static str,
    },
    /// The build fixed its path at compile time.
    #[error(
        "this build's target has {compiled} (`-C target-cpu=native` or the like), which fixes the \
         path at compile time; build for the default target (RUSTFLAGS=\"-C target-cpu=x86-64\") \
         to choose {path} at run time"
    )]
    Build {
        /// The path asked for.
        path: Path,
        /// What the build's target has.
        compiled: &'static str,
    },
    /// The path exists on x86-64 only.
    #[error("{0} exists on x86-64 only; this build runs the portable path")]
    Architecture(Path),
}

impl core::str::FromStr for Path {
    type Err = PathError;
    fn from_str(s: &str) -> Result<Path, PathError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "portable" => Ok(Path::Portable),
            "avx2" => Ok(Path::Avx2),
            "avx512" | "avx-512" => Ok(Path::Avx512),
            _ => Err(PathError::Unknown(s.to_string())),
        }
    }
}

/// Whether this build on this processor can run `path`, and if not, why.
pub(crate) fn can_run(path: Path) -> Result<(), PathError> {
    if !cfg!(target_arch = "x86_64") {
        return match path {
            Path::Portable => Ok(()),
            p => Err(PathError::Architecture(p)),
        };
    }
    // The paths a native build compiles in cannot be left at run time: its operators inline
    // that path's kernels, with no test before them.
    if cfg!(target_feature = "avx512f") && path != Path::Avx512 {
        return Err(PathError::Build {
            path,
            compiled: "AVX-512",
        });
    }
    if cfg!(all(target_feature = "avx2", target_feature = "fma")) && path == Path::Portable {
        return Err(PathError::Build {
            path,
            compiled: "AVX2 and FMA",
        });
    }
    match path {
        Path::Avx512 if !avx512_available() => Err(PathError::Processor {
            path,
            needs: "AVX-512F, DQ and VL",
        }),
        Path::Avx2 if !avx2_available() => Err(PathError::Processor {
            path,
            needs: "AVX2 and FMA",
        }),
        _ => Ok(()),
    }
}

/// Whether this processor has AVX-512F, DQ and VL, which every processor with AVX-512F has but
/// the Xeon Phi: the run-time kernels pick lanes with 128-bit `vblendmpd` (VL) and their fused
/// pre-tests take the larger magnitude of two operands with `vrangesd` (DQ).
#[inline]
pub(crate) fn avx512_available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::is_x86_feature_detected!("avx512f")
            && std::is_x86_feature_detected!("avx512dq")
            && std::is_x86_feature_detected!("avx512vl")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Whether this processor has AVX2 and FMA.
#[inline]
pub(crate) fn avx2_available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// The best path this build and processor run.
fn best() -> Path {
    [Path::Avx512, Path::Avx2]
        .into_iter()
        .find(|p| can_run(*p).is_ok())
        .unwrap_or(Path::Portable)
}

/// The path `STOCH_PATH` asks for, or the best one; a value that is refused is named on stderr
/// with the reason and the path kept.
fn choose(var: Option<&str>) -> (Path, Option<String>) {
    let best = best();
    let Some(v) = var.filter(|v| !v.trim().is_empty()) else {
        return (best, None);
    };
    match v.parse::<Path>().and_then(|p| can_run(p).map(|()| p)) {
        Ok(p) => (p, None),
        Err(e) => (best, Some(format!("STOCH_PATH={v}: {e}; keeping {best}"))),
    }
}

/// The path chosen (`Path as u8 + 1`; 0 until chosen).
static CHOSEN: AtomicU8 = AtomicU8::new(0);

/// Chooses the path for this process (once, through [`ensure_detected`]).
fn detect() {
    let var = std::env::var("STOCH_PATH").ok();
    let (path, refused) = choose(var.as_deref());
    if let Some(line) = refused {
        eprintln!("stoch: {line}");
    }
    CHOSEN.store(path as u8 + 1, Ordering::Relaxed);
    #[cfg(all(target_arch = "x86_64", not(target_feature = "avx512f")))]
    {
        TABLES.on.store(path == Path::Avx512, Ordering::Relaxed);
        set_mode();
    }
}

/// The path this process runs.
pub(crate) fn chosen() -> Path {
    ensure_detected();
    match CHOSEN.load(Ordering::Relaxed) {
        3 => Path::Avx512,
        2 => Path::Avx2,
        _ => Path::Portable,
    }
}

/// Whether the operations of a build without AVX2 and FMA call the AVX2 kernels (run time):
/// some bit of [`RT2_BITS`] in [`Tables::mode`]; `/` does on the run-time AVX-512 path too
/// (see [`mode_for`]), and the other operations ask [`on`] first.
#[cfg(all(
    target_arch = "x86_64",
    not(all(target_feature = "avx2", target_feature = "fma"))
))]
#[inline(always)]
pub(crate) fn avx2_on() -> bool {
    mode() & RT2_BITS != 0
}

/// The bit of [`Tables::mode`] for operation `op` (0 `+`, 1 `*`, 2 `/`) on the run-time
/// AVX-512 kernels with its fused pre-test (`fused`) or alone.
#[cfg(all(target_arch = "x86_64", not(target_feature = "avx512f")))]
#[inline(always)]
pub(crate) const fn mode_bit(op: u8, fused: bool) -> u16 {
    1 << (2 * op + if fused { 0 } else { 1 })
}

/// The same on the AVX2 kernels: the run-time ones, or the build's own where its target has
/// AVX2 and FMA.
#[cfg(all(target_arch = "x86_64", not(target_feature = "avx512f")))]
#[inline(always)]
pub(crate) const fn mode_bit2(op: u8, fused: bool) -> u16 {
    mode_bit(op, fused) << 8
}

/// The bits of [`Tables::mode`] that the AVX2 kernels set, one of each operation's two at a
/// time.
#[cfg(all(target_arch = "x86_64", not(target_feature = "avx512f")))]
#[cfg_attr(all(target_feature = "avx2", target_feature = "fma"), allow(dead_code))]
pub(crate) const RT2_BITS: u16 = 0x3f00;

/// [`Tables::add_lanes`]: [`add_lanes_for`](super::state::add_lanes_for) the
/// configuration's detection mask. Read by the `f32` sums of a native AVX2 build; the run-time
/// AVX2 sums read the tables' spread factor instead.
#[cfg(all(
    target_arch = "x86_64",
    target_feature = "avx2",
    target_feature = "fma",
    not(target_feature = "avx512f")
))]
#[inline(always)]
pub(crate) fn add_lanes() -> u32 {
    u32::from(TABLES.add_lanes.load(Ordering::Relaxed))
}

/// Sets what `+`, `*` and `/` run ([`Tables::mode`]) from the configuration's detection mask
/// and the path [`detect`] chose; called by `Config::apply` and [`detect`] after they store
/// theirs. Under a lock, so that whichever call stores last read both values stored: a
/// configuration applied on one thread while another thread's first operation chooses the
/// path cannot leave a byte made from the older of either.
#[cfg(all(target_arch = "x86_64", not(target_feature = "avx512f")))]
pub(crate) fn set_mode() {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _guard = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let avx2 = CHOSEN.load(Ordering::Relaxed) == Path::Avx2 as u8 + 1;
    let mask = super::state::mask();
    let mode = mode_for(TABLES.on.load(Ordering::Relaxed), avx2, mask);
    TABLES
        .add_lanes
        .store(super::state::add_lanes_for(mask), Ordering::Relaxed);
    TABLES.mode.store(mode, Ordering::Relaxed);
}

/// Whether this build has the run-time AVX2 kernels (its target lacks AVX2 and FMA).
#[cfg(all(target_arch = "x86_64", not(target_feature = "avx512f")))]
const RT2_BUILT: bool = !cfg!(all(target_feature = "avx2", target_feature = "fma"));

/// [`Tables::mode`] where the run-time AVX-512 kernels run (`on`), or the AVX2 ones (`avx2`:
/// the run-time ones, or the build's own where its target has AVX2 and FMA), or neither, for detection mask `mask`: `+` is checked when cancellation or
/// collapse detection is on, `*` when multiplication or collapse detection is, `/` when
/// division or collapse detection is. On the run-time AVX-512 path `/` runs the AVX2 kernels
/// (the assembly ones where the build has them; see `crate::arch`'s `fast_op!`).
#[cfg(all(target_arch = "x86_64", not(target_feature = "avx512f")))]
const fn mode_for(on: bool, avx2: bool, mask: u8) -> u16 {
    let mut mode = 0;
    let mut op = 0;
    while op < 3 {
        let checks = wants_checks(op, mask);
        if on && op != 2 {
            mode |= mode_bit(op, checks);
        } else if avx2 || (on && RT2_BUILT) {
            mode |= mode_bit2(op, checks);
        }
        op += 1;
    }
    mode
}

/// Whether operation `op` (0 `+`, 1 `*`, 2 `/`) runs its checks under detection mask `mask`:
/// `+` when cancellation or collapse detection is on, `*` when multiplication or collapse
/// detection is, `/` when division or collapse detection is.
#[cfg(all(target_arch = "x86_64", not(target_feature = "avx512f")))]
#[inline(always)]
pub(crate) const fn wants_checks(op: u8, mask: u8) -> bool {
    use super::state::COLLAPSE_BIT;
    use crate::instability::Instability::{Cancellation, Division, Multiplication};
    let check = match op {
        0 => Cancellation.bit(),
        1 => Multiplication.bit(),
        _ => Division.bit(),
    };
    mask & (check | COLLAPSE_BIT) != 0
}

/// [`Tables::mode`].
#[cfg(all(target_arch = "x86_64", not(target_feature = "avx512f")))]
#[inline(always)]
pub(crate) fn mode() -> u16 {
    TABLES.mode.load(Ordering::Relaxed)
}

/// Runs [`detect`] once per process.
pub(crate) fn ensure_detected() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(detect);
}

/// Whether the operations run the kernels below. The portable path is laid out as the
/// unlikely branch: the kernels then flow straight into the checks that follow them, without a
/// jump over the portable code; where the portable path is the one taken, its few hundred
/// instructions hide the extra jump.
#[cfg(all(target_arch = "x86_64", not(target_feature = "avx512f")))]
#[inline(always)]
pub(crate) fn on() -> bool {
    let on = TABLES.on.load(Ordering::Relaxed);
    if !on {
        portable_is_unlikely();
    }
    on
}

/// Marks the branch that calls it as the unlikely one (see [`on`]).
#[cfg(all(target_arch = "x86_64", not(target_feature = "avx512f")))]
#[cold]
#[inline(always)]
fn portable_is_unlikely() {}

/// For the unit tests of a path's kernels: whether the processor has `path`'s instructions. When
/// it has not, prints that `test` is skipped and why, or, under `STOCH_REQUIRE_AVX512=1` (or
/// `STOCH_REQUIRE_AVX2=1`), fails: a test cannot pass by not running.
#[cfg(test)]
pub(crate) fn processor_runs(path: Path, test: &str) -> bool {
    let (has, var) = match path {
        Path::Portable => return true,
        Path::Avx2 => (avx2_available(), "STOCH_REQUIRE_AVX2"),
        Path::Avx512 => (avx512_available(), "STOCH_REQUIRE_AVX512"),
    };
    if !has {
        assert!(
            std::env::var(var).map_or(true, |v| v != "1"),
            "{test}: {var}=1 but this processor cannot run the {path} path"
        );
        eprintln!("skipped {test}: this processor cannot run the {path} path");
    }
    has
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The word that `+`, `*` and `/` test first says the path and the checks that the mask
    /// asks for.
    #[cfg(all(target_arch = "x86_64", not(target_feature = "avx512f")))]
    #[test]
    fn mode_follows_the_path_and_the_mask() {
        use crate::instability::Instability::*;
        use crate::runtime::state::COLLAPSE_BIT;
        for avx2 in [false, true] {
            // The AVX-512 kernels' bits, or the AVX2 ones' where `avx2`; `/` on the AVX-512
            // path: the AVX2 assembly kernels' bits where the build has them, else none.
            let bit = |op, fused| {
                if avx2 || (op == 2 && RT2_BUILT) {
                    mode_bit2(op, fused)
                } else if op == 2 {
                    0
                } else {
                    mode_bit(op, fused)
                }
            };
            let (fused, alone) = (|op| bit(op, true), |op| bit(op, false));
            let mode = |mask: u8| mode_for(!avx2, avx2, mask);
            assert_eq!(mode(0), alone(0) | alone(1) | alone(2));
            assert_eq!(mode(0xff), fused(0) | fused(1) | fused(2));
            assert_eq!(mode(COLLAPSE_BIT), fused(0) | fused(1) | fused(2));
            let others =
                !(Cancellation.bit() | Multiplication.bit() | Division.bit() | COLLAPSE_BIT);
            assert_eq!(mode(others), alone(0) | alone(1) | alone(2));
            assert_eq!(mode(Cancellation.bit()), fused(0) | alone(1) | alone(2));
            assert_eq!(mode(Multiplication.bit()), alone(0) | fused(1) | alone(2));
            assert_eq!(mode(Division.bit()), alone(0) | alone(1) | fused(2));
            assert_eq!(avx2 || RT2_BUILT, mode(0) & RT2_BITS != 0);
        }
        assert_eq!(mode_for(false, false, 0xff), 0);
        assert_eq!(mode_for(false, false, 0), 0);
        // Twelve distinct bits.
        let all = (0..3).fold(0u16, |m, op| {
            m | mode_bit(op, true)
                | mode_bit(op, false)
                | mode_bit2(op, true)
                | mode_bit2(op, false)
        });
        assert_eq!(all.count_ones(), 12);
        assert_eq!(all & RT2_BITS, RT2_BITS);
    }

    #[test]
    fn stoch_path_values() {
        for (v, p) in [
            ("portable", Path::Portable),
            (" AVX2 ", Path::Avx2),
            ("avx512", Path::Avx512),
        ] {
            assert_eq!(v.parse::<Path>(), Ok(p), "{v:?}");
        }
        let e = "fast".parse::<Path>().unwrap_err().to_string();
        assert!(
            e.contains("\"fast\"") && e.contains("portable, avx2 or avx512"),
            "{e}"
        );
    }

    /// No variable, or an empty one, gives the best path; a path this build and processor run
    /// is taken; any other is refused with its reason and the best path kept.
    #[test]
    fn stoch_path_is_taken_or_refused_with_the_reason() {
        let best = best();
        assert_eq!(choose(None), (best, None));
        assert_eq!(choose(Some("  ")), (best, None));
        for p in Path::ALL {
            let (got, refused) = choose(Some(p.name()));
            match can_run(p) {
                Ok(()) => assert_eq!((got, refused), (p, None)),
                Err(e) => {
                    assert_eq!(got, best);
                    let line = refused.expect("refused");
                    assert!(
                        line.contains(&e.to_string()) && line.contains(best.name()),
                        "{line}"
                    );
                }
            }
        }
        let (got, refused) = choose(Some("sse9"));
        assert_eq!(got, best);
        assert!(refused.unwrap().contains("not a rounding path"));
        // The portable path runs wherever the build does not fix another.
        assert_eq!(
            can_run(Path::Portable).is_ok(),
            !cfg!(all(
                target_arch = "x86_64",
                target_feature = "avx2",
                target_feature = "fma"
            ))
        );
    }
}
