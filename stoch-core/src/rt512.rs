//! AVX-512 embedded rounding chosen at run time, for builds whose target does not enable
//! AVX-512 (the default `x86-64` target above all).
//!
//! A program built for the default target runs the portable path: software directed rounding
//! from error-free transformations, with Dekker's products where the target has no FMA, several
//! times slower (the `overhead` example, checks off: dot 33x the plain time, wave 77x). When the
//! processor it runs on has AVX-512F, the five kernels below (`+`, `*`, `/`, fused multiply-add
//! and square root, for `f32` and `f64`) run AVX-512 embedded rounding instead, written as
//! inline assembly: it needs no target feature from the compiler, so it is inlined into the
//! user's loop like the rest of the operation (checks off: dot 3.7x, wave 14x). Only registers
//! the compiler allocated are written.
//!
//! The kernels round with the compile-time path's sign identities (`RD(x) = −RU(−x)` on
//! sign-masked operands), but with one scalar instruction per sample (`vaddsd {ru-sae}` and
//! friends) where that path uses one 512-bit instruction for the three. A 512-bit instruction
//! leaves the upper halves of the vector registers in use, and the legacy SSE code the compiler
//! writes around the kernel then runs slower (on a Zen 4, dot product 8.8x instead of 5.1x,
//! checks off; a stencil with every check on 42-47x instead of 25x). `vzeroupper` would clear
//! that state, but the compiler does not know that it clears the upper half of every register:
//! in a function that enables AVX itself (`#[target_feature]`) it could keep a 256-bit value
//! live across the kernel and lose half of it.
//!
//! The choice is made once per process, when the first thread seeds its random generator
//! ([`detect`]), and costs one load and one well-predicted branch per operation.
//! `STOCH_PORTABLE=1` keeps the portable path (to compare the two).

use core::arch::asm;
use core::arch::x86_64::{__m128, __m128d};
#[cfg(not(target_feature = "avx512f"))]
use core::sync::atomic::{AtomicBool, Ordering};

use crate::rounding::row_offset;

/// Whether the kernels below are the ones dispatched.
#[cfg(not(target_feature = "avx512f"))]
static ON: AtomicBool = AtomicBool::new(false);

/// Whether this processor has AVX-512F (the kernels below may run).
#[inline]
pub(crate) fn available() -> bool {
    std::is_x86_feature_detected!("avx512f")
}

/// Chooses the path for this process (once, through [`ensure_detected`]): the kernels below
/// when the processor has AVX-512F and `STOCH_PORTABLE` does not ask for the portable path.
#[cfg(not(target_feature = "avx512f"))]
fn detect() {
    ON.store(available() && !portable_requested(), Ordering::Relaxed);
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
    let on = ON.load(Ordering::Relaxed);
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

/// Sign masks (−0.0 = round down) of lanes x, y, z for the two random bits; lane 3 is 0 (the
/// compile-time AVX-512 path uses them too).
pub(crate) static MASK_F64: [[f64; 4]; 4] = [
    [0.0, 0.0, -0.0, 0.0],
    [-0.0, 0.0, -0.0, 0.0],
    [0.0, -0.0, 0.0, 0.0],
    [-0.0, -0.0, 0.0, 0.0],
];
/// The same for `f32` lanes, rows padded to 32 bytes (rows are read at the byte offset the
/// direction word gives, [`crate::rounding::row`]).
pub(crate) static MASK_F32: [[f32; 8]; 4] = [
    [0.0, 0.0, -0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    [-0.0, 0.0, -0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    [0.0, -0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    [-0.0, -0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
];

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

/// `op` (`vaddsd`, `vmulsd` or `vdivsd`) with random rounding on f64 lanes, one scalar
/// instruction per sample: `$bx`/`$bxhi` name the registers that hold `b` as the instruction
/// reads it (sums sign-mask both operands into `y`/`g`; products and quotients one, and read
/// `b` and `bhi` as they are). The operands are read only (three-operand forms), so the
/// compiler keeps them where they are for the checks that follow, without copies.
macro_rules! binop64 {
    (
        $name:ident,
        $insn:literal,
        $xor_b:literal,
        $bx:literal,
        $xor_bhi:literal,
        $bxhi:literal,
        [$($y:tt)*]
    ) => {
        /// Random rounding of the three samples (lane 3: OR of the flags lanes). Only where
        /// [`available`] says the processor has AVX-512F.
        #[inline(always)]
        pub(crate) fn $name(a: [f64; 4], b: [f64; 4], dir: u32) -> [f64; 4] {
            let ((alo, ahi), (blo, bhi)) = (split64(a), split64(b));
            let (lo, hi): (__m128d, __m128d);
            // SAFETY: the processor has AVX-512F (callers check `on`/`available`); the assembly
            // reads the mask table only and writes its declared operands only. `lo` and `hi`
            // are written after the last read of an input (they may share its register).
            unsafe {
                asm!(
                    "vmovupd {m}, [{tab} + {off}]",
                    "vmovupd {mh}, [{tab} + {off} + 16]",
                    "vorpd {f}, {ahi}, {bhi}",
                    "vxorpd {x}, {a}, {m}",
                    $xor_b,
                    "vpermilpd {t}, {x}, 1",
                    concat!("vpermilpd {u}, ", $bx, ", 1"),
                    concat!($insn, " {x}, {x}, ", $bx, ", {{ru-sae}}"),
                    concat!($insn, " {t}, {t}, {u}, {{ru-sae}}"),
                    "vxorpd {u}, {ahi}, {mh}",
                    $xor_bhi,
                    concat!($insn, " {u}, {u}, ", $bxhi, ", {{ru-sae}}"),
                    "vunpcklpd {x}, {x}, {t}",
                    "vxorpd {lo}, {x}, {m}",
                    "vxorpd {u}, {u}, {mh}",
                    "vblendpd {hi}, {u}, {f}, 2",
                    a = in(xmm_reg) alo,
                    ahi = in(xmm_reg) ahi,
                    b = in(xmm_reg) blo,
                    bhi = in(xmm_reg) bhi,
                    lo = lateout(xmm_reg) lo,
                    hi = lateout(xmm_reg) hi,
                    f = out(xmm_reg) _,
                    m = out(xmm_reg) _,
                    mh = out(xmm_reg) _,
                    x = out(xmm_reg) _,
                    $($y)*
                    t = out(xmm_reg) _,
                    u = out(xmm_reg) _,
                    tab = in(reg) MASK_F64.as_ptr(),
                    off = in(reg) row_offset(dir),
                    options(pure, readonly, nostack, preserves_flags),
                );
            }
            join64(lo, hi)
        }
    };
}

/// The same on f32 lanes (one register).
macro_rules! binop32 {
    ($name:ident, $insn:literal, $xor_b:literal, $bx:literal, [$($y:tt)*]) => {
        /// Random rounding of the three samples (lane 3: OR of the flags lanes). Only where
        /// [`available`] says the processor has AVX-512F.
        #[inline(always)]
        pub(crate) fn $name(a: [f32; 4], b: [f32; 4], dir: u32) -> [f32; 4] {
            let r: __m128;
            // SAFETY: as in the f64 kernels.
            unsafe {
                asm!(
                    "vmovups {m}, [{tab} + {off}]",
                    "vorps {f}, {a}, {b}",
                    "vxorps {x}, {a}, {m}",
                    $xor_b,
                    "vmovshdup {t}, {x}",
                    concat!("vmovshdup {u}, ", $bx),
                    concat!($insn, " {t}, {t}, {u}, {{ru-sae}}"),
                    "vpermilps {u}, {x}, 2",
                    concat!("vpermilps {v}, ", $bx, ", 2"),
                    concat!($insn, " {u}, {u}, {v}, {{ru-sae}}"),
                    concat!($insn, " {x}, {x}, ", $bx, ", {{ru-sae}}"),
                    "vinsertps {x}, {x}, {t}, 0x10",
                    "vinsertps {x}, {x}, {u}, 0x20",
                    "vxorps {x}, {x}, {m}",
                    "vblendps {r}, {x}, {f}, 8",
                    a = in(xmm_reg) v32(a),
                    b = in(xmm_reg) v32(b),
                    r = lateout(xmm_reg) r,
                    f = out(xmm_reg) _,
                    m = out(xmm_reg) _,
                    x = out(xmm_reg) _,
                    $($y)*
                    t = out(xmm_reg) _,
                    u = out(xmm_reg) _,
                    v = out(xmm_reg) _,
                    tab = in(reg) MASK_F32.as_ptr(),
                    off = in(reg) row_offset(dir),
                    options(pure, readonly, nostack, preserves_flags),
                );
            }
            a32(r)
        }
    };
}

// A sum negates both operands to round down; a product or quotient one.
binop64!(
    add_f64,
    "vaddsd",
    "vxorpd {y}, {b}, {m}",
    "{y}",
    "vxorpd {y}, {bhi}, {mh}",
    "{y}",
    [y = out(xmm_reg) _,]
);
binop64!(mul_f64, "vmulsd", "", "{b}", "", "{bhi}", []);
binop64!(div_f64, "vdivsd", "", "{b}", "", "{bhi}", []);
binop32!(
    add_f32,
    "vaddss",
    "vxorps {y}, {b}, {m}",
    "{y}",
    [y = out(xmm_reg) _,]
);
binop32!(mul_f32, "vmulss", "", "{b}", []);
binop32!(div_f32, "vdivss", "", "{b}", []);

/// `a·b + c` with random rounding (lane 3: OR of the three flags lanes).
#[inline(always)]
pub(crate) fn fma_f64(a: [f64; 4], b: [f64; 4], c: [f64; 4], dir: u32) -> [f64; 4] {
    let ((alo, ahi), (blo, bhi), (clo, chi)) = (split64(a), split64(b), split64(c));
    let (lo, hi): (__m128d, __m128d);
    // SAFETY: as in the other kernels.
    unsafe {
        asm!(
            "vmovupd {m}, [{tab} + {off}]",
            "vmovupd {mh}, [{tab} + {off} + 16]",
            "vorpd {f}, {ahi}, {bhi}",
            "vorpd {f}, {f}, {chi}",
            "vxorpd {a}, {a}, {m}",
            "vxorpd {ahi}, {ahi}, {mh}",
            "vxorpd {c}, {c}, {m}",
            "vxorpd {chi}, {chi}, {mh}",
            "vpermilpd {t}, {a}, 1",
            "vpermilpd {u}, {b}, 1",
            "vpermilpd {v}, {c}, 1",
            "vfmadd213sd {a}, {b}, {c}, {{ru-sae}}",
            "vfmadd213sd {t}, {u}, {v}, {{ru-sae}}",
            "vfmadd213sd {ahi}, {bhi}, {chi}, {{ru-sae}}",
            "vunpcklpd {a}, {a}, {t}",
            "vxorpd {a}, {a}, {m}",
            "vxorpd {ahi}, {ahi}, {mh}",
            "vblendpd {ahi}, {ahi}, {f}, 2",
            a = inout(xmm_reg) alo => lo,
            ahi = inout(xmm_reg) ahi => hi,
            b = in(xmm_reg) blo,
            bhi = in(xmm_reg) bhi,
            c = inout(xmm_reg) clo => _,
            chi = inout(xmm_reg) chi => _,
            f = out(xmm_reg) _,
            m = out(xmm_reg) _,
            mh = out(xmm_reg) _,
            t = out(xmm_reg) _,
            u = out(xmm_reg) _,
            v = out(xmm_reg) _,
            tab = in(reg) MASK_F64.as_ptr(),
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
            "vmovups {m}, [{tab} + {off}]",
            "vorps {f}, {a}, {b}",
            "vorps {f}, {f}, {c}",
            "vxorps {a}, {a}, {m}",
            "vxorps {c}, {c}, {m}",
            "vmovshdup {t}, {a}",
            "vmovshdup {u}, {b}",
            "vmovshdup {v}, {c}",
            "vfmadd213ss {t}, {u}, {v}, {{ru-sae}}",
            "vpermilps {u}, {a}, 2",
            "vpermilps {v}, {b}, 2",
            "vpermilps {w}, {c}, 2",
            "vfmadd213ss {u}, {v}, {w}, {{ru-sae}}",
            "vfmadd213ss {a}, {b}, {c}, {{ru-sae}}",
            "vinsertps {a}, {a}, {t}, 0x10",
            "vinsertps {a}, {a}, {u}, 0x20",
            "vxorps {a}, {a}, {m}",
            "vblendps {a}, {a}, {f}, 8",
            a = inout(xmm_reg) v32(a) => r,
            b = in(xmm_reg) v32(b),
            c = inout(xmm_reg) v32(c) => _,
            f = out(xmm_reg) _,
            m = out(xmm_reg) _,
            t = out(xmm_reg) _,
            u = out(xmm_reg) _,
            v = out(xmm_reg) _,
            w = out(xmm_reg) _,
            tab = in(reg) MASK_F32.as_ptr(),
            off = in(reg) row_offset(dir),
            options(pure, readonly, nostack, preserves_flags),
        );
    }
    a32(r)
}

/// Square root rounded up and down per sample, the lanes picked by the sign of the mask (lane
/// 3: the operand's flags lane).
#[inline(always)]
pub(crate) fn sqrt_f64(a: [f64; 4], dir: u32) -> [f64; 4] {
    let (alo, ahi) = split64(a);
    let (lo, hi): (__m128d, __m128d);
    // SAFETY: as in the other kernels.
    unsafe {
        asm!(
            "vmovupd {m}, [{tab} + {off}]",
            "vmovupd {mh}, [{tab} + {off} + 16]",
            "vpermilpd {t}, {a}, 1",
            "vsqrtsd {u}, {a}, {a}, {{ru-sae}}",
            "vsqrtsd {d}, {a}, {a}, {{rd-sae}}",
            "vsqrtsd {t2}, {t}, {t}, {{rd-sae}}",
            "vsqrtsd {t}, {t}, {t}, {{ru-sae}}",
            "vunpcklpd {u}, {u}, {t}",
            "vunpcklpd {d}, {d}, {t2}",
            "vblendvpd {u}, {u}, {d}, {m}",
            "vsqrtsd {d}, {ahi}, {ahi}, {{rd-sae}}",
            "vsqrtsd {t}, {ahi}, {ahi}, {{ru-sae}}",
            "vblendvpd {t}, {t}, {d}, {mh}",
            "vblendpd {ahi}, {t}, {ahi}, 2",
            a = in(xmm_reg) alo,
            ahi = inout(xmm_reg) ahi => hi,
            u = out(xmm_reg) lo,
            d = out(xmm_reg) _,
            t = out(xmm_reg) _,
            t2 = out(xmm_reg) _,
            m = out(xmm_reg) _,
            mh = out(xmm_reg) _,
            tab = in(reg) MASK_F64.as_ptr(),
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
            "vmovups {m}, [{tab} + {off}]",
            "vmovshdup {t}, {a}",
            "vpermilps {w}, {a}, 2",
            "vsqrtss {u}, {a}, {a}, {{ru-sae}}",
            "vsqrtss {d}, {a}, {a}, {{rd-sae}}",
            "vsqrtss {x}, {t}, {t}, {{ru-sae}}",
            "vinsertps {u}, {u}, {x}, 0x10",
            "vsqrtss {x}, {t}, {t}, {{rd-sae}}",
            "vinsertps {d}, {d}, {x}, 0x10",
            "vsqrtss {x}, {w}, {w}, {{ru-sae}}",
            "vinsertps {u}, {u}, {x}, 0x20",
            "vsqrtss {x}, {w}, {w}, {{rd-sae}}",
            "vinsertps {d}, {d}, {x}, 0x20",
            "vblendvps {u}, {u}, {d}, {m}",
            "vblendps {u}, {u}, {a}, 8",
            a = in(xmm_reg) v32(a),
            u = out(xmm_reg) r,
            d = out(xmm_reg) _,
            t = out(xmm_reg) _,
            w = out(xmm_reg) _,
            x = out(xmm_reg) _,
            m = out(xmm_reg) _,
            tab = in(reg) MASK_F32.as_ptr(),
            off = in(reg) row_offset(dir),
            options(pure, readonly, nostack, preserves_flags),
        );
    }
    a32(r)
}

#[cfg(test)]
mod tests {
    use super::*;

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
