//! Random rounding: each sample of a result is the exact result rounded toward +∞ or toward −∞.
//!
//! The exact result is never formed. Each operation is computed in round-to-nearest, the sign of
//! its rounding error is obtained from an error-free transformation, and the result is moved to
//! its neighbour when the requested direction demands it:
//!
//! * sum: TwoSum (Knuth), six flops, exact for every finite input including subnormals;
//! * product: TwoProduct with a fused multiply-add (or Dekker's split when the target has no
//!   FMA), with the operands scaled by powers of two when the product is so small that its error
//!   term would underflow;
//! * quotient and square root: the exact remainder `a − q·b` and `x − q²`, scaled the same way;
//! * fused multiply-add: the error of the FMA (Boldo and Muller, *Exact and approximated error of
//!   the FMA*, IEEE TC 2011, algorithm ErrFma).
//!
//! The portable path rounds in the requested direction directly: the round-to-nearest result
//! moves one unit in the last place toward +∞ or −∞ when the error term says the exact result
//! lies on that side. The random direction never enters control flow: it becomes an all-ones or
//! all-zeros mask that picks the step and the test by AND and OR (a select on a random bool is
//! turned back into a branch by LLVM, and mispredicts half the time).
//!
//! For `f32`, products, quotients and square roots are checked exactly in `f64`, where the
//! product of two `f32` values is always exact.
//!
//! When the target has AVX2 and FMA but not AVX-512 (`-C target-cpu=native` on most x86-64 of
//! the last decade), `+` and `*` (and so `-` and the operators with a plain operand) run on the
//! four lanes of a value in one vector register, branch-free (module `avx2`), and fall back to
//! the portable path for the rare operands it does not cover.
//!
//! When the target has AVX-512 (`-C target-cpu=native` on a recent x86-64), the three samples are
//! computed rounded up and rounded down by two instructions with embedded rounding
//! (`vaddpd {ru-sae}`, `vaddpd {rd-sae}` and friends), and a mask register picks each sample's
//! direction; the portable path above is the always-correct fallback, and both are tested
//! against the same oracle.
//!
//! When the target does not have AVX-512 but the processor does (a build for the default
//! `x86-64` target run on a recent x86-64), the same embedded rounding runs from inline assembly
//! instead (module `rt512`), chosen once per process: 512-bit instructions round every lane up
//! and every lane down into registers the build's SSE2 code cannot touch, and mask registers
//! (or, for the `f64` sum and product, lane selectors read from memory) pick the lanes. The `f32` sum of both builds takes the assembly's shorter form (each way's
//! lanes zero elsewhere, joined by one ternary-logic instruction).

#[cfg(target_arch = "x86_64")]
use crate::rt512;

/// Where the two random bits of a direction word lie. A `dir` argument of the kernels rounds
/// sample `x` down when its bit `DIR_SHIFT` is set and `y` down when bit `DIR_SHIFT + 1` is,
/// `z` the opposite way of `y`; its other bits are ignored. The generator hands out its bits in
/// place (`dir & DIR_MASK`), which is the byte offset of the row to read in a table of four
/// 32-byte rows: no shift on the hot path.
#[doc(hidden)]
pub const DIR_SHIFT: u32 = 5;

/// The two random bits of a direction word, in place.
#[doc(hidden)]
pub const DIR_MASK: u32 = 3 << DIR_SHIFT;

/// The direction code (0 to 3: bit 0 for `x`, bit 1 for `y`) of a direction word.
#[doc(hidden)]
#[inline(always)]
pub const fn dir_code(dir: u32) -> u32 {
    (dir >> DIR_SHIFT) & 3
}

/// The direction word of a direction code (0 to 3: bit 0 rounds `x` down, bit 1 `y`).
#[doc(hidden)]
#[inline(always)]
pub const fn dir_word(code: u32) -> u32 {
    (code & 3) << DIR_SHIFT
}

/// The byte offset of the row that the direction word `dir` picks in a table of four 32-byte
/// rows: its random bits in place.
#[inline(always)]
pub(crate) const fn row_offset(dir: u32) -> usize {
    (dir & DIR_MASK) as usize
}

/// The row of `table` (four rows of 32 bytes) that the direction word `dir` picks, read at
/// [`row_offset`].
#[cfg(all(
    target_arch = "x86_64",
    target_feature = "avx2",
    target_feature = "fma"
))]
#[inline(always)]
pub(crate) fn row<R>(table: &'static [R; 4], dir: u32) -> &'static R {
    const { assert!(core::mem::size_of::<R>() == 32) };
    // SAFETY: the offset is 0, 32, 64 or 96, the start of row 0, 1, 2 or 3 of a table of four
    // 32-byte rows (checked above), suitably aligned for `R` (rows are `R`s).
    unsafe { &*table.as_ptr().cast::<u8>().add(row_offset(dir)).cast::<R>() }
}

/// Random-direction kernels on the three samples of a value. `dir` is a direction word (see
/// [`DIR_SHIFT`]): bit `DIR_SHIFT` chooses the direction of sample `x`, the next bit that of
/// sample `y`, and `z` takes the opposite of `y`. A set direction bit means "round down".
#[doc(hidden)]
pub trait Kernels: Sized + Copy {
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
    /// The AVX2 + FMA path's `a + b` (`op` 0) or `a * b` (`op` 1) when it is compiled in (a
    /// target with AVX2 and FMA, also where the AVX-512 path is the one dispatched), so that
    /// tests check it against the same oracle; `None` elsewhere.
    fn avx2_4(op: u8, a: Self::Lanes, b: Self::Lanes, dir: u32) -> Option<Self::Lanes>;
    /// The run-time AVX-512 path (module `rt512`): `op` 0 add, 1 mul, 2 div, 3 fma
    /// (`a·b + c`), 4 sqrt (of `a`), on four lanes, when the processor has AVX-512F, DQ and
    /// VL (whatever the target, so that tests check it against the same oracle); `None`
    /// elsewhere.
    fn rt512_4(op: u8, a: [Self; 4], b: [Self; 4], c: [Self; 4], dir: u32) -> Option<[Self; 4]>;
    /// For `f64` on the run-time AVX-512 path, when it is the one that runs (a build without
    /// AVX-512 on a processor with it), and for `f32` in a build with AVX-512F, DQ and VL:
    /// `a + b` (`op` 0), `a * b` (1) or `a / b` (2) with random rounding and, in the same
    /// assembly block, the pre-test of the operation's checks (see `ops`): the result's lanes
    /// and whether the pre-test passed. `None` on every other path, where the compiler's code
    /// runs the same pre-test after the kernel. (The operations of a build without AVX-512 run
    /// that path's fused blocks through `rt512::mode` first, for both types, and reach this
    /// only as a fallback: see the definition.)
    fn rt512_pre(op: u8, a: Self::Lanes, b: Self::Lanes, dir: u32) -> Option<(Self::Lanes, bool)>;
    /// The run-time AVX-512 path's `a + b` (`op` 0), `a * b` (1) or `a / b` (2) with its fused
    /// pre-test, without asking whether that path runs: for [`Kernels::rt512_pre`], and for the
    /// operations once `rt512::mode` said so.
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
    /// `a + b` rounded down (`down`) or up, one sample (portable path).
    fn rr_add(a: Self, b: Self, down: bool) -> Self;
    /// `a * b` rounded down or up, one sample (portable path).
    fn rr_mul(a: Self, b: Self, down: bool) -> Self;
    /// `a / b` rounded down or up, one sample (portable path).
    fn rr_div(a: Self, b: Self, down: bool) -> Self;
    /// `a * b + c` rounded down or up, one sample (portable path).
    fn rr_fma(a: Self, b: Self, c: Self, down: bool) -> Self;
    /// Square root rounded up (`up`) or down, one sample (portable path).
    fn rr_sqrt(a: Self, up: bool) -> Self;
    /// Bitwise OR of two lanes.
    fn or_bits(a: Self, b: Self) -> Self;
    /// Zero.
    fn zero_lane() -> Self;

    /// `a + b` on three samples (the dispatching path, for tests).
    fn add3(a: [Self; 3], b: [Self; 3], dir: u32) -> [Self; 3] {
        three(Self::store(Self::add4(
            Self::load(four(a)),
            Self::load(four(b)),
            dir,
        )))
    }
    /// `a * b` on three samples.
    fn mul3(a: [Self; 3], b: [Self; 3], dir: u32) -> [Self; 3] {
        three(Self::store(Self::mul4(
            Self::load(four(a)),
            Self::load(four(b)),
            dir,
        )))
    }
    /// `a / b` on three samples.
    fn div3(a: [Self; 3], b: [Self; 3], dir: u32) -> [Self; 3] {
        three(Self::store(Self::div4(
            Self::load(four(a)),
            Self::load(four(b)),
            dir,
        )))
    }
    /// `a * b + c` on three samples.
    fn fma3(a: [Self; 3], b: [Self; 3], c: [Self; 3], dir: u32) -> [Self; 3] {
        three(Self::store(Self::fma4(
            Self::load(four(a)),
            Self::load(four(b)),
            Self::load(four(c)),
            dir,
        )))
    }
    /// `sqrt(a)` on three samples.
    fn sqrt3(a: [Self; 3], dir: u32) -> [Self; 3] {
        three(Self::store(Self::sqrt4(Self::load(four(a)), dir)))
    }
}

/// The lanes of a value in one vector register (x86-64 with AVX2 and FMA, AVX-512 included).
#[cfg(all(
    target_arch = "x86_64",
    target_feature = "avx2",
    target_feature = "fma"
))]
mod vlanes {
    use core::arch::x86_64::{__m128, __m256d};

    /// Four `f64` lanes in a vector register, with the alignment of `f64` (so that the
    /// value keeps the layout of the device type).
    #[derive(Clone, Copy)]
    #[repr(C, packed(8))]
    pub struct L64(pub(crate) __m256d);
    /// Four `f32` lanes in a vector register, with the alignment of `f32`.
    #[derive(Clone, Copy)]
    #[repr(C, packed(4))]
    pub struct L32(pub(crate) __m128);

    // SAFETY: plain data.
    unsafe impl Send for L64 {}
    // SAFETY: plain data.
    unsafe impl Sync for L64 {}
    // SAFETY: plain data.
    unsafe impl Send for L32 {}
    // SAFETY: plain data.
    unsafe impl Sync for L32 {}
}

/// The lanes of an `f64` value.
#[cfg(all(
    target_arch = "x86_64",
    target_feature = "avx2",
    target_feature = "fma"
))]
pub use vlanes::{L32, L64};
/// The lanes of an `f64` value.
#[cfg(not(all(
    target_arch = "x86_64",
    target_feature = "avx2",
    target_feature = "fma"
)))]
pub type L64 = [f64; 4];
/// The lanes of an `f32` value.
#[cfg(not(all(
    target_arch = "x86_64",
    target_feature = "avx2",
    target_feature = "fma"
)))]
pub type L32 = [f32; 4];

/// Array to lanes, in constant context.
#[inline(always)]
pub const fn lanes64(a: [f64; 4]) -> L64 {
    #[cfg(all(
        target_arch = "x86_64",
        target_feature = "avx2",
        target_feature = "fma"
    ))]
    {
        // SAFETY: [f64; 4] and __m256d are 32 bytes of plain data.
        L64(unsafe { core::mem::transmute::<[f64; 4], core::arch::x86_64::__m256d>(a) })
    }
    #[cfg(not(all(
        target_arch = "x86_64",
        target_feature = "avx2",
        target_feature = "fma"
    )))]
    {
        a
    }
}

/// Lanes to array, in constant context.
#[inline(always)]
pub const fn unlanes64(v: L64) -> [f64; 4] {
    #[cfg(all(
        target_arch = "x86_64",
        target_feature = "avx2",
        target_feature = "fma"
    ))]
    {
        let m = v.0;
        // SAFETY: as above.
        unsafe { core::mem::transmute::<core::arch::x86_64::__m256d, [f64; 4]>(m) }
    }
    #[cfg(not(all(
        target_arch = "x86_64",
        target_feature = "avx2",
        target_feature = "fma"
    )))]
    {
        v
    }
}

/// Array to lanes, in constant context.
#[inline(always)]
pub const fn lanes32(a: [f32; 4]) -> L32 {
    #[cfg(all(
        target_arch = "x86_64",
        target_feature = "avx2",
        target_feature = "fma"
    ))]
    {
        // SAFETY: [f32; 4] and __m128 are 16 bytes of plain data.
        L32(unsafe { core::mem::transmute::<[f32; 4], core::arch::x86_64::__m128>(a) })
    }
    #[cfg(not(all(
        target_arch = "x86_64",
        target_feature = "avx2",
        target_feature = "fma"
    )))]
    {
        a
    }
}

/// Lanes to array, in constant context.
#[inline(always)]
pub const fn unlanes32(v: L32) -> [f32; 4] {
    #[cfg(all(
        target_arch = "x86_64",
        target_feature = "avx2",
        target_feature = "fma"
    ))]
    {
        let m = v.0;
        // SAFETY: as above.
        unsafe { core::mem::transmute::<core::arch::x86_64::__m128, [f32; 4]>(m) }
    }
    #[cfg(not(all(
        target_arch = "x86_64",
        target_feature = "avx2",
        target_feature = "fma"
    )))]
    {
        v
    }
}

#[inline(always)]
fn four<T: Kernels>(a: [T; 3]) -> [T; 4] {
    [a[0], a[1], a[2], T::zero_lane()]
}

#[inline(always)]
fn three<T: Kernels>(a: [T; 4]) -> [T; 3] {
    [a[0], a[1], a[2]]
}

/// The portable path on four lanes, one straight-line function per operation (no closure over
/// an operation code: each must inline into the operator).
mod portable {
    use super::{directions, Kernels};

    #[inline(always)]
    pub(super) fn add<T: Kernels>(a: [T; 4], b: [T; 4], dir: u32) -> [T; 4] {
        let d = directions(dir);
        let f = T::rr_add;
        [
            f(a[0], b[0], d[0]),
            f(a[1], b[1], d[1]),
            f(a[2], b[2], d[2]),
            T::or_bits(a[3], b[3]),
        ]
    }

    #[inline(always)]
    pub(super) fn mul<T: Kernels>(a: [T; 4], b: [T; 4], dir: u32) -> [T; 4] {
        let d = directions(dir);
        let f = T::rr_mul;
        [
            f(a[0], b[0], d[0]),
            f(a[1], b[1], d[1]),
            f(a[2], b[2], d[2]),
            T::or_bits(a[3], b[3]),
        ]
    }

    #[inline(always)]
    pub(super) fn div<T: Kernels>(a: [T; 4], b: [T; 4], dir: u32) -> [T; 4] {
        let d = directions(dir);
        let f = T::rr_div;
        [
            f(a[0], b[0], d[0]),
            f(a[1], b[1], d[1]),
            f(a[2], b[2], d[2]),
            T::or_bits(a[3], b[3]),
        ]
    }

    #[inline(always)]
    pub(super) fn fma<T: Kernels>(a: [T; 4], b: [T; 4], c: [T; 4], dir: u32) -> [T; 4] {
        let d = directions(dir);
        let f = T::rr_fma;
        [
            f(a[0], b[0], c[0], d[0]),
            f(a[1], b[1], c[1], d[1]),
            f(a[2], b[2], c[2], d[2]),
            T::or_bits(T::or_bits(a[3], b[3]), c[3]),
        ]
    }

    #[inline(always)]
    pub(super) fn sqrt<T: Kernels>(a: [T; 4], dir: u32) -> [T; 4] {
        let d = directions(dir);
        [
            T::rr_sqrt(a[0], !d[0]),
            T::rr_sqrt(a[1], !d[1]),
            T::rr_sqrt(a[2], !d[2]),
            a[3],
        ]
    }
}

/// The AVX2 + FMA path (dispatched on x86-64 without AVX-512; compiled wherever AVX2 and FMA
/// are, so that tests check it there too): `+` and `*` on the four lanes of a value in one
/// vector register, branch-free. TwoSum, or the exact product error by FMA (`f64`) or in `f64`
/// (`f32`), gives the error's sign per lane, and a per-lane mask of the random directions moves
/// each sample one unit toward +∞ or −∞ by integer arithmetic on its bits, as the portable path
/// does one sample at a time. Operands or results in the rare ranges the vector code does not
/// cover (overflow, non-finite values, error terms that could underflow, sums near ±MAX) are
/// detected with one mask test, a branch that predicts well, and go to the portable path.
#[cfg(all(
    target_arch = "x86_64",
    target_feature = "avx2",
    target_feature = "fma"
))]
mod avx2 {
    use core::arch::x86_64::*;

    use super::{portable, L32, L64};

    /// All-ones lanes for the samples that round down, for the two random bits `dir`: bit 0
    /// for `x`, bit 1 for `y`, `z` the opposite of `y`; the flags lane is never moved.
    static DOWN64: [[u64; 4]; 4] = {
        const fn lane(on: bool) -> u64 {
            if on {
                u64::MAX
            } else {
                0
            }
        }
        let mut t = [[0u64; 4]; 4];
        let mut d = 0;
        while d < 4 {
            t[d] = [lane(d & 1 != 0), lane(d & 2 != 0), lane(d & 2 == 0), 0];
            d += 1;
        }
        t
    };

    /// The same for `f32` lanes, rows padded to 32 bytes (see [`super::row`]).
    static DOWN32: [[u32; 8]; 4] = {
        const fn lane(on: bool) -> u32 {
            if on {
                u32::MAX
            } else {
                0
            }
        }
        let mut t = [[0u32; 8]; 4];
        let mut d = 0;
        while d < 4 {
            t[d] = [
                lane(d & 1 != 0),
                lane(d & 2 != 0),
                lane(d & 2 == 0),
                0,
                0,
                0,
                0,
                0,
            ];
            d += 1;
        }
        t
    };

    /// Only the three sample lanes of a `movemask`.
    const SAMPLES: i32 = 0b0111;

    #[inline(always)]
    unsafe fn down64(dir: u32) -> __m256i {
        // SAFETY: a row of the table is 32 bytes, read unaligned.
        unsafe { _mm256_loadu_si256(super::row(&DOWN64, dir).as_ptr().cast()) }
    }

    #[inline(always)]
    unsafe fn down32(dir: u32) -> __m128i {
        // SAFETY: as above, the first 16 bytes of a row.
        unsafe { _mm_loadu_si128(super::row(&DOWN32, dir).as_ptr().cast()) }
    }

    /// `s` moved one unit toward −∞ in the lanes of `down` and toward +∞ in the others, where
    /// the exact result lies beyond `s` that way: `e_lt` (`e_gt`) marks the lanes whose error,
    /// the exact result minus `s`, is negative (positive).
    #[inline(always)]
    unsafe fn directed64(s: __m256d, e_lt: __m256d, e_gt: __m256d, down: __m256i) -> __m256d {
        // SAFETY: for all intrinsics below, the target has AVX2 (checked at compile time).
        unsafe {
            let bits = _mm256_castpd_si256(s);
            // One unit toward +∞ is +1 on the bits of a positive value and −1 on a negative
            // one, and the reverse toward −∞: the step is −1 (all ones) where the sign mask
            // and the direction mask differ, +1 elsewhere.
            let negative = _mm256_cmpgt_epi64(_mm256_setzero_si256(), bits);
            let toward = _mm256_or_si256(_mm256_xor_si256(negative, down), _mm256_set1_epi64x(1));
            // Moves where the error points the requested way (`down` selects by its sign bit).
            let beyond =
                _mm256_castpd_si256(_mm256_blendv_pd(e_gt, e_lt, _mm256_castsi256_pd(down)));
            _mm256_castsi256_pd(_mm256_add_epi64(bits, _mm256_and_si256(toward, beyond)))
        }
    }

    #[inline(always)]
    unsafe fn directed32(s: __m128, e_lt: __m128i, e_gt: __m128i, down: __m128i) -> __m128 {
        // SAFETY: for all intrinsics below, the target has AVX2.
        unsafe {
            let bits = _mm_castps_si128(s);
            // As for `f64`; the sign mask by an arithmetic shift.
            let negative = _mm_srai_epi32::<31>(bits);
            let toward = _mm_or_si128(_mm_xor_si128(negative, down), _mm_set1_epi32(1));
            let beyond = _mm_castps_si128(_mm_blendv_ps(
                _mm_castsi128_ps(e_gt),
                _mm_castsi128_ps(e_lt),
                _mm_castsi128_ps(down),
            ));
            _mm_castsi128_ps(_mm_add_epi32(bits, _mm_and_si128(toward, beyond)))
        }
    }

    #[inline(always)]
    unsafe fn abs64(v: __m256d) -> __m256d {
        // SAFETY: AVX.
        unsafe { _mm256_andnot_pd(_mm256_set1_pd(-0.0), v) }
    }

    #[inline(always)]
    unsafe fn abs32(v: __m128) -> __m128 {
        // SAFETY: SSE.
        unsafe { _mm_andnot_ps(_mm_set1_ps(-0.0), v) }
    }

    /// The result lanes with the flags lane replaced by the OR of the operands' flags lanes.
    #[inline(always)]
    unsafe fn with_flags64(r: __m256d, a: __m256d, b: __m256d) -> L64 {
        // SAFETY: AVX.
        L64(unsafe { _mm256_blend_pd::<0b1000>(r, _mm256_or_pd(a, b)) })
    }

    #[inline(always)]
    unsafe fn with_flags32(r: __m128, a: __m128, b: __m128) -> L32 {
        // SAFETY: SSE4.1.
        L32(unsafe { _mm_blend_ps::<0b1000>(r, _mm_or_ps(a, b)) })
    }

    /// The portable path for the rare operands (kept out of line: it is large and cold).
    #[cold]
    #[inline(never)]
    fn slow64(op: fn([f64; 4], [f64; 4], u32) -> [f64; 4], a: L64, b: L64, dir: u32) -> L64 {
        super::lanes64(op(super::unlanes64(a), super::unlanes64(b), dir))
    }

    #[cold]
    #[inline(never)]
    fn slow32(op: fn([f32; 4], [f32; 4], u32) -> [f32; 4], a: L32, b: L32, dir: u32) -> L32 {
        super::lanes32(op(super::unlanes32(a), super::unlanes32(b), dir))
    }

    /// [`slow32`]'s answer, taken into a register by an empty assembly block. The call returns
    /// it in memory, and the compiler copied that memory into the caller's running sum with a
    /// block copy, after which it kept the sum in memory in the whole loop: a store and a
    /// reload on the chain of every addition (docs/performance.md).
    #[inline(always)]
    fn slow32_in_register(
        op: fn([f32; 4], [f32; 4], u32) -> [f32; 4],
        a: L32,
        b: L32,
        dir: u32,
    ) -> L32 {
        let mut r = slow32(op, a, b, dir).0;
        // SAFETY: an empty template that only names the register; it reads and writes nothing.
        unsafe {
            core::arch::asm!(
                "/* {r} */",
                r = inout(xmm_reg) r,
                options(pure, nomem, nostack, preserves_flags)
            );
        }
        L32(r)
    }

    /// `a + b`, randomly rounded.
    #[inline(always)]
    pub(super) fn add_f64(a: L64, b: L64, dir: u32) -> L64 {
        // SAFETY: for all intrinsics below, the target has AVX2 and FMA.
        unsafe {
            let va = a.0;
            let vb = b.0;
            let s = _mm256_add_pd(va, vb);
            // Rare lanes: an operand near ±MAX (`s − a` could overflow), or a sum that is not
            // finite (NaN also fails `<`).
            // One comparison: `max` returns its second operand when either is NaN, so a NaN
            // sum reaches the test, which an infinite sum also fails.
            let bad = _mm256_cmp_pd::<_CMP_NLT_UQ>(
                _mm256_max_pd(_mm256_max_pd(abs64(va), abs64(vb)), abs64(s)),
                _mm256_set1_pd(8.0e307),
            );
            if _mm256_movemask_pd(bad) & SAMPLES != 0 {
                return slow64(portable::add, a, b, dir);
            }
            // The error's sign by Fast2Sum, one subtraction after `s` and a comparison: with
            // |a| ≥ |b|, `e = b − (s − a)` exactly, so `e < 0` iff `b < s − a` (and the same
            // with a and b swapped). Both ways run in parallel; the magnitudes pick one.
            let (t_a, t_b) = (_mm256_sub_pd(s, va), _mm256_sub_pd(s, vb));
            let a_big = _mm256_cmp_pd::<_CMP_GE_OQ>(abs64(va), abs64(vb));
            let lt = _mm256_blendv_pd(
                _mm256_cmp_pd::<_CMP_LT_OQ>(va, t_b),
                _mm256_cmp_pd::<_CMP_LT_OQ>(vb, t_a),
                a_big,
            );
            let gt = _mm256_blendv_pd(
                _mm256_cmp_pd::<_CMP_GT_OQ>(va, t_b),
                _mm256_cmp_pd::<_CMP_GT_OQ>(vb, t_a),
                a_big,
            );
            let down = down64(dir);
            let r = directed64(s, lt, gt, down);
            // An exact zero sum rounded down is −0 (IEEE 754 §6.3): −((−a) + (−b)).
            let neg = _mm256_set1_pd(-0.0);
            let zero_down = _mm256_xor_pd(
                neg,
                _mm256_add_pd(_mm256_xor_pd(va, neg), _mm256_xor_pd(vb, neg)),
            );
            let is_zero = _mm256_cmp_pd::<_CMP_EQ_OQ>(s, _mm256_setzero_pd());
            let fix = _mm256_and_pd(is_zero, _mm256_castsi256_pd(down));
            with_flags64(_mm256_blendv_pd(r, zero_down, fix), va, vb)
        }
    }

    /// `a · b`, randomly rounded.
    #[inline(always)]
    pub(super) fn mul_f64(a: L64, b: L64, dir: u32) -> L64 {
        // SAFETY: for all intrinsics below, the target has AVX2 and FMA.
        unsafe {
            let va = a.0;
            let vb = b.0;
            let p = _mm256_mul_pd(va, vb);
            // Rare lanes: a product that is not finite, or one so small (|p| < 2^-969) that the
            // FMA's error term could underflow, unless an operand is zero (then p is an exact
            // zero of the right sign and the error is 0).
            let ap = abs64(p);
            let zero = _mm256_setzero_pd();
            let tiny = _mm256_andnot_pd(
                _mm256_or_pd(
                    _mm256_cmp_pd::<_CMP_EQ_OQ>(va, zero),
                    _mm256_cmp_pd::<_CMP_EQ_OQ>(vb, zero),
                ),
                _mm256_cmp_pd::<_CMP_LT_OQ>(ap, _mm256_set1_pd(super::TWO_M969)),
            );
            let bad = _mm256_or_pd(
                tiny,
                _mm256_cmp_pd::<_CMP_NLT_UQ>(ap, _mm256_set1_pd(f64::INFINITY)),
            );
            if _mm256_movemask_pd(bad) & SAMPLES != 0 {
                return slow64(portable::mul, a, b, dir);
            }
            let e = _mm256_fmsub_pd(va, vb, p);
            let zero = _mm256_setzero_pd();
            let lt = _mm256_cmp_pd::<_CMP_LT_OQ>(e, zero);
            let gt = _mm256_cmp_pd::<_CMP_GT_OQ>(e, zero);
            with_flags64(directed64(p, lt, gt, down64(dir)), va, vb)
        }
    }

    /// `a + b`, randomly rounded.
    #[inline(always)]
    pub(super) fn add_f32(a: L32, b: L32, dir: u32) -> L32 {
        // SAFETY: for all intrinsics below, the target has AVX2.
        unsafe {
            let va = a.0;
            let vb = b.0;
            let s = _mm_add_ps(va, vb);
            let bad = _mm_cmp_ps::<_CMP_NLT_UQ>(
                _mm_max_ps(_mm_max_ps(abs32(va), abs32(vb)), abs32(s)),
                _mm_set1_ps(1.6e38),
            );
            if _mm_movemask_ps(bad) & SAMPLES != 0 {
                return slow32_in_register(portable::add, a, b, dir);
            }
            // The error's sign by Fast2Sum, as for `f64`.
            let (t_a, t_b) = (_mm_sub_ps(s, va), _mm_sub_ps(s, vb));
            let a_big = _mm_cmp_ps::<_CMP_GE_OQ>(abs32(va), abs32(vb));
            let lt = _mm_castps_si128(_mm_blendv_ps(
                _mm_cmp_ps::<_CMP_LT_OQ>(va, t_b),
                _mm_cmp_ps::<_CMP_LT_OQ>(vb, t_a),
                a_big,
            ));
            let gt = _mm_castps_si128(_mm_blendv_ps(
                _mm_cmp_ps::<_CMP_GT_OQ>(va, t_b),
                _mm_cmp_ps::<_CMP_GT_OQ>(vb, t_a),
                a_big,
            ));
            let zero = _mm_setzero_ps();
            let down = down32(dir);
            let r = directed32(s, lt, gt, down);
            let neg = _mm_set1_ps(-0.0);
            let zero_down = _mm_xor_ps(neg, _mm_add_ps(_mm_xor_ps(va, neg), _mm_xor_ps(vb, neg)));
            let is_zero = _mm_cmp_ps::<_CMP_EQ_OQ>(s, zero);
            let fix = _mm_and_ps(is_zero, _mm_castsi128_ps(down));
            with_flags32(_mm_blendv_ps(r, zero_down, fix), va, vb)
        }
    }

    /// `a · b`, randomly rounded: the product of two `f32` is exact in `f64`, which gives the
    /// sign of the error of the `f32` product.
    #[inline(always)]
    pub(super) fn mul_f32(a: L32, b: L32, dir: u32) -> L32 {
        // SAFETY: for all intrinsics below, the target has AVX2.
        unsafe {
            let va = a.0;
            let vb = b.0;
            let x = _mm256_mul_pd(_mm256_cvtps_pd(va), _mm256_cvtps_pd(vb));
            let p = _mm256_cvtpd_ps(x);
            // Rare lanes: a product that is not finite (overflow, or a non-finite operand).
            let bad = _mm_cmp_ps::<_CMP_NLT_UQ>(abs32(p), _mm_set1_ps(f32::INFINITY));
            if _mm_movemask_ps(bad) & SAMPLES != 0 {
                return slow32_in_register(portable::mul, a, b, dir);
            }
            let e = _mm256_sub_pd(x, _mm256_cvtps_pd(p));
            let zero = _mm256_setzero_pd();
            // 64-bit comparison masks to 32-bit lanes: the low half of each.
            let narrow = _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6);
            let lt = _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(
                _mm256_castpd_si256(_mm256_cmp_pd::<_CMP_LT_OQ>(e, zero)),
                narrow,
            ));
            let gt = _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(
                _mm256_castpd_si256(_mm256_cmp_pd::<_CMP_GT_OQ>(e, zero)),
                narrow,
            ));
            with_flags32(directed32(p, lt, gt, down32(dir)), va, vb)
        }
    }
}

/// The samples that round down for direction code `code` (0 to 3), as mask-register bits:
/// bit 0 `x`, bit 1 `y`, bit 2 `z` (the same convention as [`directions`]).
pub(crate) const fn down_lanes(code: u32) -> u8 {
    let (x, y) = ((code & 1) as u8, ((code >> 1) & 1) as u8);
    x | y << 1 | (1 - y) << 2
}

/// The direction of each of the three samples for the two random bits `dir`:
/// `[x, y, z]`, `true` meaning "round down".
#[inline(always)]
pub(crate) fn directions(dir: u32) -> [bool; 3] {
    let code = dir_code(dir);
    let y = code & 2 != 0;
    [code & 1 != 0, y, !y]
}

/// The directed rounding of the exact value `s + e` (with `s` its round-to-nearest and `e` the
/// error, or any float of the error's sign): `s` moved one unit toward −∞ (`down`) or +∞ when the
/// error points that way. Integer arithmetic and unpredictable selects only: the direction is
/// random and must not become a branch. Also right for zeros (`+0` moves to the smallest positive
/// subnormal, `−0` to the smallest negative one).
macro_rules! directed {
    ($s:expr, $e:expr, $down:expr, $t:ty, $bits:ty) => {{
        let s: $t = $s;
        let e: $t = $e;
        let down: bool = $down;
        let b = s.to_bits();
        // Masks, not selects: LLVM turns a select on a random bool back into a branch (which
        // mispredicts half the time), and it rebuilds selects from masks it can see are 0 or
        // all ones; `opaque` hides that. All-ones when rounding down.
        let dmask = opaque((0 as $bits).wrapping_sub(down as $bits));
        // One unit toward +∞ is +1 on the bits of a positive value, −1 on a negative one; toward
        // −∞ its negation (`(x ^ m) − m` negates when `m` is all ones).
        let sign = b >> (<$bits>::BITS - 1);
        let up_step = (1 as $bits).wrapping_sub(sign << 1);
        let toward = (up_step ^ dmask).wrapping_sub(dmask);
        // The exact value lies beyond `s` in the requested direction.
        let beyond = (dmask & (e < 0.0) as $bits) | (!dmask & (e > 0.0) as $bits);
        let step = toward & opaque((0 as $bits).wrapping_sub(beyond));
        <$t>::from_bits(b.wrapping_add(step))
    }};
}

/// `x`, unknown to the optimiser, at no cost: an empty `asm!` that takes and returns `x` in a
/// register. It keeps LLVM from recognising a 0-or-all-ones mask as a boolean and turning the
/// arithmetic on it back into a branch on the random direction.
#[inline(always)]
fn opaque<B: Opaque>(x: B) -> B {
    x.opaque()
}

trait Opaque: Copy {
    fn opaque(self) -> Self;
}

impl Opaque for u64 {
    #[inline(always)]
    fn opaque(self) -> Self {
        #[cfg(any(
            target_arch = "x86_64",
            target_arch = "aarch64",
            target_arch = "riscv64"
        ))]
        {
            let mut x = self;
            // SAFETY: an empty template (a comment) that leaves its register operand unchanged;
            // it reads and writes no memory and no other register.
            unsafe {
                core::arch::asm!("/* {0} */", inout(reg) x, options(pure, nomem, nostack, preserves_flags));
            }
            x
        }
        #[cfg(not(any(
            target_arch = "x86_64",
            target_arch = "aarch64",
            target_arch = "riscv64"
        )))]
        {
            core::hint::black_box(self)
        }
    }
}

impl Opaque for u32 {
    #[inline(always)]
    fn opaque(self) -> Self {
        // Through a full register: the same instruction-free barrier.
        (self as u64).opaque() as u32
    }
}

/// Round-to-nearest overflowed to ±∞ although the operands were finite: rounded toward zero
/// the result is ±MAX instead (RD of a positive overflow, RU of a negative one). The test is
/// rarely true, so its branch predicts well; the random direction is only read inside it.
#[inline(always)]
fn fix_overflow_f64(r: f64, finite_inputs: bool, down: bool) -> f64 {
    if r.is_infinite() & finite_inputs {
        overflow_f64(r, down)
    } else {
        r
    }
}

#[cold]
fn overflow_f64(r: f64, down: bool) -> f64 {
    if (r > 0.0) == down {
        f64::MAX.copysign(r)
    } else {
        r
    }
}

#[inline(always)]
fn fix_overflow_f32(r: f32, finite_inputs: bool, down: bool) -> f32 {
    if r.is_infinite() & finite_inputs {
        overflow_f32(r, down)
    } else {
        r
    }
}

#[cold]
fn overflow_f32(r: f32, down: bool) -> f32 {
    if (r > 0.0) == down {
        f32::MAX.copysign(r)
    } else {
        r
    }
}

/// Fast2Sum after ordering by magnitude: `a + b = s + e` exactly whenever `s` is finite, with no
/// intermediate overflow (unlike TwoSum's `s − a` near ±MAX).
#[inline(always)]
fn fast_two_sum_f64(a: f64, b: f64) -> (f64, f64) {
    let (hi, lo) = if a.abs() >= b.abs() { (a, b) } else { (b, a) };
    let s = hi + lo;
    (s, lo - (s - hi))
}

#[inline(always)]
fn fast_two_sum_f32(a: f32, b: f32) -> (f32, f32) {
    let (hi, lo) = if a.abs() >= b.abs() { (a, b) } else { (b, a) };
    let s = hi + lo;
    (s, lo - (s - hi))
}

/// TwoSum: `a + b = s + e` exactly (for finite, non-overflowing inputs).
#[inline(always)]
fn two_sum_f32(a: f32, b: f32) -> (f32, f32) {
    let s = a + b;
    let bb = s - a;
    let e = (a - (s - bb)) + (b - bb);
    (s, e)
}

/// TwoSum: `a + b = s + e` exactly (for finite, non-overflowing inputs).
#[inline(always)]
fn two_sum_f64(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    let e = (a - (s - bb)) + (b - bb);
    (s, e)
}

/// Error of the product `a·b − RN(a·b)`, exact when `|RN(a·b)| ≥ 2^-969`.
#[cfg(target_feature = "fma")]
#[inline(always)]
fn prod_err_f64(a: f64, b: f64, p: f64) -> f64 {
    a.mul_add(b, -p)
}

/// Error of the product `a·b − RN(a·b)` by Dekker's split (no hardware FMA on this target).
#[cfg(not(target_feature = "fma"))]
#[inline(always)]
fn prod_err_f64(a: f64, b: f64, p: f64) -> f64 {
    prod_err_dekker_f64(a, b, p)
}

/// Dekker's product error, compiled on every target so that its unit test runs everywhere
/// (it is the product error of builds without hardware FMA).
#[cfg_attr(target_feature = "fma", allow(dead_code))]
#[inline(always)]
fn prod_err_dekker_f64(a: f64, b: f64, p: f64) -> f64 {
    const HUGE: f64 = 6.696928794914171e299; // 2^996: Veltkamp's split would overflow above.
                                             // Near the top of the range the split halves' product `ah·bh` can round past ±MAX even
                                             // though `p` is finite (e.g. √MAX squared): the slow path there too.
    if a.abs() >= HUGE || b.abs() >= HUGE || p.abs() >= TWO_1000 || p.is_nan() {
        return prod_err_slow_f64(a, b, p);
    }
    const SPLIT: f64 = 134217729.0; // 2^27 + 1
    let ca = SPLIT * a;
    let ah = ca - (ca - a);
    let al = a - ah;
    let cb = SPLIT * b;
    let bh = cb - (cb - b);
    let bl = b - bh;
    ((ah * bh - p) + ah * bl + al * bh) + al * bl
}

#[cfg_attr(target_feature = "fma", allow(dead_code))]
#[cold]
#[inline(never)]
fn prod_err_slow_f64(a: f64, b: f64, p: f64) -> f64 {
    // Software FMA from the C library: slow but correctly rounded.
    a.mul_add(b, -p)
}

const TWO_M969: f64 = 2.004_168_360_008_973e-292; // 2^-969: below it the product error may underflow.
const TWO_600: f64 = 4.149515568880993e180;

/// Sign of the exact error `a·b − p` where `p = RN(a·b)`, for a tiny product, by scaling.
#[cold]
#[inline(never)]
fn prod_err_tiny_f64(a: f64, b: f64, p: f64) -> f64 {
    if a == 0.0 || b == 0.0 || !a.is_finite() || !b.is_finite() {
        return 0.0;
    }
    if p == 0.0 {
        // Underflow to zero: the exact product has the sign of a·b.
        return a.signum() * b.signum();
    }
    // |a·b| < 2^-969 with a, b ≥ 2^-1074 implies |a|, |b| < 2^105: scaling by 2^600 is exact and
    // safe, and p·2^1200 < 2^231.
    let (a2, b2, p2) = (a * TWO_600, b * TWO_600, p * TWO_600 * TWO_600);
    let q = a2 * b2;
    // a2·b2 − p2 = (q − p2) + (a2·b2 − q); q − p2 is exact (Sterbenz).
    (q - p2) + prod_err_f64(a2, b2, q)
}

/// Sign (as a float) of `a − q·b` for the quotient `q = RN(a/b)`.
#[inline(always)]
fn div_rem_f64(a: f64, b: f64, q: f64) -> f64 {
    if q.abs() < TWO_M969 || a.abs() < TWO_M969 {
        return div_rem_tiny_f64(a, b, q);
    }
    if a.abs() >= TWO_1000 {
        return div_rem_huge_f64(a, b, q);
    }
    let p = q * b;
    // a − q·b = (a − p) − (q·b − p); a − p is exact (Sterbenz).
    (a - p) - prod_err_f64(q, b, p)
}

#[cold]
#[inline(never)]
fn div_rem_tiny_f64(a: f64, b: f64, q: f64) -> f64 {
    if !q.is_finite() || !b.is_finite() || !a.is_finite() {
        return 0.0;
    }
    if q == 0.0 {
        // a − 0·b = a: the exact quotient has the sign of a/b.
        return a;
    }
    // Here |q| ≥ 2^-1074 and |a| < 2^55; scale both sides by 2^600 (exact).
    let a2 = a * TWO_600;
    let q2 = q * TWO_600;
    let p = q2 * b;
    (a2 - p) - prod_err_f64(q2, b, p)
}

const TWO_1000: f64 = 1.0715086071862673e301; // 2^1000
const TWO_M64: f64 = 5.421010862427522e-20; // 2^-64

/// `a − q·b` scaled by 2^-64 when the dividend is near the top of the range (q·b could
/// overflow). The quotient scales exactly: |q| ≥ 2^1000/MAX keeps q·2^-64 normal.
#[cold]
#[inline(never)]
fn div_rem_huge_f64(a: f64, b: f64, q: f64) -> f64 {
    if !q.is_finite() || !b.is_finite() {
        return 0.0;
    }
    let (a2, q2) = (a * TWO_M64, q * TWO_M64);
    let p = q2 * b;
    (a2 - p) - prod_err_f64(q2, b, p)
}

/// `x − q²` for `q = RN(√x)`.
#[inline(always)]
fn sqrt_rem_f64(x: f64, q: f64) -> f64 {
    if x < TWO_M969 {
        return sqrt_rem_tiny_f64(x, q);
    }
    let p = q * q;
    (x - p) - prod_err_f64(q, q, p)
}

#[cold]
#[inline(never)]
fn sqrt_rem_tiny_f64(x: f64, q: f64) -> f64 {
    if x <= 0.0 || !x.is_finite() {
        return 0.0;
    }
    let x2 = x * TWO_600;
    let q2 = q * (TWO_600.sqrt());
    let p = q2 * q2;
    (x2 - p) - prod_err_f64(q2, q2, p)
}

/// Sign (as a float) of the exact sum of four floats: Shewchuk's Grow-Expansion turns them into a
/// non-overlapping expansion, whose largest non-zero component has the sign of the sum.
#[inline(always)]
fn sign_of_sum4_f64(t: [f64; 4]) -> f64 {
    let mut h = [0.0f64; 4];
    for (len, &x) in t.iter().enumerate() {
        let mut q = x;
        for hi in h.iter_mut().take(len) {
            let (s, e) = two_sum_f64(q, *hi);
            *hi = e;
            q = s;
        }
        h[len] = q;
    }
    let mut sign = 0.0;
    for &c in &h {
        if c != 0.0 {
            sign = c;
        }
    }
    sign
}

/// Sign (as a float) of `a·x + b − r1`, where `r1 = RN(a·x + b)`.
#[inline(always)]
fn fma_err_f64(a: f64, x: f64, b: f64, r1: f64) -> f64 {
    let u1 = a * x;
    // An overflowing product (|u1| = ∞) takes the scaled path too.
    if u1.abs() >= TWO_1000 || b.abs() >= TWO_1000 || r1.abs() >= TWO_1000 {
        return fma_err_huge_f64(a, x, b, r1);
    }
    if u1.abs() < TWO_M969 || u1.is_nan() || r1.is_nan() {
        return fma_err_tiny_f64(a, x, b, r1);
    }
    let u2 = prod_err_f64(a, x, u1);
    sign_of_sum4_f64([u2, u1, b, -r1])
}

/// Near the top of the range: scale `a`, `b` and `r1` by 2^-64 (exact for large values; a tiny
/// `b` that underflows keeps its sign, which is all that matters then).
#[cold]
#[inline(never)]
fn fma_err_huge_f64(a: f64, x: f64, b: f64, r1: f64) -> f64 {
    if !r1.is_finite() || !a.is_finite() || !x.is_finite() || !b.is_finite() {
        return 0.0;
    }
    if a == 0.0 || x == 0.0 {
        return 0.0; // a·x + b = b exactly.
    }
    let a2 = a * TWO_M64;
    let mut b2 = b * TWO_M64;
    if b2 == 0.0 && b != 0.0 {
        b2 = f64::from_bits(1).copysign(b);
    }
    let r2 = r1 * TWO_M64;
    let u1 = a2 * x;
    if u1.abs() < TWO_M969 {
        // a·x is negligible here: the error is that of b alone against r1 (b = r1 exactly or
        // the sign of a·x decides).
        return sign_of_sum4_f64([0.0, a.signum() * x.signum() * f64::from_bits(1), b2, -r2]);
    }
    let u2 = prod_err_f64(a2, x, u1);
    sign_of_sum4_f64([u2, u1, b2, -r2])
}

#[cold]
#[inline(never)]
fn fma_err_tiny_f64(a: f64, x: f64, b: f64, r1: f64) -> f64 {
    if !r1.is_finite() || !a.is_finite() || !x.is_finite() || !b.is_finite() {
        return 0.0;
    }
    if a == 0.0 || x == 0.0 {
        return 0.0; // a·x + b = b exactly.
    }
    if b.abs() < 1.0e-75 && r1.abs() < 1.0e-75 {
        // Scale everything by 2^1200 (a and x by 2^600 each): exact, no overflow, and the
        // scaled product's error term no longer underflows.
        let (a2, x2) = (a * TWO_600, x * TWO_600);
        let u1 = a2 * x2;
        let u2 = prod_err_f64(a2, x2, u1);
        return sign_of_sum4_f64([u2, u1, b * TWO_600 * TWO_600, -(r1 * TWO_600 * TWO_600)]);
    }
    // |a·x| < 2^-969 is far below half an ulp of b (≥ 2^-302): RN(a·x + b) = b and the error has
    // the sign of a·x.
    if r1 == b {
        a.signum() * x.signum()
    } else {
        0.0
    }
}

/// The lanes, constants and dispatch (AVX-512 or portable) that are the same for both types.
macro_rules! dispatch {
    (
        $t:ident,
        $l:ident,
        $lanes:ident,
        $unl:ident,
        $add:ident,
        $mul:ident,
        $div:ident,
        $fma:ident,
        $sqrt:ident,
        [
            $add_pre:ident,
            $mul_pre:ident,
            $div_pre:ident,
            native: $native_pre:literal,
            fallback: $fallback_pre:literal
        ]
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
        fn add4(a: $l, b: $l, dir: u32) -> $l {
            #[cfg(all(target_arch = "x86_64", not(target_feature = "avx512f")))]
            if rt512::on() {
                return Self::load(rt512::$add(Self::store(a), Self::store(b), dir));
            }
            #[cfg(all(target_arch = "x86_64", target_feature = "avx512f"))]
            {
                // SAFETY: the target has AVX-512F (checked at compile time above).
                unsafe { avx512::$add(a, b, dir) }
            }
            #[cfg(all(
                target_arch = "x86_64",
                target_feature = "avx2",
                target_feature = "fma",
                not(target_feature = "avx512f")
            ))]
            {
                avx2::$add(a, b, dir)
            }
            // (AVX-512F implies AVX2 and FMA.)
            #[cfg(not(all(
                target_arch = "x86_64",
                target_feature = "avx2",
                target_feature = "fma"
            )))]
            {
                Self::load(portable::add(Self::store(a), Self::store(b), dir))
            }
        }
        #[inline(always)]
        fn avx2_4(op: u8, a: $l, b: $l, dir: u32) -> Option<$l> {
            #[cfg(all(
                target_arch = "x86_64",
                target_feature = "avx2",
                target_feature = "fma"
            ))]
            {
                Some(if op == 0 {
                    avx2::$add(a, b, dir)
                } else {
                    avx2::$mul(a, b, dir)
                })
            }
            #[cfg(not(all(
                target_arch = "x86_64",
                target_feature = "avx2",
                target_feature = "fma"
            )))]
            {
                let _ = (op, a, b, dir);
                None
            }
        }
        #[inline(always)]
        fn mul4(a: $l, b: $l, dir: u32) -> $l {
            #[cfg(all(target_arch = "x86_64", not(target_feature = "avx512f")))]
            if rt512::on() {
                return Self::load(rt512::$mul(Self::store(a), Self::store(b), dir));
            }
            #[cfg(all(target_arch = "x86_64", target_feature = "avx512f"))]
            {
                // SAFETY: the target has AVX-512F.
                unsafe { avx512::$mul(a, b, dir) }
            }
            #[cfg(all(
                target_arch = "x86_64",
                target_feature = "avx2",
                target_feature = "fma",
                not(target_feature = "avx512f")
            ))]
            {
                avx2::$mul(a, b, dir)
            }
            // (AVX-512F implies AVX2 and FMA.)
            #[cfg(not(all(
                target_arch = "x86_64",
                target_feature = "avx2",
                target_feature = "fma"
            )))]
            {
                Self::load(portable::mul(Self::store(a), Self::store(b), dir))
            }
        }
        #[inline(always)]
        fn div4(a: $l, b: $l, dir: u32) -> $l {
            #[cfg(all(target_arch = "x86_64", not(target_feature = "avx512f")))]
            if rt512::on() {
                return Self::load(rt512::$div(Self::store(a), Self::store(b), dir));
            }
            #[cfg(all(target_arch = "x86_64", target_feature = "avx512f"))]
            {
                // SAFETY: the target has AVX-512F.
                unsafe { avx512::$div(a, b, dir) }
            }
            #[cfg(not(all(target_arch = "x86_64", target_feature = "avx512f")))]
            {
                Self::load(portable::div(Self::store(a), Self::store(b), dir))
            }
        }
        #[inline(always)]
        fn fma4(a: $l, b: $l, c: $l, dir: u32) -> $l {
            #[cfg(all(target_arch = "x86_64", not(target_feature = "avx512f")))]
            if rt512::on() {
                return Self::load(rt512::$fma(
                    Self::store(a),
                    Self::store(b),
                    Self::store(c),
                    dir,
                ));
            }
            #[cfg(all(target_arch = "x86_64", target_feature = "avx512f"))]
            {
                // SAFETY: the target has AVX-512F.
                unsafe { avx512::$fma(a, b, c, dir) }
            }
            #[cfg(not(all(target_arch = "x86_64", target_feature = "avx512f")))]
            {
                Self::load(portable::fma(
                    Self::store(a),
                    Self::store(b),
                    Self::store(c),
                    dir,
                ))
            }
        }
        #[inline(always)]
        fn sqrt4(a: $l, dir: u32) -> $l {
            #[cfg(all(target_arch = "x86_64", not(target_feature = "avx512f")))]
            if rt512::on() {
                return Self::load(rt512::$sqrt(Self::store(a), dir));
            }
            #[cfg(all(target_arch = "x86_64", target_feature = "avx512f"))]
            {
                // SAFETY: the target has AVX-512F.
                unsafe { avx512::$sqrt(a, dir) }
            }
            #[cfg(not(all(target_arch = "x86_64", target_feature = "avx512f")))]
            {
                let a = Self::store(a);
                Self::load(portable::sqrt(a, dir))
            }
        }
        fn rt512_4(op: u8, a: [$t; 4], b: [$t; 4], c: [$t; 4], dir: u32) -> Option<[$t; 4]> {
            #[cfg(target_arch = "x86_64")]
            {
                if !rt512::available() {
                    return None;
                }
                Some(match op {
                    0 => rt512::$add(a, b, dir),
                    1 => rt512::$mul(a, b, dir),
                    2 => rt512::$div(a, b, dir),
                    3 => rt512::$fma(a, b, c, dir),
                    _ => rt512::$sqrt(a, dir),
                })
            }
            #[cfg(not(target_arch = "x86_64"))]
            {
                let _ = (op, a, b, c, dir);
                None
            }
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
            let tab = &rt512::TABLES;
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
                // The operations of a build without AVX-512 ask `rt512::mode` first and reach
                // this where the portable path runs (`on` then says no) or while another thread
                // sets that byte. For `f64` (`fallback`) this answer keeps the compiler's loop
                // layout fast; for `f32` it would put a running sum in memory (this copy hands
                // its result on in pieces), so `f32` has none (docs/performance.md).
                #[cfg(not(target_feature = "avx512f"))]
                let fused = $fallback_pre && rt512::on();
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
        #[inline(always)]
        fn or_bits(a: $t, b: $t) -> $t {
            $t::from_bits(a.to_bits() | b.to_bits())
        }
        #[inline(always)]
        fn zero_lane() -> $t {
            0.0
        }
    };
}

impl Kernels for f64 {
    dispatch!(
        f64,
        L64,
        lanes64,
        unlanes64,
        add_f64,
        mul_f64,
        div_f64,
        fma_f64,
        sqrt_f64,
        [
            add_pre_f64,
            mul_pre_f64,
            div_pre_f64,
            native: false,
            fallback: true
        ]
    );
    #[inline(always)]
    fn rr_add(a: f64, b: f64, down: bool) -> f64 {
        // TwoSum is branch-free; near ±MAX its `s − a` can overflow, where the magnitude-ordered
        // Fast2Sum is exact instead (a rare, well-predicted branch).
        let (s, e) = if a.abs().max(b.abs()) < 8.0e307 {
            two_sum_f64(a, b)
        } else {
            fast_two_sum_f64(a, b)
        };
        if s == 0.0 {
            // An exact zero sum is −0 when rounding down (IEEE 754 §6.3): −((−a) + (−b)).
            return if down { -((-a) + (-b)) } else { s };
        }
        let r = directed!(s, e, down, f64, u64);
        fix_overflow_f64(r, a.is_finite() && b.is_finite(), down)
    }
    #[inline(always)]
    fn rr_mul(a: f64, b: f64, down: bool) -> f64 {
        let p = a * b;
        let e = if p.abs() < TWO_M969 {
            prod_err_tiny_f64(a, b, p)
        } else {
            prod_err_f64(a, b, p)
        };
        let r = directed!(p, e, down, f64, u64);
        fix_overflow_f64(r, a.is_finite() && b.is_finite(), down)
    }
    #[inline(always)]
    fn rr_div(a: f64, b: f64, down: bool) -> f64 {
        let q = a / b;
        // sign(a/b − q) = sign(a − q·b)·sign(b).
        let rem = div_rem_f64(a, b, q);
        let e = if b < 0.0 { -rem } else { rem };
        let r = directed!(q, e, down, f64, u64);
        fix_overflow_f64(r, a.is_finite() && b.is_finite() && b != 0.0, down)
    }
    #[inline(always)]
    fn rr_fma(a: f64, b: f64, c: f64, down: bool) -> f64 {
        let r1 = a.mul_add(b, c);
        let e = fma_err_f64(a, b, c, r1);
        if r1 == 0.0 && e == 0.0 && down {
            // The sign of an exact zero when rounding down.
            return -((-a).mul_add(b, -c));
        }
        let r = directed!(r1, e, down, f64, u64);
        fix_overflow_f64(r, a.is_finite() && b.is_finite() && c.is_finite(), down)
    }
    #[inline(always)]
    fn rr_sqrt(a: f64, up: bool) -> f64 {
        let q = a.sqrt();
        if q.is_nan() || q <= 0.0 || !q.is_finite() {
            return q;
        }
        let rem = sqrt_rem_f64(a, q);
        directed!(q, rem, !up, f64, u64)
    }
}

impl Kernels for f32 {
    dispatch!(
        f32,
        L32,
        lanes32,
        unlanes32,
        add_f32,
        mul_f32,
        div_f32,
        fma_f32,
        sqrt_f32,
        [
            add_pre_f32,
            mul_pre_f32,
            div_pre_f32,
            native: true,
            fallback: false
        ]
    );
    #[inline(always)]
    fn rr_add(a: f32, b: f32, down: bool) -> f32 {
        let (s, e) = if a.abs().max(b.abs()) < 1.6e38 {
            two_sum_f32(a, b)
        } else {
            fast_two_sum_f32(a, b)
        };
        if s == 0.0 {
            return if down { -((-a) + (-b)) } else { s };
        }
        let r = directed!(s, e, down, f32, u32);
        fix_overflow_f32(r, a.is_finite() && b.is_finite(), down)
    }
    #[inline(always)]
    fn rr_mul(a: f32, b: f32, down: bool) -> f32 {
        // The product of two f32 values is exact in f64.
        let x = a as f64 * b as f64;
        let p = x as f32;
        let e = (x - p as f64) as f32;
        let e = if e == 0.0 && x != p as f64 {
            (x - p as f64).signum() as f32
        } else {
            e
        };
        let r = directed!(p, e, down, f32, u32);
        fix_overflow_f32(r, a.is_finite() && b.is_finite(), down)
    }
    #[inline(always)]
    fn rr_div(a: f32, b: f32, down: bool) -> f32 {
        let q = a / b;
        // q·b is exact in f64 and a − q·b is exact there too (Sterbenz).
        let rem = a as f64 - q as f64 * b as f64;
        let e = if b < 0.0 { -rem } else { rem };
        let e = if q.is_finite() && b.is_finite() {
            e.signum() * (e != 0.0) as u8 as f64
        } else {
            0.0
        };
        let r = directed!(q, e as f32, down, f32, u32);
        fix_overflow_f32(r, a.is_finite() && b.is_finite() && b != 0.0, down)
    }
    #[inline(always)]
    fn rr_fma(a: f32, b: f32, c: f32, down: bool) -> f32 {
        let r = a.mul_add(b, c);
        // a·b is exact in f64; a·b + c = s + e exactly by TwoSum in f64.
        let (s, e) = two_sum_f64(a as f64 * b as f64, c as f64);
        let err = (s - r as f64) + e;
        if r == 0.0 && err == 0.0 && down {
            return -((-a).mul_add(b, -c));
        }
        let err = if r.is_finite() {
            err.signum() * (err != 0.0) as u8 as f64
        } else {
            0.0
        };
        let out = directed!(r, err as f32, down, f32, u32);
        fix_overflow_f32(out, a.is_finite() && b.is_finite() && c.is_finite(), down)
    }
    #[inline(always)]
    fn rr_sqrt(a: f32, up: bool) -> f32 {
        let q = a.sqrt();
        if q.is_nan() || q <= 0.0 || !q.is_finite() {
            return q;
        }
        let rem = a as f64 - q as f64 * q as f64;
        let e = rem.signum() * (rem != 0.0) as u8 as f64;
        directed!(q, e as f32, !up, f32, u32)
    }
}

/// Rounds one sample of a library result (a faithful approximation) one unit toward +∞ or −∞.
/// Zeros, infinities and NaN are returned unchanged.
#[inline(always)]
pub(crate) fn nudge<T: crate::StochFloat>(r: T, down: bool) -> T {
    if r == T::ZERO || !r.is_finite() {
        return r;
    }
    // A finite library result stays finite: ±MAX is not moved past itself to ±∞.
    let moved = if down { r.next_down() } else { r.next_up() };
    if moved.is_finite() {
        moved
    } else {
        r
    }
}

/// The AVX2 + FMA path on three samples (`op` 0 add, 1 mul), when compiled in: tests check it
/// against the same oracle as the dispatched and the portable paths, also on AVX-512 targets
/// (where it is not the dispatched one). `None` on targets without AVX2 and FMA.
#[doc(hidden)]
pub fn avx2_3<T: Kernels>(op: u8, a: [T; 3], b: [T; 3], dir: u32) -> Option<[T; 3]> {
    T::avx2_4(op, T::load(four(a)), T::load(four(b)), dir).map(|v| three(T::store(v)))
}

/// The random-rounding path this process runs, in words (the `overhead` example prints it).
///
/// ```
/// println!("random rounding: {}", stoch_core::rounding::path());
/// assert!(!stoch_core::rounding::path().is_empty());
/// ```
pub fn path() -> &'static str {
    if cfg!(all(target_arch = "x86_64", target_feature = "avx512f")) {
        return "AVX-512 embedded rounding";
    }
    if runtime_avx512() {
        return "AVX-512 embedded rounding, chosen at run time (the build's target has no AVX-512)";
    }
    if cfg!(all(
        target_arch = "x86_64",
        target_feature = "avx2",
        target_feature = "fma"
    )) {
        "AVX2 vectors for + and * (error-free transformations, hardware FMA), portable for the rest"
    } else if !slow_software_path() {
        "portable error-free transformations, hardware FMA"
    } else {
        "portable error-free transformations, Dekker products (no hardware FMA: \
         build with RUSTFLAGS=\"-C target-cpu=native\")"
    }
}

/// Whether the AVX-512 kernels chosen at run time are the ones this process runs (a build
/// without AVX-512 on a processor with it).
fn runtime_avx512() -> bool {
    #[cfg(all(target_arch = "x86_64", not(target_feature = "avx512f")))]
    {
        rt512::ensure_detected();
        rt512::on()
    }
    #[cfg(not(all(target_arch = "x86_64", not(target_feature = "avx512f"))))]
    {
        false
    }
}

/// Whether random rounding runs the slow software path: Dekker's products, with neither
/// hardware FMA in the build nor AVX-512 in the processor.
pub(crate) fn slow_software_path() -> bool {
    cfg!(target_arch = "x86_64") && !cfg!(target_feature = "fma") && !runtime_avx512()
}

/// The run-time AVX-512 path on three samples (see [`Kernels::rt512_4`]), used directly by
/// tests: `None` where the processor has no AVX-512F, DQ and VL.
#[doc(hidden)]
pub fn rt512_3<T: Kernels>(op: u8, a: [T; 3], b: [T; 3], c: [T; 3], dir: u32) -> Option<[T; 3]> {
    T::rt512_4(op, four(a), four(b), four(c), dir).map(three)
}

/// The portable path on three samples, used directly by tests to check both paths against the
/// same oracle: `op` 0 add, 1 mul, 2 div, 3 fma (`a·b + c`), 4 sqrt (of `a`).
#[doc(hidden)]
pub fn portable3<T: Kernels>(op: u8, a: [T; 3], b: [T; 3], c: [T; 3], dir: u32) -> [T; 3] {
    let (a, b, c) = (four(a), four(b), four(c));
    three(match op {
        0 => portable::add(a, b, dir),
        1 => portable::mul(a, b, dir),
        2 => portable::div(a, b, dir),
        3 => portable::fma(a, b, c, dir),
        _ => portable::sqrt(a, dir),
    })
}

#[cfg(all(target_arch = "x86_64", target_feature = "avx512f"))]
mod avx512 {
    //! The four lanes of a value (x, y, z, flags) live in one vector register. Two AVX-512
    //! instructions with embedded rounding (`vaddpd {ru-sae}` and `{rd-sae}`, and friends)
    //! compute the samples rounded up (merged over the OR of the operands' flags lanes, for
    //! lane 3) and down, and a mask register picks the downward lanes.
    use core::arch::x86_64::*;

    const RU: i32 = _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC;
    const RD: i32 = _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC;
    const SAMPLES: u8 = 0b0111;

    /// Lanes rounded down for the two random bits.
    const DOWN: [u8; 4] = [
        super::down_lanes(0),
        super::down_lanes(1),
        super::down_lanes(2),
        super::down_lanes(3),
    ];

    use super::{L32, L64};

    #[inline(always)]
    fn v64(a: L64) -> __m512d {
        let m = a.0;
        // SAFETY: the upper half of the 512-bit register is never used (every operation is
        // masked to lanes 0-3).
        unsafe { _mm512_castpd256_pd512(m) }
    }
    #[inline(always)]
    fn a64(v: __m512d) -> L64 {
        // SAFETY: AVX-512F is enabled.
        L64(unsafe { _mm512_castpd512_pd256(v) })
    }
    #[inline(always)]
    fn v32(a: L32) -> __m512 {
        let m = a.0;
        // SAFETY: upper lanes are never used.
        unsafe { _mm512_castps128_ps512(m) }
    }
    #[inline(always)]
    fn a32(v: __m512) -> L32 {
        // SAFETY: AVX-512F is enabled.
        L32(unsafe { _mm512_castps512_ps128(v) })
    }
    // The flags' OR runs at the value's own width (256 bits for `f64`, 128 for `f32`): only
    // embedded rounding needs a 512-bit instruction, and a processor that splits those in two
    // halves pays twice for each.

    /// `a | b` on the four `f64` lanes, widened.
    #[inline(always)]
    fn or64(a: L64, b: L64) -> __m512d {
        // SAFETY: as above.
        v64(L64(unsafe { _mm256_or_pd(a.0, b.0) }))
    }
    /// `a | b` on the four `f32` lanes, widened.
    #[inline(always)]
    fn or32(a: L32, b: L32) -> __m512 {
        // SAFETY: AVX-512F (so SSE) is enabled.
        v32(L32(unsafe { _mm_or_ps(a.0, b.0) }))
    }
    /// The lanes that round down for the direction word `dir` (lanes 0-2; a mask register).
    #[inline(always)]
    fn down(dir: u32) -> u8 {
        DOWN[super::dir_code(dir) as usize]
    }

    // `+`, `*`, `/` and the fused multiply-add round lanes 0-2 up over the flags lane (the OR
    // of the operands', by merge-masking) and all lanes down, then take the downward lanes
    // where `dir` says (a mask register): the compiler makes that a blend of the flags lane
    // after the upward instruction and a merge-masked downward one. Before, they used the
    // sign identity `RD(x) = −RU(−x)`, with a xor before and after one rounded instruction: a
    // longer dependency chain. IEEE rounding is symmetric, so both
    // give the same samples, signed zeros and overflows included.

    /// A native build with DQ and VL runs an assembly kernel for the sum and the product
    /// ([`rt512::add_f64_native`](super::rt512::add_f64_native)): both roundings, then the
    /// upward samples and the downward ones picked bit by bit into the operands' OR, three
    /// instructions from an operand to the result where the compiler makes the steps below,
    /// however written, into an upward instruction, a blend and a merge-masked downward one
    /// that waits for the blend (docs/performance.md).
    #[inline(always)]
    pub(super) unsafe fn add_f64(a: L64, b: L64, dir: u32) -> L64 {
        #[cfg(all(target_feature = "avx512dq", target_feature = "avx512vl"))]
        {
            // SAFETY: the target has AVX-512F, DQ and VL (cfg).
            L64(unsafe { super::rt512::add_f64_native(a.0, b.0, dir) })
        }
        #[cfg(not(all(target_feature = "avx512dq", target_feature = "avx512vl")))]
        {
            let (x, y) = (v64(a), v64(b));
            // SAFETY: AVX-512F is enabled for this target (compile-time cfg).
            unsafe {
                let up = _mm512_mask_add_round_pd::<RU>(or64(a, b), SAMPLES, x, y);
                let dn = _mm512_add_round_pd::<RD>(x, y);
                a64(_mm512_mask_blend_pd(down(dir), up, dn))
            }
        }
    }
    /// As [`add_f64`].
    #[inline(always)]
    pub(super) unsafe fn mul_f64(a: L64, b: L64, dir: u32) -> L64 {
        #[cfg(all(target_feature = "avx512dq", target_feature = "avx512vl"))]
        {
            // SAFETY: the target has AVX-512F, DQ and VL (cfg).
            L64(unsafe { super::rt512::mul_f64_native(a.0, b.0, dir) })
        }
        #[cfg(not(all(target_feature = "avx512dq", target_feature = "avx512vl")))]
        {
            let (x, y) = (v64(a), v64(b));
            // SAFETY: AVX-512F is enabled for this target.
            unsafe {
                let up = _mm512_mask_mul_round_pd::<RU>(or64(a, b), SAMPLES, x, y);
                let dn = _mm512_mul_round_pd::<RD>(x, y);
                a64(_mm512_mask_blend_pd(down(dir), up, dn))
            }
        }
    }
    #[inline(always)]
    pub(super) unsafe fn div_f64(a: L64, b: L64, dir: u32) -> L64 {
        let (x, y) = (v64(a), v64(b));
        // SAFETY: AVX-512F is enabled for this target.
        unsafe {
            let up = _mm512_mask_div_round_pd::<RU>(or64(a, b), SAMPLES, x, y);
            let dn = _mm512_div_round_pd::<RD>(x, y);
            a64(_mm512_mask_blend_pd(down(dir), up, dn))
        }
    }
    #[inline(always)]
    pub(super) unsafe fn fma_f64(a: L64, b: L64, c: L64, dir: u32) -> L64 {
        let (x, y, z) = (v64(a), v64(b), v64(c));
        // SAFETY: AVX-512F is enabled for this target.
        unsafe {
            let flags = _mm256_or_pd(_mm256_or_pd(a.0, b.0), c.0);
            let up = _mm512_mask_fmadd_round_pd::<RU>(x, SAMPLES, y, z);
            let up = _mm512_mask_blend_pd(SAMPLES, _mm512_castpd256_pd512(flags), up);
            let dn = _mm512_fmadd_round_pd::<RD>(x, y, z);
            a64(_mm512_mask_blend_pd(down(dir), up, dn))
        }
    }
    #[inline(always)]
    pub(super) unsafe fn sqrt_f64(a: L64, dir: u32) -> L64 {
        let a = v64(a);
        // SAFETY: AVX-512F is enabled for this target.
        unsafe {
            let up = _mm512_mask_sqrt_round_pd::<RU>(a, SAMPLES, a);
            a64(_mm512_mask_sqrt_round_pd::<RD>(up, down(dir), a))
        }
    }

    /// A native build with DQ and VL runs the assembly kernel of the run-time path
    /// (`rt512::kernel32_add`): two instructions from an operand to the result instead of
    /// three. The compiler turns the same steps written with intrinsics (zero-masked sums and
    /// a merge-masked ternary logic) back into four.
    #[inline(always)]
    pub(super) unsafe fn add_f32(a: L32, b: L32, dir: u32) -> L32 {
        #[cfg(all(target_feature = "avx512dq", target_feature = "avx512vl"))]
        {
            super::lanes32(super::rt512::add_f32(
                super::unlanes32(a),
                super::unlanes32(b),
                dir,
            ))
        }
        #[cfg(not(all(target_feature = "avx512dq", target_feature = "avx512vl")))]
        {
            let (x, y) = (v32(a), v32(b));
            // SAFETY: AVX-512F is enabled for this target (compile-time cfg).
            unsafe {
                let up = _mm512_mask_add_round_ps::<RU>(or32(a, b), SAMPLES as u16, x, y);
                let dn = _mm512_add_round_ps::<RD>(x, y);
                a32(_mm512_mask_blend_ps(down(dir) as u16, up, dn))
            }
        }
    }
    #[inline(always)]
    pub(super) unsafe fn mul_f32(a: L32, b: L32, dir: u32) -> L32 {
        let (x, y) = (v32(a), v32(b));
        // SAFETY: AVX-512F is enabled for this target.
        unsafe {
            let up = _mm512_mask_mul_round_ps::<RU>(or32(a, b), SAMPLES as u16, x, y);
            let dn = _mm512_mul_round_ps::<RD>(x, y);
            a32(_mm512_mask_blend_ps(down(dir) as u16, up, dn))
        }
    }
    #[inline(always)]
    pub(super) unsafe fn div_f32(a: L32, b: L32, dir: u32) -> L32 {
        let (x, y) = (v32(a), v32(b));
        // SAFETY: AVX-512F is enabled for this target.
        unsafe {
            let up = _mm512_mask_div_round_ps::<RU>(or32(a, b), SAMPLES as u16, x, y);
            let dn = _mm512_div_round_ps::<RD>(x, y);
            a32(_mm512_mask_blend_ps(down(dir) as u16, up, dn))
        }
    }
    #[inline(always)]
    pub(super) unsafe fn fma_f32(a: L32, b: L32, c: L32, dir: u32) -> L32 {
        let (x, y, z) = (v32(a), v32(b), v32(c));
        // SAFETY: AVX-512F is enabled for this target.
        unsafe {
            let flags = _mm_or_ps(_mm_or_ps(a.0, b.0), c.0);
            let up = _mm512_mask_fmadd_round_ps::<RU>(x, SAMPLES as u16, y, z);
            let up = _mm512_mask_blend_ps(SAMPLES as u16, _mm512_castps128_ps512(flags), up);
            let dn = _mm512_fmadd_round_ps::<RD>(x, y, z);
            a32(_mm512_mask_blend_ps(down(dir) as u16, up, dn))
        }
    }
    #[inline(always)]
    pub(super) unsafe fn sqrt_f32(a: L32, dir: u32) -> L32 {
        let a = v32(a);
        // SAFETY: AVX-512F is enabled for this target.
        unsafe {
            let up = _mm512_mask_sqrt_round_ps::<RU>(a, SAMPLES as u16, a);
            a32(_mm512_mask_sqrt_round_ps::<RD>(up, down(dir) as u16, a))
        }
    }
}

#[cfg(test)]
mod dekker_tests {
    use super::*;

    /// Dekker's product error is the exact error (the C library's correctly rounded FMA
    /// gives it) over the whole range, the top of it included (√MAX squared rounds to a finite
    /// `p` while the split halves' product overflows), on every target.
    #[test]
    fn dekker_product_error_is_exact() {
        let mut cases = vec![
            (f64::MAX.sqrt(), f64::MAX.sqrt()),
            (f64::MAX.sqrt().next_up(), f64::MAX.sqrt().next_down()),
            (1.0e154, 1.7e154),
            (-1.3407807929942596e154, 1.3407807929942596e154),
            (3.0, 1.0 / 3.0),
            (1.0e-150, 1.0e-150),
        ];
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let a = f64::from_bits(x & 0x7FEF_FFFF_FFFF_FFFF | (x & (1 << 63)));
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let b = f64::from_bits(x & 0x7FEF_FFFF_FFFF_FFFF);
            cases.push((a, b));
        }
        for (a, b) in cases {
            let p = a * b;
            if !p.is_finite() || p.abs() < TWO_M969 {
                continue; // outside the function's contract (overflow; tiny: scaled first)
            }
            let want = a.mul_add(b, -p);
            let got = prod_err_dekker_f64(a, b, p);
            assert_eq!(got, want, "a = {a:e}, b = {b:e}, p = {p:e}");
        }
    }
}
