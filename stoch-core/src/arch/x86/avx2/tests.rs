//! The vector kernels against the portable path, bit for bit, on random operands: bit
//! patterns (NaN, infinities, subnormals, signed zeros), values at the edges of the fast
//! ranges, and operands built to make the error zero or tiny (exact quotients and roots,
//! fused multiply-adds that cancel, sums that cancel, products by signed zeros).

use super::rt;
use crate::arch::portable::lanes4 as portable;
use crate::runtime::rng::dir_word;

const CASES: u64 = 60_000;

/// Whether the processor runs the kernels; if not, says why, and fails under
/// `STOCH_REQUIRE_AVX2=1`.
pub(super) fn can_run() -> bool {
    if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma") {
        return true;
    }
    let required = std::env::var("STOCH_REQUIRE_AVX2").is_ok_and(|v| v == "1");
    assert!(
        !required,
        "STOCH_REQUIRE_AVX2=1 but this processor lacks AVX2 or FMA"
    );
    eprintln!("skipped: this processor lacks AVX2 or FMA (STOCH_REQUIRE_AVX2=1 fails here)");
    false
}

pub(super) fn seed() -> u64 {
    std::env::var("STOCH_TEST_SEED")
        .ok()
        .and_then(|s| {
            let s = s.trim();
            match s.strip_prefix("0x") {
                Some(h) => u64::from_str_radix(h, 16).ok(),
                None => s.parse().ok(),
            }
        })
        .unwrap_or(0x0A5E_D1F0_2C6B_9E37)
}

/// xorshift64.
pub(super) struct Rng(pub(super) u64);

impl Rng {
    pub(super) fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

macro_rules! kernel_test {
    (
        $name:ident,
        $t:ident,
        $bits:ident,
        [$add:ident, $mul:ident, $div:ident, $fma:ident, $sqrt:ident],
        edges: $edges:expr,
        range: $range:expr,
        $specials:expr,
        $cancel:expr
    ) => {
        #[test]
        fn $name() {
            if !can_run() {
                return;
            }
            let seed = seed();
            let mut rng = Rng(seed | 1);
            let specials: &[$t] = &$specials;
            // A sample: mostly ordinary values (most registers then take the vector code),
            // sometimes a special value or a raw bit pattern.
            let value = |rng: &mut Rng| -> $t {
                let r = rng.next();
                match r % 16 {
                    0 => specials[(r >> 8) as usize % specials.len()],
                    1 => $t::from_bits(rng.next() as $bits),
                    2 | 3 => {
                        // Near the edges of the fast ranges (products and quotients cross
                        // them), or anywhere in the exponent range.
                        let (lo, hi) = if r % 16 == 2 { $edges } else { $range };
                        let e = lo + ((r >> 8) % ((hi - lo + 1) as u64)) as i32;
                        let e = if r & 0x10000 != 0 { -e } else { e };
                        let m = (rng.next() >> 11) as $t / (1u64 << 53) as $t + 0.5;
                        // Two factors: 2^e alone can overflow where the value does not.
                        let two: $t = 2.0;
                        let s = if r & 0x20000 != 0 { -1.0 } else { 1.0 };
                        s * m * two.powi(e / 2) * two.powi(e - e / 2)
                    }
                    _ => {
                        let m = (rng.next() >> 11) as $t / (1u64 << 53) as $t;
                        let e = ((r >> 8) % 40) as i32 - 20;
                        let s = if r & 0x10000 != 0 { -1.0 } else { 1.0 };
                        s * (m + 0.5) * (2.0 as $t).powi(e)
                    }
                }
            };
            let check = |what: &str, n: u64, code: u32, got: [$t; 4], want: [$t; 4], ops: &str| {
                // NaN payloads are not compared: which operand's payload an instruction
                // passes on depends on its operand order, which the compiler picks.
                let bits = |v: [$t; 4]| v.map(|x| if x.is_nan() { $t::NAN.to_bits() } else { x.to_bits() });
                assert_eq!(
                    bits(got),
                    bits(want),
                    "seed {seed:#x}, case {n}, dir {code}: {what} of {ops}: {got:?} vs portable {want:?}"
                );
            };
            for n in 0..CASES {
                let lanes = |rng: &mut Rng| {
                    // Flag bits, sometimes with the sign bit set: the kernels never move
                    // the flags lane, whatever its sign.
                    let raw = rng.next() as $bits;
                    let f = $t::from_bits(raw & (0xff | !(<$bits>::MAX >> 1)));
                    [value(rng), value(rng), value(rng), f]
                };
                let (a, b, mut c) = (lanes(&mut rng), lanes(&mut rng), lanes(&mut rng));
                // Operands whose result is exact or nearly so: c cancels a·b (or a·b + c
                // lands near a tie), a dividend that is a multiple of the divisor, a square.
                // Sums that cancel all or most of `a`, and products by signed zeros.
                let mut a_exact = a;
                let mut x_square = a;
                let mut near = b;
                let mut minus_a = b;
                let mut zeros = b;
                for i in 0..3 {
                    let r = rng.next();
                    if r % 3 == 0 {
                        c[i] = $cancel(a[i], b[i], r >> 8);
                    }
                    a_exact[i] = b[i] * (((r >> 16) % 4096) as $t - 2048.0);
                    x_square[i] = a[i] * a[i];
                    near[i] = if r & 1 != 0 { -a[i].next_up() } else { -a[i].next_down() };
                    minus_a[i] = -a[i];
                    zeros[i] = if r & 2 != 0 { 0.0 } else { -0.0 };
                }
                for code in 0..4 {
                    let dir = dir_word(code) | 0x9f;
                    // SAFETY: the processor has AVX2 and FMA (`can_run`).
                    let (sum, sum_near, sum_zero, prod, prod_zero) = unsafe {
                        (
                            rt::$add(a, b, dir),
                            rt::$add(a, near, dir),
                            rt::$add(a, minus_a, dir),
                            rt::$mul(a, b, dir),
                            rt::$mul(a, zeros, dir),
                        )
                    };
                    check("a + b", n, code, sum, portable::add(a, b, dir), &format!("a = {a:?}, b = {b:?}"));
                    check(
                        "a + b",
                        n,
                        code,
                        sum_near,
                        portable::add(a, near, dir),
                        &format!("a = {a:?}, b = {near:?}"),
                    );
                    check(
                        "a + b",
                        n,
                        code,
                        sum_zero,
                        portable::add(a, minus_a, dir),
                        &format!("a = {a:?}, b = {minus_a:?}"),
                    );
                    check("a·b", n, code, prod, portable::mul(a, b, dir), &format!("a = {a:?}, b = {b:?}"));
                    check(
                        "a·b",
                        n,
                        code,
                        prod_zero,
                        portable::mul(a, zeros, dir),
                        &format!("a = {a:?}, b = {zeros:?}"),
                    );
                    // SAFETY: as above.
                    let (div, div_exact, fma, sqrt, sqrt_square) = unsafe {
                        (
                            rt::$div(a, b, dir),
                            rt::$div(a_exact, b, dir),
                            rt::$fma(a, b, c, dir),
                            rt::$sqrt(a, dir),
                            rt::$sqrt(x_square, dir),
                        )
                    };
                    let ops = format!("a = {a:?}, b = {b:?}, c = {c:?}");
                    check("a / b", n, code, div, portable::div(a, b, dir), &ops);
                    check(
                        "a / b",
                        n,
                        code,
                        div_exact,
                        portable::div(a_exact, b, dir),
                        &format!("a = {a_exact:?}, b = {b:?}"),
                    );
                    check("a·b + c", n, code, fma, portable::fma(a, b, c, dir), &ops);
                    check("sqrt(a)", n, code, sqrt, portable::sqrt(a, dir), &ops);
                    check(
                        "sqrt(x)",
                        n,
                        code,
                        sqrt_square,
                        portable::sqrt(x_square, dir),
                        &format!("x = {x_square:?}"),
                    );
                    let flags = a[3].to_bits() | b[3].to_bits();
                    assert_eq!(div[3].to_bits(), flags, "seed {seed:#x}, case {n}: flags");
                    assert_eq!(
                        fma[3].to_bits(),
                        flags | c[3].to_bits(),
                        "seed {seed:#x}, case {n}: flags"
                    );
                    assert_eq!(sqrt[3].to_bits(), a[3].to_bits(), "seed {seed:#x}, case {n}: flags");
                }
            }
        }
    };
}

kernel_test!(
    f64_kernels_match_the_portable_path,
    f64,
    u64,
    [add_f64, mul_f64, div_f64, fma_f64, sqrt_f64],
    edges: (470, 505),
    range: (0, 1070),
    [
        0.0,
        -0.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        f64::MAX,
        -f64::MAX,
        f64::MIN_POSITIVE,
        5e-324,
        -1e-310,
        2.004_168_360_008_973e-292, // 2^-969
        -2.004_168_360_008_974e-292,
        1.0715086071862673e301, // 2^1000
        -1.0715086071862672e301,
        1e300,
        1e-300,
        1.0 / 3.0,
        0.1,
    ],
    |a: f64, b: f64, r: u64| {
        let p = a * b;
        let e = a.mul_add(b, -p);
        match r % 4 {
            0 => -p,
            1 => -p + e * 0.5,
            2 => -(p.next_up()),
            _ => (-p).next_down() * if r & 4 != 0 { 1.0 } else { 1.0 + f64::EPSILON },
        }
    }
);

kernel_test!(
    f32_kernels_match_the_portable_path,
    f32,
    u32,
    [add_f32, mul_f32, div_f32, fma_f32, sqrt_f32],
    edges: (55, 70),
    range: (0, 148),
    [
        0.0,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        f32::MAX,
        -f32::MAX,
        f32::MIN_POSITIVE,
        1e-45,
        -1e-40,
        1e38,
        1.0 / 3.0,
        0.1,
    ],
    |a: f32, b: f32, r: u64| {
        let p = a * b;
        let e = (a as f64 * b as f64 - p as f64) as f32;
        match r % 4 {
            0 => -p,
            1 => -p + e * 0.5,
            2 => -(p.next_up()),
            _ => (-p).next_down(),
        }
    }
);

/// Every pair of values at the ends of the range (overflowing sums both ways, infinities,
/// NaN, zeros) and every direction: the sums' kernels take no portable path for them, so each
/// answer is the comparison form's own.
macro_rules! sums_at_the_ends {
    ($name:ident, $t:ident, $bits:ident, $add:ident) => {
        #[test]
        fn $name() {
            if !can_run() {
                return;
            }
            let m = $t::MAX;
            let ends = [
                m,
                -m,
                m.next_down(),
                -m.next_down(),
                m / 2.0,
                -m / 2.0,
                m * $t::EPSILON,
                -m * $t::EPSILON * 0.75,
                $t::INFINITY,
                $t::NEG_INFINITY,
                $t::NAN,
                1.0,
                -1.0,
                0.0,
                -0.0,
                $t::MIN_POSITIVE,
                -$t::from_bits(1),
            ];
            let canon = |v: [$t; 4]| {
                v.map(|x| {
                    if x.is_nan() {
                        $t::NAN.to_bits()
                    } else {
                        x.to_bits()
                    }
                })
            };
            for (i, &x) in ends.iter().enumerate() {
                for (j, &y) in ends.iter().enumerate() {
                    let a = [x, y, -x, $t::from_bits(0x3 as $bits)];
                    let b = [y, x, -y, $t::from_bits(0x5 as $bits)];
                    for code in 0..4 {
                        let dir = dir_word(code);
                        // SAFETY: the processor has AVX2 and FMA (`can_run`).
                        let got = unsafe { rt::$add(a, b, dir) };
                        let want = portable::add(a, b, dir);
                        assert_eq!(
                            canon(got),
                            canon(want),
                            "{i}, {j}, dir {code}: {a:?} + {b:?}"
                        );
                    }
                }
            }
        }
    };
}

sums_at_the_ends!(
    f64_sums_at_the_ends_match_the_portable_path,
    f64,
    u64,
    add_f64
);
sums_at_the_ends!(
    f32_sums_at_the_ends_match_the_portable_path,
    f32,
    u32,
    add_f32
);

/// The products' range test reads its bounds from the tables (`Vec64::range`), which write
/// `2⁻⁹⁶⁹` by its bits: the same bound as the portable path's.
#[test]
fn range_bounds_are_the_portable_bound() {
    use crate::arch::portable::TWO_M969;
    use crate::runtime::tables::RANGE64;
    let lo = TWO_M969.to_bits();
    assert_eq!(RANGE64.0, (1u64 << 63).wrapping_sub(lo));
    assert_eq!(
        RANGE64.1,
        (f64::INFINITY.to_bits().wrapping_sub(lo) ^ (1 << 63)).wrapping_sub(1)
    );
}
