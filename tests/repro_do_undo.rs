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
