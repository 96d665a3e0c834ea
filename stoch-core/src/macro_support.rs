//! Support for the code `#[stochastic]` generates. Not a public API: names may change.

use crate::{Sf32, Sf64, StochFloat, Stochastic};

/// `expr as Target` where either side may be stochastic.
#[diagnostic::on_unimplemented(
    message = "`#[stochastic]` cannot cast `{Self}` with `as {Target}`",
    label = "`#[stochastic]` rewrote this `as` cast, which could not be a float cast",
    note = "inside `#[stochastic]` code, `x as {Target}` with `x` named by a variable is \
            rewritten to accept stochastic values; an enum or a raw pointer cast does not fit",
    note = "move the cast into a fn marked `#[stochastic(skip)]`, or write a `match`"
)]
pub trait StochCast<Target> {
    /// Converts like `as`, with stochastic rules (integer targets check for an intrinsic
    /// instability when the samples convert differently).
    #[track_caller]
    fn stoch_cast(self) -> Target;
}

/// `expr as Target`.
#[track_caller]
#[inline]
pub fn cast<Target, S: StochCast<Target>>(s: S) -> Target {
    s.stoch_cast()
}

/// An exact stochastic `f32` in a `const`.
#[must_use]
pub const fn const_f32(x: f32) -> Sf32 {
    Stochastic {
        v: crate::arch::lanes32([x, x, x, 0.0]),
    }
}

/// An exact stochastic `f64` in a `const`.
#[must_use]
pub const fn const_f64(x: f64) -> Sf64 {
    Stochastic {
        v: crate::arch::lanes64([x, x, x, 0.0]),
    }
}

/// The first sample of a constant (constants are exact).
#[must_use]
pub const fn const_value_f32(x: &Sf32) -> f32 {
    crate::arch::unlanes32(x.v)[0]
}

/// The first sample of a constant (constants are exact).
#[must_use]
pub const fn const_value_f64(x: &Sf64) -> f64 {
    crate::arch::unlanes64(x.v)[0]
}

/// `From`, named through this crate so that the generated code resolves in every edition
/// (`::core` is a crate-root path in the 2015 edition; `::stoch_core` needs `extern crate
/// stoch_core;` there, as every dependency does).
pub use core::convert::From;
/// `std::f32::consts`, named through this crate (see [`From`]).
pub use core::f32::consts as consts_f32;
/// `std::f64::consts`, named through this crate (see [`From`]).
pub use core::f64::consts as consts_f64;

/// `plain!(expr)`: inside `#[stochastic]` code, `expr` is left exactly as written (its literals,
/// `f64` types and casts stay plain), for the generic APIs of other crates that want plain
/// floats: `rng.gen_range(plain!(-2.0..2.0))`, `libm::remquo(x.to_f64(), plain!(90.0))`,
/// `plain!(0.5) * v` with a foreign vector type. Outside `#[stochastic]` code it is `expr`.
#[macro_export]
macro_rules! plain {
    ($e:expr) => {
        $e
    };
}

/// A float constant named in rewritten code (`PI` after `use std::f64::consts::PI;`, which the
/// macro cannot see when the `use` is outside the annotated item, or a user's own `PI` that is
/// already stochastic): plain values become exact stochastic ones, stochastic ones stay.
pub trait Promote: Copy {
    /// The stochastic type.
    type Output;
    /// The exact stochastic value.
    fn promote(self) -> Self::Output;
}
impl Promote for f32 {
    type Output = Sf32;
    #[inline]
    fn promote(self) -> Sf32 {
        Sf32::new(self)
    }
}
impl Promote for f64 {
    type Output = Sf64;
    #[inline]
    fn promote(self) -> Sf64 {
        Sf64::new(self)
    }
}
impl<T: StochFloat> Promote for Stochastic<T> {
    type Output = Self;
    #[inline]
    fn promote(self) -> Self {
        self
    }
}

/// See [`Promote`].
#[inline]
pub fn promote<P: Promote>(x: P) -> P::Output {
    x.promote()
}

/// A value that a constant initializer can read as a plain value: primitives as they are,
/// stochastic constants as their (exact) value.
#[diagnostic::on_unimplemented(
    message = "`#[stochastic]` cannot read `{Self}` as a plain value in a constant initializer",
    note = "a float constant's initializer is evaluated on plain floats; name other constants \
            (plain or stochastic) and literals there"
)]
pub trait ConstPlain: Copy {
    /// The plain type: `Self` for primitives, `T` for `Stochastic<T>`.
    type Plain: Copy;
}
macro_rules! const_plain_prim {
    ($($p:ty),*) => {$(impl ConstPlain for $p { type Plain = $p; })*};
}
const_plain_prim!(f32, f64, i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize, bool);
impl ConstPlain for Sf32 {
    type Plain = f32;
}
impl ConstPlain for Sf64 {
    type Plain = f64;
}

/// A constant named in a float constant's initializer, read as a plain value whether it was
/// declared plain or under `#[stochastic]` (in another item, where the macro cannot see its
/// type): `const FPMIN: f64 = f64::MIN_POSITIVE / EPS;`.
#[must_use]
pub const fn const_plain<C: ConstPlain>(x: C) -> C::Plain {
    #[repr(C)]
    union Bytes<A: Copy, B: Copy> {
        from: A,
        to: B,
    }
    // SAFETY: `Plain` is `Self` (same type) or, for `Stochastic<T>`, `T`, whose bytes are the
    // first sample: `Stochastic` is `repr(C)` with the samples first, and a constant's samples
    // are equal (exact). `Plain` is never larger than `Self`, so every byte read is initialized.
    unsafe { Bytes::<C, C::Plain> { from: x }.to }
}

macro_rules! prim_to_stoch {
    ($($p:ty),*) => {$(
        impl StochCast<Sf64> for $p {
            #[inline]
            fn stoch_cast(self) -> Sf64 { Sf64::new(self as f64) }
        }
        impl StochCast<Sf32> for $p {
            #[inline]
            fn stoch_cast(self) -> Sf32 { Sf32::new(self as f32) }
        }
    )*};
}
prim_to_stoch!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize, f32, f64);

impl StochCast<Sf64> for Sf64 {
    #[inline]
    fn stoch_cast(self) -> Sf64 {
        self
    }
}
impl StochCast<Sf32> for Sf32 {
    #[inline]
    fn stoch_cast(self) -> Sf32 {
        self
    }
}
impl StochCast<Sf64> for Sf32 {
    #[inline]
    fn stoch_cast(self) -> Sf64 {
        self.to_sf64()
    }
}
impl StochCast<Sf32> for Sf64 {
    #[inline]
    fn stoch_cast(self) -> Sf32 {
        self.to_sf32()
    }
}

macro_rules! to_prim {
    ($($p:ty),*) => {$(
        impl<T: StochFloat> StochCast<$p> for Stochastic<T> {
            #[track_caller]
            #[inline]
            fn stoch_cast(self) -> $p {
                self.checked_int_cast(|x| x.to_f64() as $p)
            }
        }
    )*};
}
to_prim!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize);

/// `StochCast<dst>` for each `src` as Rust's `as`: `as_cast!(src, ... => (dst, ...))`.
macro_rules! as_cast {
    ($($src:ty),* => $dsts:tt) => {$(
        as_cast!(@one $src; $dsts);
    )*};
    (@one $src:ty; ($($dst:ty),*)) => {$(
        impl StochCast<$dst> for $src {
            #[inline]
            fn stoch_cast(self) -> $dst { self as $dst }
        }
    )*};
}
as_cast!(f32, f64 => (i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize));

impl<T: StochFloat> StochCast<f64> for Stochastic<T> {
    #[inline]
    fn stoch_cast(self) -> f64 {
        self.to_f64()
    }
}
impl<T: StochFloat> StochCast<f32> for Stochastic<T> {
    #[inline]
    fn stoch_cast(self) -> f32 {
        self.to_f32()
    }
}

as_cast!(
    i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize
        => (i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize, f32, f64)
);
as_cast!(bool, char => (i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize));

/// Returned by [`main_prologue`]: prints the report once when dropped (also on panic).
#[derive(Debug)]
pub struct MainGuard {
    report: bool,
}

impl MainGuard {
    /// Passes `r` through (lets generated code end `main` with the guard in scope).
    #[inline]
    pub fn finish<R>(self, r: R) -> R {
        drop(self);
        r
    }
}

impl Drop for MainGuard {
    fn drop(&mut self) {
        if self.report {
            crate::finish();
        }
    }
}

/// Reads the configuration from the environment; on a bad value prints the error and exits
/// with status 2. The guard prints the report when `main` ends, unless `report` is false.
#[must_use]
pub fn main_prologue(report: bool) -> MainGuard {
    crate::config::warn_unknown_env();
    match crate::Config::from_env() {
        Ok(cfg) => cfg.apply(),
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    }
    if !report {
        // `report = false`: no report from the exit-time handler either.
        crate::report::exit_report_off();
    }
    MainGuard { report }
}

pub use crate::small_helpers::{linkme, SmallHelper, SMALL_HELPERS};
