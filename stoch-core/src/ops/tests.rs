use super::arith::*;
use super::checks::*;
#[cfg(target_arch = "x86_64")]
use super::pretest::add_pre64_avx512;
#[cfg(all(
    target_arch = "x86_64",
    not(all(target_feature = "avx2", target_feature = "fma"))
))]
use super::pretest::sse2;
use super::*;
use crate::digits::is_noise;
use rand_core::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// The seed of a seeded test: `STOCH_TEST_SEED` (hexadecimal, as the failure messages
/// print it) when set, `default` otherwise.
fn test_seed(default: u64) -> u64 {
    std::env::var("STOCH_TEST_SEED")
        .ok()
        .and_then(|s| u64::from_str_radix(s.trim_start_matches("0x"), 16).ok())
        .unwrap_or(default)
}

/// Values whose samples `y` and `z` lie at relative distances from `x` around the
/// pre-test's threshold (1/42) and up to beyond noise's (a deviation of about 0.4·|mean|),
/// over many magnitudes, with special samples now and then.
fn values<T: StochFloat>(r: &mut Xoshiro256PlusPlus, n: usize) -> Vec<[T; 3]> {
    let specials = [
        0.0,
        -0.0,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::MIN_POSITIVE,
        5e-324,
        f64::MAX,
    ];
    let mut u = || (r.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
    (0..n)
        .map(|_| {
            let x = (u() - 0.5) * 10f64.powf(u() * 60.0 - 30.0);
            // Relative distances from 1 down to 1e-5.
            let (ty, tz) = (u() - 0.5, u() - 0.5);
            let scale = 2.0 * 10f64.powf(-5.0 * u());
            let mut s = [x, x * (1.0 + ty * scale), x * (1.0 + tz * scale)];
            if u() < 0.1 {
                s[(u() * 3.0) as usize] = specials[(u() * 8.0) as usize];
            }
            if u() < 0.1 {
                s[1] = s[0];
            }
            s.map(T::from_f64)
        })
        .collect()
}

/// Whether `q` lies within a rounding (2⁻²⁰ relative, far above `f32`'s or `f64`'s
/// last bit) of `p`.
fn near_rounding(p: f64, q: f64) -> bool {
    (p - q).abs() <= p.abs() * 2f64.powi(-20)
}

/// Whether the noise pre-test of sample `i` of `s` is at its edge, `42·|sᵢ − s₀|` within a
/// rounding of `|s₀|`, where the forms of the test (rounded in `T`, in `f64`, or fused) may
/// answer differently.
fn spread_edge<T: StochFloat>(s: &[T; 4], i: usize) -> bool {
    let (x, y) = (s[0].to_f64(), s[i].to_f64());
    near_rounding(SPREAD_FACTOR * (y - x).abs(), x.abs())
}

fn check<T: StochFloat>(seed: u64) {
    // The run-time AVX-512 path's form is taken once the path is chosen.
    #[cfg(all(target_arch = "x86_64", not(target_feature = "avx512f")))]
    crate::runtime::path::ensure_detected();
    let mut r = Xoshiro256PlusPlus::seed_from_u64(seed);
    // A tenth of them scaled down to where the differences of their samples are subnormal.
    let tiny = T::from_f64(2f64.powi(if T::MAX_DIGITS > 7 { -1000 } else { -100 }));
    let vs: Vec<Stochastic<T>> = values::<T>(&mut r, 20_000)
        .into_iter()
        .enumerate()
        .map(|(i, s)| Stochastic::from_samples(if i % 10 == 0 { s.map(|x| x * tiny) } else { s }))
        .collect();
    for (i, v) in vs.iter().enumerate() {
        let w = &vs[(i * 7 + 3) % vs.len()];
        // Complete: every noise value passes (the pre-tests only skip the exact checks).
        if is_noise(&v.s()) {
            assert!(maybe_noise(v), "{v:?} is noise (seed {seed:#x})");
            assert!(
                maybe_noise2(v, w) && maybe_noise2(w, v),
                "{v:?} (seed {seed:#x})"
            );
        }
        // Three equal finite samples never pass.
        let s = v.s();
        if s[0] == s[1] && s[1] == s[2] && s[0].is_finite() {
            assert!(!maybe_noise(v), "{v:?} (seed {seed:#x})");
        }
        // Every form answers as the portable test, but where `42·|xᵢ − x₀|` lies within a
        // rounding of `|x₀|` (the forms round it differently, or not at all), or a sample
        // is not finite.
        let edge = |x: &Stochastic<T>| {
            let s = x.a();
            spread_edge(&s, 1) || spread_edge(&s, 2) || !s[..3].iter().all(|s| s.is_finite())
        };
        if !edge(v) && !edge(w) {
            let (fv, fw) = (far_samples(&v.a()), far_samples(&w.a()));
            assert_eq!(maybe_noise(v), fv, "{v:?} (seed {seed:#x})");
            assert_eq!(maybe_noise2(v, w), fv | fw, "{v:?} {w:?} (seed {seed:#x})");
        }
        // The SSE2 form is the portable test, instruction for instruction.
        #[cfg(all(
            target_arch = "x86_64",
            not(all(target_feature = "avx2", target_feature = "fma"))
        ))]
        {
            let far = far_samples(&v.a());
            assert_eq!(sse2::far1(v), Some(far), "{v:?} (seed {seed:#x})");
            let both = far | far_samples(&w.a());
            assert_eq!(sse2::far2(v, w), Some(both), "{v:?} {w:?} (seed {seed:#x})");
        }
        // The run-time path's form (`f32` on a processor with AVX-512, builds without it),
        // in `f64`: the same bits but where `42·|xᵢ − x₀|` rounded to `f32` lies within a
        // rounding of `|x₀|`, or a sample is not finite.
        #[cfg(all(target_arch = "x86_64", not(target_feature = "avx512f")))]
        if let Some(bits) = rt512_noise32(v, w) {
            for (k, (x, i)) in [(v, 1), (v, 2), (w, 1), (w, 2)].into_iter().enumerate() {
                let s = x.a();
                let want = (s[i] - s[0]).abs() * T::from_f64(SPREAD_FACTOR) > s[0].abs();
                let edge = spread_edge(&s, i) || !s[..3].iter().all(|s| s.is_finite());
                assert!(
                    (bits >> k & 1 != 0) == want || edge,
                    "{v:?} {w:?}: bits {bits:#06b} (seed {seed:#x})"
                );
            }
        }
    }
}

/// The pre-tests fused into the run-time AVX-512 kernels (`rt512`) answer as the portable
/// pre-tests, `f64` and `f32`, for every factor setting, and their results are the kernels'
/// alone, bit for bit.
#[cfg(target_arch = "x86_64")]
fn check_fused<T: StochFloat>(seed: u64, rt: Fused<T>) {
    let mut r = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut vs = values::<T>(&mut r, 4_000);
    // Sums that cancel: operands of opposite signs within 10^-12 to 10^-1 of each other.
    for i in 0..2_000 {
        let v = vs[i];
        let d = T::from_f64(10f64.powi(-((i % 12) as i32) - 1));
        vs.push(v.map(|x| -(x + x * d)));
    }
    // The same values scaled down to where the differences of their samples (and, for
    // `f32`, the values themselves) are subnormal.
    let tiny = T::from_f64(2f64.powi(if T::MAX_DIGITS > 7 { -1000 } else { -100 }));
    for i in 0..1_000 {
        let v = vs[i];
        vs.push(v.map(|x| x * tiny));
    }
    let four = |s: [T; 3]| [s[0], s[1], s[2], T::flags_lane(0b0000_0101)];
    let settings = [
        (0.004, 1.0),
        (0.0, 1.0),
        (0.004, 0.0),
        (0.0, 0.0),
        (0.4, 1.0),
    ];
    for (cancel, collapse) in settings {
        let tab = crate::runtime::tables::Tables::new(cancel, collapse);
        let (f, c) = (T::from_f64(cancel), T::from_f64(collapse));
        for i in 0..3 * vs.len() {
            let a = four(vs[i % vs.len()]);
            // A random partner, then partners that cancel `a`'s spread in a product and in
            // a quotient: the operand's own pre-test must answer, not the result's.
            let b = match i / vs.len() {
                0 => four(vs[(i * 7919 + 1) % vs.len()]),
                1 => four(vs[i % vs.len()].map(|x| T::ONE / x)),
                _ => a,
            };
            let dir = crate::runtime::rng::dir_word((i % 4) as u32) | 0x9f;
            for (op, name) in [(0, "add"), (1, "mul"), (2, "div")] {
                let (r, hit) = (rt.pre[op])(a, b, dir, &tab, cancel, collapse != 0.0);
                let alone = (rt.kernel[op])(a, b, dir);
                assert!(
                    r.iter()
                        .zip(alone)
                        .all(|(x, y)| StochFloat::to_f64(*x).to_bits()
                            == StochFloat::to_f64(y).to_bits()),
                    "{name}: {r:?} != {alone:?} (seed {seed:#x})"
                );
                if op != 0 && rt.operands {
                    check_operand_pretest(op, a, b, r, hit, seed);
                    continue;
                }
                // The sums' noise pre-test is a fused multiply-add (see `rt512`'s
                // `add_test64`): the same answers but where `42·|d|` rounds to `|x|`,
                // which random operands do not reach.
                let want = match op {
                    0 => {
                        let (a0, b0, r0) = (a[0].abs(), b[0].abs(), r[0].abs());
                        let big = if a0 > b0 { a0 } else { b0 };
                        (r0 < f * big) | ((r0 < c * big) & far_samples(&r))
                    }
                    1 => far_samples(&a) | far_samples(&r),
                    _ => far_samples(&b) | far_samples(&r),
                };
                let slack32 = T::MAX_DIGITS <= 7 && {
                    // The `f32` pre-tests compute in `f64` (see `rt512::add_test32!` and
                    // `noise_pair32!`): the same answers but where `42·|xᵢ − x₀|` or `F·m`,
                    // rounded to `f32` by the portable test, lies within a rounding of
                    // `|x₀|`, or a sample is not finite.
                    let wide = |x: T| StochFloat::to_f64(x);
                    let edge = |x: [T; 4]| spread_edge(&x, 1) || spread_edge(&x, 2);
                    let (a0, b0) = (wide(a[0]).abs(), wide(b[0]).abs());
                    let fm = wide(f) * a0.max(b0);
                    let odd = a[..3]
                        .iter()
                        .chain(&b[..3])
                        .chain(&r[..3])
                        .any(|x| !x.is_finite());
                    let edges = match op {
                        0 => edge(r) | near_rounding(fm, wide(r[0]).abs()),
                        1 => edge(a) | edge(r),
                        _ => edge(b) | edge(r),
                    };
                    odd | edges
                };
                // The `f64` sum compares bit patterns (see `rt512::SumBounds`): it passes
                // every sum the test above passes, and no other but those with
                // |r₀| < 1.2·F·m, those with |r₀| < m and m < 2⁻⁹⁶⁰ where cancellation is
                // detected, and those with a NaN operand or a sample that is not finite.
                let may = if op == 0 && T::MAX_DIGITS > 7 {
                    let (a0, b0, r0) = (a[0].abs(), b[0].abs(), r[0].abs());
                    let m = if a0 > b0 { a0 } else { b0 };
                    let small = T::from_f64(2f64.powi(-960));
                    want | (r0 < T::from_f64(1.2) * f * m)
                        | ((f > T::ZERO) & (m < small) & (r0 < m))
                        | r[..3].iter().any(|x| !x.is_finite())
                        | ((m > T::from_f64(2.0)) & (r0 < T::from_f64(2f64.powi(-1000))))
                        | a0.is_nan()
                        | b0.is_nan()
                } else if T::MAX_DIGITS > 7 {
                    // The `f64` product's and quotient's noise tests compare `|x₀|` with
                    // `42·max(|x₁ − x₀|, |x₂ − x₀|)` in one fused multiply-add
                    // (`rt512::noise_max64!`): the same answers but where that product
                    // rounds to `|x₀|`, or a sample is not finite.
                    let v = if op == 1 { a } else { b };
                    let edge = |x: [T; 4]| {
                        let d = (x[1] - x[0]).abs().max((x[2] - x[0]).abs());
                        let p = T::from_f64(SPREAD_FACTOR) * d;
                        (x[0].abs() - p).abs() <= p * T::from_f64(2f64.powi(-50))
                    };
                    let odd = v[..3].iter().chain(&r[..3]).any(|x| !x.is_finite());
                    want | odd | edge(v) | edge(r)
                } else {
                    want | slack32
                };
                assert!(
                    (hit | !want | slack32) & (!hit | may),
                    "{name} of {a:?} and {b:?} = {r:?}: {hit}, factors {cancel}, \
                     {collapse} (seed {seed:#x})"
                );
                // A native build's pre-test of a sum: the same answers, but that a NaN
                // sample y or z passes where |r₀| < m (see `add_pre64_avx512`), and, for
                // `f32`, which computes in `f64`, at the edges above. The native AVX2 build
                // tests an `f64` sum on its lanes rounded to nearest (`vector::add_pre`):
                // [`check_near_add`].
                if op == 0 {
                    if let Some(native) = (rt.native_add)(a, b, r, cancel, collapse != 0.0) {
                        // The native AVX2 build's `f64` sum pre-test, on the sum rounded to nearest.
                        if avx2_native_adds().is_some() && T::MAX_DIGITS > 7 {
                            let w = |x: [T; 4]| x.map(StochFloat::to_f64);
                            check_near_add(w(a), w(b), w(r), cancel, collapse != 0.0, native);
                        } else {
                            let nan = r[1].is_nan() | r[2].is_nan();
                            assert!(
                                native == want || (native && nan) || slack32,
                                "native add of {a:?} and {b:?} = {r:?}: {native}, factors \
                                 {cancel}, {collapse} (seed {seed:#x})"
                            );
                        }
                    }
                }
            }
        }
    }
}

/// The pre-test of the checks of a product (`op` 1) or quotient (2) `r` of `a` and `b` made on
/// the operands (`hit`; the AVX2 paths, `ops::pretest`'s `far_operands`): it passes wherever
/// the checks record something (a collapse, or both operands noise for a product, the divisor
/// for a quotient); it answers `84·|xᵢ − x₀| > |x₀|` on the samples of `a` and `b`, but at that
/// comparison's edge (fused or rounded), and where a sample lies out of the kernels' range
/// (not finite, or tiny: the kernel's portable path, whose results the test does not cover).
#[cfg(target_arch = "x86_64")]
fn check_operand_pretest<T: StochFloat>(
    op: usize,
    a: [T; 4],
    b: [T; 4],
    r: [T; 4],
    hit: bool,
    seed: u64,
) {
    use crate::runtime::state::OPERAND_SPREAD;
    let three = |x: [T; 4]| [x[0], x[1], x[2]];
    let (a3, b3, r3) = (three(a), three(b), three(r));
    let records = collapses(&r3, &[a3, b3])
        | if op == 1 {
            is_noise(&a3) & is_noise(&b3)
        } else {
            is_noise(&b3)
        };
    let w = |x: T| StochFloat::to_f64(x);
    let far =
        |x: [T; 3]| (1..3).any(|i| (w(x[i]) - w(x[0])).abs() * OPERAND_SPREAD > w(x[0]).abs());
    let edge = |x: [T; 3]| {
        (1..3).any(|i| near_rounding(OPERAND_SPREAD * (w(x[i]) - w(x[0])).abs(), w(x[0]).abs()))
    };
    let tiny = if T::MAX_DIGITS > 7 {
        2f64.powi(-960)
    } else {
        2f64.powi(-97)
    };
    let out = |x: [T; 3]| x.iter().any(|&x| !w(x).is_finite() || w(x).abs() < tiny);
    let want = far(a3) | far(b3);
    let may = want | edge(a3) | edge(b3) | out(a3) | out(b3) | out(r3);
    let name = if op == 1 { "mul" } else { "div" };
    assert!(
        (hit | !want) & (!hit | may),
        "{name} of {a:?} and {b:?} = {r:?}: pre-test {hit} (seed {seed:#x})"
    );
    assert!(
        hit | !records,
        "{name} of {a:?} and {b:?} = {r:?}: the checks record, the pre-test missed \
         (seed {seed:#x})"
    );
}

/// The native AVX2 build's pre-test of an `f64` sum `r = a + b` (`hit`, for cancellation
/// factor `f` and collapse detection `c`): its answer is the comparison it documents, made on
/// `n`, the lanes of `a + b` rounded to nearest, with `m·(1 + 2⁻⁵²)` for `m` and
/// `m·(F·(1 + 2⁻⁵²))` for `F·m` (`runtime::tables::sum_factors`); and it passes
/// every sum whose checks can record something: `|r₀| < F·m/2` (a loss
/// of digits needs it, `Config::apply`), or, with collapses detected, `|r₀| < m` and `r` noise.
/// Returns which of the two the sum is.
#[cfg(target_arch = "x86_64")]
fn check_near_add(a: [f64; 4], b: [f64; 4], r: [f64; 4], f: f64, c: bool, hit: bool) -> [bool; 2] {
    let n = [a[0] + b[0], a[1] + b[1], a[2] + b[2]];
    let (a0, b0) = (a[0].abs(), b[0].abs());
    let m = if a0 > b0 { a0 } else { b0 };
    let m1 = m * (1.0 + f64::EPSILON);
    let fm1 = m * (f * (1.0 + f64::EPSILON));
    let x = n[0].abs();
    let lane = |i: usize| {
        let d = ((n[i] - n[0]) * SPREAD_FACTOR).abs();
        x < if d < m1 { d } else { m1 }
    };
    let want = (x < fm1) | (c & (lane(1) | lane(2)));
    assert_eq!(
        hit, want,
        "near add of {a:?} and {b:?} = {r:?} (nearest {n:?}), factors {f}, {c}"
    );
    let r0 = r[0].abs();
    let must = [
        r0 < 0.5 * f * m,
        c & (r0 < m) & is_noise(&[r[0], r[1], r[2]]),
    ];
    assert!(
        hit | !(must[0] | must[1]),
        "near add of {a:?} and {b:?} = {r:?} (nearest {n:?}) missed, factors {f}, {c}"
    );
    must
}

/// The factors of the native AVX2 `f64` sum's pre-test, as the tables give them, are the
/// configuration's: the default level's here (no test in this binary applies another; the
/// levels' end-to-end tests are in `tests/instabilities.rs`).
#[cfg(all(
    target_arch = "x86_64",
    target_feature = "avx2",
    target_feature = "fma",
    not(all(
        target_feature = "avx512f",
        target_feature = "avx512dq",
        target_feature = "avx512vl"
    ))
))]
#[test]
fn sum_factors_in_the_tables_are_the_configurations() {
    use crate::runtime::tables::{sum_factors, sum_factors_vector, DEFAULT_FACTORS};
    let mut lanes = [0.0f64; 4];
    // SAFETY: the target has AVX (cfg above); four lanes written to four.
    unsafe {
        core::arch::x86_64::_mm256_storeu_pd(lanes.as_mut_ptr(), sum_factors_vector());
    }
    let m = 1.0 + f64::EPSILON;
    assert_eq!(lanes, sum_factors(DEFAULT_FACTORS.0, true));
    assert_eq!(lanes, [0.004 * m, m, m, 0.0]);
    assert_eq!(sum_factors(0.04, false), [0.04 * m, 0.0, 0.0, 0.0]);
}

/// The native AVX2 build's `f64` sum pre-test, made on the sum rounded to nearest, passes every
/// sum whose checks can record something ([`check_near_add`]) where that matters most: sums
/// `x + (−x·(1 + d))`, `d` from 10⁻¹⁷ to 10 of either sign, at every scale from the subnormals
/// to 2¹⁰²³, each operand's samples spread from not at all to far beyond noise, every
/// sample rounded both ways, at three cancellation levels and none, collapses detected or
/// not. Seeded (`STOCH_TEST_SEED` replays a failure). Only in a native AVX2 build (target with
/// AVX2 and FMA, not AVX-512), the one whose pre-test this is; elsewhere it says so.
#[cfg(target_arch = "x86_64")]
#[test]
fn near_sum_pretest_passes_every_recordable_sum() {
    use crate::arch::Kernels;
    let Some((add64, _)) = avx2_native_adds() else {
        eprintln!(
            "skipped: the f64 sum's pre-test on the sum rounded to nearest is the native AVX2 \
             build's (a target with AVX2 and FMA, without AVX-512)"
        );
        return;
    };
    let seed = test_seed(0x4ea5_5e7d);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut u = move || (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
    let (mut cancels, mut collapses, mut passed, mut sums) = (0usize, 0usize, 0usize, 0usize);
    for n in 0..40_000 {
        let e = -1074 + (2097.0 * u()) as i32;
        let x = (1.0 + u()) * 2f64.powi(e);
        let d = 10f64.powf(1.0 - 18.0 * u()) * if u() < 0.5 { 1.0 } else { -1.0 };
        let mut spread = || match (u() * 4.0) as u32 {
            0 => 0.0,
            1 => 10f64.powf(-16.0 * u()),
            _ => 0.5 * 10f64.powf(-3.0 * u()),
        };
        let (sa, sb) = (spread(), spread());
        let mut t = || 2.0 * u() - 1.0;
        let b0 = -x * (1.0 + d);
        let a = [x, x * (1.0 + sa * t()), x * (1.0 + sa * t()), 0.0];
        let b = [b0, b0 * (1.0 + sb * t()), b0 * (1.0 + sb * t()), 0.0];
        if !a.iter().chain(&b).all(|v| v.is_finite()) {
            continue;
        }
        for code in 0..4 {
            let dir = crate::runtime::rng::dir_word(code) | 0x9f;
            let r = f64::store(f64::add4(f64::load(a), f64::load(b), dir));
            for (f, c) in [(0.004, true), (0.04, false), (4e-12, true), (0.0, true)] {
                let hit = add64(a, b, r, f, c).expect("the f64 pre-test");
                let [cancel, collapse] =
                    std::panic::catch_unwind(|| check_near_add(a, b, r, f, c, hit))
                        .unwrap_or_else(|_| panic!("case {n}, direction {code} (seed {seed:#x})"));
                cancels += usize::from(cancel);
                collapses += usize::from(collapse);
                passed += usize::from(hit);
                sums += 1;
            }
        }
    }
    // Both kinds were reached many times, and sums passed and failed the pre-test.
    assert!(
        cancels > 10_000 && collapses > 10_000 && passed > 10_000 && sums - passed > 10_000,
        "{cancels} cancellations, {collapses} collapses, {passed} of {sums} passed \
         (seed {seed:#x})"
    );
}

/// A run-time AVX-512 kernel alone.
#[cfg(target_arch = "x86_64")]
type Kernel<T> = fn([T; 4], [T; 4], u32) -> [T; 4];

/// A run-time kernel with its pre-test, given the tables of the run-time AVX-512 path and the
/// settings they were made from (cancellation factor, collapse detection on).
#[cfg(target_arch = "x86_64")]
type Pre<T> = fn([T; 4], [T; 4], u32, &crate::runtime::tables::Tables, f64, bool) -> ([T; 4], bool);

/// A native build's pre-test of a sum `r = a + b` (`None` where there is none).
#[cfg(target_arch = "x86_64")]
type NativeAdd<T> = fn([T; 4], [T; 4], [T; 4], f64, bool) -> Option<bool>;

/// The run-time AVX-512 kernels of one type, alone and with their fused pre-tests, and the
/// native build's pre-test of a sum.
#[cfg(target_arch = "x86_64")]
struct Fused<T: 'static> {
    kernel: [Kernel<T>; 3],
    pre: [Pre<T>; 3],
    native_add: NativeAdd<T>,
    /// Whether the product's and quotient's pre-tests are made on the operands (the AVX2
    /// paths: [`check_operand_pretest`]) rather than on an operand and the result.
    operands: bool,
}

/// [`add_pre64_avx512`] on arrays, with the collapse lanes kept or not as in `check_add`.
#[cfg(target_arch = "x86_64")]
fn native_add64(
    a: [f64; 4],
    b: [f64; 4],
    r: [f64; 4],
    factor: f64,
    collapse_on: bool,
) -> Option<bool> {
    use core::arch::x86_64::__m256d;
    let v = |x: [f64; 4]| {
        // SAFETY: 32 bytes of plain data.
        unsafe { core::mem::transmute::<[f64; 4], __m256d>(x) }
    };
    // SAFETY: the caller checked that the processor has AVX-512F, DQ and VL.
    let k = unsafe { add_pre64_avx512(v(a), v(b), v(r), factor) };
    Some(k & if collapse_on { 0b0111 } else { 0b0001 } != 0)
}

/// The native AVX2 build's sum pre-tests (`vector::add_pre` on arrays) where this build is one
/// (its target has AVX2 and FMA but not AVX-512), `None` elsewhere.
#[cfg(target_arch = "x86_64")]
fn avx2_native_adds() -> Option<(NativeAdd<f64>, NativeAdd<f32>)> {
    #[cfg(all(
        target_feature = "avx2",
        target_feature = "fma",
        not(all(
            target_feature = "avx512f",
            target_feature = "avx512dq",
            target_feature = "avx512vl"
        ))
    ))]
    {
        fn add<T: StochFloat>(
            a: [T; 4],
            b: [T; 4],
            r: [T; 4],
            factor: f64,
            collapse_on: bool,
        ) -> Option<bool> {
            let s = |x: [T; 4]| crate::Stochastic::<T> { v: T::load(x) };
            let lanes = if collapse_on { 0b111 } else { 0b001 };
            let [f, c1, c2, z] = crate::runtime::tables::sum_factors(factor, collapse_on);
            // SAFETY: the target has AVX (cfg above).
            let sum64 = unsafe { core::arch::x86_64::_mm256_setr_pd(f, c1, c2, z) };
            let (a, b, r) = (s(a), s(b), s(r));
            let factor = || T::from_f64(factor);
            super::pretest::vector::add_pre_with(&a, &b, &r, factor, sum64, || lanes)
        }
        return Some((add::<f64>, add::<f32>));
    }
    #[allow(unreachable_code)]
    None
}

/// The run-time AVX-512 path's `f64` sum pre-test at its bounds (see `rt512::SumBounds`):
/// sums `x + (−x·(1 + d))` with `d` from 10⁻¹⁶ to 10, at every scale from the subnormals to
/// 2¹⁰²³, pass wherever `|r₀| < F·m` and nowhere `|r₀| ≥ 1.2·F·m` (with `m < 2⁻⁹⁶⁰` and
/// collapses apart); seeded (`STOCH_TEST_SEED`); skipped without AVX-512.
#[cfg(target_arch = "x86_64")]
#[test]
fn fused_f64_sum_pretest_at_its_bounds() {
    use crate::arch::x86::asm512::*;
    use crate::runtime::tables::*;
    if !crate::runtime::path::processor_runs(
        crate::runtime::path::Path::Avx512,
        "fused_f64_sum_pretest_at_its_bounds",
    ) {
        return;
    }
    let seed = test_seed(0x5b0d_5eed);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut u = || (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
    let (mut passed, mut near) = (0, 0);
    for (cancel, level) in [(0.004, 4), (0.04, 3), (4e-12, 12), (0.4, 2)] {
        // Collapses off, so that only the cancellation bound answers.
        let tab = Tables::new(cancel, 0.0);
        for _ in 0..20_000 {
            let e = -1074 + (2097.0 * u()) as i32;
            let x = (1.0 + u()) * 2f64.powi(e);
            let d = 10f64.powf(1.0 - 17.0 * u()) * if u() < 0.5 { 1.0 } else { -1.0 };
            let a = [x, x, x, 0.0];
            let b = [-x * (1.0 + d); 4].map(|v| if v.is_finite() { v } else { -x });
            let b = [b[0], b[1], b[2], 0.0];
            let dir = crate::runtime::rng::dir_word((u() * 4.0) as u32);
            let (r, hit) = add_pre_f64(a, b, dir, &tab);
            let (r0, m) = (r[0].abs(), x.max(b[0].abs()));
            let must = r0 < cancel * m;
            let may = must | (r0 < 1.2 * cancel * m) | ((m < 2f64.powi(-960)) & (r0 < m));
            assert!(
                (hit | !must) & (!hit | may),
                "level {level}: {x:e} + {:e} = {:e}: {hit} (seed {seed:#x})",
                b[0],
                r[0]
            );
            passed += usize::from(hit);
            near += usize::from(must);
        }
    }
    // Both sides of every bound were reached.
    assert!(
        near > 10_000 && passed > near,
        "{near} cancellations, {passed} passed"
    );
}

/// The fused pre-tests of the run-time AVX-512 path answer as the portable ones (seeded,
/// `STOCH_TEST_SEED` replays a failure; skipped on a processor without AVX-512).
#[cfg(target_arch = "x86_64")]
#[test]
fn fused_pretests_answer_as_the_portable_ones() {
    use crate::arch::x86::asm512::*;
    if !crate::runtime::path::processor_runs(
        crate::runtime::path::Path::Avx512,
        "fused_pretests_answer_as_the_portable_ones",
    ) {
        return;
    }
    // The native build's pre-test of a sum: the AVX2 form where the build runs it.
    let (add64, add32) = avx2_native_adds().unwrap_or((native_add64, |_, _, _, _, _| None));
    let seed = test_seed(0x00f0_5ed0);
    check_fused::<f64>(
        seed,
        Fused {
            kernel: [add_f64, mul_f64, div_f64],
            pre: [
                |a, b, d, t, _, _| add_pre_f64(a, b, d, t),
                |a, b, d, t, _, _| mul_pre_f64(a, b, d, t),
                |a, b, d, t, _, _| div_pre_f64(a, b, d, t),
            ],
            native_add: add64,
            operands: false,
        },
    );
    check_fused::<f32>(
        seed,
        Fused {
            kernel: [add_f32, mul_f32, div_f32],
            pre: [
                |a, b, d, t, _, _| add_pre_f32(a, b, d, t),
                |a, b, d, t, _, _| mul_pre_f32(a, b, d, t),
                |a, b, d, t, _, _| div_pre_f32(a, b, d, t),
            ],
            native_add: add32,
            operands: false,
        },
    );
}

/// The run-time AVX2 path's kernels and pre-tests (`arch::x86::avx2::asm`) as the functions
/// [`check_fused`] takes; called only where the processor has AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
mod rt2 {
    use crate::arch::x86::avx2::asm as v;
    use crate::runtime::tables::Tables;

    macro_rules! wrap {
        (
            $t:ident,
            $add:ident,
            [$mul:ident, $mul_r:ident],
            [$div:ident, $div_r:ident],
            $operands:ident,
            $add_pre:ident
        ) => {
            pub(crate) fn $add(a: [$t; 4], b: [$t; 4], d: u32) -> [$t; 4] {
                // SAFETY: the test runs these only where the processor has AVX2 and FMA.
                unsafe { v::$add(a, b, d) }
            }
            pub(crate) fn $mul(a: [$t; 4], b: [$t; 4], d: u32) -> [$t; 4] {
                // SAFETY: as above.
                unsafe { v::$mul(a, b, d) }
            }
            pub(crate) fn $div(a: [$t; 4], b: [$t; 4], d: u32) -> [$t; 4] {
                // SAFETY: as above.
                unsafe { v::$div(a, b, d) }
            }
            /// The pre-tests as `Kernels::rt2_checked` runs them, with the factors of the
            /// tables `t` (`Tables::new` of the test's cancellation and collapse factors).
            pub(crate) const PRE: [crate::ops::tests::Pre<$t>; 3] = [
                |a, b, d, t: &Tables, _, _| {
                    let r = $add(a, b, d);
                    // SAFETY: as above.
                    let bits = unsafe { v::$add_pre(a, b, r, t) };
                    (r, bits != 0)
                },
                |a, b, d, _: &Tables, _, _| {
                    // SAFETY: as above.
                    let (r, ranged) = unsafe { v::$mul_r(a, b, d) };
                    // SAFETY: as above.
                    (r, ranged | (unsafe { v::$operands(a, b) } != 0))
                },
                |a, b, d, _: &Tables, _, _| {
                    // SAFETY: as above.
                    let (r, ranged) = unsafe { v::$div_r(a, b, d) };
                    // SAFETY: as above.
                    (r, ranged | (unsafe { v::$operands(a, b) } != 0))
                },
            ];
        };
    }

    pub(super) mod f64s {
        use super::*;
        wrap!(
            f64,
            add_f64,
            [mul_f64, mul_f64_ranged],
            [div_f64, div_f64_ranged],
            operands_f64,
            add_pre_f64
        );
    }
    pub(super) mod f32s {
        use super::*;
        wrap!(
            f32,
            add_f32,
            [mul_f32, mul_f32_ranged],
            [div_f32, div_f32_ranged],
            operands_f32,
            add_pre_f32
        );
    }
}

/// The pre-tests of the run-time AVX2 path answer as the portable ones, and their results are
/// the kernels' alone; so does a native AVX2 build's sum pre-test, which the AVX-512 test above
/// also checks but skips on the processors without AVX-512 that such a build is for (seeded,
/// `STOCH_TEST_SEED` replays a failure; fails under `STOCH_REQUIRE_AVX2=1` on a processor
/// without AVX2 and FMA).
#[cfg(target_arch = "x86_64")]
#[test]
fn avx2_pretests_answer_as_the_portable_ones() {
    use rt2::{f32s, f64s};
    if !crate::runtime::path::processor_runs(
        crate::runtime::path::Path::Avx2,
        "avx2_pretests_answer_as_the_portable_ones",
    ) {
        return;
    }
    let seed = test_seed(0x00a2_5ed0);
    let (add64, add32) = avx2_native_adds().unwrap_or((|_, _, _, _, _| None, |_, _, _, _, _| None));
    check_fused::<f64>(
        seed,
        Fused {
            kernel: [f64s::add_f64, f64s::mul_f64, f64s::div_f64],
            pre: f64s::PRE,
            native_add: add64,
            operands: true,
        },
    );
    check_fused::<f32>(
        seed,
        Fused {
            kernel: [f32s::add_f32, f32s::mul_f32, f32s::div_f32],
            pre: f32s::PRE,
            native_add: add32,
            operands: true,
        },
    );
}

/// The native AVX2 build's pre-test of a product's or quotient's checks (its kernels' range
/// flag and `vector::far_operands`) passes wherever the checks record something, and answers
/// as [`check_operand_pretest`] says, `f64` and `f32`; seeded (`STOCH_TEST_SEED`). Built where
/// the target has AVX2 and FMA but not AVX-512 (CI's `x86-64-v3` build).
#[cfg(all(
    target_arch = "x86_64",
    target_feature = "avx2",
    target_feature = "fma",
    not(target_feature = "avx512f")
))]
#[test]
fn native_operand_pretests_cover_the_checks() {
    fn check<T: StochFloat>(seed: u64) {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let mut vs = values::<T>(&mut rng, 6_000);
        // Values scaled down to where products and quotients underflow.
        let tiny = T::from_f64(2f64.powi(if T::MAX_DIGITS > 7 { -540 } else { -70 }));
        for i in 0..2_000 {
            let v = vs[i];
            vs.push(v.map(|x| x * tiny));
        }
        let four = |s: [T; 3]| [s[0], s[1], s[2], T::flags_lane(0b0000_0101)];
        let value = |x: [T; 4]| Stochastic::<T> { v: T::load(x) };
        for i in 0..3 * vs.len() {
            let a = four(vs[i % vs.len()]);
            let b = match i / vs.len() {
                0 => four(vs[(i * 7919 + 1) % vs.len()]),
                1 => four(vs[i % vs.len()].map(|x| T::ONE / x)),
                _ => four(vs[(i * 104_729 + 7) % vs.len()]),
            };
            let dir = crate::runtime::rng::dir_word((i % 4) as u32) | 0x9f;
            let (va, vb) = (value(a), value(b));
            for op in [1u8, 2] {
                let (r, ranged) = T::native4(op, va.v, vb.v, dir);
                let hit = ranged | super::pretest::vector::far_operands(&va, &vb);
                check_operand_pretest(usize::from(op), a, b, T::store(r), hit, seed);
            }
        }
    }
    let seed = test_seed(0x0b5e_ed02);
    check::<f64>(seed);
    check::<f32>(seed);
}

/// A square root's checks test the argument alone (`Stochastic::check_root`): wherever the
/// noise pre-test passes no argument, the root's samples lie within `0.0125·|x|` of its `x`
/// (the bound `check_root` relies on) and the root is not noise; roots of noise arguments are
/// reached (seeded, `STOCH_TEST_SEED`).
fn check_root<T: StochFloat>(seed: u64) {
    let mut r = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut vs = values::<T>(&mut r, 20_000);
    let tiny = T::from_f64(2f64.powi(if T::MAX_DIGITS > 7 { -1060 } else { -140 }));
    for i in 0..2_000 {
        let v = vs[i];
        vs.push(v.map(|x| (x * tiny).abs()));
        vs.push(v.map(|x| x.abs()));
    }
    let (mut kept, mut noise) = (0, 0);
    for (i, s) in vs.into_iter().enumerate() {
        let a = Stochastic::<T>::from_samples(s);
        let dir = crate::runtime::rng::dir_word((i % 4) as u32) | 0x9f;
        let root = Stochastic::<T> {
            v: T::sqrt4(a.v, dir),
        }
        .s();
        if maybe_noise(&a) {
            noise += usize::from(is_noise(&root));
            continue;
        }
        kept += 1;
        let w = |x: T| StochFloat::to_f64(x);
        let x = w(root[0]);
        let near = (1..3).all(|i| (w(root[i]) - x).abs() <= 0.0125 * x.abs());
        assert!(
            (near || !root.iter().all(|r| w(*r).is_finite())) && !is_noise(&root),
            "sqrt of {s:?} = {root:?} (seed {seed:#x})"
        );
    }
    assert!(
        kept > 5_000 && noise > 500,
        "{kept} roots kept, {noise} noise"
    );
}

#[test]
fn root_checks_need_an_argument_that_passes_the_pretest() {
    let seed = test_seed(0x0005_0a7e);
    check_root::<f64>(seed);
    check_root::<f32>(seed);
}

/// The products whose checks [`exact_product`] skips have nothing to find: no operand and
/// no result in any rounding direction is noise. Exact operands over the whole exponent
/// range (products that underflow, overflow, vanish or are NaN included) and inexact ones,
/// seeded (`STOCH_TEST_SEED` replays a failure); where the test is made, it lets the
/// products of normal exact operands through.
fn check_exact<T: StochFloat>(seed: u64) -> usize {
    let mut r = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut xs: Vec<[T; 3]> = values::<T>(&mut r, 1_000);
    let mut u = || (r.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
    let (lo, hi) = if T::MAX_DIGITS > 7 {
        (-1080, 1030)
    } else {
        (-155, 133)
    };
    for _ in 0..3_000 {
        let e = lo + ((hi - lo) as f64 * u()) as i32;
        let sign = if u() < 0.5 { -1.0 } else { 1.0 };
        let x = T::from_f64(sign * (1.0 + u()) * 2f64.powi(e));
        xs.push([x; 3]);
    }
    for x in [0.0, -0.0, f64::INFINITY, f64::NAN, 1.0] {
        xs.push([T::from_f64(x); 3]);
    }
    let mut taken = 0;
    for i in 0..xs.len() * 4 {
        let a = Stochastic::from_samples(xs[i % xs.len()]);
        let b = Stochastic::from_samples(xs[(i * 7919 + 13) % xs.len()]);
        if !exact_product(&a, &b) {
            continue;
        }
        taken += 1;
        assert!(
            !is_noise(&a.s()) && !is_noise(&b.s()),
            "{a:?}, {b:?} (seed {seed:#x})"
        );
        for d in 0..4 {
            let dir = crate::runtime::rng::dir_word(d) | 0x9f;
            let p = Stochastic::<T> {
                v: T::mul4(a.v, b.v, dir),
            };
            assert!(
                !is_noise(&p.s()),
                "{a:?} * {b:?} = {p:?} is noise (seed {seed:#x})"
            );
        }
    }
    taken
}

#[test]
fn exact_products_need_no_check() {
    let seed = test_seed(0x0e8a_c7ed);
    let taken = [check_exact::<f64>(seed), check_exact::<f32>(seed)];
    #[cfg(all(
        target_arch = "x86_64",
        target_feature = "avx2",
        target_feature = "fma"
    ))]
    for t in taken {
        // About half the pairs are of two exact operands, most of them normal products.
        assert!(
            t > 1_000,
            "only {t} products skipped their checks (seed {seed:#x})"
        );
    }
    let _ = taken;
}

/// The noise pre-tests, on the path this build compiles (AVX2, SSE2 or portable), pass every
/// value that is noise; the SSE2 form answers as the portable one. Seeded
/// (`STOCH_TEST_SEED` replays a failure).
#[test]
fn noise_pretests_pass_every_noise_value() {
    let seed = test_seed(0x0015_0e5e);
    check::<f64>(seed);
    check::<f32>(seed);
}

/// Every reference/plain mix that std has for `f64` (`&x + 1.0` with `x` from an iterator)
/// exists and gives the by-value result (exact operands, so each form is exact here).
#[test]
#[allow(clippy::op_ref)] // the reference forms are what is tested
fn reference_and_plain_mixes() {
    let x = Stochastic::<f64>::from_samples([1.5, 1.5, 1.5]);
    let y = 0.5_f64;
    let (rx, ry) = (&x, &y);
    let all = [
        rx + y,
        rx - y,
        rx * y,
        rx / y,
        rx % y,
        rx + ry,
        rx - ry,
        rx * ry,
        rx / ry,
        rx % ry,
        ry + x,
        ry - x,
        ry * x,
        ry / x,
        ry % x,
        ry + rx,
        ry - rx,
        ry * rx,
        ry / rx,
        ry % rx,
        x % ry,
        y % rx,
    ];
    let want = [
        2.0,
        1.0,
        0.75,
        3.0,
        0.0,
        2.0,
        1.0,
        0.75,
        3.0,
        0.0,
        2.0,
        -1.0,
        0.75,
        1.0 / 3.0,
        0.5,
        2.0,
        -1.0,
        0.75,
        1.0 / 3.0,
        0.5,
        0.0,
        0.5,
    ];
    for (i, (got, want)) in all.iter().zip(want).enumerate() {
        let s = got.samples();
        // 1/3 is rounded up or down at random: within one ulp.
        assert!(
            s.iter()
                .all(|v| (v - want).abs() <= want.abs() * f64::EPSILON),
            "form {i}: {s:?} instead of {want}"
        );
    }
    let v = [1.0_f32, 2.0];
    let z = Stochastic::<f32>::from_samples([3.0; 3]);
    let sum: Vec<Stochastic<f32>> = v.iter().map(|a| &z * a + a).collect();
    assert_eq!(sum[1].samples(), [8.0; 3]);
}

/// Sixty-four operations of every kind written out in one function, the way an unrolled
/// library loop (nalgebra's dot product) has them.
#[inline(never)]
fn many_operations(x: &[crate::Sf64; 8]) -> crate::Sf64 {
    let mut acc = crate::Sf64::new(0.5);
    macro_rules! step {
        ($($i:literal)*) => {$(
            acc += x[$i] * x[($i + 1) % 8];
            acc = (acc - x[$i]) / x[($i + 3) % 8];
            acc = acc.mul_add(x[$i], x[($i + 5) % 8]).sqrt();
            acc = acc * 0.5 + 1.0;
        )*};
    }
    step!(0 1 2 3 4 5 6 7);
    acc
}

/// Each operator is a call of its own in a build without optimisations, so that a function
/// with many operations keeps one frame per operator call, not one per operation: with every
/// operation's paths inlined, a frame of nalgebra's unrolled dot product took 1.8 MB in a
/// debug build, and a test thread's 2 MiB stack overflowed (an AVX2 processor, where the
/// operators inline the most code). Here: 64 operations on a 512 KiB stack (a stack overflow
/// aborts the test process).
#[test]
fn many_operations_fit_a_small_stack() {
    let x = core::array::from_fn(|i| crate::Sf64::new(1.0 + i as f64 / 8.0));
    let r = std::thread::Builder::new()
        .stack_size(512 * 1024)
        .spawn(move || many_operations(&x))
        .expect("spawn a thread")
        .join()
        .expect("the thread ran");
    assert!(r.mean().is_finite() && r.mean() > 0.0, "{r:?}");
}

/// Negation flips every sample's sign bit (zeros, infinities and NaN included) and keeps the
/// flags, in both types; an exact difference is the sum with the negated subtrahend.
#[test]
fn negation_flips_samples_and_keeps_flags() {
    fn case<T: StochFloat>(samples: [T; 3]) {
        let bits = |x: T| StochFloat::to_f64(x).to_bits();
        let flags = crate::Flags::EMPTY
            .with(Instability::Cancellation)
            .with(Instability::Division);
        let v = Stochastic::<T>::from_parts(samples, flags);
        let n = -v;
        for (s, m) in samples.iter().zip(n.samples()) {
            assert_eq!(bits(m) ^ bits(*s), 1 << 63, "{s:?} -> {m:?}");
        }
        assert_eq!(n.flags(), flags, "{samples:?}");
        assert_eq!((-n).samples().map(bits), samples.map(bits));
    }
    // Exact differences, so that the rounding directions do not matter (no seed: the seed is
    // process-wide, and the tests of the generator set it under their own lock).
    fn difference<T: StochFloat>() {
        let bits = |x: T| StochFloat::to_f64(x).to_bits();
        let (a, b) = (
            [3.0, 5.5, -7.25].map(T::from_f64),
            [1.0, 0.5, -0.25].map(T::from_f64),
        );
        let (a, b) = (
            Stochastic::<T>::from_samples(a),
            Stochastic::<T>::from_samples(b),
        );
        let want = [2.0, 5.0, -7.0].map(|x| bits(T::from_f64(x)));
        assert_eq!((a - b).samples().map(bits), want);
        assert_eq!((a + -b).samples().map(bits), want);
    }
    case::<f64>([1.5, -0.0, 2.0f64.powi(-1060)]);
    case::<f64>([f64::INFINITY, 0.0, -3.25]);
    case::<f32>([1.5, -0.0, f32::MIN_POSITIVE / 4.0]);
    case::<f32>([f32::NEG_INFINITY, 0.0, 7.0]);
    difference::<f64>();
    difference::<f32>();
    let nan = -Stochastic::<f64>::from_samples([f64::NAN, 1.0, 2.0]);
    assert!(nan.samples()[0].is_nan() && nan.samples()[0].is_sign_negative());
}
