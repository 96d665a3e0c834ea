//! Throughput of the accumulators, the error-free transformations and the composite pair.
//!
//! `cargo bench -p stoch-core --bench accum`

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use stoch_core::accum::{
    sum, CompositeSum, DoubleWordSum, Kahan, ModifiedNitadori, Naive, Narumi, Neumaier, Nitadori,
    Pairwise, ReproducibleSum, TakahashiIitaka,
};
use stoch_core::composite::{Composite, DoubleWord};
use stoch_core::eft::{two_product, two_product_dekker, two_sum};

/// Symmetric data like the global-sum experiment, in [-1e3, 1e3] (inside Narumi's range).
fn data(n: usize) -> Vec<f32> {
    let mut s = 0x2545_F491_4F6C_DD1Du64;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            ((s >> 40) as f32 / (1u32 << 24) as f32 - 0.5) * 2.0e3
        })
        .collect()
}

fn accumulators(c: &mut Criterion) {
    let xs = data(1 << 16);
    let wide: Vec<f64> = xs.iter().map(|&x| x as f64).collect();
    let mut g = c.benchmark_group("accumulate");
    g.throughput(Throughput::Elements(xs.len() as u64));
    macro_rules! bench {
        ($name:literal, $acc:ty, $xs:expr) => {
            g.bench_with_input(BenchmarkId::new($name, xs.len()), $xs, |b, xs| {
                b.iter(|| sum::<$acc, _>(black_box(xs)))
            });
        };
    }
    bench!("naive f32", Naive<f32>, &xs);
    bench!("naive f64", Naive<f64>, &wide);
    bench!("kahan f32", Kahan<f32>, &xs);
    bench!("neumaier f32", Neumaier<f32>, &xs);
    bench!("pairwise f32", Pairwise<f32>, &xs);
    bench!("takahashi-iitaka f32", TakahashiIitaka<f32>, &xs);
    bench!("nitadori f32", Nitadori<f32>, &xs);
    bench!("modified nitadori f32", ModifiedNitadori<f32>, &xs);
    bench!("narumi", Narumi, &xs);
    bench!("composite f32", CompositeSum<f32>, &xs);
    bench!("double-word f32", DoubleWordSum<f32>, &xs);
    bench!("reproducible f32", ReproducibleSum, &xs);
    bench!("reproducible f64", ReproducibleSum, &wide);
    g.finish();
}

fn transformations(c: &mut Criterion) {
    let xs = data(1024);
    let mut g = c.benchmark_group("eft");
    g.throughput(Throughput::Elements(xs.len() as u64 - 1));
    g.bench_function("two_sum f32", |b| {
        b.iter(|| {
            xs.windows(2)
                .map(|w| two_sum(black_box(w[0]), w[1]).1)
                .sum::<f32>()
        })
    });
    g.bench_function("two_product fma f32", |b| {
        b.iter(|| {
            xs.windows(2)
                .map(|w| two_product(black_box(w[0]), w[1]).1)
                .sum::<f32>()
        })
    });
    g.bench_function("two_product dekker f32", |b| {
        b.iter(|| {
            xs.windows(2)
                .map(|w| two_product_dekker(black_box(w[0]), w[1]).1)
                .sum::<f32>()
        })
    });
    g.bench_function("composite mul+div f32", |b| {
        b.iter(|| {
            xs.windows(2).fold(Composite::from_value(1.0f32), |acc, w| {
                (acc * Composite::from_value(black_box(w[0]))) / Composite::from_value(w[1])
            })
        })
    });
    g.bench_function("double-word mul+div f32", |b| {
        b.iter(|| {
            xs.windows(2)
                .fold(DoubleWord::from_value(1.0f32), |acc, w| {
                    (acc * DoubleWord::from_value(black_box(w[0]))) / DoubleWord::from_value(w[1])
                })
        })
    });
    g.finish();
}

criterion_group!(benches, accumulators, transformations);
criterion_main!(benches);
