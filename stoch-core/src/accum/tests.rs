//! Unit tests of the accumulators against sums computed exactly with `i128` integers.

use super::*;
use crate::eft::SplitMix;

/// Seeded test data ([`SplitMix`] underneath). Every test prints its seed on failure.
#[derive(Clone)]
struct Rng(SplitMix);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0.next()
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    /// Random sign, 24-bit significand, exponent in `[lo, hi]`.
    fn f32(&mut self, lo: i32, hi: i32) -> f32 {
        let m = (self.next() >> 40) as f32 / (1u32 << 24) as f32 * 0.5 + 0.5;
        let e = lo + self.below((hi - lo + 1) as usize) as i32;
        let s = if self.next() & 1 == 0 { 1.0 } else { -1.0 };
        s * m * 2f32.powi(e)
    }
    /// Random sign, 53-bit significand, exponent in `[lo, hi]`.
    fn f64(&mut self, lo: i32, hi: i32) -> f64 {
        let m = (self.next() >> 11) as f64 / (1u64 << 53) as f64 * 0.5 + 0.5;
        let e = lo + self.below((hi - lo + 1) as usize) as i32;
        let s = if self.next() & 1 == 0 { 1.0 } else { -1.0 };
        s * m * 2f64.powi(e)
    }
    fn shuffle<T>(&mut self, xs: &mut [T]) {
        for i in (1..xs.len()).rev() {
            xs.swap(i, self.below(i + 1));
        }
    }
}

/// `x / 2^-grid` as an exact integer (panics if `x` is not on the grid).
fn to_int(x: f64, grid: i32) -> i128 {
    let scaled = x * 2f64.powi(grid);
    assert_eq!(scaled.fract(), 0.0, "{x} is not a multiple of 2^-{grid}");
    scaled as i128
}

/// The exact sum of `xs` on the grid `2^-grid`, as (integer, f64 correctly rounded).
fn exact(xs: &[f64], grid: i32) -> (i128, f64) {
    let s: i128 = xs.iter().map(|&x| to_int(x, grid)).sum();
    (s, s as f64 * 2f64.powi(-grid))
}

const U32: f64 = 1.0 / (1u64 << 24) as f64;

fn check_bound<A: Accumulator<f32>>(xs: &[f32], bound: f64, seed: u64) {
    let wide: Vec<f64> = xs.iter().map(|&x| x as f64).collect();
    let (_, s) = exact(&wide, 66);
    let got = sum::<A, f32>(xs) as f64;
    assert!(
        (got - s).abs() <= bound,
        "{}: |{got} - {s}| = {} > {bound} (seed {seed:#x}, n = {})",
        A::NAME,
        (got - s).abs(),
        xs.len()
    );
}

/// Each method against its error bound, on random data with wide magnitude range (f32).
#[test]
fn methods_within_their_bounds_f32() {
    for seed in 1..=20u64 {
        let mut rng = Rng(SplitMix(seed));
        let n = 1 + rng.below(2000);
        let xs: Vec<f32> = (0..n).map(|_| rng.f32(-40, 40)).collect();
        let wide: Vec<f64> = xs.iter().map(|&x| x as f64).collect();
        let (_, s) = exact(&wide, 66);
        let abs_sum: f64 = wide.iter().map(|x| x.abs()).sum();
        let nf = n as f64;
        let u = U32;
        check_bound::<Naive<f32>>(&xs, 1.01 * (nf - 1.0) * u * abs_sum, seed);
        check_bound::<Kahan<f32>>(&xs, 2.0 * u * abs_sum + 4.0 * nf * u * u * abs_sum, seed);
        check_bound::<Neumaier<f32>>(&xs, u * s.abs() + 4.0 * nf * u * u * abs_sum, seed);
        let depth = (nf.log2().ceil()).max(1.0);
        check_bound::<Pairwise<f32>>(&xs, 1.01 * depth * u * abs_sum, seed);
        check_bound::<TakahashiIitaka<f32>>(&xs, u * s.abs() + 4.0 * nf * u * u * abs_sum, seed);
        check_bound::<DoubleWordSum<f32>>(&xs, u * s.abs() + 4.0 * nf * u * u * abs_sum, seed);
        check_bound::<CompositeSum<f32>>(&xs, u * s.abs() + 2.0 * nf * nf * u * u * abs_sum, seed);
        // The reproducible sum is correctly rounded: bit-equal to the exact sum rounded.
        let (si, _) = exact(&wide, 66);
        let want = si as f32 * 2f32.powi(-66);
        assert_eq!(sum::<ReproducibleSum, f32>(&xs), want, "seed {seed:#x}");
    }
}

/// The same in f64 (grid 2^-74: exponents in [-20, 20], sums below 2^31).
#[test]
fn methods_within_their_bounds_f64() {
    for seed in 100..=120u64 {
        let mut rng = Rng(SplitMix(seed));
        let n = 1 + rng.below(2000);
        let xs: Vec<f64> = (0..n).map(|_| rng.f64(-20, 20)).collect();
        let (si, s) = exact(&xs, 74);
        let abs_sum: f64 = xs.iter().map(|x| x.abs()).sum();
        let nf = n as f64;
        let u = f64::EPSILON / 2.0;
        let err = |got: f64| (got - s).abs();
        assert!(
            err(sum::<Naive<f64>, _>(&xs)) <= 1.01 * nf * u * abs_sum,
            "seed {seed:#x}"
        );
        let tight = u * s.abs() + 4.0 * nf * u * u * abs_sum;
        assert!(err(sum::<Kahan<f64>, _>(&xs)) <= 2.0 * u * abs_sum + 4.0 * nf * u * u * abs_sum);
        assert!(err(sum::<Neumaier<f64>, _>(&xs)) <= tight, "seed {seed:#x}");
        assert!(
            err(sum::<TakahashiIitaka<f64>, _>(&xs)) <= tight,
            "seed {seed:#x}"
        );
        assert!(
            err(sum::<DoubleWordSum<f64>, _>(&xs)) <= tight,
            "seed {seed:#x}"
        );
        // Correct rounding: i128 -> f64 conversion rounds to nearest even.
        assert_eq!(
            sum::<ReproducibleSum, f64>(&xs),
            si as f64 * 2f64.powi(-74),
            "seed {seed:#x}"
        );
        assert_eq!(sum::<ReproducibleSum, f64>(&xs), s);
    }
}

/// Narumi with rounding to nearest computes exactly `Σ round(y·2^27)·2^-27`; the truncating
/// variant and modified Nitadori stay within their absolute bounds.
#[test]
fn narumi_and_modified_nitadori_exact_models() {
    for seed in 200..=230u64 {
        let mut rng = Rng(SplitMix(seed));
        let n = 1 + rng.below(3000);
        // |terms| < 2^9, n < 2^12: partial sums below 2^20.
        let xs: Vec<f32> = (0..n).map(|_| rng.f32(-40, 8)).collect();
        let model: i128 = xs
            .iter()
            .map(|&x| ((x as f64) * 2f64.powi(27)).round_ties_even() as i128)
            .sum();
        let model = model as f64 * 2f64.powi(-27);
        let mut a = Narumi::nearest();
        a.add_slice(&xs);
        assert_eq!(a.result_f64(), model, "seed {seed:#x} n {n}");
        let wide: Vec<f64> = xs.iter().map(|&x| x as f64).collect();
        let (_, s) = exact(&wide, 66);
        assert!(
            (a.result_f64() - s).abs() <= n as f64 * 2f64.powi(-28),
            "seed {seed:#x}"
        );
        // Truncation: terms of 2^-3 and more exact, smaller ones truncated to the 2^-27 unit.
        let model: i128 = xs
            .iter()
            .map(|&x| ((x as f64) * 2f64.powi(27)).trunc() as i128)
            .sum();
        let mut t = Narumi::truncating();
        t.add_slice(&xs);
        assert_eq!(
            t.result_f64(),
            model as f64 * 2f64.powi(-27),
            "seed {seed:#x} n {n}"
        );
        assert!(
            (t.result_f64() - s).abs() < n as f64 * 2f64.powi(-27),
            "seed {seed:#x}"
        );
        // Modified Nitadori: high word on a 2^-2 grid, low word a naive f32 sum of parts
        // below 2^-3.
        let got = sum::<ModifiedNitadori<f32>, _>(&xs) as f64;
        let nf = n as f64;
        let bound = U32 * s.abs() + 2.0 * nf * nf * U32 * 0.125 + U32;
        assert!((got - s).abs() <= bound, "seed {seed:#x}: {got} vs {s}");
    }
}

/// Nitadori's trick keeps the sum to about one rounding of the result while the accumulated
/// value dominates the terms (its compensation is Fast2Sum's, exact under that condition),
/// where naive f32 summation loses about `n` roundings: over several seeds, lengths and both
/// signs of the dominant value, Nitadori's error is within the bound, and far below naive's
/// in total (one case alone can have naive land as close by luck).
#[test]
fn nitadori_with_dominant_accumulator() {
    let (mut nitadori_total, mut naive_total) = (0.0, 0.0);
    for seed in 300..306u64 {
        for (n, sign) in [(1000usize, 1.0f32), (4000, -1.0)] {
            let mut rng = Rng(SplitMix(seed));
            let mut xs = vec![sign * 1.0e6_f32];
            xs.extend((0..n).map(|_| rng.f32(-20, 5)));
            let wide: Vec<f64> = xs.iter().map(|&x| x as f64).collect();
            let (_, s) = exact(&wide, 66);
            let got = sum::<Nitadori<f32>, _>(&xs) as f64;
            let naive = sum::<Naive<f32>, _>(&xs) as f64;
            let bound = U32 * s.abs() + n as f64 * U32 * U32 * 1.0e6 * 4.0;
            assert!(
                (got - s).abs() <= bound,
                "seed {seed}, n {n}: {got} vs {s} (bound {bound:e})"
            );
            nitadori_total += (got - s).abs();
            naive_total += (naive - s).abs();
        }
    }
    assert!(
        nitadori_total * 4.0 < naive_total,
        "Nitadori's total error {nitadori_total:e} is not far below naive's {naive_total:e}"
    );
}

/// The symmetric data of the global-sum experiment: every method that is exact on
/// opposite pairs gives exactly zero.
#[test]
fn symmetric_pairs_sum_to_zero() {
    let seed = 400;
    let mut rng = Rng(SplitMix(seed));
    let mut xs = Vec::new();
    for _ in 0..500 {
        let x = rng.f32(-20, 20);
        xs.push(x);
        xs.push(-x);
    }
    rng.shuffle(&mut xs);
    assert_eq!(sum::<ReproducibleSum, f32>(&xs), 0.0);
    let small: Vec<f32> = xs.iter().map(|&x| x * 2f32.powi(-15)).collect();
    assert_eq!(Narumi::default().tap(&small).result_f64(), 0.0);
    assert!(
        sum::<Naive<f32>, _>(&xs) != 0.0,
        "seed {seed:#x}: naive float is exact?"
    );
}

trait Tap: Accumulator<f32> {
    fn tap(mut self, xs: &[f32]) -> Self {
        self.add_slice(xs);
        self
    }
}
impl<A: Accumulator<f32>> Tap for A {}

/// Random partition of `xs` (after a random permutation) into workers, each summed in order,
/// merged in a random order.
fn random_split<A: Accumulator<T>, T: Copy>(xs: &[T], rng: &mut Rng) -> A {
    let mut v = xs.to_vec();
    rng.shuffle(&mut v);
    let workers = 1 + rng.below(64);
    let mut parts: Vec<A> = chunks(&v, workers)
        .map(|c| {
            let mut a = A::default();
            a.add_slice(c);
            a
        })
        .collect();
    rng.shuffle(&mut parts);
    let mut total = A::default();
    for p in &parts {
        total.merge(p);
    }
    total
}

/// Bit-identical results over random permutations and splits, for wildly ranging f64 data
/// (subnormals to 1e300, mixed signs), f32 data, and Narumi in its range.
#[test]
fn reproducible_sum_is_order_independent() {
    for seed in 500..=510u64 {
        let mut rng = Rng(SplitMix(seed));
        let n = 1 + rng.below(5000);
        let mut xs: Vec<f64> = (0..n).map(|_| rng.f64(-1074, 1000)).collect();
        xs.push(f64::MIN_POSITIVE / 3.0);
        xs.push(-1.0e300);
        let first = sum::<ReproducibleSum, f64>(&xs).to_bits();
        for trial in 0..20 {
            let got = random_split::<ReproducibleSum, f64>(&xs, &mut rng).result_f64();
            assert_eq!(got.to_bits(), first, "seed {seed:#x} trial {trial}");
        }
        let ys: Vec<f32> = (0..n).map(|_| rng.f32(-149, 127)).collect();
        let first = sum::<ReproducibleSum, f32>(&ys).to_bits();
        for trial in 0..20 {
            let got = random_split::<ReproducibleSum, f32>(&ys, &mut rng).result_f32();
            assert_eq!(got.to_bits(), first, "seed {seed:#x} trial {trial}");
        }
        let zs: Vec<f32> = (0..n.min(4000)).map(|_| rng.f32(-40, 7)).collect();
        let first = Narumi::default().tap(&zs).result_f64().to_bits();
        let nearest = Narumi::nearest().tap(&zs).result_f64().to_bits();
        for trial in 0..20 {
            let got = random_split::<Narumi, f32>(&zs, &mut rng).result_f64();
            assert_eq!(got.to_bits(), first, "narumi seed {seed:#x} trial {trial}");
            let mut v = zs.clone();
            rng.shuffle(&mut v);
            let got = Narumi::nearest().tap(&v).result_f64();
            assert_eq!(
                got.to_bits(),
                nearest,
                "narumi nearest seed {seed:#x} trial {trial}"
            );
        }
    }
}

/// Naive float summation is not order-independent on the same data (so the test above
/// means something).
#[test]
fn naive_sum_depends_on_order() {
    let seed = 600;
    let mut rng = Rng(SplitMix(seed));
    let xs: Vec<f32> = (0..1000).map(|_| rng.f32(-20, 20)).collect();
    let first = sum::<Naive<f32>, _>(&xs);
    let differs = (0..20).any(|_| random_split::<Naive<f32>, f32>(&xs, &mut rng).result() != first);
    assert!(differs, "seed {seed:#x}");
}

#[test]
fn reproducible_special_values_and_range() {
    let mut s = ReproducibleSum::new();
    s.add_f64(f64::MAX);
    s.add_f64(f64::MAX);
    assert_eq!(s.result_f64(), f64::INFINITY);
    s.add_f64(-f64::MAX);
    assert_eq!(s.result_f64(), f64::MAX);
    assert_eq!(s.result_f32(), f32::INFINITY);
    s.add_f64(f64::NEG_INFINITY);
    assert_eq!(s.result_f64(), f64::NEG_INFINITY);
    s.add_f64(f64::INFINITY);
    assert!(s.result_f64().is_nan());
    let mut t = ReproducibleSum::new();
    t.add_f64(5e-324);
    t.add_f64(5e-324);
    assert_eq!(t.result_f64(), 1e-323);
    assert_eq!(t.result_f32(), 0.0);
    t.add_f64(-1.5e-323);
    assert_eq!(t.result_f64(), -5e-324);
    // Halfway cases round to even: 1 + 2^-53 -> 1, 1 + 3·2^-53 -> 1 + 2^-51.
    let mut h = ReproducibleSum::new();
    h.add_f64(1.0);
    h.add_f64(2f64.powi(-53));
    assert_eq!(h.result_f64(), 1.0);
    h.add_f64(2f64.powi(-52));
    assert_eq!(h.result_f64(), 1.0 + 2f64.powi(-51));
    // f32 subnormal rounding straight from the exact value.
    let mut g = ReproducibleSum::new();
    g.add_f64(2f64.powi(-150) * 3.0);
    assert_eq!(g.result_f32(), f32::from_bits(2)); // 1.5 units: tie, to even
}

#[test]
fn pairwise_merges_by_level() {
    let xs: Vec<f64> = (1..=1000).map(f64::from).collect();
    assert_eq!(sum_split::<Pairwise<f64>, _>(&xs, 7), 500_500.0);
    assert_eq!(sum_parallel::<Pairwise<f64>, _>(&xs, 7), 500_500.0);
    assert_eq!(sum::<Pairwise<f64>, _>(&[]), 0.0);
}

/// Modified Nitadori's `LARGE` offset (seed 002, §3.2 and Figure 6). Nitadori's Fast2Sum is
/// exact only while `|hs| >= |term|`; summed from zero, that fails as soon as a term larger
/// than the running sum arrives, and whatever the high word had gathered below half an ulp of
/// the new sum is absorbed and lost. Starting the high word at `LARGE = 3·2^20` makes the
/// condition hold from the first term: every term below `2^-3` goes at once, exactly, into the
/// low word, and nothing is absorbed later.
///
/// Here 64 terms `k·2^-40` (exact sum `2080·2^-40 < 2^-25`, below half an ulp of 1) are
/// followed by `1` and `-1`. Plain Nitadori holds the tiny sum `S` exactly in `hs`, then
/// Fast2Sum(S, 1) gives `fl(S + 1) = 1` and the error `1 - fl(1 - S) = 0`: `S` is gone, and
/// the result is 0. The modified trick keeps `S` exactly in its low word.
#[test]
fn modified_nitadori_large_offset_keeps_what_nitadori_absorbs() {
    // The paper's LARGE, `3 << (LARGE_SHIFT - 1)` with LARGE_SHIFT = 21.
    assert_eq!(ModifiedNitadori::<f32>::PAPER_LARGE, f64::from(3u32 << 20));
    let mut xs: Vec<f32> = (1..=64).map(|k| k as f32 * 2f32.powi(-40)).collect();
    xs.extend([1.0, -1.0]);
    let wide: Vec<f64> = xs.iter().map(|&x| f64::from(x)).collect();
    let (si, s) = exact(&wide, 40);
    assert_eq!(si, 2080, "the exact sum is 2080·2^-40");
    assert!(s < 2f64.powi(-25));

    // Plain Nitadori, from zero: the tiny sum is absorbed by the first large term.
    assert_eq!(sum::<Nitadori<f32>, _>(&xs), 0.0);
    let mut plain = Nitadori::<f32>::default();
    plain.add_slice(&xs);
    assert_eq!(plain.result_f64(), 0.0, "plain Nitadori keeps nothing of S");
    // The offset is the whole difference: LARGE = 0 is plain Nitadori again.
    assert_eq!(sum::<ModifiedNitadori<f32>, _>(&[]), 0.0);
    let mut zero_large = ModifiedNitadori::with_large(0.0_f32);
    zero_large.add_slice(&xs);
    assert_eq!(zero_large.result(), 0.0);

    // Modified Nitadori with the paper's LARGE: the high word never leaves LARGE, the low word
    // holds S exactly, and the result is the exact sum (in f32 and f64).
    let mut m = ModifiedNitadori::<f32>::default();
    m.add_slice(&xs);
    assert_eq!(m.result_f64(), s);
    assert_eq!(f64::from(m.result()), s);
    assert_eq!(sum::<ModifiedNitadori<f32>, _>(&xs), s as f32);
    assert_eq!(m.hs, 3_145_728.0, "high word back at LARGE");
    assert_eq!(f64::from(m.ls), s, "low word = S exactly");

    // What LARGE = 3·2^20 guarantees: the high word lives in [2^21, 2^22), on a grid of 2^-2,
    // and the rest of each term goes, exactly, to the low word. 0.3 splits as 0.25 + 0.05.
    let mut g = ModifiedNitadori::<f32>::default();
    g.add(0.3);
    assert_eq!(g.hs - g.large, 0.25, "high word on the 2^-2 grid");
    assert_eq!(g.ls, 0.3_f32 - 0.25, "the rest in the low word");
    assert_eq!(g.result(), 0.3);
}

/// Narumi's carry (seed 002, Figure 8, lines 45-50, `LOWER_SHIFT = 7`). `0.1f32` is
/// `13421773·2^-27` exactly and below `2^-3`: Fast2Sum leaves the high word at `LARGE` and the
/// whole term goes to the integer word, `13421773` units per term, so `li` would pass
/// `i32::MAX` after 160 terms of the same sign. The carry every `LOWER_LOOP = 128` terms moves
/// the top 7 bits into the high word; with it, 10^5 such terms (625 times what `li` can hold)
/// sum exactly. Same for `-0.1`, for random same-sign terms against the exact model
/// `Σ trunc(y·2^27)` (or round-to-nearest), and for partial sums merged: two halves split off
/// the 128-term cycle, and random splits in random order.
#[test]
fn narumi_carry_keeps_the_integer_word_from_overflowing() {
    const N: usize = 100_000;
    for sign in [1.0_f32, -1.0] {
        let y = sign * 0.1_f32;
        let unit = to_int(f64::from(y), 27);
        assert_eq!(unit, i128::from(sign as i32) * 13_421_773);
        // Without the carry the low word overflows long before the end.
        assert!(unit.abs() * 160 > i128::from(i32::MAX));
        let xs = vec![y; N];
        let wide: Vec<f64> = xs.iter().map(|&x| f64::from(x)).collect();
        let (si, s) = exact(&wide, 27);
        assert_eq!(si, unit * N as i128);
        assert!(si.abs() > 600 * i128::from(i32::MAX));
        for empty in [Narumi::truncating(), Narumi::nearest()] {
            let mut a = empty;
            a.add_slice(&xs);
            assert_eq!(a.result_f64(), s, "{:?}, sign {sign}", empty.rounding());
            assert_eq!(Accumulator::result(&a), s as f32);
            // Two partial accumulators, the split not on a multiple of LOWER_LOOP.
            let (l, r) = xs.split_at(37_011);
            let (mut left, mut right) = (empty, empty);
            left.add_slice(l);
            right.add_slice(r);
            left.merge(&right);
            assert_eq!(left.result_f64().to_bits(), a.result_f64().to_bits());
            assert_eq!(left.result_f64(), s);
        }
    }
    // Random positive terms, mostly below 2^-3 (whole into the integer word), some up to 8.
    let seed = 700;
    let mut rng = Rng(SplitMix(seed));
    let xs: Vec<f32> = (0..N).map(|_| rng.f32(-20, 2).abs()).collect();
    let trunc: i128 = xs
        .iter()
        .map(|&x| (f64::from(x) * 2f64.powi(27)).trunc() as i128)
        .sum();
    let nearest: i128 = xs
        .iter()
        .map(|&x| (f64::from(x) * 2f64.powi(27)).round_ties_even() as i128)
        .sum();
    let low: i128 = xs
        .iter()
        .filter(|&&x| x < 0.125)
        .map(|&x| (f64::from(x) * 2f64.powi(27)).trunc() as i128)
        .sum();
    assert!(
        low > 10 * i128::from(i32::MAX),
        "seed {seed:#x}: low parts too small"
    );
    let trunc = trunc as f64 * 2f64.powi(-27);
    let nearest = nearest as f64 * 2f64.powi(-27);
    let mut t = Narumi::truncating();
    t.add_slice(&xs);
    assert_eq!(t.result_f64(), trunc, "seed {seed:#x}");
    let mut r = Narumi::nearest();
    r.add_slice(&xs);
    assert_eq!(r.result_f64(), nearest, "seed {seed:#x}");
    let (l, rest) = xs.split_at(N / 3 + 1);
    let mut left = Narumi::truncating().tap(l);
    left.merge(&Narumi::truncating().tap(rest));
    assert_eq!(
        left.result_f64(),
        trunc,
        "seed {seed:#x}: two halves merged"
    );
    for trial in 0..4 {
        let got = random_split::<Narumi, f32>(&xs, &mut rng).result_f64();
        assert_eq!(got, trunc, "seed {seed:#x} trial {trial}");
    }
}
