//! AVX-512 embedded rounding from inline assembly, chosen at run time in builds whose target
//! does not enable AVX-512 (the default `x86-64` target above all).
//!
//! Contract: where the processor has AVX-512F, DQ and VL ([`available`]) and the run-time path
//! is AVX-512 ([`crate::runtime::path`]), the five kernels here (`+`, `*`, `/`, fused
//! multiply-add and square root, `f32` and `f64`) give the same samples as the portable path for
//! the same random bits, through assembly that needs no target feature from the compiler and so
//! inlines into the user's loop.
//!
//! - The quotients and the square roots are the AVX2 kernels ([`super::avx2`]), which cost
//!   less there (docs/performance.md).
//! - Each other kernel rounds every lane up and down with 512-bit instructions into `zmm16`-`zmm31`
//!   and picks the lanes into the compiler's registers with 128-bit instructions: the upper
//!   halves of `zmm0`-`zmm15` stay unused, which the legacy SSE code around the kernel needs
//!   (tested by `kernels_leave_the_upper_halves_unused`).
//! - `+`, `−`, `*` and `/` with checks on run their kernel and the checks' pre-test in one block
//!   ([`pretest`]); every constant they read is in one static, [`TABLES`].
//!
//! Why these forms: docs/performance.md, "The run-time AVX-512 path".

use core::arch::asm;
use core::arch::x86_64::{__m128, __m128d};

use super::{a32, v32};
use crate::runtime::rng::row_offset;
#[cfg(all(
    target_feature = "avx512f",
    target_feature = "avx512dq",
    target_feature = "avx512vl"
))]
use crate::runtime::tables::LANE3;
use crate::runtime::tables::{Tables, PRE64, SEL64, SUM32, SUM_SPREAD, TABLES};

#[macro_use]
mod pretest;
pub(crate) use pretest::noise_f32;
#[cfg(test)]
mod tests;

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

/// `asm!` of a kernel that reads its direction's row of the tables `$tab` (`{tab}`, `{off}`,
/// the row of `$dir`): the template and operands `$body`, then the scratch registers
/// `$clobber`. Pure and read-only; the form marked `flags` (a kernel with its pre-test, which
/// compares) may change the flags, the other keeps them.
macro_rules! table_asm {
    (flags $tab:expr, $dir:expr, [$($clobber:tt),*], $($body:tt)*) => {
        asm!(
            $($body)*
            $(out($clobber) _,)*
            tab = in(reg) $tab,
            off = in(reg) row_offset($dir),
            options(pure, readonly, nostack),
        )
    };
    ($tab:expr, $dir:expr, [$($clobber:tt),*], $($body:tt)*) => {
        asm!(
            $($body)*
            $(out($clobber) _,)*
            tab = in(reg) $tab,
            off = in(reg) row_offset($dir),
            options(pure, readonly, nostack, preserves_flags),
        )
    };
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
/// instruction shorter in all, the better form for their loops, which rarely hang off a
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
                table_asm!(
                    &TABLES,
                    dir,
                    ["zmm16", "zmm17", "zmm18", "zmm19"],
                    $kernel,
                    a = in(xmm_reg) alo,
                    ahi = in(xmm_reg) ahi,
                    b = in(xmm_reg) blo,
                    bhi = in(xmm_reg) bhi,
                    lo = lateout(xmm_reg) lo,
                    hi = lateout(xmm_reg) hi,
                    f = out(xmm_reg) _,
                    $($k)*
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
                table_asm!(
                    flags tab,
                    dir,
                    ["zmm16", "zmm17", "zmm18", "zmm19"],
                    $kernel,
                    $test,
                    a = in(xmm_reg) alo,
                    ahi = in(xmm_reg) ahi,
                    b = in(xmm_reg) blo,
                    bhi = in(xmm_reg) bhi,
                    lo = out(xmm_reg) lo,
                    hi = out(xmm_reg) hi,
                    f = out(xmm_reg) _,
                    $($k)*
                    g = out(reg) g,
                    $($p)*
                    p64 = const PRE64,
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
                table_asm!(
                    &TABLES,
                    dir,
                    ["zmm16", "zmm17", "k1"],
                    $kernel,
                    a = in(xmm_reg) v32(a),
                    b = in(xmm_reg) v32(b),
                    r = lateout(xmm_reg) r,
                    $($k)*
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
                table_asm!(
                    flags tab,
                    dir,
                    ["zmm16", "zmm17", "k1"],
                    $kernel,
                    $test,
                    a = in(xmm_reg) v32(a),
                    b = in(xmm_reg) v32(b),
                    r = out(xmm_reg) r,
                    t = out(xmm_reg) _,
                    $($k)*
                    g = lateout(reg) g,
                    $($p)*
                );
            }
            (a32(r), g & $bits != 0)
        }
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

/// The AVX2 kernel of `f64` division or square root `$k` on arrays: the intrinsics where the
/// build's target has AVX2 and FMA, the inline assembly elsewhere. Every processor with
/// AVX-512F has both. One 256-bit division (or two of 128 bits) and the remainder by FMA
/// cost less than two 512-bit divisions with embedded rounding, which share the divider, and
/// than the lanes' joining and splitting around them (docs/performance.md, "The latency of a
/// stochastic division and square root").
macro_rules! avx2_kernel64 {
    ($k:ident, ($($x:expr),+), $dir:expr) => {{
        #[cfg(all(target_feature = "avx2", target_feature = "fma"))]
        {
            // SAFETY: the target has AVX2 and FMA; 32 bytes of plain data each way.
            unsafe {
                core::mem::transmute::<core::arch::x86_64::__m256d, [f64; 4]>(super::avx2::$k(
                    $(core::mem::transmute::<[f64; 4], core::arch::x86_64::__m256d>($x),)+
                    $dir,
                ))
            }
        }
        #[cfg(not(all(target_feature = "avx2", target_feature = "fma")))]
        {
            // SAFETY: the processor has AVX-512F (the callers' contract), so AVX2 and FMA.
            unsafe { super::avx2::asm::$k($($x,)+ $dir) }
        }
    }};
}

/// `a / b` with random rounding (lane 3: OR of the flags lanes): the AVX2 kernel. Only where
/// [`available`] says the processor has AVX-512F, DQ and VL.
#[inline(always)]
pub(crate) fn div_f64(a: [f64; 4], b: [f64; 4], dir: u32) -> [f64; 4] {
    avx2_kernel64!(div_f64, (a, b), dir)
}

/// The quotient and the noise pre-test of `b` and of it (see [`crate::ops`]), with the
/// constants of `tab`: the result, and whether the pre-test passed.
#[inline(always)]
#[cfg_attr(target_feature = "avx512f", allow(dead_code))]
pub(crate) fn div_pre_f64(a: [f64; 4], b: [f64; 4], dir: u32, tab: &Tables) -> ([f64; 4], bool) {
    let r = div_f64(a, b, dir);
    let ((b, bhi), (lo, hi)) = (split64(b), split64(r));
    let g: u64;
    // SAFETY: the processor has AVX-512F, DQ and VL (as in the kernels); the assembly reads the
    // constant tables only and writes its declared operands only.
    unsafe {
        asm!(
            noise_max64!("{b}", "{bhi}"),
            b = in(xmm_reg) b,
            bhi = in(xmm_reg) bhi,
            lo = in(xmm_reg) lo,
            hi = in(xmm_reg) hi,
            p = out(xmm_reg) _,
            q = out(xmm_reg) _,
            w = out(xmm_reg) _,
            g = lateout(reg) g,
            tab = in(reg) tab,
            p64 = const PRE64,
            options(pure, readonly, nostack),
        );
    }
    (r, g & 0b11 != 0)
}
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

/// The same for `f32` lanes.
macro_rules! avx2_kernel32 {
    ($k:ident, ($($x:expr),+), $dir:expr) => {{
        #[cfg(all(target_feature = "avx2", target_feature = "fma"))]
        {
            // SAFETY: the target has AVX2 and FMA.
            a32(unsafe { super::avx2::$k($(v32($x),)+ $dir) })
        }
        #[cfg(not(all(target_feature = "avx2", target_feature = "fma")))]
        {
            // SAFETY: the processor has AVX-512F (the callers' contract), so AVX2 and FMA.
            unsafe { super::avx2::asm::$k($($x,)+ $dir) }
        }
    }};
}

/// `a / b` with random rounding on `f32` lanes (lane 3: OR of the flags lanes): the AVX2
/// kernel, as for `f64`. Only where [`available`] says the processor has AVX-512F, DQ and VL.
#[inline(always)]
pub(crate) fn div_f32(a: [f32; 4], b: [f32; 4], dir: u32) -> [f32; 4] {
    avx2_kernel32!(div_f32, (a, b), dir)
}

/// The quotient and the noise pre-test of `b` and of it, as for `f64` ([`noise_f32`]).
#[inline(always)]
#[cfg_attr(target_feature = "avx512f", allow(dead_code))]
pub(crate) fn div_pre_f32(a: [f32; 4], b: [f32; 4], dir: u32, _: &Tables) -> ([f32; 4], bool) {
    let r = div_f32(a, b, dir);
    (r, noise_f32(b, r) & 0b1111 != 0)
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
        table_asm!(
            &TABLES,
            dir,
            ["zmm16", "zmm17", "zmm18", "zmm19", "k1", "k2"],
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
        table_asm!(
            &TABLES,
            dir,
            ["zmm16", "zmm17", "k1"],
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
        );
    }
    a32(r)
}

/// `sqrt(a)` with random rounding (lane 3: the operand's flags lane): the AVX2 kernel, as for
/// the quotient.
#[inline(always)]
pub(crate) fn sqrt_f64(a: [f64; 4], dir: u32) -> [f64; 4] {
    avx2_kernel64!(sqrt_f64, (a), dir)
}

/// `sqrt(a)` on `f32` lanes: the AVX2 kernel, as for `f64`.
#[inline(always)]
pub(crate) fn sqrt_f32(a: [f32; 4], dir: u32) -> [f32; 4] {
    avx2_kernel32!(sqrt_f32, (a), dir)
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
                table_asm!(
                    &TABLES,
                    dir,
                    ["zmm16", "zmm17"],
                    concat!($insn, " zmm16, {a:z}, {b:z}, {{ru-sae}}"),
                    concat!($insn, " zmm17, {a:z}, {b:z}, {{rd-sae}}"),
                    "vorpd {r}, {a}, {b}",
                    "vpternlogq {r}, ymm16, ymmword ptr [{tab} + {lane3}], 0xe4",
                    "vpternlogq {r}, ymm17, ymmword ptr [{tab} + {off} + {sel}], 0xd8",
                    a = in(ymm_reg) a,
                    b = in(ymm_reg) b,
                    r = out(ymm_reg) r,
                    sel = const SEL64,
                    lane3 = const LANE3,
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
