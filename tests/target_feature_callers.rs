//! Stochastic arithmetic inside functions compiled for more than the build's target.
//!
//! Numerical codes often compile their hot loops with `#[target_feature(enable = "avx2")]` or
//! `"avx512f"` and dispatch at run time. Such a loop keeps values in registers that a
//! baseline build of stoch-core knows nothing of (`ymm` upper halves, `zmm16`-`zmm31`, mask
//! registers), and the slow paths behind the checks run library code that may change them.
//! The same seed must give the same samples whatever the loop was compiled for, with the checks
//! on and off: a check never changes a result. Each variant runs where the processor has its
//! features, and says so where it does not.

#![cfg(target_arch = "x86_64")]

use std::sync::Mutex;

use stoch_core::{report, reset, seed, Config, ReportMode, Sf32, Sf64};

/// The tests here seed the generators and count instabilities, state every thread shares:
/// they run one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

/// A dot product of `x` with itself shifted by one, and a second one of differences of nearly
/// equal neighbours (a cancellation, and so a slow path, at every step): the running sums stay
/// in registers across the slow paths.
#[inline(always)]
fn kernel(x: &[Sf64]) -> [Sf64; 2] {
    let mut acc = Sf64::ZERO;
    let mut diff = Sf64::ZERO;
    for w in x.windows(2) {
        acc += w[0] * w[1];
        diff += w[1] - w[0];
    }
    [acc, diff]
}

#[inline(never)]
fn baseline(x: &[Sf64]) -> [Sf64; 2] {
    kernel(x)
}

/// # Safety
/// The processor must have AVX2 and FMA.
#[target_feature(enable = "avx,avx2,fma")]
#[inline(never)]
unsafe fn with_avx2(x: &[Sf64]) -> [Sf64; 2] {
    kernel(x)
}

/// # Safety
/// The processor must have AVX-512F, BW, DQ and VL, AVX2 and FMA.
#[target_feature(enable = "avx,avx2,fma,avx512f,avx512bw,avx512dq,avx512vl")]
#[inline(never)]
unsafe fn with_avx512(x: &[Sf64]) -> [Sf64; 2] {
    kernel(x)
}

/// Whether the processor runs the AVX2 functions here, and the AVX-512 ones; a variant it
/// cannot run is skipped, but fails under `STOCH_REQUIRE_AVX2=1` or `STOCH_REQUIRE_AVX512=1`.
fn features() -> (bool, bool) {
    let avx2 = std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma");
    let avx512 = avx2
        && std::is_x86_feature_detected!("avx512f")
        && std::is_x86_feature_detected!("avx512bw")
        && std::is_x86_feature_detected!("avx512dq")
        && std::is_x86_feature_detected!("avx512vl");
    for (have, var) in [
        (avx2, "STOCH_REQUIRE_AVX2"),
        (avx512, "STOCH_REQUIRE_AVX512"),
    ] {
        let required = std::env::var(var).is_ok_and(|v| v == "1");
        assert!(
            have || !required,
            "{var}=1 but this processor cannot run that variant"
        );
    }
    (avx2, avx512)
}

fn samples(r: [Sf64; 2]) -> Vec<[u64; 3]> {
    r.iter().map(|v| v.samples().map(f64::to_bits)).collect()
}

/// Runs `f` from one seed with every check on or off; also returns the instabilities found.
fn run(detect: bool, f: &dyn Fn() -> [Sf64; 2]) -> (Vec<[u64; 3]>, u64) {
    Config::default()
        .detect_all(detect)
        .report(ReportMode::Off)
        .apply();
    reset();
    seed(77);
    let r = samples(f());
    (r, report().total())
}

#[test]
fn a_target_feature_loop_gives_the_baseline_samples_with_checks_on_and_off() {
    let _one = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    // Values with rounding errors in their last digits, so that their differences lose most
    // digits.
    let third = Sf64::ONE / Sf64::new(3.0);
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let x: Vec<Sf64> = (0..40_000)
        .map(|i| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1);
            let u = (state >> 11) as f64 / (1u64 << 53) as f64;
            let near = 1.0 + (i % 97) as f64 * 1e-13;
            let v = if i % 2 == 0 { near } else { 2.0 * u - 1.0 };
            Sf64::new(v) * third * Sf64::new(3.0)
        })
        .collect();
    let (want, none) = run(false, &|| baseline(&x));
    assert_eq!(none, 0, "checks off found instabilities");
    let (on, found) = run(true, &|| baseline(&x));
    assert_eq!(on, want, "baseline: checks on changed the samples");
    assert!(
        found >= 10_000,
        "the loop must reach the slow paths often: {found} instabilities"
    );

    // Each loop, checks off and on, against the baseline's samples and count.
    let check = |name: &str, f: &dyn Fn() -> [Sf64; 2]| {
        for detect in [false, true] {
            let (got, n) = run(detect, f);
            assert_eq!(got, want, "{name} loop, checks {detect}: samples differ");
            assert_eq!(
                n,
                if detect { found } else { 0 },
                "{name} loop, checks {detect}"
            );
        }
    };
    let (avx2, avx512) = features();
    let mut ran = 0;
    if avx2 {
        // SAFETY: the features were detected just above.
        check("AVX2", &|| unsafe { with_avx2(&x) });
        ran += 1;
    } else {
        println!("skipped the AVX2 variant: this processor lacks AVX2 or FMA");
    }
    if avx512 {
        // SAFETY: the features were detected just above.
        check("AVX-512", &|| unsafe { with_avx512(&x) });
        ran += 1;
    } else {
        println!("skipped the AVX-512 variant: this processor lacks AVX-512 F, BW, DQ or VL");
    }
    println!("{ran} target-feature variants checked against the baseline");
}

/// Every operation of both types on the values of `x` and `y` (`all`), or only products and
/// sums (a short loop, where the compiler keeps more in registers), calling `each` once per
/// step: what the loops below keep wide registers live across.
#[inline(always)]
fn ops(all: bool, x: &[Sf64], y: &[Sf32], mut each: impl FnMut()) -> (Sf64, Sf32) {
    let (mut a, mut b) = (Sf64::ONE, Sf32::ONE);
    for (&u, &v) in x.iter().zip(y) {
        if all {
            a = ((a * u + u) / u - u).sqrt().mul_add(u, u);
            b = ((b * v + v) / v - v).sqrt().mul_add(v, v);
        } else {
            a *= u;
            b += v;
        }
        each();
    }
    (a, b)
}

/// The operations inside a function with AVX2 whose loop also keeps a `ymm` value (its upper
/// half in use) live across them: the value must come out as plain arithmetic makes it. A
/// kernel that cleared the upper halves (`vzeroupper`) lost lanes 2 and 3 here.
/// # Safety
/// The processor must have AVX2 and FMA.
#[target_feature(enable = "avx,avx2,fma")]
#[inline(never)]
unsafe fn ymm_across(all: bool, x: &[Sf64], y: &[Sf32]) -> ([f64; 4], (Sf64, Sf32)) {
    use core::arch::x86_64::*;
    let mut w = _mm256_setr_pd(1.0, 2.0, 3.0, 4.0);
    let step = _mm256_set1_pd(0.5);
    let r = ops(all, x, y, || w = _mm256_add_pd(w, step));
    let mut out = [0.0; 4];
    // SAFETY: `out` holds four `f64`.
    unsafe { _mm256_storeu_pd(out.as_mut_ptr(), w) };
    (out, r)
}

/// The same with a `zmm` value in a function with AVX-512.
/// # Safety
/// The processor must have AVX-512F, BW, DQ and VL, AVX2 and FMA.
#[target_feature(enable = "avx,avx2,fma,avx512f,avx512bw,avx512dq,avx512vl")]
#[inline(never)]
unsafe fn zmm_across(all: bool, x: &[Sf64], y: &[Sf32]) -> ([f64; 8], (Sf64, Sf32)) {
    use core::arch::x86_64::*;
    let mut z = _mm512_setr_pd(1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0);
    let step = _mm512_set1_pd(0.5);
    let r = ops(all, x, y, || z = _mm512_add_pd(z, step));
    let mut out = [0.0; 8];
    // SAFETY: `out` holds eight `f64`.
    unsafe { _mm512_storeu_pd(out.as_mut_ptr(), z) };
    (out, r)
}

#[test]
fn wide_registers_of_a_target_feature_loop_survive_every_operation() {
    let _one = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let x: Vec<Sf64> = (0..1000)
        .map(|i| Sf64::new(1.5 + i as f64 * 1e-3))
        .collect();
    let y: Vec<Sf32> = (0..1000)
        .map(|i| Sf32::new(1.5 + i as f32 * 1e-3))
        .collect();
    let n = x.len() as f64 * 0.5;
    let (avx2, avx512) = features();
    let mut ran = 0;
    for all in [false, true] {
        seed(5);
        let want = ops(all, &x, &y, || {});
        let want = (want.0.samples(), want.1.samples());
        if avx2 {
            seed(5);
            // SAFETY: the features were detected just above.
            let (w, (a, b)) = unsafe { ymm_across(all, &x, &y) };
            assert_eq!(
                w,
                [1.0, 2.0, 3.0, 4.0].map(|v| v + n),
                "all: {all}: a ymm value changed"
            );
            assert_eq!((a.samples(), b.samples()), want, "all: {all}: AVX2 loop");
            ran += 1;
        } else {
            println!("skipped the ymm variant: this processor lacks AVX2 or FMA");
        }
        if avx512 {
            seed(5);
            // SAFETY: the features were detected just above.
            let (z, (a, b)) = unsafe { zmm_across(all, &x, &y) };
            let want_z: Vec<f64> = (1..=8).map(|i| i as f64 + n).collect();
            assert_eq!(z.to_vec(), want_z, "all: {all}: a zmm value changed");
            assert_eq!((a.samples(), b.samples()), want, "all: {all}: AVX-512 loop");
            ran += 1;
        } else {
            println!("skipped the zmm variant: this processor lacks AVX-512 F, BW, DQ or VL");
        }
    }
    println!("{ran} wide-register variants checked");
}
