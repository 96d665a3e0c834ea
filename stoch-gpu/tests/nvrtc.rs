//! NVRTC checks that need no GPU: every kernel and the header compile to PTX and CUBIN, the
//! PTX of the stochastic code is directed-rounding only, layouts agree with the host, and
//! compile errors come back with their log. Skipped (with a printed reason) when NVRTC is not
//! found, unless `STOCH_REQUIRE_NVRTC=1`.

mod common;

use stoch_core::{Flags, Stochastic};
use stoch_gpu::kernels::{KernelSource, HEADER_NAME, KERNELS};
use stoch_gpu::nvrtc::{self, lint_ptx, Target};
use stoch_gpu::GpuError;

/// Architectures the suite compiles for: Ampere, Hopper (the lent H100/H200), Blackwell.
const ARCHS: &[u32] = &[80, 90, 100];

/// A source that instantiates every operator and function of the header for both types.
const HEADER_EXERCISE: &str = r#"
#include "stochastic.cuh"
template <class T> __device__ void exercise(stoch_t<T>* v, int* ints, bool* bools, unsigned long long seed) {
    stoch_init(seed);
    stoch_t<T> a = v[0], b = v[1], c = v[2], r;
    r = a + b; r = r - c; r = r * a; r = r / b;
    r = r + (T)1; r = (T)2 - r; r = r * (T)3; r = (T)4 / r; r = r / (T)5; r = r - (T)6;
    r += a; r -= b; r *= c; r /= a; r += (T)1; r *= 2;
    r = -r; r = +r; r = fma(a, b, r); r = sqrt(r);
    r = exp(r) + exp2(r) + expm1(r) + log(r) + log2(r) + log10(r) + log1p(r);
    r = sin(r) + cos(r) + tan(r) + asin(r) + acos(r) + atan(r);
    r = sinh(r) + cosh(r) + tanh(r) + asinh(r) + acosh(r) + atanh(r) + cbrt(r);
    r = pow(r, a) + pow(r, (T)2) + atan2(r, b) + hypot(r, c) + stoch_powi(r, -3);
    r = fabs(r) + abs(r) + floor(r) + ceil(r) + round(r) + trunc(r) + fmin(a, b) + fmax(a, b);
    r = signum(r) + fract(r) + copysign(r, a) + clamp(r, a, b) + log(r, b) + log(r, (T)10) + recip(r);
    r = fmod(r, a) + (r % b) + (r % (T)3) + ((T)7 % r) + fmod(r, (T)2) + fmod((T)5, r) + to_degrees(r) + to_radians(r);
    r %= a; r %= (T)4; r = rem_euclid(r, a) + div_euclid(r, b);
    { stoch_t<T> s, co; sincos(r, &s, &co); r = s + co; }
    bools[0] = a < b; bools[1] = a <= b; bools[2] = a > b; bools[3] = a >= b;
    bools[4] = a == b; bools[5] = a != b; bools[6] = a < (T)1; bools[7] = a >= (T)0;
    bools[8] = stoch_is_computed_zero(r); bools[9] = stoch_is_exact_zero(r); bools[10] = stoch_is_numerical_noise(r);
    bools[11] = a == (T)1; bools[12] = (T)1 == a; bools[13] = a != (T)2; bools[14] = (T)2 != a;
    bools[15] = (T)1 < a; bools[16] = (T)1 <= a; bools[17] = (T)1 > a; bools[18] = (T)1 >= a;
    bools[19] = a <= (T)1; bools[20] = a > (T)1;
    bools[21] = stoch_is_nan(r); bools[22] = stoch_is_finite(r); bools[23] = stoch_is_infinite(r);
    bools[24] = stoch_is_sign_positive(r); bools[25] = stoch_is_sign_negative(r);
    ints[0] = stoch_digits(r); ints[1] = stoch_to_int(r); v[4].x = stoch_mean(r);
    stoch_atomic_add(&v[5], r);
    v[3] = r;
}
extern "C" __global__ void exercise_f32(stoch_float* v, int* i, bool* b, unsigned long long s) { exercise(v, i, b, s); }
extern "C" __global__ void exercise_f64(stoch_double* v, int* i, bool* b, unsigned long long s) { exercise(v, i, b, s); }
"#;

fn assert_lint_clean(name: &str, ptx: &str, entries: &[&str]) -> nvrtc::PtxLint {
    let lint = lint_ptx(ptx);
    assert!(
        lint.violations.is_empty(),
        "{name}: non-directed floating-point instructions in PTX: {:#?}",
        &lint.violations[..lint.violations.len().min(20)]
    );
    assert!(
        lint.directed_total() > 0,
        "{name}: no directed instruction found"
    );
    for e in entries {
        assert!(
            lint.entries.iter().any(|x| x == e),
            "{name}: entry `{e}` missing from the PTX"
        );
    }
    lint
}

#[test]
fn every_kernel_compiles_to_ptx_and_cubin() {
    if !common::nvrtc_or_skip("every_kernel_compiles_to_ptx_and_cubin") {
        return;
    }
    let (major, minor) = nvrtc::version().unwrap();
    common::note(&format!("NVRTC {major}.{minor}"));
    for k in KERNELS {
        for &arch in ARCHS {
            // A real architecture gives the PTX and the CUBIN in one compilation.
            let check = nvrtc::check_kernel(k, Target::Real(arch))
                .unwrap_or_else(|e| panic!("{} for sm_{arch}: {e}", k.name));
            assert!(check.problems.is_empty(), "{:#?}", check.problems);
            common::note(&format!(
                "PTX check {} sm_{arch}: {} directed FP instructions, {} exempt (in {} statistics/libm functions), 0 violations",
                k.name,
                check.lint.directed_total(),
                check.lint.exempt,
                check.lint.exempt_functions.len()
            ));
        }
    }
    // The check can fail: a wrong entry list, and round-to-nearest arithmetic in a kernel that
    // claims to be stochastic.
    let bad = KernelSource {
        name: "bad.cu",
        source: r#"extern "C" __global__ void k(float* v) { v[0] = v[1] + v[2]; }"#,
        entries: &["k", "missing"],
        stochastic: true,
    };
    let check = nvrtc::check_kernel(&bad, Target::Real(90)).unwrap();
    assert!(
        check.problems.iter().any(|p| p.contains("`missing`"))
            && check.problems.iter().any(|p| p.contains("add.rn.f32"))
            && check.problems.iter().any(|p| p.contains("no directed")),
        "{:#?}",
        check.problems
    );
}

#[test]
fn header_compiles_and_every_operator_is_directed() {
    if !common::nvrtc_or_skip("header_compiles_and_every_operator_is_directed") {
        return;
    }
    for target in [Target::Real(90), Target::Virtual(80), Target::Virtual(100)] {
        let c = nvrtc::compile("header_exercise.cu", HEADER_EXERCISE, target, &[])
            .unwrap_or_else(|e| panic!("{target:?}: {e}"));
        let lint = assert_lint_clean(
            "header_exercise.cu",
            &c.ptx,
            &["exercise_f32", "exercise_f64"],
        );
        common::note(&format!(
            "PTX check stochastic.cuh (every operator, {target:?}): {} directed {:?}, {} exempt in {} functions, 0 violations",
            lint.directed_total(),
            lint.directed,
            lint.exempt,
            lint.exempt_functions.len()
        ));
        for op in ["add", "sub", "mul", "div", "sqrt", "fma"] {
            for ty in ["f32", "f64"] {
                for mode in ["rp", "rm"] {
                    let opcode = format!("{op}.{mode}.{ty}");
                    assert!(
                        lint.directed.contains_key(&opcode),
                        "missing {opcode} in the header's PTX"
                    );
                }
            }
        }
        if let Target::Real(_) = target {
            assert!(c.cubin.is_some_and(|b| b.starts_with(b"\x7fELF")));
        }
    }
    // The switches compile too.
    nvrtc::compile(
        "header_exercise.cu",
        HEADER_EXERCISE,
        Target::Virtual(90),
        &[
            ("STOCH_CANCEL_LEVEL", "3"),
            ("STOCH_DETECT", "0x0B"),
            ("STOCH_MAX_BLOCK_THREADS", "256"),
        ],
    )
    .unwrap();
}

#[test]
fn lint_catches_round_to_nearest_and_options_are_applied() {
    if !common::nvrtc_or_skip("lint_catches_round_to_nearest_and_options_are_applied") {
        return;
    }
    // --fmad=false: a*b+c stays a multiply and an add; no .ftz anywhere.
    let src = r#"extern "C" __global__ void k(float* v) { v[0] = v[1] * v[2] + v[3]; v[4] = v[5] / v[6]; }"#;
    let ptx = nvrtc::compile("fmad.cu", src, Target::Virtual(90), &[])
        .unwrap()
        .ptx;
    assert!(
        ptx.contains("mul.rn.f32") && ptx.contains("add.rn.f32"),
        "{ptx}"
    );
    assert!(
        !ptx.contains("fma.rn.f32"),
        "FMA contraction must be off:\n{ptx}"
    );
    assert!(!ptx.contains(".ftz"), "flush-to-zero must be off:\n{ptx}");
    let bad = lint_ptx(&ptx);
    assert_eq!(bad.violations.len(), 3, "{:?}", bad.violations);
}

#[test]
fn compile_error_comes_back_with_the_log() {
    if !common::nvrtc_or_skip("compile_error_comes_back_with_the_log") {
        return;
    }
    let src = "#include \"stochastic.cuh\"\nextern \"C\" __global__ void k(stoch_float* v) { v[0] = undefined_fn(v[1]); }\n";
    match nvrtc::compile("broken.cu", src, Target::Virtual(90), &[]) {
        Err(GpuError::Compile { kernel, log, .. }) => {
            assert_eq!(kernel, "broken.cu");
            assert!(
                log.contains("undefined_fn") && log.contains("broken.cu(2)"),
                "log: {log}"
            );
            let msg = GpuError::Compile {
                kernel,
                log: log.clone(),
                source: cudarc::nvrtc::result::NvrtcError(
                    cudarc::nvrtc::sys::nvrtcResult::NVRTC_ERROR_COMPILATION,
                ),
            }
            .to_string();
            assert!(
                msg.contains("undefined_fn"),
                "the Display keeps the log: {msg}"
            );
        }
        other => panic!("expected a compile error, got {other:?}"),
    }
}

/// Host layout word in the probe's packing: size | x<<8 | y<<16 | z<<24 | flags<<32 | pad<<40 | align<<48.
fn host_layout_word<T: stoch_core::StochFloat>(samples: [T; 3]) -> u64 {
    let v = Stochastic::from_parts(samples, Flags::from_bits(0x5A));
    let size = std::mem::size_of::<Stochastic<T>>();
    let w = std::mem::size_of::<T>();
    // SAFETY: `v` is a live, fully initialised value of `size` bytes (padding written).
    let bytes =
        unsafe { std::slice::from_raw_parts((&v as *const Stochastic<T>).cast::<u8>(), size) };
    let one = |s: T| -> Vec<u8> {
        let x = Stochastic::new(s);
        // SAFETY: as above.
        unsafe { std::slice::from_raw_parts((&x as *const Stochastic<T>).cast::<u8>(), w) }.to_vec()
    };
    let find = |needle: &[u8]| {
        bytes
            .windows(needle.len())
            .position(|win| win == needle)
            .unwrap() as u64
    };
    let (x, y, z) = (
        find(&one(samples[0])),
        find(&one(samples[1])),
        find(&one(samples[2])),
    );
    let flags = bytes.iter().position(|&b| b == 0x5A).unwrap() as u64;
    // The host's padding: the upper bytes of the number 1, so that the flag byte's lane is a
    // normal number (the device writes zeros; both are valid values).
    let upper: Vec<u8> = if w == 4 {
        1.0f32.to_le_bytes()[1..].to_vec()
    } else {
        1.0f64.to_le_bytes()[1..].to_vec()
    };
    assert_eq!(
        bytes[flags as usize + 1..],
        upper[..],
        "padding: the upper bytes of 1"
    );
    let pad = flags + 1;
    size as u64
        | x << 8
        | y << 16
        | z << 24
        | flags << 32
        | pad << 40
        | (std::mem::align_of::<Stochastic<T>>() as u64) << 48
}

#[test]
fn device_layout_matches_host() {
    if !common::nvrtc_or_skip("device_layout_matches_host") {
        return;
    }
    let ops = KERNELS.iter().find(|k| k.name == "stoch_ops.cu").unwrap();
    let ptx = nvrtc::compile_kernel(ops, Target::Virtual(90)).unwrap().ptx;
    let body = &ptx[ptx.find(".entry stoch_layout_probe").expect("probe entry")..];
    let body = &body[..body.find("\n}").unwrap()];
    let consts: Vec<u64> = body
        .lines()
        .filter(|l| l.trim_start().starts_with("mov.u64") || l.trim_start().starts_with("mov.b64"))
        .filter_map(|l| l.trim_end_matches(';').rsplit([' ', '\t', ',']).next())
        .filter_map(|t| t.parse().ok())
        .collect();
    let f32_word = host_layout_word::<f32>([1.5, 2.5, 3.5]);
    let f64_word = host_layout_word::<f64>([1.5, 2.5, 3.5]);
    assert_eq!(f32_word & 0xFF, 16);
    assert_eq!(f64_word & 0xFF, 32);
    assert!(
        consts.contains(&f32_word),
        "stoch_float layout {f32_word:#x} not in probe constants {consts:x?}"
    );
    assert!(
        consts.contains(&f64_word),
        "stoch_double layout {f64_word:#x} not in probe constants {consts:x?}"
    );
}

#[test]
fn every_file_in_kernels_is_compiled_by_the_suite() {
    // No NVRTC needed: this checks the table the compile tests iterate over.
    let dir = common::kernels_dir();
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    files.sort();
    assert!(!files.is_empty());
    for f in &files {
        if f.ends_with(".cuh") {
            assert_eq!(
                f, HEADER_NAME,
                "unexpected header {f}: add it to the NVRTC in-memory headers"
            );
        } else {
            assert!(f.ends_with(".cu"), "unexpected file kernels/{f}");
            let k = KERNELS
                .iter()
                .find(|k| k.name == f)
                .unwrap_or_else(|| panic!("kernels/{f} is not in stoch_gpu::kernels::KERNELS"));
            let on_disk = std::fs::read_to_string(dir.join(f)).unwrap();
            assert_eq!(
                on_disk, k.source,
                "kernels/{f} differs from the embedded copy"
            );
        }
    }
    for k in KERNELS {
        assert!(
            files.iter().any(|f| f == k.name),
            "KERNELS lists {} but kernels/ has no such file",
            k.name
        );
    }
}
