//! GPU tests: skipped with a printed reason without a GPU, failing under `STOCH_REQUIRE_GPU=1`.
//!
//! On a GPU machine: `STOCH_REQUIRE_GPU=1 STOCH_REQUIRE_NVRTC=1 cargo test -p stoch-gpu`.

mod common;

use common::{
    api_cases, directed_f32, directed_f64, extreme_values, flag_cases, gpu_or_skip, Inputs,
};
use cudarc::driver::{LaunchConfig, PushKernelArg};
use stoch_core::{Flags, Instability, Sf32, Sf64, Stochastic};
use stoch_gpu::{reference, BinaryOp, CompareOp, Gpu, SumMode, UnaryOp};

#[test]
fn oracle_is_right_on_known_cases() {
    // Runs everywhere: the CPU oracle the GPU tests rely on.
    oracle_cases();
}

fn oracle_cases() {
    // 1/3 in f32: RD < 1/3 < RU, one ulp apart.
    let (d, u) = directed_f32("div", 1.0, 3.0);
    assert_eq!(u, d.next_up());
    assert!(f64::from(d) < 1.0 / 3.0 && f64::from(u) > 1.0 / 3.0);
    // Exact operations give RD == RU.
    assert_eq!(directed_f32("add", 1.0, 2.0), (3.0, 3.0));
    assert_eq!(directed_f64("sqrt", 4.0, 0.0), (2.0, 2.0));
    // 1 + 2^-30 is not an f32: RD = 1, RU = 1 + 2^-23.
    assert_eq!(
        directed_f32("add", 1.0, 2f32.powi(-30)),
        (1.0, 1.0f32.next_up())
    );
    let (d, u) = directed_f64("add", 1.0, 1e-30);
    assert_eq!((d, u), (1.0, 1.0f64.next_up()));
    let (d, u) = directed_f64("sub", 1.0, 1e-30);
    assert_eq!((d, u), (1.0f64.next_down(), 1.0));
}

const OPS: [(&str, BinaryOp); 4] = [
    ("add", BinaryOp::Add),
    ("sub", BinaryOp::Sub),
    ("mul", BinaryOp::Mul),
    ("div", BinaryOp::Div),
];

/// Checks each sample against (RD, RU) of the exact result; returns (ups, downs) over the
/// samples whose exact result is not representable, and checks z is opposite to y there.
fn check_samples<T: Copy + PartialEq + std::fmt::Debug>(
    what: &str,
    got: &[[T; 3]],
    want: &[(T, T)],
) -> (usize, usize) {
    let (mut up, mut down) = (0, 0);
    for (i, (s, &(rd, ru))) in got.iter().zip(want).enumerate() {
        for (k, v) in s.iter().enumerate() {
            assert!(
                *v == rd || *v == ru,
                "{what}[{i}] sample {k}: {v:?} is neither RD {rd:?} nor RU {ru:?}"
            );
        }
        if rd != ru {
            for v in s {
                if *v == ru {
                    up += 1;
                } else {
                    down += 1;
                }
            }
            assert!(
                s[1] != s[2],
                "{what}[{i}]: z must round opposite to y ({s:?})"
            );
        }
    }
    (up, down)
}

fn assert_both_directions(what: &str, up: usize, down: usize) {
    let n = up + down;
    assert!(n > 1000, "{what}: too few inexact results ({n})");
    assert!(
        up * 4 > n && down * 4 > n,
        "{what}: directions unbalanced: {up} up, {down} down"
    );
}

#[test]
fn f32_samples_are_exact_directed_roundings() {
    let _serial = common::serial();
    let Some(gpu) = gpu_or_skip("f32_samples_are_exact_directed_roundings") else {
        return;
    };
    let mut rng = Inputs(1);
    let n = 1 << 14;
    let a: Vec<f32> = (0..n).map(|_| rng.uniform(0.5, 4.0) as f32).collect();
    let b: Vec<f32> = (0..n).map(|_| rng.uniform(-3.0, 3.0) as f32).collect();
    let (da, db) = (
        gpu.upload(&a.iter().map(|&v| Sf32::new(v)).collect::<Vec<_>>())
            .unwrap(),
        gpu.upload(&b.iter().map(|&v| Sf32::new(v)).collect::<Vec<_>>())
            .unwrap(),
    );
    for (name, op) in OPS {
        let out = gpu.download(&gpu.binary(op, &da, &db).unwrap()).unwrap();
        let want: Vec<(f32, f32)> = a
            .iter()
            .zip(&b)
            .map(|(&x, &y)| directed_f32(name, x, y))
            .collect();
        let got: Vec<[f32; 3]> = out.iter().map(|v| v.samples()).collect();
        let (up, down) = check_samples(name, &got, &want);
        assert_both_directions(name, up, down);
    }
    let out = gpu
        .download(&gpu.unary(UnaryOp::Sqrt, &da).unwrap())
        .unwrap();
    let want: Vec<(f32, f32)> = a.iter().map(|&x| directed_f32("sqrt", x, 0.0)).collect();
    let (up, down) = check_samples(
        "sqrt",
        &out.iter().map(|v| v.samples()).collect::<Vec<_>>(),
        &want,
    );
    assert_both_directions("sqrt", up, down);
}

#[test]
fn f64_samples_are_exact_directed_roundings() {
    let _serial = common::serial();
    let Some(gpu) = gpu_or_skip("f64_samples_are_exact_directed_roundings") else {
        return;
    };
    let mut rng = Inputs(2);
    let n = 1 << 14;
    let a: Vec<f64> = (0..n).map(|_| rng.uniform(0.5, 4.0)).collect();
    let b: Vec<f64> = (0..n).map(|_| rng.uniform(-3.0, 3.0)).collect();
    let (da, db) = (
        gpu.upload(&a.iter().map(|&v| Sf64::new(v)).collect::<Vec<_>>())
            .unwrap(),
        gpu.upload(&b.iter().map(|&v| Sf64::new(v)).collect::<Vec<_>>())
            .unwrap(),
    );
    for (name, op) in OPS {
        let out = gpu.download(&gpu.binary(op, &da, &db).unwrap()).unwrap();
        let want: Vec<(f64, f64)> = a
            .iter()
            .zip(&b)
            .map(|(&x, &y)| directed_f64(name, x, y))
            .collect();
        let (up, down) = check_samples(
            name,
            &out.iter().map(|v| v.samples()).collect::<Vec<_>>(),
            &want,
        );
        assert_both_directions(name, up, down);
    }
    let out = gpu
        .download(&gpu.unary(UnaryOp::Sqrt, &da).unwrap())
        .unwrap();
    let want: Vec<(f64, f64)> = a.iter().map(|&x| directed_f64("sqrt", x, 0.0)).collect();
    let (up, down) = check_samples(
        "sqrt",
        &out.iter().map(|v| v.samples()).collect::<Vec<_>>(),
        &want,
    );
    assert_both_directions("sqrt", up, down);
}

#[test]
fn flags_match_the_host_checks() {
    let _serial = common::serial();
    let Some(gpu) = gpu_or_skip("flags_match_the_host_checks") else {
        return;
    };
    let (a, b) = flag_cases();
    let (da, db) = (gpu.upload(&a).unwrap(), gpu.upload(&b).unwrap());
    type HostOp = fn(Sf64, Sf64) -> Sf64;
    let cases: [(BinaryOp, HostOp); 4] = [
        (BinaryOp::Add, |x, y| x + y),
        (BinaryOp::Sub, |x, y| x - y),
        (BinaryOp::Mul, |x, y| x * y),
        (BinaryOp::Div, |x, y| x / y),
    ];
    for (op, host) in cases {
        let dev = gpu.download(&gpu.binary(op, &da, &db).unwrap()).unwrap();
        for i in 0..a.len() {
            let h = host(a[i], b[i]);
            assert_eq!(
                dev[i].flags().bits(),
                h.flags().bits(),
                "{op:?} case {i}: device vs host flags"
            );
        }
    }
    type HostUnary = fn(Sf64) -> Sf64;
    let unary: [(UnaryOp, HostUnary); 6] = [
        (UnaryOp::Sqrt, |x| x.abs().sqrt()),
        (UnaryOp::Abs, |x| x.abs()),
        (UnaryOp::Floor, |x| x.floor()),
        (UnaryOp::Round, |x| x.round()),
        (UnaryOp::Exp, |x| x.exp()),
        (UnaryOp::Cube, |x| x.powi(3)),
    ];
    let abs_a: Vec<Sf64> = a.iter().map(|x| x.abs().without_flags()).collect();
    for (op, host) in unary {
        let input = if op == UnaryOp::Sqrt { &abs_a } else { &a };
        let d = gpu.upload(input).unwrap();
        let dev = gpu.download(&gpu.unary(op, &d).unwrap()).unwrap();
        for i in 0..a.len() {
            let h = if op == UnaryOp::Sqrt {
                input[i].sqrt()
            } else {
                host(a[i])
            };
            assert_eq!(
                dev[i].flags().bits(),
                h.flags().bits(),
                "{op:?} case {i}: device vs host flags"
            );
        }
    }
    // Branching: an ordering comparison of values whose difference is noise.
    stoch_core::reset();
    let (res, flags) = gpu.compare(CompareOp::Lt, &da, &db).unwrap();
    for i in 0..a.len() {
        let before = stoch_core::report().count(Instability::Branching);
        let host = a[i] < b[i];
        let branched = stoch_core::report().count(Instability::Branching) > before;
        assert_eq!(res[i], host, "case {i}: a < b");
        assert_eq!(
            flags[i].contains(Instability::Branching),
            branched,
            "case {i}: branching flag"
        );
    }
}

#[test]
fn device_digits_match_host_digits() {
    let _serial = common::serial();
    let Some(gpu) = gpu_or_skip("device_digits_match_host_digits") else {
        return;
    };
    let mut rng = Inputs(3);
    let values: Vec<Sf64> = (0..20_000)
        .map(|i| {
            let m = rng.uniform(-10.0, 10.0);
            let spread = 10f64.powf(-rng.uniform(0.0, 17.0)) * m.abs();
            let s = [
                m,
                m + spread * rng.uniform(-1.0, 1.0),
                m + spread * rng.uniform(-1.0, 1.0),
            ];
            if i % 97 == 0 {
                Sf64::new(0.0)
            } else {
                Sf64::from_samples(s)
            }
        })
        .collect();
    let d = gpu.upload(&values).unwrap();
    let (digits, zero) = gpu.digits(&d).unwrap();
    let mut mismatches = 0;
    for (i, v) in values.iter().enumerate() {
        if digits[i] != v.digits() || zero[i] != v.is_computed_zero() {
            mismatches += 1;
            eprintln!(
                "{i}: {:?} device {} {} host {} {}",
                v.samples(),
                digits[i],
                zero[i],
                v.digits(),
                v.is_computed_zero()
            );
        }
    }
    assert_eq!(mismatches, 0);
}

#[test]
fn layout_seen_by_the_device_is_the_host_layout() {
    let _serial = common::serial();
    let Some(gpu) = gpu_or_skip("layout_seen_by_the_device_is_the_host_layout") else {
        return;
    };
    // The probe kernel, through the public launch API.
    let probe = gpu
        .function(stoch_gpu::kernels::entry::LAYOUT_PROBE)
        .unwrap();
    let mut out = gpu.zeros_plain::<u64>(2).unwrap();
    let mut l = gpu.launch_builder(&probe);
    l.arg(&mut out);
    let one = LaunchConfig {
        grid_dim: (1, 1, 1),
        block_dim: (1, 1, 1),
        shared_mem_bytes: 0,
    };
    // SAFETY: matches `stoch_layout_probe(unsigned long long*)`; one thread writes out[0..2].
    unsafe { l.launch(one) }.unwrap();
    let [f, d] = gpu.download_plain(&out).unwrap()[..] else {
        panic!("two layout words");
    };
    // Size, the offsets of y, z, flags and padding, and alignment: the host's (16 and 32 bytes,
    // aligned to their size).
    assert_eq!(f, 16 | 4 << 16 | 8 << 24 | 12 << 32 | 13 << 40 | 16 << 48);
    assert_eq!(d, 32 | 8 << 16 | 16 << 24 | 24 << 32 | 25 << 40 | 32 << 48);
    assert_eq!(
        (f >> 48, d >> 48),
        (align_of::<Sf32>() as u64, align_of::<Sf64>() as u64)
    );
    // Round trip without conversion, flags included.
    let v = vec![Sf32::from_parts([1.0, 2.0, 3.0], stoch_core::Flags::from_bits(0x41)); 5];
    let back = gpu.download(&gpu.upload(&v).unwrap()).unwrap();
    assert!(v
        .iter()
        .zip(&back)
        .all(|(x, y)| x.samples() == y.samples() && x.flags() == y.flags()));
}

#[test]
fn launches_repeat_for_a_seed() {
    let _serial = common::serial();
    let Some(gpu) = gpu_or_skip("launches_repeat_for_a_seed") else {
        return;
    };
    let n = 40;
    let a: Vec<Sf32> = (0..n * n)
        .map(|i| Sf32::new(1.0 / (1 + i % 13) as f32))
        .collect();
    let da = gpu.upload(&a).unwrap();
    let run = |gpu: &Gpu, seed| {
        gpu.set_seed(seed);
        gpu.download(&gpu.matmul(&da, &da, n, n, n).unwrap())
            .unwrap()
    };
    let same = |x: &[Sf32], y: &[Sf32]| x.iter().zip(y).all(|(p, q)| p.samples() == q.samples());
    let (r1, r2, r3) = (run(&gpu, 7), run(&gpu, 7), run(&gpu, 8));
    assert!(same(&r1, &r2), "same seed, same result");
    assert!(!same(&r1, &r3), "another seed, other roundings");
}

const USER_KERNEL: &str = r#"
#include "stochastic.cuh"
extern "C" __global__ void __launch_bounds__(1024) chain(const stoch_float* a, stoch_float* out, int n, unsigned long long seed) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    stoch_init_at(seed, i);
    if (i >= n) return;
    stoch_float x = a[i];
    for (int k = 0; k < 50; ++k) x = x * 1.1f + a[i] / 3.0f;
    out[i] = x;
}
"#;

#[test]
fn user_kernel_result_does_not_depend_on_block_size() {
    let _serial = common::serial();
    let Some(gpu) = gpu_or_skip("user_kernel_result_does_not_depend_on_block_size") else {
        return;
    };
    let f = gpu
        .user_function("chain.cu", USER_KERNEL, &[], "chain")
        .unwrap();
    let n = 10_000usize;
    let a = gpu
        .upload(
            &(0..n)
                .map(|i| Sf32::new(i as f32 * 0.37))
                .collect::<Vec<_>>(),
        )
        .unwrap();
    let mut results = Vec::new();
    for block in [32u32, 128, 1024] {
        let mut out = gpu.zeros::<f32>(n).unwrap();
        let (n32, seed) = (n as i32, 42u64);
        let mut l = gpu.launch_builder(&f);
        l.arg(a.raw()).arg(out.raw_mut()).arg(&n32).arg(&seed);
        let cfg = LaunchConfig {
            grid_dim: ((n as u32).div_ceil(block), 1, 1),
            block_dim: (block, 1, 1),
            shared_mem_bytes: 0,
        };
        // SAFETY: arguments match `chain`'s signature; both buffers hold n values; blocks of
        // at most 1024 threads (`__launch_bounds__(1024)` keeps the register use within that);
        // every thread calls stoch_init_at.
        unsafe { l.launch(cfg) }.unwrap();
        results.push(gpu.download(&out).unwrap());
    }
    for r in &results[1..] {
        assert!(r
            .iter()
            .zip(&results[0])
            .all(|(p, q)| p.samples() == q.samples()));
    }
}

#[test]
fn sums_in_three_modes() {
    let _serial = common::serial();
    let Some(gpu) = gpu_or_skip("sums_in_three_modes") else {
        return;
    };
    // Small integers: every partial sum is exact, so every mode gives the exact total.
    let ints: Vec<Sf32> = (0..100_000)
        .map(|i| Sf32::new((i % 17) as f32 - 8.0))
        .collect();
    let exact: f32 = (0..100_000).map(|i| (i % 17) as f32 - 8.0).sum();
    let d = gpu.upload(&ints).unwrap();
    for mode in [
        SumMode::Partials { threads: 1000 },
        SumMode::Atomic { threads: 1000 },
        SumMode::Tree,
    ] {
        let s = gpu.sum(&d, mode).unwrap();
        assert_eq!(s.samples(), [exact; 3], "{mode:?}");
    }
    // Taufer's symmetric large/small values: the exact sum is 0; DSA must say so (@.0).
    let mut rng = Inputs(4);
    let mut v = Vec::new();
    for _ in 0..5000 {
        let x = if rng.next_u64().is_multiple_of(2) {
            rng.uniform(1.0, 1e6)
        } else {
            rng.uniform(1e-6, 1e-5)
        } as f32;
        v.push(Sf32::new(x));
        v.push(Sf32::new(-x));
    }
    let mut shuffled = v.clone();
    for i in (1..shuffled.len()).rev() {
        shuffled.swap(i, (rng.next_u64() % (i as u64 + 1)) as usize);
    }
    let d = gpu.upload(&shuffled).unwrap();
    for mode in [
        SumMode::Partials { threads: 100 },
        SumMode::Atomic { threads: 100 },
        SumMode::Tree,
    ] {
        let s = gpu.sum(&d, mode).unwrap();
        assert!(
            s.is_computed_zero() || s.to_f64().abs() < 1e-3,
            "{mode:?}: {:?}",
            s.samples()
        );
    }
    let cpu = reference::sum(&shuffled);
    assert!(cpu.is_computed_zero() || cpu.to_f64().abs() < 1e-3);
}

#[test]
fn host_report_receives_gpu_counts() {
    let _serial = common::serial();
    let Some(gpu) = gpu_or_skip("host_report_receives_gpu_counts") else {
        return;
    };
    stoch_core::reset();
    let noise = Sf32::from_samples([1e-6, -2e-6, 1.5e-6]);
    let d = gpu.upload(&vec![noise; 100]).unwrap();
    let out = gpu
        .download(&gpu.binary(BinaryOp::Mul, &d, &d).unwrap())
        .unwrap();
    let counts = stoch_gpu::record_flags("stoch_binary_f32", &out);
    assert_eq!(counts.get(Instability::Multiplication), 100);
    let report = stoch_core::report();
    assert_eq!(report.gpu_count(Instability::Multiplication), 100);
    assert!(report.gpu().iter().any(|g| g.kernel == "stoch_binary_f32"));
    let _: &[Stochastic<f32>] = &out;
}

#[test]
fn device_digits_match_host_at_the_ends_of_the_range() {
    let _serial = common::serial();
    let Some(gpu) = gpu_or_skip("device_digits_match_host_at_the_ends_of_the_range") else {
        return;
    };
    let values = extreme_values();
    let (digits, zero) = gpu.digits(&gpu.upload(&values).unwrap()).unwrap();
    let bad: Vec<String> = values
        .iter()
        .enumerate()
        .filter(|(i, v)| (digits[*i], zero[*i]) != (v.digits(), v.is_computed_zero()))
        .map(|(i, v)| {
            format!(
                "{i}: {:?} device ({}, {}) host ({}, {})",
                v.samples(),
                digits[i],
                zero[i],
                v.digits(),
                v.is_computed_zero()
            )
        })
        .collect();
    assert!(bad.is_empty(), "device vs host digits:\n{}", bad.join("\n"));
    let v32: Vec<Sf32> = [
        [1e-45f32, 3e-45, 1e-45],
        [1e-40, 1.00001e-40, 0.99999e-40],
        [1e-40, -1e-40, 2e-40],
        [3e38, 3.3e38, 3.1e38],
        [3.4e38, 3.39e38, 3.4e38],
    ]
    .into_iter()
    .map(Sf32::from_samples)
    .collect();
    let (digits, zero) = gpu.digits(&gpu.upload(&v32).unwrap()).unwrap();
    for (i, v) in v32.iter().enumerate() {
        assert_eq!(
            (digits[i], zero[i]),
            (v.digits(), v.is_computed_zero()),
            "f32 {i}: {:?}",
            v.samples()
        );
    }
}

#[test]
fn api_functions_match_the_host() {
    let _serial = common::serial();
    let Some(gpu) = gpu_or_skip("api_functions_match_the_host") else {
        return;
    };
    let (a, b) = api_cases();
    let (da, db) = (gpu.upload(&a).unwrap(), gpu.upload(&b).unwrap());
    let bits = |r: &Sf64| r.flags().bits();
    type HostUnary = fn(Sf64) -> Sf64;
    let unaries: [(UnaryOp, HostUnary, bool); 6] = [
        (UnaryOp::Signum, |x| x.signum(), true),
        (UnaryOp::Fract, |x| x.fract(), true),
        (UnaryOp::Recip, |x| x.recip(), false),
        (UnaryOp::ToDegrees, |x| x.to_degrees(), false),
        (UnaryOp::ToRadians, |x| x.to_radians(), false),
        (
            UnaryOp::SinCos,
            |x| {
                let (s, c) = x.sin_cos();
                Sf64::from_parts(
                    s.samples(),
                    Flags::from_bits(s.flags().bits() | c.flags().bits()),
                )
            },
            false,
        ),
    ];
    for (op, host, exact) in unaries {
        let dev = gpu.download(&gpu.unary(op, &da).unwrap()).unwrap();
        for i in 0..a.len() {
            let (h, hb) = common::host_flags(|| host(a[i]), bits);
            assert_eq!(
                dev[i].flags().bits(),
                hb,
                "{op:?} case {i}: {:?}",
                a[i].samples()
            );
            if exact {
                assert!(common::same_samples(&dev[i], &h), "{op:?} case {i}");
            }
        }
    }
    type HostTest = fn(Sf64) -> bool;
    let tests: [(UnaryOp, HostTest); 5] = [
        (UnaryOp::IsNan, |x| x.is_nan()),
        (UnaryOp::IsFinite, |x| x.is_finite()),
        (UnaryOp::IsInfinite, |x| x.is_infinite()),
        (UnaryOp::IsSignPositive, |x| x.is_sign_positive()),
        (UnaryOp::IsSignNegative, |x| x.is_sign_negative()),
    ];
    for (op, host) in tests {
        let dev = gpu.download(&gpu.unary(op, &da).unwrap()).unwrap();
        for i in 0..a.len() {
            let (h, hb) = common::host_flags(|| host(a[i]), |_| a[i].flags().bits());
            assert_eq!(dev[i].samples()[0] == 1.0, h, "{op:?} case {i}");
            assert_eq!(dev[i].flags().bits(), hb, "{op:?} flags, case {i}");
        }
    }
    type HostBinary = fn(Sf64, Sf64) -> Sf64;
    let binaries: [(BinaryOp, HostBinary, bool); 10] = [
        (BinaryOp::Min, |x, y| x.min(y), true),
        (BinaryOp::Max, |x, y| x.max(y), true),
        (BinaryOp::CopySign, |x, y| x.copysign(y), true),
        (BinaryOp::LogBase, |x, y| x.log(y), false),
        (BinaryOp::Rem, |x, y| x % y, true),
        (BinaryOp::RemPlain, |x, y| x % y.samples()[0], true),
        (BinaryOp::PlainRem, |x, y| x.samples()[0] % y, true),
        (BinaryOp::ClampSym, |x, y| x.clamp(-y, y), true),
        (BinaryOp::RemEuclid, |x, y| x.rem_euclid(y), false),
        (BinaryOp::DivEuclid, |x, y| x.div_euclid(y), true),
    ];
    for (op, host, exact) in binaries {
        let dev = gpu.download(&gpu.binary(op, &da, &db).unwrap()).unwrap();
        for i in 0..a.len() {
            let (h, hb) = common::host_flags(|| host(a[i], b[i]), bits);
            assert_eq!(dev[i].flags().bits(), hb, "{op:?} case {i}");
            if exact {
                assert!(common::same_samples(&dev[i], &h), "{op:?} case {i}");
            }
        }
    }
    type HostRel = fn(&Sf64, &Sf64) -> bool;
    let relations: [(CompareOp, HostRel); 11] = [
        (CompareOp::Lt, |x, y| x < y),
        (CompareOp::Le, |x, y| x <= y),
        (CompareOp::Gt, |x, y| x > y),
        (CompareOp::Ge, |x, y| x >= y),
        (CompareOp::Eq, |x, y| x == y),
        (CompareOp::Ne, |x, y| x != y),
        (CompareOp::EqPlain, |x, y| *x == y.samples()[0]),
        (CompareOp::NePlain, |x, y| *x != y.samples()[0]),
        (CompareOp::PlainEq, |x, y| Sf64::new(y.samples()[0]) == *x),
        (CompareOp::PlainLt, |x, y| Sf64::new(y.samples()[0]) < *x),
        (CompareOp::PlainGe, |x, y| Sf64::new(y.samples()[0]) >= *x),
    ];
    for (op, rel) in relations {
        let (res, flags) = gpu.compare(op, &da, &db).unwrap();
        for i in 0..a.len() {
            let (h, hb) = common::host_flags(|| rel(&a[i], &b[i]), |_| a[i].flags().bits());
            assert_eq!(res[i], h, "{op:?} case {i}");
            assert_eq!(flags[i].bits(), hb, "{op:?} flags, case {i}");
        }
    }
}

#[test]
fn empty_buffers_round_trip() {
    let _serial = common::serial();
    let Some(gpu) = gpu_or_skip("empty_buffers_round_trip") else {
        return;
    };
    let empty: Vec<Sf64> = Vec::new();
    let d = gpu.upload(&empty).unwrap();
    assert!(gpu.download(&d).unwrap().is_empty());
    assert!(gpu
        .download(&gpu.zeros::<f32>(0).unwrap())
        .unwrap()
        .is_empty());
}
