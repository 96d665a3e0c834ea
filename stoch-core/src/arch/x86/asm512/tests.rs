use super::*;

/// Which state components are in use (`xgetbv` with `ecx = 1`), or `None` where the
/// processor cannot say.
#[cfg(not(target_feature = "avx"))]
fn in_use() -> Option<u64> {
    // SAFETY: `cpuid` leaf 13 exists where leaf 0 says so; `xgetbv` with `ecx = 1` runs only
    // where leaf 13 sub-leaf 1 reports it, and reads a register.
    unsafe {
        use core::arch::x86_64::__cpuid_count;
        if __cpuid_count(0, 0).eax < 13 || __cpuid_count(13, 1).eax & 4 == 0 {
            return None;
        }
        let (lo, hi): (u32, u32);
        asm!("xgetbv", in("ecx") 1, out("eax") lo, out("edx") hi, options(nomem, nostack));
        Some(u64::from(hi) << 32 | u64::from(lo))
    }
}

/// Every kernel, alone and with its pre-test, leaves the upper halves of `zmm0`-`zmm15` out
/// of use (state components 2 and 6), as the legacy-SSE code of a build for the default
/// target needs: with them in use, every SSE instruction pays for merging them (an `f32`
/// pre-test that wrote `ymm` registers did that to the `overhead` example's wave; see
/// docs/performance.md).
/// Only in a build without AVX, whose own code cannot put them
/// in use.
#[cfg(not(target_feature = "avx"))]
#[test]
fn kernels_leave_the_upper_halves_unused() {
    use std::hint::black_box;
    if !crate::runtime::path::processor_runs(
        crate::runtime::path::Path::Avx512,
        "kernels_leave_the_upper_halves_unused",
    ) {
        return;
    }
    if in_use().is_none() {
        eprintln!("skipped: this processor cannot say which state is in use");
        return;
    }
    let tab = &TABLES;
    let (a64, b64) = ([1.5, 1.5, 1.5, 0.0], [-1.25, -1.25, -1.25, 0.0]);
    let (a32, b32) = ([1.5f32, 1.5, 1.5, 0.0], [-1.25f32, -1.25, -1.25, 0.0]);
    let dir = crate::runtime::rng::dir_word(1);
    // Each kernel's name and a closure that runs it once on the arguments given.
    macro_rules! runs {
        ($($kernel:ident($($arg:expr),*);)*) => {
            [$((stringify!($kernel), &|| {
                let _ = black_box($kernel($($arg),*));
            }),)*]
        };
    }
    let runs: [(&str, &dyn Fn()); 16] = runs!(
        add_f64(black_box(a64), b64, dir);
        mul_f64(black_box(a64), b64, dir);
        div_f64(black_box(a64), b64, dir);
        add_f32(black_box(a32), b32, dir);
        mul_f32(black_box(a32), b32, dir);
        div_f32(black_box(a32), b32, dir);
        add_pre_f64(black_box(a64), b64, dir, tab);
        mul_pre_f64(black_box(a64), b64, dir, tab);
        div_pre_f64(black_box(a64), b64, dir, tab);
        add_pre_f32(black_box(a32), b32, dir, tab);
        mul_pre_f32(black_box(a32), b32, dir, tab);
        div_pre_f32(black_box(a32), b32, dir, tab);
        fma_f64(black_box(a64), b64, a64, dir);
        sqrt_f32(black_box(a32), dir);
        sqrt_f64(black_box(a64), dir);
        fma_f32(black_box(a32), b32, a32, dir);
    );
    for (name, run) in runs {
        // SAFETY: `vzeroupper` changes only upper halves, which a build without AVX holds
        // nothing in.
        unsafe { asm!("vzeroupper", options(nomem, nostack)) };
        // A processor may report a component in use that is in its initial state.
        let cleared = in_use().unwrap_or(0);
        if cleared & 0b100_0100 != 0 {
            eprintln!("skipped: `vzeroupper` did not mark the upper halves unused ({cleared:#x})");
            return;
        }
        run();
        let state = in_use().unwrap_or(0);
        assert_eq!(
            state & 0b100_0100,
            0,
            "{name} left upper halves in use: {state:#x}"
        );
    }
}

/// The kernels on whole values: samples in lanes 0-2 in order, and lane 3 the OR of the
/// operands' flags lanes (the square root keeps its operand's). Exact operations, so every
/// rounding direction gives the same samples.
#[test]
fn kernels_keep_the_lanes_in_order_and_or_the_flags() {
    if !crate::runtime::path::processor_runs(
        crate::runtime::path::Path::Avx512,
        "kernels_keep_the_lanes_in_order_and_or_the_flags",
    ) {
        return;
    }
    let (fa, fb, fc) = (0b0000_0101u64, 0b1000_0010, 0b0001_0000);
    let a = [1.5, 2.5, 4.0, f64::from_bits(fa)];
    let b = [0.25, 0.5, 0.125, f64::from_bits(fb)];
    let c = [1.0, -1.0, 8.0, f64::from_bits(fc)];
    for code in 0..4 {
        // Bits other than the direction bits are ignored.
        let dir = crate::runtime::rng::dir_word(code) | 0x9f;
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

/// The native build's `f64` sum and product kernels give, bit for bit, what the run-time
/// path's kernels give (which the oracle tests check against exact arithmetic in builds for
/// the default target), for every direction code, on random bit patterns (NaN, infinities,
/// subnormals and signed zeros among them) and inexact quotients; the flags lane is the OR
/// of the operands'.
#[cfg(all(
    target_feature = "avx512f",
    target_feature = "avx512dq",
    target_feature = "avx512vl"
))]
#[test]
fn native_f64_kernels_match_the_run_time_ones() {
    use core::arch::x86_64::__m256d;
    let seed = 0x2545_f491_4f6c_dd1d_u64;
    let mut state = seed;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let specials = [
        0.0,
        -0.0,
        1.0 / 3.0,
        -2.0 / 3.0,
        5e-324,
        -1e-310,
        f64::MAX,
        0.1,
    ];
    let mut value = |r: u64| match r % 4 {
        0 => specials[(r >> 8) as usize % specials.len()],
        1 => (r >> 11) as f64 / ((next() >> 11) | 1) as f64,
        _ => f64::from_bits(next()),
    };
    let to = |v: [f64; 4]| -> __m256d {
        // SAFETY: 32 bytes of plain data.
        unsafe { core::mem::transmute::<[f64; 4], __m256d>(v) }
    };
    let from = |v: __m256d| -> [u64; 4] {
        // SAFETY: 32 bytes of plain data.
        unsafe { core::mem::transmute::<__m256d, [u64; 4]>(v) }
    };
    for n in 0..50_000u64 {
        let (fa, fb) = (n & 0xff, (n >> 8) & 0xff);
        let a = [value(n), value(n >> 3), value(n >> 5), f64::from_bits(fa)];
        let b = [
            value(n >> 1),
            value(n >> 2),
            value(n >> 7),
            f64::from_bits(fb),
        ];
        for code in 0..4 {
            let dir = crate::runtime::rng::dir_word(code) | 0x9f;
            // SAFETY: the target has AVX-512F, DQ and VL (cfg above).
            let (add, mul) = unsafe {
                (
                    from(add_f64_native(to(a), to(b), dir)),
                    from(mul_f64_native(to(a), to(b), dir)),
                )
            };
            let want_add = add_f64(a, b, dir).map(f64::to_bits);
            let want_mul = mul_f64(a, b, dir).map(f64::to_bits);
            assert_eq!(
                add, want_add,
                "seed {seed:#x}, case {n}: {a:?} + {b:?}, dir {code}"
            );
            assert_eq!(
                mul, want_mul,
                "seed {seed:#x}, case {n}: {a:?} * {b:?}, dir {code}"
            );
            assert_eq!(add[3], fa | fb, "case {n}: flags lane");
        }
    }
}
