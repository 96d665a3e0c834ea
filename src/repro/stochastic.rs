//! The stochastic types in the suite: the same experiments in `Sf32`/`Sf64`, with the DSA
//! digits of each result.

use std::time::Instant;

use stoch_core::accum::{
    sum, sum_parallel, Accumulator, CompositeSum, DoubleWordSum, Kahan, Naive, Neumaier, Pairwise,
    TakahashiIitaka,
};
use stoch_core::composite::{Composite, DoubleWord};
use stoch_core::{Sf32, Sf64, StochFloat, Stochastic};

use super::do_undo::{iterate, DoUndoInput, DoUndoOp, DoUndoRun, Kind};
use super::forces::{pair_setup, ForceMethod, ForceRun, LjSystem};
use super::global_sum::{Method, SumOutcome};

/// Summation of `data` in `Sf32` or `Sf64` (each term an exact stochastic value) with the
/// method's accumulator (naive, Kahan or the composite pair), over `workers` threads; the DSA
/// digits and the computed-zero test of the result (for the composite pair: of `value + error`
/// collapsed in the stochastic type).
pub(super) fn global_sum(method: Method, data: &[f64], workers: usize) -> SumOutcome {
    fn run<A: Accumulator<Stochastic<T>> + Send, T: StochFloat>(
        xs: &[Stochastic<T>],
        workers: usize,
    ) -> (f64, u32, bool) {
        let r = if workers == 1 {
            sum::<A, _>(xs)
        } else {
            sum_parallel::<A, _>(xs, workers)
        };
        (r.to_f64(), r.digits(), r.is_computed_zero())
    }
    let t0 = Instant::now();
    let f32s = || -> Vec<Sf32> { data.iter().map(|&x| Sf32::new(x as f32)).collect() };
    let f64s = || -> Vec<Sf64> { data.iter().map(|&x| Sf64::new(x)).collect() };
    let (value, digits, zero) = match method {
        Method::StochFloat => run::<Naive<Sf32>, _>(&f32s(), workers),
        Method::StochKahan => run::<Kahan<Sf32>, _>(&f32s(), workers),
        Method::StochFloat2 => run::<CompositeSum<Sf32>, _>(&f32s(), workers),
        Method::StochDouble => run::<Naive<Sf64>, _>(&f64s(), workers),
        Method::StochDoubleKahan => run::<Kahan<Sf64>, _>(&f64s(), workers),
        Method::StochDouble2 => run::<CompositeSum<Sf64>, _>(&f64s(), workers),
        _ => unreachable!("{method:?} is not a stochastic method"),
    };
    SumOutcome {
        value,
        digits: Some(digits),
        computed_zero: Some(zero),
        seconds: t0.elapsed().as_secs_f64(),
    }
}

/// The do/undo loop in `Sf32` or `Sf64`.
pub(super) fn do_undo(
    kind: Kind,
    op: DoUndoOp,
    input: &DoUndoInput,
    checkpoints: usize,
) -> DoUndoRun {
    macro_rules! run {
        ($t:ty, $conv:expr) => {{
            let ys: Vec<$t> = input.ys.iter().map(|&y| <$t>::new($conv(y))).collect();
            let x0 = <$t>::new($conv(input.x0));
            let (x, drift, seconds) = match op {
                DoUndoOp::MulDiv => {
                    iterate(x0, &ys, checkpoints, |x, y| (x * y) / y, |x: $t| x.to_f64())
                }
                DoUndoOp::DivMul => {
                    iterate(x0, &ys, checkpoints, |x, y| (x / y) * y, |x: $t| x.to_f64())
                }
            };
            (x.to_f64(), drift, seconds, x.digits())
        }};
    }
    let (final_value, drift, seconds, digits) = match kind {
        Kind::StochFloat => run!(Sf32, |y: f32| y),
        Kind::StochDouble => run!(Sf64, f64::from),
        Kind::StochFloat2 => {
            let ys: Vec<Composite<Sf32>> = input
                .ys
                .iter()
                .map(|&y| Composite::from_value(Sf32::new(y)))
                .collect();
            let x0 = Composite::from_value(Sf32::new(input.x0));
            let val = |x: Composite<Sf32>| x.value.to_f64() + x.error.to_f64();
            let (x, drift, seconds) = match op {
                DoUndoOp::MulDiv => iterate(x0, &ys, checkpoints, |x, y| x.mul(y).div(y), val),
                DoUndoOp::DivMul => iterate(x0, &ys, checkpoints, |x, y| x.div(y).mul(y), val),
            };
            (val(x), drift, seconds, x.collapse().digits())
        }
        _ => {
            let ys: Vec<Sf32> = input.ys.iter().map(|&y| Sf32::new(y)).collect();
            let x0 = DoubleWord::from_value(Sf32::new(input.x0));
            let val = |x: DoubleWord<Sf32>| x.hi().to_f64() + x.lo().to_f64();
            let (x, drift, seconds) = match op {
                DoUndoOp::MulDiv => iterate(
                    x0,
                    &ys,
                    checkpoints,
                    |x, y| x.mul_fp(y) / DoubleWord::from_value(y),
                    val,
                ),
                DoUndoOp::DivMul => iterate(
                    x0,
                    &ys,
                    checkpoints,
                    |x, y| (x / DoubleWord::from_value(y)).mul_fp(y),
                    val,
                ),
            };
            (val(x), drift, seconds, (x.hi() + x.lo()).digits())
        }
    };
    DoUndoRun {
        kind,
        op,
        drift,
        final_value,
        digits: Some(digits),
        seconds,
    }
}

/// Forces with everything in `Sf32`: the pairwise force (Figure 7) and naive accumulation.
pub(super) fn forces(s: &LjSystem) -> ForceRun {
    let t0 = Instant::now();
    let n = s.pos.len();
    let pos: Vec<[Sf32; 3]> = s.pos.iter().map(|p| p.map(Sf32::new)).collect();
    let mut digits = 0u64;
    let forces = (0..n)
        .map(|i| {
            let mut acc = [Naive::<Sf32>::default(); 3];
            for j in (0..n).filter(|&j| j != i) {
                let (eps24, sigma2) = pair_setup(s, i, j);
                let (ri, rj) = (pos[i], pos[j]);
                let d = [ri[0] - rj[0], ri[1] - rj[1], ri[2] - rj[2]];
                let r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
                let rs = 1.0 / r2;
                let s2 = sigma2 * rs;
                let q = s2 * s2 * s2;
                let p = eps24 * rs * q * (2.0 * q - 1.0);
                for k in 0..3 {
                    acc[k].add(p * d[k]);
                }
            }
            acc.map(|a| {
                let r = a.result();
                digits += u64::from(r.digits());
                r.to_f64()
            })
        })
        .collect();
    ForceRun {
        method: ForceMethod::StochFloat,
        forces,
        seconds: t0.elapsed().as_secs_f64(),
        mean_digits: Some(digits as f64 / (3 * n) as f64),
    }
}

/// See [`super::accumulation_digits`].
pub(super) fn accumulation_digits(s: &LjSystem, particles: usize) -> Vec<(&'static str, f64)> {
    let n = s.pos.len();
    let rows = particles.min(n);
    // The f32 pairwise forces, as exact stochastic values.
    let terms: Vec<Vec<[Sf32; 3]>> = (0..rows)
        .map(|i| {
            (0..n)
                .filter(|&j| j != i)
                .map(|j| super::pair_force_f32(s, i, j).map(Sf32::new))
                .collect()
        })
        .collect();
    fn digits_with<A: Accumulator<Sf32>>(terms: &[Vec<[Sf32; 3]>]) -> f64 {
        let mut total = 0u64;
        for row in terms {
            for k in 0..3 {
                let mut a = A::default();
                for f in row {
                    a.add(f[k]);
                }
                total += u64::from(a.result().digits());
            }
        }
        total as f64 / (3 * terms.len().max(1)) as f64
    }
    vec![
        ("naive", digits_with::<Naive<Sf32>>(&terms)),
        ("kahan", digits_with::<Kahan<Sf32>>(&terms)),
        ("neumaier", digits_with::<Neumaier<Sf32>>(&terms)),
        ("pairwise", digits_with::<Pairwise<Sf32>>(&terms)),
        (
            "takahashi-iitaka",
            digits_with::<TakahashiIitaka<Sf32>>(&terms),
        ),
        (
            "float2 (composite)",
            digits_with::<CompositeSum<Sf32>>(&terms),
        ),
        ("double-word", digits_with::<DoubleWordSum<Sf32>>(&terms)),
    ]
}
