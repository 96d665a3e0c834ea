//! The sealed backing trait of [`Stochastic`](crate::Stochastic): `f32` and `f64`.

use core::fmt::{Debug, Display, LowerExp};
use core::ops::{Add, Div, Mul, Neg, Rem, Sub};

use crate::arch::Kernels;

mod private {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
}

/// A binary floating-point type that can back a [`Stochastic`](crate::Stochastic) number:
/// `f32` or `f64`. The trait is sealed.
pub trait StochFloat:
    private::Sealed
    + Kernels
    + Copy
    + Default
    + PartialOrd
    + Debug
    + Display
    + LowerExp
    + Send
    + Sync
    + 'static
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Rem<Output = Self>
    + Neg<Output = Self>
    + num_traits::Float
    + num_traits::FloatConst
{
    /// Zero.
    const ZERO: Self;
    /// One.
    const ONE: Self;
    /// The most exact significant decimal digits this type can carry (15 for `f64`, 7 for `f32`).
    const MAX_DIGITS: u32;
    /// Name of the type, `"f32"` or `"f64"`.
    const NAME: &'static str;
    /// Machine epsilon.
    const EPSILON: Self;
    /// Largest finite value.
    const MAX: Self;
    /// Smallest finite value.
    const MIN: Self;
    /// Smallest positive normal value.
    const MIN_POSITIVE: Self;
    /// Positive infinity.
    const INFINITY: Self;
    /// Negative infinity.
    const NEG_INFINITY: Self;
    /// Not a number.
    const NAN: Self;
    /// Widens to `f64` (exact).
    fn to_f64(self) -> f64;
    /// Rounds an `f64` to this type, to nearest.
    fn from_f64(x: f64) -> Self;
    /// The next representable value toward +∞.
    fn next_up(self) -> Self;
    /// The next representable value toward −∞.
    fn next_down(self) -> Self;
    /// A lane holding flag byte `f` in its first byte, the other bytes those of the number 1:
    /// the lane is the normal number `1 + f·ulp(1)`. The lane goes through the packed
    /// arithmetic of the samples (its results are discarded), and a flag byte over zero
    /// bytes, the subnormal number `f·2⁻¹⁴⁹` (`f32`), made every packed operation on a flagged
    /// value slow on processors that handle subnormal operands in microcode
    /// (docs/performance.md). A lane of zero bytes still means no flag.
    #[doc(hidden)]
    fn flags_lane(f: u8) -> Self;
    /// The flag byte of a flags lane.
    #[doc(hidden)]
    fn lane_flags(self) -> u8;
    /// Bitwise OR of two lanes (flags propagation).
    #[doc(hidden)]
    fn or_lanes(a: Self, b: Self) -> Self;
    /// The factor of the cancellation pre-test in force (see `Config::apply`), kept in this
    /// type: an `f32` sum multiplies by it from memory, with no conversion per operation.
    #[doc(hidden)]
    fn cancel_factor() -> Self;
}

macro_rules! impl_stoch_float {
    ($t:ident, $bits:ty, $digits:expr, $factor:ident, $table:ident) => {
        impl StochFloat for $t {
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            const MAX_DIGITS: u32 = $digits;
            const NAME: &'static str = stringify!($t);
            const EPSILON: Self = $t::EPSILON;
            const MAX: Self = $t::MAX;
            const MIN: Self = $t::MIN;
            const MIN_POSITIVE: Self = $t::MIN_POSITIVE;
            const INFINITY: Self = $t::INFINITY;
            const NEG_INFINITY: Self = $t::NEG_INFINITY;
            const NAN: Self = $t::NAN;
            #[inline(always)]
            fn to_f64(self) -> f64 {
                self as f64
            }
            #[inline(always)]
            fn from_f64(x: f64) -> Self {
                x as $t
            }
            #[inline(always)]
            fn next_up(self) -> Self {
                $t::next_up(self)
            }
            #[inline(always)]
            fn next_down(self) -> Self {
                $t::next_down(self)
            }
            #[inline(always)]
            fn flags_lane(f: u8) -> Self {
                $t::from_bits((1.0 as $t).to_bits() | f as $bits)
            }
            #[inline(always)]
            fn lane_flags(self) -> u8 {
                self.to_bits() as u8
            }
            #[inline(always)]
            fn or_lanes(a: Self, b: Self) -> Self {
                $t::from_bits(a.to_bits() | b.to_bits())
            }
            #[inline(always)]
            fn cancel_factor() -> Self {
                // From the tables where the kernels read their constants (one address a loop
                // keeps in a register), on the processors that have them.
                #[cfg(target_arch = "x86_64")]
                let factor = &crate::runtime::tables::TABLES.$table;
                #[cfg(not(target_arch = "x86_64"))]
                let factor = &crate::runtime::state::$factor;
                $t::from_bits(factor.load(core::sync::atomic::Ordering::Relaxed))
            }
        }
    };
}
impl_stoch_float!(f32, u32, 7, CANCEL_FACTOR_F32, cancel32);
impl_stoch_float!(f64, u64, 15, CANCEL_FACTOR, cancel64);
