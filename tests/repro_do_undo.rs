//! Key facts of seed 000's do/undo programs at small sizes.

use stoch::repro::{do_undo, do_undo_input, DoUndoOp, Kind, TRIALS};

const SEED: u64 = 2010;
const N: usize = 20_000;

/// Float drifts orders of magnitude more than double; the normalised double word stays at
/// double's level or below; DSA sees the float drift (fewer digits left in Sf32 than Sf64).
#[test]
fn float_drifts_double_does_not() {
    for (t, trial) in TRIALS.iter().enumerate() {
        let input = do_undo_input(trial, N, SEED + t as u64);
        for op in [DoUndoOp::MulDiv, DoUndoOp::DivMul] {
            let drift = |k: Kind| do_undo(k, op, &input, 10).final_drift().abs();
            let (f, d, w) = (
                drift(Kind::Float),
                drift(Kind::Double),
                drift(Kind::DoubleWord),
            );
            eprintln!(
                "trial {} {op:?}: float {f:e} double {d:e} double-word {w:e}",
                t + 1
            );
            assert!(f > 1e-8, "seed {SEED} trial {}: float drift {f:e}", t + 1);
            assert!(
                d < 1e-12 && d < f / 1e4,
                "seed {SEED} trial {}: double drift {d:e}",
                t + 1
            );
            assert!(
                w < 1e-11,
                "seed {SEED} trial {}: double-word drift {w:e}",
                t + 1
            );
            let s32 = do_undo(Kind::StochFloat, op, &input, 10).digits.unwrap();
            let s64 = do_undo(Kind::StochDouble, op, &input, 10).digits.unwrap();
            assert!(
                s32 < 7 && s64 > s32,
                "seed {SEED}: Sf32 {s32} Sf64 {s64} digits"
            );
        }
    }
    stoch_core::reset();
}

/// The drift is recorded at the requested checkpoints, ending at the last iteration.
#[test]
fn drift_checkpoints() {
    let input = do_undo_input(&TRIALS[0], 1000, SEED);
    let run = do_undo(Kind::Float2, DoUndoOp::MulDiv, &input, 10);
    assert_eq!(run.drift.len(), 10);
    assert_eq!(run.drift.last().unwrap().0, 1000);
}

/// Seed 000's claim for do/undo (§V.C, Figure 8): "in all cases, our composite precision
/// significantly corrects the drifting", i.e. the float2 drift is far below float's.
///
/// It holds for a composite pair that keeps the rounding error of every product and
/// quotient: the normalised double word of `f32` (TwoProduct-based multiplication, accurate
/// division) ends more than four orders of magnitude below float, summed over the three trials
/// and both operations. It does NOT hold for the pair exactly as the paper prints it
/// ([`Kind::Float2`], Figures 4-5, and the slides' FMA division [`Kind::Float2Karp`]): Figure 4
/// sets `z.value = x.value * y.value` and never keeps that product's rounding error (only the
/// cross terms of the operands' error words), and the division ignores the dividend's error
/// word, so every iteration still rounds like float and the pair random-walks like float. What
/// holds, and is asserted: its total drift stays within an order of magnitude of float's (for
/// this seed 1.7x with the printed division, 2.9x with Karp's), neither far below nor far
/// above. (Keeping the product's TwoProduct error and the dividend's error word in those two
/// formulas brings the float2 total down to about 1e-10: the gap is the figures', not the
/// pair's.)
#[test]
fn composite_drift_versus_float() {
    let (mut float, mut fig5, mut karp, mut word) = (0.0, 0.0, 0.0, 0.0);
    for (t, trial) in TRIALS.iter().enumerate() {
        let input = do_undo_input(trial, N, SEED + t as u64);
        for op in [DoUndoOp::MulDiv, DoUndoOp::DivMul] {
            let drift = |k: Kind| do_undo(k, op, &input, 10).final_drift().abs();
            float += drift(Kind::Float);
            fig5 += drift(Kind::Float2);
            karp += drift(Kind::Float2Karp);
            word += drift(Kind::DoubleWord);
        }
    }
    eprintln!(
        "total drift, seed {SEED}: float {float:e}, float2 (fig. 5) {fig5:e}, \
         float2 (karp) {karp:e}, double-word f32 {word:e}"
    );
    assert!(float > 1e-7, "seed {SEED}: float drift {float:e}");
    // The claim, for the composite pair that keeps every rounding error.
    assert!(
        word < float * 1e-4,
        "seed {SEED}: double-word drift {word:e} is not far below float's {float:e}"
    );
    // The paper's literal pair: the same order as float.
    for (name, d) in [("float2 (fig. 5)", fig5), ("float2 (karp)", karp)] {
        assert!(
            d > float / 10.0 && d < float * 10.0,
            "seed {SEED}: {name} drift {d:e} vs float {float:e}: not of float's order"
        );
    }
}
