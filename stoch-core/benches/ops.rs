//! Cost of one operation: plain `f64`/`f32` against `Sf64`/`Sf32` (`Stochastic<f64>`/`<f32>`),
//! one criterion group per operation (`add sub mul div sqrt mul_add exp`), benchmarks named
//! `<op>/<type>/plain` and `<op>/<type>/stochastic` (throughput: independent operations) and
//! `<op>/<type>/plain-chain` and `<op>/<type>/stochastic-chain` (latency: each operation waits
//! for the one before).
//!
//! The throughput benchmarks apply the operation element-wise over arrays of [`N`] values, as in
//! a loop of user code (the plain loop is free to use vector instructions); the chains run
//! `x = op(x, b[i], c[i])` along the arrays (`x = sqrt(x + b[i])` for the square root, which
//! would otherwise converge to an exact 1, and `x = exp(-x) + b[i]` for `exp`). Every input goes
//! through `black_box` on each iteration, so nothing is folded or hoisted. All with the default
//! configuration: every instability check on. Run with `cargo bench -p stoch-core --bench ops`
//! (the workspace builds with `-C target-cpu=native`); `-- div` selects one group. The
//! `overhead` example prints the same figures as one table, with the checks off too.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkGroup, Criterion, Throughput};
use stoch_core::{StochFloat, Stochastic};

/// Elements per iteration.
const N: usize = 1024;

/// Deterministic positive operands, log-uniform in `[0.5, 2)` (long chains of products and
/// quotients neither overflow nor underflow), away from any instability; times `scale`.
fn data<T: StochFloat>(seed: u64, scale: f64) -> Vec<T> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..N)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            let u = (s >> 11) as f64 / (1u64 << 53) as f64;
            T::from_f64(scale * (2.0 * u - 1.0).exp2())
        })
        .collect()
}

fn stoch<T: StochFloat>(v: &[T]) -> Vec<Stochastic<T>> {
    v.iter().map(|&x| Stochastic::new(x)).collect()
}

type Group<'a> = BenchmarkGroup<'a, criterion::measurement::WallTime>;

/// Benchmarks `f` over the plain arrays and `g` over the stochastic ones, as `T/plain` and
/// `T/stochastic`; then the chains `x = fc(x, b, c)` and `x = gc(x, b, c)`, as `T/plain-chain`
/// and `T/stochastic-chain`. The third operand is small (the addend of `mul_add`).
fn pair<T: StochFloat>(
    group: &mut Group<'_>,
    f: impl Fn(T, T, T) -> T,
    g: impl Fn(Stochastic<T>, Stochastic<T>, Stochastic<T>) -> Stochastic<T>,
    fc: impl Fn(T, T, T) -> T,
    gc: impl Fn(Stochastic<T>, Stochastic<T>, Stochastic<T>) -> Stochastic<T>,
) {
    let (a, b, c) = (
        data::<T>(1, 1.0),
        data::<T>(2, 1.0),
        data::<T>(3, 1.0 / 1024.0),
    );
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
    group.bench_function(format!("{}/plain-chain", T::NAME), |bench| {
        bench.iter(|| {
            let (b, c) = (black_box(&b), black_box(&c));
            let mut x = black_box(a[0]);
            for (y, z) in b.iter().zip(c) {
                x = fc(x, *y, *z);
            }
            black_box(x)
        })
    });
    group.bench_function(format!("{}/stochastic-chain", T::NAME), |bench| {
        bench.iter(|| {
            let (b, c) = (black_box(&sb), black_box(&sc));
            let mut x = black_box(sa[0]);
            for (y, z) in b.iter().zip(c) {
                x = gc(x, *y, *z);
            }
            black_box(x)
        })
    });
}

macro_rules! op_group {
    ($fn_name:ident, $name:literal, |$a:ident, $b:ident, $c:ident| $e:expr) => {
        op_group!($fn_name, $name, |$a, $b, $c| $e, chain | $a, $b, $c | $e);
    };
    ($fn_name:ident, $name:literal, |$a:ident, $b:ident, $c:ident| $e:expr,
     chain |$x:ident, $y:ident, $z:ident| $ce:expr) => {
        fn $fn_name(cr: &mut Criterion) {
            let mut group = cr.benchmark_group($name);
            group.throughput(Throughput::Elements(N as u64));
            pair::<f64>(
                &mut group,
                |$a, $b, $c| $e,
                |$a, $b, $c| $e,
                |$x, $y, $z| $ce,
                |$x, $y, $z| $ce,
            );
            pair::<f32>(
                &mut group,
                |$a, $b, $c| $e,
                |$a, $b, $c| $e,
                |$x, $y, $z| $ce,
                |$x, $y, $z| $ce,
            );
            group.finish();
        }
    };
}

op_group!(add, "add", |a, b, _c| a + b);
op_group!(sub, "sub", |a, b, _c| a - b);
op_group!(mul, "mul", |a, b, _c| a * b);
op_group!(div, "div", |a, b, _c| a / b);
op_group!(
    sqrt,
    "sqrt",
    |a, _b, _c| a.sqrt(),
    chain | x,
    y,
    _z | (x + y).sqrt()
);
op_group!(mul_add, "mul_add", |a, b, c| a.mul_add(b, c));
op_group!(
    exp,
    "exp",
    |a, _b, _c| a.exp(),
    chain | x,
    y,
    _z | (-x).exp() + y
);

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(std::time::Duration::from_millis(300))
        .measurement_time(std::time::Duration::from_secs(1));
    targets = add, sub, mul, div, sqrt, mul_add, exp
}
criterion_main!(benches);
