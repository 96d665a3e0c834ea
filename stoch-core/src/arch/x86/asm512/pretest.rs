//! The checks' pre-tests written into the kernels' assembly blocks (see `ops::checks`): the
//! noise tests of operands and results and the sum's cancellation bound, leaving one general
//! register for the caller to test.

use core::arch::asm;

use super::v32;
use crate::runtime::tables::{PRE64, TABLES};

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
/// result, takes a microcode assist. The differences of the samples of a
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

/// The noise pre-tests of two `f32` values `v` and `w` alone (`noise_pair32!`, in `f64`), for
/// the checks that run without a kernel of their own here (a product or quotient by a plain
/// number, the math functions' collapse check): a bit per sample far from its value's `x`,
/// `[v₁, v₂, w₁, w₂]` in bits 0-3 (in `f64`: no microcode assist where the samples' difference
/// is subnormal in `f32`). Only where the processor has AVX-512F, DQ and VL.
#[cfg_attr(target_feature = "avx512f", allow(dead_code))]
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
