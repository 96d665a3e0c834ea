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
        v: crate::rounding::lanes32([x, x, x, 0.0]),
    }
}

/// An exact stochastic `f64` in a `const`.
#[must_use]
pub const fn const_f64(x: f64) -> Sf64 {
    Stochastic {
        v: crate::rounding::lanes64([x, x, x, 0.0]),
    }
}

/// The first sample of a constant (constants are exact).
#[must_use]
pub const fn const_value_f32(x: &Sf32) -> f32 {
    crate::rounding::unlanes32(x.v)[0]
}

/// The first sample of a constant (constants are exact).
#[must_use]
pub const fn const_value_f64(x: &Sf64) -> f64 {
    crate::rounding::unlanes64(x.v)[0]
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
        impl StochCast<$p> for f32 {
            #[inline]
            fn stoch_cast(self) -> $p { self as $p }
        }
        impl StochCast<$p> for f64 {
            #[inline]
            fn stoch_cast(self) -> $p { self as $p }
        }
    )*};
}
to_prim!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize);

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

macro_rules! int_to_int {
    ($($src:ty),*) => {$(
        int_to_int!(@one $src; i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize, f32, f64);
    )*};
    (@one $src:ty; $($dst:ty),*) => {$(
        impl StochCast<$dst> for $src {
            #[inline]
            fn stoch_cast(self) -> $dst { self as $dst }
        }
    )*};
}
int_to_int!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize);

macro_rules! bool_char {
    ($($dst:ty),*) => {$(
        impl StochCast<$dst> for bool {
            #[inline]
            fn stoch_cast(self) -> $dst { self as $dst }
        }
        impl StochCast<$dst> for char {
            #[inline]
            fn stoch_cast(self) -> $dst { self as $dst }
        }
    )*};
}
bool_char!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize);

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
