//! `Sum` and `Product` of iterators of values and of references: the same samples as the
//! left fold with `+` / `*` under the same seed, the exact result's bracket, flags propagated.
//! The seed is process-wide, so the tests take one lock.

use std::sync::{Mutex, MutexGuard, PoisonError};

use stoch_core::{Flags, Instability, Sf32, Sf64};

static LOCK: Mutex<()> = Mutex::new(());

fn lock() -> MutexGuard<'static, ()> {
    LOCK.lock().unwrap_or_else(PoisonError::into_inner)
}

fn values(n: usize) -> Vec<Sf64> {
    (1..=n).map(|i| Sf64::new(1.0) / (i as f64)).collect()
}

#[test]
fn sum_matches_the_fold() {
    let _l = lock();
    let v = values(100);
    for seed in [1u64, 7, 0xDEAD_BEEF] {
        stoch_core::seed(seed);
        let fold = v.iter().fold(Sf64::ZERO, |a, x| a + *x);
        stoch_core::seed(seed);
        let by_value: Sf64 = v.clone().into_iter().sum();
        stoch_core::seed(seed);
        let by_ref: Sf64 = v.iter().sum();
        assert_eq!(by_value.samples(), fold.samples(), "seed {seed}");
        assert_eq!(by_ref.samples(), fold.samples(), "seed {seed}");
        // H_100 = 5.18737751763962: every sample within a few ulps of it, 14+ digits.
        for s in by_ref.samples() {
            assert!(
                (s - 5.187_377_517_639_621).abs() < 1e-13,
                "seed {seed}: {s}"
            );
        }
        assert!(by_ref.digits() >= 13, "{by_ref:?}");
    }
    // An exact sum stays exact.
    let ints: Vec<Sf64> = (1..=1000).map(|i| Sf64::new(i as f64)).collect();
    assert_eq!(ints.iter().sum::<Sf64>().samples(), [500_500.0; 3]);
    // The empty sum is an exact zero.
    assert!(std::iter::empty::<Sf64>().sum::<Sf64>().is_exact_zero());
    stoch_core::reset();
}

#[test]
fn product_matches_the_fold() {
    let _l = lock();
    let v: Vec<Sf64> = (1..=20).map(|i| Sf64::new(1.0 + 1.0 / i as f64)).collect();
    for seed in [3u64, 11] {
        stoch_core::seed(seed);
        let fold = v.iter().fold(Sf64::ONE, |a, x| a * *x);
        stoch_core::seed(seed);
        let by_value: Sf64 = v.clone().into_iter().product();
        stoch_core::seed(seed);
        let by_ref: Sf64 = v.iter().product();
        assert_eq!(by_value.samples(), fold.samples(), "seed {seed}");
        assert_eq!(by_ref.samples(), fold.samples(), "seed {seed}");
        // Π (1 + 1/i) for i = 1..=20 telescopes to 21 (inputs rounded: within 1e-13).
        for s in by_ref.samples() {
            assert!((s - 21.0).abs() < 1e-13, "seed {seed}: {s}");
        }
    }
    let pow2: Vec<Sf64> = (0..10).map(|_| Sf64::new(2.0)).collect();
    assert_eq!(pow2.iter().product::<Sf64>().samples(), [1024.0; 3]);
    assert_eq!(
        std::iter::empty::<Sf64>().product::<Sf64>().samples(),
        [1.0; 3]
    );
    stoch_core::reset();
}

#[test]
fn f32_sum_and_product() {
    let _l = lock();
    let v: Vec<Sf32> = (0..1000).map(|_| Sf32::new(0.1)).collect();
    stoch_core::seed(5);
    let fold = v.iter().fold(Sf32::ZERO, |a, x| a + *x);
    stoch_core::seed(5);
    let s: Sf32 = v.iter().sum();
    assert_eq!(s.samples(), fold.samples());
    // Round-off accumulates over 1000 additions: fewer digits than the 7 of the inputs.
    assert!((s.to_f64() - 100.0).abs() < 1e-2, "{s:?}");
    assert!(s.digits() < 7, "{s:?}");
    let p: Sf32 = [Sf32::new(1.5), Sf32::new(2.0), Sf32::new(4.0)]
        .iter()
        .product();
    assert_eq!(p.samples(), [12.0; 3]);
    stoch_core::reset();
}

#[test]
fn flags_propagate_through_sum_and_product() {
    let _l = lock();
    let mut v = values(10);
    v[4] = Sf64::from_parts(v[4].samples(), Flags::EMPTY.with(Instability::Division));
    v[7] = Sf64::from_parts(v[7].samples(), Flags::EMPTY.with(Instability::Power));
    let s: Sf64 = v.iter().sum();
    let p: Sf64 = v.iter().copied().product();
    for r in [s, p] {
        assert!(r.flags().contains(Instability::Division), "{r:?}");
        assert!(r.flags().contains(Instability::Power), "{r:?}");
    }
    // A cancellation inside the sum (10 digits − 0.9999: four digits lost) is detected,
    // counted and flagged.
    stoch_core::reset();
    let ten_digits = Sf64::from_samples([1.0 - 1e-10, 1.0, 1.0 + 1e-10]);
    let r: Sf64 = [ten_digits, Sf64::new(-0.9999)].iter().sum();
    assert!(r.flags().contains(Instability::Cancellation), "{r:?}");
    assert_eq!(stoch_core::report().count(Instability::Cancellation), 1);
    let r: Sf64 = [ten_digits, Sf64::new(-0.5)].into_iter().sum();
    assert!(!r.flags().contains(Instability::Cancellation), "{r:?}");
    // Noise × noise inside a product: a multiplication instability.
    let noise = Sf64::from_samples([1e-17, -1e-17, 2e-17]);
    let q: Sf64 = [noise, noise].iter().product();
    assert!(q.flags().contains(Instability::Multiplication), "{q:?}");
    stoch_core::reset();
}
