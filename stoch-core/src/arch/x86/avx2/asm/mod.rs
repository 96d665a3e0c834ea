//! The AVX2 + FMA kernels from inline assembly, for builds whose target lacks AVX2 and FMA (the
//! default `x86-64` target above all) on a processor that has them: the path the process
//! chose at run time ([`crate::runtime::path`]).
//!
//! Contract: where the processor has AVX2 and FMA, each kernel gives the portable path's samples
//! for the same random bits, through assembly that needs no target feature from the compiler
//! and so inlines into the user's loop (a function with the features would be a call per
//! operation, and a call may change every vector register: docs/performance.md).
//!
//! - Only VEX-encoded 128-bit instructions, on registers the compiler allocates: each clears
//!   the upper half of the register it writes and leaves every other register alone, so the
//!   legacy SSE code around them pays no transition, and a caller built with AVX loses nothing
//!   it keeps elsewhere. An `f64` value is two registers (samples x and y; sample z and the
//!   flags lane), one block each; an `f32` value one.
//! - The algorithms are the intrinsics kernels' ([`super`]), in the value's own type: Fast2Sum's
//!   comparison on the operands ordered by magnitude for `+`, the exact product error, remainder and square remainder by one FMA for
//!   `*`, `/` and `sqrt`, Boldo and Muller's ErrFma for `mul_add`. A lane whose error term could
//!   underflow or whose TwoSums could overflow (and every non-finite one) is marked in a
//!   `movmsk`; a value with a marked sample takes the portable path, out of line.
//! - The constants and the direction rows are one static per type, [`C64`] and [`C32`], read
//!   as memory operands at the offsets the text names (checked at compile time below).

use core::arch::asm;
use core::arch::x86_64::__m128;

use crate::arch::portable::lanes4 as portable;
use crate::runtime::rng::row_offset;
use crate::runtime::state::SPREAD_FACTOR;

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
    /// The sign bit (272).
    sign: [u64; 2],
    /// Integer 1 per lane (288).
    one: [u64; 2],
    /// Zero (304).
    zero: [u64; 2],
    /// A product, quotient or radicand below this magnitude may have an error term that
    /// underflows (320).
    tiny: [u64; 2],
    /// +∞ (336).
    inf: [u64; 2],
    /// Below this magnitude the TwoSums of a fused multiply-add cannot overflow (352).
    huge: [u64; 2],
    /// The checks' spread factor, `f64` (368): the pre-tests compute in `f64` for both types.
    spread: [u64; 2],
    /// All bits but the sign of `f64` lanes (384).
    abs64: [u64; 2],
    /// All bits set: integer −1 per lane (400).
    ones: [u64; 2],
    /// Per direction code (the same rows), all ones in the three samples' lanes (416).
    samples: [Row; 4],
}

const _: () = {
    assert!(core::mem::offset_of!(Consts, dsign) == 128);
    assert!(core::mem::offset_of!(Consts, abs) == 256);
    assert!(core::mem::offset_of!(Consts, sign) == 272);
    assert!(core::mem::offset_of!(Consts, one) == 288);
    assert!(core::mem::offset_of!(Consts, zero) == 304);
    assert!(core::mem::offset_of!(Consts, tiny) == 320);
    assert!(core::mem::offset_of!(Consts, inf) == 336);
    assert!(core::mem::offset_of!(Consts, huge) == 352);
    assert!(core::mem::offset_of!(Consts, spread) == 368);
    assert!(core::mem::offset_of!(Consts, abs64) == 384);
    assert!(core::mem::offset_of!(Consts, ones) == 400);
    assert!(core::mem::offset_of!(Consts, samples) == 416);
};

/// The byte offsets of [`Consts`]' fields, as text for the templates.
macro_rules! at {
    (dsign) => {
        "128"
    };
    (abs) => {
        "256"
    };
    (sign) => {
        "272"
    };
    (one) => {
        "288"
    };
    (zero) => {
        "304"
    };
    (tiny) => {
        "320"
    };
    (inf) => {
        "336"
    };
    (huge) => {
        "352"
    };
    (spread) => {
        "368"
    };
    (abs64) => {
        "384"
    };
    (ones) => {
        "400"
    };
    (samples) => {
        "416"
    };
}

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

/// The `f64` constants.
pub(crate) static C64: Consts = Consts {
    down: rows(u64::MAX, true),
    dsign: rows(1 << 63, true),
    abs: pair(i64::MAX as u64),
    sign: pair(1 << 63),
    one: pair(1),
    zero: pair(0),
    tiny: pair(crate::arch::portable::TWO_M969.to_bits()),
    inf: pair(f64::INFINITY.to_bits()),
    huge: pair(super::TWO_1000.to_bits()),
    spread: pair(SPREAD_FACTOR.to_bits()),
    abs64: pair(i64::MAX as u64),
    ones: pair(u64::MAX),
    samples: [[u64::MAX, u64::MAX, u64::MAX, 0]; 4],
};

/// The `f32` constants: as in `f64`, the bounds scaled to `f32`'s range (2⁻¹⁰⁰ for the error
/// terms, which underflow below about 2⁻¹⁰²; 2¹⁰⁰ for ErrFma's TwoSums).
pub(crate) static C32: Consts = Consts {
    down: rows(0xffff_ffff, false),
    dsign: rows(1 << 31, false),
    abs: pair32(i32::MAX as u32),
    sign: pair32(1 << 31),
    one: pair32(1),
    zero: pair32(0),
    tiny: pair32(7.888_609e-31f32.to_bits()),
    inf: pair32(f32::INFINITY.to_bits()),
    huge: pair32(1.267_650_6e30f32.to_bits()),
    spread: pair(SPREAD_FACTOR.to_bits()),
    abs64: pair(i64::MAX as u64),
    ones: pair(u64::MAX),
    samples: [[u64::MAX, 0xffff_ffff, 0, 0]; 4],
};

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

/// The division's and square root's end, after `{u}` (the result's sign XOR the down lanes,
/// known from the operands) and `{w}` (a remainder that is negative exactly where the exact
/// result lies beyond `{s}` the drawn way): `{x}` minus the unit step of `{s}` the drawn way,
/// none where `{a}` is zero (an exact result) or in the flags lane; then `{r}` = `{s}` with
/// the flags (`$flags`), or its neighbour `{r} − {x}` where `{w}` is negative: one blend on
/// the remainder's sign, with no comparison or integer step on the result's path.
#[rustfmt::skip]
macro_rules! pick {
    ($p:literal, $cmp:literal, $sub:literal, $flags:literal) => {
        concat!(
            $cmp, " {x}, {u}, xmmword ptr [{tab} + ", at!(ones), "]\n",
            "vpor {x}, {x}, xmmword ptr [{tab} + ", at!(one), "]\n",
            "vcmpp", $p, " {u}, {a}, xmmword ptr [{tab} + ", at!(zero), "], 0x0c\n",
            "vpand {x}, {x}, {u}\n",
            "vpand {x}, {x}, xmmword ptr [{tab} + {off} + ", at!(samples), "]\n",
            "vmovap", $p, " {r}, {s}\n",
            $flags,
            $sub, " {t}, {r}, {x}\n",
            "vblendvp", $p, " {r}, {r}, {t}, {w}\n",
        )
    };
}

/// `$p` lanes: `a + b` into `{r}` (flags lane: `{f}`, the operands' OR), the rare lanes'
/// mask in `{g}`.
#[rustfmt::skip]
macro_rules! add_text {
    ($p:literal, $cmp:literal, $sub:literal, $flags:literal) => {
        concat!(
            "vaddp", $p, " {s}, {a}, {b}\n",
            // Rare: a sum that is not finite. Fast2Sum on ordered operands cannot overflow.
            "vandp", $p, " {t}, {s}, xmmword ptr [{tab} + ", at!(abs), "]\n",
            "vcmpp", $p, " {t}, {t}, xmmword ptr [{tab} + ", at!(inf), "], 0x15\n",
            "vmovmskp", $p, " {g:e}, {t}\n",
            // Fast2Sum on the operands ordered by magnitude: |a| < |b| exactly where `a + b`
            // and `a − b` differ in sign (either order serves where |a| = |b|), the sign bit of
            // `{w}`. The error `small − (s − big)` is exact, and its sign is a comparison of
            // `small` with `s − big`, made `>` in the up lanes and `<` in the down ones by
            // flipping both signs there.
            "vsubp", $p, " {w}, {a}, {b}\n",
            "vxorp", $p, " {w}, {w}, {s}\n",
            "vblendvp", $p, " {u}, {a}, {b}, {w}\n",
            "vblendvp", $p, " {w}, {b}, {a}, {w}\n",
            "vsubp", $p, " {u}, {s}, {u}\n",
            "vmovap", $p, " {t}, xmmword ptr [{tab} + {off} + ", at!(dsign), "]\n",
            "vxorp", $p, " {w}, {w}, {t}\n",
            "vxorp", $p, " {u}, {u}, {t}\n",
            "vcmpp", $p, " {t}, {w}, {u}, 0x1e\n",
            step!($cmp, $sub),
            // An exact zero sum rounded down is −0 unless both operands are +0: the OR of
            // their signs where the sum is zero in a down lane.
            "vorp", $p, " {f}, {a}, {b}\n",
            "vcmpp", $p, " {t}, {s}, xmmword ptr [{tab} + ", at!(zero), "], 0\n",
            "vandp", $p, " {t}, {t}, xmmword ptr [{tab} + {off} + ", at!(dsign), "]\n",
            "vandp", $p, " {t}, {t}, {f}\n",
            "vorp", $p, " {r}, {r}, {t}\n",
            $flags,
        )
    };
}

/// `$p` lanes: `a · b` into `{r}`, the error `a·b − p` exact by one FMA unless the product is
/// below the tiny bound with no zero operand (or not finite): those lanes in `{g}`.
#[rustfmt::skip]
macro_rules! mul_text {
    ($p:literal, $cmp:literal, $sub:literal, $flags:literal) => {
        concat!(
            "vmulp", $p, " {s}, {a}, {b}\n",
            "vandp", $p, " {t}, {s}, xmmword ptr [{tab} + ", at!(abs), "]\n",
            "vcmpp", $p, " {u}, {t}, xmmword ptr [{tab} + ", at!(inf), "], 0x15\n",
            "vcmpp", $p, " {t}, {t}, xmmword ptr [{tab} + ", at!(tiny), "], 0x11\n",
            "vcmpp", $p, " {w}, {a}, xmmword ptr [{tab} + ", at!(zero), "], 0\n",
            "vcmpp", $p, " {f}, {b}, xmmword ptr [{tab} + ", at!(zero), "], 0\n",
            "vorp", $p, " {w}, {w}, {f}\n",
            "vandnp", $p, " {t}, {w}, {t}\n",
            "vorp", $p, " {t}, {t}, {u}\n",
            "vmovmskp", $p, " {g:e}, {t}\n",
            "vmovap", $p, " {t}, {s}\n",
            "vfmsub231p", $p, " {t}, {a}, {b}\n",
            points!($p),
            step!($cmp, $sub),
            $flags,
        )
    };
}

/// `$p` lanes: `a / b` into `{r}`, the remainder `a − q·b` exact by one FMA (its sign times
/// that of `b` is the error's) unless the quotient or the dividend is below the tiny bound
/// with a nonzero dividend (or the quotient is not finite): those lanes in `{g}`. An infinite
/// divisor and a zero dividend leave the remainder NaN, which moves nothing: the zero quotient
/// is exact.
#[rustfmt::skip]
macro_rules! div_text {
    ($p:literal, $cmp:literal, $sub:literal, $flags:literal) => {
        concat!(
            "vdivp", $p, " {s}, {a}, {b}\n",
            "vandp", $p, " {t}, {s}, xmmword ptr [{tab} + ", at!(abs), "]\n",
            "vcmpp", $p, " {u}, {t}, xmmword ptr [{tab} + ", at!(inf), "], 0x15\n",
            "vandp", $p, " {w}, {a}, xmmword ptr [{tab} + ", at!(abs), "]\n",
            "vminp", $p, " {t}, {t}, {w}\n",
            "vcmpp", $p, " {t}, {t}, xmmword ptr [{tab} + ", at!(tiny), "], 0x11\n",
            "vcmpp", $p, " {w}, {a}, xmmword ptr [{tab} + ", at!(zero), "], 0\n",
            "vandnp", $p, " {t}, {w}, {t}\n",
            "vorp", $p, " {t}, {t}, {u}\n",
            "vmovmskp", $p, " {g:e}, {t}\n",
            // `q·b − a` with both operands' signs flipped by the sign of `b` and in the down
            // lanes ({w}); the quotient's sign, the operands', XOR the down lanes ({u}).
            "vandp", $p, " {f}, {b}, xmmword ptr [{tab} + ", at!(sign), "]\n",
            "vxorp", $p, " {f}, {f}, xmmword ptr [{tab} + {off} + ", at!(dsign), "]\n",
            "vxorp", $p, " {u}, {b}, {f}\n",
            "vxorp", $p, " {w}, {a}, {f}\n",
            "vfmsub231p", $p, " {w}, {s}, {u}\n",
            "vxorp", $p, " {u}, {a}, {b}\n",
            "vxorp", $p, " {u}, {u}, xmmword ptr [{tab} + {off} + ", at!(dsign), "]\n",
            pick!($p, $cmp, $sub, $flags),
        )
    };
}

/// `$p` lanes: `sqrt(a)` into `{r}` (flags lane: `{a}`'s), the remainder `x − q²` exact by
/// one FMA unless `x` is below the tiny bound and not zero (or the root not finite): those
/// lanes in `{g}`.
#[rustfmt::skip]
macro_rules! sqrt_text {
    ($p:literal, $cmp:literal, $sub:literal, $flags:literal) => {
        concat!(
            "vsqrtp", $p, " {s}, {a}\n",
            "vcmpp", $p, " {u}, {s}, xmmword ptr [{tab} + ", at!(inf), "], 0x15\n",
            "vcmpp", $p, " {t}, {a}, xmmword ptr [{tab} + ", at!(tiny), "], 0x11\n",
            "vcmpp", $p, " {w}, {a}, xmmword ptr [{tab} + ", at!(zero), "], 0\n",
            "vandnp", $p, " {t}, {w}, {t}\n",
            "vorp", $p, " {t}, {t}, {u}\n",
            "vmovmskp", $p, " {g:e}, {t}\n",
            // `q² − x` with the signs flipped in the down lanes ({w}); the root's sign, the
            // radicand's, XOR the down lanes ({u}).
            "vxorp", $p, " {u}, {s}, xmmword ptr [{tab} + {off} + ", at!(dsign), "]\n",
            "vxorp", $p, " {w}, {a}, xmmword ptr [{tab} + {off} + ", at!(dsign), "]\n",
            "vfmsub231p", $p, " {w}, {u}, {s}\n",
            "vxorp", $p, " {u}, {a}, xmmword ptr [{tab} + {off} + ", at!(dsign), "]\n",
            pick!($p, $cmp, $sub, $flags),
        )
    };
}

/// `$p` lanes: `a·b + c` into `{r}` by ErrFma (see [`super::fma_f64`]): with `(u1, u2)` the
/// exact product, `(v1, v2) = TwoSum(c, u2)`, `(w1, w2) = TwoSum(u1, v1)` and
/// `t = (w1 − r) + w2`, the error is `t + v2`, whose sign is a comparison of `t` with `−v2`.
/// Rare (`{g}`): a product below the tiny bound with no zero factor, or anything not below the
/// huge bound (a NaN result passes on through `max`).
#[rustfmt::skip]
macro_rules! fma_text {
    ($p:literal, $cmp:literal, $sub:literal, $flags:literal) => {
        concat!(
            "vmovap", $p, " {s}, {c}\n",
            "vfmadd231p", $p, " {s}, {a}, {b}\n",
            "vmulp", $p, " {u}, {a}, {b}\n",
            "vandp", $p, " {t}, {u}, xmmword ptr [{tab} + ", at!(abs), "]\n",
            "vcmpp", $p, " {w}, {t}, xmmword ptr [{tab} + ", at!(tiny), "], 0x11\n",
            "vcmpp", $p, " {x}, {a}, xmmword ptr [{tab} + ", at!(zero), "], 0\n",
            "vcmpp", $p, " {y}, {b}, xmmword ptr [{tab} + ", at!(zero), "], 0\n",
            "vorp", $p, " {x}, {x}, {y}\n",
            "vandnp", $p, " {w}, {x}, {w}\n",
            "vandp", $p, " {x}, {c}, xmmword ptr [{tab} + ", at!(abs), "]\n",
            "vmaxp", $p, " {t}, {t}, {x}\n",
            "vandp", $p, " {x}, {s}, xmmword ptr [{tab} + ", at!(abs), "]\n",
            "vmaxp", $p, " {t}, {t}, {x}\n",
            "vcmpp", $p, " {t}, {t}, xmmword ptr [{tab} + ", at!(huge), "], 0x15\n",
            "vorp", $p, " {t}, {t}, {w}\n",
            "vmovmskp", $p, " {g:e}, {t}\n",
            // u2, then (v1 = {w}, v2 = {f}) = TwoSum(c, u2).
            "vmovap", $p, " {t}, {u}\n",
            "vfmsub231p", $p, " {t}, {a}, {b}\n",
            "vaddp", $p, " {w}, {c}, {t}\n",
            "vsubp", $p, " {x}, {w}, {c}\n",
            "vsubp", $p, " {y}, {w}, {x}\n",
            "vsubp", $p, " {y}, {c}, {y}\n",
            "vsubp", $p, " {x}, {t}, {x}\n",
            "vaddp", $p, " {f}, {y}, {x}\n",
            // (w1 = {t}, w2 = {y}) = TwoSum(u1, v1); then t = (w1 − r) + w2.
            "vaddp", $p, " {t}, {u}, {w}\n",
            "vsubp", $p, " {x}, {t}, {u}\n",
            "vsubp", $p, " {y}, {t}, {x}\n",
            "vsubp", $p, " {y}, {u}, {y}\n",
            "vsubp", $p, " {x}, {w}, {x}\n",
            "vaddp", $p, " {y}, {y}, {x}\n",
            "vsubp", $p, " {t}, {t}, {s}\n",
            "vaddp", $p, " {t}, {t}, {y}\n",
            // t > −v2 in the up lanes, t < −v2 in the down ones (both signs flipped there).
            "vxorp", $p, " {f}, {f}, xmmword ptr [{tab} + ", at!(sign), "]\n",
            "vmovap", $p, " {x}, xmmword ptr [{tab} + {off} + ", at!(dsign), "]\n",
            "vxorp", $p, " {t}, {t}, {x}\n",
            "vxorp", $p, " {f}, {f}, {x}\n",
            "vcmpp", $p, " {t}, {t}, {f}, 0x1e\n",
            // An exact zero rounded down is −0 unless a·b and c are both +0 (the OR of the
            // signs of a·b and c); r is then an exact zero and moves nowhere.
            "vcmpp", $p, " {w}, {s}, xmmword ptr [{tab} + ", at!(zero), "], 0\n",
            "vandp", $p, " {w}, {w}, xmmword ptr [{tab} + {off} + ", at!(dsign), "]\n",
            "vxorp", $p, " {x}, {a}, {b}\n",
            "vorp", $p, " {x}, {x}, {c}\n",
            "vandp", $p, " {w}, {w}, {x}\n",
            "vorp", $p, " {s}, {s}, {w}\n",
            step!($cmp, $sub),
            "vorp", $p, " {f}, {a}, {b}\n",
            "vorp", $p, " {f}, {f}, {c}\n",
            $flags,
        )
    };
}

/// One kernel block: the text `$text` for lanes of `$p` (`$flags`: how the flags lane is
/// kept), on the registers `$a`, `$b`, `$c` (as many as the text names), the direction rows
/// of `$tab` at `$off`; the result register and the rare lanes' `movmsk`.
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
                u = out(xmm_reg) _,
                w = out(xmm_reg) _,
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

/// An `f32` value as one register.
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
    ($name:ident, $text:ident, $portable:ident, ($($x:ident),+), $keep:literal $(, $extra:ident)*) => {
        /// The kernel of the same name for a build without AVX2 and FMA.
        ///
        /// # Safety
        ///
        /// The processor must have AVX2 and FMA.
        #[inline(always)]
        pub(crate) unsafe fn $name($($x: [f64; 4],)+ dir: u32) -> [f64; 4] {
            let off = row_offset(dir);
            let tab = &C64;
            let halves = ($(v64($x),)+);
            #[allow(non_snake_case)]
            let ($($x,)+) = halves;
            let (mut lo, g) = block!($text, "d", "vpcmpgtq", "vpsubq", "", tab, off, [$($x = $x[0]),+] $(, $extra)*);
            let (mut hi, h) = block!($text, "d", "vpcmpgtq", "vpsubq", $keep, tab, off + 16, [$($x = $x[1]),+] $(, $extra)*);
            if (g & 0b11) | (h & 0b01) != 0 {
                [lo, hi] = v64(slow(move || portable::$portable($(a64($x),)+ dir)));
                in_registers(&mut lo);
                in_registers(&mut hi);
            }
            a64([lo, hi])
        }
    };
}

/// The same for `f32`: one block.
macro_rules! kernel32 {
    ($name:ident, $text:ident, $portable:ident, ($($x:ident),+), $keep:literal $(, $extra:ident)*) => {
        /// The kernel of the same name for a build without AVX2 and FMA.
        ///
        /// # Safety
        ///
        /// The processor must have AVX2 and FMA.
        #[inline(always)]
        pub(crate) unsafe fn $name($($x: [f32; 4],)+ dir: u32) -> [f32; 4] {
            let (mut r, g) = block!($text, "s", "vpcmpgtd", "vpsubd", $keep, &C32, row_offset(dir), [$($x = v32($x)),+] $(, $extra)*);
            if g & 0b0111 != 0 {
                r = v32(slow(move || portable::$portable($($x,)+ dir)));
                in_registers(&mut r);
            }
            a32(r)
        }
    };
}

// The flags lane (lane 1 of an `f64` value's upper register, lane 3 of an `f32` one): the OR
// of the operands' (`{f}`, which the sums and fused multiply-adds compute anyway), or the
// operand's own for a square root.
kernel64!(
    add_f64,
    add_text,
    add,
    (a, b),
    "vblendpd {r}, {r}, {f}, 2\n",
    f
);
kernel64!(
    mul_f64,
    mul_text,
    mul,
    (a, b),
    "vorpd {f}, {a}, {b}\nvblendpd {r}, {r}, {f}, 2\n",
    f
);
kernel64!(
    div_f64,
    div_text,
    div,
    (a, b),
    "vorpd {f}, {a}, {b}\nvblendpd {r}, {r}, {f}, 2\n",
    f
);
kernel64!(
    sqrt_f64,
    sqrt_text,
    sqrt,
    (a),
    "vblendpd {r}, {r}, {a}, 2\n"
);
kernel64!(
    fma_f64,
    fma_text,
    fma,
    (a, b, c),
    "vblendpd {r}, {r}, {f}, 2\n",
    y,
    f
);
kernel32!(
    add_f32,
    add_text,
    add,
    (a, b),
    "vblendps {r}, {r}, {f}, 8\n",
    f
);
kernel32!(
    mul_f32,
    mul_text,
    mul,
    (a, b),
    "vorps {f}, {a}, {b}\nvblendps {r}, {r}, {f}, 8\n",
    f
);
kernel32!(
    div_f32,
    div_text,
    div,
    (a, b),
    "vorps {f}, {a}, {b}\nvblendps {r}, {r}, {f}, 8\n",
    f
);
kernel32!(
    sqrt_f32,
    sqrt_text,
    sqrt,
    (a),
    "vblendps {r}, {r}, {a}, 8\n"
);
kernel32!(
    fma_f32,
    fma_text,
    fma,
    (a, b, c),
    "vblendps {r}, {r}, {f}, 8\n",
    y,
    f
);

/// The noise pre-tests of a value `v` and a result `r` at once (see `ops::maybe_noise`), on
/// `f64` lanes `{vl}` = `[v₀, v₁]`, `{vh}` = `[v₂, ·]` and the same for `r`: the signs of
/// `|x₀| − 42·|xᵢ − x₀|` for `x` = `v` (bit 0 of `{g}`) and `r` (bit 1), ORed over `i` = 1, 2
/// (a NaN distance leaves the other's answer, as in `maybe_noise`), each one fused
/// multiply-add with one rounding where `maybe_noise` rounds the product first: they differ
/// only where `42·|xᵢ − x₀|` rounds to `|x₀|`, a spread far below noise, or for a NaN
/// distance with its sign set, which takes the checks for nothing.
#[rustfmt::skip]
macro_rules! noise2_text {
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
            "vfnmadd132pd {p}, {y}, xmmword ptr [{tab} + ", at!(spread), "]\n",
            "vfnmadd132pd {q}, {y}, xmmword ptr [{tab} + ", at!(spread), "]\n",
            "vorpd {p}, {p}, {q}\n",
            "vmovmskpd {g:e}, {p}\n",
        )
    };
}

/// The pre-test of a sum `r = a + b` (see `ops::add_pretest`) on `f64` lanes, with `{p}` =
/// `[m, m]`, `m = max(|a₀|, |b₀|)`, `{fac}` the cancellation factor `F`, `{rl}` = `[r₀, r₁]`
/// and `{rh}` = `[r₂, ·]`: bit 0 of `{g}` is `|r₀| < F·m` (a possible cancellation), bits 0
/// and 1 of `{h}` are `|r₀| < min(m, 42·|rᵢ − r₀|)` (a possible collapse: `r` shrank below its
/// larger operand and may be noise). A NaN sample `rᵢ` passes the second (`vminpd` then
/// returns `m`): a sum with one takes the checks for nothing.
#[rustfmt::skip]
macro_rules! add_pre_text {
    () => {
        concat!(
            "vmulsd {q}, {p}, {fac}\n",
            "vshufpd {w}, {rl}, {rh}, 1\n",
            "vmovddup {x}, {rl}\n",
            "vsubpd {w}, {w}, {x}\n",
            "vandpd {w}, {w}, xmmword ptr [{tab} + ", at!(abs64), "]\n",
            "vmulpd {w}, {w}, xmmword ptr [{tab} + ", at!(spread), "]\n",
            "vminpd {w}, {w}, {p}\n",
            "vandpd {x}, {x}, xmmword ptr [{tab} + ", at!(abs64), "]\n",
            "vcmpltsd {q}, {x}, {q}\n",
            "vcmpltpd {w}, {x}, {w}\n",
            "vmovmskpd {g:e}, {q}\n",
            "vmovmskpd {h:e}, {w}\n",
        )
    };
}

/// The noise pre-tests of `v` and of the result `r` of `f64` values: bit 0 where `v` may be
/// noise, bit 1 where `r` may.
///
/// # Safety
///
/// The processor must have AVX2 and FMA.
#[inline(always)]
pub(crate) unsafe fn noise2_f64(v: [f64; 4], r: [f64; 4]) -> u32 {
    let (v, r) = (v64(v), v64(r));
    let g: u32;
    // SAFETY: as in the kernels.
    unsafe {
        asm!(
            noise2_text!(),
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
    g & 0b11
}

/// The same for `f32` values, in `f64` (no `f32` value and no difference of two is subnormal
/// there: on Intel processors, arithmetic on subnormal numbers takes a microcode assist, and
/// the differences of a decaying field's samples are subnormal in `f32`).
///
/// # Safety
///
/// The processor must have AVX2 and FMA.
#[inline(always)]
pub(crate) unsafe fn noise2_f32(v: [f32; 4], r: [f32; 4]) -> u32 {
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
            noise2_text!(),
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
    g & 0b11
}

/// The pre-test of an `f64` sum `r = a + b` with cancellation factor `factor`: bit 0 a
/// possible cancellation, bits 1 and 2 a possible collapse (see [`add_pre_text!`]).
///
/// # Safety
///
/// The processor must have AVX2 and FMA.
#[inline(always)]
pub(crate) unsafe fn add_pre_f64(a: [f64; 4], b: [f64; 4], r: [f64; 4], factor: f64) -> u32 {
    let (a, b, r) = (v64(a), v64(b), v64(r));
    let (g, h): (u32, u32);
    // SAFETY: as in the kernels.
    unsafe {
        asm!(
            concat!(
            "vandpd {p}, {al}, xmmword ptr [{tab} + ", at!(abs64), "]\n",
            "vandpd {q}, {bl}, xmmword ptr [{tab} + ", at!(abs64), "]\n",
            "vmaxsd {p}, {p}, {q}\n",
            "vmovddup {p}, {p}\n",
            ),
            add_pre_text!(),
            al = in(xmm_reg) a[0],
            bl = in(xmm_reg) b[0],
            rl = in(xmm_reg) r[0],
            rh = in(xmm_reg) r[1],
            fac = in(xmm_reg) factor,
            p = out(xmm_reg) _,
            q = out(xmm_reg) _,
            w = out(xmm_reg) _,
            x = out(xmm_reg) _,
            g = lateout(reg) g,
            h = lateout(reg) h,
            tab = in(reg) &C64,
            options(pure, readonly, nostack, preserves_flags),
        );
    }
    (g & 1) | (h & 0b11) << 1
}

/// The same for an `f32` sum, in `f64` (see [`noise2_f32`]); `factor` is the `f32` factor,
/// widened.
///
/// # Safety
///
/// The processor must have AVX2 and FMA.
#[inline(always)]
pub(crate) unsafe fn add_pre_f32(a: [f32; 4], b: [f32; 4], r: [f32; 4], factor: f64) -> u32 {
    let (g, h): (u32, u32);
    // SAFETY: as in the kernels.
    unsafe {
        asm!(
            concat!(
            "vandps {p}, {a}, xmmword ptr [{tab} + ", at!(abs), "]\n",
            "vandps {q}, {b}, xmmword ptr [{tab} + ", at!(abs), "]\n",
            "vmaxss {p}, {p}, {q}\n",
            "vcvtss2sd {p}, {p}, {p}\n",
            "vmovddup {p}, {p}\n",
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
            h = lateout(reg) h,
            tab = in(reg) &C32,
            options(pure, readonly, nostack, preserves_flags),
        );
    }
    (g & 1) | (h & 0b11) << 1
}
