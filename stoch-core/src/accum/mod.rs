//! Accumulators: one trait, the summation methods of the source papers, and a reproducible sum.
//!
//! Every method implements [`Accumulator`]: `add` one term, `merge` another accumulator's
//! partial sum (what a parallel reduction does at the end), and read the `result`.
//!
//! | type | method | source | error of `n` terms (u = unit roundoff) |
//! |---|---|---|---|
//! | [`Naive`] | recursive `s += x` | | `(n-1)u Σ|x|` |
//! | [`Kahan`] | Kahan's compensated sum | Kahan 1965 | `2u|S| + O(nu²)Σ|x|` |
//! | [`Neumaier`] | Kahan-Babuška-Neumaier | Neumaier 1974 | `u|S| + O(nu²)Σ|x|` |
//! | [`Pairwise`] | pairwise (binary counter, `O(log n)` memory) | | `u⌈log2 n⌉Σ|x|` |
//! | [`TakahashiIitaka`] | pair of floats, TwoSum + FastTwoSum | seed 002, Fig. 3-4 | `u|S| + O(nu²)Σ|x|` |
//! | [`Nitadori`] | pair, FastTwoSum, low words summed | seed 002, Fig. 5 | needs `|acc| >= |x|` |
//! | [`ModifiedNitadori`] | Nitadori from `LARGE = 3·2^20` | seed 002, Fig. 6 | `2^-2` grid: absolute `n·2^-26` worst |
//! | [`Narumi`] | float + 32-bit int fixed point, `LOWER_SHIFT` carry | seed 002, Fig. 8 | absolute `< n·2^-27` |
//! | [`CompositeSum`] | composite pair, Figure 3 addition | seed 000 | `u|S| + O(nu²)Σ|x|` |
//! | [`DoubleWordSum`] | normalised double word (DWPlusFP) | Joldes et al. | `u|S| + O(nu²)Σ|x|` |
//! | [`ReproducibleSum`] | exact long fixed-point accumulator | Kulisch | correctly rounded |
//!
//! The generic ones work for `f32`, `f64` and any [`EftFloat`] (the stochastic type too, so
//! that DSA can estimate the digits each method keeps). [`Narumi`] is the `float + int` of
//! the paper (`f32` in, `f32` or `f64` out) and [`ReproducibleSum`] takes `f32` and `f64`.
//!
//! Only [`ReproducibleSum`] (always) and [`Narumi`] (inside its range, see there) give
//! bit-identical results for any order of the terms and any split across workers.
//!
//! # Examples
//!
//! ```
//! use stoch_core::accum::{sum, Kahan, Naive, Neumaier, ReproducibleSum};
//!
//! let xs = [1.0e8_f32, 1.0, -1.0e8, 1.0];
//! assert_eq!(sum::<Naive<f32>, _>(&xs), 1.0); // the first 1.0 is lost
//! assert_eq!(sum::<Kahan<f32>, _>(&xs), 1.0); // and Kahan loses its correction at -1e8
//! assert_eq!(sum::<Neumaier<f32>, _>(&xs), 2.0);
//! assert_eq!(sum::<ReproducibleSum, f32>(&xs), 2.0);
//! ```

use crate::composite::{Composite, DoubleWord};
use crate::eft::{fast_two_sum, two_sum, EftFloat};

mod narumi;
mod repro;

pub use narumi::{Narumi, NarumiRounding};
pub use repro::ReproducibleSum;

/// A running sum: add terms, merge partial sums, read the result.
///
/// `Default` is the empty sum. `merge` combines two partial sums as a parallel reduction
/// does; for most methods the result then depends on how the terms were split, for
/// [`ReproducibleSum`] it never does.
///
/// # Examples
///
/// ```
/// use stoch_core::accum::{Accumulator, Neumaier};
///
/// let mut left = Neumaier::<f64>::default();
/// let mut right = Neumaier::default();
/// left.add(1.0e100);
/// right.add(1.0);
/// right.add(-1.0e100);
/// left.merge(&right);
/// assert_eq!(left.result(), 1.0);
/// ```
pub trait Accumulator<T>: Clone + Default {
    /// A short name for tables (`"naive"`, `"kahan"`, ...).
    const NAME: &'static str;

    /// Adds one term.
    fn add(&mut self, x: T);

    /// Adds the partial sum held by `other`.
    fn merge(&mut self, other: &Self);

    /// The sum so far.
    #[must_use]
    fn result(&self) -> T;

    /// The sum so far as `f64`, without rounding a multi-word sum to `T` first (for the pairs:
    /// each word widened, then added in `f64`, as seed 002's code writes `fd = hs + ls` in
    /// double). The default widens [`Accumulator::result`].
    ///
    /// ```
    /// use stoch_core::accum::{Accumulator, TakahashiIitaka};
    /// let mut a = TakahashiIitaka::<f32>::default();
    /// a.add(1.0);
    /// a.add(1.0e-10);
    /// assert_eq!(a.result(), 1.0);
    /// assert_eq!(a.result_f64(), 1.0 + 1.0e-10_f32 as f64);
    /// ```
    #[must_use]
    fn result_f64(&self) -> f64
    where
        T: EftFloat,
    {
        self.result().to_f64()
    }

    /// Adds every term of `xs`, in order.
    ///
    /// ```
    /// use stoch_core::accum::{Accumulator, Pairwise};
    /// let mut p = Pairwise::<f32>::default();
    /// p.add_slice(&[1.0, 2.0, 3.0]);
    /// assert_eq!(p.result(), 6.0);
    /// ```
    fn add_slice(&mut self, xs: &[T])
    where
        T: Copy,
    {
        for &x in xs {
            self.add(x);
        }
    }
}

/// The sum of `xs` in order with accumulator `A`.
///
/// # Examples
///
/// ```
/// use stoch_core::accum::{sum, TakahashiIitaka};
/// assert_eq!(sum::<TakahashiIitaka<f32>, _>(&[1.0e8, 1.0, -1.0e8]), 1.0);
/// ```
#[must_use]
pub fn sum<A: Accumulator<T>, T: Copy>(xs: &[T]) -> T {
    let mut a = A::default();
    a.add_slice(xs);
    a.result()
}

/// The sum of `xs` split into `workers` contiguous chunks (sizes differing by at most one),
/// each summed in order, the partial sums then merged in worker order: the arithmetic of a
/// parallel reduction, run on one thread.
///
/// # Panics
///
/// If `workers` is zero.
///
/// # Examples
///
/// ```
/// use stoch_core::accum::{sum_split, Naive, ReproducibleSum};
/// let xs = [1.0e8_f32, 1.0, -1.0e8, 1.0];
/// assert_eq!(sum_split::<Naive<f32>, _>(&xs, 1), 1.0); // ((1e8 + 1) - 1e8) + 1
/// assert_eq!(sum_split::<Naive<f32>, _>(&xs, 2), 0.0); // (1e8 + 1) + (-1e8 + 1)
/// assert_eq!(sum_split::<ReproducibleSum, f32>(&xs, 1), 2.0);
/// assert_eq!(sum_split::<ReproducibleSum, f32>(&xs, 2), 2.0);
/// ```
#[must_use]
pub fn sum_split<A: Accumulator<T>, T: Copy>(xs: &[T], workers: usize) -> T {
    assert!(workers > 0, "sum_split: zero workers");
    let mut total = A::default();
    for chunk in chunks(xs, workers) {
        let mut a = A::default();
        a.add_slice(chunk);
        total.merge(&a);
    }
    total.result()
}

/// Like [`sum_split`], but each chunk is summed on its own OS thread (scoped threads, one per
/// worker) and the partial sums are merged in worker order. With a deterministic method the
/// result equals [`sum_split`]'s.
///
/// # Panics
///
/// If `workers` is zero, or if a thread cannot be spawned.
///
/// # Examples
///
/// ```
/// use stoch_core::accum::{sum_parallel, sum_split, Kahan};
/// let xs: Vec<f32> = (0..1000).map(|i| (i as f32).sin()).collect();
/// assert_eq!(
///     sum_parallel::<Kahan<f32>, _>(&xs, 8),
///     sum_split::<Kahan<f32>, _>(&xs, 8)
/// );
/// ```
#[must_use]
pub fn sum_parallel<A, T>(xs: &[T], workers: usize) -> T
where
    A: Accumulator<T> + Send,
    T: Copy + Sync,
{
    assert!(workers > 0, "sum_parallel: zero workers");
    let parts: Vec<A> = std::thread::scope(|scope| {
        let handles: Vec<_> = chunks(xs, workers)
            .map(|chunk| {
                scope.spawn(move || {
                    let mut a = A::default();
                    a.add_slice(chunk);
                    a
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("summation worker panicked"))
            .collect()
    });
    let mut total = A::default();
    for p in &parts {
        total.merge(p);
    }
    total.result()
}

/// `xs` cut into `workers` contiguous chunks whose lengths differ by at most one (some empty
/// when `workers > xs.len()`).
///
/// ```
/// use stoch_core::accum::chunks;
/// let v: Vec<usize> = chunks(&[0; 10], 4).map(|c| c.len()).collect();
/// assert_eq!(v, [3, 3, 2, 2]);
/// ```
pub fn chunks<T>(xs: &[T], workers: usize) -> impl Iterator<Item = &[T]> {
    let workers = workers.max(1);
    let (q, r) = (xs.len() / workers, xs.len() % workers);
    (0..workers).map(move |w| {
        let start = w * q + w.min(r);
        let len = q + usize::from(w < r);
        &xs[start..start + len]
    })
}

/// Declares an accumulator `Name<T>` of two words of `T`, both zero in an empty sum; with
/// `summed "name" { fn add .. fn merge .. }`, also its `Accumulator` impl, whose result is the
/// sum of the two words.
macro_rules! two_words {
    (
        $(#[$attr:meta])* $name:ident { $a:ident, $b:ident }
        summed $acc:literal { $($methods:tt)* }
    ) => {
        two_words!($(#[$attr])* $name { $a, $b });

        impl<T: EftFloat> Accumulator<T> for $name<T> {
            const NAME: &'static str = $acc;
            $($methods)*
            #[inline]
            fn result(&self) -> T {
                self.$a + self.$b
            }
            #[inline]
            fn result_f64(&self) -> f64 {
                self.$a.to_f64() + self.$b.to_f64()
            }
        }
    };
    ($(#[$attr:meta])* $name:ident { $a:ident, $b:ident }) => {
        $(#[$attr])*
        #[derive(Clone, Copy, Debug)]
        pub struct $name<T> {
            $a: T,
            $b: T,
        }

        impl<T: EftFloat> Default for $name<T> {
            fn default() -> Self {
                Self {
                    $a: T::zero(),
                    $b: T::zero(),
                }
            }
        }
    };
}

/// Declares an accumulator `Name<T>` that holds one `Type<T>` (zero in an empty sum) and reads
/// it back with the public method `get`: `held_sum! { Name(Type), get }`.
macro_rules! held_sum {
    ($(#[$attr:meta])* $name:ident($ty:ident), $(#[$get_attr:meta])* $get:ident) => {
        $(#[$attr])*
        #[derive(Clone, Copy, Debug)]
        pub struct $name<T> {
            acc: $ty<T>,
        }

        impl<T: EftFloat> Default for $name<T> {
            fn default() -> Self {
                Self {
                    acc: $ty::from_value(T::zero()),
                }
            }
        }

        impl<T: EftFloat> $name<T> {
            $(#[$get_attr])*
            #[must_use]
            pub fn $get(&self) -> $ty<T> {
                self.acc
            }
        }
    };
}

/// Recursive summation `s = s + x` in working precision (seed 002's method A for `f32`).
///
/// ```
/// use stoch_core::accum::{sum, Naive};
/// assert_eq!(sum::<Naive<f32>, _>(&[0.1; 10]), 1.0000001);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Naive<T> {
    s: Option<T>,
}

impl<T> Default for Naive<T> {
    fn default() -> Self {
        Self { s: None }
    }
}

impl<T: EftFloat> Accumulator<T> for Naive<T> {
    const NAME: &'static str = "naive";
    #[inline]
    fn add(&mut self, x: T) {
        self.s = Some(match self.s {
            Some(s) => s + x,
            None => x,
        });
    }
    #[inline]
    fn merge(&mut self, other: &Self) {
        if let Some(o) = other.s {
            self.add(o);
        }
    }
    #[inline]
    fn result(&self) -> T {
        self.s.unwrap_or_else(T::zero)
    }
}

two_words! {
    /// Kahan's compensated summation: the rounding error of each addition is subtracted from
    /// the next term. The final compensation is applied by [`Accumulator::result`].
    ///
    /// ```
    /// use stoch_core::accum::{sum, Kahan};
    /// assert_eq!(sum::<Kahan<f32>, _>(&[0.1; 10]), 1.0);
    /// ```
    Kahan { s, c }
}

impl<T: EftFloat> Accumulator<T> for Kahan<T> {
    const NAME: &'static str = "kahan";
    #[inline]
    fn add(&mut self, x: T) {
        let y = x - self.c;
        let t = self.s + y;
        self.c = (t - self.s) - y;
        self.s = t;
    }
    #[inline]
    fn merge(&mut self, other: &Self) {
        self.add(other.s);
        self.add(-other.c);
    }
    #[inline]
    fn result(&self) -> T {
        self.s - self.c
    }
    #[inline]
    fn result_f64(&self) -> f64 {
        self.s.to_f64() - self.c.to_f64()
    }
}

two_words! {
    /// Neumaier's improved Kahan-Babuška summation: TwoSum-like error of each addition (choosing
    /// the formula by magnitude) accumulated apart and added at the end.
    ///
    /// ```
    /// use stoch_core::accum::{sum, Neumaier};
    /// assert_eq!(sum::<Neumaier<f64>, _>(&[1.0, 1.0e100, 1.0, -1.0e100]), 2.0);
    /// ```
    Neumaier { s, c }
    summed "neumaier" {
        #[inline]
        fn add(&mut self, x: T) {
            let t = self.s + x;
            if self.s.abs_ge(x) {
                self.c = self.c + ((self.s - t) + x);
            } else {
                self.c = self.c + ((x - t) + self.s);
            }
            self.s = t;
        }
        #[inline]
        fn merge(&mut self, other: &Self) {
            self.add(other.s);
            self.c = self.c + other.c;
        }
    }
}

/// Pairwise (cascade) summation with a binary counter: level `k` holds the sum of a block of
/// `2^k` consecutive terms, so the additions form a balanced tree and only 64 partial sums
/// are kept.
///
/// ```
/// use stoch_core::accum::{sum, Pairwise};
/// let xs = vec![0.1_f32; 1 << 20];
/// let err = (sum::<Pairwise<f32>, _>(&xs) as f64 - 0.1_f32 as f64 * (1 << 20) as f64).abs();
/// assert!(err < 1e-2); // naive summation is off by about 2.6e3 here
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Pairwise<T> {
    levels: [T; 64],
    occupied: u64,
}

impl<T: EftFloat> Default for Pairwise<T> {
    fn default() -> Self {
        Self {
            levels: [T::zero(); 64],
            occupied: 0,
        }
    }
}

impl<T: EftFloat> Pairwise<T> {
    #[inline]
    fn insert(&mut self, mut level: usize, mut x: T) {
        while level < 63 && self.occupied & (1 << level) != 0 {
            x = self.levels[level] + x;
            self.occupied &= !(1 << level);
            level += 1;
        }
        if self.occupied & (1 << level) != 0 {
            x = self.levels[level] + x;
        }
        self.levels[level] = x;
        self.occupied |= 1 << level;
    }
}

impl<T: EftFloat> Accumulator<T> for Pairwise<T> {
    const NAME: &'static str = "pairwise";
    #[inline]
    fn add(&mut self, x: T) {
        self.insert(0, x);
    }
    fn merge(&mut self, other: &Self) {
        for level in 0..64 {
            if other.occupied & (1 << level) != 0 {
                self.insert(level, other.levels[level]);
            }
        }
    }
    fn result(&self) -> T {
        let mut acc: Option<T> = None;
        for level in 0..64 {
            if self.occupied & (1 << level) != 0 {
                let x = self.levels[level];
                acc = Some(match acc {
                    Some(a) => a + x,
                    None => x,
                });
            }
        }
        acc.unwrap_or_else(T::zero)
    }
}

two_words! {
    /// Takahashi & Iitaka's trick (seed 002, Figures 3 and 4): the sum is a pair `(hs, ls)`;
    /// each term is added with Knuth & Dekker's TwoSum (eq. 7), the low parts are added, and
    /// the pair is renormalised with FastTwoSum (eq. 5). Ten operations per term.
    ///
    /// ```
    /// use stoch_core::accum::{sum, TakahashiIitaka};
    /// assert_eq!(sum::<TakahashiIitaka<f32>, _>(&[1.0, 1.0e-8, -1.0]), 1.0e-8);
    /// ```
    TakahashiIitaka { hs, ls }
    summed "takahashi-iitaka" {
        #[inline]
        fn add(&mut self, y: T) {
            let (zh, zl) = two_sum(self.hs, y);
            let r = self.ls + zl;
            let (bh, bl) = fast_two_sum(zh, r);
            self.hs = bh;
            self.ls = bl;
        }
        #[inline]
        fn merge(&mut self, other: &Self) {
            self.add(other.hs);
            self.add(other.ls);
        }
    }
}

two_words! {
    /// Nitadori's trick (seed 002, Figure 5): FastTwoSum of the high word and the term, the low
    /// words simply added. Four operations per term, exact only while `|hs| >= |term|` (the
    /// accumulated value must dominate each term, which fails at the start of a sum from zero);
    /// the low word is not renormalised, so it grows with the number of terms.
    ///
    /// ```
    /// use stoch_core::accum::{sum, Nitadori};
    /// assert_eq!(sum::<Nitadori<f32>, _>(&[1.0e8, 1.0, 1.0, -1.0e8]), 2.0);
    /// ```
    Nitadori { hs, ls }
    summed "nitadori" {
        #[inline]
        fn add(&mut self, y: T) {
            let (bh, bl) = fast_two_sum(self.hs, y);
            self.hs = bh;
            self.ls = self.ls + bl;
        }
        #[inline]
        fn merge(&mut self, other: &Self) {
            self.add(other.hs);
            self.ls = self.ls + other.ls;
        }
    }
}

/// The modified Nitadori trick (seed 002, Figure 6 with `#if 0`): the high word starts at
/// `LARGE` instead of zero, so that `|hs| >= |term|` always holds for terms below `LARGE`,
/// and `LARGE` is subtracted at the end.
///
/// The default `LARGE` is the paper's `3 << 20` (`LARGE_SHIFT = 21`): the high word then sits
/// in `[2^21, 2^22)` and holds the sum on a grid of `2^-2` (for `f32`), the rest going to the
/// low word. The sum of the terms must stay within `±2^20`.
///
/// ```
/// use stoch_core::accum::{sum, ModifiedNitadori};
/// assert_eq!(sum::<ModifiedNitadori<f32>, _>(&[0.5, 1.0e-3, -0.5]), 1.0e-3);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct ModifiedNitadori<T> {
    hs: T,
    ls: T,
    large: T,
}

impl<T: EftFloat> ModifiedNitadori<T> {
    /// The paper's `LARGE = 3 << 20 = 3145728`.
    pub const PAPER_LARGE: f64 = 3_145_728.0;

    /// An empty sum whose high word starts at `large` (any value larger in magnitude than every
    /// term and every partial sum; the larger, the coarser the high word's grid).
    ///
    /// ```
    /// use stoch_core::accum::{Accumulator, ModifiedNitadori};
    /// let mut a = ModifiedNitadori::with_large(1024.0_f32);
    /// a.add(3.0);
    /// assert_eq!(a.result(), 3.0);
    /// ```
    #[must_use]
    pub fn with_large(large: T) -> Self {
        Self {
            hs: large,
            ls: T::zero(),
            large,
        }
    }
}

impl<T: EftFloat> Default for ModifiedNitadori<T> {
    fn default() -> Self {
        Self::with_large(T::from_f64(Self::PAPER_LARGE))
    }
}

impl<T: EftFloat> Accumulator<T> for ModifiedNitadori<T> {
    const NAME: &'static str = "modified-nitadori";
    #[inline]
    fn add(&mut self, y: T) {
        let (bh, bl) = fast_two_sum(self.hs, y);
        self.hs = bh;
        self.ls = self.ls + bl;
    }
    #[inline]
    fn merge(&mut self, other: &Self) {
        self.add(other.hs - other.large);
        self.ls = self.ls + other.ls;
    }
    #[inline]
    fn result(&self) -> T {
        (self.hs - self.large) + self.ls
    }
    #[inline]
    fn result_f64(&self) -> f64 {
        (self.hs.to_f64() - self.large.to_f64()) + self.ls.to_f64()
    }
}

held_sum! {
    /// Summation in the composite pair of seed 000: each term enters as `term + 0` through the
    /// Figure 3 addition ([`Composite::add`]); the result is `value + error` in working precision.
    /// Use [`CompositeSum::pair`] to read both words.
    ///
    /// ```
    /// use stoch_core::accum::{sum, CompositeSum};
    /// assert_eq!(sum::<CompositeSum<f32>, _>(&[1.0e8, 1.0, -1.0e8]), 1.0);
    /// ```
    CompositeSum(Composite),
    /// The accumulated pair.
    pair
}

impl<T: EftFloat> Accumulator<T> for CompositeSum<T> {
    const NAME: &'static str = "composite";
    #[inline]
    fn add(&mut self, x: T) {
        self.acc = self.acc.add(Composite::from_value(x));
    }
    #[inline]
    fn merge(&mut self, other: &Self) {
        self.acc = self.acc.add(other.acc);
    }
    #[inline]
    fn result(&self) -> T {
        self.acc.collapse()
    }
    #[inline]
    fn result_f64(&self) -> f64 {
        self.acc.to_f64()
    }
}

held_sum! {
    /// Summation in a normalised double word ([`DoubleWord::add_fp`], merging with the accurate
    /// double-word addition). Use [`DoubleWordSum::word`] for both words.
    ///
    /// ```
    /// use stoch_core::accum::{sum, DoubleWordSum};
    /// assert_eq!(sum::<DoubleWordSum<f32>, _>(&[1.0e8, 1.0, -1.0e8]), 1.0);
    /// ```
    DoubleWordSum(DoubleWord),
    /// The accumulated double word.
    word
}

impl<T: EftFloat> Accumulator<T> for DoubleWordSum<T> {
    const NAME: &'static str = "double-word";
    #[inline]
    fn add(&mut self, x: T) {
        self.acc = self.acc.add_fp(x);
    }
    #[inline]
    fn merge(&mut self, other: &Self) {
        self.acc += other.acc;
    }
    #[inline]
    fn result(&self) -> T {
        self.acc.hi() + self.acc.lo()
    }
    #[inline]
    fn result_f64(&self) -> f64 {
        self.acc.to_f64()
    }
}

#[cfg(test)]
mod tests;
