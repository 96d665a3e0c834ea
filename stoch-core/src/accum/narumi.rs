//! Narumi's trick: float + int fixed-point accumulation (seed 002, Figure 8).

use super::Accumulator;
use crate::eft::fast_two_sum;

/// How the low part of each addition is converted to the integer word (line 22 of Figure 8,
/// `c.li = a.li + (int)(b.ls * LOWER_FACTOR)`).
///
/// Either way the contribution of a term `y` does not depend on the running sum: a term below
/// `2^-3` (half the high word's grid) leaves the high word unchanged and goes whole into the
/// low part, where only it is rounded; a larger `f32` term is a multiple of `2^-27` and is
/// never rounded. So both variants are order-independent and odd inside the range.
///
/// ```
/// use stoch_core::accum::NarumiRounding;
/// assert_eq!(NarumiRounding::default(), NarumiRounding::Truncate);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum NarumiRounding {
    /// Truncate toward zero, like C's `(int)` cast in the figure (the paper's method F). A term
    /// `y` contributes `y` if `|y| >= 2^-3`, else `trunc(y·2^27)·2^-27`: less than `2^-27` lost
    /// per term, toward zero.
    #[default]
    Truncate,
    /// Round to nearest, ties to even (x86's `cvtss2si` under the default rounding mode): a term
    /// contributes `round(y·2^27)·2^-27`, at most `2^-28` from `y`.
    Nearest,
}

/// Narumi's float + int accumulation (seed 002, §3.3-3.5, Figure 8), the paper's "proposed
/// method F".
///
/// The sum is a pair `(hs: f32, li: i32)`. `hs` starts at `LARGE = 3·2^20`, so it stays in
/// `[2^21, 2^22)` where its grid is `2^-2`; each term `y` is split by FastTwoSum into the part
/// on that grid (kept in `hs`) and the low part `ls` (`|ls| <= 2^-3`), which is scaled by
/// `LOWER_FACTOR = 2^27` and added to `li` as an integer. Every `LOWER_LOOP = 128` terms the
/// top `LOWER_SHIFT = 7` bits of `li` are carried into `hs`, which keeps `li` from overflowing.
/// Together the pair is a 48-bit fixed-point number with unit `2^-27` (Figure 9).
///
/// # Range and error
///
/// - Every term and every partial sum must lie within `±2^20` (the paper's condition
///   `|fs| < 1 << 20`); beyond, `hs` leaves its binade and the method degrades to Nitadori's.
/// - Inside that range each term contributes a value that depends on the term alone (see
///   [`NarumiRounding`]), and the pair is an exact fixed-point integer: the result is the same
///   for any order of the terms and any split into merged partial sums, and it is exactly
///   zero for a set of terms made of opposite pairs (the paper's "no offset").
/// - Error: less than `2^-27` per term below `2^-3` with the default truncation (C's cast),
///   at most `2^-28` per term with [`NarumiRounding::Nearest`]; terms of `2^-3` and more are
///   added exactly. The final conversion to `f64` is exact.
/// - `li` is added with wrapping, as the 32-bit hardware does: it can overflow only if almost
///   all of 128 consecutive low parts are near `±2^-3` with the same sign.
///
/// # Examples
///
/// ```
/// use stoch_core::accum::{Accumulator, Narumi};
///
/// let mut a = Narumi::default();
/// for &f in &[1.5e-3_f32, 250.0, -1.5e-3, -250.0, 3.0e-9] {
///     a.add(f);
/// }
/// assert_eq!(a.result_f64(), 0.0); // 3e-9 is below the unit 2^-27 (7.45e-9)
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Narumi {
    hs: f32,
    li: i32,
    count: u32,
    rounding: NarumiRounding,
}

impl Narumi {
    /// `LARGE_SHIFT` of Figure 6.
    pub const LARGE_SHIFT: u32 = 21;
    /// `LARGE = 3 << (LARGE_SHIFT - 1)` = 3145728.
    pub const LARGE: f32 = (3u32 << (Self::LARGE_SHIFT - 1)) as f32;
    /// `LOWER_SHIFT` of Figure 8: the number of zero top bits kept in the integer word.
    pub const LOWER_SHIFT: u32 = 7;
    /// `LOWER_LOOP = 1 << LOWER_SHIFT`: terms between two carries.
    pub const LOWER_LOOP: u32 = 1 << Self::LOWER_SHIFT;
    /// `LOWER_FACTOR = 2^(23 - LARGE_SHIFT + 32 - LOWER_SHIFT)` = `2^27`.
    pub const LOWER_FACTOR: f32 =
        (1u64 << (23 - Self::LARGE_SHIFT + 32 - Self::LOWER_SHIFT)) as f32;
    /// `LOWER_FACTOR_1 = 1 / LOWER_FACTOR` = `2^-27`.
    pub const LOWER_FACTOR_1: f32 = 1.0 / Self::LOWER_FACTOR;

    const CARRY_MASK: i32 = (((1u32 << Self::LOWER_SHIFT) - 1) << (32 - Self::LOWER_SHIFT)) as i32;
    const LOW_MASK: i32 = ((1u32 << (32 - Self::LOWER_SHIFT)) - 1) as i32;

    /// An empty sum with the given conversion of the low part.
    ///
    /// ```
    /// use stoch_core::accum::{Accumulator, Narumi, NarumiRounding};
    /// let mut a = Narumi::new(NarumiRounding::Truncate);
    /// a.add(1.1e-8); // 1.48 units of 2^-27: truncated to 1 unit
    /// assert_eq!(a.result_f64(), 2f64.powi(-27));
    /// let mut b = Narumi::new(NarumiRounding::Nearest);
    /// b.add(1.2e-8); // 1.61 units: rounded to 2
    /// assert_eq!(b.result_f64(), 2f64.powi(-26));
    /// ```
    #[must_use]
    pub const fn new(rounding: NarumiRounding) -> Self {
        Self {
            hs: Self::LARGE,
            li: 0,
            count: 0,
            rounding,
        }
    }

    /// Figure 8 literally: the low part converted by truncation, like C's `(int)` cast (the
    /// same as `default()`).
    #[must_use]
    pub const fn truncating() -> Self {
        Self::new(NarumiRounding::Truncate)
    }

    /// The low part rounded to nearest instead of truncated: half the error per term.
    #[must_use]
    pub const fn nearest() -> Self {
        Self::new(NarumiRounding::Nearest)
    }

    /// The conversion of the low part in use.
    #[must_use]
    pub const fn rounding(&self) -> NarumiRounding {
        self.rounding
    }

    /// `add_narumi` (Figure 8, lines 15-25), then the carry every `LOWER_LOOP` terms
    /// (lines 45-50).
    #[inline]
    fn add_term(&mut self, ys: f32) {
        let (bh, bl) = fast_two_sum(self.hs, ys);
        self.hs = bh;
        let scaled = bl * Self::LOWER_FACTOR;
        let k = match self.rounding {
            NarumiRounding::Nearest => scaled.round_ties_even() as i32,
            NarumiRounding::Truncate => scaled as i32,
        };
        self.li = self.li.wrapping_add(k);
        self.count += 1;
        if self.count == Self::LOWER_LOOP {
            self.carry();
        }
    }

    /// Lines 46-49 of Figure 8: move the top `LOWER_SHIFT` bits of `li` into `hs` (exactly:
    /// a multiple of `2^25 · 2^-27 = 2^-2`, on `hs`'s grid).
    #[inline]
    fn carry(&mut self) {
        self.hs += (self.li & Self::CARRY_MASK) as f32 * Self::LOWER_FACTOR_1;
        self.li &= Self::LOW_MASK;
        self.count = 0;
    }

    /// The sum as `f64`: `(hs - LARGE) + li · 2^-27` (lines 53-54), exact in `f64`.
    ///
    /// ```
    /// use stoch_core::accum::{Accumulator, Narumi};
    /// let mut a = Narumi::default();
    /// a.add(0.1);
    /// assert_eq!(a.result_f64(), (0.1_f32 as f64 * 134217728.0).trunc() / 134217728.0);
    /// ```
    #[must_use]
    pub fn result_f64(&self) -> f64 {
        (self.hs as f64 - Self::LARGE as f64) + self.li as f64 * Self::LOWER_FACTOR_1 as f64
    }

    /// The high word and the integer word `(hs, li)`.
    #[must_use]
    pub fn parts(&self) -> (f32, i32) {
        (self.hs, self.li)
    }
}

impl Default for Narumi {
    /// Figure 8 as printed (truncating cast).
    fn default() -> Self {
        Self::new(NarumiRounding::Truncate)
    }
}

impl Accumulator<f32> for Narumi {
    const NAME: &'static str = "narumi";
    #[inline]
    fn add(&mut self, x: f32) {
        self.add_term(x);
    }
    fn merge(&mut self, other: &Self) {
        let mut o = *other;
        o.carry();
        self.carry();
        // o.hs - LARGE is exact (same binade) and lies on the 2^-2 grid: no low part.
        self.add_term(o.hs - Self::LARGE);
        self.li = self.li.wrapping_add(o.li);
        self.carry();
    }
    #[inline]
    fn result(&self) -> f32 {
        Narumi::result_f64(self) as f32
    }
    #[inline]
    fn result_f64(&self) -> f64 {
        Narumi::result_f64(self)
    }
}
