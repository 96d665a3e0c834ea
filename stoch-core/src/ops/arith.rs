//! Each operation's start: random bits, the kernel, and the pre-test of its checks, on the path
//! the dispatch point ([`crate::arch`]) runs.

use std::panic::Location;

use super::checks::*;
#[cfg(all(
    target_arch = "x86_64",
    target_feature = "avx2",
    target_feature = "fma"
))]
use super::pretest::vector;
#[cfg(all(target_arch = "x86_64", not(target_feature = "avx512f")))]
use crate::arch::fast_op;
use crate::runtime::state::COLLAPSE_BIT;
use crate::runtime::{rng, state};
use crate::{StochFloat, Stochastic};

/// The rest of `+` (`$op` 0), `*` (1) and `/` (2), kernel `T::$kernel`, after `fast_op!`:
/// the kernel alone where `$skip` says no check is wanted; else the kernel with its fused
/// pre-test where [`Kernels::rt512_pre`](crate::arch::Kernels::rt512_pre) has one (a hit takes
/// `$hit`), else the kernel and then `$check`, both of the result `$r`. Operands and results
/// pass through [`apart`]. A macro for the same reason as `fast_op!`.
macro_rules! checked_op {
    (
        $op:literal,
        $kernel:ident,
        $a:ident,
        $b:ident,
        $dir:ident,
        $skip:expr,
        |$r:ident| $hit:expr,
        $check:expr
    ) => {{
        let ($a, $b) = (apart($a), apart($b));
        if $skip {
            return apart(Stochastic {
                v: T::$kernel($a.v, $b.v, $dir),
            });
        }
        if let Some((v, hit)) = T::rt512_pre($op, $a.v, $b.v, $dir) {
            let $r = Stochastic { v };
            if hit {
                hit_is_rare();
                return apart($hit);
            }
            return apart($r);
        }
        let $r = Stochastic {
            v: T::$kernel($a.v, $b.v, $dir),
        };
        apart($check)
    }};
}

/// `v` itself; where lanes are arrays on x86-64 (a build that chooses its path at run time),
/// through [`Kernels::opaque`](crate::arch::Kernels::opaque), for the general path of `+`, `*`
/// and `/` after `fast_op!` (`checked_op!`): its lane-by-lane code then reads and gives values
/// the compiler cannot trace to those the run-time kernels hold in registers (see there).
#[inline(always)]
fn apart<T: StochFloat>(v: Stochastic<T>) -> Stochastic<T> {
    #[cfg(all(
        target_arch = "x86_64",
        not(all(target_feature = "avx2", target_feature = "fma"))
    ))]
    let v = Stochastic {
        v: <T as crate::arch::Kernels>::opaque(v.v),
    };
    v
}

/// The pre-test of the checks of `r = a + b` (`op` 0), `a · b` (1) or `a / b` (2) on the AVX2
/// path of a build whose target has AVX2 and FMA, for `fast_op!`: [`add_pretest`] at the
/// configured cancellation level (the bits of its test that count, `runtime::path::add_lanes`,
/// read for `f32` sums only), or, for a product or quotient, the operands' spread at half the
/// noise pre-test's threshold (`vector::far_operands`): it does not wait for the kernel, and
/// covers what [`check_mul`] and [`check_div`] look for in a result within a unit of the exact
/// one (`runtime::state::OPERAND_SPREAD`); `fast_op!` takes the checks for the results out of
/// that range (the kernel's flag).
#[cfg(all(
    target_arch = "x86_64",
    target_feature = "avx2",
    target_feature = "fma",
    not(target_feature = "avx512f")
))]
#[inline(always)]
fn native_hit<T: StochFloat>(op: u8, a: Stochastic<T>, b: Stochastic<T>, r: Stochastic<T>) -> bool {
    match op {
        0 => add_pretest(
            &a,
            &b,
            &r,
            T::cancel_factor,
            crate::runtime::path::add_lanes,
        ),
        _ => vector::far_operands(&a, &b),
    }
}

/// `a + b` (`b` negated for a difference) with random rounding and the checks of
/// [`check_add`]. The detection mask is read before the kernel runs, so that with cancellation
/// and collapse detection off the operation is the kernel alone, with no branch after it
/// (docs/performance.md). Where the run-time AVX-512 path runs (`rt512`), and for `f32` in a
/// native AVX-512 build, the kernel and the pre-test of [`check_add`] are one assembly block
/// ([`Kernels::rt512_pre`](crate::arch::Kernels::rt512_pre)); `*` and `/` do the same. In a
/// build without AVX-512 the operation first reads one byte, `runtime::path::mode`, that says
/// whether that path runs and whether with the checks, in place of the mask and the path's flag.
#[inline(always)]
pub(super) fn add_op<T: StochFloat>(
    a: Stochastic<T>,
    b: Stochastic<T>,
    b_plain: bool,
    b_negated: bool,
    loc: &'static Location<'static>,
) -> Stochastic<T> {
    // The random bits first: their first draw reads the environment's configuration.
    let dir = rng::dir2();
    #[cfg(all(target_arch = "x86_64", not(target_feature = "avx512f")))]
    fast_op!(0, a, b, dir, false, |r| add_hit(
        a,
        b,
        r,
        b_plain,
        b_negated,
        state::mask(),
        loc
    ));
    let mask = state::mask();
    checked_op!(
        0,
        add4,
        a,
        b,
        dir,
        mask & (CANCEL | COLLAPSE_BIT) == 0,
        |r| add_hit(a, b, r, b_plain, b_negated, mask, loc),
        check_add(a, b, r, b_plain, b_negated, mask, loc)
    )
}

/// `a · b` with random rounding and the checks of [`check_mul`] (mask first, as in [`add_op`]),
/// but for the products of exact operands that [`exact_product`] lets through.
#[inline(always)]
pub(super) fn mul_op<T: StochFloat>(
    a: Stochastic<T>,
    b: Stochastic<T>,
    loc: &'static Location<'static>,
) -> Stochastic<T> {
    let dir = rng::dir2();
    #[cfg(all(target_arch = "x86_64", not(target_feature = "avx512f")))]
    fast_op!(1, a, b, dir, exact_product(&a, &b), |r| mul_hit(
        a,
        b,
        None,
        r,
        state::mask(),
        loc
    ));
    let mask = state::mask();
    checked_op!(
        1,
        mul4,
        a,
        b,
        dir,
        (mask & (MUL | COLLAPSE_BIT) == 0) || exact_product(&a, &b),
        |r| mul_hit(a, b, None, r, mask, loc),
        check_mul(a, b, None, r, mask, loc)
    )
}

/// Whether `a·b` can need no check: both operands exact (three equal samples, as data read
/// into the program are) and `|a₀·b₀| ≥ 2·MIN_POSITIVE`. Neither operand is then numerical
/// noise, so there is no Multiplication instability, and the product is not noise either, so
/// there is no accuracy collapse: its samples are the exact product rounded up or down,
/// neighbours at most one unit in the last place of a normal number apart (or a finite number
/// and an infinity, which is not noise either). Only a product that underflows can become
/// noise, and the magnitude test leaves those to the checks.
///
/// The test reads the operands alone, which a loop loads early, where the checks' pre-test
/// waits for the product. Made where the values live in vector registers (x86-64 with AVX2 and
/// FMA) and the pre-test reads the result (the AVX-512 paths: the AVX2 ones test the operands,
/// which passes exact operands too, see `native_hit`); elsewhere `false`: the compiler's SSE2
/// code for it cost more than it saved (figures in docs/performance.md).
#[inline(always)]
pub(super) fn exact_product<T: StochFloat>(a: &Stochastic<T>, b: &Stochastic<T>) -> bool {
    #[cfg(all(
        target_arch = "x86_64",
        target_feature = "avx2",
        target_feature = "fma"
    ))]
    if let Some(e) = vector::exact_product(a, b) {
        return e;
    }
    let _ = (a, b);
    false
}

/// `a / b` with random rounding and the checks of [`check_div`] (mask first, as in [`add_op`]).
#[inline(always)]
pub(super) fn div_op<T: StochFloat>(
    a: Stochastic<T>,
    b: Stochastic<T>,
    loc: &'static Location<'static>,
) -> Stochastic<T> {
    let dir = rng::dir2();
    #[cfg(all(target_arch = "x86_64", not(target_feature = "avx512f")))]
    fast_op!(2, a, b, dir, false, |r| div_hit(
        a,
        b,
        r,
        state::mask(),
        loc
    ));
    let mask = state::mask();
    checked_op!(
        2,
        div4,
        a,
        b,
        dir,
        mask & (DIV | COLLAPSE_BIT) == 0,
        |r| div_hit(a, b, r, mask, loc),
        check_div(a, b, r, mask, loc)
    )
}
