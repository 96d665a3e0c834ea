//! AVX-512 embedded rounding chosen at run time, for builds whose target does not enable
//! AVX-512 (the default `x86-64` target above all).
//!
//! A program built for the default target runs the portable path: software directed rounding
//! from error-free transformations, with Dekker's products where the target has no FMA, several
//! times slower (the `overhead` example, checks off: dot 33x the plain time, wave 77x). When the
//! processor it runs on has AVX-512F and AVX-512DQ, the five kernels below (`+`, `*`, `/`, fused
//! multiply-add and square root, for `f32` and `f64`) run AVX-512 embedded rounding instead,
//! written as inline assembly: it needs no target feature from the compiler, so it is inlined into the
//! user's loop like the rest of the operation (checks off: dot 3.7x, wave 14x). Only registers
//! the compiler allocated are written.
//!
//! The kernels round down through the sign identities (`RD(x) = −RU(−x)` on sign-masked
//! operands), with one scalar instruction per sample (`vaddsd {ru-sae}` and friends) where the
//! compile-time path uses 512-bit instructions for the three. A 512-bit instruction
//! leaves the upper halves of the vector registers in use, and the legacy SSE code the compiler
//! writes around the kernel then runs slower (on a Zen 4, dot product 8.8x instead of 5.1x,
//! checks off; a stencil with every check on 42-47x instead of 25x). `vzeroupper` would clear
//! that state, but the compiler does not know that it clears the upper half of every register:
//! in a function that enables AVX itself (`#[target_feature]`) it could keep a 256-bit value
//! live across the kernel and lose half of it.
//!
//! `+`, `−`, `*` and `/` with their checks on run their kernel and the pre-test of their checks
//! (see `ops`: the cancellation and accuracy-collapse tests of a sum, the noise tests of a
//! product's or quotient's operand and result) in one assembly block ([`add_pre_f64`] and the
//! others), which leaves one general register for the caller to test. The compiler's SSE2 code
//! for the same tests takes more instructions (two-operand forms and their register copies) and
//! more vector operations (a sum's pre-test: 13 in the assembly, about 20 in the compiler's
//! code), and the vector pipes are what those loops wait on (a Zen 5, checks on: dot product
//! 9.3x -> 8.3x the plain time, matmul 13.4x -> 12.1x, wave 35x -> 27x, `f32` sum 8.9x -> 8.3x;
//! a dot-product iteration went from about 130 to 106 instructions). Every constant they read
//! is in one static, [`TABLES`], so that a loop keeps one address for all of them.
//!
//! The choice is made once per process, when the first thread seeds its random generator
//! ([`detect`]), and costs one load and one well-predicted branch per operation.
//! `STOCH_PORTABLE=1` keeps the portable path (to compare the two).

use core::arch::asm;
use core::arch::x86_64::{__m128, __m128d};
use core::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};

use crate::rounding::row_offset;

/// Whether this processor has AVX-512F and AVX-512DQ (the kernels below may run: the
/// pre-tests fused into them take the larger magnitude of two operands with `vrangesd`, from
/// AVX-512DQ, which every processor with AVX-512F has but the Xeon Phi).
#[inline]
pub(crate) fn available() -> bool {
    std::is_x86_feature_detected!("avx512f") && std::is_x86_feature_detected!("avx512dq")
}

/// Chooses the path for this process (once, through [`ensure_detected`]): the kernels below
/// when the processor has AVX-512F and `STOCH_PORTABLE` does not ask for the portable path.
#[cfg(not(target_feature = "avx512f"))]
fn detect() {
    TABLES
        .on
        .store(available() && !portable_requested(), Ordering::Relaxed);
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
/// ([`SPREAD_FACTOR`](crate::ops::SPREAD_FACTOR)) in both lanes, then the cancellation factor
/// (0 when cancellation detection is off) and the collapse factor (1 when accuracy-collapse
/// detection is on, 0 when off), which [`set_factors`] keeps in step with the configuration.
#[repr(C, align(16))]
pub(crate) struct Pre64 {
    abs: [u64; 2],
    spread: [f64; 2],
    factors: [AtomicU64; 2],
}

/// The same for `f32` lanes (four lanes per constant).
#[repr(C, align(16))]
pub(crate) struct Pre32 {
    abs: [u32; 4],
    spread: [f32; 4],
    /// The two factors, then two zero lanes (the pre-test multiplies the four lanes).
    factors: [AtomicU32; 4],
}

/// Everything the kernels and their fused pre-tests read, in one static: a loop keeps one
/// address in a register for all of them (each static is an address of its own, loaded from
/// the global offset table in a position-independent program, and the loops of a build for the
/// default target run short of registers).
#[repr(C, align(64))]
pub(crate) struct Tables {
    /// Sign masks (−0.0 = round down) of `f64` lanes x, y, z for the two random bits; lane 3
    /// is 0. At offset 0.
    mask64: [[f64; 4]; 4],
    /// The same for `f32` lanes, rows padded to 32 bytes (rows are read at the byte offset the
    /// direction word gives, [`crate::rounding::row_offset`]). At offset 128.
    mask32: [[f32; 8]; 4],
    /// The pre-tests' constants for `f64` (offset 256).
    pre64: Pre64,
    /// The same for `f32` (offset 304).
    pre32: Pre32,
    /// Whether the kernels below are the ones dispatched (builds without AVX-512).
    #[cfg_attr(target_feature = "avx512f", allow(dead_code))]
    on: AtomicBool,
}

/// The offsets the assembly below reads the tables at.
const _: () = {
    assert!(core::mem::offset_of!(Tables, mask32) == 128);
    assert!(core::mem::offset_of!(Tables, pre64) == 256);
    assert!(core::mem::offset_of!(Tables, pre32) == 304);
    assert!(core::mem::offset_of!(Pre64, spread) == 16);
    assert!(core::mem::offset_of!(Pre64, factors) == 32);
    assert!(core::mem::offset_of!(Pre32, spread) == 16);
    assert!(core::mem::offset_of!(Pre32, factors) == 32);
};

/// The tables, with the pre-tests' factors of the default configuration (cancellation at
/// level 4, collapse on) until [`set_factors`].
pub(crate) static TABLES: Tables = Tables::new(DEFAULT_FACTORS.0, DEFAULT_FACTORS.1);

/// The pre-tests' factors for the default configuration: cancellation at level 4 (the factor
/// `Config::apply` computes), accuracy collapses detected.
pub(crate) const DEFAULT_FACTORS: (f64, f64) = (0.004, 1.0);

impl Tables {
    /// The tables with cancellation factor `cancel` and collapse factor `collapse` (see
    /// [`Pre64`]).
    pub(crate) const fn new(cancel: f64, collapse: f64) -> Tables {
        Tables {
            mask64: [
                [0.0, 0.0, -0.0, 0.0],
                [-0.0, 0.0, -0.0, 0.0],
                [0.0, -0.0, 0.0, 0.0],
                [-0.0, -0.0, 0.0, 0.0],
            ],
            mask32: [
                [0.0, 0.0, -0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                [-0.0, 0.0, -0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                [0.0, -0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                [-0.0, -0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
            ],
            pre64: Pre64 {
                abs: [i64::MAX as u64; 2],
                spread: [crate::ops::SPREAD_FACTOR; 2],
                factors: [
                    AtomicU64::new(cancel.to_bits()),
                    AtomicU64::new(collapse.to_bits()),
                ],
            },
            pre32: Pre32 {
                abs: [i32::MAX as u32; 4],
                spread: [crate::ops::SPREAD_FACTOR as f32; 4],
                factors: [
                    AtomicU32::new((cancel as f32).to_bits()),
                    AtomicU32::new((collapse as f32).to_bits()),
                    AtomicU32::new(0),
                    AtomicU32::new(0),
                ],
            },
            on: AtomicBool::new(false),
        }
    }
}

/// Sets the factors of the fused pre-tests: `cancel` the cancellation factor in force
/// (`None` when cancellation detection is off), `collapse` whether accuracy collapses are
/// detected.
pub(crate) fn set_factors(cancel: Option<f64>, collapse: bool) {
    let cancel = cancel.unwrap_or(0.0);
    let collapse = if collapse { 1.0 } else { 0.0 };
    TABLES.pre64.factors[0].store(cancel.to_bits(), Ordering::Relaxed);
    TABLES.pre64.factors[1].store(f64::to_bits(collapse), Ordering::Relaxed);
    TABLES.pre32.factors[0].store((cancel as f32).to_bits(), Ordering::Relaxed);
    TABLES.pre32.factors[1].store((collapse as f32).to_bits(), Ordering::Relaxed);
}

/// The instructions of a kernel on f64 lanes: `op` (`vaddsd`, `vmulsd` or `vdivsd`) with
/// random rounding, one scalar instruction per sample; `$bx`/`$bxhi` name the registers that
/// hold `b` as the instruction reads it (sums sign-mask both operands into `y`; products
/// and quotients one, and read `b` and `bhi` as they are). The operands are read only
/// (three-operand forms), so the compiler keeps them where they are for the checks that follow,
/// without copies. Result in `lo` (samples x, y) and `hi` (sample z, flags: the OR of the
/// operands' flags lanes).
macro_rules! kernel64 {
    ($insn:literal, $xor_b:literal, $bx:literal, $xor_bhi:literal, $bxhi:literal) => {
        concat!(
            "vmovupd {m}, [{tab} + {off}]\n",
            "vxorpd {x}, {a}, {m}\n",
            $xor_b,
            "\n",
            "vpermilpd {t}, {x}, 1\n",
            "vpermilpd {u}, ",
            $bx,
            ", 1\n",
            $insn,
            " {x}, {x}, ",
            $bx,
            ", {{ru-sae}}\n",
            $insn,
            " {t}, {t}, {u}, {{ru-sae}}\n",
            "vxorpd {u}, {ahi}, [{tab} + {off} + 16]\n",
            $xor_bhi,
            "\n",
            $insn,
            " {u}, {u}, ",
            $bxhi,
            ", {{ru-sae}}\n",
            "vunpcklpd {x}, {x}, {t}\n",
            "vorpd {t}, {ahi}, {bhi}\n",
            "vxorpd {lo}, {x}, {m}\n",
            "vxorpd {u}, {u}, [{tab} + {off} + 16]\n",
            "vblendpd {hi}, {u}, {t}, 2\n",
        )
    };
}

/// The same on f32 lanes (one register, result in `r`).
macro_rules! kernel32 {
    ($insn:literal, $xor_b:literal, $bx:literal) => {
        concat!(
            "vmovups {m}, [{tab} + {off} + 128]\n",
            "vxorps {x}, {a}, {m}\n",
            $xor_b,
            "\n",
            "vmovshdup {t}, {x}\n",
            "vmovshdup {u}, ",
            $bx,
            "\n",
            $insn,
            " {t}, {t}, {u}, {{ru-sae}}\n",
            "vpermilps {u}, {x}, 2\n",
            "vpermilps {v}, ",
            $bx,
            ", 2\n",
            $insn,
            " {u}, {u}, {v}, {{ru-sae}}\n",
            $insn,
            " {x}, {x}, ",
            $bx,
            ", {{ru-sae}}\n",
            "vinsertps {x}, {x}, {t}, 0x10\n",
            "vinsertps {x}, {x}, {u}, 0x20\n",
            "vxorps {x}, {x}, {m}\n",
            "vorps {t}, {a}, {b}\n",
            "vblendps {r}, {x}, {t}, 8\n",
        )
    };
}

/// The noise pre-test of an f64 value held in `$lo` (samples x, y) and `$hi` (sample z, flags)
/// into `$d`: lanes `[42·|y − x| > |x|, 42·|z − x| > |x|]` (all ones where true), as
/// [`maybe_noise`](crate::ops::maybe_noise). Needs the sign mask in `{m}`; clobbers `$x`.
macro_rules! far64 {
    ($lo:literal, $hi:literal, $d:literal, $x:literal) => {
        concat!(
            "vmovddup ",
            $x,
            ", ",
            $lo,
            "\n",
            "vshufpd ",
            $d,
            ", ",
            $lo,
            ", ",
            $hi,
            ", 1\n",
            "vsubpd ",
            $d,
            ", ",
            $d,
            ", ",
            $x,
            "\n",
            "vandpd ",
            $d,
            ", ",
            $d,
            ", {m}\n",
            "vmulpd ",
            $d,
            ", ",
            $d,
            ", xmmword ptr [{tab} + 272]\n",
            "vandpd ",
            $x,
            ", ",
            $x,
            ", {m}\n",
            "vcmpltpd ",
            $d,
            ", ",
            $x,
            ", ",
            $d,
            "\n",
        )
    };
}

/// The noise pre-tests of an f64 operand (`$lo`, `$hi`) and of the result (`{lo}`, `{hi}`),
/// or-ed into `{g}` (a bit per sample far from its value's `x`).
macro_rules! noise_pair64 {
    ($lo:literal, $hi:literal) => {
        concat!(
            "vmovapd {m}, xmmword ptr [{tab} + 256]\n",
            far64!($lo, $hi, "{t}", "{x}"),
            far64!("{lo}", "{hi}", "{u}", "{x}"),
            "vmovmskpd {g:e}, {t}\n",
            "vmovmskpd {h:e}, {u}\n",
            "or {g:e}, {h:e}\n",
        )
    };
}

/// The noise pre-test of an f32 operand `$v` and of the result `{r}` at once, into `{g}`: the
/// samples y and z of both in one register, `[v₁, v₂, r₁, r₂]`, against `[v₀, v₀, r₀, r₀]`
/// (a bit per sample far from its value's `x`, as
/// [`maybe_noise`](crate::ops::maybe_noise)).
macro_rules! noise_pair32 {
    ($v:literal) => {
        concat!(
            "vshufps {t}, ",
            $v,
            ", {r}, 0x99\n",
            "vshufps {x}, ",
            $v,
            ", {r}, 0\n",
            "vsubps {t}, {t}, {x}\n",
            "vandps {t}, {t}, xmmword ptr [{tab} + 304]\n",
            "vmulps {t}, {t}, xmmword ptr [{tab} + 320]\n",
            "vandps {x}, {x}, xmmword ptr [{tab} + 304]\n",
            "vcmpltps {t}, {x}, {t}\n",
            "vmovmskps {g:e}, {t}\n",
        )
    };
}

/// Random rounding of the three f64 samples (lane 3: OR of the flags lanes), the kernel alone
/// or with a fused pre-test: `$name` returns the result, `$pre` the result and whether the
/// pre-test `$test` (instructions after the kernel that leave a `movmsk` in `{g}`) passed in
/// the bits `$bits`. Only where [`available`] says the processor has AVX-512F and DQ.
macro_rules! binop64 {
    (
        $name:ident,
        $pre:ident,
        $insn:literal,
        $xor_b:literal,
        $bx:literal,
        $xor_bhi:literal,
        $bxhi:literal,
        [$($y:tt)*],
        $test:expr,
        [$($p:tt)*],
        $bits:literal
    ) => {
        /// Random rounding of the three samples (lane 3: OR of the flags lanes). Only where
        /// [`available`] says the processor has AVX-512F and DQ.
        #[inline(always)]
        pub(crate) fn $name(a: [f64; 4], b: [f64; 4], dir: u32) -> [f64; 4] {
            let ((alo, ahi), (blo, bhi)) = (split64(a), split64(b));
            let (lo, hi): (__m128d, __m128d);
            // SAFETY: the processor has AVX-512F (callers check `on`/`available`); the assembly
            // reads the mask table only and writes its declared operands only. `lo` and `hi`
            // are written after the last read of an input (they may share its register).
            unsafe {
                asm!(
                    kernel64!($insn, $xor_b, $bx, $xor_bhi, $bxhi),
                    a = in(xmm_reg) alo,
                    ahi = in(xmm_reg) ahi,
                    b = in(xmm_reg) blo,
                    bhi = in(xmm_reg) bhi,
                    lo = lateout(xmm_reg) lo,
                    hi = lateout(xmm_reg) hi,
                    m = out(xmm_reg) _,
                    x = out(xmm_reg) _,
                    $($y)*
                    t = out(xmm_reg) _,
                    u = out(xmm_reg) _,
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
            let g: u32;
            // SAFETY: as in the kernel alone; the pre-test reads the constant tables (`TABLES`)
            // only. `lo` and `hi` are read after the kernel, with the inputs: they are written
            // early and do not share an input's register.
            unsafe {
                asm!(
                    kernel64!($insn, $xor_b, $bx, $xor_bhi, $bxhi),
                    $test,
                    a = in(xmm_reg) alo,
                    ahi = in(xmm_reg) ahi,
                    b = in(xmm_reg) blo,
                    bhi = in(xmm_reg) bhi,
                    lo = out(xmm_reg) lo,
                    hi = out(xmm_reg) hi,
                    m = out(xmm_reg) _,
                    x = out(xmm_reg) _,
                    $($y)*
                    t = out(xmm_reg) _,
                    u = out(xmm_reg) _,
                    g = lateout(reg) g,
                    $($p)*
                    tab = in(reg) tab,
                    off = in(reg) row_offset(dir),
                    options(pure, readonly, nostack),
                );
            }
            (join64(lo, hi), g & $bits != 0)
        }
    };
}

/// The same on f32 lanes (one register).
macro_rules! binop32 {
    (
        $name:ident,
        $pre:ident,
        $insn:literal,
        $xor_b:literal,
        $bx:literal,
        [$($y:tt)*],
        $test:expr,
        [$($p:tt)*],
        $bits:literal
    ) => {
        /// Random rounding of the three samples (lane 3: OR of the flags lanes). Only where
        /// [`available`] says the processor has AVX-512F and DQ.
        #[inline(always)]
        pub(crate) fn $name(a: [f32; 4], b: [f32; 4], dir: u32) -> [f32; 4] {
            let r: __m128;
            // SAFETY: as in the f64 kernels.
            unsafe {
                asm!(
                    kernel32!($insn, $xor_b, $bx),
                    a = in(xmm_reg) v32(a),
                    b = in(xmm_reg) v32(b),
                    r = lateout(xmm_reg) r,
                    m = out(xmm_reg) _,
                    x = out(xmm_reg) _,
                    $($y)*
                    t = out(xmm_reg) _,
                    u = out(xmm_reg) _,
                    v = out(xmm_reg) _,
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
                    kernel32!($insn, $xor_b, $bx),
                    $test,
                    a = in(xmm_reg) v32(a),
                    b = in(xmm_reg) v32(b),
                    r = out(xmm_reg) r,
                    m = out(xmm_reg) _,
                    x = out(xmm_reg) _,
                    $($y)*
                    t = out(xmm_reg) _,
                    u = out(xmm_reg) _,
                    v = out(xmm_reg) _,
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

/// The pre-test of a sum `r = a + b` on f64 lanes (see `ops::check_add`): in lane 0,
/// `|r₀| < F·max(|a₀|, |b₀|)` (a possible cancellation, `F` the cancellation factor, 0 when
/// that check is off), or-ed per lane with `|r₀| < C·max(|a₀|, |b₀|)` and the noise pre-test
/// of `r` (a possible accuracy collapse, `C` 1 when that check is on, 0 when off).
macro_rules! add_test64 {
    () => {
        concat!(
            "vrangesd {t}, {a}, {b}, 11\n",
            "vmovddup {t}, {t}\n",
            "vmovddup {x}, {lo}\n",
            "vandpd {y}, {x}, xmmword ptr [{tab} + 256]\n",
            "vmulpd {u}, {t}, xmmword ptr [{tab} + 288]\n",
            "vcmpltpd {u}, {y}, {u}\n",
            "vshufpd {t}, {lo}, {hi}, 1\n",
            "vsubpd {t}, {t}, {x}\n",
            "vandpd {t}, {t}, xmmword ptr [{tab} + 256]\n",
            "vmulpd {t}, {t}, xmmword ptr [{tab} + 272]\n",
            "vcmpltpd {t}, {y}, {t}\n",
            "vmovmskpd {g:e}, {u}\n",
            "vmovmskpd {h:e}, {t}\n",
            "neg {h:e}\n",
            "sbb {h:e}, {h:e}\n",
            "or {h:e}, 1\n",
            "and {g:e}, {h:e}\n",
        )
    };
}

/// The same on f32 lanes: lane 0 the cancellation test, lanes 1 and 2 the collapse test (lane 3
/// is not read).
macro_rules! add_test32 {
    () => {
        concat!(
            "vrangess {t}, {a}, {b}, 11\n",
            "vpermilps {t}, {t}, 0\n",
            "vpermilps {x}, {r}, 0\n",
            "vandps {y}, {x}, xmmword ptr [{tab} + 304]\n",
            "vmulps {u}, {t}, xmmword ptr [{tab} + 336]\n",
            "vcmpltps {u}, {y}, {u}\n",
            "vsubps {t}, {r}, {x}\n",
            "vandps {t}, {t}, xmmword ptr [{tab} + 304]\n",
            "vmulps {t}, {t}, xmmword ptr [{tab} + 320]\n",
            "vcmpltps {t}, {y}, {t}\n",
            "vmovmskps {g:e}, {u}\n",
            "vmovmskps {h:e}, {t}\n",
            "and {h:e}, 6\n",
            "neg {h:e}\n",
            "sbb {h:e}, {h:e}\n",
            "or {h:e}, 1\n",
            "and {g:e}, {h:e}\n",
        )
    };
}

// A sum negates both operands to round down; a product or quotient one. The pre-test of a
// product is the noise pre-test of `a` and of the result, that of a quotient the noise pre-test
// of `b` and of the result (see `ops::check_mul` and `ops::check_div`).
binop64!(
    add_f64,
    add_pre_f64,
    "vaddsd",
    "vxorpd {y}, {b}, {m}",
    "{y}",
    "vxorpd {y}, {bhi}, [{tab} + {off} + 16]",
    "{y}",
    [y = out(xmm_reg) _,],
    add_test64!(),
    [h = out(reg) _,],
    0b11
);
binop64!(
    mul_f64,
    mul_pre_f64,
    "vmulsd",
    "",
    "{b}",
    "",
    "{bhi}",
    [],
    noise_pair64!("{a}", "{ahi}"),
    [h = out(reg) _,],
    0b11
);
binop64!(
    div_f64,
    div_pre_f64,
    "vdivsd",
    "",
    "{b}",
    "",
    "{bhi}",
    [],
    noise_pair64!("{b}", "{bhi}"),
    [h = out(reg) _,],
    0b11
);
binop32!(
    add_f32,
    add_pre_f32,
    "vaddss",
    "vxorps {y}, {b}, {m}",
    "{y}",
    [y = out(xmm_reg) _,],
    add_test32!(),
    [h = out(reg) _,],
    0b0111
);
binop32!(
    mul_f32,
    mul_pre_f32,
    "vmulss",
    "",
    "{b}",
    [],
    noise_pair32!("{a}"),
    [],
    0b1111
);
binop32!(
    div_f32,
    div_pre_f32,
    "vdivss",
    "",
    "{b}",
    [],
    noise_pair32!("{b}"),
    [],
    0b1111
);

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
            "vmovups {m}, [{tab} + {off} + 128]",
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
            tab = in(reg) &TABLES,
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
            "vmovups {m}, [{tab} + {off} + 128]",
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
            tab = in(reg) &TABLES,
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
