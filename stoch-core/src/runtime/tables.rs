//! Everything the run-time AVX-512 kernels and their fused pre-tests read, in one static
//! ([`TABLES`]): the direction rows, the pre-tests' constants and factors (which the
//! configuration writes), and the mode byte of the operations.

use core::sync::atomic::{AtomicBool, AtomicU16, AtomicU32, AtomicU64, AtomicU8, Ordering};

/// The constants of the pre-tests fused into the kernels ([`add_pre_f64`] and the others), for
/// `f64` lanes: the mask that clears the sign, the spread factor of the noise pre-test
/// ([`SPREAD_FACTOR`](crate::runtime::state::SPREAD_FACTOR)) in both lanes, then the bounds of the sum's
/// pre-test ([`SumBounds`]), which [`set_factors`] keeps in step with the configuration.
#[repr(C, align(16))]
pub(crate) struct Pre64 {
    abs: [u64; 2],
    spread: [f64; 2],
    /// [`SumBounds::cancel`].
    cancel: AtomicU64,
    /// [`SumBounds::small`].
    small: AtomicU64,
    /// Zero, which the sum's pre-test moves in with a `cmov` (no register to spare for it).
    zero: u64,
    /// Unused: keeps [`Lane3`] and the fields after it where they were (see
    /// [`Tables::sum_spread`]).
    pad: u64,
}

/// The bounds of the `f64` sum's pre-test (`add_test64!`), which compares magnitudes as bit
/// patterns in general registers: the vector pipes are what a checked loop waits on, and the
/// general ones are mostly idle (docs/performance.md).
///
/// For positive normal numbers, `L(x) = bits(x)/2⁵² − 1023` is the exponent plus the fraction,
/// which is at most `log₂ x` and at least `log₂ x − 0.0861` (the largest gap between
/// `log₂(1 + f)` and `f` on `[0, 1]`, 0.08607). A cancellation, `|r₀| < F·m` with
/// `m = max(|a₀|, |b₀|)`, therefore gives `L(m) − L(|r₀|) > −L(F) − 0.1722`: `cancel` is that
/// bound in units of 2⁻⁵², rounded down. The test passes no sum with `|r₀| ≥ 1.2·F·m`
/// (`2^0.2583` covers the three gaps). A sum whose `r₀` is subnormal escapes the bound, which
/// holds for normal numbers only; it needs `m < 2⁻⁹⁶⁷` (the operands of a cancellation are
/// within a factor 2 of each other, and a nonzero `r₀` is a multiple of the smaller one's ulp,
/// at least `2⁻⁵⁴·m`), so every sum with `m` below `small`, `2⁻⁹⁶⁰`, and `|r₀| < m` passes.
pub(crate) struct SumBounds {
    /// The value of `bits(m) − bits(|r₀|)`, as a signed number, above which a sum passes as a
    /// possible cancellation; 2⁶² when cancellation detection is off, which only sums with
    /// `m ≥ 2` and `|r₀| < 2⁻¹⁰⁰⁰` exceed (and the pre-test's arithmetic cannot overflow with a
    /// finite `r₀`, as it would with `i64::MAX`).
    pub(crate) cancel: i64,
    /// The bit pattern of `2⁻⁹⁶⁰` when cancellation detection is on, 0 when off.
    pub(crate) small: u64,
    /// The spread factor of the sum's noise test: [`SPREAD_FACTOR`](crate::runtime::state::SPREAD_FACTOR)
    /// when accuracy collapses are detected, 0 (no sum passes as noise) when not.
    pub(crate) collapse: f64,
}

impl SumBounds {
    /// The bounds for cancellation factor `cancel` (0 when that check is off) and collapse
    /// factor `collapse` (1 when that check is on, 0 when off).
    pub(crate) const fn new(cancel: f64, collapse: f64) -> SumBounds {
        // 0.1722 in units of 2⁻⁵², rounded up.
        const GAP: i64 = 775_519_855_833_300;
        let on = cancel > 0.0;
        SumBounds {
            cancel: if on {
                (1023 << 52) - cancel.to_bits() as i64 - GAP
            } else {
                1 << 62
            },
            small: if on { (1023 - 960) << 52 } else { 0 },
            collapse: if collapse != 0.0 {
                crate::runtime::state::SPREAD_FACTOR
            } else {
                0.0
            },
        }
    }
}

/// The selector of lane 3 for `vpternlogq` (all ones there, zero in lanes 0-2), with which the
/// native `f64` kernels (`native64!`) put the flags lane into a result, then padding. Where the
/// `f32` pre-tests' own constants were, before they computed in `f64` with the constants of
/// [`Pre64`] and [`Sum32`]; its size keeps the fields after it where they were (see
/// [`Tables::sum_spread`]).
#[repr(C, align(16))]
pub(crate) struct Lane3 {
    mask: [u64; 4],
    pad: [u64; 2],
}

/// Everything the kernels and their fused pre-tests read, in one static: a loop keeps one
/// address in a register for all of them (each static is an address of its own, loaded from
/// the global offset table in a position-independent program, and the loops of a build for the
/// default target run short of registers).
#[repr(C, align(64))]
pub(crate) struct Tables {
    /// The lanes that round down, as mask-register bytes, one 32-byte row per direction code
    /// (rows are read at the byte offset the direction word gives,
    /// [`crate::runtime::rng::row_offset`]): byte 0 for samples x, y, z in lanes 0-2 (an `f32`
    /// value, an `f64` value in one register, or the low register of one in two, whose 128-bit
    /// blend reads bits 0 and 1 only), byte 1 for lane z in the high register, byte 2 the
    /// lanes of byte 0 that round up. At offset 0.
    down: [[u8; 32]; 4],
    /// The pre-tests' constants for `f64` (offset [`PRE64`]).
    pre64: Pre64,
    /// The selector of lane 3 (offset [`LANE3`]).
    lane3: Lane3,
    /// The lanes that round down, as lane selectors for `vpternlogq` (offset [`SEL64`]): one
    /// 32-byte row per direction code, read at the same offset as [`Tables::down`], whose four
    /// `u64` lanes are all ones for the samples x, y, z that round down and zero for the others
    /// and for the flags lane (the low register's selector, then the high one's).
    sel64: [[u64; 4]; 4],
    /// What `+`, `*` and `/` run (builds without AVX-512): for operation `op` (0, 1, 2), bit
    /// `2·op` set when the kernels below run with their fused pre-test, bit `2·op + 1` when
    /// they run alone (the operation's checks are off), bits `8 + 2·op` and `9 + 2·op` the same
    /// for the AVX2 kernels (the run-time ones, which `/` runs on the run-time AVX-512 path
    /// too, or those of a build whose target has AVX2 and FMA); no bit of `op` when the
    /// portable path runs ([`mode_bit`]). One word that the operations test first, in place
    /// of the configuration's mask and the paths' flags: one load from an address the loop
    /// keeps anyway, where each flag was a load from the global offset table and another.
    #[cfg_attr(target_feature = "avx512f", allow(dead_code))]
    pub(crate) mode: AtomicU16,
    /// Whether the kernels below are the ones dispatched (builds without AVX-512).
    #[cfg_attr(target_feature = "avx512f", allow(dead_code))]
    pub(crate) on: AtomicBool,
    /// The lanes of the native AVX2 `f32` sum pre-test's mask that count (builds without
    /// AVX-512): `0b111` where collapse detection is on, `0b001` (cancellation only) where it is
    /// off (`runtime::path::add_lanes`). A byte the operation tests against, where choosing
    /// between the two masks from a bit of [`Tables::mode`] took four instructions
    /// (docs/performance.md); the other AVX2 sums take their collapse factors from
    /// [`Tables::sum64`] and [`Tables::sum_spread`] instead, zero where collapses are not
    /// detected. In the padding before [`Tables::sum_spread`].
    #[cfg_attr(target_feature = "avx512f", allow(dead_code))]
    pub(crate) add_lanes: AtomicU8,
    /// [`SumBounds::collapse`] in both lanes (offset [`SUM_SPREAD`]), last so that the other
    /// fields keep their places (their layout moved the `f32` wave's timings).
    sum_spread: Pair64,
    /// The factors of the `f32` sum's pre-test (offset [`SUM32`], see `add_test32!`), after
    /// the other fields for the same reason.
    sum32: Sum32,
    /// The vector constants of the AVX2 kernels and pre-tests ([`vector`]).
    pub(crate) vec64: Vec64,
    /// The cancellation factor in force (`StochFloat::cancel_factor`), as `f64` and as `f32`
    /// bits: the sums' pre-tests read it from the address a loop keeps for the tables, where
    /// a static of its own took a load from the global offset table per sum.
    pub(crate) cancel64: AtomicU64,
    /// See [`Tables::cancel64`].
    pub(crate) cancel32: AtomicU32,
    /// The factors of the AVX2 `f64` sum's pre-test (`ops::pretest`'s `add_pre`), which
    /// multiply `m` once for all four bounds: `F·(1 + 2⁻⁵²)` (`F` the cancellation factor in
    /// force) in lane 0, `1 + 2⁻⁵²` in lanes 1 and 2 where collapses are detected, zero
    /// elsewhere ([`sum_factors`]).
    pub(crate) sum64: [AtomicU64; 4],
}

/// Constants of the AVX2 kernels and pre-tests on four `f64` lanes, read from memory: this
/// static holds atomics, so the compiler cannot fold the constants' values and reads them as
/// operands of the instructions that use them, or from the stack where it keeps them, where a
/// constant it knew was equal in all four lanes took a broadcast of its own, an instruction of
/// the vector pipes, in every operation (docs/performance.md).
#[repr(C, align(32))]
pub(crate) struct Vec64 {
    /// The mask that clears the sign bits.
    pub(crate) abs: [u64; 4],
    /// [`SPREAD_FACTOR`](crate::runtime::state::SPREAD_FACTOR), the noise pre-test's factor.
    pub(crate) spread: [f64; 4],
    /// The bias and the last value inside of the products' range test (`arch::x86::avx2`'s
    /// `outside_range64`).
    pub(crate) range: [[u64; 4]; 2],
    /// The sum's pre-test's spread factors (`ops::pretest`'s AVX2 `add_pre`): +∞ in lane 0,
    /// which makes that lane's distance NaN (`0·∞`), so that `min` takes the lane's bound
    /// from its other operand; the noise pre-test's factor in lanes 1-3.
    pub(crate) sum_spread: [f64; 4],
    /// [`OPERAND_SPREAD`](crate::runtime::state::OPERAND_SPREAD), the factor of the products'
    /// and quotients' pre-test on their operands.
    pub(crate) operand_spread: [f64; 4],
}

/// The bias and the last value inside of the range test of `f64` products `[2⁻⁹⁶⁹, +∞)` on
/// magnitudes' bits (`arch::x86::avx2`'s `outside_range64`): the unsigned range test as a
/// signed one, its bias folded into one addition; a magnitude plus the bias above the second
/// lies outside. `2⁻⁹⁶⁹` by its bits: this module imports nothing from `arch`, whose test
/// checks the bound against `arch::portable::TWO_M969`.
pub(crate) const RANGE64: (u64, u64) = {
    const LO: u64 = (1023 - 969) << 52;
    const HI: u64 = f64::INFINITY.to_bits();
    (
        (1u64 << 63).wrapping_sub(LO),
        (HI.wrapping_sub(LO) ^ (1 << 63)).wrapping_sub(1),
    )
};

/// The factors of [`Tables::sum64`] for cancellation factor `F`, collapses detected or not:
/// `F·(1 + 2⁻⁵²)` in lane 0, then `1 + 2⁻⁵²` in lanes 1 and 2, which put the sum pre-test's `m`
/// a unit or more above itself (see `ops::pretest`'s `add_pre`), in its cancellation bound
/// `F·m` too; zero in lanes 1 and 2 where collapses are not detected, and in lane 3 (the flags
/// lane), whose bounds no magnitude lies below: the test's mask then needs no selection of
/// its lanes.
pub(crate) const fn sum_factors(factor: f64, collapse: bool) -> [f64; 4] {
    let m = 1.0 + f64::EPSILON;
    let c = if collapse { m } else { 0.0 };
    [factor * m, c, c, 0.0]
}

/// [`Tables::sum64`] as a register: one load in assembly, which reads the atomics' bytes as the
/// processor stores them (a plain load of memory that another thread may store to would be a
/// data race).
///
/// # Safety
///
/// The processor must have AVX.
#[cfg(all(
    target_feature = "avx2",
    target_feature = "fma",
    not(all(
        target_feature = "avx512f",
        target_feature = "avx512dq",
        target_feature = "avx512vl"
    ))
))]
// With the feature on the function, not only on the crate: a crate built for another target
// that inlines the callers (a doctest's) calls this one, where it could not compile the
// assembly's `ymm` register.
#[target_feature(enable = "avx")]
#[inline]
pub(crate) unsafe fn sum_factors_vector() -> core::arch::x86_64::__m256d {
    let v: core::arch::x86_64::__m256d;
    // SAFETY: 32 readable bytes; AVX is the caller's contract (and the target's); the load
    // writes only its output register.
    unsafe {
        core::arch::asm!(
            "vmovupd {v}, ymmword ptr [{p} + {at}]",
            v = out(ymm_reg) v,
            // The tables' address, which a loop keeps in a register, and the field's offset.
            p = in(reg) &TABLES,
            at = const core::mem::offset_of!(Tables, sum64),
            options(pure, readonly, nostack, preserves_flags),
        );
    }
    v
}

/// A vector of [`Vec64`] as a register (see there).
///
/// # Safety
///
/// The processor must have AVX.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) unsafe fn vector<T>(c: &'static [T; 4]) -> core::arch::x86_64::__m256d {
    const { assert!(core::mem::size_of::<T>() == 8) };
    // SAFETY: 32 readable bytes (four 8-byte lanes, asserted above), read unaligned; AVX is
    // the caller's contract.
    unsafe { core::arch::x86_64::_mm256_loadu_pd(c.as_ptr().cast()) }
}

/// The constants of the `f32` sum's pre-test (`add_test32!`), which computes in `f64`: the
/// cancellation factor `F` (rounded to `f32` first, as the portable test has it) in lane 0 and
/// the collapse factor `C` (1 when collapses are detected, 0 when not) in lanes 1-3, which
/// multiply `m`; then the mask-register byte of lanes 1 and 2.
#[repr(C, align(32))]
pub(crate) struct Sum32 {
    factors: [AtomicU64; 4],
    lanes: u8,
}

impl Sum32 {
    const fn new(cancel: f64, collapse: f64) -> Sum32 {
        let (f, c) = ((cancel as f32 as f64).to_bits(), collapse.to_bits());
        Sum32 {
            factors: [
                AtomicU64::new(f),
                AtomicU64::new(c),
                AtomicU64::new(c),
                AtomicU64::new(c),
            ],
            lanes: 0b0110,
        }
    }
}

/// Two `f64` lanes of one 16-byte memory operand, aligned so that it does not cross a cache
/// line.
#[repr(C, align(16))]
pub(crate) struct Pair64([AtomicU64; 2]);

/// Where the assembly below reads the `f64` pre-test constants in [`Tables`].
pub(crate) const PRE64: usize = 128;
/// Where the native `f64` kernels read the selector of lane 3.
pub(crate) const LANE3: usize = 192;
/// Where the `f64` kernels read their lane selectors.
pub(crate) const SEL64: usize = 240;
/// Where the `f64` sum's pre-test reads its spread factor.
pub(crate) const SUM_SPREAD: usize = 384;
/// Where the `f32` sum's pre-test reads its factors, and its lane byte 32 bytes further.
pub(crate) const SUM32: usize = 416;

const _: () = {
    assert!(core::mem::offset_of!(Tables, pre64) == PRE64);
    assert!(core::mem::offset_of!(Tables, sel64) - core::mem::offset_of!(Tables, lane3) == 48);
    assert!(core::mem::offset_of!(Tables, lane3) == LANE3);
    assert!(core::mem::offset_of!(Tables, sel64) == SEL64);
    assert!(core::mem::offset_of!(Pre64, spread) == 16);
    assert!(core::mem::offset_of!(Pre64, cancel) == 32);
    assert!(core::mem::offset_of!(Pre64, small) == 40);
    assert!(core::mem::offset_of!(Pre64, zero) == 48);
    assert!(core::mem::offset_of!(Tables, sum_spread) == SUM_SPREAD);
    assert!(core::mem::offset_of!(Tables, sum32) == SUM32);
    assert!(core::mem::offset_of!(Sum32, lanes) == 32);
};

/// The tables, with the pre-tests' factors of the default configuration (cancellation at
/// level 4, collapse on) until [`set_factors`].
pub(crate) static TABLES: Tables = Tables::new(DEFAULT_FACTORS.0, DEFAULT_FACTORS.1);

/// The row of [`Tables::down`] for direction code `code` (bit 0 rounds `x` down, bit 1 `y`,
/// and `z` goes the other way from `y`: the rounding module's convention).
const fn down_row(code: u8) -> [u8; 32] {
    let mut row = [0u8; 32];
    row[0] = crate::runtime::rng::down_lanes(code as u32);
    row[1] = row[0] >> 2;
    row[2] = row[0] ^ 0b111;
    row
}

/// The row of [`Tables::sel64`] for direction code `code`.
const fn sel_row(code: u8) -> [u64; 4] {
    let down = crate::runtime::rng::down_lanes(code as u32);
    let mut row = [0u64; 4];
    let mut lane = 0;
    while lane < 3 {
        if down >> lane & 1 != 0 {
            row[lane] = u64::MAX;
        }
        lane += 1;
    }
    row
}

/// The pre-tests' factors for the default configuration: cancellation at level 4 (the factor
/// `Config::apply` computes), accuracy collapses detected.
pub(crate) const DEFAULT_FACTORS: (f64, f64) = (0.004, 1.0);

impl Tables {
    /// The tables with cancellation factor `cancel` and collapse factor `collapse` (see
    /// [`Pre64`]).
    pub(crate) const fn new(cancel: f64, collapse: f64) -> Tables {
        let sum = SumBounds::new(cancel, collapse);
        Tables {
            down: [down_row(0), down_row(1), down_row(2), down_row(3)],
            pre64: Pre64 {
                abs: [i64::MAX as u64; 2],
                spread: [crate::runtime::state::SPREAD_FACTOR; 2],
                cancel: AtomicU64::new(sum.cancel as u64),
                small: AtomicU64::new(sum.small),
                zero: 0,
                pad: 0,
            },
            lane3: Lane3 {
                mask: [0, 0, 0, u64::MAX],
                pad: [0; 2],
            },
            sel64: [sel_row(0), sel_row(1), sel_row(2), sel_row(3)],
            mode: AtomicU16::new(0),
            on: AtomicBool::new(false),
            add_lanes: AtomicU8::new(0b111),
            sum_spread: Pair64([
                AtomicU64::new(sum.collapse.to_bits()),
                AtomicU64::new(sum.collapse.to_bits()),
            ]),
            sum32: Sum32::new(cancel, collapse),
            vec64: Vec64 {
                abs: [i64::MAX as u64; 4],
                spread: [crate::runtime::state::SPREAD_FACTOR; 4],
                range: [[RANGE64.0; 4], [RANGE64.1; 4]],
                sum_spread: [
                    f64::INFINITY,
                    crate::runtime::state::SPREAD_FACTOR,
                    crate::runtime::state::SPREAD_FACTOR,
                    crate::runtime::state::SPREAD_FACTOR,
                ],
                operand_spread: [crate::runtime::state::OPERAND_SPREAD; 4],
            },
            cancel64: AtomicU64::new(cancel.to_bits()),
            cancel32: AtomicU32::new((cancel as f32).to_bits()),
            sum64: {
                let [f, c1, c2, z] = sum_factors(cancel, collapse != 0.0);
                [
                    AtomicU64::new(f.to_bits()),
                    AtomicU64::new(c1.to_bits()),
                    AtomicU64::new(c2.to_bits()),
                    AtomicU64::new(z.to_bits()),
                ]
            },
        }
    }
}

/// Sets the factors of the fused pre-tests: `factor` the cancellation factor in force, `on`
/// whether cancellations are detected, `collapse` whether accuracy collapses are.
pub(crate) fn set_factors(factor: f64, on: bool, collapse: bool) {
    TABLES.cancel64.store(factor.to_bits(), Ordering::Relaxed);
    TABLES
        .cancel32
        .store((factor as f32).to_bits(), Ordering::Relaxed);
    for (lane, f) in TABLES.sum64.iter().zip(sum_factors(factor, collapse)) {
        lane.store(f.to_bits(), Ordering::Relaxed);
    }
    let cancel = if on { factor } else { 0.0 };
    let collapse = if collapse { 1.0 } else { 0.0 };
    let sum = SumBounds::new(cancel, collapse);
    TABLES
        .pre64
        .cancel
        .store(sum.cancel as u64, Ordering::Relaxed);
    TABLES.pre64.small.store(sum.small, Ordering::Relaxed);
    for lane in &TABLES.sum_spread.0 {
        lane.store(sum.collapse.to_bits(), Ordering::Relaxed);
    }
    let sum32 = Sum32::new(cancel, collapse);
    for (lane, f) in TABLES.sum32.factors.iter().zip(&sum32.factors) {
        lane.store(f.load(Ordering::Relaxed), Ordering::Relaxed);
    }
}
