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
//! Only rounding *up* is implemented per operation: rounding down uses the sign identities
//! `RD(a+b) = −RU(−a−b)`, `RD(a·b) = −RU((−a)·b)`, `RD(a/b) = −RU((−a)/b)`,
//! `RD(a·b+c) = −RU((−a)·b−c)`. A random bit becomes a sign mask that is XORed into the operands
//! and the result, so the random direction never enters control flow.
//!
//! For `f32`, products, quotients and square roots are checked exactly in `f64`, where the
//! product of two `f32` values is always exact.
//!
//! When the target has AVX-512 (`-C target-cpu=native` on a recent x86-64), the three samples are
//! computed by one instruction with embedded round-toward-+∞ (`vaddpd {ru-sae}` and friends) on
//! sign-masked operands; the portable path above is the always-correct fallback, and both are
//! tested against the same oracle.

/// Random-direction kernels on the three samples of a value. `dir` holds two random bits: bit 0
/// chooses the direction of sample `x`, bit 1 that of sample `y`, and `z` takes the opposite of
/// `y`. A set direction bit means "round down".
#[doc(hidden)]
pub trait Kernels: Sized + Copy {
    /// `a + b`, randomly rounded.
    fn add3(a: [Self; 3], b: [Self; 3], dir: u32) -> [Self; 3];
    /// `a * b`, randomly rounded.
    fn mul3(a: [Self; 3], b: [Self; 3], dir: u32) -> [Self; 3];
    /// `a / b`, randomly rounded.
    fn div3(a: [Self; 3], b: [Self; 3], dir: u32) -> [Self; 3];
    /// `a * b + c` with one random rounding.
    fn fma3(a: [Self; 3], b: [Self; 3], c: [Self; 3], dir: u32) -> [Self; 3];
    /// `sqrt(a)`, randomly rounded.
    fn sqrt3(a: [Self; 3], dir: u32) -> [Self; 3];
    /// Round-up of `a + b` for one sample (portable path).
    fn ru_add(a: Self, b: Self) -> Self;
    /// Round-up of `a * b` for one sample (portable path).
    fn ru_mul(a: Self, b: Self) -> Self;
    /// Round-up of `a / b` for one sample (portable path).
    fn ru_div(a: Self, b: Self) -> Self;
    /// Round-up of `a * b + c` for one sample (portable path).
    fn ru_fma(a: Self, b: Self, c: Self) -> Self;
    /// Square root rounded up (`up`) or down, one sample (portable path).
    fn rr_sqrt(a: Self, up: bool) -> Self;
    /// Flips the sign of `a` when `neg` is true (exact, branch-free).
    fn flip(a: Self, neg: bool) -> Self;
}

/// The direction of each of the three samples for the two random bits `dir`:
/// `[x, y, z]`, `true` meaning "round down".
#[inline(always)]
pub(crate) fn directions(dir: u32) -> [bool; 3] {
    let y = dir & 2 != 0;
    [dir & 1 != 0, y, !y]
}

/// Moves `s` one unit toward +∞ when `inc` is true. `s` must be finite and non-zero whenever
/// `inc` is true (a zero or infinite round-to-nearest result is exact or has no error term).
macro_rules! bump_up {
    ($s:expr, $inc:expr, $t:ty, $bits:ty) => {{
        let s: $t = $s;
        let b = s.to_bits();
        // +1 on the magnitude for a positive value, −1 for a negative one.
        let step: $bits = if s.is_sign_negative() { <$bits>::MAX } else { 1 };
        let step = if $inc { step } else { 0 };
        <$t>::from_bits(b.wrapping_add(step))
    }};
}

/// Round-to-nearest overflowed to −∞ although both operands were finite: the round-up is −MAX.
#[inline(always)]
fn fix_neg_overflow_f64(r: f64, finite_inputs: bool) -> f64 {
    if r == f64::NEG_INFINITY && finite_inputs {
        -f64::MAX
    } else {
        r
    }
}

#[inline(always)]
fn fix_neg_overflow_f32(r: f32, finite_inputs: bool) -> f32 {
    if r == f32::NEG_INFINITY && finite_inputs {
        -f32::MAX
    } else {
        r
    }
}

/// TwoSum: `a + b = s + e` exactly (for finite, non-overflowing inputs).
#[inline(always)]
fn two_sum_f64(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    let e = (a - (s - bb)) + (b - bb);
    (s, e)
}

#[inline(always)]
fn two_sum_f32(a: f32, b: f32) -> (f32, f32) {
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
    const HUGE: f64 = 6.696928794914171e299; // 2^996: Veltkamp's split would overflow above.
    if a.abs() >= HUGE || b.abs() >= HUGE || !p.is_finite() {
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

#[cfg(not(target_feature = "fma"))]
#[cold]
#[inline(never)]
fn prod_err_slow_f64(a: f64, b: f64, p: f64) -> f64 {
    // Software FMA from the C library: slow but correctly rounded.
    a.mul_add(b, -p)
}

const TWO_M969: f64 = 2.0041683600089728e-292; // 2^-969: below it the product error may underflow.
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
    let mut len = 0;
    for &x in &t {
        let mut q = x;
        for hi in h.iter_mut().take(len) {
            let (s, e) = two_sum_f64(q, *hi);
            *hi = e;
            q = s;
        }
        h[len] = q;
        len += 1;
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
    if u1.abs() < TWO_M969 || !u1.is_finite() || !r1.is_finite() {
        return fma_err_tiny_f64(a, x, b, r1);
    }
    let u2 = prod_err_f64(a, x, u1);
    sign_of_sum4_f64([u2, u1, b, -r1])
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

impl Kernels for f64 {
    #[inline(always)]
    fn add3(a: [f64; 3], b: [f64; 3], dir: u32) -> [f64; 3] {
        #[cfg(all(target_arch = "x86_64", target_feature = "avx512f"))]
        {
            // SAFETY: the target has AVX-512F (checked at compile time above).
            unsafe { avx512::add_f64(a, b, dir) }
        }
        #[cfg(not(all(target_arch = "x86_64", target_feature = "avx512f")))]
        {
            let d = directions(dir);
            core::array::from_fn(|i| {
                f64::flip(
                    f64::ru_add(f64::flip(a[i], d[i]), f64::flip(b[i], d[i])),
                    d[i],
                )
            })
        }
    }
    #[inline(always)]
    fn mul3(a: [f64; 3], b: [f64; 3], dir: u32) -> [f64; 3] {
        #[cfg(all(target_arch = "x86_64", target_feature = "avx512f"))]
        {
            // SAFETY: the target has AVX-512F.
            unsafe { avx512::mul_f64(a, b, dir) }
        }
        #[cfg(not(all(target_arch = "x86_64", target_feature = "avx512f")))]
        {
            let d = directions(dir);
            core::array::from_fn(|i| f64::flip(f64::ru_mul(f64::flip(a[i], d[i]), b[i]), d[i]))
        }
    }
    #[inline(always)]
    fn div3(a: [f64; 3], b: [f64; 3], dir: u32) -> [f64; 3] {
        #[cfg(all(target_arch = "x86_64", target_feature = "avx512f"))]
        {
            // SAFETY: the target has AVX-512F.
            unsafe { avx512::div_f64(a, b, dir) }
        }
        #[cfg(not(all(target_arch = "x86_64", target_feature = "avx512f")))]
        {
            let d = directions(dir);
            core::array::from_fn(|i| f64::flip(f64::ru_div(f64::flip(a[i], d[i]), b[i]), d[i]))
        }
    }
    #[inline(always)]
    fn fma3(a: [f64; 3], b: [f64; 3], c: [f64; 3], dir: u32) -> [f64; 3] {
        #[cfg(all(target_arch = "x86_64", target_feature = "avx512f"))]
        {
            // SAFETY: the target has AVX-512F.
            unsafe { avx512::fma_f64(a, b, c, dir) }
        }
        #[cfg(not(all(target_arch = "x86_64", target_feature = "avx512f")))]
        {
            let d = directions(dir);
            core::array::from_fn(|i| {
                f64::flip(
                    f64::ru_fma(f64::flip(a[i], d[i]), b[i], f64::flip(c[i], d[i])),
                    d[i],
                )
            })
        }
    }
    #[inline(always)]
    fn sqrt3(a: [f64; 3], dir: u32) -> [f64; 3] {
        #[cfg(all(target_arch = "x86_64", target_feature = "avx512f"))]
        {
            // SAFETY: the target has AVX-512F.
            unsafe { avx512::sqrt_f64(a, dir) }
        }
        #[cfg(not(all(target_arch = "x86_64", target_feature = "avx512f")))]
        {
            let d = directions(dir);
            core::array::from_fn(|i| f64::rr_sqrt(a[i], !d[i]))
        }
    }
    #[inline(always)]
    fn ru_add(a: f64, b: f64) -> f64 {
        let (s, e) = two_sum_f64(a, b);
        let r = bump_up!(s, e > 0.0, f64, u64);
        fix_neg_overflow_f64(r, a.is_finite() && b.is_finite())
    }
    #[inline(always)]
    fn ru_mul(a: f64, b: f64) -> f64 {
        let p = a * b;
        let e = if p.abs() < TWO_M969 {
            prod_err_tiny_f64(a, b, p)
        } else {
            prod_err_f64(a, b, p)
        };
        // A zero p can only be bumped when it is +0 (the exact product is positive).
        let r = bump_up!(p, e > 0.0, f64, u64);
        fix_neg_overflow_f64(r, a.is_finite() && b.is_finite())
    }
    #[inline(always)]
    fn ru_div(a: f64, b: f64) -> f64 {
        let q = a / b;
        // sign(a/b − q) = sign(a − q·b)·sign(b).
        let rem = div_rem_f64(a, b, q);
        let e = if b < 0.0 { -rem } else { rem };
        let r = bump_up!(q, e > 0.0, f64, u64);
        fix_neg_overflow_f64(r, a.is_finite() && b.is_finite() && b != 0.0)
    }
    #[inline(always)]
    fn ru_fma(a: f64, b: f64, c: f64) -> f64 {
        let r1 = a.mul_add(b, c);
        let e = fma_err_f64(a, b, c, r1);
        let r = bump_up!(r1, e > 0.0, f64, u64);
        fix_neg_overflow_f64(r, a.is_finite() && b.is_finite() && c.is_finite())
    }
    #[inline(always)]
    fn rr_sqrt(a: f64, up: bool) -> f64 {
        let q = a.sqrt();
        if !(q > 0.0) || !q.is_finite() {
            return q;
        }
        let rem = sqrt_rem_f64(a, q);
        if up {
            if rem > 0.0 {
                q.next_up()
            } else {
                q
            }
        } else if rem < 0.0 {
            q.next_down()
        } else {
            q
        }
    }
    #[inline(always)]
    fn flip(a: f64, neg: bool) -> f64 {
        f64::from_bits(a.to_bits() ^ ((neg as u64) << 63))
    }
}

impl Kernels for f32 {
    #[inline(always)]
    fn add3(a: [f32; 3], b: [f32; 3], dir: u32) -> [f32; 3] {
        #[cfg(all(target_arch = "x86_64", target_feature = "avx512f"))]
        {
            // SAFETY: the target has AVX-512F.
            unsafe { avx512::add_f32(a, b, dir) }
        }
        #[cfg(not(all(target_arch = "x86_64", target_feature = "avx512f")))]
        {
            let d = directions(dir);
            core::array::from_fn(|i| {
                f32::flip(
                    f32::ru_add(f32::flip(a[i], d[i]), f32::flip(b[i], d[i])),
                    d[i],
                )
            })
        }
    }
    #[inline(always)]
    fn mul3(a: [f32; 3], b: [f32; 3], dir: u32) -> [f32; 3] {
        #[cfg(all(target_arch = "x86_64", target_feature = "avx512f"))]
        {
            // SAFETY: the target has AVX-512F.
            unsafe { avx512::mul_f32(a, b, dir) }
        }
        #[cfg(not(all(target_arch = "x86_64", target_feature = "avx512f")))]
        {
            let d = directions(dir);
            core::array::from_fn(|i| f32::flip(f32::ru_mul(f32::flip(a[i], d[i]), b[i]), d[i]))
        }
    }
    #[inline(always)]
    fn div3(a: [f32; 3], b: [f32; 3], dir: u32) -> [f32; 3] {
        #[cfg(all(target_arch = "x86_64", target_feature = "avx512f"))]
        {
            // SAFETY: the target has AVX-512F.
            unsafe { avx512::div_f32(a, b, dir) }
        }
        #[cfg(not(all(target_arch = "x86_64", target_feature = "avx512f")))]
        {
            let d = directions(dir);
            core::array::from_fn(|i| f32::flip(f32::ru_div(f32::flip(a[i], d[i]), b[i]), d[i]))
        }
    }
    #[inline(always)]
    fn fma3(a: [f32; 3], b: [f32; 3], c: [f32; 3], dir: u32) -> [f32; 3] {
        #[cfg(all(target_arch = "x86_64", target_feature = "avx512f"))]
        {
            // SAFETY: the target has AVX-512F.
            unsafe { avx512::fma_f32(a, b, c, dir) }
        }
        #[cfg(not(all(target_arch = "x86_64", target_feature = "avx512f")))]
        {
            let d = directions(dir);
            core::array::from_fn(|i| {
                f32::flip(
                    f32::ru_fma(f32::flip(a[i], d[i]), b[i], f32::flip(c[i], d[i])),
                    d[i],
                )
            })
        }
    }
    #[inline(always)]
    fn sqrt3(a: [f32; 3], dir: u32) -> [f32; 3] {
        #[cfg(all(target_arch = "x86_64", target_feature = "avx512f"))]
        {
            // SAFETY: the target has AVX-512F.
            unsafe { avx512::sqrt_f32(a, dir) }
        }
        #[cfg(not(all(target_arch = "x86_64", target_feature = "avx512f")))]
        {
            let d = directions(dir);
            core::array::from_fn(|i| f32::rr_sqrt(a[i], !d[i]))
        }
    }
    #[inline(always)]
    fn ru_add(a: f32, b: f32) -> f32 {
        let (s, e) = two_sum_f32(a, b);
        let r = bump_up!(s, e > 0.0, f32, u32);
        fix_neg_overflow_f32(r, a.is_finite() && b.is_finite())
    }
    #[inline(always)]
    fn ru_mul(a: f32, b: f32) -> f32 {
        // The product of two f32 values is exact in f64.
        let x = a as f64 * b as f64;
        let p = x as f32;
        let e = x - p as f64;
        let r = if p == 0.0 {
            if e > 0.0 {
                f32::from_bits(1)
            } else {
                p
            }
        } else {
            bump_up!(p, e > 0.0, f32, u32)
        };
        fix_neg_overflow_f32(r, a.is_finite() && b.is_finite())
    }
    #[inline(always)]
    fn ru_div(a: f32, b: f32) -> f32 {
        let q = a / b;
        // q·b is exact in f64 and a − q·b is exact there too (Sterbenz).
        let rem = a as f64 - q as f64 * b as f64;
        let e = if b < 0.0 { -rem } else { rem };
        let r = if q == 0.0 {
            if e > 0.0 && b.is_finite() {
                f32::from_bits(1)
            } else {
                q
            }
        } else {
            bump_up!(q, e > 0.0 && q.is_finite(), f32, u32)
        };
        fix_neg_overflow_f32(r, a.is_finite() && b.is_finite() && b != 0.0)
    }
    #[inline(always)]
    fn ru_fma(a: f32, b: f32, c: f32) -> f32 {
        let r = a.mul_add(b, c);
        // a·b is exact in f64; a·b + c = s + e exactly by TwoSum in f64.
        let (s, e) = two_sum_f64(a as f64 * b as f64, c as f64);
        let err = (s - r as f64) + e;
        let out = if r == 0.0 {
            if err > 0.0 {
                f32::from_bits(1)
            } else {
                r
            }
        } else {
            bump_up!(r, err > 0.0 && r.is_finite(), f32, u32)
        };
        fix_neg_overflow_f32(out, a.is_finite() && b.is_finite() && c.is_finite())
    }
    #[inline(always)]
    fn rr_sqrt(a: f32, up: bool) -> f32 {
        let q = a.sqrt();
        if !(q > 0.0) || !q.is_finite() {
            return q;
        }
        let rem = a as f64 - q as f64 * q as f64;
        if up {
            if rem > 0.0 {
                q.next_up()
            } else {
                q
            }
        } else if rem < 0.0 {
            q.next_down()
        } else {
            q
        }
    }
    #[inline(always)]
    fn flip(a: f32, neg: bool) -> f32 {
        f32::from_bits(a.to_bits() ^ ((neg as u32) << 31))
    }
}

/// Rounds one sample of a library result (a faithful approximation) one unit toward +∞ or −∞.
/// Zeros, infinities and NaN are returned unchanged.
#[inline(always)]
pub(crate) fn nudge<T: crate::StochFloat>(r: T, down: bool) -> T {
    if r == T::ZERO || !r.is_finite() {
        r
    } else if down {
        r.next_down()
    } else {
        let u = r.next_up();
        if u.is_finite() {
            u
        } else {
            r
        }
    }
}

/// The portable path, used directly by tests to check both paths against the same oracle.
#[doc(hidden)]
pub fn portable3<T: Kernels>(op: u8, a: [T; 3], b: [T; 3], c: [T; 3], dir: u32) -> [T; 3] {
    let d = directions(dir);
    core::array::from_fn(|i| match op {
        0 => T::flip(T::ru_add(T::flip(a[i], d[i]), T::flip(b[i], d[i])), d[i]),
        1 => T::flip(T::ru_mul(T::flip(a[i], d[i]), b[i]), d[i]),
        2 => T::flip(T::ru_div(T::flip(a[i], d[i]), b[i]), d[i]),
        3 => T::flip(
            T::ru_fma(T::flip(a[i], d[i]), b[i], T::flip(c[i], d[i])),
            d[i],
        ),
        _ => T::rr_sqrt(a[i], !d[i]),
    })
}

#[cfg(all(target_arch = "x86_64", target_feature = "avx512f"))]
mod avx512 {
    //! One AVX-512 instruction with embedded round-toward-+∞ per operation, on sign-masked
    //! operands (lanes 0-2 hold x, y, z; lane 3 is masked off).
    use core::arch::x86_64::*;

    const RU: i32 = _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC;
    const RD: i32 = _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC;

    /// Sign masks for the four values of the two random bits (lanes x, y, z, unused).
    static MASK_F64: [[u64; 8]; 4] = {
        const S: u64 = 1 << 63;
        [
            [0, 0, S, 0, 0, 0, 0, 0],
            [S, 0, S, 0, 0, 0, 0, 0],
            [0, S, 0, 0, 0, 0, 0, 0],
            [S, S, 0, 0, 0, 0, 0, 0],
        ]
    };
    static MASK_F32: [[u32; 16]; 4] = {
        const S: u32 = 1 << 31;
        [
            [0, 0, S, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
            [S, 0, S, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
            [0, S, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
            [S, S, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        ]
    };
    /// Lanes rounded up (bit set) for the four values of the two random bits.
    const UP_F: [u8; 4] = [0b011, 0b010, 0b101, 0b100];

    #[inline(always)]
    unsafe fn ld64(a: &[f64; 3]) -> __m512d {
        // SAFETY: reads exactly the three lanes of `a`; the other lanes are zero.
        unsafe { _mm512_maskz_loadu_pd(0b0111, a.as_ptr()) }
    }
    #[inline(always)]
    unsafe fn st64(v: __m512d) -> [f64; 3] {
        let mut out = [0.0f64; 3];
        // SAFETY: writes exactly the three lanes of `out`.
        unsafe { _mm512_mask_storeu_pd(out.as_mut_ptr(), 0b0111, v) };
        out
    }
    #[inline(always)]
    unsafe fn ld32(a: &[f32; 3]) -> __m512 {
        // SAFETY: reads exactly the three lanes of `a`.
        unsafe { _mm512_maskz_loadu_ps(0b0111, a.as_ptr()) }
    }
    #[inline(always)]
    unsafe fn st32(v: __m512) -> [f32; 3] {
        let mut out = [0.0f32; 3];
        // SAFETY: writes exactly the three lanes of `out`.
        unsafe { _mm512_mask_storeu_ps(out.as_mut_ptr(), 0b0111, v) };
        out
    }
    #[inline(always)]
    unsafe fn m64(dir: u32) -> __m512d {
        // SAFETY: index is masked to 0..4; the table rows are 64 bytes.
        unsafe { _mm512_loadu_pd(MASK_F64[(dir & 3) as usize].as_ptr() as *const f64) }
    }
    #[inline(always)]
    unsafe fn m32(dir: u32) -> __m512 {
        // SAFETY: index is masked to 0..4; the table rows are 64 bytes.
        unsafe { _mm512_loadu_ps(MASK_F32[(dir & 3) as usize].as_ptr() as *const f32) }
    }

    #[inline(always)]
    pub(super) unsafe fn add_f64(a: [f64; 3], b: [f64; 3], dir: u32) -> [f64; 3] {
        // SAFETY: AVX-512F is enabled for this target; pointers come from local arrays.
        unsafe {
            let m = m64(dir);
            let x = _mm512_xor_pd(ld64(&a), m);
            let y = _mm512_xor_pd(ld64(&b), m);
            st64(_mm512_xor_pd(_mm512_add_round_pd::<RU>(x, y), m))
        }
    }
    #[inline(always)]
    pub(super) unsafe fn mul_f64(a: [f64; 3], b: [f64; 3], dir: u32) -> [f64; 3] {
        // SAFETY: as above.
        unsafe {
            let m = m64(dir);
            let x = _mm512_xor_pd(ld64(&a), m);
            st64(_mm512_xor_pd(_mm512_mul_round_pd::<RU>(x, ld64(&b)), m))
        }
    }
    #[inline(always)]
    pub(super) unsafe fn div_f64(a: [f64; 3], b: [f64; 3], dir: u32) -> [f64; 3] {
        // SAFETY: as above. Lane 3 divides 0 by 0 but is never stored; NO_EXC suppresses flags.
        unsafe {
            let m = m64(dir);
            let x = _mm512_xor_pd(ld64(&a), m);
            st64(_mm512_xor_pd(_mm512_div_round_pd::<RU>(x, ld64(&b)), m))
        }
    }
    #[inline(always)]
    pub(super) unsafe fn fma_f64(a: [f64; 3], b: [f64; 3], c: [f64; 3], dir: u32) -> [f64; 3] {
        // SAFETY: as above.
        unsafe {
            let m = m64(dir);
            let x = _mm512_xor_pd(ld64(&a), m);
            let z = _mm512_xor_pd(ld64(&c), m);
            st64(_mm512_xor_pd(
                _mm512_fmadd_round_pd::<RU>(x, ld64(&b), z),
                m,
            ))
        }
    }
    #[inline(always)]
    pub(super) unsafe fn sqrt_f64(a: [f64; 3], dir: u32) -> [f64; 3] {
        // SAFETY: as above.
        unsafe {
            let v = ld64(&a);
            let up = _mm512_sqrt_round_pd::<RU>(v);
            let down = _mm512_sqrt_round_pd::<RD>(v);
            st64(_mm512_mask_blend_pd(UP_F[(dir & 3) as usize], down, up))
        }
    }
    #[inline(always)]
    pub(super) unsafe fn add_f32(a: [f32; 3], b: [f32; 3], dir: u32) -> [f32; 3] {
        // SAFETY: as above.
        unsafe {
            let m = m32(dir);
            let x = _mm512_xor_ps(ld32(&a), m);
            let y = _mm512_xor_ps(ld32(&b), m);
            st32(_mm512_xor_ps(_mm512_add_round_ps::<RU>(x, y), m))
        }
    }
    #[inline(always)]
    pub(super) unsafe fn mul_f32(a: [f32; 3], b: [f32; 3], dir: u32) -> [f32; 3] {
        // SAFETY: as above.
        unsafe {
            let m = m32(dir);
            let x = _mm512_xor_ps(ld32(&a), m);
            st32(_mm512_xor_ps(_mm512_mul_round_ps::<RU>(x, ld32(&b)), m))
        }
    }
    #[inline(always)]
    pub(super) unsafe fn div_f32(a: [f32; 3], b: [f32; 3], dir: u32) -> [f32; 3] {
        // SAFETY: as above.
        unsafe {
            let m = m32(dir);
            let x = _mm512_xor_ps(ld32(&a), m);
            st32(_mm512_xor_ps(_mm512_div_round_ps::<RU>(x, ld32(&b)), m))
        }
    }
    #[inline(always)]
    pub(super) unsafe fn fma_f32(a: [f32; 3], b: [f32; 3], c: [f32; 3], dir: u32) -> [f32; 3] {
        // SAFETY: as above.
        unsafe {
            let m = m32(dir);
            let x = _mm512_xor_ps(ld32(&a), m);
            let z = _mm512_xor_ps(ld32(&c), m);
            st32(_mm512_xor_ps(
                _mm512_fmadd_round_ps::<RU>(x, ld32(&b), z),
                m,
            ))
        }
    }
    #[inline(always)]
    pub(super) unsafe fn sqrt_f32(a: [f32; 3], dir: u32) -> [f32; 3] {
        // SAFETY: as above.
        unsafe {
            let v = ld32(&a);
            let up = _mm512_sqrt_round_ps::<RU>(v);
            let down = _mm512_sqrt_round_ps::<RD>(v);
            st32(_mm512_mask_blend_ps(
                UP_F[(dir & 3) as usize] as u16,
                down,
                up,
            ))
        }
    }
}
