//! The vector forms of the checks' pre-tests, one module per instruction set: SSE2 (the default
//! target), AVX2 (`vector`, on the lanes' register) and AVX-512 (the `f64` sum's test).

use super::checks::SPREAD_FACTOR;

/// The pre-tests with SSE2 (x86-64 without AVX2 and FMA, the default target): the same test as
/// [`far_samples`], with no broadcast or blend that SSE2 lacks, per `f64` value one unpack, one
/// shuffle, one subtraction, two sign masks, one product and one comparison, and one `movmsk`
/// for the test; an `f32` value is one register (the compiler's own code for [`far_samples`]
/// takes a third more instructions, and the loops of a default-target build wait on the
/// instruction stream). `None` for a type other than `f64` and `f32`.
#[cfg(all(
    target_arch = "x86_64",
    not(all(target_feature = "avx2", target_feature = "fma"))
))]
pub(super) mod sse2 {
    use core::any::TypeId;
    use core::arch::x86_64::*;

    use super::SPREAD_FACTOR;
    use crate::{StochFloat, Stochastic};

    /// `42·|s − x| > |x|` for samples `y` and `z` (lanes 0 and 1), `x` the first sample.
    #[inline(always)]
    fn far64(s: [f64; 4]) -> __m128d {
        // SAFETY: [f64; 4] and [__m128d; 2] are 32 bytes of plain data, in order.
        let [lo, hi] = unsafe { core::mem::transmute::<[f64; 4], [__m128d; 2]>(s) };
        // SAFETY: SSE2 is part of x86-64.
        unsafe {
            let abs = _mm_castsi128_pd(_mm_set1_epi64x(i64::MAX));
            let x = _mm_unpacklo_pd(lo, lo);
            let yz = _mm_shuffle_pd::<0b01>(lo, hi);
            let d = _mm_and_pd(_mm_sub_pd(yz, x), abs);
            _mm_cmplt_pd(
                _mm_and_pd(x, abs),
                _mm_mul_pd(d, _mm_set1_pd(SPREAD_FACTOR)),
            )
        }
    }

    /// The same on `f32` lanes, in lanes 1 and 2 (lane 3, the flags lane, is not read).
    #[inline(always)]
    fn far32(s: [f32; 4]) -> __m128 {
        // SAFETY: 16 bytes of plain data.
        let v = unsafe { core::mem::transmute::<[f32; 4], __m128>(s) };
        // SAFETY: SSE2 is part of x86-64.
        unsafe {
            let abs = _mm_castsi128_ps(_mm_set1_epi32(i32::MAX));
            let x = _mm_shuffle_ps::<0>(v, v);
            let d = _mm_and_ps(_mm_sub_ps(v, x), abs);
            _mm_cmplt_ps(
                _mm_and_ps(x, abs),
                _mm_mul_ps(d, _mm_set1_ps(SPREAD_FACTOR as f32)),
            )
        }
    }

    /// The lanes of `v` as `[U; 4]`, where `T` is `U`.
    #[inline(always)]
    fn lanes<T: StochFloat, U: 'static>(v: &Stochastic<T>) -> Option<[U; 4]> {
        (TypeId::of::<T>() == TypeId::of::<U>()).then(|| {
            // SAFETY: `T` is `U` (tested above): this copies the value's own lanes.
            unsafe { core::mem::transmute_copy::<[T; 4], [U; 4]>(&v.a()) }
        })
    }

    /// [`maybe_noise`](super::maybe_noise).
    #[inline(always)]
    pub(crate) fn far1<T: StochFloat>(v: &Stochastic<T>) -> Option<bool> {
        if let Some(s) = lanes::<T, f64>(v) {
            // SAFETY: SSE2 is part of x86-64.
            return Some(unsafe { _mm_movemask_pd(far64(s)) } != 0);
        }
        if let Some(s) = lanes::<T, f32>(v) {
            // SAFETY: as above.
            return Some(unsafe { _mm_movemask_ps(far32(s)) } & 0b0110 != 0);
        }
        None
    }

    /// [`maybe_noise2`](super::maybe_noise2).
    #[inline(always)]
    pub(crate) fn far2<T: StochFloat>(x: &Stochastic<T>, y: &Stochastic<T>) -> Option<bool> {
        if let (Some(a), Some(b)) = (lanes::<T, f64>(x), lanes::<T, f64>(y)) {
            // SAFETY: SSE2 is part of x86-64.
            return Some(unsafe { _mm_movemask_pd(_mm_or_pd(far64(a), far64(b))) } != 0);
        }
        if let (Some(a), Some(b)) = (lanes::<T, f32>(x), lanes::<T, f32>(y)) {
            // SAFETY: as above.
            let m = unsafe { _mm_movemask_ps(_mm_or_ps(far32(a), far32(b))) };
            return Some(m & 0b0110 != 0);
        }
        None
    }
}

/// The pre-tests on the vector registers that hold the lanes (x86-64 with AVX2 and FMA): per
/// value one broadcast of `x`, one subtraction, two sign masks and one fused multiply-add,
/// `|x| − 42·|s − x|`, whose sign bits (set where a sample is far from `x`, and for NaN) one
/// `movmsk` reads; `f32` lanes are widened to `f64` first (no difference of two `f32` samples
/// is subnormal there). `None` for a lane type other than these registers.
#[cfg(all(
    target_arch = "x86_64",
    target_feature = "avx2",
    target_feature = "fma"
))]
pub(super) mod vector {
    use core::any::TypeId;
    use core::arch::x86_64::*;

    #[cfg(all(target_feature = "avx512f", target_feature = "avx512vl"))]
    use super::SPREAD_FACTOR;
    use crate::arch::{L32, L64};
    use crate::runtime::tables::{vector, TABLES};
    use crate::{StochFloat, Stochastic};

    /// `|x| − 42·|v − x|` per lane, `x` the first lane.
    #[inline(always)]
    fn far64(v: __m256d) -> __m256d {
        // SAFETY: AVX2 and FMA are enabled for this target (module cfg).
        unsafe {
            let abs = vector(&TABLES.vec64.abs);
            let x = _mm256_permute4x64_pd::<0>(v);
            let d = _mm256_and_pd(_mm256_sub_pd(v, x), abs);
            _mm256_fnmadd_pd(d, vector(&TABLES.vec64.spread), _mm256_and_pd(x, abs))
        }
    }

    /// The same for one or two `f32` values (lanes 0-3 and 4-7, each against its own first
    /// lane) in a build with AVX-512 (F and VL): the lanes widened to `f64` first, then
    /// `42·|v − x| > |x|`, one bit per lane (set where a sample is far from `x`). In `f32`, the
    /// difference of two samples of a value below about 2⁻¹⁰³ is subnormal, and an addition
    /// whose result is subnormal, or a product with a subnormal operand or result, takes a
    /// microcode assist on Intel processors; in `f64` none of these values
    /// is subnormal (the run-time path's `f32` pre-tests compute in `f64` for the same reason).
    #[cfg(all(target_feature = "avx512f", target_feature = "avx512vl"))]
    #[inline(always)]
    fn far32_bits(v: __m256) -> u8 {
        // SAFETY: AVX-512F is enabled for this target (cfg above).
        unsafe {
            let w = _mm512_cvtps_pd(v);
            let x = _mm512_permutex_pd::<0>(w);
            let d = _mm512_abs_pd(_mm512_sub_pd(w, x));
            _mm512_cmp_pd_mask::<_CMP_LT_OQ>(
                _mm512_abs_pd(x),
                _mm512_mul_pd(d, _mm512_set1_pd(SPREAD_FACTOR)),
            )
        }
    }

    /// The same for the lanes of an `f32` value without AVX-512: widened to `f64` first, then
    /// [`far64`], for the reason given at `far32_bits` (on the AVX2 path the 3-D wave's
    /// checks spent most of their time in those assists: docs/performance.md).
    #[cfg(not(all(target_feature = "avx512f", target_feature = "avx512vl")))]
    #[inline(always)]
    fn far32(v: __m128) -> __m256d {
        // SAFETY: AVX is enabled for this target (module cfg).
        far64(unsafe { _mm256_cvtps_pd(v) })
    }

    #[inline(always)]
    fn is64<T: StochFloat>() -> bool {
        TypeId::of::<T::Lanes>() == TypeId::of::<L64>()
    }

    #[inline(always)]
    fn is32<T: StochFloat>() -> bool {
        TypeId::of::<T::Lanes>() == TypeId::of::<L32>()
    }

    /// The register of an `f64` value; only where `is64::<T>()`.
    #[inline(always)]
    fn r64<T: StochFloat>(v: &Stochastic<T>) -> __m256d {
        debug_assert!(is64::<T>());
        // SAFETY: `T::Lanes` is `L64` (the callers test `is64`), so this copies the value's own
        // type.
        unsafe { core::mem::transmute_copy::<T::Lanes, L64>(&v.v).0 }
    }

    /// The register of an `f32` value; only where `is32::<T>()`.
    #[inline(always)]
    fn r32<T: StochFloat>(v: &Stochastic<T>) -> __m128 {
        debug_assert!(is32::<T>());
        // SAFETY: `T::Lanes` is `L32` (the callers test `is32`).
        unsafe { core::mem::transmute_copy::<T::Lanes, L32>(&v.v).0 }
    }

    /// [`maybe_noise`](super::maybe_noise) on the register.
    #[inline(always)]
    pub(crate) fn far1<T: StochFloat>(v: &Stochastic<T>) -> Option<bool> {
        if is64::<T>() {
            // SAFETY: AVX2 is enabled for this target (module cfg).
            let m = unsafe { _mm256_movemask_pd(far64(r64(v))) };
            return Some(m & 0b0110 != 0);
        }
        if is32::<T>() {
            #[cfg(all(target_feature = "avx512f", target_feature = "avx512vl"))]
            // SAFETY: AVX is enabled; the upper half of the register is undefined and its
            // lanes are masked out.
            let m = far32_bits(unsafe { _mm256_castps128_ps256(r32(v)) });
            #[cfg(not(all(target_feature = "avx512f", target_feature = "avx512vl")))]
            // SAFETY: AVX is enabled for this target (module cfg).
            let m = unsafe { _mm256_movemask_pd(far32(r32(v))) };
            return Some(m & 0b0110 != 0);
        }
        None
    }

    /// The pre-test of [`check_add`](super::check_add) for an `f64` sum `r = a + b` with
    /// AVX-512 (F, DQ and VL): [`add_pre64_avx512`](super::add_pre64_avx512). `None` for
    /// `f32`.
    #[cfg(all(
        target_feature = "avx512f",
        target_feature = "avx512dq",
        target_feature = "avx512vl"
    ))]
    #[inline(always)]
    pub(crate) fn add_pre<T: StochFloat>(
        a: &Stochastic<T>,
        b: &Stochastic<T>,
        r: &Stochastic<T>,
        factor: impl Fn() -> T,
        lanes: impl Fn() -> u32,
    ) -> Option<bool> {
        if !is64::<T>() {
            return None;
        }
        // SAFETY: AVX-512F, DQ and VL are enabled for this target (cfg above).
        let k = unsafe { super::add_pre64_avx512(r64(a), r64(b), r64(r), factor().to_f64()) };
        Some(u32::from(k) & lanes() != 0)
    }

    /// The pre-test of [`check_add`](super::check_add) for a sum `r = a + b` with AVX2 and FMA
    /// but not AVX-512: the comparison of [`add_pre64_avx512`](super::add_pre64_avx512)
    /// (`|r₀|` against `[F·m, min(m, 42·|r₁ − r₀|), min(m, 42·|r₂ − r₀|)]`) from AVX2's `max`,
    /// `min` and a blend: one `movmsk` and one branch where the separate tests took scalar
    /// comparisons and two (docs/performance.md). An `f32` sum the same in `f64`, as its noise
    /// test computes, `F·m` rounded in `f32` as the portable test does.
    ///
    /// An `f64` sum is tested on its lanes rounded to nearest, `n = a + b`, in place of `r`:
    /// one addition more, but the branch no longer waits for the random rounding, so the
    /// instructions after it retire sooner (docs/performance.md). Each sample of `r` is `n`'s
    /// or its neighbour, no more than `2⁻⁵²·|n|` away (a sum below `2⁻¹⁰²¹` is exact), which the
    /// test's margins cover: a cancellation is recorded only where `|r₀| < F·m/2`
    /// (`Config::apply`), and noise only where a sample lies more than `|r₀|/40` from `r₀`
    /// (`is_noise`'s first exit), against 42 here. A collapse needs `|r₀| < m`, which gives
    /// `|n₀| ≤ m`: the test takes `m·(1 + 2⁻⁵²)`, a unit or more above `m` where `m` is normal
    /// (a sum with a subnormal `m` is exact), and still 0 for a sum of zeros, which does not
    /// pass. The check behind it asks `|r₀| < m` itself ([`add_slow`](super::add_slow)).
    #[cfg(not(all(
        target_feature = "avx512f",
        target_feature = "avx512dq",
        target_feature = "avx512vl"
    )))]
    #[inline(always)]
    pub(crate) fn add_pre<T: StochFloat>(
        a: &Stochastic<T>,
        b: &Stochastic<T>,
        r: &Stochastic<T>,
        factor: impl Fn() -> T,
        lanes: impl Fn() -> u32,
    ) -> Option<bool> {
        // SAFETY: AVX2 is enabled for this target (module cfg).
        let sum64 = unsafe { crate::runtime::tables::sum_factors_vector() };
        add_pre_with(a, b, r, factor, sum64, lanes)
    }

    /// [`add_pre`] with the `f64` sum's factors `sum64` (`Tables::sum64`, which the
    /// configuration keeps in step with `factor`): the tests give their own.
    #[cfg(not(all(
        target_feature = "avx512f",
        target_feature = "avx512dq",
        target_feature = "avx512vl"
    )))]
    #[inline(always)]
    pub(crate) fn add_pre_with<T: StochFloat>(
        a: &Stochastic<T>,
        b: &Stochastic<T>,
        r: &Stochastic<T>,
        factor: impl Fn() -> T,
        sum64: __m256d,
        lanes: impl Fn() -> u32,
    ) -> Option<bool> {
        // SAFETY: AVX2 is enabled for this target (module cfg).
        let (r, bounds) = unsafe {
            if is64::<T>() {
                let (a, b) = (r64(a), r64(b));
                // m = max(|a₀|, |b₀|), `b₀` where either is NaN, as the portable test's choice.
                let abs = _mm256_castpd256_pd128(vector(&TABLES.vec64.abs));
                let m = _mm_max_sd(
                    _mm_and_pd(_mm256_castpd256_pd128(a), abs),
                    _mm_and_pd(_mm256_castpd256_pd128(b), abs),
                );
                // The bounds [F·m, m, m, m], m above max(|a₀|, |b₀|) by a unit or more where
                // it is normal (see `add_pre`), by one product with the factors `sum64`.
                let bounds = _mm256_mul_pd(_mm256_broadcastsd_pd(m), sum64);
                (_mm256_add_pd(a, b), bounds)
            } else if is32::<T>() {
                let (a, b) = (r32(a), r32(b));
                let abs = _mm_castsi128_ps(_mm_set1_epi32(i32::MAX));
                let m = _mm_max_ss(_mm_and_ps(a, abs), _mm_and_ps(b, abs));
                let fm = _mm_mul_ss(m, _mm_set_ss(factor().to_f64() as f32));
                let zero = _mm_setzero_pd();
                let bounds = _mm256_blend_pd::<0b0001>(
                    _mm256_broadcastsd_pd(_mm_cvtss_sd(zero, m)),
                    _mm256_castpd128_pd256(_mm_cvtss_sd(zero, fm)),
                );
                (_mm256_cvtps_pd(r32(r)), bounds)
            } else {
                return None;
            }
        };
        // SAFETY: as above.
        let k = unsafe {
            let abs = vector(&TABLES.vec64.abs);
            let x = _mm256_permute4x64_pd::<0>(r);
            // 42·|rᵢ − r₀| in lanes 1-3, NaN in lane 0 (`0·∞`: `Vec64::sum_spread`), where
            // `min` then returns its second operand, the lane's bound, as in a lane whose
            // sample is NaN.
            let d42 = _mm256_and_pd(
                _mm256_mul_pd(_mm256_sub_pd(r, x), vector(&TABLES.vec64.sum_spread)),
                abs,
            );
            let v = _mm256_min_pd(d42, bounds);
            _mm256_movemask_pd(_mm256_cmp_pd::<_CMP_LT_OQ>(_mm256_and_pd(x, abs), v))
        };
        // An `f64` sum's factors give zero bounds to the lanes that do not count (see
        // `runtime::tables::sum_factors`): no selection of the mask's bits, and no read of them.
        if is64::<T>() {
            return Some(k != 0);
        }
        Some(k as u32 & lanes() != 0)
    }

    /// [`exact_product`](super::exact_product) on the register of two `f32` values: the
    /// samples y and z compared with x in both, then, only where all are equal, the magnitude
    /// test on the product of the x samples (see [`exact_product`]). The magnitude test
    /// multiplies in `f64`, where the product of two `f32` values is never subnormal: in `f32`,
    /// a product with a subnormal operand or result takes a microcode assist on Intel
    /// processors.
    #[inline(always)]
    fn exact32(a: __m128, b: __m128) -> bool {
        // SAFETY: SSE2 is part of x86-64.
        let ne = unsafe {
            _mm_movemask_ps(_mm_or_ps(
                _mm_cmpneq_ps(a, _mm_shuffle_ps::<0>(a, a)),
                _mm_cmpneq_ps(b, _mm_shuffle_ps::<0>(b, b)),
            ))
        };
        if ne & 0b0111 != 0 {
            return false;
        }
        // SAFETY: as above.
        let small = unsafe {
            let p = _mm_mul_sd(_mm_cvtps_pd(a), _mm_cvtps_pd(b));
            let abs = _mm_castsi128_pd(_mm_set1_epi64x(i64::MAX));
            _mm_movemask_pd(_mm_cmpnge_sd(
                _mm_and_pd(p, abs),
                _mm_set_sd(2.0 * f64::from(f32::MIN_POSITIVE)),
            ))
        };
        small & 1 == 0
    }

    /// [`exact_product`](super::exact_product) on the registers of two `f64` values: the
    /// samples y and z compared with x in both (one comparison, [`later`] and [`first`]), one
    /// `movmsk` and a branch, and only where all are equal the magnitude test on the product
    /// of the x samples. A product with a computed operand (every product of the n-body step)
    /// leaves after five vector instructions rather than the nine of one test of both
    /// conditions (docs/performance.md).
    /// `None` for another lane type.
    #[inline(always)]
    pub(crate) fn exact_product<T: StochFloat>(
        a: &Stochastic<T>,
        b: &Stochastic<T>,
    ) -> Option<bool> {
        if is32::<T>() {
            return Some(exact32(r32(a), r32(b)));
        }
        if !is64::<T>() {
            return None;
        }
        let (a, b) = (r64(a), r64(b));
        // SAFETY: AVX2 is enabled for this target (module cfg).
        let ne =
            unsafe { _mm256_movemask_pd(_mm256_cmp_pd::<_CMP_NEQ_UQ>(later(a, b), first(a, b))) };
        if ne != 0 {
            return Some(false);
        }
        // SAFETY: as above.
        let small = unsafe {
            let abs = _mm_castsi128_pd(_mm_set1_epi64x(i64::MAX));
            _mm_movemask_pd(_mm_cmpnge_sd(
                _mm_and_pd(
                    _mm_mul_sd(_mm256_castpd256_pd128(a), _mm256_castpd256_pd128(b)),
                    abs,
                ),
                _mm_set_sd(2.0 * f64::MIN_POSITIVE),
            ))
        };
        Some(small & 1 == 0)
    }

    /// The samples y and z of two `f64` values in one register, `[x₁, y₁, x₂, y₂]`: with
    /// [`first`], one comparison or subtraction tests both values, where a test per value
    /// took two and an OR (docs/performance.md).
    #[inline(always)]
    fn later(x: __m256d, y: __m256d) -> __m256d {
        // SAFETY: AVX is enabled for this target (module cfg).
        unsafe { _mm256_shuffle_pd::<0b0011>(x, y) }
    }

    /// The first samples of two `f64` values, `[x₀, y₀, x₀, y₀]`, against [`later`]'s lanes:
    /// one unpack and one insertion of the low half into the high one (a permutation across
    /// the halves takes two micro-operations and six cycles on Zen 3, the insertion one and
    /// two; the compiler still picks the permutation at some sites, docs/performance.md).
    #[inline(always)]
    fn first(x: __m256d, y: __m256d) -> __m256d {
        // SAFETY: AVX is enabled for this target (module cfg).
        unsafe {
            let t = _mm_unpacklo_pd(_mm256_castpd256_pd128(x), _mm256_castpd256_pd128(y));
            _mm256_set_m128d(t, t)
        }
    }

    /// The pre-test of the checks of a product or quotient (`ops::arith::native_hit`) on its
    /// operands `x` and `y`: whether a sample of either lies further than `|x₀|/84` from its
    /// first ([`OPERAND_SPREAD`](crate::runtime::state::OPERAND_SPREAD)). It reads the
    /// operands alone, which a loop loads early, where the test of the result waited for the
    /// kernel, and it passes the products of exact operands (that took a test of their own)
    /// with no further test. `T` is `f64` or `f32`.
    #[cfg(not(target_feature = "avx512f"))]
    #[inline(always)]
    pub(crate) fn far_operands<T: StochFloat>(x: &Stochastic<T>, y: &Stochastic<T>) -> bool {
        // SAFETY: AVX is enabled for this target (module cfg).
        let k = unsafe { vector(&TABLES.vec64.operand_spread) };
        if is64::<T>() {
            return far_pair64(r64(x), r64(y), k) != 0;
        }
        // SAFETY: AVX2 and FMA are enabled for this target (module cfg). Widened to `f64` for
        // the reason given at `far32`.
        let m = unsafe {
            let abs = vector(&TABLES.vec64.abs);
            let far = |v: __m128| {
                let v = _mm256_cvtps_pd(v);
                let x = _mm256_permute4x64_pd::<0>(v);
                let d = _mm256_and_pd(_mm256_sub_pd(v, x), abs);
                _mm256_fnmadd_pd(d, k, _mm256_and_pd(x, abs))
            };
            _mm256_movemask_pd(_mm256_or_pd(far(r32(x)), far(r32(y))))
        };
        m & 0b0110 != 0
    }

    /// The signs of `|x₀| − k·|xᵢ − x₀|` and the same for `y` (`i` = 1, 2), as a `movmsk`: two
    /// `f64` values in one register ([`later`], [`first`]), `k` the spread factor per lane.
    #[inline(always)]
    fn far_pair64(x: __m256d, y: __m256d, k: __m256d) -> i32 {
        // SAFETY: AVX2 and FMA are enabled for this target (module cfg).
        unsafe {
            let abs = vector(&TABLES.vec64.abs);
            let (s, o) = (later(x, y), first(x, y));
            let d = _mm256_and_pd(_mm256_sub_pd(s, o), abs);
            _mm256_movemask_pd(_mm256_fnmadd_pd(d, k, _mm256_and_pd(o, abs)))
        }
    }

    /// [`maybe_noise2`](super::maybe_noise2) on the registers; two `f64` values in one
    /// register ([`later`], [`first`]).
    #[inline(always)]
    pub(crate) fn far2<T: StochFloat>(x: &Stochastic<T>, y: &Stochastic<T>) -> Option<bool> {
        if is64::<T>() {
            // SAFETY: AVX is enabled for this target (module cfg).
            let k = unsafe { vector(&TABLES.vec64.spread) };
            return Some(far_pair64(r64(x), r64(y), k) != 0);
        }
        if is32::<T>() {
            #[cfg(all(target_feature = "avx512f", target_feature = "avx512vl"))]
            // SAFETY: AVX is enabled for this target (module cfg).
            let m = far32_bits(unsafe { _mm256_set_m128(r32(y), r32(x)) });
            #[cfg(not(all(target_feature = "avx512f", target_feature = "avx512vl")))]
            // SAFETY: AVX is enabled for this target (module cfg).
            let m = unsafe { _mm256_movemask_pd(_mm256_or_pd(far32(r32(x)), far32(r32(y)))) };
            #[cfg(not(all(target_feature = "avx512f", target_feature = "avx512vl")))]
            return Some(m & 0b0110 != 0);
            #[cfg(all(target_feature = "avx512f", target_feature = "avx512vl"))]
            return Some(m & 0b0110_0110 != 0);
        }
        None
    }
}

/// The pre-test of [`check_add`] for an `f64` sum `r = a + b` in a build with AVX-512 (F, DQ
/// and VL), on the values' registers: one comparison of `|r₀|` with three lanes,
/// `[F·m, min(m, 42·|r₁ − r₀|), min(m, 42·|r₂ − r₀|)]`, where `m = max(|a₀|, |b₀|)` and `F`
/// is `factor`, the cancellation factor. Returns the comparison's mask: bit 0 a possible
/// cancellation, bits 1 and 2 a possible accuracy collapse (the caller keeps them where
/// collapses are detected). That is the portable test (`|r₀| < F·m`, or `|r₀| < m` and
/// `42·|rᵢ − r₀| > |r₀|`), with the same roundings, in 12 vector instructions and one branch
/// instead of 13 and two: the checked loops wait on the vector instructions that follow a
/// running sum (docs/performance.md).
///
/// One difference: the range instruction that takes the smaller magnitude returns the number
/// when the other operand is a NaN, so a NaN sample `rᵢ` passes where `|r₀| < m`. The checks
/// behind the pre-test record nothing there: a NaN sample of a sum needs a NaN or infinite
/// sample in an operand, which then has no significant digit, and NaN samples are not noise.
/// A form that excludes it (`vminpd`, whose result is its second operand where one is a NaN,
/// after a sign mask on `42·(rᵢ − r₀)`), written in assembly, gained nothing over this one.
///
/// A function with the target features of its own, so that it compiles in any crate that
/// instantiates the generic operators (only a caller built with those features inlines it),
/// and so that the tests of every build can run it where the processor has them.
///
/// # Safety
///
/// The processor must have AVX-512F, DQ and VL.
#[cfg(target_arch = "x86_64")]
#[cfg_attr(
    not(all(
        target_feature = "avx512f",
        target_feature = "avx512dq",
        target_feature = "avx512vl"
    )),
    allow(dead_code)
)]
#[target_feature(enable = "avx512f,avx512dq,avx512vl")]
#[inline]
pub(super) unsafe fn add_pre64_avx512(
    a: core::arch::x86_64::__m256d,
    b: core::arch::x86_64::__m256d,
    r: core::arch::x86_64::__m256d,
    factor: f64,
) -> u8 {
    use core::arch::x86_64::*;
    let abs = _mm256_castsi256_pd(_mm256_set1_epi64x(i64::MAX));
    let x = _mm256_permute4x64_pd::<0>(r);
    let d42 = _mm256_mul_pd(_mm256_sub_pd(r, x), _mm256_set1_pd(SPREAD_FACTOR));
    // m = max(|a₀|, |b₀|): range operation 0b1011, the larger magnitude, sign cleared.
    let m = _mm_maskz_range_sd::<0b1011>(1, _mm256_castpd256_pd128(a), _mm256_castpd256_pd128(b));
    let fm = _mm_mul_sd(m, _mm_set_sd(factor));
    // Lanes 1 and 2: the smaller magnitude of m and 42·(rᵢ − r₀), sign cleared; lane 0 F·m
    // (lane 3 is undefined and left out).
    let v = _mm256_mask_range_pd::<0b1010>(
        _mm256_castpd128_pd256(fm),
        0b0110,
        _mm256_broadcastsd_pd(m),
        d42,
    );
    _mm256_cmp_pd_mask::<_CMP_LT_OQ>(_mm256_and_pd(x, abs), v) & 0b0111
}
