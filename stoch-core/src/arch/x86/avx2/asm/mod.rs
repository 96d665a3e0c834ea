//! The AVX2 + FMA kernels from inline assembly, for builds whose target lacks AVX2 and FMA (the
//! default `x86-64` target above all) on a processor that has them: the path the process
//! chose at run time ([`crate::runtime::path`]).
//!
//! Contract: where the processor has AVX2 and FMA, each kernel gives the portable path's samples
//! for the same random bits, through assembly that needs no target feature from the compiler
//! and so inlines into the user's loop (a function with the features would be a call per
//! operation, and a call may change every vector register: docs/performance.md).
//!
//! - The sums, the products, the quotients and the square roots take the forms of the
//!   intrinsics kernels ([`super`]), rounded to nearest: a sum's neighbour where two
//!   comparisons find the exact sum beyond it; a product's error, a quotient's or a root's
//!   remainder exact by one FMA, its sign, a one-unit step. Where that error or remainder could
//!   underflow (a product below 2⁻⁹⁶⁹ in `f64`, 2⁻¹⁰⁰ in `f32`, but an exact zero of a zero
//!   operand; a quotient or a dividend below 2⁻⁹⁶⁹, 2⁻⁹⁸, but a zero dividend; a radicand below
//!   2⁻⁹⁶⁹, 2⁻⁹⁸) or the result is not finite, an `f32` product or root takes a second block
//!   that computes the error in `f64`, exact there, and only an operand that is not finite (a
//!   negative radicand) takes the portable path; an `f64` value and an `f32` quotient take the
//!   portable path.
//! - `mul_add` alone is rounded by the processor: its kernel sets MXCSR's rounding field to
//!   upward, runs the FMA, and puts back MXCSR's default word (rounding to nearest, every
//!   exception masked, no flush to zero: the floating-point environment Rust code runs in,
//!   which the compiler assumes), the down lanes' signs flipped going in and coming out (the
//!   error-free form of a fused multiply-add takes some twenty operations). A switch of MXCSR
//!   costs a few cycles at some addresses and many times more at others, so that the speed of
//!   a loop of them moved with unrelated code: the sums and the quotients left MXCSR for that
//!   reason (docs/performance.md).
//! - Only VEX-encoded 128-bit instructions, on registers the compiler allocates: each clears
//!   the upper half of the register it writes and leaves every other register alone, so the
//!   legacy SSE code around them pays no transition, and a caller built with AVX loses nothing
//!   it keeps elsewhere (a function with `#[target_feature(enable = "avx2")]` into which the
//!   kernels inline may keep `ymm` values across them: no `vzeroupper`, which would clear
//!   their upper halves). An `f64` value is two registers (samples x and y; sample z and the
//!   flags lane); an `f32` value one.
//! - The constants, the direction rows and the MXCSR words are one static per type, [`C64`] and
//!   [`C32`], read as memory operands at the offsets the text names (checked at compile time
//!   below).

use core::arch::asm;
use core::arch::x86_64::__m128;

use super::super::{a32, v32};
use crate::arch::portable::lanes4 as portable;
use crate::runtime::rng::row_offset;
use crate::runtime::state::{OPERAND_SPREAD, SPREAD_FACTOR};
use crate::runtime::tables::{Tables, SUM_SPREAD};
use core::sync::atomic::Ordering;

#[cfg(test)]
mod tests;

/// A row of the direction tables: one 32-byte row per direction code, the `f64` halves at
/// bytes 0 and 16 (an `f32` row uses its first 16 bytes).
type Row = [u64; 4];

/// The constants of one type, as the kernels' text reads them: byte offsets 0 (`down`), 128
/// (`dsign`), then 16 bytes each from 256 in field order.
#[repr(C, align(64))]
pub(crate) struct Consts {
    /// Per direction code, all ones in the lanes of the samples that round down.
    down: [Row; 4],
    /// The same rows with only the sign bit set in those lanes.
    dsign: [Row; 4],
    /// All bits but the sign (256).
    abs: [u64; 2],
    /// The checks' spread factor, `f64` (272): the pre-tests compute in `f64` for both types.
    spread: [u64; 2],
    /// All bits but the sign of `f64` lanes (288).
    abs64: [u64; 2],
    /// MXCSR rounding upward (304), to nearest (308) and downward (312) ([`CSR`]).
    csr: [u32; 4],
    /// Integer 1 per lane (320).
    one: [u64; 2],
    /// All bits set: integer −1 per lane (336).
    ones: [u64; 2],
    /// Zero (352).
    zero: [u64; 2],
    /// +∞ (368).
    inf: [u64; 2],
    /// The product's range test (384 and 416): a lane's magnitude bits minus `nbias` exceed
    /// `limit` (as signed integers) exactly where the magnitude lies outside `[tiny, +∞)`,
    /// `tiny` the bound below which a product's error term may underflow (2⁻⁹⁶⁹; `f32`:
    /// 2⁻¹⁰⁰). One subtraction and one comparison, where comparisons with both bounds took
    /// two and an OR.
    nbias: [u64; 2],
    /// A radicand below this magnitude may have a remainder that underflows (400).
    root: [u64; 2],
    /// See `nbias` (416).
    limit: [u64; 2],
    /// All ones in the samples' lanes, zero in the flags lane (432).
    samples: [u64; 2],
    /// The products' and quotients' pre-test factor on their operands, `f64` (448).
    operand_spread: [u64; 2],
}

const _: () = {
    assert!(core::mem::offset_of!(Consts, dsign) == 128);
    assert!(core::mem::offset_of!(Consts, abs) == 256);
    assert!(core::mem::offset_of!(Consts, spread) == 272);
    assert!(core::mem::offset_of!(Consts, abs64) == 288);
    assert!(core::mem::offset_of!(Consts, csr) == 304);
    assert!(core::mem::offset_of!(Consts, one) == 320);
    assert!(core::mem::offset_of!(Consts, ones) == 336);
    assert!(core::mem::offset_of!(Consts, zero) == 352);
    assert!(core::mem::offset_of!(Consts, inf) == 368);
    assert!(core::mem::offset_of!(Consts, nbias) == 384);
    assert!(core::mem::offset_of!(Consts, root) == 400);
    assert!(core::mem::offset_of!(Consts, limit) == 416);
    assert!(core::mem::offset_of!(Consts, samples) == 432);
    assert!(core::mem::offset_of!(Consts, operand_spread) == 448);
};

/// The byte offsets of [`Consts`]' fields, as text for the templates.
macro_rules! at {
    (dsign) => {
        "128"
    };
    (abs) => {
        "256"
    };
    (spread) => {
        "272"
    };
    (abs64) => {
        "288"
    };
    (ru) => {
        "304"
    };
    (rn) => {
        "308"
    };
    (rd) => {
        "312"
    };
    (one) => {
        "320"
    };
    (ones) => {
        "336"
    };
    (zero) => {
        "352"
    };
    (inf) => {
        "368"
    };
    (nbias) => {
        "384"
    };
    (root) => {
        "400"
    };
    (limit) => {
        "416"
    };
    (samples) => {
        "432"
    };
    (operand_spread) => {
        "448"
    };
}

/// Puts the next instruction, the switch to rounding upward, at the start of a 32-byte block,
/// where the switches and the operation between them fit: on AMD's Zen 3, a loop was many times
/// slower where a switch lay in the last bytes of a 64-byte line and the operation after it
/// crossed into the next (docs/performance.md). The padding costs a few no-ops per kernel.
macro_rules! align_switch {
    () => {
        ".p2align 5\n"
    };
}

/// MXCSR's default word: every exception masked, rounding to nearest, no flush to zero.
pub(crate) const MXCSR_DEFAULT: u32 = 0x1f80;

/// MXCSR rounding upward, to nearest and downward, as [`Consts::csr`] holds them.
const CSR: [u32; 4] = [
    MXCSR_DEFAULT | 0x4000,
    MXCSR_DEFAULT,
    MXCSR_DEFAULT | 0x2000,
    0,
];

/// Direction rows from a lane's bits (`lane(on)` for the three samples, 0 for the flags lane),
/// `f64` lanes or pairs of `f32` lanes.
const fn rows(mark: u64, per_lane: bool) -> [Row; 4] {
    let mut t = [[0u64; 4]; 4];
    let mut code = 0;
    while code < 4 {
        let on = [code & 1 != 0, code & 2 != 0, code & 2 == 0];
        let mut i = 0;
        while i < 3 {
            if on[i] {
                if per_lane {
                    t[code][i] = mark;
                } else {
                    // f32 lane i is half i % 2 of u64 i / 2.
                    t[code][i / 2] |= (mark & 0xffff_ffff) << (32 * (i % 2));
                }
            }
            i += 1;
        }
        code += 1;
    }
    t
}

const fn pair(v: u64) -> [u64; 2] {
    [v, v]
}

const fn pair32(v: u32) -> [u64; 2] {
    let w = (v as u64) << 32 | v as u64;
    [w, w]
}

/// `nbias` and `limit` of [`Consts`] for the magnitudes `[lo, +∞)` of `f64` lanes: the bits of
/// a magnitude minus `lo`, offset by 2⁶³ so that the unsigned range becomes a signed one.
const fn range64(lo: f64) -> ([u64; 2], [u64; 2]) {
    let lo = lo.to_bits();
    let limit = (f64::INFINITY.to_bits() - lo) ^ (1 << 63);
    (pair(lo ^ (1 << 63)), pair(limit.wrapping_sub(1)))
}

/// The same for `f32` lanes.
const fn range32(lo: f32) -> ([u64; 2], [u64; 2]) {
    let lo = lo.to_bits();
    let limit = (f32::INFINITY.to_bits() - lo) ^ (1 << 31);
    (pair32(lo ^ (1 << 31)), pair32(limit.wrapping_sub(1)))
}

/// The `f64` constants.
pub(crate) static C64: Consts = Consts {
    down: rows(u64::MAX, true),
    dsign: rows(1 << 63, true),
    abs: pair(i64::MAX as u64),
    spread: pair(SPREAD_FACTOR.to_bits()),
    abs64: pair(i64::MAX as u64),
    csr: CSR,
    one: pair(1),
    ones: pair(u64::MAX),
    zero: pair(0),
    inf: pair(f64::INFINITY.to_bits()),
    nbias: range64(crate::arch::portable::TWO_M969).0,
    root: pair(crate::arch::portable::TWO_M969.to_bits()),
    limit: range64(crate::arch::portable::TWO_M969).1,
    samples: [u64::MAX, 0],
    operand_spread: pair(OPERAND_SPREAD.to_bits()),
};

/// The `f32` constants (the product's bound scaled to `f32`'s range: 2⁻¹⁰⁰, where the error
/// term underflows below about 2⁻¹⁰²; the radicand's 2⁻⁹⁸, whose root is 2⁻⁴⁹, the bound of
/// the AVX2 intrinsics kernel).
pub(crate) static C32: Consts = Consts {
    down: rows(0xffff_ffff, false),
    dsign: rows(1 << 31, false),
    abs: pair32(i32::MAX as u32),
    spread: pair(SPREAD_FACTOR.to_bits()),
    abs64: pair(i64::MAX as u64),
    csr: CSR,
    one: pair32(1),
    ones: pair(u64::MAX),
    zero: pair32(0),
    inf: pair32(f32::INFINITY.to_bits()),
    nbias: range32(7.888_609e-31).0,
    root: pair32(3.155_443_6e-30f32.to_bits()),
    limit: range32(7.888_609e-31).1,
    samples: [u64::MAX, 0xffff_ffff],
    operand_spread: pair(OPERAND_SPREAD.to_bits()),
};

/// An `f64` value as two registers: samples x and y; sample z and the flags lane.
#[inline(always)]
fn v64(a: [f64; 4]) -> [__m128; 2] {
    // SAFETY: 32 bytes of plain data, in order.
    unsafe { core::mem::transmute::<[f64; 4], [__m128; 2]>(a) }
}

/// The inverse of [`v64`].
#[inline(always)]
fn a64(v: [__m128; 2]) -> [f64; 4] {
    // SAFETY: as above.
    unsafe { core::mem::transmute::<[__m128; 2], [f64; 4]>(v) }
}

// The product, in the error-free form (see the module's documentation).

/// The result `{s}` moved one unit toward −∞ in the down lanes and toward +∞ in the others
/// where `{t}` (the lanes whose error points the drawn way) is all ones, into `{r}`: one unit
/// more on the bits toward the value's own sign, one less the other way. `$cmp` is the
/// lane-wide signed integer comparison (`vpcmpgtq`, `vpcmpgtd`), whose `s > −1` marks the lanes
/// of a positive sign (AVX2 has no 64-bit arithmetic shift); that mask XOR the down lanes is
/// all ones (−1) where the step is +1 and 0 where it is −1, so that `x | 1` is minus the step
/// and `$sub`, the lane-wide integer subtraction, takes it.
#[rustfmt::skip]
macro_rules! step {
    ($cmp:literal, $sub:literal) => {
        concat!(
            $cmp, " {x}, {s}, xmmword ptr [{tab} + ", at!(ones), "]\n",
            "vpxor {x}, {x}, xmmword ptr [{tab} + {off}]\n",
            "vpor {x}, {x}, xmmword ptr [{tab} + ", at!(one), "]\n",
            "vpand {x}, {x}, {t}\n",
            $sub, " {r}, {s}, {x}\n",
        )
    };
}

/// `{t}` all ones where the error `{t}` is nonzero and points the drawn way (negative in the
/// down lanes, positive in the others): its sign flipped in the down lanes, then `> 0`.
#[rustfmt::skip]
macro_rules! points {
    ($p:literal) => {
        concat!(
            "vxorp", $p, " {t}, {t}, xmmword ptr [{tab} + {off} + ", at!(dsign), "]\n",
            "vcmpp", $p, " {t}, {t}, xmmword ptr [{tab} + ", at!(zero), "], 0x1e\n",
        )
    };
}

/// `$p` lanes: `a · b` into `{r}`, the error `a·b − p` exact by one FMA unless the product is
/// below the tiny bound (the error term could underflow) or not finite: those lanes in `{g}`,
/// by one integer range test. A product below the bound is most often an exact zero of a zero
/// operand, which the kernel rounds right: [`zeros_text`] keeps those (a second block, only
/// where this one finds such a lane).
#[rustfmt::skip]
macro_rules! mul_text {
    ($p:literal, $cmp:literal, $sub:literal, $flags:literal) => {
        concat!(mul_range_text!($p, $cmp, $sub), mul_step_text!($p, $cmp, $sub, $flags))
    };
}

/// The first part of [`mul_text`]: the product `{s}` and the rare lanes' `movmsk` in `{g}`.
#[rustfmt::skip]
macro_rules! mul_range_text {
    ($p:literal, $cmp:literal, $sub:literal) => {
        concat!(
            "vmulp", $p, " {s}, {a}, {b}\n",
            "vandp", $p, " {f}, {s}, xmmword ptr [{tab} + ", at!(abs), "]\n",
            $sub, " {f}, {f}, xmmword ptr [{tab} + ", at!(nbias), "]\n",
            $cmp, " {f}, {f}, xmmword ptr [{tab} + ", at!(limit), "]\n",
            "vmovmskp", $p, " {g:e}, {f}\n",
        )
    };
}

/// The rest of [`mul_text`]: the error of the product `{s}` and the step, into `{r}`.
#[rustfmt::skip]
macro_rules! mul_step_text {
    ($p:literal, $cmp:literal, $sub:literal, $flags:literal) => {
        concat!(
            "vmovap", $p, " {t}, {s}\n",
            "vfmsub231p", $p, " {t}, {a}, {b}\n",
            points!($p),
            step!($cmp, $sub),
            $flags,
        )
    };
}

/// `$p` lanes: where the result `{r}` of a product is zero and an operand is, all ones; their
/// `movmsk` in `{g}`.
#[rustfmt::skip]
macro_rules! zeros_text {
    ($p:literal) => {
        concat!(
            "vcmpp", $p, " {t}, {r}, xmmword ptr [{tab} + ", at!(zero), "], 0\n",
            "vcmpp", $p, " {u}, {a}, xmmword ptr [{tab} + ", at!(zero), "], 0\n",
            "vcmpp", $p, " {w}, {b}, xmmword ptr [{tab} + ", at!(zero), "], 0\n",
            "vorp", $p, " {u}, {u}, {w}\n",
            "vandp", $p, " {t}, {t}, {u}\n",
            "vmovmskp", $p, " {g:e}, {t}\n",
        )
    };
}

/// The lanes of [`zeros_text`] for `$p` lanes `$a`, `$b` and the product's result `$r`.
macro_rules! zeros {
    ($p:literal, $tab:expr, $a:expr, $b:expr, $r:expr) => {{
        let g: u32;
        // SAFETY: the processor has AVX (the callers' contract); the assembly reads the
        // constant table only and writes its declared operands only, with 128-bit VEX
        // instructions.
        unsafe {
            asm!(
                zeros_text!($p),
                a = in(xmm_reg) $a,
                b = in(xmm_reg) $b,
                r = in(xmm_reg) $r,
                t = out(xmm_reg) _,
                u = out(xmm_reg) _,
                w = out(xmm_reg) _,
                g = out(reg) g,
                tab = in(reg) $tab,
                options(pure, readonly, nostack, preserves_flags),
            );
        }
        g
    }};
}

/// One kernel block: the text `$text` for lanes of `$p` (`$flags`: how the flags lane is
/// kept), on the registers `$a`, `$b`, `$c` (as many as the text names) and the scratch
/// registers `{s}`, `{t}`, `{x}` and `$extra`, the direction rows of `$tab` at `$off`; the
/// result register and the rare lanes' `movmsk`.
macro_rules! block {
    ($text:ident, $p:literal, $cmp:literal, $sub:literal, $flags:literal, $tab:expr, $off:expr, [$($in:ident = $v:expr),+] $(, $extra:ident)*) => {{
        let r: __m128;
        let g: u32;
        // SAFETY: the processor has AVX and FMA (the callers' contract); the assembly reads the
        // constant table only and writes its declared operands only, with 128-bit VEX
        // instructions, which leave no upper half changed.
        unsafe {
            asm!(
                $text!($p, $cmp, $sub, $flags),
                $($in = in(xmm_reg) $v,)+
                r = out(xmm_reg) r,
                s = out(xmm_reg) _,
                t = out(xmm_reg) _,
                x = out(xmm_reg) _,
                $($extra = out(xmm_reg) _,)*
                g = out(reg) g,
                tab = in(reg) $tab,
                off = in(reg) $off,
                options(pure, readonly, nostack, preserves_flags),
            );
        }
        (r, g)
    }};
}

/// Takes `v` into a register, by an empty assembly block that names it. The portable path's
/// answer comes back as an array; joined with the kernel's register, it made the compiler hold
/// the result in single lanes, which a running sum then stored lane by lane and read back whole
/// (a load the processor cannot forward from several stores) on every operation.
#[inline(always)]
fn in_registers(v: &mut __m128) {
    // SAFETY: an empty template that only names the register; it reads and writes nothing.
    unsafe {
        asm!(
            "/* {v} */",
            v = inout(xmm_reg) * v,
            options(pure, nomem, nostack, preserves_flags)
        );
    }
}

/// The portable path for a value with a rare sample, out of line (large and cold).
#[cold]
#[inline(never)]
fn slow<T, F: FnOnce() -> T>(op: F) -> T {
    op()
}

/// The `f64` kernel `$name` from the text `$text` on the operands `$x` (the extra scratch
/// registers `$extra`): two blocks, the second on the upper registers and the direction rows'
/// second half, which keeps the flags lane (`vblendpd` lane 1) as `$keep` says.
macro_rules! kernel64 {
    (
        $name:ident,
        $ranged:ident,
        $text:ident,
        $portable:ident,
        ($($x:ident),+),
        $keep:literal
        $(, $extra:ident)*
    ) => {
        /// The kernel of the same name for a build without AVX2 and FMA.
        ///
        /// # Safety
        ///
        /// The processor must have AVX2 and FMA.
        #[inline(always)]
        pub(crate) unsafe fn $name($($x: [f64; 4],)+ dir: u32) -> [f64; 4] {
            // SAFETY: the caller's.
            unsafe { $ranged($($x,)+ dir).0 }
        }

        /// The same, and whether a sample took the portable path (out of the kernel's range).
        ///
        /// # Safety
        ///
        /// The processor must have AVX2 and FMA.
        #[inline(always)]
        pub(crate) unsafe fn $ranged($($x: [f64; 4],)+ dir: u32) -> ([f64; 4], bool) {
            let off = row_offset(dir);
            let tab = &C64;
            let halves = ($(v64($x),)+);
            #[allow(non_snake_case)]
            let ($($x,)+) = halves;
            let (mut lo, g) = block!($text, "d", "vpcmpgtq", "vpsubq", "", tab, off, [$($x = $x[0]),+] $(, $extra)*);
            let (mut hi, h) = block!($text, "d", "vpcmpgtq", "vpsubq", $keep, tab, off + 16, [$($x = $x[1]),+] $(, $extra)*);
            // A block's `movmsk` of two lanes sets bits 0 and 1 only ([`block!`]); the flags
            // lane, bit 1 of `h`, goes to bit 3 and out.
            let ranged = (g | h << 2) & 0b111 != 0;
            if ranged {
                [lo, hi] = v64(slow(move || portable::$portable($(a64($x),)+ dir)));
                in_registers(&mut lo);
                in_registers(&mut hi);
            }
            (a64([lo, hi]), ranged)
        }
    };
}

/// `a · b` for a build without AVX2 and FMA: [`mul_text`] on both blocks, the portable path for
/// the lanes out of its range but the exact zeros.
///
/// # Safety
///
/// The processor must have AVX2 and FMA.
#[inline(always)]
pub(crate) unsafe fn mul_f64(a: [f64; 4], b: [f64; 4], dir: u32) -> [f64; 4] {
    // SAFETY: the caller's.
    unsafe { mul_f64_ranged(a, b, dir).0 }
}

/// [`mul_f64`], and whether a sample took the portable path (a product outside the normal
/// range, not an exact zero), where it may lie further than a unit from the exact product.
///
/// # Safety
///
/// The processor must have AVX2 and FMA.
#[inline(always)]
pub(crate) unsafe fn mul_f64_ranged(a: [f64; 4], b: [f64; 4], dir: u32) -> ([f64; 4], bool) {
    let (off, tab) = (row_offset(dir), &C64);
    let ([al, ah], [bl, bh]) = (v64(a), v64(b));
    let (mut lo, g) = block!(
        mul_text,
        "d",
        "vpcmpgtq",
        "vpsubq",
        "",
        tab,
        off,
        [a = al, b = bl],
        f
    );
    let (mut hi, h) = block!(
        mul_text,
        "d",
        "vpcmpgtq",
        "vpsubq",
        "vorpd {f}, {a}, {b}\nvblendpd {r}, {r}, {f}, 2\n",
        tab,
        off + 16,
        [a = ah, b = bh],
        f
    );
    // As in `kernel64!`: each `movmsk` sets bits 0 and 1 only, the flags lane's goes out.
    let out = (g | h << 2) & 0b111;
    if out != 0 {
        let zeros = zeros!("d", tab, al, bl, lo) | zeros!("d", tab, ah, bh, hi) << 2;
        if out & !zeros != 0 {
            [lo, hi] = v64(slow(move || portable::mul(a, b, dir)));
            in_registers(&mut lo);
            in_registers(&mut hi);
            return (a64([lo, hi]), true);
        }
    }
    (a64([lo, hi]), false)
}

/// The same for `f32`: the first part of [`mul_text`]; then its rest where every lane is in
/// range, else [`tiny_mul32`] (whose range the portable path completes). In two blocks, so that
/// a tiny product's error, subnormal in `f32`, is never computed: an FMA with a subnormal
/// result takes a microcode assist on Intel processors.
///
/// # Safety
///
/// The processor must have AVX2 and FMA.
#[inline(always)]
pub(crate) unsafe fn mul_f32(a: [f32; 4], b: [f32; 4], dir: u32) -> [f32; 4] {
    // SAFETY: the caller's.
    unsafe { mul_f32_ranged(a, b, dir).0 }
}

/// [`mul_f32`], and whether a sample's product is outside the normal range (below 2⁻¹²⁶ or not
/// finite) and not an exact zero, where it may lie further than a unit from the exact product
/// (tested on the tiny products' path only).
///
/// # Safety
///
/// The processor must have AVX2 and FMA.
#[inline(always)]
pub(crate) unsafe fn mul_f32_ranged(a: [f32; 4], b: [f32; 4], dir: u32) -> ([f32; 4], bool) {
    let tab = &C32;
    let (va, vb) = (v32(a), v32(b));
    let (p, g): (__m128, u32);
    // SAFETY: as in `block!`.
    unsafe {
        asm!(
            mul_range_text!("s", "vpcmpgtd", "vpsubd"),
            a = in(xmm_reg) va,
            b = in(xmm_reg) vb,
            s = out(xmm_reg) p,
            f = out(xmm_reg) _,
            g = out(reg) g,
            tab = in(reg) tab,
            options(pure, readonly, nostack, preserves_flags),
        );
    }
    if g & 0b0111 != 0 {
        super::rare();
        let (mut r, finite) = tiny_mul32(va, vb, p, dir);
        if finite & 0b0111 != 0b0111 {
            r = v32(slow(move || portable::mul(a, b, dir)));
            in_registers(&mut r);
        }
        // SAFETY: SSE2 is part of x86-64 (the helper's intrinsics are SSE2).
        return (a32(r), unsafe { super::product_subnormal32(p, va, vb) });
    }
    let r: __m128;
    // SAFETY: as in `block!`.
    unsafe {
        asm!(
            mul_step_text!("s", "vpcmpgtd", "vpsubd", "vorps {f}, {a}, {b}\nvblendps {r}, {r}, {f}, 8\n"),
            a = in(xmm_reg) va,
            b = in(xmm_reg) vb,
            s = in(xmm_reg) p,
            r = out(xmm_reg) r,
            t = out(xmm_reg) _,
            x = out(xmm_reg) _,
            f = out(xmm_reg) _,
            tab = in(reg) tab,
            off = in(reg) row_offset(dir),
            options(pure, readonly, nostack, preserves_flags),
        );
    }
    (a32(r), false)
}

/// `f32` lanes: the result `{s}` moved one unit where its error points the drawn way, into
/// `{r}`, the error given as `f64` lanes in `$lo` (lanes 0, 1) and `$hi` (2, 3). The high half
/// of an `f64` error carries its sign and is zero only where the error is ±0, so
/// [`points!`]'s integer comparison reads it in place of an `f32` error.
#[rustfmt::skip]
macro_rules! wide_step {
    ($lo:literal, $hi:literal) => {
        concat!(
            "vshufps {t}, {", $lo, "}, {", $hi, "}, 0xdd\n",
            "vxorps {t}, {t}, xmmword ptr [{tab} + {off} + ", at!(dsign), "]\n",
            "vpcmpgtd {t}, {t}, xmmword ptr [{tab} + ", at!(zero), "]\n",
            step!("vpcmpgtd", "vpsubd"),
        )
    };
}

/// `f32` lanes: the product `{s}` of `{a}` and `{b}` randomly rounded in `f64`, where the
/// product of two samples and its error `a·b − p` are exact whatever their size (below the
/// tiny bound, subnormal, underflowed to zero, or overflowed to ±∞), into `{r}`; the lanes
/// where both operands are finite in `{g}`.
#[rustfmt::skip]
macro_rules! tiny_mul32_text {
    () => {
        concat!(
            "vandps {t}, {a}, xmmword ptr [{tab} + ", at!(abs), "]\n",
            "vandps {u}, {b}, xmmword ptr [{tab} + ", at!(abs), "]\n",
            "vcmpps {t}, {t}, xmmword ptr [{tab} + ", at!(inf), "], 0x11\n",
            "vcmpps {u}, {u}, xmmword ptr [{tab} + ", at!(inf), "], 0x11\n",
            "vandps {t}, {t}, {u}\n",
            "vmovmskps {g:e}, {t}\n",
            "vcvtps2pd {x}, {a}\n",
            "vcvtps2pd {y}, {b}\n",
            "vcvtps2pd {w}, {s}\n",
            "vfmsub213pd {x}, {y}, {w}\n",
            "vmovhlps {y}, {a}, {a}\n",
            "vcvtps2pd {y}, {y}\n",
            "vmovhlps {w}, {b}, {b}\n",
            "vcvtps2pd {w}, {w}\n",
            "vmovhlps {u}, {s}, {s}\n",
            "vcvtps2pd {u}, {u}\n",
            "vfmsub213pd {y}, {w}, {u}\n",
            wide_step!("x", "y"),
            "vorps {f}, {a}, {b}\n",
            "vblendps {r}, {r}, {f}, 8\n",
        )
    };
}

/// [`tiny_mul32_text`] for the product `p = RN(a·b)`: the result and the lanes whose operands
/// are finite (`movmsk`).
#[inline(always)]
fn tiny_mul32(a: __m128, b: __m128, p: __m128, dir: u32) -> (__m128, u32) {
    let r: __m128;
    let g: u32;
    // SAFETY: the processor has AVX and FMA (the callers' contract); the assembly reads the
    // constant table only and writes its declared operands only, with 128-bit VEX
    // instructions.
    unsafe {
        asm!(
            tiny_mul32_text!(),
            a = in(xmm_reg) a,
            b = in(xmm_reg) b,
            s = in(xmm_reg) p,
            r = out(xmm_reg) r,
            t = out(xmm_reg) _,
            u = out(xmm_reg) _,
            w = out(xmm_reg) _,
            x = out(xmm_reg) _,
            y = out(xmm_reg) _,
            f = out(xmm_reg) _,
            g = out(reg) g,
            tab = in(reg) &C32,
            off = in(reg) row_offset(dir),
            options(pure, readonly, nostack, preserves_flags),
        );
    }
    (r, g)
}

/// `{$n}` = the bits of `{s}` one more where the sign of `{$x}` is clear and one less where it
/// is set (`$cmp`, the lane-wide signed comparison, makes `x > −1` all ones, −1; ORed with 1
/// that is minus the step, which `$sub` takes), after `$mask` (text that may zero the step in
/// some lanes): a result's neighbour, away from zero or toward it.
#[rustfmt::skip]
macro_rules! neighbour {
    ($cmp:literal, $sub:literal, $x:literal, $n:literal, $mask:expr) => {
        concat!(
            $cmp, " {", $n, "}, {", $x, "}, xmmword ptr [{tab} + ", at!(ones), "]\n",
            "vpor {", $n, "}, {", $n, "}, xmmword ptr [{tab} + ", at!(one), "]\n",
            $mask,
            $sub, " {", $n, "}, {s}, {", $n, "}\n",
        )
    };
}

/// The sign-flip mask of the drawn directions for the block at byte offset `$half` (`"0]"` or
/// `"16]"`) of the row `{off}`, as a memory operand: read where it is used, so that the block
/// holds no register for it (docs/performance.md).
macro_rules! dsign {
    ($half:literal) => {
        concat!("xmmword ptr [{tab} + {off} + ", at!(dsign), " + ", $half)
    };
}

/// One block of [`add_f64`]: `{x}`, `{y}` the flipped operands, `{s}` their sum rounded to
/// nearest, `{t}` the lanes where the exact sum lies above it, `{x}` its neighbour toward +∞
/// ([`neighbour`]), the choice flipped back into `$r`. `$sd` is `pd` for the first block and
/// `sd` for the second, whose arithmetic leaves the flags lane alone (its bits as a number are
/// most often subnormal, which some processors handle in microcode); the second then puts the
/// operands' flags in that lane.
#[rustfmt::skip]
macro_rules! add64_block {
    ($a:literal, $b:literal, $d:literal, $r:literal, $sd:literal, $keep:expr) => {
        concat!(
            "vxorpd {x}, {", $a, "}, ", dsign!($d), "\n",
            "vxorpd {y}, {", $b, "}, ", dsign!($d), "\n",
            "vadd", $sd, " {s}, {x}, {y}\n",
            "vsub", $sd, " {t}, {s}, {x}\n",
            "vsub", $sd, " {u}, {s}, {y}\n",
            "vcmplt", $sd, " {t}, {t}, {y}\n",
            "vcmplt", $sd, " {u}, {u}, {x}\n",
            "vorpd {t}, {t}, {u}\n",
            neighbour!("vpcmpgtq", "vpsubq", "s", "x", ""),
            "vblendvpd {", $r, "}, {s}, {x}, {t}\n",
            "vxorpd {", $r, "}, {", $r, "}, ", dsign!($d), "\n",
            $keep,
        )
    };
}

/// `a + b` for a build without AVX2 and FMA, on both blocks by the intrinsics kernel's
/// comparisons ([`super::add_f64`]), as the `f32` sum: no switch of MXCSR. On Zen 3, loops
/// with many sums under MXCSR (n-body) waited on the switches (docs/performance.md).
///
/// # Safety
///
/// The processor must have AVX2 and FMA.
#[inline(always)]
pub(crate) unsafe fn add_f64(a: [f64; 4], b: [f64; 4], dir: u32) -> [f64; 4] {
    let ([al, ah], [bl, bh]) = (v64(a), v64(b));
    let (rl, rh): (__m128, __m128);
    // SAFETY: the processor has AVX2 (the callers' contract); the assembly reads the constant
    // table only and writes its declared registers only, with 128-bit VEX instructions.
    unsafe {
        asm!(
            concat!(
                add64_block!("al", "bl", "0]", "rl", "pd", ""),
                add64_block!("ah", "bh", "16]", "rh", "sd", concat!(
                    "vorpd {x}, {ah}, {bh}\n",
                    "vblendpd {rh}, {rh}, {x}, 2\n",
                )),
            ),
            al = in(xmm_reg) al,
            ah = in(xmm_reg) ah,
            bl = in(xmm_reg) bl,
            bh = in(xmm_reg) bh,
            rl = out(xmm_reg) rl,
            rh = out(xmm_reg) rh,
            x = out(xmm_reg) _,
            y = out(xmm_reg) _,
            s = out(xmm_reg) _,
            t = out(xmm_reg) _,
            u = out(xmm_reg) _,
            tab = in(reg) &C64,
            off = in(reg) row_offset(dir),
            options(pure, readonly, nostack, preserves_flags),
        );
    }
    a64([rl, rh])
}

/// `$p` lanes: `a / b` into `{r}`, unless the quotient is not finite (an operand not finite,
/// a zero divisor, overflow) or the quotient or the dividend is below the tiny bound (the
/// remainder could underflow) and the dividend is not zero: those lanes in `{g}`. As the AVX2
/// intrinsics kernel: the neighbour of `q = RN(a/b)` the drawn way (`q` itself where `a` is
/// ±0) and `m = q·(b ⊕ s) − (a ⊕ s)`, `s` the sign of `b` flipped in the down lanes, exact by
/// one FMA and negative exactly where the quotient lies beyond `q` the drawn way. The
/// error-free form rather than rounding under MXCSR: no switch, which loops of many
/// operations (n-body) waited on (docs/performance.md).
#[rustfmt::skip]
macro_rules! div_text {
    ($p:literal, $cmp:literal, $sub:literal, $flags:literal) => {
        concat!(
            "vdivp", $p, " {s}, {a}, {b}\n",
            "vandp", $p, " {t}, {s}, xmmword ptr [{tab} + ", at!(abs), "]\n",
            "vandp", $p, " {x}, {a}, xmmword ptr [{tab} + ", at!(abs), "]\n",
            "vminp", $p, " {u}, {t}, {x}\n",
            "vcmpp", $p, " {u}, {u}, xmmword ptr [{tab} + ", at!(root), "], 0x11\n",
            "vcmpp", $p, " {w}, {a}, xmmword ptr [{tab} + ", at!(zero), "], 0\n",
            "vandnp", $p, " {u}, {w}, {u}\n",
            "vcmpp", $p, " {t}, {t}, xmmword ptr [{tab} + ", at!(inf), "], 0x15\n",
            "vorp", $p, " {t}, {t}, {u}\n",
            "vmovmskp", $p, " {g:e}, {t}\n",
            // u = the neighbour: minus the direction is −1 where the quotient's sign flipped
            // in the down lanes is clear, +1 where it is set, 0 where a is ±0.
            "vxorp", $p, " {x}, {a}, {b}\n",
            "vxorp", $p, " {x}, {x}, xmmword ptr [{tab} + {off} + ", at!(dsign), "]\n",
            neighbour!($cmp, $sub, "x", "u", "vpandn {u}, {w}, {u}\n"),
            // t = b ⊕ s = |b| ⊕ dsign, y = a ⊕ s; then t = m, whose sign picks the neighbour.
            "vandp", $p, " {t}, {b}, xmmword ptr [{tab} + ", at!(abs), "]\n",
            "vxorp", $p, " {y}, {b}, {t}\n",
            "vxorp", $p, " {y}, {y}, xmmword ptr [{tab} + {off} + ", at!(dsign), "]\n",
            "vxorp", $p, " {y}, {y}, {a}\n",
            "vxorp", $p, " {t}, {t}, xmmword ptr [{tab} + {off} + ", at!(dsign), "]\n",
            "vfmsub213p", $p, " {t}, {s}, {y}\n",
            "vblendvp", $p, " {r}, {s}, {u}, {t}\n",
            $flags,
        )
    };
}

kernel64!(
    div_f64,
    div_f64_ranged,
    div_text,
    div,
    (a, b),
    "vorpd {x}, {a}, {b}\nvblendpd {r}, {r}, {x}, 2\n",
    u,
    w,
    y
);

/// `a + b` on `f32` lanes by the intrinsics kernel's comparisons ([`super::add_f32`]): after the
/// down lanes' sign flips every lane rounds up, and `s = RN(a + b)` moves one unit up where
/// `RN(s − a) < b` or `RN(s − b) < a`, its neighbour computed beside the comparisons and
/// chosen by one blend. No switch of MXCSR, which independent sums would wait on in line
/// (docs/performance.md).
///
/// # Safety
///
/// The processor must have AVX2 and FMA.
#[inline(always)]
pub(crate) unsafe fn add_f32(a: [f32; 4], b: [f32; 4], dir: u32) -> [f32; 4] {
    let r: __m128;
    // SAFETY: as for `f64`, without the switch.
    unsafe {
        asm!(
            concat!(
                "vmovaps {d}, xmmword ptr [{tab} + {off} + ", at!(dsign), "]\n",
                "vxorps {x}, {a}, {d}\n",
                "vxorps {y}, {b}, {d}\n",
                "vaddps {s}, {x}, {y}\n",
                "vorps {f}, {a}, {b}\n",
                "vsubps {t}, {s}, {x}\n",
                "vsubps {u}, {s}, {y}\n",
                "vcmpltps {t}, {t}, {y}\n",
                "vcmpltps {u}, {u}, {x}\n",
                "vorps {t}, {t}, {u}\n",
                "vblendps {s}, {s}, {f}, 8\n",
                "vpsrad {x}, {s}, 31\n",
                "vpor {x}, {x}, xmmword ptr [{tab} + ", at!(one), "]\n",
                "vpand {x}, {x}, xmmword ptr [{tab} + ", at!(samples), "]\n",
                "vpaddd {x}, {s}, {x}\n",
                "vblendvps {r}, {s}, {x}, {t}\n",
                "vxorps {r}, {r}, {d}\n",
            ),
            a = in(xmm_reg) v32(a),
            b = in(xmm_reg) v32(b),
            r = out(xmm_reg) r,
            d = out(xmm_reg) _,
            x = out(xmm_reg) _,
            y = out(xmm_reg) _,
            s = out(xmm_reg) _,
            t = out(xmm_reg) _,
            u = out(xmm_reg) _,
            f = out(xmm_reg) _,
            tab = in(reg) &C32,
            off = in(reg) row_offset(dir),
            options(pure, readonly, nostack, preserves_flags),
        );
    }
    a32(r)
}

/// `a / b` for a build without AVX2 and FMA: [`div_text`] on `f32` lanes, the portable path
/// for the lanes out of its range.
///
/// # Safety
///
/// The processor must have AVX2 and FMA.
#[inline(always)]
pub(crate) unsafe fn div_f32(a: [f32; 4], b: [f32; 4], dir: u32) -> [f32; 4] {
    // SAFETY: the caller's.
    unsafe { div_f32_ranged(a, b, dir).0 }
}

/// [`div_f32`], and whether a sample took the portable path (out of the kernel's range).
///
/// # Safety
///
/// The processor must have AVX2 and FMA.
#[inline(always)]
pub(crate) unsafe fn div_f32_ranged(a: [f32; 4], b: [f32; 4], dir: u32) -> ([f32; 4], bool) {
    let (mut r, g) = block!(
        div_text,
        "s",
        "vpcmpgtd",
        "vpsubd",
        "vorps {x}, {a}, {b}\nvblendps {r}, {r}, {x}, 8\n",
        &C32,
        row_offset(dir),
        [a = v32(a), b = v32(b)],
        u,
        w,
        y
    );
    let ranged = g & 0b0111 != 0;
    if ranged {
        r = v32(slow(move || portable::div(a, b, dir)));
        in_registers(&mut r);
    }
    (a32(r), ranged)
}

/// `a·b + c`, randomly rounded: `(−a)·b + (−c)` rounded up, negated, in the down lanes.
///
/// # Safety
///
/// The processor must have AVX2 and FMA.
#[inline(always)]
pub(crate) unsafe fn fma_f64(a: [f64; 4], b: [f64; 4], c: [f64; 4], dir: u32) -> [f64; 4] {
    let ([al, ah], [bl, bh], [cl, ch]) = (v64(a), v64(b), v64(c));
    let (rl, rh): (__m128, __m128);
    // SAFETY: as in `add_f64`.
    unsafe {
        asm!(
            concat!(
                "vmovapd {dl}, xmmword ptr [{tab} + {off} + ", at!(dsign), "]\n",
                "vmovapd {dh}, xmmword ptr [{tab} + {off} + ", at!(dsign), " + 16]\n",
                "vxorpd {xl}, {al}, {dl}\n",
                "vxorpd {xh}, {ah}, {dh}\n",
                "vxorpd {yl}, {cl}, {dl}\n",
                "vxorpd {yh}, {ch}, {dh}\n",
                align_switch!(),
                "vldmxcsr dword ptr [{tab} + ", at!(ru), "]\n",
                "vfmadd213pd {xl}, {bl}, {yl}\n",
                "vfmadd213pd {xh}, {bh}, {yh}\n",
                "vldmxcsr dword ptr [{tab} + ", at!(rn), "]\n",
                "vorpd {f}, {ah}, {bh}\n",
                "vorpd {f}, {f}, {ch}\n",
                "vxorpd {rl}, {xl}, {dl}\n",
                "vxorpd {rh}, {xh}, {dh}\n",
                "vblendpd {rh}, {rh}, {f}, 2\n",
            ),
            al = in(xmm_reg) al,
            ah = in(xmm_reg) ah,
            bl = in(xmm_reg) bl,
            bh = in(xmm_reg) bh,
            cl = in(xmm_reg) cl,
            ch = in(xmm_reg) ch,
            rl = out(xmm_reg) rl,
            rh = out(xmm_reg) rh,
            dl = out(xmm_reg) _,
            dh = out(xmm_reg) _,
            xl = out(xmm_reg) _,
            xh = out(xmm_reg) _,
            yl = out(xmm_reg) _,
            yh = out(xmm_reg) _,
            f = out(xmm_reg) _,
            tab = in(reg) &C64,
            off = in(reg) row_offset(dir),
            options(pure, readonly, nostack, preserves_flags),
        );
    }
    a64([rl, rh])
}

/// The same for `f32`.
///
/// # Safety
///
/// The processor must have AVX2 and FMA.
#[inline(always)]
pub(crate) unsafe fn fma_f32(a: [f32; 4], b: [f32; 4], c: [f32; 4], dir: u32) -> [f32; 4] {
    let r: __m128;
    // SAFETY: as in `add_f64`.
    unsafe {
        asm!(
            concat!(
                "vmovaps {d}, xmmword ptr [{tab} + {off} + ", at!(dsign), "]\n",
                "vxorps {x}, {a}, {d}\n",
                "vxorps {y}, {c}, {d}\n",
                align_switch!(),
                "vldmxcsr dword ptr [{tab} + ", at!(ru), "]\n",
                "vfmadd213ps {x}, {b}, {y}\n",
                "vldmxcsr dword ptr [{tab} + ", at!(rn), "]\n",
                "vorps {f}, {a}, {b}\n",
                "vorps {f}, {f}, {c}\n",
                "vxorps {r}, {x}, {d}\n",
                "vblendps {r}, {r}, {f}, 8\n",
            ),
            a = in(xmm_reg) v32(a),
            b = in(xmm_reg) v32(b),
            c = in(xmm_reg) v32(c),
            r = out(xmm_reg) r,
            d = out(xmm_reg) _,
            x = out(xmm_reg) _,
            y = out(xmm_reg) _,
            f = out(xmm_reg) _,
            tab = in(reg) &C32,
            off = in(reg) row_offset(dir),
            options(pure, readonly, nostack, preserves_flags),
        );
    }
    a32(r)
}

/// `$p` lanes: `√a` into `{r}`, unless the radicand is below the root bound and not zero (the
/// remainder could underflow) or the root is not finite (a negative, NaN or infinite
/// radicand): those lanes in `{g}`. As the AVX2 intrinsics kernel: the neighbour of `q =
/// RN(√a)` the drawn way (`q` itself where `a` is ±0) and `m = (q ⊕ dsign)·q − (a ⊕ dsign)`,
/// exact by one FMA, whose sign picks the neighbour (the root lies beyond `q` that way); the
/// neighbour's step, `$sub` of minus the direction, waits on the radicand only. The error-free
/// form rather than rounding under MXCSR, which needs the root twice (upward, downward) and
/// three switches that no other operation overlaps (docs/performance.md).
#[rustfmt::skip]
macro_rules! sqrt_text {
    ($p:literal, $cmp:literal, $sub:literal, $flags:literal) => {
        concat!(sqrt_range_text!($p), sqrt_step_text!($p, $cmp, $sub, $flags))
    };
}

/// The first part of [`sqrt_text`]: the root `{s}`, the zero radicands' lanes `{w}` and the
/// rare lanes' `movmsk` in `{g}`.
#[rustfmt::skip]
macro_rules! sqrt_range_text {
    ($p:literal) => {
        concat!(
            "vsqrtp", $p, " {s}, {a}\n",
            "vcmpp", $p, " {u}, {s}, xmmword ptr [{tab} + ", at!(inf), "], 0x15\n",
            "vcmpp", $p, " {t}, {a}, xmmword ptr [{tab} + ", at!(root), "], 0x11\n",
            "vcmpp", $p, " {w}, {a}, xmmword ptr [{tab} + ", at!(zero), "], 0\n",
            "vandnp", $p, " {t}, {w}, {t}\n",
            "vorp", $p, " {t}, {t}, {u}\n",
            "vmovmskp", $p, " {g:e}, {t}\n",
        )
    };
}

/// The rest of [`sqrt_text`]: the neighbour, the remainder and the choice, into `{r}`.
#[rustfmt::skip]
macro_rules! sqrt_step_text {
    ($p:literal, $cmp:literal, $sub:literal, $flags:literal) => {
        concat!(
            // x = a ⊕ dsign; u = minus the direction: −1 where x ≥ 0 (up), +1 where the sign
            // is set (down), 0 where a is ±0; u = the neighbour.
            "vxorp", $p, " {x}, {a}, xmmword ptr [{tab} + {off} + ", at!(dsign), "]\n",
            neighbour!($cmp, $sub, "x", "u", "vpandn {u}, {w}, {u}\n"),
            // t = m; the neighbour where its sign is set.
            "vxorp", $p, " {t}, {s}, xmmword ptr [{tab} + {off} + ", at!(dsign), "]\n",
            "vfmsub213p", $p, " {t}, {s}, {x}\n",
            "vblendvp", $p, " {r}, {s}, {u}, {t}\n",
            $flags,
        )
    };
}

kernel64!(
    sqrt_f64,
    sqrt_f64_ranged,
    sqrt_text,
    sqrt,
    (a),
    "vblendpd {r}, {r}, {a}, 2\n",
    u,
    w
);
/// `√a` for a build without AVX2 and FMA: the first part of [`sqrt_text`]; then its rest where
/// every lane is in range, else [`tiny_sqrt32`] (whose range the portable path completes). In
/// two blocks, so that a tiny radicand's remainder, subnormal in `f32`, is never computed: an
/// FMA with a subnormal result takes a microcode assist on Intel processors.
///
/// # Safety
///
/// The processor must have AVX2 and FMA.
#[inline(always)]
pub(crate) unsafe fn sqrt_f32(a: [f32; 4], dir: u32) -> [f32; 4] {
    let (va, tab) = (v32(a), &C32);
    let (q, zero, g): (__m128, __m128, u32);
    // SAFETY: as in `block!`.
    unsafe {
        asm!(
            sqrt_range_text!("s"),
            a = in(xmm_reg) va,
            s = out(xmm_reg) q,
            w = out(xmm_reg) zero,
            t = out(xmm_reg) _,
            u = out(xmm_reg) _,
            g = out(reg) g,
            tab = in(reg) tab,
            options(pure, readonly, nostack, preserves_flags),
        );
    }
    if g & 0b0111 != 0 {
        super::rare();
        let (mut r, ok) = tiny_sqrt32(va, q, dir);
        if ok & 0b0111 != 0b0111 {
            r = v32(slow(move || portable::sqrt(a, dir)));
            in_registers(&mut r);
        }
        return a32(r);
    }
    let r: __m128;
    // SAFETY: as in `block!`.
    unsafe {
        asm!(
            sqrt_step_text!("s", "vpcmpgtd", "vpsubd", "vblendps {r}, {r}, {a}, 8\n"),
            a = in(xmm_reg) va,
            s = in(xmm_reg) q,
            w = in(xmm_reg) zero,
            r = out(xmm_reg) r,
            t = out(xmm_reg) _,
            u = out(xmm_reg) _,
            x = out(xmm_reg) _,
            tab = in(reg) tab,
            off = in(reg) row_offset(dir),
            options(pure, readonly, nostack, preserves_flags),
        );
    }
    a32(r)
}

/// `f32` lanes: the root `{s}` of `{a}` randomly rounded in `f64`, where the remainder
/// `a − q²` of `q = RN(√a)` is exact whatever the radicand's size and has the error's sign,
/// into `{r}`; the lanes whose radicand is finite and not below zero in `{g}`.
#[rustfmt::skip]
macro_rules! tiny_sqrt32_text {
    () => {
        concat!(
            "vcmpps {t}, {a}, xmmword ptr [{tab} + ", at!(zero), "], 0x1d\n",
            "vandps {u}, {a}, xmmword ptr [{tab} + ", at!(abs), "]\n",
            "vcmpps {u}, {u}, xmmword ptr [{tab} + ", at!(inf), "], 0x11\n",
            "vandps {t}, {t}, {u}\n",
            "vmovmskps {g:e}, {t}\n",
            "vcvtps2pd {x}, {s}\n",
            "vcvtps2pd {y}, {a}\n",
            "vfnmadd231pd {y}, {x}, {x}\n",
            "vmovhlps {u}, {s}, {s}\n",
            "vcvtps2pd {u}, {u}\n",
            "vmovhlps {w}, {a}, {a}\n",
            "vcvtps2pd {w}, {w}\n",
            "vfnmadd231pd {w}, {u}, {u}\n",
            wide_step!("y", "w"),
            "vblendps {r}, {r}, {a}, 8\n",
        )
    };
}

/// [`tiny_sqrt32_text`] for the root `q = RN(√a)`: the result and the lanes whose radicand it
/// takes (`movmsk`).
#[inline(always)]
fn tiny_sqrt32(a: __m128, q: __m128, dir: u32) -> (__m128, u32) {
    let r: __m128;
    let g: u32;
    // SAFETY: as in `tiny_mul32`.
    unsafe {
        asm!(
            tiny_sqrt32_text!(),
            a = in(xmm_reg) a,
            s = in(xmm_reg) q,
            r = out(xmm_reg) r,
            t = out(xmm_reg) _,
            u = out(xmm_reg) _,
            w = out(xmm_reg) _,
            x = out(xmm_reg) _,
            y = out(xmm_reg) _,
            g = out(reg) g,
            tab = in(reg) &C32,
            off = in(reg) row_offset(dir),
            options(pure, readonly, nostack, preserves_flags),
        );
    }
    (r, g)
}

/// The operand pre-test of a product or quotient `v ∘ r` (see `ops::pretest`'s
/// `far_operands`) on `f64` lanes `{vl}` = `[v₀, v₁]`, `{vh}` = `[v₂, ·]` and the same for
/// `r`: the signs of `|x₀| − 84·|xᵢ − x₀|` for `x` = `v` (bit 0 of `{g}`) and `r` (bit 1),
/// ORed over `i` = 1, 2, each one fused multiply-add (a NaN distance may set its bit, which
/// takes the checks for nothing).
#[rustfmt::skip]
macro_rules! operands_text {
    () => {
        concat!(
            "vunpcklpd {y}, {vl}, {rl}\n",
            "vunpckhpd {p}, {vl}, {rl}\n",
            "vunpcklpd {q}, {vh}, {rh}\n",
            "vsubpd {p}, {p}, {y}\n",
            "vsubpd {q}, {q}, {y}\n",
            "vandpd {p}, {p}, xmmword ptr [{tab} + ", at!(abs64), "]\n",
            "vandpd {q}, {q}, xmmword ptr [{tab} + ", at!(abs64), "]\n",
            "vandpd {y}, {y}, xmmword ptr [{tab} + ", at!(abs64), "]\n",
            "vfnmadd132pd {p}, {y}, xmmword ptr [{tab} + ", at!(operand_spread), "]\n",
            "vfnmadd132pd {q}, {y}, xmmword ptr [{tab} + ", at!(operand_spread), "]\n",
            "vorpd {p}, {p}, {q}\n",
            "vmovmskpd {g:e}, {p}\n",
        )
    };
}

/// The pre-test of a sum `r = a + b` (see `ops::add_pretest`) on `f64` lanes, with `{p}` =
/// `[m, m]`, `m = max(|a₀|, |b₀|)`, `{q}` = `F·m` (`F` the cancellation factor), `{rl}` =
/// `[r₀, r₁]` and `{rh}` = `[r₂, ·]`: `{g}` is nonzero where `|r₀| < F·m` (a possible
/// cancellation) or `|r₀| < min(m, S·|rᵢ − r₀|)` (a possible collapse: `r` shrank below its
/// larger operand and may be noise), `S` the tables' sum spread factor (`{tabs}`, at
/// `{sum_spread}`): 42, or 0 where collapses are not detected, so that no lane needs to be left
/// out of the mask. A sample `rᵢ` that is not finite passes the second (`vminpd` then returns
/// `m`): a sum with one takes the checks for nothing.
#[rustfmt::skip]
macro_rules! add_pre_text {
    () => {
        concat!(
            "vshufpd {w}, {rl}, {rh}, 1\n",
            "vmovddup {x}, {rl}\n",
            "vsubpd {w}, {w}, {x}\n",
            "vandpd {w}, {w}, xmmword ptr [{tab} + ", at!(abs64), "]\n",
            "vmulpd {w}, {w}, xmmword ptr [{tabs} + {sum_spread}]\n",
            "vminpd {w}, {w}, {p}\n",
            "vandpd {x}, {x}, xmmword ptr [{tab} + ", at!(abs64), "]\n",
            "vcmpltsd {q}, {x}, {q}\n",
            "vcmpltpd {w}, {x}, {w}\n",
            "vorpd {q}, {q}, {w}\n",
            "vmovmskpd {g:e}, {q}\n",
        )
    };
}

/// The pre-test of the checks of a product or quotient on its two operands, `v` and `r` here
/// (`f64` values): bit 0 where a sample of `v` lies further than `|v₀|/84` from `v₀`
/// ([`OPERAND_SPREAD`]), bit 1 the same for `r` (see `ops::pretest`'s `far_operands`).
///
/// # Safety
///
/// The processor must have AVX2 and FMA.
#[inline(always)]
pub(crate) unsafe fn operands_f64(v: [f64; 4], r: [f64; 4]) -> u32 {
    let (v, r) = (v64(v), v64(r));
    let g: u32;
    // SAFETY: as in the kernels.
    unsafe {
        asm!(
            operands_text!(),
            vl = in(xmm_reg) v[0],
            vh = in(xmm_reg) v[1],
            rl = in(xmm_reg) r[0],
            rh = in(xmm_reg) r[1],
            p = out(xmm_reg) _,
            q = out(xmm_reg) _,
            y = out(xmm_reg) _,
            g = lateout(reg) g,
            tab = in(reg) &C64,
            options(pure, readonly, nostack, preserves_flags),
        );
    }
    // `movmsk` of two lanes: bits 0 and 1 only.
    g
}

/// The same for `f32` values, in `f64` (no `f32` value and no difference of two is subnormal
/// there: on Intel processors, arithmetic on subnormal numbers takes a microcode assist, and
/// the differences of a decaying field's samples are subnormal in `f32`).
///
/// # Safety
///
/// The processor must have AVX2 and FMA.
#[inline(always)]
pub(crate) unsafe fn operands_f32(v: [f32; 4], r: [f32; 4]) -> u32 {
    let g: u32;
    // SAFETY: as in the kernels.
    unsafe {
        asm!(
            "vcvtps2pd {vl}, {v}\n",
            "vmovhlps {vh}, {v}, {v}\n",
            "vcvtps2pd {vh}, {vh}\n",
            "vcvtps2pd {rl}, {r}\n",
            "vmovhlps {rh}, {r}, {r}\n",
            "vcvtps2pd {rh}, {rh}\n",
            operands_text!(),
            v = in(xmm_reg) v32(v),
            r = in(xmm_reg) v32(r),
            vl = out(xmm_reg) _,
            vh = out(xmm_reg) _,
            rl = out(xmm_reg) _,
            rh = out(xmm_reg) _,
            p = out(xmm_reg) _,
            q = out(xmm_reg) _,
            y = out(xmm_reg) _,
            g = lateout(reg) g,
            tab = in(reg) &C32,
            options(pure, readonly, nostack, preserves_flags),
        );
    }
    // `movmsk` of two lanes: bits 0 and 1 only.
    g
}

/// The pre-test of an `f64` sum `r = a + b` with the factors of `tabs` (the cancellation
/// factor in force, and the sum spread factor that says whether collapses are detected):
/// nonzero where a cancellation or a collapse is possible (see [`add_pre_text!`]).
///
/// # Safety
///
/// The processor must have AVX2 and FMA.
#[inline(always)]
pub(crate) unsafe fn add_pre_f64(a: [f64; 4], b: [f64; 4], r: [f64; 4], tabs: &Tables) -> u32 {
    let (a, b, r) = (v64(a), v64(b), v64(r));
    let g: u32;
    // SAFETY: as in the kernels; the tables' factors are read as the processor stores them
    // (atomics that another thread may store to).
    unsafe {
        asm!(
            concat!(
            "vandpd {p}, {al}, xmmword ptr [{tab} + ", at!(abs64), "]\n",
            "vandpd {q}, {bl}, xmmword ptr [{tab} + ", at!(abs64), "]\n",
            "vmaxsd {p}, {p}, {q}\n",
            "vmovddup {p}, {p}\n",
            "vmulsd {q}, {p}, qword ptr [{tabs} + {cancel}]\n",
            ),
            add_pre_text!(),
            al = in(xmm_reg) a[0],
            bl = in(xmm_reg) b[0],
            rl = in(xmm_reg) r[0],
            rh = in(xmm_reg) r[1],
            p = out(xmm_reg) _,
            q = out(xmm_reg) _,
            w = out(xmm_reg) _,
            x = out(xmm_reg) _,
            g = lateout(reg) g,
            tab = in(reg) &C64,
            tabs = in(reg) tabs,
            cancel = const core::mem::offset_of!(Tables, cancel64),
            sum_spread = const SUM_SPREAD,
            options(pure, readonly, nostack, preserves_flags),
        );
    }
    g
}

/// The same for an `f32` sum, in `f64` (see [`noise2_f32`]), with the cancellation factor of
/// `tabs` for `f32`, widened.
///
/// # Safety
///
/// The processor must have AVX2 and FMA.
#[inline(always)]
pub(crate) unsafe fn add_pre_f32(a: [f32; 4], b: [f32; 4], r: [f32; 4], tabs: &Tables) -> u32 {
    let factor = f64::from(f32::from_bits(tabs.cancel32.load(Ordering::Relaxed)));
    let g: u32;
    // SAFETY: as in the kernels; as in `add_pre_f64`.
    unsafe {
        asm!(
            concat!(
            "vandps {p}, {a}, xmmword ptr [{tab} + ", at!(abs), "]\n",
            "vandps {q}, {b}, xmmword ptr [{tab} + ", at!(abs), "]\n",
            "vmaxss {p}, {p}, {q}\n",
            "vcvtss2sd {p}, {p}, {p}\n",
            "vmovddup {p}, {p}\n",
            "vmulsd {q}, {p}, {fac}\n",
            "vcvtps2pd {rl}, {r}\n",
            "vmovhlps {rh}, {r}, {r}\n",
            "vcvtps2pd {rh}, {rh}\n",
            ),
            add_pre_text!(),
            a = in(xmm_reg) v32(a),
            b = in(xmm_reg) v32(b),
            r = in(xmm_reg) v32(r),
            fac = in(xmm_reg) factor,
            rl = out(xmm_reg) _,
            rh = out(xmm_reg) _,
            p = out(xmm_reg) _,
            q = out(xmm_reg) _,
            w = out(xmm_reg) _,
            x = out(xmm_reg) _,
            g = lateout(reg) g,
            tab = in(reg) &C32,
            tabs = in(reg) tabs,
            sum_spread = const SUM_SPREAD,
            options(pure, readonly, nostack, preserves_flags),
        );
    }
    g
}
