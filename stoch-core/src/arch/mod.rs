//! Random rounding: each sample of a result is the exact result rounded toward +∞ or toward −∞,
//! the direction drawn at random per sample (DESIGN §2).
//!
//! One kernel set per instruction set, all giving the same samples for the same random bits
//! (tested against one exact oracle):
//!
//! * [`portable`]: error-free transformations ([`crate::eft`]) and a one-ulp step, every target;
//! * `x86::avx2`: the same on the four lanes of a value in one vector register (AVX2 and FMA),
//!   and `x86::avx2::asm`, the same from inline assembly on 128-bit registers, chosen at run
//!   time in builds whose target lacks AVX2 and FMA;
//! * `x86::avx512`: embedded rounding (`{ru-sae}`/`{rd-sae}`) where the target has AVX-512;
//! * `x86::asm512`: the same embedded rounding from inline assembly, chosen at run time in
//!   builds whose target lacks AVX-512.
//!
//! [`Kernels`] is the one dispatch point: its `add4` … `sqrt4` pick the path (at compile time
//! from the target, at run time from [`crate::runtime::path`]), and the operators call nothing
//! else. The trait is sealed inside this private module.

use crate::runtime::path::Path;

pub(crate) mod lanes;
pub(crate) mod portable;
#[cfg(target_arch = "x86_64")]
pub(crate) mod x86;

pub use lanes::{lanes32, lanes64, unlanes32, unlanes64, L32, L64};
use lanes::{neg32, neg64};
#[cfg(all(
    target_arch = "x86_64",
    not(all(target_feature = "avx2", target_feature = "fma"))
))]
use lanes::{opaque32, opaque64};
use portable::Portable;
#[cfg(target_arch = "x86_64")]
use x86::asm512 as rt512;
#[cfg(all(target_arch = "x86_64", target_feature = "avx512f"))]
use x86::avx512;

/// Random-direction kernels on the three samples of a value. `dir` is a direction word (see
/// [`DIR_SHIFT`]): bit `DIR_SHIFT` chooses the direction of sample `x`, the next bit that of
/// sample `y`, and `z` takes the opposite of `y`. A set direction bit means "round down".
pub trait Kernels: Portable + Sized + Copy {
    /// The four lanes of a value (x, y, z, flags) as the hot path holds them: one vector
    /// register on the AVX-512 path, an array otherwise.
    type Lanes: Copy + Send + Sync + 'static;
    /// Lanes of an exact zero.
    const ZERO_L: Self::Lanes;
    /// Lanes of an exact one.
    const ONE_L: Self::Lanes;
    /// Lanes of machine epsilon.
    const EPSILON_L: Self::Lanes;
    /// Lanes of the largest finite value.
    const MAX_L: Self::Lanes;
    /// Lanes of the smallest finite value.
    const MIN_L: Self::Lanes;
    /// Lanes of the smallest positive normal value.
    const MIN_POSITIVE_L: Self::Lanes;
    /// Lanes of +∞.
    const INFINITY_L: Self::Lanes;
    /// Lanes of −∞.
    const NEG_INFINITY_L: Self::Lanes;
    /// Lanes of NaN.
    const NAN_L: Self::Lanes;
    /// Array to lanes.
    fn load(a: [Self; 4]) -> Self::Lanes;
    /// Lanes to array.
    fn store(v: Self::Lanes) -> [Self; 4];
    /// The samples negated (exact), the flags lane as it is.
    fn neg4(v: Self::Lanes) -> Self::Lanes;
    /// `a + b`, randomly rounded, on four lanes: samples x, y, z and the flags lane, which
    /// becomes the bitwise OR of the operands' flags lanes.
    fn add4(a: Self::Lanes, b: Self::Lanes, dir: u32) -> Self::Lanes;
    /// `a * b`, randomly rounded (flags lanes ORed).
    fn mul4(a: Self::Lanes, b: Self::Lanes, dir: u32) -> Self::Lanes;
    /// `a / b`, randomly rounded (flags lanes ORed).
    fn div4(a: Self::Lanes, b: Self::Lanes, dir: u32) -> Self::Lanes;
    /// `a * b + c` with one random rounding (flags lanes ORed).
    fn fma4(a: Self::Lanes, b: Self::Lanes, c: Self::Lanes, dir: u32) -> Self::Lanes;
    /// `sqrt(a)`, randomly rounded (flags lane kept).
    fn sqrt4(a: Self::Lanes, dir: u32) -> Self::Lanes;
    /// `path`'s kernel for `op` (0 add, 1 mul, 2 div, 3 fma `a·b + c`, 4 sqrt of `a`) on four
    /// lanes, run directly where the processor has that path's instructions, whatever path the
    /// operators dispatch to (so that tests check every path against the same oracle); `None`
    /// where it cannot run.
    fn path4(
        path: Path,
        op: u8,
        a: [Self; 4],
        b: [Self; 4],
        c: [Self; 4],
        dir: u32,
    ) -> Option<[Self; 4]>;
    /// For `f64` on the run-time AVX-512 path, when it is the one that runs (a build without
    /// AVX-512 on a processor with it; not `/`, which runs the AVX2 kernels there), and for
    /// `f32` in a build with AVX-512F, DQ and VL:
    /// `a + b` (`op` 0), `a * b` (1) or `a / b` (2) with random rounding and, in the same
    /// assembly block, the pre-test of the operation's checks (see `ops`): the result's lanes
    /// and whether the pre-test passed. `None` on every other path, where the compiler's code
    /// runs the same pre-test after the kernel. (The operations of a build without AVX-512 run
    /// that path's fused blocks through `runtime::path::mode` (in `fast_op!`) first, for both types, and reach this
    /// only as a fallback: see the definition.)
    fn rt512_pre(op: u8, a: Self::Lanes, b: Self::Lanes, dir: u32) -> Option<(Self::Lanes, bool)>;
    /// The run-time AVX-512 path's `a + b` (`op` 0), `a * b` (1) or `a / b` (2) with its fused
    /// pre-test, without asking whether that path runs: for [`Kernels::rt512_pre`], and for the
    /// operations once `runtime::path::mode` (in `fast_op!`) said so.
    #[cfg(all(
        target_arch = "x86_64",
        any(
            not(target_feature = "avx512f"),
            all(target_feature = "avx512dq", target_feature = "avx512vl")
        )
    ))]
    fn rt512_fused(op: u8, a: Self::Lanes, b: Self::Lanes, dir: u32) -> (Self::Lanes, bool);
    /// The same without the pre-test.
    #[cfg(all(target_arch = "x86_64", not(target_feature = "avx512f")))]
    fn rt512_alone(op: u8, a: Self::Lanes, b: Self::Lanes, dir: u32) -> Self::Lanes;
    /// The run-time AVX2 path's `a + b` (`op` 0), `a * b` (1) or `a / b` (2) and the pre-test
    /// of the operation's checks (see `ops`; the sum's with the factors of the tables in
    /// force): the result's lanes, whether a sample of a product or quotient left the kernel's
    /// range (its checks then run whatever the pre-test says: the pre-test reads the operands,
    /// `ops::pretest`'s `far_operands`), and whether the pre-test passed. For the operations of
    /// a build without AVX2 and FMA, once `runtime::path::mode` (in `fast_op!`) said so.
    #[cfg(all(
        target_arch = "x86_64",
        not(all(target_feature = "avx2", target_feature = "fma"))
    ))]
    fn rt2_checked(op: u8, a: Self::Lanes, b: Self::Lanes, dir: u32) -> (Self::Lanes, bool, bool);
    /// The same without the pre-test.
    #[cfg(all(
        target_arch = "x86_64",
        not(all(target_feature = "avx2", target_feature = "fma"))
    ))]
    fn rt2_alone(op: u8, a: Self::Lanes, b: Self::Lanes, dir: u32) -> Self::Lanes;
    /// The AVX2 kernel of `a + b` (`op` 0), `a * b` (1) or `a / b` (2) in a build whose target
    /// has AVX2 and FMA (but not AVX-512), without asking which path runs: for the operations
    /// once `runtime::path::mode` (in `fast_op!`) said the AVX2 path does.
    #[cfg(all(
        target_arch = "x86_64",
        target_feature = "avx2",
        target_feature = "fma",
        not(target_feature = "avx512f")
    ))]
    fn native4(op: u8, a: Self::Lanes, b: Self::Lanes, dir: u32) -> (Self::Lanes, bool);
    /// The same lanes, through an empty assembly block ([`lanes::opaque64`]): for the general
    /// path of `+`, `*` and `/` in a build that chooses its path at run time.
    #[cfg(all(
        target_arch = "x86_64",
        not(all(target_feature = "avx2", target_feature = "fma"))
    ))]
    fn opaque(v: Self::Lanes) -> Self::Lanes;
    /// Zero.
    fn zero_lane() -> Self;
}

#[inline(always)]
fn four<T: Kernels>(a: [T; 3]) -> [T; 4] {
    [a[0], a[1], a[2], T::zero_lane()]
}

#[inline(always)]
fn three<T: Kernels>(a: [T; 4]) -> [T; 3] {
    [a[0], a[1], a[2]]
}

/// The one dispatch of an operation: the kernel `$k` of the path the build compiled in or the
/// process chose (see [`crate::runtime::path`]), the portable `$p` elsewhere. In a build whose
/// target lacks AVX-512, the run-time AVX-512 kernels come first (one flag, laid out as the likely
/// branch where it is set), unless `rt512: false` (the division: see `div4`); in one that also
/// lacks AVX2 and FMA, the AVX2 assembly kernels run where the process chose them.
macro_rules! route {
    ($l:ident, $k:ident, $p:ident, ($($x:ident),+), $dir:ident) => {
        route!($l, $k, $p, ($($x),+), $dir, rt512: true)
    };
    ($l:ident, $k:ident, $p:ident, ($($x:ident),+), $dir:ident, rt512: $rt512:expr) => {{
        #[cfg(all(target_arch = "x86_64", not(target_feature = "avx512f")))]
        if $rt512 && crate::runtime::path::on() {
            return Self::load(rt512::$k($(Self::store($x),)+ $dir));
        }
        #[cfg(all(target_arch = "x86_64", target_feature = "avx512f"))]
        {
            // SAFETY: the target has AVX-512F (checked at compile time above).
            unsafe { avx512::$k($($x,)+ $dir) }
        }
        #[cfg(all(
            target_arch = "x86_64",
            target_feature = "avx2",
            target_feature = "fma",
            not(target_feature = "avx512f")
        ))]
        {
            // SAFETY: the target has AVX2 and FMA (checked at compile time above).
            $l(unsafe { x86::avx2::$k($($x.0,)+ $dir) })
        }
        #[cfg(all(target_arch = "x86_64", not(all(target_feature = "avx2", target_feature = "fma"))))]
        {
            if crate::runtime::path::avx2_on() {
                // SAFETY: the process chose AVX2 only where the processor has AVX2 and FMA.
                return Self::load(unsafe { x86::avx2::asm::$k($(Self::store($x),)+ $dir) });
            }
            Self::load(portable::lanes4::$p($(Self::store($x),)+ $dir))
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            Self::load(portable::lanes4::$p($(Self::store($x),)+ $dir))
        }
    }};
}

/// The start of `+` (`$op` 0), `*` (1) and `/` (2) in a build without AVX-512, part of this
/// module's dispatch (expanded in `ops::arith`, whose slow path `$hit` it takes): as
/// [`mode`](crate::runtime::path::mode) says, returns from the operation the run-time AVX-512
/// kernel with its fused pre-test (the hit taking the slow path `$hit`, a closure of the result
/// `r`), unless `$exact` says a product needs no checks (see [`exact_product`]), or the kernel
/// alone (`/` skips this part: see `div4`); then the same with the AVX2 kernels: the run-time
/// ones in a build without AVX2 and FMA, the build's own with the pre-tests of `ops::checks`
/// in one with them (the AVX2 pre-tests of a product or quotient read the operands, and a
/// result that left the kernel's range takes the slow path whatever they say: see
/// `ops::arith::native_hit`); goes on to the operation's other paths where neither runs. A
/// macro, not a function: as a helper returning an `Option` it made the compiler keep the `f32`
/// sum's running value in memory (docs/performance.md, "Measurements behind the kernels'
/// forms"). A hit's slow path takes the operands and the result through `apart`
/// (`ops::arith`), which the caller defines: it takes them by reference, and a running sum that
/// was one of them stayed in memory.
#[cfg(all(target_arch = "x86_64", not(target_feature = "avx512f")))]
macro_rules! fast_op {
    ($op:literal, $a:ident, $b:ident, $dir:ident, $exact:expr, |$r:ident| $hit:expr) => {
        use crate::runtime::path::{mode_bit, mode_bit2};
        let mode = crate::runtime::path::mode();
        // The AVX2 path of a build whose target has AVX2 and FMA, from the same bits, first:
        // its kernel, then the checks' pre-test (`ops::arith::native_hit`) where they are
        // wanted. The checked bit alone first, so that a checked operation passes one test
        // (the AVX2 and the run-time AVX-512 bits of `+` and `*` are never set together:
        // `runtime::path::mode_for`); one test of the word in place of the mask and the
        // run-time AVX-512 path's flag (docs/performance.md).
        #[cfg(all(target_feature = "avx2", target_feature = "fma"))]
        {
            if mode & mode_bit2($op, true) != 0 {
                let (v, ranged) = T::native4($op, $a.v, $b.v, $dir);
                let $r = Stochastic { v };
                if ranged {
                    let ($a, $b, $r) = (apart($a), apart($b), apart($r));
                    return $hit;
                }
                if native_hit($op, $a, $b, $r) {
                    hit_is_rare();
                    let ($a, $b, $r) = (apart($a), apart($b), apart($r));
                    return $hit;
                }
                return $r;
            }
            if mode & mode_bit2($op, false) != 0 {
                return Stochastic {
                    v: T::native4($op, $a.v, $b.v, $dir).0,
                };
            }
        }
        // Then each run-time path's checked kernel, its checked bit alone, so that a checked
        // operation passes one test on the run-time AVX2 path and two on the run-time AVX-512
        // one (the run-time AVX2 kernel and the checks' pre-test in registers: the compiler's
        // SSE2 form of the pre-test kept the `f32` sum in memory, with stores of single lanes
        // that the next load could not forward); then the kernels alone, where the checks are
        // off or a product needs none, a test more per operation (docs/performance.md). `/`
        // runs the AVX2 kernels on both run-time paths (see `Kernels::div4`).
        let rt512 = $op != 2;
        #[cfg(not(all(target_feature = "avx2", target_feature = "fma")))]
        if mode & mode_bit2($op, true) != 0 && !$exact {
            let (v, ranged, passed) = T::rt2_checked($op, $a.v, $b.v, $dir);
            if ranged {
                let ($a, $b, $r) = (apart($a), apart($b), apart(Stochastic { v }));
                return $hit;
            }
            let fused = (v, passed);
            crate::arch::fused_end!($a, $b, fused, |$r| $hit);
        }
        if rt512 && mode & mode_bit($op, true) != 0 && !$exact {
            let fused = T::rt512_fused($op, $a.v, $b.v, $dir);
            crate::arch::fused_end!($a, $b, fused, |$r| $hit);
        }
        if rt512 && mode & (mode_bit($op, true) | mode_bit($op, false)) != 0 {
            return Stochastic {
                v: T::rt512_alone($op, $a.v, $b.v, $dir),
            };
        }
        #[cfg(not(all(target_feature = "avx2", target_feature = "fma")))]
        if mode & (mode_bit2($op, true) | mode_bit2($op, false)) != 0 {
            return Stochastic {
                v: T::rt2_alone($op, $a.v, $b.v, $dir),
            };
        }
    };
}
#[cfg(all(target_arch = "x86_64", not(target_feature = "avx512f")))]
pub(crate) use fast_op;

/// The end of a run-time kernel with its fused pre-test in `fast_op!`: `$fused` is the
/// result's lanes and whether the pre-test passed. Returns the result as `$r`, or, where the
/// pre-test passed, the slow path `$hit` on the operands and the result, each through `apart`
/// (see `fast_op!`).
#[cfg(all(target_arch = "x86_64", not(target_feature = "avx512f")))]
macro_rules! fused_end {
    ($a:ident, $b:ident, $fused:ident, |$r:ident| $hit:expr) => {
        let (v, passed) = $fused;
        let $r = Stochastic { v };
        if passed {
            hit_is_rare();
            let ($a, $b, $r) = (apart($a), apart($b), apart($r));
            return $hit;
        }
        return $r;
    };
}
#[cfg(all(target_arch = "x86_64", not(target_feature = "avx512f")))]
pub(crate) use fused_end;

/// The lanes, constants and dispatch (AVX-512 or portable) that are the same for both types.
macro_rules! dispatch {
    (
        $t:ident,
        $l:ident,
        $lanes:ident,
        $unl:ident,
        $neg:ident,
        $opaque:ident,
        $add:ident,
        $mul:ident,
        $div:ident,
        $fma:ident,
        $sqrt:ident,
        ranged: [$mul_r:ident, $div_r:ident],
        [
            $add_pre:ident,
            $mul_pre:ident,
            $div_pre:ident,
            native: $native_pre:literal,
            fallback: $fallback_pre:literal
        ],
        rt2: [$operands:ident]
    ) => {
        type Lanes = $l;
        const ZERO_L: $l = $lanes([0.0; 4]);
        const ONE_L: $l = $lanes([1.0, 1.0, 1.0, 0.0]);
        const EPSILON_L: $l = $lanes([$t::EPSILON, $t::EPSILON, $t::EPSILON, 0.0]);
        const MAX_L: $l = $lanes([$t::MAX, $t::MAX, $t::MAX, 0.0]);
        const MIN_L: $l = $lanes([$t::MIN, $t::MIN, $t::MIN, 0.0]);
        const MIN_POSITIVE_L: $l =
            $lanes([$t::MIN_POSITIVE, $t::MIN_POSITIVE, $t::MIN_POSITIVE, 0.0]);
        const INFINITY_L: $l = $lanes([$t::INFINITY, $t::INFINITY, $t::INFINITY, 0.0]);
        const NEG_INFINITY_L: $l =
            $lanes([$t::NEG_INFINITY, $t::NEG_INFINITY, $t::NEG_INFINITY, 0.0]);
        const NAN_L: $l = $lanes([$t::NAN, $t::NAN, $t::NAN, 0.0]);
        #[inline(always)]
        fn load(a: [$t; 4]) -> $l {
            $lanes(a)
        }
        #[inline(always)]
        fn store(v: $l) -> [$t; 4] {
            $unl(v)
        }
        #[inline(always)]
        fn neg4(v: $l) -> $l {
            $neg(v)
        }
        #[inline(always)]
        fn add4(a: $l, b: $l, dir: u32) -> $l {
            route!($l, $add, add, (a, b), dir)
        }
        #[inline(always)]
        fn mul4(a: $l, b: $l, dir: u32) -> $l {
            route!($l, $mul, mul, (a, b), dir)
        }
        /// In a build without AVX-512, on both run-time paths the AVX2 kernel, without
        /// asking whether the run-time AVX-512 path runs: that path's quotient is the AVX2
        /// kernel (`x86::asm512`'s `avx2_kernel64`: cheaper than two 512-bit divisions), and
        /// the question's branches in a loop made the compiler keep a chain of quotients in
        /// memory, a store and a reload on each division's chain (docs/performance.md).
        #[inline(always)]
        fn div4(a: $l, b: $l, dir: u32) -> $l {
            route!($l, $div, div, (a, b), dir, rt512: false)
        }
        #[inline(always)]
        fn fma4(a: $l, b: $l, c: $l, dir: u32) -> $l {
            route!($l, $fma, fma, (a, b, c), dir)
        }
        #[inline(always)]
        fn sqrt4(a: $l, dir: u32) -> $l {
            route!($l, $sqrt, sqrt, (a), dir)
        }
        fn path4(
            path: Path,
            op: u8,
            a: [$t; 4],
            b: [$t; 4],
            c: [$t; 4],
            dir: u32,
        ) -> Option<[$t; 4]> {
            use portable::lanes4 as p;
            if path == Path::Portable {
                return Some(match op {
                    0 => p::add(a, b, dir),
                    1 => p::mul(a, b, dir),
                    2 => p::div(a, b, dir),
                    3 => p::fma(a, b, c, dir),
                    _ => p::sqrt(a, dir),
                });
            }
            #[cfg(target_arch = "x86_64")]
            {
                if path == Path::Avx512 && crate::runtime::path::avx512_available() {
                    return Some(match op {
                        0 => rt512::$add(a, b, dir),
                        1 => rt512::$mul(a, b, dir),
                        2 => rt512::$div(a, b, dir),
                        3 => rt512::$fma(a, b, c, dir),
                        _ => rt512::$sqrt(a, dir),
                    });
                }
                if path == Path::Avx2 && crate::runtime::path::avx2_available() {
                    // The kernels the operators run: the intrinsics where the build's target has
                    // AVX2 and FMA, the inline assembly elsewhere.
                    #[cfg(not(all(target_feature = "avx2", target_feature = "fma")))]
                    use x86::avx2::asm as v;
                    #[cfg(all(target_feature = "avx2", target_feature = "fma"))]
                    use x86::avx2::rt as v;
                    // SAFETY: the processor has AVX2 and FMA (tested above).
                    return Some(unsafe {
                        match op {
                            0 => v::$add(a, b, dir),
                            1 => v::$mul(a, b, dir),
                            2 => v::$div(a, b, dir),
                            3 => v::$fma(a, b, c, dir),
                            _ => v::$sqrt(a, dir),
                        }
                    });
                }
            }
            let _ = (op, a, b, c, dir);
            None
        }
        #[cfg(all(
            target_arch = "x86_64",
            any(
                not(target_feature = "avx512f"),
                all(target_feature = "avx512dq", target_feature = "avx512vl")
            )
        ))]
        #[inline(always)]
        fn rt512_fused(op: u8, a: $l, b: $l, dir: u32) -> ($l, bool) {
            let (a, b) = (Self::store(a), Self::store(b));
            let tab = &crate::runtime::tables::TABLES;
            let (r, hit) = match op {
                0 => rt512::$add_pre(a, b, dir, tab),
                1 => rt512::$mul_pre(a, b, dir, tab),
                _ => rt512::$div_pre(a, b, dir, tab),
            };
            (Self::load(r), hit)
        }
        #[cfg(all(target_arch = "x86_64", not(target_feature = "avx512f")))]
        #[inline(always)]
        fn rt512_alone(op: u8, a: $l, b: $l, dir: u32) -> $l {
            let (a, b) = (Self::store(a), Self::store(b));
            Self::load(match op {
                0 => rt512::$add(a, b, dir),
                1 => rt512::$mul(a, b, dir),
                _ => rt512::$div(a, b, dir),
            })
        }
        #[cfg(all(
            target_arch = "x86_64",
            not(all(target_feature = "avx2", target_feature = "fma"))
        ))]
        #[inline(always)]
        fn rt2_checked(op: u8, a: $l, b: $l, dir: u32) -> ($l, bool, bool) {
            use x86::avx2::asm as v;
            let (a, b) = (Self::store(a), Self::store(b));
            // SAFETY: the process chose the AVX2 path (the callers' contract) only where the
            // processor has AVX2 and FMA.
            unsafe {
                match op {
                    0 => {
                        let r = v::$add(a, b, dir);
                        let bits = v::$add_pre(a, b, r, &crate::runtime::tables::TABLES);
                        (Self::load(r), false, bits != 0)
                    }
                    1 => {
                        let (r, ranged) = v::$mul_r(a, b, dir);
                        (Self::load(r), ranged, v::$operands(a, b) != 0)
                    }
                    _ => {
                        let (r, ranged) = v::$div_r(a, b, dir);
                        (Self::load(r), ranged, v::$operands(a, b) != 0)
                    }
                }
            }
        }
        #[cfg(all(
            target_arch = "x86_64",
            not(all(target_feature = "avx2", target_feature = "fma"))
        ))]
        #[inline(always)]
        fn rt2_alone(op: u8, a: $l, b: $l, dir: u32) -> $l {
            use x86::avx2::asm as v;
            let (a, b) = (Self::store(a), Self::store(b));
            // SAFETY: as in `rt2_checked`.
            Self::load(unsafe {
                match op {
                    0 => v::$add(a, b, dir),
                    1 => v::$mul(a, b, dir),
                    _ => v::$div(a, b, dir),
                }
            })
        }
        #[cfg(all(
            target_arch = "x86_64",
            target_feature = "avx2",
            target_feature = "fma",
            not(target_feature = "avx512f")
        ))]
        #[inline(always)]
        fn native4(op: u8, a: $l, b: $l, dir: u32) -> ($l, bool) {
            // SAFETY: the target has AVX2 and FMA (checked at compile time above).
            let (v, ranged) = unsafe {
                match op {
                    0 => (x86::avx2::$add(a.0, b.0, dir), false),
                    1 => x86::avx2::$mul_r(a.0, b.0, dir),
                    _ => x86::avx2::$div_r(a.0, b.0, dir),
                }
            };
            ($l(v), ranged)
        }
        #[inline(always)]
        fn rt512_pre(op: u8, a: $l, b: $l, dir: u32) -> Option<($l, bool)> {
            #[cfg(all(
                target_arch = "x86_64",
                any(
                    not(target_feature = "avx512f"),
                    all(target_feature = "avx512dq", target_feature = "avx512vl")
                )
            ))]
            {
                // The operations of a build without AVX-512 ask `runtime::path::mode` (in `fast_op!`) first and reach
                // this where the portable path runs (`on` then says no) or while another thread
                // sets that byte. For `f64` (`fallback`) this answer keeps the compiler's loop
                // layout fast; for `f32` it would put a running sum in memory (this copy hands
                // its result on in pieces), so `f32` has none (docs/performance.md).
                #[cfg(not(target_feature = "avx512f"))]
                let fused = $fallback_pre && op != 2 && crate::runtime::path::on();
                // A native AVX-512 build runs the same fused blocks for `f32` (whose lanes are
                // one register in both builds): fewer instructions than the compiler's code for
                // the pre-tests after its own kernel.
                #[cfg(target_feature = "avx512f")]
                let fused = $native_pre;
                if !fused {
                    return None;
                }
                Some(Self::rt512_fused(op, a, b, dir))
            }
            #[cfg(not(all(
                target_arch = "x86_64",
                any(
                    not(target_feature = "avx512f"),
                    all(target_feature = "avx512dq", target_feature = "avx512vl")
                )
            )))]
            {
                let _ = (op, a, b, dir);
                None
            }
        }
        #[cfg(all(
            target_arch = "x86_64",
            not(all(target_feature = "avx2", target_feature = "fma"))
        ))]
        #[inline(always)]
        fn opaque(v: $l) -> $l {
            $opaque(v)
        }
        #[inline(always)]
        fn zero_lane() -> $t {
            0.0
        }
    };
}

/// The dispatched kernel for `op` (0 add, 1 mul, 2 div, 3 fma `a·b + c`, 4 sqrt of `a`) on
/// three samples: what the operators run, for the tests (through `__private`).
pub fn dispatch3<T: Kernels>(op: u8, a: [T; 3], b: [T; 3], c: [T; 3], dir: u32) -> [T; 3] {
    let (a, b, c) = (T::load(four(a)), T::load(four(b)), T::load(four(c)));
    three(T::store(match op {
        0 => T::add4(a, b, dir),
        1 => T::mul4(a, b, dir),
        2 => T::div4(a, b, dir),
        3 => T::fma4(a, b, c, dir),
        _ => T::sqrt4(a, dir),
    }))
}

/// `path`'s kernel on three samples (`Kernels::path4`), for the tests (through
/// `__private`): `None` where the processor cannot run it.
pub fn kernel3<T: Kernels>(
    path: Path,
    op: u8,
    a: [T; 3],
    b: [T; 3],
    c: [T; 3],
    dir: u32,
) -> Option<[T; 3]> {
    T::path4(path, op, four(a), four(b), four(c), dir).map(three)
}

/// Whether the portable path's products use a hardware fused multiply-add (the target has one)
/// rather than Dekker's split.
pub(crate) const HARDWARE_FMA: bool = cfg!(any(target_feature = "fma", target_arch = "aarch64"));

/// The path this process runs, in words.
pub(crate) fn describe() -> &'static str {
    let native512 = cfg!(all(target_arch = "x86_64", target_feature = "avx512f"));
    let native2 = cfg!(all(
        target_arch = "x86_64",
        target_feature = "avx2",
        target_feature = "fma"
    ));
    match crate::runtime::path::chosen() {
        Path::Avx512 if native512 => "AVX-512 embedded rounding (the build's target)",
        Path::Avx512 => {
            "AVX-512 embedded rounding, chosen at run time (the build's target has no AVX-512)"
        }
        Path::Avx2 if native2 => "AVX2 vectors with hardware FMA (the build's target)",
        Path::Avx2 => {
            "AVX2 vectors with hardware FMA, chosen at run time (inline assembly: the build's \
             target has no AVX2)"
        }
        Path::Portable if HARDWARE_FMA => "portable error-free transformations, hardware FMA",
        Path::Portable => {
            "portable error-free transformations, Dekker products (the build's target has no \
             hardware FMA)"
        }
    }
}

/// Whether random rounding runs the slow software path: Dekker's products, on the portable path
/// of a target without hardware FMA.
pub(crate) fn slow_software_path() -> bool {
    !HARDWARE_FMA && crate::runtime::path::chosen() == Path::Portable
}

impl Kernels for f64 {
    dispatch!(
        f64,
        L64,
        lanes64,
        unlanes64,
        neg64,
        opaque64,
        add_f64,
        mul_f64,
        div_f64,
        fma_f64,
        sqrt_f64,
        ranged: [mul_f64_ranged, div_f64_ranged],
        [
            add_pre_f64,
            mul_pre_f64,
            div_pre_f64,
            native: false,
            fallback: true
        ],
        rt2: [operands_f64]
    );
}

impl Kernels for f32 {
    dispatch!(
        f32,
        L32,
        lanes32,
        unlanes32,
        neg32,
        opaque32,
        add_f32,
        mul_f32,
        div_f32,
        fma_f32,
        sqrt_f32,
        ranged: [mul_f32_ranged, div_f32_ranged],
        [
            add_pre_f32,
            mul_pre_f32,
            div_pre_f32,
            native: true,
            fallback: false
        ],
        rt2: [operands_f32]
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The words name the path chosen, and whether the build's target or the run-time choice
    /// picked it.
    #[test]
    fn describe_names_the_path_that_runs() {
        let words = describe();
        let want = match crate::runtime::path::chosen() {
            Path::Avx512 => "AVX-512",
            Path::Avx2 => "AVX2",
            Path::Portable => "portable",
        };
        assert!(words.contains(want), "{words}");
        let compiled = match crate::runtime::path::chosen() {
            Path::Avx512 => cfg!(all(target_arch = "x86_64", target_feature = "avx512f")),
            Path::Avx2 => cfg!(all(
                target_arch = "x86_64",
                target_feature = "avx2",
                target_feature = "fma"
            )),
            Path::Portable => true,
        };
        assert_eq!(words.contains("chosen at run time"), !compiled, "{words}");
    }

    /// Every path's kernels, run directly, agree with the dispatched one on exact operations
    /// (every direction gives the same samples), and the flags lane is the operands' OR.
    #[test]
    fn every_path_computes_exact_operations_exactly() {
        let (a, b, c) = ([1.5, 2.5, 4.0], [0.25, 0.5, 0.125], [1.0, -1.0, 8.0]);
        let want = [
            [1.75, 3.0, 4.125],
            [0.375, 1.25, 0.5],
            [6.0, 5.0, 32.0],
            [1.375, 0.25, 8.5],
        ];
        for path in Path::ALL {
            for code in 0..4 {
                let dir = crate::runtime::rng::dir_word(code);
                for (op, w) in want.iter().enumerate() {
                    let got = kernel3::<f64>(path, op as u8, a, b, c, dir);
                    if let Some(got) = got {
                        assert_eq!(&got, w, "{path} op {op} dir {code}");
                    }
                    assert_eq!(dispatch3::<f64>(op as u8, a, b, c, dir), *w, "op {op}");
                }
            }
            assert!(kernel3::<f64>(Path::Portable, 4, a, b, c, 0).is_some());
        }
    }
}
