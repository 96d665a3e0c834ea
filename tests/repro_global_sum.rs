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

/// `γ_k = k·u / (1 − k·u)` (Higham), for the unit round-off `u`.
fn gamma(k: usize, u: f64) -> f64 {
    k as f64 * u / (1.0 - k as f64 * u)
}

/// The composite pairs against float and double, with the figures of seed 000 (Table II, one
/// thread, 1000 values, O(1e-6) & O(1e6); mean |result| over the four shuffles):
///
/// | seed 000, Table II | float | double | float2 |
/// |---|---:|---:|---:|
/// | shuffles (1)-(4) | 4.9, 2.1, 1.6, 0.5 | 6.2e-9, 6.9e-10, 8.4e-9, 1.5e-9 | 1.9e-5, 5.3e-5, 4.3e-5, 1.1e-5 |
/// | mean | 2.3 | 4.2e-9 | 3.2e-5 |
///
/// (Table IV, 100 threads: float2 3.8e-5 against double's 2.9e-9; Table V, ten threads:
/// float2 1.2e-4, 1.2e-4, 1.2e-4, 9.2e-5 against double's 0 to 1.9e-9.) The paper's own text:
/// float2 "correct[s] the results significantly (i.e., between 4 and 5 orders of magnitude)"
/// and ends "closer to the double precision solution than the single precision
/// representation" -- not within a few units of double: its float2 errors are 7e3 to 1e5 times
/// double's. Here (CPU, IEEE round to nearest) float2's mean error is 50 to 190 times double's
/// at 1000 values (printed by this test), 20 to 230 times over the suite's sizes and ranges.
///
/// What this test asserts, per (range, worker count):
/// - float2's mean error is at least 10^3 below float's (the paper: 10^4 to 10^5);
/// - float2's mean error is within `FLOAT2_VS_DOUBLE` (10^3) of double's, and above double's
///   (a float2 as accurate as double would be a bug in the data or the method);
/// - every single result of float2 and double2 obeys the bound of compensated summation
///   (Figure 3's addition is Ogita-Rump-Oishi's Sum2: exact TwoSum errors accumulated in
///   working precision): `|result − 0| ≤ 2·γ²_n·Σ|x|`, with `u = 2^-24` for float2 and
///   `u = 2^-53` for double2. For double2 at n = 1000 that is about 1e-17, many decades below
///   both double's error and one ulp of `Σ|x|` in double (which is 3e-8 at range 2).
#[test]
fn composite_ends_near_double() {
    const FLOAT2_VS_DOUBLE: f64 = 1e3;
    for range in [2, 3] {
        for workers in [1, 10, 100, 1000] {
            let cfg = GlobalSumConfig {
                ranges: vec![range],
                workers: vec![workers],
                ..config(vec![
                    Method::Float,
                    Method::Double,
                    Method::Float2,
                    Method::Double2,
                ])
            };
            let rows = run_global_sum(&cfg, &mut |_| {});
            let data = stoch::repro::global_sum_data(&cfg, 1000, range);
            let n = data.len();
            let abs_sum: f64 = data.iter().map(|x| x.abs()).sum();
            let double = mean_abs(&rows, Method::Double);
            let float2 = mean_abs(&rows, Method::Float2);
            let double2 = mean_abs(&rows, Method::Double2);
            let float = mean_abs(&rows, Method::Float);
            let at = format!("seed {SEED}, range {range}, {workers} workers");
            eprintln!(
                "{at}: float {float:e} float2 {float2:e} double {double:e} double2 {double2:e} \
                 (float2/double {:.0}, float/float2 {:.1e})",
                float2 / double,
                float / float2
            );
            assert!(double > 0.0, "{at}: double exact everywhere?");
            assert!(
                float > 1e6 * double,
                "{at}: float {float:e} vs double {double:e}"
            );
            assert!(
                float2 < 1e-3 * float,
                "{at}: float2 {float2:e} vs float {float:e}"
            );
            assert!(
                float2 < FLOAT2_VS_DOUBLE * double && float2 > double,
                "{at}: float2 {float2:e} vs double {double:e}"
            );
            for (m, u) in [
                (Method::Float2, 2f64.powi(-24)),
                (Method::Double2, 2f64.powi(-53)),
            ] {
                let bound = 2.0 * gamma(n, u).powi(2) * abs_sum;
                for r in rows.iter().filter(|r| r.method == m) {
                    assert!(
                        r.outcome.value.abs() <= bound,
                        "{at}, {:?}: {m:?} {:e} above the Sum2 bound {bound:e}",
                        r.order,
                        r.outcome.value
                    );
                }
            }
        }
    }
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
///
/// Which random streams a sum gets depends on the threads that the other tests of this binary
/// start first, and DSA's estimate at 95% confidence may show one digit for a noise value now
/// and then: the sum is made 16 ways (four shuffled orders, four worker counts), at least 14
/// must be computed zeros and none may show more than one digit (on this data, 0 of 200 shuffled
/// sums with up to 25 workers missed). Sorted orders are left out: there, one rounding
/// direction's error is larger than the other's all along the sum, the samples share that bias,
/// and with two workers the result showed one digit in each of three runs.
#[test]
fn stochastic_float_sum_is_a_computed_zero() {
    let data = symmetric_data(1000, &RANGES[2], SEED);
    let mut zeros = 0;
    let mut seen = Vec::new();
    for shuffle in 1..=4 {
        let order = Order::Shuffled(shuffle);
        let ordered = order.apply(&data, SEED);
        for workers in [1, 2, 5, 10] {
            let s = global_sum(Method::StochFloat, &ordered, workers);
            assert!(
                s.digits.is_some_and(|d| d <= 1),
                "seed {SEED}, {order:?}, {workers}: {s:?}"
            );
            zeros += usize::from(s.computed_zero == Some(true));
            seen.push((order, workers, s));
        }
    }
    assert!(zeros >= 14, "{zeros} computed zeros of 16: {seen:?}");
    stoch_core::reset();
}

/// DSA measures what each method keeps: with one `1.0` added to the symmetric data (exact sum
/// 1), naive `Sf32` is a computed zero (float keeps nothing), the composite pair over `Sf32`
/// keeps digits, `Sf64` Kahan keeps at least naive `Sf64`'s, double2 over `Sf64` keeps 15; and
/// DSA never claims more than the result's correct digits (plus one for the rounding of the
/// estimate to an integer).
#[test]
fn dsa_digits_of_each_method() {
    let mut cfg = config(stoch::repro::DSA_PAIRS.iter().map(|p| p.0).collect());
    cfg.ranges = vec![2, 3];
    cfg.workers = vec![1, 1000];
    let rows = stoch::repro::run_dsa_digits(&cfg, &mut |_| {});
    assert_eq!(rows.len(), 2 * 2 * 6);
    for range in [2, 3] {
        for workers in [1, 1000] {
            let at = format!("seed {SEED}, range {range}, {workers} workers");
            let get = |m: Method| {
                let r = rows
                    .iter()
                    .find(|r| r.range == range && r.workers == workers && r.method == m)
                    .unwrap();
                let correct = stoch::repro::digits_of_one(r.outcome.value);
                let d = r.outcome.digits.unwrap();
                eprintln!(
                    "{at}: {:<12} {:e} DSA {d} correct {correct:.1}",
                    m.label(),
                    r.outcome.value
                );
                assert!(
                    f64::from(d) <= correct + 1.0,
                    "{at}: {m:?} claims {d} digits, has {correct:.1}"
                );
                d
            };
            let s32 = get(Method::StochFloat);
            let f2 = get(Method::StochFloat2);
            let s64 = get(Method::StochDouble);
            let k64 = get(Method::StochDoubleKahan);
            let d2 = get(Method::StochDouble2);
            let _ = get(Method::StochKahan);
            assert_eq!(s32, 0, "{at}: naive Sf32");
            assert!(f2 >= 3, "{at}: float2 of Sf32 keeps {f2}");
            assert!(s64 >= 5 && k64 >= s64, "{at}: Sf64 {s64}, Sf64 Kahan {k64}");
            assert!(d2 >= 14, "{at}: double2 of Sf64 keeps {d2}");
        }
    }
    stoch_core::reset();
}
