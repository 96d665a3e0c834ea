//! The assembly kernels against the portable path, bit for bit, every operation and type, on
//! seeded random operands: ordinary values, raw bit patterns (NaN, infinities, subnormals,
//! signed zeros), values on both sides of the kernels' bounds (tiny, huge, the largest finite
//! ones), and operands built to make the error zero or to straddle a tie (exact quotients and
//! roots, sums and fused multiply-adds that cancel). Also: the kernels leave the upper halves of
//! the vector registers unused, and the flags lane is the operands' OR.

use super::super::tests::{can_run, seed, Rng};
use super::*;
use crate::arch::portable::lanes4 as portable;
use crate::runtime::rng::dir_word;

const CASES: u64 = 40_000;

macro_rules! kernels_test {
    (
        $name:ident,
        $t:ident,
        $bits:ident,
        [$add:ident, $mul:ident, $div:ident, $fma:ident, $sqrt:ident],
        bounds: $bounds:expr,
        specials: $specials:expr
    ) => {
        #[test]
        fn $name() {
            if !can_run() {
                return;
            }
            let seed = seed();
            let mut rng = Rng(seed | 1);
            let specials: &[$t] = &$specials;
            // Exponents around which the kernels change paths (their bounds, and halves of
            // them, which products and quotients cross).
            let bounds: &[i32] = &$bounds;
            let value = |rng: &mut Rng| -> $t {
                let r = rng.next();
                let m = (rng.next() >> 11) as $t / (1u64 << 53) as $t + 0.5;
                let s: $t = if r & 0x10000 != 0 { -1.0 } else { 1.0 };
                let two: $t = 2.0;
                match r % 16 {
                    0 => specials[(r >> 8) as usize % specials.len()],
                    1 => $t::from_bits(rng.next() as $bits),
                    2 | 3 => {
                        let b = bounds[(r >> 8) as usize % bounds.len()];
                        let e = b + ((r >> 20) % 7) as i32 - 3;
                        // Two factors: 2^e alone can overflow where the value does not.
                        s * m * two.powi(e / 2) * two.powi(e - e / 2)
                    }
                    _ => s * m * two.powi(((r >> 8) % 40) as i32 - 20),
                }
            };
            let bits = |v: [$t; 4]| v.map(|x| if x.is_nan() { $t::NAN.to_bits() } else { x.to_bits() });
            for n in 0..CASES {
                let lanes = |rng: &mut Rng| {
                    // Flags as the library builds them (small bit sets), and any bits at all:
                    // each kernel's flags lane is the operands' OR whatever they hold.
                    let r = rng.next();
                    let f = $t::from_bits(r as $bits & if r >> 62 == 0 { !0 } else { 0xff });
                    [value(rng), value(rng), value(rng), f]
                };
                let (a, mut b, mut c) = (lanes(&mut rng), lanes(&mut rng), lanes(&mut rng));
                // Results exact or nearly so: b cancels a (a sum of zero or of one unit), c
                // cancels a·b or lands it near a tie, a dividend that is a multiple of the
                // divisor, a square.
                let (mut exact, mut square) = (a, a);
                for i in 0..3 {
                    let r = rng.next();
                    match r % 5 {
                        0 => b[i] = -a[i],
                        1 => b[i] = -a[i] * (1.0 + $t::EPSILON),
                        _ => {}
                    }
                    if r & 0x100 != 0 {
                        let p = a[i] * b[i];
                        c[i] = match (r >> 9) % 3 {
                            0 => -p,
                            1 => -(p.next_up()),
                            _ => (-p).next_down(),
                        };
                    }
                    exact[i] = b[i] * (((r >> 16) % 4096) as $t - 2048.0);
                    square[i] = a[i] * a[i];
                }
                for code in 0..4 {
                    let dir = dir_word(code) | 0x9f;
                    // SAFETY: the processor has AVX2 and FMA (`can_run`).
                    let got = unsafe {
                        [
                            $add(a, b, dir),
                            $mul(a, b, dir),
                            $div(a, b, dir),
                            $div(exact, b, dir),
                            $fma(a, b, c, dir),
                            $sqrt(a, dir),
                            $sqrt(square, dir),
                        ]
                    };
                    let want = [
                        portable::add(a, b, dir),
                        portable::mul(a, b, dir),
                        portable::div(a, b, dir),
                        portable::div(exact, b, dir),
                        portable::fma(a, b, c, dir),
                        portable::sqrt(a, dir),
                        portable::sqrt(square, dir),
                    ];
                    let what = ["a + b", "a·b", "a / b", "exact / b", "a·b + c", "sqrt(a)", "sqrt(square)"];
                    for k in 0..what.len() {
                        // NaN payloads are not compared: which operand's payload an instruction
                        // passes on depends on operand order.
                        assert_eq!(
                            bits(got[k]),
                            bits(want[k]),
                            "seed {seed:#x}, case {n}, dir {code}: {} with a = {a:?}, b = {b:?}, \
                             c = {c:?}, exact = {exact:?}, square = {square:?}: {:?} vs portable {:?}",
                            what[k],
                            got[k],
                            want[k]
                        );
                    }
                    let f = a[3].to_bits() | b[3].to_bits();
                    for (k, r) in got.iter().enumerate().take(3) {
                        assert_eq!(r[3].to_bits(), f, "seed {seed:#x}, case {n}: flags of {}", what[k]);
                    }
                    assert_eq!(got[4][3].to_bits(), f | c[3].to_bits(), "seed {seed:#x}, case {n}: flags");
                    assert_eq!(got[5][3].to_bits(), a[3].to_bits(), "seed {seed:#x}, case {n}: flags");
                }
            }
        }
    };
}

kernels_test!(
    f64_kernels_match_the_portable_path,
    f64,
    u64,
    [add_f64, mul_f64, div_f64, fma_f64, sqrt_f64],
    bounds: [-1074, -1022, -969, -484, 0, 500, 1000, 1023],
    specials: [
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
        1.0715086071862673e301,     // 2^1000
        8.0e307,
        -8.0e307,
        1.0 / 3.0,
        0.1,
    ]
);

kernels_test!(
    f32_kernels_match_the_portable_path,
    f32,
    u32,
    [add_f32, mul_f32, div_f32, fma_f32, sqrt_f32],
    bounds: [-149, -126, -100, -50, 0, 50, 100, 127],
    specials: [
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
        7.888_609e-31, // 2^-100
        1.267_650_6e30, // 2^100
        1.6e38,
        -1.6e38,
        1.0 / 3.0,
        0.1,
    ]
);

/// Every kernel, on values that take the vector code, leaves the upper halves of the vector
/// registers as they were (all zero here, after `vzeroupper`): the legacy SSE code of the
/// default target around the kernels would pay a transition on every instruction otherwise.
/// Only in a build without AVX, where the compiler's own code leaves the upper halves alone.
#[cfg(not(target_feature = "avx"))]
#[test]
fn kernels_leave_the_upper_halves_unused() {
    if !can_run() {
        return;
    }
    #[target_feature(enable = "avx")]
    unsafe fn upper_bits() -> u64 {
        let mut any: u64 = 0;
        let mut tmp = [0u64; 4];
        macro_rules! each {
            ($($n:literal),*) => {$(
                // SAFETY: AVX (this function's feature); writes `tmp` only.
                unsafe {
                    asm!(
                        concat!("vmovdqu ymmword ptr [{p}], ymm", $n),
                        p = in(reg) tmp.as_mut_ptr(),
                        options(nostack, preserves_flags),
                    );
                }
                any |= tmp[2] | tmp[3];
            )*};
        }
        each!(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
        any
    }
    let (a, b, c) = (
        [1.5, -2.5, 3.25, 0.0],
        [0.1, 0.3, -0.7, 0.0],
        [1e-3, 2.0, -5.0, 0.0],
    );
    let (x, y, z) = (
        [1.5f32, -2.5, 3.25, 0.0],
        [0.1f32, 0.3, -0.7, 0.0],
        [1e-3f32, 2.0, -5.0, 0.0],
    );
    // SAFETY: the processor has AVX2 and FMA (`can_run`); `vzeroupper` changes upper halves
    // only, which no code here keeps anything in.
    let upper = unsafe {
        asm!("vzeroupper", options(nostack, preserves_flags));
        let r = (
            add_f64(a, b, 0),
            mul_f64(a, b, dir_word(1)),
            div_f64(a, b, dir_word(2)),
            fma_f64(a, b, c, dir_word(3)),
            sqrt_f64(a, 0),
            add_f32(x, y, 0),
            mul_f32(x, y, dir_word(1)),
            div_f32(x, y, dir_word(2)),
            fma_f32(x, y, z, dir_word(3)),
            sqrt_f32(x, 0),
        );
        core::hint::black_box(r);
        upper_bits()
    };
    assert_eq!(
        upper, 0,
        "a kernel wrote the upper half of a vector register"
    );
}

/// MXCSR's control bits after each kernel are the default word: the compiler's own code after
/// a kernel assumes rounding to nearest.
#[test]
fn kernels_leave_mxcsr_at_its_default() {
    if !can_run() {
        return;
    }
    /// MXCSR without its sticky exception flags.
    fn control() -> u32 {
        let mut w = 0u32;
        // SAFETY: stores MXCSR into `w`, nothing else.
        unsafe {
            asm!(
                "stmxcsr dword ptr [{p}]",
                p = in(reg) &mut w,
                options(nostack, preserves_flags)
            );
        }
        w & !0x3f
    }
    use core::hint::black_box;
    let (a, b, c) = (
        [1.5, -2.5, 3.25, 0.0],
        [0.1, 0.3, -0.7, 0.0],
        [1e-3, 2.0, -5.0, 0.0],
    );
    let (x, y, z) = (
        a.map(|v| v as f32),
        b.map(|v| v as f32),
        c.map(|v| v as f32),
    );
    for dir in 0..4 {
        let d = dir_word(dir);
        // SAFETY: the processor has AVX2 and FMA (`can_run`).
        let words = unsafe {
            [
                (black_box(add_f64(a, b, d)), control()).1,
                (black_box(mul_f64(a, b, d)), control()).1,
                (black_box(div_f64(a, b, d)), control()).1,
                (black_box(fma_f64(a, b, c, d)), control()).1,
                (black_box(sqrt_f64(a, d)), control()).1,
                (black_box(add_f32(x, y, d)), control()).1,
                (black_box(mul_f32(x, y, d)), control()).1,
                (black_box(div_f32(x, y, d)), control()).1,
                (black_box(fma_f32(x, y, z, d)), control()).1,
                (black_box(sqrt_f32(x, d)), control()).1,
            ]
        };
        for (k, w) in words.iter().enumerate() {
            assert_eq!(
                *w, MXCSR_DEFAULT,
                "kernel {k}, direction {dir}: MXCSR {w:#x}"
            );
        }
    }
}
