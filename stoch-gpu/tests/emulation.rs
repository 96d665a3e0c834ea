//! The device code run on the CPU: `kernels/stochastic.cuh` and the shipped kernels compiled by
//! the host C++ compiler with CUDA's built-ins emulated (`tests/emulation/shims.h`: directed
//! rounding through the FPU rounding mode, one thread after another; `emu.cpp`: the launches). This checks the header's
//! logic (random rounding, flags, digits, layout, streams) against stoch-core where no GPU is
//! available. Skipped with a printed reason when no C++ compiler is found. The tests run one at
//! a time (`common::serial`): several reset and read the global report.

mod common;

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

use common::{api_cases, directed_f32, directed_f64, extreme_values, flag_cases, note, Inputs};
use stoch_core::{Flags, Instability, Sf32, Sf64, StochFloat, Stochastic};
use stoch_gpu::{reference, validate};

type Binary<T> = unsafe extern "C" fn(
    *const Stochastic<T>,
    *const Stochastic<T>,
    *mut Stochastic<T>,
    i32,
    i32,
    u64,
    i32,
);
type Unary<T> = unsafe extern "C" fn(*const Stochastic<T>, *mut Stochastic<T>, i32, i32, u64, i32);
type Compare = unsafe extern "C" fn(*const Sf64, *const Sf64, *mut u8, *mut u8, i32, i32, u64);
type Digits<T> = unsafe extern "C" fn(*const Stochastic<T>, *mut i32, *mut u8, i32);
type Matmul =
    unsafe extern "C" fn(*const Sf32, *const Sf32, *mut Sf32, i32, i32, i32, u64, i32, i32);
type Sum = unsafe extern "C" fn(*const Sf32, *mut Sf32, i64, i64, i32, u64);

/// The emulation library, built once per test run.
fn library() -> Option<&'static libloading::Library> {
    static LIB: OnceLock<Option<libloading::Library>> = OnceLock::new();
    LIB.get_or_init(|| {
        let kernels = common::kernels_dir();
        let src = common::workspace().join("stoch-gpu/tests/emulation/emu.cpp");
        assert!(
            src.is_file(),
            "{} not found: run from the repository root or set {}",
            src.display(),
            common::WORKSPACE_VAR
        );
        let mut dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
        if !dir.is_dir() {
            dir = std::env::temp_dir(); // a test binary carried to another machine
        }
        let out = dir.join(format!("libstoch_emu_{}.so", std::process::id()));
        let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".to_string());
        let status = Command::new(&cxx)
            .args([
                "-std=c++17",
                "-O0",
                "-frounding-math",
                "-fno-fast-math",
                "-ffp-contract=off",
            ])
            .args(["-fPIC", "-shared", "-w", "-I"])
            .arg(&kernels)
            .arg("-o")
            .arg(&out)
            .arg(&src)
            .status();
        match status {
            Ok(s) if s.success() => {}
            Ok(s) => panic!("{cxx} failed to compile the emulation ({s})"),
            Err(e) => {
                note(&format!(
                    "SKIP emulation tests: no C++ compiler `{cxx}` ({e})"
                ));
                return None;
            }
        }
        // SAFETY: loading our own freshly built library runs no initialiser with preconditions.
        let lib = unsafe { libloading::Library::new(&out) }.expect("load the emulation library");
        let _ = std::fs::remove_file(&out); // stays mapped; no file left behind per run
        Some(lib)
    })
    .as_ref()
}

/// A function of the emulation library.
fn sym<F: Copy>(name: &str) -> Option<F> {
    let lib = library()?;
    // SAFETY: each caller names an `extern "C"` function of emu.cpp with the type `F` it has.
    Some(*unsafe { lib.get::<F>(name.as_bytes()) }.expect("symbol in the emulation library"))
}

fn binary<T: StochFloat>(
    name: &str,
    a: &[Stochastic<T>],
    b: &[Stochastic<T>],
    op: i32,
    seed: u64,
    block: i32,
) -> Option<Vec<Stochastic<T>>> {
    let f: Binary<T> = sym(name)?;
    let mut out = vec![Stochastic::<T>::ZERO; a.len()];
    // SAFETY: three arrays of a.len() values, as the emulated kernel expects.
    unsafe {
        f(
            a.as_ptr(),
            b.as_ptr(),
            out.as_mut_ptr(),
            a.len() as i32,
            op,
            seed,
            block,
        )
    };
    Some(out)
}

fn unary<T: StochFloat>(
    name: &str,
    a: &[Stochastic<T>],
    op: i32,
    seed: u64,
) -> Option<Vec<Stochastic<T>>> {
    let f: Unary<T> = sym(name)?;
    let mut out = vec![Stochastic::<T>::ZERO; a.len()];
    // SAFETY: two arrays of a.len() values.
    unsafe { f(a.as_ptr(), out.as_mut_ptr(), a.len() as i32, op, seed, 128) };
    Some(out)
}

fn check_directed<T: Copy + PartialEq + std::fmt::Debug>(
    what: &str,
    got: &[[T; 3]],
    want: &[(T, T)],
) {
    let (mut up, mut down) = (0usize, 0usize);
    for (i, (s, &(rd, ru))) in got.iter().zip(want).enumerate() {
        for v in s {
            assert!(
                *v == rd || *v == ru,
                "{what}[{i}]: {v:?} is neither RD {rd:?} nor RU {ru:?}"
            );
        }
        if rd != ru {
            up += s.iter().filter(|v| **v == ru).count();
            down += s.iter().filter(|v| **v == rd).count();
            assert!(
                s[1] != s[2],
                "{what}[{i}]: z must round opposite to y ({s:?})"
            );
        }
    }
    let n = up + down;
    assert!(
        n > 500 && up * 4 > n && down * 4 > n,
        "{what}: {up} up, {down} down"
    );
}

#[test]
fn emulated_samples_are_directed_roundings() {
    let _serial = common::serial();
    if library().is_none() {
        return;
    }
    let mut rng = Inputs(11);
    let n = 2000;
    let a32: Vec<f32> = (0..n).map(|_| rng.uniform(0.5, 4.0) as f32).collect();
    let b32: Vec<f32> = (0..n).map(|_| rng.uniform(-3.0, 3.0) as f32).collect();
    let a64: Vec<f64> = (0..n).map(|_| rng.uniform(0.5, 4.0)).collect();
    let b64: Vec<f64> = (0..n).map(|_| rng.uniform(-3.0, 3.0)).collect();
    let (sa32, sb32): (Vec<Sf32>, Vec<Sf32>) = (
        a32.iter().map(|&v| Sf32::new(v)).collect(),
        b32.iter().map(|&v| Sf32::new(v)).collect(),
    );
    let (sa64, sb64): (Vec<Sf64>, Vec<Sf64>) = (
        a64.iter().map(|&v| Sf64::new(v)).collect(),
        b64.iter().map(|&v| Sf64::new(v)).collect(),
    );
    for (op, name) in ["add", "sub", "mul", "div"].iter().enumerate() {
        let out = binary("emu_binary_f32", &sa32, &sb32, op as i32, 5, 128).unwrap();
        let want: Vec<_> = a32
            .iter()
            .zip(&b32)
            .map(|(&x, &y)| directed_f32(name, x, y))
            .collect();
        check_directed(
            name,
            &out.iter().map(|v| v.samples()).collect::<Vec<_>>(),
            &want,
        );
        let out = binary("emu_binary_f64", &sa64, &sb64, op as i32, 5, 128).unwrap();
        let want: Vec<_> = a64
            .iter()
            .zip(&b64)
            .map(|(&x, &y)| directed_f64(name, x, y))
            .collect();
        check_directed(
            name,
            &out.iter().map(|v| v.samples()).collect::<Vec<_>>(),
            &want,
        );
    }
    let out = unary("emu_unary_f32", &sa32, 0, 6).unwrap();
    let want: Vec<_> = a32.iter().map(|&x| directed_f32("sqrt", x, 0.0)).collect();
    check_directed(
        "sqrt f32",
        &out.iter().map(|v| v.samples()).collect::<Vec<_>>(),
        &want,
    );
    let out = unary("emu_unary_f64", &sa64, 0, 6).unwrap();
    let want: Vec<_> = a64.iter().map(|&x| directed_f64("sqrt", x, 0.0)).collect();
    check_directed(
        "sqrt f64",
        &out.iter().map(|v| v.samples()).collect::<Vec<_>>(),
        &want,
    );
    // Same seed and stream ids, other block size: the same samples.
    let again = binary("emu_binary_f32", &sa32, &sb32, 0, 5, 32).unwrap();
    let first = binary("emu_binary_f32", &sa32, &sb32, 0, 5, 256).unwrap();
    assert!(again
        .iter()
        .zip(&first)
        .all(|(x, y)| x.samples() == y.samples()));
    let other = binary("emu_binary_f32", &sa32, &sb32, 0, 6, 256).unwrap();
    assert!(
        !other
            .iter()
            .zip(&first)
            .all(|(x, y)| x.samples() == y.samples()),
        "the seed matters"
    );
}

#[test]
fn emulated_flags_match_the_host_checks() {
    let _serial = common::serial();
    if library().is_none() {
        return;
    }
    let (a, b) = flag_cases();
    type HostOp = fn(Sf64, Sf64) -> Sf64;
    let ops: [HostOp; 4] = [|x, y| x + y, |x, y| x - y, |x, y| x * y, |x, y| x / y];
    for (op, host) in ops.iter().enumerate() {
        let dev = binary("emu_binary_f64", &a, &b, op as i32, 9, 64).unwrap();
        for i in 0..a.len() {
            assert_eq!(
                dev[i].flags().bits(),
                host(a[i], b[i]).flags().bits(),
                "op {op} case {i}"
            );
        }
    }
    // fma(a, b, a) = a * b + a, as a.mul_add(b, a) on the host (cancellation and multiplication).
    let dev = binary("emu_binary_f64", &a, &b, 4, 9, 64).unwrap();
    for i in 0..a.len() {
        assert_eq!(
            dev[i].flags().bits(),
            a[i].mul_add(b[i], a[i]).flags().bits(),
            "fma case {i}"
        );
    }
    let fa = [Sf64::from_samples([1.0 + 1e-13, 1.0 - 1e-13, 1.0 + 2e-13])];
    let fb = [Sf64::from_samples([-1.0 + 1e-14, -1.0, -1.0 - 1e-14])];
    let dev = binary("emu_binary_f64", &fa, &fb, 4, 9, 64).unwrap();
    let host = fa[0].mul_add(fb[0], fa[0]);
    assert!(host.flags().contains(Instability::Cancellation));
    assert_eq!(
        dev[0].flags().bits(),
        host.flags().bits(),
        "fma cancellation"
    );
    // Mixed with a plain operand: the plain one is left out of the checks.
    for (op, host) in [
        (5, (|x: Sf64, y: f64| x + y) as fn(Sf64, f64) -> Sf64),
        (6, |x, y| x - y),
        (7, |x, y| x * y),
        (8, |x, y| x / y),
    ] {
        let dev = binary("emu_binary_f64", &a, &b, op, 9, 64).unwrap();
        for i in 0..a.len() {
            let h = host(a[i], b[i].samples()[0]);
            assert_eq!(
                dev[i].flags().bits(),
                h.flags().bits(),
                "plain op {op} case {i}"
            );
        }
    }
    type HostUnary = fn(Sf64) -> Sf64;
    let unaries: [(i32, HostUnary); 7] = [
        (2, |x| x.abs()),
        (3, |x| x.floor()),
        (4, |x| x.ceil()),
        (5, |x| x.round()),
        (7, |x| x.exp()),
        (9, |x| x.sin()),
        (16, |x| x.powi(3)),
    ];
    for (op, host) in unaries {
        let dev = unary("emu_unary_f64", &a, op, 3).unwrap();
        for i in 0..a.len() {
            assert_eq!(
                dev[i].flags().bits(),
                host(a[i]).flags().bits(),
                "unary {op} case {i}"
            );
        }
    }
    let abs_a: Vec<Sf64> = a.iter().map(|x| x.abs().without_flags()).collect();
    let dev = unary("emu_unary_f64", &abs_a, 0, 3).unwrap();
    for i in 0..a.len() {
        assert_eq!(
            dev[i].flags().bits(),
            abs_a[i].sqrt().flags().bits(),
            "sqrt case {i}"
        );
    }
    // Relations and the branching flag.
    let host_rel: [fn(&Sf64, &Sf64) -> bool; 6] = [
        |x, y| x < y,
        |x, y| x <= y,
        |x, y| x > y,
        |x, y| x >= y,
        |x, y| x == y,
        |x, y| x != y,
    ];
    for (op, rel) in host_rel.iter().enumerate() {
        let (r, f) = emu_compare(&a, &b, op as i32);
        for i in 0..a.len() {
            stoch_core::reset();
            let h = rel(&a[i], &b[i]);
            let branched = stoch_core::report().count(Instability::Branching) > 0;
            assert_eq!(r[i] != 0, h, "relation {op} case {i}");
            if op < 4 {
                assert_eq!(
                    Flags::from_bits(f[i]).contains(Instability::Branching),
                    branched,
                    "branching {op} case {i}"
                );
            }
        }
    }
}

#[test]
fn emulated_digits_match_host_digits() {
    let _serial = common::serial();
    if library().is_none() {
        return;
    }
    let mut rng = Inputs(12);
    let values: Vec<Sf64> = (0..20_000)
        .map(|i| {
            let m = rng.uniform(-10.0, 10.0);
            let spread = 10f64.powf(-rng.uniform(0.0, 17.0)) * m.abs();
            let s = [
                m,
                m + spread * rng.uniform(-1.0, 1.0),
                m + spread * rng.uniform(-1.0, 1.0),
            ];
            match i % 101 {
                0 => Sf64::new(0.0),
                1 => Sf64::from_samples([f64::NAN, 1.0, 1.0]),
                2 => Sf64::from_samples([f64::INFINITY, 1.0, 1.0]),
                _ => Sf64::from_samples(s),
            }
        })
        .collect();
    let (d, z) = emu_digits::<f64>("emu_digits_f64", &values);
    for (i, v) in values.iter().enumerate() {
        assert_eq!(
            (d[i] as u32, z[i] != 0),
            (v.digits(), v.is_computed_zero()),
            "{i}: {:?}",
            v.samples()
        );
    }
    let v32: Vec<Sf32> = values
        .iter()
        .map(|v| Sf32::from_samples(v.samples().map(|x| x as f32)))
        .collect();
    let (d, z) = emu_digits::<f32>("emu_digits_f32", &v32);
    for (i, v) in v32.iter().enumerate() {
        assert_eq!(
            (d[i] as u32, z[i] != 0),
            (v.digits(), v.is_computed_zero()),
            "{i}: {:?}",
            v.samples()
        );
    }
}

#[test]
fn emulated_layout_is_the_host_layout() {
    let _serial = common::serial();
    let Some(f) = sym::<unsafe extern "C" fn(*mut u64)>("emu_layout_probe") else {
        return;
    };
    let mut out = [0u64; 2];
    // SAFETY: the probe writes two words.
    unsafe { f(out.as_mut_ptr()) };
    assert_eq!(
        out[0],
        16 | 4 << 16 | 8 << 24 | 12 << 32 | 13 << 40 | 16 << 48
    );
    assert_eq!(
        out[1],
        32 | 8 << 16 | 16 << 24 | 24 << 32 | 25 << 40 | 32 << 48
    );
}

#[test]
fn emulated_matmul_is_shape_independent_and_validates() {
    let _serial = common::serial();
    let Some(f) = sym::<Matmul>("emu_matmul_f32") else {
        return;
    };
    let n = 24;
    let a: Vec<Sf32> = (0..n * n)
        .map(|i| Sf32::new(((i * 7919) % 1000) as f32 / 100.0 - 5.0))
        .collect();
    let b: Vec<Sf32> = (0..n * n)
        .map(|i| Sf32::new(1.0 / (1 + (i * 104_729) % 97) as f32))
        .collect();
    let run = |bx, by, seed| {
        let mut c = vec![Sf32::ZERO; n * n];
        // SAFETY: n x n matrices.
        unsafe {
            f(
                a.as_ptr(),
                b.as_ptr(),
                c.as_mut_ptr(),
                n as i32,
                n as i32,
                n as i32,
                seed,
                bx,
                by,
            )
        };
        c
    };
    let (c1, c2) = (run(16, 16, 3), run(8, 4, 3));
    assert!(
        c1.iter().zip(&c2).all(|(x, y)| x.samples() == y.samples()),
        "block shape changed the result"
    );
    let v = validate::compare(&c1, &reference::matmul(&a, &b, n, n, n)).unwrap();
    assert!(v.summary.inconsistent * 20 <= v.summary.len, "{v}");
    // The seed's example: the product of two computed zeros is flagged, once.
    let noise = Sf32::from_samples([1e-7, -1e-7, 2e-7]);
    let mut m1: Vec<Sf32> = (0..16).map(|i| Sf32::new(i as f32)).collect();
    let mut m2 = vec![Sf32::new(1.0); 16];
    m1[2 * 4 + 1] = noise;
    m2[4 + 1] = noise;
    let mut c = vec![Sf32::ZERO; 16];
    // SAFETY: 4 x 4 matrices.
    unsafe { f(m1.as_ptr(), m2.as_ptr(), c.as_mut_ptr(), 4, 4, 4, 1, 16, 16) };
    let cpu = reference::matmul(&m1, &m2, 4, 4, 4);
    for (g, h) in c.iter().zip(&cpu) {
        assert_eq!(g.flags(), h.flags());
    }
    assert_eq!(
        stoch_gpu::FlagCounts::of(&c).get(Instability::Multiplication),
        1
    );
}

#[test]
fn emulated_sums() {
    let _serial = common::serial();
    let (Some(partials), Some(atomic)) = (
        sym::<Sum>("emu_sum_partials_f32"),
        sym::<Sum>("emu_sum_atomic_f32"),
    ) else {
        return;
    };
    let ints: Vec<Sf32> = (0..10_000)
        .map(|i| Sf32::new((i % 17) as f32 - 8.0))
        .collect();
    let exact: f32 = (0..10_000).map(|i| (i % 17) as f32 - 8.0).sum();
    let (threads, chunk) = (100i32, 100i64);
    let mut part = vec![Sf32::ZERO; threads as usize];
    // SAFETY: `ints` holds n values, `part` one per thread.
    unsafe { partials(ints.as_ptr(), part.as_mut_ptr(), 10_000, chunk, threads, 2) };
    assert_eq!(reference::sum(&part).samples(), [exact; 3]);
    let mut total = [Sf32::ZERO];
    // SAFETY: `total` holds one value.
    unsafe { atomic(ints.as_ptr(), total.as_mut_ptr(), 10_000, chunk, threads, 2) };
    assert_eq!(total[0].samples(), [exact; 3]);
}

fn check_digits_f64(values: &[Sf64]) -> usize {
    let (d, z) = emu_digits::<f64>("emu_digits_f64", values);
    let mut bad = 0;
    for (i, v) in values.iter().enumerate() {
        if (d[i] as u32, z[i] != 0) != (v.digits(), v.is_computed_zero()) {
            bad += 1;
            note(&format!(
                "digits f64 {i}: {:?}: device ({}, {}) host ({}, {})",
                v.samples(),
                d[i],
                z[i] != 0,
                v.digits(),
                v.is_computed_zero()
            ));
        }
    }
    bad
}

#[test]
fn emulated_digits_match_host_at_the_ends_of_the_range() {
    let _serial = common::serial();
    if library().is_none() {
        return;
    }
    let values = extreme_values();
    // The cases the old device formulas got wrong are decided by the host as follows.
    assert!(values[0].is_computed_zero() && values[0].digits() == 0);
    assert_eq!(values[2].digits(), 6);
    assert_eq!(values[5].digits(), 6);
    assert!(values[6].is_computed_zero());
    assert_eq!(check_digits_f64(&values), 0, "device vs host digits (f64)");
    // f32: subnormals and the top of the range.
    let mut rng = Inputs(22);
    let mut v32 = vec![
        Sf32::from_samples([1e-45, 3e-45, 1e-45]),
        Sf32::from_samples([1e-40, 1.00001e-40, 0.99999e-40]),
        Sf32::from_samples([1e-40, -1e-40, 2e-40]),
        Sf32::from_samples([3e38, 3.3e38, 3.1e38]),
        Sf32::from_samples([3.4e38, 3.39e38, 3.4e38]),
    ];
    for i in 0..4000 {
        let e = rng.uniform(-44.0, 38.0);
        let m = 10f64.powf(e) * if i % 2 == 0 { 1.0 } else { -1.0 };
        let spread = 10f64.powf(-rng.uniform(0.0, 8.0));
        let s = [
            m,
            m * (1.0 + spread * rng.uniform(-1.0, 1.0)),
            m * (1.0 + spread * rng.uniform(-1.0, 1.0)),
        ]
        .map(|x| x as f32);
        if s.iter().all(|x| x.is_finite()) {
            v32.push(Sf32::from_samples(s));
        }
    }
    let (d, z) = emu_digits::<f32>("emu_digits_f32", &v32);
    for (i, v) in v32.iter().enumerate() {
        assert_eq!(
            (d[i] as u32, z[i] != 0),
            (v.digits(), v.is_computed_zero()),
            "f32 {i}: {:?}",
            v.samples()
        );
    }
}

/// The emulated device's relation `op` on `a[i]`, `b[i]` (seed 1): the results and the flag
/// bytes it leaves.
fn emu_compare(a: &[Sf64], b: &[Sf64], op: i32) -> (Vec<u8>, Vec<u8>) {
    let cmp: Compare = sym("emu_compare_f64").unwrap();
    let (mut r, mut f) = (vec![0u8; a.len()], vec![0u8; a.len()]);
    assert_eq!(a.len(), b.len());
    // SAFETY: four arrays of a.len() items (b is as long as a: asserted above).
    unsafe {
        cmp(
            a.as_ptr(),
            b.as_ptr(),
            r.as_mut_ptr(),
            f.as_mut_ptr(),
            a.len() as i32,
            op,
            1,
        )
    };
    (r, f)
}

/// The emulated device's digits and computed-zero flags of `values`, by the exported function
/// `name` (`emu_digits_f64` or `emu_digits_f32`).
fn emu_digits<T: StochFloat>(name: &str, values: &[Stochastic<T>]) -> (Vec<i32>, Vec<u8>) {
    let f: Digits<T> = sym(name).unwrap();
    let (mut d, mut z) = (vec![0i32; values.len()], vec![0u8; values.len()]);
    // SAFETY: three arrays of values.len() items.
    unsafe {
        f(
            values.as_ptr(),
            d.as_mut_ptr(),
            z.as_mut_ptr(),
            values.len() as i32,
        )
    };
    (d, z)
}

#[test]
fn emulated_api_functions_match_the_host() {
    let _serial = common::serial();
    if library().is_none() {
        return;
    }
    let (a, b) = api_cases();
    let bits = |r: &Sf64| r.flags().bits();
    // Unary functions returning a value: (code, host, exact result).
    type HostUnary = fn(Sf64) -> Sf64;
    let unaries: [(i32, HostUnary, bool); 6] = [
        (17, |x| x.signum(), true),
        (18, |x| x.fract(), true),
        (19, |x| x.recip(), false),
        (20, |x| x.to_degrees(), false),
        (21, |x| x.to_radians(), false),
        (
            22,
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
        let dev = unary("emu_unary_f64", &a, op, 3).unwrap();
        for i in 0..a.len() {
            let (h, hb) = common::host_flags(|| host(a[i]), bits);
            assert_eq!(
                dev[i].flags().bits(),
                hb,
                "unary {op} case {i}: {:?}",
                a[i].samples()
            );
            if exact {
                assert!(
                    common::same_samples(&dev[i], &h),
                    "unary {op} case {i}: {:?} vs {:?}",
                    dev[i].samples(),
                    h.samples()
                );
            }
        }
    }
    // Tests of the samples: the result and the flag on the operand.
    type HostTest = fn(Sf64) -> bool;
    let tests: [(i32, HostTest); 5] = [
        (23, |x| x.is_nan()),
        (24, |x| x.is_finite()),
        (25, |x| x.is_infinite()),
        (26, |x| x.is_sign_positive()),
        (27, |x| x.is_sign_negative()),
    ];
    for (op, host) in tests {
        let dev = unary("emu_unary_f64", &a, op, 3).unwrap();
        for i in 0..a.len() {
            let (h, hb) = common::host_flags(|| host(a[i]), |_| a[i].flags().bits());
            assert_eq!(
                dev[i].samples()[0] == 1.0,
                h,
                "test {op} case {i}: {:?}",
                a[i].samples()
            );
            assert_eq!(
                dev[i].flags().bits(),
                hb,
                "test {op} flags, case {i}: {:?}",
                a[i].samples()
            );
        }
    }
    // Binary functions: (code, host, exact result).
    type HostBinary = fn(Sf64, Sf64) -> Sf64;
    let binaries: [(i32, HostBinary, bool); 10] = [
        (10, |x, y| x.min(y), true),
        (11, |x, y| x.max(y), true),
        (12, |x, y| x.copysign(y), true),
        (13, |x, y| x.log(y), false),
        (14, |x, y| x % y, true),
        (15, |x, y| x % y.samples()[0], true),
        (16, |x, y| x.samples()[0] % y, true),
        (17, |x, y| x.clamp(-y, y), true),
        (18, |x, y| x.rem_euclid(y), false),
        (19, |x, y| x.div_euclid(y), true),
    ];
    for (op, host, exact) in binaries {
        let dev = binary("emu_binary_f64", &a, &b, op, 9, 64).unwrap();
        for i in 0..a.len() {
            let (h, hb) = common::host_flags(|| host(a[i], b[i]), bits);
            assert_eq!(
                dev[i].flags().bits(),
                hb,
                "binary {op} case {i}: {:?} {:?}",
                a[i].samples(),
                b[i].samples()
            );
            if exact {
                assert!(
                    common::same_samples(&dev[i], &h),
                    "binary {op} case {i}: {:?} vs {:?}",
                    dev[i].samples(),
                    h.samples()
                );
            }
        }
    }
}

#[test]
fn emulated_relations_follow_the_host() {
    let _serial = common::serial();
    if library().is_none() {
        return;
    }
    let (a, b) = api_cases();
    type HostRel = fn(&Sf64, &Sf64) -> bool;
    let host_rel: [(i32, HostRel); 11] = [
        (0, |x, y| x < y),
        (1, |x, y| x <= y),
        (2, |x, y| x > y),
        (3, |x, y| x >= y),
        (4, |x, y| x == y),
        (5, |x, y| x != y),
        (6, |x, y| *x == y.samples()[0]),
        (7, |x, y| *x != y.samples()[0]),
        (8, |x, y| Sf64::new(y.samples()[0]) == *x),
        (9, |x, y| Sf64::new(y.samples()[0]) < *x),
        (10, |x, y| Sf64::new(y.samples()[0]) >= *x),
    ];
    for (op, rel) in host_rel {
        let (r, f) = emu_compare(&a, &b, op);
        for i in 0..a.len() {
            let (h, hb) = common::host_flags(|| rel(&a[i], &b[i]), |_| a[i].flags().bits());
            let what = format!(
                "relation {op} case {i}: {:?} {:?}",
                a[i].samples(),
                b[i].samples()
            );
            assert_eq!(r[i] != 0, h, "{what}");
            assert_eq!(f[i], hb, "{what}: flags");
        }
    }
}
