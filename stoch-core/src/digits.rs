//! Discrete Stochastic Arithmetic: exact significant digits, computed zero (DESIGN §3).
//!
//! With samples `R_i`, mean `m`, `σ² = Σ(R_i − m)²/(N−1)`, `N = 3` and `τ_β` the Student t
//! quantile with `N−1` degrees of freedom at confidence β, the number of exact significant digits
//! is `C = log10(√N·|m| / (σ·τ_β))`. A value is a computed zero when all its samples are zero or
//! `C < 0.5`, i.e. `Σ(R_i − m)² > 0.6·m²/τ_β²`.

use std::sync::atomic::{AtomicU64, Ordering};

use statrs::distribution::{ContinuousCDF, StudentsT};

use crate::StochFloat;

/// Student's t quantile at 97.5% with 2 degrees of freedom (β = 95%).
///
/// ```
/// // With samples (1 − d, 1, 1 + d): C = log10(√3 / (τ·d)).
/// let d = 1e-6;
/// let c = (3f64.sqrt() / (stoch_core::TAU_95 * d)).log10();
/// let x = stoch_core::Sf64::from_samples([1.0 - d, 1.0, 1.0 + d]);
/// assert!((x.digits_estimate() - c).abs() < 1e-6);
/// ```
pub const TAU_95: f64 = 4.302652729749464;

/// `0.6 / τ²`: above `K·m²`, `Σ(R_i − m)²` makes a computed zero.
static CZ_K: AtomicU64 = AtomicU64::new(0x3FA0_980A_362D_AB30);
/// `log10(√3 / τ)`.
static LOG_OFFSET: AtomicU64 = AtomicU64::new(0xBFD9_4A8E_E276_C6A6);
static TAU: AtomicU64 = AtomicU64::new(0x4011_35EA_98E1_46BB);

/// The Student t quantile `τ_β` for `N − 1 = 2` degrees of freedom, two-sided, from `statrs`:
/// the `τ` with probability `β` that `|t| ≤ τ`.
///
/// ```
/// use stoch_core::{student_tau, TAU_95};
/// assert!((student_tau(0.95) - TAU_95).abs() < 1e-9);
/// assert!((student_tau(0.99) - 9.924843).abs() < 1e-5);
/// ```
#[must_use]
pub fn student_tau(beta: f64) -> f64 {
    let t = StudentsT::new(0.0, 1.0, 2.0).expect("valid Student t parameters");
    t.inverse_cdf(0.5 + beta / 2.0)
}

pub(crate) fn set_confidence(beta: f64) {
    let tau = if (beta - 0.95).abs() < 1e-12 {
        TAU_95
    } else {
        student_tau(beta)
    };
    TAU.store(tau.to_bits(), Ordering::Relaxed);
    CZ_K.store((0.6 / (tau * tau)).to_bits(), Ordering::Relaxed);
    LOG_OFFSET.store((3f64.sqrt() / tau).log10().to_bits(), Ordering::Relaxed);
}

/// The τ in force: [`TAU_95`] by default, [`student_tau`] of the configured confidence
/// ([`Config::confidence`](crate::Config::confidence)) otherwise.
///
/// ```
/// // Default confidence, 95%.
/// assert_eq!(stoch_core::tau(), stoch_core::TAU_95);
/// ```
#[must_use]
pub fn tau() -> f64 {
    f64::from_bits(TAU.load(Ordering::Relaxed))
}

#[inline(always)]
fn k() -> f64 {
    f64::from_bits(CZ_K.load(Ordering::Relaxed))
}

/// Mean and `Σ(R_i − m)²` of three samples, in `f64`.
#[inline(always)]
pub(crate) fn stats<T: StochFloat>(s: &[T; 3]) -> (f64, f64) {
    let (a, b, c) = (s[0].to_f64(), s[1].to_f64(), s[2].to_f64());
    let m = mean3(a, b, c);
    let (da, db, dc) = (a - m, b - m, c - m);
    (m, da * da + db * db + dc * dc)
}

/// The mean of three `f64` samples: exactly the sample when all three are equal, otherwise
/// `(a + b + c) / 3` (one rounding of the sum, one of the quotient), and each third first when
/// the sum overflows.
#[inline(always)]
pub(crate) fn mean3(a: f64, b: f64, c: f64) -> f64 {
    if a == b && b == c {
        return a;
    }
    let sum = a + b + c;
    if sum.is_finite() || !(a.is_finite() && b.is_finite() && c.is_finite()) {
        sum / 3.0
    } else {
        a / 3.0 + b / 3.0 + c / 3.0
    }
}

/// The sign of the sum of three samples (the sign of their mean), without underflow to zero:
/// `Greater`, `Less`, `Equal` for a zero sum, `None` for NaN.
#[inline(always)]
pub(crate) fn sign3<T: StochFloat>(s: &[T; 3]) -> Option<core::cmp::Ordering> {
    let (a, b, c) = (s[0].to_f64(), s[1].to_f64(), s[2].to_f64());
    let sum = a + b + c;
    let sum = if sum.is_finite() || !(a.is_finite() && b.is_finite() && c.is_finite()) {
        sum
    } else {
        a * 0.25 + b * 0.25 + c * 0.25
    };
    sum.partial_cmp(&0.0)
}

/// Whether three samples make numerical noise: a computed zero that is not an exact zero.
/// Cheap: a handful of flops, no division, no logarithm. NaN samples are not noise.
#[inline(always)]
pub(crate) fn is_noise<T: StochFloat>(s: &[T; 3]) -> bool {
    let (x, y, z) = (s[0], s[1], s[2]);
    // Fast exits: identical samples (exact values), then a spread below 0.05·|x| (noise
    // needs a spread above 0.127·|mean|), checked in T with no conversion.
    if x == y && y == z {
        return false;
    }
    let near = T::from_f64(0.05) * x.abs();
    if (y - x).abs() + (z - x).abs() <= near && x != T::ZERO {
        return false;
    }
    noise_full(s)
}

/// `Σ(R_i − m)² > K·m²` without division: with `S = ΣR_i`, `Σ(3R_i − S)² > K·S²`. Values
/// beyond ±1e150 are rescaled by a power of two first so that the squares cannot overflow.
#[inline(always)]
fn noise_full<T: StochFloat>(s: &[T; 3]) -> bool {
    let (mut a, mut b, mut c) = (s[0].to_f64(), s[1].to_f64(), s[2].to_f64());
    let big = a.abs().max(b.abs()).max(c.abs());
    if !(big < 1e150 && big > 1e-150) {
        if big == 0.0 || big.is_nan() || big.is_infinite() {
            return false;
        }
        // Scale by a power of two near 1/big (exact), from the exponent bits: no library call
        // on this path, which sits inside every operation's check.
        let e = ((big.to_bits() >> 52) & 0x7ff) as i64 - 1023;
        let f = f64::from_bits(((1023 - e.clamp(-1000, 1000)) as u64) << 52);
        a *= f;
        b *= f;
        c *= f;
    }
    let sum = a + b + c;
    let (da, db, dc) = (3.0 * a - sum, 3.0 * b - sum, 3.0 * c - sum);
    da * da + db * db + dc * dc > k() * sum * sum
}

/// Whether three samples make a computed zero (exact zero included).
#[inline(always)]
pub(crate) fn is_computed_zero<T: StochFloat>(s: &[T; 3]) -> bool {
    (s[0] == T::ZERO && s[1] == T::ZERO && s[2] == T::ZERO) || is_noise(s)
}

/// Real-valued `C`: +∞ for identical finite non-zero samples, −∞ for three zeros, NaN when a
/// sample is not finite.
pub(crate) fn estimate<T: StochFloat>(s: &[T; 3]) -> f64 {
    if s.iter().any(|x| !x.is_finite()) {
        return f64::NAN;
    }
    if s[0] == s[1] && s[1] == s[2] {
        return if s[0] == T::ZERO {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        };
    }
    let (m, _) = stats(s);
    if m == 0.0 {
        return f64::NEG_INFINITY;
    }
    // C = log10(√3/τ) + log10(|m|/σ), with σ relative to |m| to avoid overflow of squares.
    let rel = |x: T| (x.to_f64() - m) / m;
    let (ra, rb, rc) = (rel(s[0]), rel(s[1]), rel(s[2]));
    let q = ra * ra + rb * rb + rc * rc;
    f64::from_bits(LOG_OFFSET.load(Ordering::Relaxed)) - 0.5 * (q / 2.0).log10()
}

/// The digits of three identical finite samples `x`: the type's maximum (an exact zero
/// included, as in CADNA), except for a subnormal `x = k·2^(e_min − p)`, which holds
/// `⌊log10 k⌋` decimal digits (at least 1): `5.237e-319` as an `f64` is `k ≈ 1.06e5`, 5 digits.
/// The device header's `stoch_dsa_identical_digits` is the same.
#[inline(always)]
pub(crate) fn identical_digits<T: StochFloat>(x: T) -> u32 {
    let (min_normal, min_sub) = if T::MAX_DIGITS <= 7 {
        (f64::from(f32::MIN_POSITIVE), f64::from(f32::from_bits(1)))
    } else {
        (f64::MIN_POSITIVE, f64::from_bits(1))
    };
    let m = x.to_f64().abs();
    if m == 0.0 || m >= min_normal {
        return T::MAX_DIGITS;
    }
    // k is an integer below 2^52: compared with exact powers of ten, no logarithm.
    let k = m / min_sub;
    let mut d = 1;
    let mut p = 100.0;
    while d < T::MAX_DIGITS && k >= p {
        d += 1;
        p *= 10.0;
    }
    d
}

/// Integer digits: `⌊C + 0.5⌋` clamped to `0..=MAX_DIGITS`; for identical samples, the maximum
/// ([`identical_digits`]: fewer for a subnormal), an exact zero included; 0 for numerical noise
/// or a non-finite sample.
pub(crate) fn digits<T: StochFloat>(s: &[T; 3]) -> u32 {
    if s.iter().any(|x| !x.is_finite()) {
        return 0;
    }
    if s[0] == s[1] && s[1] == s[2] {
        return identical_digits(s[0]);
    }
    let (a, b, c) = (s[0].to_f64(), s[1].to_f64(), s[2].to_f64());
    let fast = if T::MAX_DIGITS <= 7 {
        digits_fast(a, b, c, T::MAX_DIGITS, T::MAX_DIGITS, 1e-5)
    } else {
        digits_fast(a, b, c, T::MAX_DIGITS, 10, 1e-3)
    };
    match fast {
        Some(d) => d,
        None => digits_exact(s),
    }
}

/// The digits of finite samples that are not all equal, decided without a logarithm or a
/// division, or `None` when that cannot be done safely (then [`digits_exact`] decides).
///
/// With `S = Σ R_i` and `N = Σ(3R_i − S)²` (the quantities of `noise_full`), the `q/2` of
/// [`estimate`] is `N / (2S²)` up to rounding, and `⌊C + 0.5⌋ ≥ k + 1` exactly when
/// `N ≤ K·S²·0.01^k` (`K = 0.6/τ²`; `k = 0` is the computed-zero test). Both ways of computing
/// `q` carry a relative rounding error of about `10u/√q` (`u = 2⁻⁵³`): below 4e-7 for `f32`
/// samples (`q ≥ 1e-15` when they differ), below 1e-4 for `f64` samples while `q > 2·T₁₁`.
/// Where `N` lies within `margin` (`1e-5` for `f32`, `1e-3` for `f64`: 25 and 10 times those
/// errors) of a threshold, at a threshold past `last` (`f64`: 10 digits; beyond, only the exact
/// formula is precise enough), or at extreme magnitudes, the answer is `None`, so the result is
/// always the one of the logarithm. The device header (`kernels/stochastic.cuh`,
/// `stoch_dsa_digits_fast`) does the same.
#[inline(always)]
fn digits_fast(a: f64, b: f64, c: f64, max_digits: u32, last: u32, margin: f64) -> Option<u32> {
    let big = a.abs().max(b.abs()).max(c.abs());
    if !(big < 1e150 && big > 1e-150) {
        return None;
    }
    let sum = a + b + c;
    let (da, db, dc) = (3.0 * a - sum, 3.0 * b - sum, 3.0 * c - sum);
    let n = da * da + db * db + dc * dc;
    let mut t = k() * (sum * sum);
    for d in 0..max_digits {
        if n > t * (1.0 + margin) {
            return Some(d);
        }
        if n >= t * (1.0 - margin) || d == last {
            return None;
        }
        t *= 0.01;
    }
    Some(max_digits)
}

/// [`digits`] by its definition: the computed-zero test, then `⌊C + 0.5⌋` of [`estimate`].
fn digits_exact<T: StochFloat>(s: &[T; 3]) -> u32 {
    if s.iter().any(|x| !x.is_finite()) {
        return 0;
    }
    if s[0] == s[1] && s[1] == s[2] {
        return identical_digits(s[0]);
    }
    if is_noise(s) {
        return 0;
    }
    let c = estimate(s);
    if c.is_nan() {
        return 0;
    }
    ((c + 0.5).floor().max(0.0) as u32).min(T::MAX_DIGITS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Sf32, Sf64};

    /// The threshold path of `digits` against the logarithm, on values built to sit on and
    /// around every digit boundary (samples m·(1 + d·u_i) with d from 1 to 10^(−16)), both
    /// types, at the default confidence (a test must not change the process-wide one).
    #[test]
    fn fast_digits_equal_the_definition() {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 11) as f64 / (1u64 << 53) as f64
        };
        let mut checked = [0usize; 2];
        for i in 0..800_000 {
            let m = (next() - 0.5) * 10f64.powf(next() * 60.0 - 30.0);
            let d = 10f64.powf(-(next() * 16.0)) * (0.5 + next());
            let u = [next() - 0.5, next() - 0.5, next() - 0.5];
            let s64 = [
                m * (1.0 + d * u[0]),
                m * (1.0 + d * u[1]),
                m * (1.0 + d * u[2]),
            ];
            if i % 2 == 0 {
                assert_eq!(digits(&s64), digits_exact(&s64), "{s64:?}");
                checked[0] += 1;
            } else {
                let s32 = s64.map(|v| v as f32);
                assert_eq!(digits(&s32), digits_exact(&s32), "{s32:?}");
                checked[1] += 1;
            }
        }
        assert_eq!(checked, [400_000, 400_000]);
    }

    #[test]
    fn constants_match_statrs() {
        let tau = student_tau(0.95);
        assert!((tau - TAU_95).abs() < 1e-9, "{tau}");
        assert_eq!(f64::from_bits(TAU.load(Ordering::Relaxed)), TAU_95);
        assert!((k() - 0.6 / (TAU_95 * TAU_95)).abs() < 1e-15);
        assert!(
            (f64::from_bits(LOG_OFFSET.load(Ordering::Relaxed)) - (3f64.sqrt() / TAU_95).log10())
                .abs()
                < 1e-15
        );
    }

    #[test]
    fn ladder_of_spreads() {
        // Samples (1 − d, 1, 1 + d): σ = d, C = log10(√3/(τ·d)) = −log10(d) − 0.395.
        for p in 1..=16 {
            let d = 10f64.powi(-p);
            let x = Sf64::from_samples([1.0 - d, 1.0, 1.0 + d]);
            let c = x.digits_estimate();
            let expect = (p as f64 - 0.395_175_667_911_738_75).min(99.0);
            if p <= 14 {
                assert!((c - expect).abs() < 1e-3 * p as f64, "d=1e-{p}: C={c}");
            }
            let want = if 1.0 - d == 1.0 && 1.0 + d == 1.0 {
                15
            } else {
                ((expect + 0.5).floor() as u32).min(15)
            };
            if p <= 14 {
                assert_eq!(x.digits(), want, "d=1e-{p}");
            }
        }
    }

    #[test]
    fn computed_zero_threshold_both_sides() {
        // Σ(R−m)² = 2d² for (m−d, m, m+d); the threshold is 2d² = K·m².
        let kk = 0.6 / (TAU_95 * TAU_95);
        let d_edge = (kk / 2.0f64).sqrt();
        let below = Sf64::from_samples([1.0 - d_edge * 0.99, 1.0, 1.0 + d_edge * 0.99]);
        let above = Sf64::from_samples([1.0 - d_edge * 1.01, 1.0, 1.0 + d_edge * 1.01]);
        assert!(!below.is_computed_zero());
        assert_eq!(below.digits(), 1);
        assert!(above.is_computed_zero());
        assert!(above.is_numerical_noise());
        assert_eq!(above.digits(), 0);
        assert!((below.digits_estimate() - 0.5).abs() < 0.01);
    }

    #[test]
    fn special_values() {
        assert_eq!(Sf64::new(0.0).digits(), 15);
        assert_eq!(Sf64::new(-0.0).digits(), 15);
        assert_eq!(Sf64::from_samples([0.0, -0.0, 0.0]).digits(), 15);
        assert_eq!(Sf32::new(0.0).digits(), 7);
        assert!(Sf64::new(0.0).is_exact_zero());
        assert!(!Sf64::new(0.0).is_numerical_noise());
        assert_eq!(Sf64::new(2.5).digits(), 15);
        assert_eq!(Sf32::new(2.5).digits(), 7);
        assert_eq!(Sf64::from_samples([f64::NAN, 1.0, 1.0]).digits(), 0);
        assert_eq!(Sf64::new(f64::INFINITY).digits(), 0);
        assert!(Sf64::new(f64::NAN).digits_estimate().is_nan());
        assert!(!Sf64::new(f64::NAN).is_computed_zero());
        assert_eq!(Sf64::new(1.0).digits_estimate(), f64::INFINITY);
    }

    #[test]
    fn subnormals_hold_fewer_digits() {
        // k·2^-1074 holds ⌊log10 k⌋ digits (at least one), the type's maximum from the
        // smallest normal number up.
        let tiny = f64::from_bits(1);
        for (k, want) in [
            (1u64, 1),
            (9, 1),
            (99, 1),
            (100, 2),
            (106_000, 5),
            (999_999, 5),
            (1_000_000, 6),
            (1 << 51, 15),
        ] {
            let x = Sf64::new(k as f64 * tiny);
            assert_eq!(x.digits(), want, "k = {k}");
            assert_eq!(digits_exact(&x.s()), want, "k = {k}");
        }
        assert_eq!(Sf64::new(f64::MIN_POSITIVE).digits(), 15);
        assert_eq!(Sf32::new(f32::from_bits(123_456)).digits(), 5);
        assert_eq!(Sf32::new(f32::MIN_POSITIVE).digits(), 7);
        assert_eq!(Sf32::new(-f32::from_bits(1)).digits(), 1);
    }

    #[test]
    fn confidence_changes_tau() {
        let t99 = student_tau(0.99);
        assert!((t99 - 9.924843).abs() < 1e-5, "{t99}");
    }
}
