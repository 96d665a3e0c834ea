//! Cost of one operation: plain `f64`/`f32` against `Sf64`/`Sf32` (`Stochastic<f64>`/`<f32>`),
//! one criterion group per operation (`add mul div sqrt mul_add exp`), benchmarks named
//! `<op>/<type>/plain` and `<op>/<type>/stochastic`.
//!
//! Each benchmark applies the operation element-wise over arrays of [`N`] values (throughput, as
//! in a loop of user code), with the default configuration: every instability check on. Run
//! with `cargo bench -p stoch-core --bench ops` (the workspace builds with
//! `-C target-cpu=native`); `-- add` selects one group.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkGroup, Criterion, Throughput};
use stoch_core::{StochFloat, Stochastic};

/// Elements per iteration.
const N: usize = 1024;

/// Deterministic positive operands in `[0.5, 2)`, away from any instability.
fn data<T: StochFloat>(seed: u64) -> Vec<T> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..N)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            T::from_f64(0.5 + 1.5 * ((s >> 11) as f64 / (1u64 << 53) as f64))
        })
        .collect()
}

fn stoch<T: StochFloat>(v: &[T]) -> Vec<Stochastic<T>> {
    v.iter().map(|&x| Stochastic::new(x)).collect()
}

/// Benchmarks `f` over the plain arrays and `g` over the stochastic ones, as `plain/T` and
/// `stochastic/T`.
fn pair<T: StochFloat>(
    group: &mut BenchmarkGroup<'_, criterion::measurement::WallTime>,
    f: impl Fn(T, T, T) -> T,
    g: impl Fn(Stochastic<T>, Stochastic<T>, Stochastic<T>) -> Stochastic<T>,
) {
    let (a, b, c) = (data::<T>(1), data::<T>(2), data::<T>(3));
    let mut out = vec![T::ZERO; N];
    group.bench_function(format!("{}/plain", T::NAME), |bench| {
        bench.iter(|| {
            let (a, b, c) = (black_box(&a), black_box(&b), black_box(&c));
            for (o, ((x, y), z)) in out.iter_mut().zip(a.iter().zip(b).zip(c)) {
                *o = f(*x, *y, *z);
            }
            black_box(&out);
        })
    });
    let (sa, sb, sc) = (stoch(&a), stoch(&b), stoch(&c));
    let mut sout = vec![Stochastic::<T>::ZERO; N];
    group.bench_function(format!("{}/stochastic", T::NAME), |bench| {
        bench.iter(|| {
            let (a, b, c) = (black_box(&sa), black_box(&sb), black_box(&sc));
            for (o, ((x, y), z)) in sout.iter_mut().zip(a.iter().zip(b).zip(c)) {
                *o = g(*x, *y, *z);
            }
            black_box(&sout);
        })
    });
}

macro_rules! op_group {
    ($fn_name:ident, $name:literal, |$a:ident, $b:ident, $c:ident| $e:expr) => {
        fn $fn_name(cr: &mut Criterion) {
            let mut group = cr.benchmark_group($name);
            group.throughput(Throughput::Elements(N as u64));
            pair::<f64>(&mut group, |$a, $b, $c| $e, |$a, $b, $c| $e);
            pair::<f32>(&mut group, |$a, $b, $c| $e, |$a, $b, $c| $e);
            group.finish();
        }
    };
}

op_group!(add, "add", |a, b, _c| a + b);
op_group!(mul, "mul", |a, b, _c| a * b);
op_group!(div, "div", |a, b, _c| a / b);
op_group!(sqrt, "sqrt", |a, _b, _c| a.sqrt());
op_group!(mul_add, "mul_add", |a, b, c| a.mul_add(b, c));
op_group!(exp, "exp", |a, _b, _c| a.exp());

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(std::time::Duration::from_millis(300))
        .measurement_time(std::time::Duration::from_secs(1));
    targets = add, mul, div, sqrt, mul_add, exp
}
criterion_main!(benches);
