//! AVX-512 embedded rounding chosen at run time, for builds whose target does not enable
//! AVX-512 (the default `x86-64` target above all).
//!
//! Contract: when the processor has AVX-512F, DQ and VL ([`available`]) and `STOCH_PORTABLE`
//! does not ask for the portable path, the five kernels here (`+`, `*`, `/`, fused multiply-add
//! and square root, `f32` and `f64`) give the same randomly rounded samples as the portable path
//! for the same random bits, through inline assembly that needs no target feature from the
//! compiler and so inlines into the user's loop.
//!
//! - Each kernel rounds every lane up and down with 512-bit instructions into `zmm16`-`zmm31`
//!   and picks the lanes into the compiler's registers with 128-bit instructions (`kernel64!`,
//!   `kernel32_add!`): the upper halves of `zmm0`-`zmm15` stay out of use, which the legacy SSE
//!   code around the kernel needs to run at full speed (tested by
//!   `kernels_leave_the_upper_halves_unused`). The registers used are declared clobbered.
//! - `+`, `−`, `*` and `/` with checks on run their kernel and the checks' pre-test in one block
//!   ([`add_pre_f64`] and the others), leaving one general register for the caller to test;
//!   `f32` pre-tests compute in `f64`, where no `f32` difference is subnormal.
//! - Every constant the kernels read is in one static, [`TABLES`].
//! - The choice is made once per process, when the first thread seeds its generator
//!   ([`detect`]); `+`, `*` and `/` read it, with what the configuration checks, from one byte
//!   ([`mode`]).
//!
//! Why each of these forms, and what the others cost: docs/performance.md, "The run-time
//! AVX-512 path".

use core::arch::asm;
use core::arch::x86_64::{__m128, __m128d};
use core::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};

use crate::rounding::row_offset;

/// Whether this processor has AVX-512F, DQ and VL, which every processor with AVX-512F has but
/// the Xeon Phi: the kernels below may run (they pick lanes with 128-bit `vblendmpd`, from
/// AVX-512VL, and the pre-tests fused into them take the larger magnitude of two operands with
/// `vrangesd`, from AVX-512DQ).
#[inline]
pub(crate) fn available() -> bool {
    std::is_x86_feature_detected!("avx512f")
        && std::is_x86_feature_detected!("avx512dq")
        && std::is_x86_feature_detected!("avx512vl")
}

/// Chooses the path for this process (once, through [`ensure_detected`]): the kernels below
/// when the processor has AVX-512F and `STOCH_PORTABLE` does not ask for the portable path.
#[cfg(not(target_feature = "avx512f"))]
fn detect() {
    TABLES
        .on
        .store(available() && !portable_requested(), Ordering::Relaxed);
    set_mode();
}

/// The bit of [`Tables::mode`] for operation `op` (0 `+`, 1 `*`, 2 `/`) with its fused
/// pre-test (`fused`) or alone.
#[cfg(not(target_feature = "avx512f"))]
#[inline(always)]
pub(crate) const fn mode_bit(op: u8, fused: bool) -> u8 {
    1 << (2 * op + if fused { 0 } else { 1 })
}

/// Sets what `+`, `*` and `/` run ([`Tables::mode`]) from the configuration's detection mask
/// and the path [`detect`] chose; called by `Config::apply` and [`detect`] after they store
/// theirs. Under a lock, so that whichever call stores last read both values stored: a
/// configuration applied on one thread while another thread's first operation chooses the
/// path cannot leave a byte made from the older of either.
#[cfg(not(target_feature = "avx512f"))]
pub(crate) fn set_mode() {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _guard = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let mode = mode_for(TABLES.on.load(Ordering::Relaxed), crate::config::mask());
    TABLES.mode.store(mode, Ordering::Relaxed);
}

/// [`Tables::mode`] where this path runs (`on`) or not, for detection mask `mask`: `+` is
/// checked when cancellation or collapse detection is on, `*` when multiplication or collapse
/// detection is, `/` when division or collapse detection is.
#[cfg(not(target_feature = "avx512f"))]
const fn mode_for(on: bool, mask: u8) -> u8 {
    use crate::config::COLLAPSE_BIT;
    use crate::instability::Instability::{Cancellation, Division, Multiplication};
    if !on {
        return 0;
    }
    let checks = [Cancellation.bit(), Multiplication.bit(), Division.bit()];
    let mut mode = 0;
    let mut op = 0;
    while op < 3 {
        mode |= mode_bit(op as u8, mask & (checks[op] | COLLAPSE_BIT) != 0);
        op += 1;
    }
    mode
}

/// [`Tables::mode`].
#[cfg(not(target_feature = "avx512f"))]
#[inline(always)]
pub(crate) fn mode() -> u8 {
    TABLES.mode.load(Ordering::Relaxed)
}

/// Whether `STOCH_PORTABLE` asks for the portable path (see [`parse_portable`]); a value it
/// does not accept is named on stderr and changes nothing.
#[cfg_attr(target_feature = "avx512f", allow(dead_code))]
fn portable_requested() -> bool {
    let Some(v) = std::env::var_os("STOCH_PORTABLE") else {
        return false;
    };
    parse_portable(&v.to_string_lossy()).unwrap_or_else(|e| {
        eprintln!("stoch: {e}");
        false
    })
}

/// A value of `STOCH_PORTABLE`: `1` (or `true`, `yes`) asks for the portable path, `0` (or
/// `false`, `no`, empty) does not; anything else is an error that says what is accepted.
#[cfg_attr(target_feature = "avx512f", allow(dead_code))]
fn parse_portable(v: &str) -> Result<bool, String> {
    match v.trim() {
        "1" | "true" | "yes" => Ok(true),
        "0" | "false" | "no" | "" => Ok(false),
        other => Err(format!(
            "STOCH_PORTABLE={other:?} is not 1 or 0; the run-time AVX-512 path is kept \
             (set STOCH_PORTABLE=1 for the portable path)"
        )),
    }
}

/// Runs [`detect`] once per process.
#[cfg(not(target_feature = "avx512f"))]
pub(crate) fn ensure_detected() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(detect);
}

/// Whether the operations run the kernels below. The portable path is laid out as the
/// unlikely branch: the kernels then flow straight into the checks that follow them, without a
/// jump over the portable code; where the portable path is the one taken, its few hundred
/// instructions hide the extra jump.
#[cfg(not(target_feature = "avx512f"))]
#[inline(always)]
pub(crate) fn on() -> bool {
    let on = TABLES.on.load(Ordering::Relaxed);
    if !on {
        portable_is_unlikely();
    }
    on
}

/// Marks the branch that calls it as the unlikely one (see [`on`]).
#[cfg(not(target_feature = "avx512f"))]
#[cold]
#[inline(always)]
fn portable_is_unlikely() {}

/// Lanes x, y and z, flags of an `f64` value as two registers.
#[inline(always)]
fn split64(a: [f64; 4]) -> (__m128d, __m128d) {
    // SAFETY: [f64; 4] and [__m128d; 2] are 32 bytes of plain data, in order (an array's
    // layout is defined; a tuple's is not, hence the array).
    let [lo, hi] = unsafe { core::mem::transmute::<[f64; 4], [__m128d; 2]>(a) };
    (lo, hi)
}

/// The inverse of [`split64`].
#[inline(always)]
fn join64(lo: __m128d, hi: __m128d) -> [f64; 4] {
    // SAFETY: as in `split64`.
    unsafe { core::mem::transmute::<[__m128d; 2], [f64; 4]>([lo, hi]) }
}

/// The lanes of an `f32` value as one register.
#[inline(always)]
fn v32(a: [f32; 4]) -> __m128 {
    // SAFETY: 16 bytes of plain data.
    unsafe { core::mem::transmute::<[f32; 4], __m128>(a) }
}

/// The inverse of [`v32`].
#[inline(always)]
fn a32(v: __m128) -> [f32; 4] {
    // SAFETY: 16 bytes of plain data.
    unsafe { core::mem::transmute::<__m128, [f32; 4]>(v) }
}

/// The constants of the pre-tests fused into the kernels ([`add_pre_f64`] and the others), for
/// `f64` lanes: the mask that clears the sign, the spread factor of the noise pre-test
/// ([`SPREAD_FACTOR`](crate::ops::SPREAD_FACTOR)) in both lanes, then the bounds of the sum's
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
/// general ones are mostly idle (measured in docs/performance.md).
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
    /// The spread factor of the sum's noise test: [`SPREAD_FACTOR`](crate::ops::SPREAD_FACTOR)
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
                crate::ops::SPREAD_FACTOR
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
    /// [`crate::rounding::row_offset`]): byte 0 for samples x, y, z in lanes 0-2 (an `f32`
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
    /// they run alone (the operation's checks are off); neither when the portable path runs
    /// ([`mode_bit`]). One byte that the operations test first, in place of the configuration's
    /// mask and [`Tables::on`]: one load and one branch instead of two of each, and one address
    /// fewer for the loop to keep.
    #[cfg_attr(target_feature = "avx512f", allow(dead_code))]
    mode: AtomicU8,
    /// Whether the kernels below are the ones dispatched (builds without AVX-512).
    #[cfg_attr(target_feature = "avx512f", allow(dead_code))]
    on: AtomicBool,
    /// [`SumBounds::collapse`] in both lanes (offset [`SUM_SPREAD`]), last so that the other
    /// fields keep their places (their layout moved the `f32` wave's timings).
    sum_spread: Pair64,
    /// The factors of the `f32` sum's pre-test (offset [`SUM32`], see `add_test32!`), after
    /// the other fields for the same reason.
    sum32: Sum32,
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
const PRE64: usize = 128;
/// Where the native `f64` kernels read the selector of lane 3.
const LANE3: usize = 192;
/// Where the `f64` kernels read their lane selectors.
const SEL64: usize = 240;
/// Where the `f64` sum's pre-test reads its spread factor.
const SUM_SPREAD: usize = 384;
/// Where the `f32` sum's pre-test reads its factors, and its lane byte 32 bytes further.
const SUM32: usize = 416;

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
    row[0] = crate::rounding::down_lanes(code as u32);
    row[1] = row[0] >> 2;
    row[2] = row[0] ^ 0b111;
    row
}

/// The row of [`Tables::sel64`] for direction code `code`.
const fn sel_row(code: u8) -> [u64; 4] {
    let down = crate::rounding::down_lanes(code as u32);
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
                spread: [crate::ops::SPREAD_FACTOR; 2],
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
            mode: AtomicU8::new(0),
            on: AtomicBool::new(false),
            sum_spread: Pair64([
                AtomicU64::new(sum.collapse.to_bits()),
                AtomicU64::new(sum.collapse.to_bits()),
            ]),
            sum32: Sum32::new(cancel, collapse),
        }
    }
}

/// Sets the factors of the fused pre-tests: `cancel` the cancellation factor in force
/// (`None` when cancellation detection is off), `collapse` whether accuracy collapses are
/// detected.
pub(crate) fn set_factors(cancel: Option<f64>, collapse: bool) {
    let cancel = cancel.unwrap_or(0.0);
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

/// The instructions of a kernel on f64 lanes: `op` (`vaddpd`, `vmulpd`) rounded up and
/// rounded down, on the low registers (samples x, y) and on the high ones (sample z, flags),
/// each a 512-bit instruction with embedded rounding into `zmm16`-`zmm19`; then one
/// `vpternlogq` per register picks the downward lanes, bit by bit, under the selector row of
/// [`Tables::sel64`] for the direction, read as a memory operand, into the result registers
/// `{lo}` and `{hi}`. Lane 1 of `{hi}` is the OR of the operands' flags lanes. The operands are
/// read only, so the compiler keeps them where they are for the checks that follow, without
/// copies.
///
/// The selector is read from memory where the quotient's and the other kernels' mask registers
/// (`kmovb k1, [..]` and `vblendmpd`) take an instruction of their own: a mask register load
/// occupies the vector pipes, which the loop of a checked sum of products is short of.
macro_rules! kernel64 {
    ($insn:literal) => {
        concat!(
            $insn,
            " zmm16, {a:z}, {b:z}, {{ru-sae}}\n",
            $insn,
            " zmm17, {a:z}, {b:z}, {{rd-sae}}\n",
            $insn,
            " zmm18, {ahi:z}, {bhi:z}, {{ru-sae}}\n",
            $insn,
            " zmm19, {ahi:z}, {bhi:z}, {{rd-sae}}\n",
            "vorpd {f}, {ahi}, {bhi}\n",
            "vmovapd {lo}, xmm16\n",
            "vpternlogq {lo}, xmm17, xmmword ptr [{tab} + {off} + {sel}], 0xd8\n",
            "vmovapd {hi}, xmm18\n",
            "vpternlogq {hi}, xmm19, xmmword ptr [{tab} + {off} + {sel} + 16], 0xd8\n",
            "vblendpd {hi}, {hi}, {f}, 2\n",
        )
    };
}

/// The same for a quotient, whose 512-bit instructions cost more: the operands' two registers
/// are joined in `zmm18` and `zmm19` first, for one division each way instead of two.
macro_rules! kernel64_joined {
    ($insn:literal) => {
        concat!(
            "kmovb k1, byte ptr [{tab} + {off}]\n",
            "vinsertf64x2 zmm18, {a:z}, {ahi}, 1\n",
            "vinsertf64x2 zmm19, {b:z}, {bhi}, 1\n",
            $insn,
            " zmm16, zmm18, zmm19, {{ru-sae}}\n",
            $insn,
            " zmm17, zmm18, zmm19, {{rd-sae}}\n",
            "vorpd {f}, {ahi}, {bhi}\n",
            "vblendmpd zmm16 {{k1}}, zmm16, zmm17\n",
            "vmovapd {lo}, xmm16\n",
            "vextractf64x2 xmm17, zmm16, 1\n",
            "vmovapd {hi}, xmm17\n",
            "vblendpd {hi}, {hi}, {f}, 2\n",
        )
    };
}

/// The same on f32 lanes: one register, result in `{r}`.
macro_rules! kernel32 {
    ($insn:literal) => {
        concat!(
            "kmovb k1, byte ptr [{tab} + {off}]\n",
            $insn,
            " zmm16, {a:z}, {b:z}, {{ru-sae}}\n",
            $insn,
            " zmm17, {a:z}, {b:z}, {{rd-sae}}\n",
            "vorps {f}, {a}, {b}\n",
            "vblendmps {r} {{k1}}, xmm16, xmm17\n",
            "vblendps {r}, {r}, {f}, 8\n",
        )
    };
}

/// The kernel of an f32 sum, with two instructions between an operand and the result instead
/// of three: the upward lanes rounded up (`k2`) and the downward ones rounded down (`k1`), each
/// zero elsewhere, into `zmm16` and `zmm17`; the OR of the operands in `{r}` (its lane 3 the
/// OR of the flags lanes), whose lanes 0-2 (`k3 = k1 | k2`) one `vpternlogd` then overwrites
/// with the OR of the two sums, in each lane the one rounded the chosen way. A running sum
/// waits on two instructions instead of three. Products and quotients keep the form above, one
/// instruction shorter in all, which their loops measured faster: they rarely hang off a
/// running value (docs/performance.md).
macro_rules! kernel32_add {
    ($insn:literal) => {
        concat!(
            "kmovb k1, byte ptr [{tab} + {off}]\n",
            "kmovb k2, byte ptr [{tab} + {off} + 2]\n",
            "korb k3, k1, k2\n",
            $insn,
            " zmm16 {{k2}} {{z}}, {a:z}, {b:z}, {{ru-sae}}\n",
            $insn,
            " zmm17 {{k1}} {{z}}, {a:z}, {b:z}, {{rd-sae}}\n",
            "vorps {r}, {a}, {b}\n",
            "vpternlogd {r} {{k3}}, xmm16, xmm17, 0xee\n",
        )
    };
}

/// The noise pre-tests of an f64 operand (`$lo`, `$hi`) and of the result (`{lo}`, `{hi}`) at
/// once, into bits 0 (the operand) and 1 (the result) of `{g}`: `[v₀, r₀]` against the larger
/// distance of samples y and z from it, the sign of `|x₀| − 42·max(|x₁ − x₀|, |x₂ − x₀|)` (one
/// `vrangepd` takes the larger magnitude, one fused multiply-add with one rounding compares), in
/// 128-bit registers of the compiler's. The two differ from
/// [`maybe_noise`](crate::ops::maybe_noise)'s answers only where `42·max(..)` rounds to
/// `|x₀|`, or where a sample is not finite (`inf − inf` is a NaN with its sign set): products
/// that overflow take the checks for nothing. Nine instructions and one general register,
/// where the test of `[v₁, v₂, r₁, r₂]` against `[v₀, v₀, r₀, r₀]` in a 256-bit register took
/// ten and a mask register.
macro_rules! noise_max64 {
    ($lo:literal, $hi:literal) => {
        concat!(
            "vunpcklpd {p}, ",
            $lo,
            ", {lo}\n",
            "vunpckhpd {q}, ",
            $lo,
            ", {lo}\n",
            "vunpcklpd {w}, ",
            $hi,
            ", {hi}\n",
            "vsubpd {q}, {q}, {p}\n",
            "vsubpd {w}, {w}, {p}\n",
            "vrangepd {q}, {q}, {w}, 11\n",
            "vandpd {p}, {p}, xmmword ptr [{tab} + {p64}]\n",
            "vfnmadd132pd {q}, {p}, xmmword ptr [{tab} + {p64} + 16]\n",
            "vmovmskpd {g:e}, {q}\n",
        )
    };
}

/// The noise pre-test of an f32 operand `$v` and of the result `{r}` at once, into `{g}`: the
/// samples y and z of both in one register, `[v₁, v₂, r₁, r₂]`, against `[v₀, v₀, r₀, r₀]`
/// (a bit per sample far from its value's `x`, as
/// [`maybe_noise`](crate::ops::maybe_noise)), both widened to `f64` in `ymm20` and `ymm21`.
///
/// In `f64`, since no `f32` value and no difference of two is subnormal there: on Intel
/// processors, an addition whose result is subnormal, or a product with a subnormal operand or
/// result, takes a microcode assist of about 100 cycles. The differences of the samples of a
/// value below about 2⁻¹⁰³ are subnormal, and random rounding keeps values from underflowing
/// to zero, so a decaying field (the `overhead` example's wave) would pay it in every pre-test
/// (docs/performance.md, "Subnormal numbers"). In registers 20 and 21: a write of
/// `ymm0`-`ymm15` would put their upper halves in use, which the legacy-SSE code of a build for
/// the default target pays for at every instruction (`kernels_leave_the_upper_halves_unused`
/// tests it). The comparison goes to a
/// mask register, since `vmovmskpd` cannot read registers 16-31.
macro_rules! noise_pair32 {
    ($v:literal) => {
        concat!(
            "vshufps {t}, ",
            $v,
            ", {r}, 0x99\n",
            "vshufps {x}, ",
            $v,
            ", {r}, 0\n",
            "vcvtps2pd ymm20, {t}\n",
            "vcvtps2pd ymm21, {x}\n",
            "vsubpd ymm20, ymm20, ymm21\n",
            "vandpd ymm20, ymm20, qword ptr [{tab} + {p64}]{{1to4}}\n",
            "vmulpd ymm20, ymm20, qword ptr [{tab} + {p64} + 16]{{1to4}}\n",
            "vandpd ymm21, ymm21, qword ptr [{tab} + {p64}]{{1to4}}\n",
            "vcmpltpd k1, ymm21, ymm20\n",
            "kmovb {g:e}, k1\n",
        )
    };
}

/// Random rounding of the three f64 samples (lane 3: OR of the flags lanes), the kernel alone
/// or with a fused pre-test: `$name` returns the result, `$pre` the result and whether the
/// pre-test `$test` (instructions after the kernel `$kernel` that leave their answer in `{g}`)
/// passed, in the bits `$bits`; `$k` are the operands the kernel's text names beyond those of
/// every kernel (its selector's offset, or the mask register it uses). Only where [`available`]
/// says the processor has AVX-512F, DQ and VL.
macro_rules! binop64 {
    (
        $name:ident,
        $pre:ident,
        $kernel:expr,
        [$($k:tt)*],
        $test:expr,
        [$($p:tt)*],
        $bits:expr
    ) => {
        /// Random rounding of the three samples (lane 3: OR of the flags lanes). Only where
        /// [`available`] says the processor has AVX-512F, DQ and VL.
        #[inline(always)]
        pub(crate) fn $name(a: [f64; 4], b: [f64; 4], dir: u32) -> [f64; 4] {
            let ((alo, ahi), (blo, bhi)) = (split64(a), split64(b));
            let (lo, hi): (__m128d, __m128d);
            // SAFETY: the processor has AVX-512F, DQ and VL (callers check `on`/`available`);
            // the assembly reads the tables only and writes its declared operands and clobbers
            // only. `lo` and `hi` are written after the last read of an input (they may share
            // its register).
            unsafe {
                asm!(
                    $kernel,
                    a = in(xmm_reg) alo,
                    ahi = in(xmm_reg) ahi,
                    b = in(xmm_reg) blo,
                    bhi = in(xmm_reg) bhi,
                    lo = lateout(xmm_reg) lo,
                    hi = lateout(xmm_reg) hi,
                    f = out(xmm_reg) _,
                    out("zmm16") _,
                    out("zmm17") _,
                    out("zmm18") _,
                    out("zmm19") _,
                    $($k)*
                    tab = in(reg) &TABLES,
                    off = in(reg) row_offset(dir),
                    options(pure, readonly, nostack, preserves_flags),
                );
            }
            join64(lo, hi)
        }

        /// The kernel and, in the same assembly block, the pre-test of its checks (see
        /// [`crate::ops`]) with the constants of `tab` ([`TABLES`] but in tests): the result,
        /// and whether the pre-test passed (rarely: the caller then takes its slow path). See
        /// the module's documentation for why the pre-test is written here.
        #[inline(always)]
        #[cfg_attr(target_feature = "avx512f", allow(dead_code))]
        pub(crate) fn $pre(a: [f64; 4], b: [f64; 4], dir: u32, tab: &Tables) -> ([f64; 4], bool) {
            let ((alo, ahi), (blo, bhi)) = (split64(a), split64(b));
            let (lo, hi): (__m128d, __m128d);
            let g: u64;
            // SAFETY: as in the kernel alone; the pre-test reads the constant tables (`TABLES`)
            // only. `lo` and `hi` are read after the kernel, with the inputs: they are written
            // early and do not share an input's register.
            unsafe {
                asm!(
                    $kernel,
                    $test,
                    a = in(xmm_reg) alo,
                    ahi = in(xmm_reg) ahi,
                    b = in(xmm_reg) blo,
                    bhi = in(xmm_reg) bhi,
                    lo = out(xmm_reg) lo,
                    hi = out(xmm_reg) hi,
                    f = out(xmm_reg) _,
                    out("zmm16") _,
                    out("zmm17") _,
                    out("zmm18") _,
                    out("zmm19") _,
                    $($k)*
                    g = out(reg) g,
                    $($p)*
                    tab = in(reg) tab,
                    off = in(reg) row_offset(dir),
                    p64 = const PRE64,
                    options(pure, readonly, nostack),
                );
            }
            (join64(lo, hi), g & $bits != 0)
        }
    };
}

/// The same on f32 lanes (one register), with the kernel's own text `$kernel` and the scratch
/// operands it declares, `$k` (the sum's kernel differs from the others').
macro_rules! binop32 {
    (
        $name:ident,
        $pre:ident,
        $kernel:expr,
        [$($k:tt)*],
        $test:expr,
        [$($p:tt)*],
        $bits:literal
    ) => {
        /// Random rounding of the three samples (lane 3: OR of the flags lanes). Only where
        /// [`available`] says the processor has AVX-512F, DQ and VL.
        #[inline(always)]
        pub(crate) fn $name(a: [f32; 4], b: [f32; 4], dir: u32) -> [f32; 4] {
            let r: __m128;
            // SAFETY: as in the f64 kernels.
            unsafe {
                asm!(
                    $kernel,
                    a = in(xmm_reg) v32(a),
                    b = in(xmm_reg) v32(b),
                    r = lateout(xmm_reg) r,
                    out("zmm16") _,
                    out("zmm17") _,
                    out("k1") _,
                    $($k)*
                    tab = in(reg) &TABLES,
                    off = in(reg) row_offset(dir),
                    options(pure, readonly, nostack, preserves_flags),
                );
            }
            a32(r)
        }

        /// The kernel and its pre-test in one assembly block, as for f64.
        #[inline(always)]
        #[cfg_attr(target_feature = "avx512f", allow(dead_code))]
        pub(crate) fn $pre(a: [f32; 4], b: [f32; 4], dir: u32, tab: &Tables) -> ([f32; 4], bool) {
            let r: __m128;
            let g: u32;
            // SAFETY: as in the f64 kernels with their pre-test.
            unsafe {
                asm!(
                    $kernel,
                    $test,
                    a = in(xmm_reg) v32(a),
                    b = in(xmm_reg) v32(b),
                    r = out(xmm_reg) r,
                    t = out(xmm_reg) _,
                    out("zmm16") _,
                    out("zmm17") _,
                    out("k1") _,
                    $($k)*
                    g = lateout(reg) g,
                    $($p)*
                    tab = in(reg) tab,
                    off = in(reg) row_offset(dir),
                    options(pure, readonly, nostack),
                );
            }
            (a32(r), g & $bits != 0)
        }
    };
}

/// The pre-test of a sum `r = a + b` on f64 lanes (see `ops::check_add`), the sign of `{g}`:
/// with `m = max(|a₀|, |b₀|)` and `t = bits(m) − bits(|r₀|)` the difference of their bit
/// patterns, whether `t` exceeds a threshold that is 0 where `r` may be noise (with collapse
/// detection on) or `m` is below [`SumBounds::small`], and [`SumBounds::cancel`] elsewhere: a
/// possible cancellation, or `|r₀| < m` where a collapse (or a cancellation the bound cannot
/// see) is possible. `{g}` is `|r₀| + threshold − m` on the bit patterns, negative when the
/// test passes; it can wrap around to a negative number only where `r₀` is not finite, or where
/// `m ≥ 2` and `|r₀| < 2⁻¹⁰⁰⁰` with cancellation detection off (threshold 2⁶²): sums that then
/// take the checks for nothing. See [`SumBounds`] for the bounds.
///
/// The noise test of `r` stays in a vector register: the sign of `|r₀| − 42·|rᵢ − r₀|`, one
/// fused multiply-add with one rounding, where [`maybe_noise`](crate::ops::maybe_noise)
/// compares the rounded product with `|r₀|` (one instruction less). The two differ only where `42·|rᵢ − r₀|` rounds to `|r₀|`, a spread far
/// below any noise, or where `r₀` is infinite (`inf − inf` is a NaN with its sign set), which
/// `t > 0` excludes. Its factor is [`SumBounds::collapse`], 0 when collapses are not detected:
/// then only a sum with a sample that is not finite can pass as noise (`0·inf` is a NaN with its
/// sign set), and takes the checks for nothing (one instruction less than masking the test's
/// bits).
macro_rules! add_test64 {
    () => {
        concat!(
            "vrangesd {t}, {a}, {b}, 11\n",
            "vshufpd {u}, {lo}, {hi}, 1\n",
            "vmovddup {x}, {lo}\n",
            "vsubpd {u}, {u}, {x}\n",
            "vandpd {u}, {u}, xmmword ptr [{tab} + {p64}]\n",
            "vandpd {y}, {x}, xmmword ptr [{tab} + {p64}]\n",
            "vfnmadd132pd {u}, {y}, xmmword ptr [{tab} + {sum_spread}]\n",
            "vmovmskpd {h:e}, {u}\n",
            "vmovq {m}, {t}\n",
            "vmovq {g}, {y}\n",
            "cmp {m}, qword ptr [{tab} + {p64} + 40]\n",
            "adc {h:e}, 0\n",
            "mov {h}, qword ptr [{tab} + {p64} + 32]\n",
            "cmovnz {h}, qword ptr [{tab} + {p64} + 48]\n",
            "add {g}, {h}\n",
            "sub {g}, {m}\n",
        )
    };
}

/// The same on f32 lanes, in `f64` (see `noise_pair32!` for why, and for why in registers 20
/// to 22), as one comparison of `|r₀|` with three lanes, `[F·m, min(C·m, 42·|r₁ − r₀|),
/// min(C·m, 42·|r₂ − r₀|)]` (`F` and `C` from [`Sum32`]; `vrangepd` takes the smaller
/// magnitude in lanes 1 and 2), into the bits 0-2 of `{g}`: the portable test, `|r₀| < F·m`, or
/// `|r₀| < C·m` and `42·|rᵢ − r₀| > |r₀|`, but that `F·m` and `42·|rᵢ − r₀|` are not rounded to
/// `f32`, and that a sample that is not finite may pass (`0·∞` is a NaN, which `vrangepd`
/// passes over). The native `f64` sum's test (`ops::add_pre64_avx512`) has the same form.
macro_rules! add_test32 {
    () => {
        concat!(
            "vrangess {t}, {a}, {b}, 11\n",
            "vcvtps2pd ymm20, {r}\n",
            "vbroadcastss {t}, {t}\n",
            "vbroadcastsd ymm21, xmm20\n",
            "vsubpd ymm20, ymm20, ymm21\n",
            "vmulpd ymm20, ymm20, qword ptr [{tab} + {p64} + 16]{{1to4}}\n",
            "vcvtps2pd ymm22, {t}\n",
            "vmulpd ymm22, ymm22, ymmword ptr [{tab} + {sum32}]\n",
            "kmovb k3, byte ptr [{tab} + {sum32} + 32]\n",
            "vrangepd ymm22 {{k3}}, ymm22, ymm20, 10\n",
            "vandpd ymm21, ymm21, qword ptr [{tab} + {p64}]{{1to4}}\n",
            "vcmpltpd k3, ymm21, ymm22\n",
            "kmovb {g:e}, k3\n",
        )
    };
}

// The pre-test of a product is the noise pre-test of `a` and of the result, that of a quotient
// the noise pre-test of `b` and of the result (see `ops::check_mul` and `ops::check_div`).
binop64!(
    add_f64,
    add_pre_f64,
    kernel64!("vaddpd"),
    [sel = const SEL64,],
    add_test64!(),
    [
        x = out(xmm_reg) _,
        y = out(xmm_reg) _,
        t = out(xmm_reg) _,
        u = out(xmm_reg) _,
        m = out(reg) _,
        h = out(reg) _,
        sum_spread = const SUM_SPREAD,
    ],
    1 << 63
);
binop64!(
    mul_f64,
    mul_pre_f64,
    kernel64!("vmulpd"),
    [sel = const SEL64,],
    noise_max64!("{a}", "{ahi}"),
    [p = out(xmm_reg) _, q = out(xmm_reg) _, w = out(xmm_reg) _,],
    0b11
);
binop64!(
    div_f64,
    div_pre_f64,
    kernel64_joined!("vdivpd"),
    [out("k1") _,],
    noise_max64!("{b}", "{bhi}"),
    [p = out(xmm_reg) _, q = out(xmm_reg) _, w = out(xmm_reg) _,],
    0b11
);
binop32!(
    add_f32,
    add_pre_f32,
    kernel32_add!("vaddps"),
    [out("k2") _, out("k3") _,],
    add_test32!(),
    [
        p64 = const PRE64,
        sum32 = const SUM32,
        out("zmm20") _,
        out("zmm21") _,
        out("zmm22") _,
    ],
    0b0111
);
binop32!(
    mul_f32,
    mul_pre_f32,
    kernel32!("vmulps"),
    [f = out(xmm_reg) _,],
    noise_pair32!("{a}"),
    [x = out(xmm_reg) _, p64 = const PRE64, out("zmm20") _, out("zmm21") _,],
    0b1111
);
binop32!(
    div_f32,
    div_pre_f32,
    kernel32!("vdivps"),
    [f = out(xmm_reg) _,],
    noise_pair32!("{b}"),
    [x = out(xmm_reg) _, p64 = const PRE64, out("zmm20") _, out("zmm21") _,],
    0b1111
);

/// The noise pre-tests of two `f32` values `v` and `w` alone (`noise_pair32!`, in `f64`), for
/// the checks that run without a kernel of their own here (a product or quotient by a plain
/// number, the math functions' collapse check): a bit per sample far from its value's `x`,
/// `[v₁, v₂, w₁, w₂]` in bits 0-3. The SSE2 form of that test in `f32` took a microcode assist
/// wherever the samples' difference was subnormal, on Intel processors. Only where
/// [`available`] says the processor has AVX-512F, DQ and VL.
#[cfg(not(target_feature = "avx512f"))]
#[inline(always)]
pub(crate) fn noise_f32(v: [f32; 4], w: [f32; 4]) -> u32 {
    let g: u32;
    // SAFETY: the processor has AVX-512F, DQ and VL (callers check `on`); the assembly reads
    // the tables only and writes its declared operands and clobbers only.
    unsafe {
        asm!(
            noise_pair32!("{a}"),
            a = in(xmm_reg) v32(v),
            r = in(xmm_reg) v32(w),
            t = out(xmm_reg) _,
            x = out(xmm_reg) _,
            out("zmm20") _,
            out("zmm21") _,
            out("k1") _,
            g = lateout(reg) g,
            tab = in(reg) &TABLES,
            p64 = const PRE64,
            options(pure, readonly, nostack, preserves_flags),
        );
    }
    g
}

/// `a·b + c` with random rounding (lane 3: OR of the three flags lanes), as the kernels of
/// `+` and `*`: fused multiply-adds rounded up and down in `zmm16`-`zmm19`, the downward
/// lanes picked with `k1` and `k2`.
#[inline(always)]
pub(crate) fn fma_f64(a: [f64; 4], b: [f64; 4], c: [f64; 4], dir: u32) -> [f64; 4] {
    let ((alo, ahi), (blo, bhi), (clo, chi)) = (split64(a), split64(b), split64(c));
    let (lo, hi): (__m128d, __m128d);
    // SAFETY: as in the other kernels.
    unsafe {
        asm!(
            "kmovb k1, byte ptr [{tab} + {off}]",
            "kmovb k2, byte ptr [{tab} + {off} + 1]",
            "vmovapd zmm16, {c:z}",
            "vmovapd zmm17, {c:z}",
            "vmovapd zmm18, {chi:z}",
            "vmovapd zmm19, {chi:z}",
            "vfmadd231pd zmm16, {a:z}, {b:z}, {{ru-sae}}",
            "vfmadd231pd zmm17, {a:z}, {b:z}, {{rd-sae}}",
            "vfmadd231pd zmm18, {ahi:z}, {bhi:z}, {{ru-sae}}",
            "vfmadd231pd zmm19, {ahi:z}, {bhi:z}, {{rd-sae}}",
            "vorpd {f}, {ahi}, {bhi}",
            "vorpd {f}, {f}, {chi}",
            "vblendmpd {lo} {{k1}}, xmm16, xmm17",
            "vblendmpd {hi} {{k2}}, xmm18, xmm19",
            "vblendpd {hi}, {hi}, {f}, 2",
            a = in(xmm_reg) alo,
            ahi = in(xmm_reg) ahi,
            b = in(xmm_reg) blo,
            bhi = in(xmm_reg) bhi,
            c = in(xmm_reg) clo,
            chi = in(xmm_reg) chi,
            lo = lateout(xmm_reg) lo,
            hi = lateout(xmm_reg) hi,
            f = out(xmm_reg) _,
            out("zmm16") _,
            out("zmm17") _,
            out("zmm18") _,
            out("zmm19") _,
            out("k1") _,
            out("k2") _,
            tab = in(reg) &TABLES,
            off = in(reg) row_offset(dir),
            options(pure, readonly, nostack, preserves_flags),
        );
    }
    join64(lo, hi)
}

/// `a·b + c` on f32 lanes.
#[inline(always)]
pub(crate) fn fma_f32(a: [f32; 4], b: [f32; 4], c: [f32; 4], dir: u32) -> [f32; 4] {
    let r: __m128;
    // SAFETY: as in the other kernels.
    unsafe {
        asm!(
            "kmovb k1, byte ptr [{tab} + {off}]",
            "vmovaps zmm16, {c:z}",
            "vmovaps zmm17, {c:z}",
            "vfmadd231ps zmm16, {a:z}, {b:z}, {{ru-sae}}",
            "vfmadd231ps zmm17, {a:z}, {b:z}, {{rd-sae}}",
            "vorps {f}, {a}, {b}",
            "vorps {f}, {f}, {c}",
            "vblendmps {r} {{k1}}, xmm16, xmm17",
            "vblendps {r}, {r}, {f}, 8",
            a = in(xmm_reg) v32(a),
            b = in(xmm_reg) v32(b),
            c = in(xmm_reg) v32(c),
            r = lateout(xmm_reg) r,
            f = out(xmm_reg) _,
            out("zmm16") _,
            out("zmm17") _,
            out("k1") _,
            tab = in(reg) &TABLES,
            off = in(reg) row_offset(dir),
            options(pure, readonly, nostack, preserves_flags),
        );
    }
    a32(r)
}

/// Square root rounded up and down, on the operand's two registers joined in `zmm18` (one
/// square root each way), the downward lanes picked with `k1` (lane 3: the operand's flags
/// lane).
#[inline(always)]
pub(crate) fn sqrt_f64(a: [f64; 4], dir: u32) -> [f64; 4] {
    let (alo, ahi) = split64(a);
    let (lo, hi): (__m128d, __m128d);
    // SAFETY: as in the other kernels.
    unsafe {
        asm!(
            "kmovb k1, byte ptr [{tab} + {off}]",
            "vinsertf64x2 zmm18, {a:z}, {ahi}, 1",
            "vsqrtpd zmm16, zmm18, {{ru-sae}}",
            "vsqrtpd zmm17, zmm18, {{rd-sae}}",
            "vblendmpd zmm16 {{k1}}, zmm16, zmm17",
            "vmovapd {lo}, xmm16",
            "vextractf64x2 xmm17, zmm16, 1",
            "vmovapd {hi}, xmm17",
            "vblendpd {hi}, {hi}, {ahi}, 2",
            a = in(xmm_reg) alo,
            ahi = in(xmm_reg) ahi,
            lo = out(xmm_reg) lo,
            hi = out(xmm_reg) hi,
            out("zmm16") _,
            out("zmm17") _,
            out("zmm18") _,
            out("k1") _,
            tab = in(reg) &TABLES,
            off = in(reg) row_offset(dir),
            options(pure, readonly, nostack, preserves_flags),
        );
    }
    join64(lo, hi)
}

/// Square root on f32 lanes.
#[inline(always)]
pub(crate) fn sqrt_f32(a: [f32; 4], dir: u32) -> [f32; 4] {
    let r: __m128;
    // SAFETY: as in the other kernels.
    unsafe {
        asm!(
            "kmovb k1, byte ptr [{tab} + {off}]",
            "vsqrtps zmm16, {a:z}, {{ru-sae}}",
            "vsqrtps zmm17, {a:z}, {{rd-sae}}",
            "vblendmps {r} {{k1}}, xmm16, xmm17",
            "vblendps {r}, {r}, {a}, 8",
            a = in(xmm_reg) v32(a),
            r = out(xmm_reg) r,
            out("zmm16") _,
            out("zmm17") _,
            out("k1") _,
            tab = in(reg) &TABLES,
            off = in(reg) row_offset(dir),
            options(pure, readonly, nostack, preserves_flags),
        );
    }
    a32(r)
}

/// The kernel of an `f64` sum or product in a native build with AVX-512 (F, DQ and VL), where
/// the value's four lanes are one 256-bit register: `$insn` rounded up and rounded down (two
/// 512-bit instructions into `zmm16` and `zmm17`), then two `vpternlogq` on the operands' OR
/// (whose lane 3 is the OR of the flags lanes): the first takes lanes 0-2 from the upward
/// result under the selector of lane 3 ([`Lane3`]), the second the downward lanes from the
/// downward result under the selector row of [`Tables::sel64`] for the direction, both
/// selectors memory operands. Three instructions from an operand to the result, where the
/// compiler's form of the same steps (an upward instruction, a blend of the flags lane, and a
/// downward instruction merge-masked into the blend's result) chains all three behind each
/// other. No mask register, whose load occupies a vector port; nor `vblendpd`, which has no
/// EVEX form and cannot name registers 16-31, which the compiler may give the result in a
/// large loop. The measurements: docs/performance.md.
///
/// A function with the target features of its own, as `ops::add_pre64_avx512`: a crate built
/// without them that instantiates the generic operators (a doctest) compiles a call.
#[cfg(all(
    target_feature = "avx512f",
    target_feature = "avx512dq",
    target_feature = "avx512vl"
))]
macro_rules! native64 {
    ($name:ident, $insn:literal) => {
        #[target_feature(enable = "avx512f,avx512dq,avx512vl")]
        #[inline]
        pub(crate) unsafe fn $name(
            a: core::arch::x86_64::__m256d,
            b: core::arch::x86_64::__m256d,
            dir: u32,
        ) -> core::arch::x86_64::__m256d {
            let r: core::arch::x86_64::__m256d;
            // SAFETY: the processor has AVX-512F, DQ and VL (the function's target features);
            // the assembly reads the tables only and writes its declared operands only.
            unsafe {
                asm!(
                    concat!($insn, " zmm16, {a:z}, {b:z}, {{ru-sae}}"),
                    concat!($insn, " zmm17, {a:z}, {b:z}, {{rd-sae}}"),
                    "vorpd {r}, {a}, {b}",
                    "vpternlogq {r}, ymm16, ymmword ptr [{tab} + {lane3}], 0xe4",
                    "vpternlogq {r}, ymm17, ymmword ptr [{tab} + {off} + {sel}], 0xd8",
                    a = in(ymm_reg) a,
                    b = in(ymm_reg) b,
                    r = out(ymm_reg) r,
                    out("zmm16") _,
                    out("zmm17") _,
                    tab = in(reg) &TABLES,
                    off = in(reg) row_offset(dir),
                    sel = const SEL64,
                    lane3 = const LANE3,
                    options(pure, readonly, nostack, preserves_flags),
                );
            }
            r
        }
    };
}

#[cfg(all(
    target_feature = "avx512f",
    target_feature = "avx512dq",
    target_feature = "avx512vl"
))]
native64!(add_f64_native, "vaddpd");
#[cfg(all(
    target_feature = "avx512f",
    target_feature = "avx512dq",
    target_feature = "avx512vl"
))]
native64!(mul_f64_native, "vmulpd");

#[cfg(test)]
mod tests {
    use super::*;

    /// The byte that `+`, `*` and `/` test first says the checks that the mask asks for.
    #[cfg(not(target_feature = "avx512f"))]
    #[test]
    fn mode_follows_the_path_and_the_mask() {
        use crate::config::COLLAPSE_BIT;
        use crate::instability::Instability::*;
        let (fused, alone) = (|op| mode_bit(op, true), |op| mode_bit(op, false));
        assert_eq!(mode_for(false, 0xff), 0);
        assert_eq!(mode_for(false, 0), 0);
        assert_eq!(mode_for(true, 0), alone(0) | alone(1) | alone(2));
        assert_eq!(mode_for(true, 0xff), fused(0) | fused(1) | fused(2));
        assert_eq!(mode_for(true, COLLAPSE_BIT), fused(0) | fused(1) | fused(2));
        let others = !(Cancellation.bit() | Multiplication.bit() | Division.bit() | COLLAPSE_BIT);
        assert_eq!(mode_for(true, others), alone(0) | alone(1) | alone(2));
        let one = |kind: crate::Instability| mode_for(true, kind.bit());
        assert_eq!(one(Cancellation), fused(0) | alone(1) | alone(2));
        assert_eq!(one(Multiplication), alone(0) | fused(1) | alone(2));
        assert_eq!(one(Division), alone(0) | alone(1) | fused(2));
        // Six distinct bits.
        let all = (0..3).fold(0u8, |m, op| m | fused(op) | alone(op));
        assert_eq!(all.count_ones(), 6);
    }

    /// Which state components are in use (`xgetbv` with `ecx = 1`), or `None` where the
    /// processor cannot say.
    #[cfg(not(target_feature = "avx"))]
    fn in_use() -> Option<u64> {
        // SAFETY: `cpuid` leaf 13 exists where leaf 0 says so; `xgetbv` with `ecx = 1` runs only
        // where leaf 13 sub-leaf 1 reports it, and reads a register.
        unsafe {
            use core::arch::x86_64::__cpuid_count;
            if __cpuid_count(0, 0).eax < 13 || __cpuid_count(13, 1).eax & 4 == 0 {
                return None;
            }
            let (lo, hi): (u32, u32);
            asm!("xgetbv", in("ecx") 1, out("eax") lo, out("edx") hi, options(nomem, nostack));
            Some(u64::from(hi) << 32 | u64::from(lo))
        }
    }

    /// Every kernel, alone and with its pre-test, leaves the upper halves of `zmm0`-`zmm15` out
    /// of use (state components 2 and 6), as the legacy-SSE code of a build for the default
    /// target needs: with them in use, every SSE instruction pays for merging them (an `f32`
    /// pre-test that wrote `ymm` registers made the `overhead` example's wave many times slower).
    /// Only in a build without AVX, whose own code cannot put them
    /// in use.
    #[cfg(not(target_feature = "avx"))]
    #[test]
    fn kernels_leave_the_upper_halves_unused() {
        use std::hint::black_box;
        if !available() || in_use().is_none() {
            eprintln!("skipped: this processor has no AVX-512F, DQ and VL, or cannot say");
            return;
        }
        let tab = &TABLES;
        let (a64, b64) = ([1.5, 1.5, 1.5, 0.0], [-1.25, -1.25, -1.25, 0.0]);
        let (a32, b32) = ([1.5f32, 1.5, 1.5, 0.0], [-1.25f32, -1.25, -1.25, 0.0]);
        let dir = crate::rounding::dir_word(1);
        let runs: [(&str, &dyn Fn()); 16] = [
            ("add_f64", &|| {
                let _ = black_box(add_f64(black_box(a64), b64, dir));
            }),
            ("mul_f64", &|| {
                let _ = black_box(mul_f64(black_box(a64), b64, dir));
            }),
            ("div_f64", &|| {
                let _ = black_box(div_f64(black_box(a64), b64, dir));
            }),
            ("add_f32", &|| {
                let _ = black_box(add_f32(black_box(a32), b32, dir));
            }),
            ("mul_f32", &|| {
                let _ = black_box(mul_f32(black_box(a32), b32, dir));
            }),
            ("div_f32", &|| {
                let _ = black_box(div_f32(black_box(a32), b32, dir));
            }),
            ("add_pre_f64", &|| {
                let _ = black_box(add_pre_f64(black_box(a64), b64, dir, tab));
            }),
            ("mul_pre_f64", &|| {
                let _ = black_box(mul_pre_f64(black_box(a64), b64, dir, tab));
            }),
            ("div_pre_f64", &|| {
                let _ = black_box(div_pre_f64(black_box(a64), b64, dir, tab));
            }),
            ("add_pre_f32", &|| {
                let _ = black_box(add_pre_f32(black_box(a32), b32, dir, tab));
            }),
            ("mul_pre_f32", &|| {
                let _ = black_box(mul_pre_f32(black_box(a32), b32, dir, tab));
            }),
            ("div_pre_f32", &|| {
                let _ = black_box(div_pre_f32(black_box(a32), b32, dir, tab));
            }),
            ("fma_f64", &|| {
                let _ = black_box(fma_f64(black_box(a64), b64, a64, dir));
            }),
            ("sqrt_f32", &|| {
                let _ = black_box(sqrt_f32(black_box(a32), dir));
            }),
            ("sqrt_f64", &|| {
                let _ = black_box(sqrt_f64(black_box(a64), dir));
            }),
            ("fma_f32", &|| {
                let _ = black_box(fma_f32(black_box(a32), b32, a32, dir));
            }),
        ];
        for (name, run) in runs {
            // SAFETY: `vzeroupper` changes only upper halves, which a build without AVX holds
            // nothing in.
            unsafe { asm!("vzeroupper", options(nomem, nostack)) };
            // A processor may report a component in use that is in its initial state.
            let cleared = in_use().unwrap_or(0);
            if cleared & 0b100_0100 != 0 {
                eprintln!(
                    "skipped: `vzeroupper` did not mark the upper halves unused ({cleared:#x})"
                );
                return;
            }
            run();
            let state = in_use().unwrap_or(0);
            assert_eq!(
                state & 0b100_0100,
                0,
                "{name} left upper halves in use: {state:#x}"
            );
        }
    }

    #[test]
    fn stoch_portable_values() {
        for v in ["1", "true", " yes "] {
            assert_eq!(parse_portable(v), Ok(true), "{v:?}");
        }
        for v in ["0", "false", "no", ""] {
            assert_eq!(parse_portable(v), Ok(false), "{v:?}");
        }
        let e = parse_portable("portable").unwrap_err();
        assert!(
            e.contains("STOCH_PORTABLE=\"portable\"") && e.contains("1 or 0"),
            "{e}"
        );
    }

    /// The kernels on whole values: samples in lanes 0-2 in order, and lane 3 the OR of the
    /// operands' flags lanes (the square root keeps its operand's). Exact operations, so every
    /// rounding direction gives the same samples.
    #[test]
    fn kernels_keep_the_lanes_in_order_and_or_the_flags() {
        if !available() {
            eprintln!("skipped: this processor has no AVX-512F");
            return;
        }
        let (fa, fb, fc) = (0b0000_0101u64, 0b1000_0010, 0b0001_0000);
        let a = [1.5, 2.5, 4.0, f64::from_bits(fa)];
        let b = [0.25, 0.5, 0.125, f64::from_bits(fb)];
        let c = [1.0, -1.0, 8.0, f64::from_bits(fc)];
        for code in 0..4 {
            // Bits other than the direction bits are ignored.
            let dir = crate::rounding::dir_word(code) | 0x9f;
            let cases = [
                (add_f64(a, b, dir), [1.75, 3.0, 4.125], fa | fb),
                (mul_f64(a, b, dir), [0.375, 1.25, 0.5], fa | fb),
                (div_f64(a, b, dir), [6.0, 5.0, 32.0], fa | fb),
                (fma_f64(a, b, c, dir), [1.375, 0.25, 8.5], fa | fb | fc),
                (sqrt_f64([2.25, 6.25, 4.0, a[3]], dir), [1.5, 2.5, 2.0], fa),
            ];
            for (i, (r, samples, flags)) in cases.into_iter().enumerate() {
                assert_eq!(r[..3], samples, "f64 kernel {i}, dir {dir}");
                assert_eq!(
                    r[3].to_bits(),
                    flags,
                    "f64 kernel {i}, dir {dir}: flags lane"
                );
            }
            let (ga, gb, gc) = (fa as u32, fb as u32, fc as u32);
            let a = a.map(|x| x as f32);
            let (a, b, c) = (
                [a[0], a[1], a[2], f32::from_bits(ga)],
                [0.25, 0.5, 0.125, f32::from_bits(gb)],
                [1.0, -1.0, 8.0, f32::from_bits(gc)],
            );
            let cases = [
                (add_f32(a, b, dir), [1.75, 3.0, 4.125], ga | gb),
                (mul_f32(a, b, dir), [0.375, 1.25, 0.5], ga | gb),
                (div_f32(a, b, dir), [6.0, 5.0, 32.0], ga | gb),
                (fma_f32(a, b, c, dir), [1.375, 0.25, 8.5], ga | gb | gc),
                (sqrt_f32([2.25, 6.25, 4.0, a[3]], dir), [1.5, 2.5, 2.0], ga),
            ];
            for (i, (r, samples, flags)) in cases.into_iter().enumerate() {
                assert_eq!(r[..3], samples, "f32 kernel {i}, dir {dir}");
                assert_eq!(
                    r[3].to_bits(),
                    flags,
                    "f32 kernel {i}, dir {dir}: flags lane"
                );
            }
        }
    }

    /// The native build's `f64` sum and product kernels give, bit for bit, what the run-time
    /// path's kernels give (which the oracle tests check against exact arithmetic in builds for
    /// the default target), for every direction code, on random bit patterns (NaN, infinities,
    /// subnormals and signed zeros among them) and inexact quotients; the flags lane is the OR
    /// of the operands'.
    #[cfg(all(
        target_feature = "avx512f",
        target_feature = "avx512dq",
        target_feature = "avx512vl"
    ))]
    #[test]
    fn native_f64_kernels_match_the_run_time_ones() {
        use core::arch::x86_64::__m256d;
        let seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut state = seed;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let specials = [
            0.0,
            -0.0,
            1.0 / 3.0,
            -2.0 / 3.0,
            5e-324,
            -1e-310,
            f64::MAX,
            0.1,
        ];
        let mut value = |r: u64| match r % 4 {
            0 => specials[(r >> 8) as usize % specials.len()],
            1 => (r >> 11) as f64 / ((next() >> 11) | 1) as f64,
            _ => f64::from_bits(next()),
        };
        let to = |v: [f64; 4]| -> __m256d {
            // SAFETY: 32 bytes of plain data.
            unsafe { core::mem::transmute::<[f64; 4], __m256d>(v) }
        };
        let from = |v: __m256d| -> [u64; 4] {
            // SAFETY: 32 bytes of plain data.
            unsafe { core::mem::transmute::<__m256d, [u64; 4]>(v) }
        };
        for n in 0..50_000u64 {
            let (fa, fb) = (n & 0xff, (n >> 8) & 0xff);
            let a = [value(n), value(n >> 3), value(n >> 5), f64::from_bits(fa)];
            let b = [
                value(n >> 1),
                value(n >> 2),
                value(n >> 7),
                f64::from_bits(fb),
            ];
            for code in 0..4 {
                let dir = crate::rounding::dir_word(code) | 0x9f;
                // SAFETY: the target has AVX-512F, DQ and VL (cfg above).
                let (add, mul) = unsafe {
                    (
                        from(add_f64_native(to(a), to(b), dir)),
                        from(mul_f64_native(to(a), to(b), dir)),
                    )
                };
                let want_add = add_f64(a, b, dir).map(f64::to_bits);
                let want_mul = mul_f64(a, b, dir).map(f64::to_bits);
                assert_eq!(
                    add, want_add,
                    "seed {seed:#x}, case {n}: {a:?} + {b:?}, dir {code}"
                );
                assert_eq!(
                    mul, want_mul,
                    "seed {seed:#x}, case {n}: {a:?} * {b:?}, dir {code}"
                );
                assert_eq!(add[3], fa | fb, "case {n}: flags lane");
            }
        }
    }

    #[test]
    fn path_names_the_compiled_or_detected_path() {
        let p = crate::rounding::path();
        if cfg!(target_feature = "avx512f") {
            assert_eq!(p, "AVX-512 embedded rounding");
        } else if available() && !portable_requested() {
            assert!(p.contains("chosen at run time"), "{p}");
            #[cfg(not(target_feature = "avx512f"))]
            assert!(on());
        } else {
            assert!(!p.contains("AVX-512"), "{p}");
        }
    }
}
