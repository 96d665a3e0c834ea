//! Key facts of the global-sum experiment (seeds 000, 001, 003) at small sizes.

use stoch::repro::{
    global_sum, run_global_sum, symmetric_data, GlobalSumConfig, Method, Order, RANGES,
};

const SEED: u64 = 2010;

fn config(methods: Vec<Method>) -> GlobalSumConfig {
    GlobalSumConfig {
        sizes: vec![1000],
        ranges: vec![2],
        workers: vec![1, 10, 100],
        methods,
        orders: Order::PAPER.to_vec(),
        seed: SEED,
    }
}

fn mean_abs(rows: &[stoch::repro::GlobalSumRow], m: Method) -> f64 {
    let v: Vec<f64> = rows
        .iter()
        .filter(|r| r.method == m)
        .map(|r| r.outcome.value.abs())
        .collect();
    v.iter().sum::<f64>() / v.len() as f64
}

/// Float's global-sum error is orders of magnitude above double's (seed 000: 1e0 vs 1e-9).
#[test]
fn float_error_is_orders_of_magnitude_above_double() {
    let rows = run_global_sum(&config(vec![Method::Float, Method::Double]), &mut |_| {});
    let (float, double) = (
        mean_abs(&rows, Method::Float),
        mean_abs(&rows, Method::Double),
    );
    eprintln!("seed {SEED}: mean |float| = {float:e}, mean |double| = {double:e}");
    assert!(
        float > 1e-3,
        "seed {SEED}: float error {float:e} unexpectedly small"
    );
    assert!(
        float > 1e5 * double,
        "seed {SEED}: float {float:e} vs double {double:e}"
    );
}

/// The composite pairs end near double's error. Seed 000 reports float2 errors of 1e-5 to
/// 1e-7 against double's 1e-8 to 1e-9 and float's 1e0: float2 removes 4 to 5 of the ~9
/// decades between float and double. We check that float2's mean error is within three
/// decades of double's while float's is more than six decades above, and that double2 ends
/// at or below double's error.
#[test]
fn composite_ends_near_double() {
    let rows = run_global_sum(
        &config(vec![
            Method::Float,
            Method::Double,
            Method::Float2,
            Method::Double2,
        ]),
        &mut |_| {},
    );
    let double = mean_abs(&rows, Method::Double);
    let float2 = mean_abs(&rows, Method::Float2);
    let double2 = mean_abs(&rows, Method::Double2);
    let float = mean_abs(&rows, Method::Float);
    eprintln!(
        "seed {SEED}: float {float:e} float2 {float2:e} double {double:e} double2 {double2:e}"
    );
    assert!(double > 0.0, "seed {SEED}: double exact everywhere?");
    assert!(
        float > 1e6 * double,
        "seed {SEED}: float {float:e} vs double {double:e}"
    );
    assert!(
        float2 < 1e3 * double,
        "seed {SEED}: float2 {float2:e} vs double {double:e}"
    );
    assert!(
        float2 < 1e-4 * float,
        "seed {SEED}: float2 {float2:e} vs float {float:e}"
    );
    assert!(
        double2 <= double,
        "seed {SEED}: double2 {double2:e} vs double {double:e}"
    );
}

/// The reproducible sum is bit-identical across orders and worker counts (and exact here).
#[test]
fn reproducible_sum_is_bit_identical_across_orders_and_workers() {
    for (range, values) in RANGES.iter().enumerate() {
        let data = symmetric_data(2000, values, SEED + range as u64);
        let mut data = data;
        // Break the symmetry so the exact sum is not zero.
        data.push(0.1);
        data.push(3.0e6);
        let first = global_sum(Method::Reproducible, &data, 1).value.to_bits();
        for order in Order::PAPER {
            let ordered = order.apply(&data, SEED);
            for workers in [1, 3, 10, 100, 1000] {
                let got = global_sum(Method::Reproducible, &ordered, workers).value;
                assert_eq!(
                    got.to_bits(),
                    first,
                    "seed {SEED}, range {range}, {order:?}, {workers} workers"
                );
            }
        }
        assert_eq!(f64::from_bits(first), (3.0e6_f32 + 0.1_f32) as f64);
    }
}

/// The stochastic float sum of the symmetric data is a computed zero (`@.0`), while plain
/// float's non-zero result gives no hint that it is noise.
#[test]
fn stochastic_float_sum_is_a_computed_zero() {
    let data = symmetric_data(1000, &RANGES[2], SEED);
    for order in [Order::Shuffled(1), Order::Ascending] {
        let ordered = order.apply(&data, SEED);
        for workers in [1, 10] {
            let s = global_sum(Method::StochFloat, &ordered, workers);
            assert_eq!(
                s.computed_zero,
                Some(true),
                "seed {SEED}, {order:?}, {workers}: {s:?}"
            );
            assert_eq!(s.digits, Some(0));
        }
    }
    stoch_core::reset();
}
