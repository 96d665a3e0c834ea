//! Key facts of seed 002's force accumulation test at small sizes.

use stoch::repro::{force_offset, forces, lj_system, run_forces, ForceMethod};

const SEED: u64 = 2008;

/// Narumi's accumulation has zero offset (eq. 11) while naive float does not.
#[test]
fn narumi_has_zero_offset_naive_float_does_not() {
    let sys = lj_system(300, SEED);
    let a = forces(&sys, ForceMethod::A);
    let f = forces(&sys, ForceMethod::F);
    let off_a = force_offset(&a.forces);
    let off_f = force_offset(&f.forces);
    eprintln!("seed {SEED}: offset A = {off_a:e}, F = {off_f:e}");
    assert_eq!(off_f, 0.0, "seed {SEED}");
    assert!(off_a > 0.0, "seed {SEED}");
}

/// Accuracy ranking of seed 002's Figures 10 and 11: A is the least accurate; B, C and F are
/// closer to G, and their accumulation alone (against the exact sums of the same `f32` pair
/// forces) is orders of magnitude better than A's; C and E keep a small offset; the stochastic
/// run estimates how many digits the `f32` forces keep.
#[test]
fn error_ranking_of_table_1() {
    let sys = lj_system(300, SEED + 1);
    let rows = run_forces(
        &sys,
        &[
            ForceMethod::A,
            ForceMethod::B,
            ForceMethod::C,
            ForceMethod::E,
            ForceMethod::F,
            ForceMethod::FNearest,
            ForceMethod::Reproducible,
            ForceMethod::StochFloat,
        ],
        &mut |_| {},
    );
    let get = |m: ForceMethod| rows.iter().find(|r| r.method == m).unwrap();
    for r in &rows {
        eprintln!(
            "{:?}: error {:e} accumulation {:e} offset {:e}",
            r.method, r.error, r.accumulation_error, r.offset
        );
    }
    let a = get(ForceMethod::A);
    for m in [
        ForceMethod::B,
        ForceMethod::C,
        ForceMethod::F,
        ForceMethod::FNearest,
    ] {
        assert!(get(m).error < a.error, "seed {SEED}: {m:?} vs A");
        // F truncates each term to the 2^-27 unit (under 1e-8 relative here).
        let gain = if m == ForceMethod::F { 10.0 } else { 100.0 };
        assert!(
            get(m).accumulation_error < a.accumulation_error / gain,
            "seed {SEED}: {m:?} vs A"
        );
    }
    assert!(a.offset > 0.0);
    assert_eq!(get(ForceMethod::F).offset, 0.0, "seed {SEED}");
    assert_eq!(get(ForceMethod::FNearest).offset, 0.0, "seed {SEED}");
    assert_eq!(get(ForceMethod::Reproducible).accumulation_error, 0.0);
    let digits = get(ForceMethod::StochFloat).mean_digits.unwrap();
    assert!(
        digits > 1.0 && digits < 7.0,
        "seed {SEED}: Sf32 digits {digits}"
    );
    stoch_core::reset();
}
