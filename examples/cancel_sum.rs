//! A float sum of large and small values of opposite signs whose exact result is 0: pairs
//! (small, large) each followed by their negations, summed in a shuffled order (the global
//! summation experiment of seeds 000 and 001).
//!
//! What to look at: IEEE f32 returns a confident non-zero number (several orders of magnitude
//! above the small values); the stochastic sum is `@.0`. CADNA reports nothing here; stoch
//! names the line where the last exact digit was lost (an "accuracy collapse" in the report).
//!
//! Run: `cargo run --release --example cancel_sum`. Expected: the sum of 10000 values, IEEE f32
//! -1.4575195e-1, stochastic `@.0`; the report: one cancellation, and the accuracy-collapse
//! section pointing at `s += *x` in `sum`.
// Textbook loops, written as the numerical literature writes them.
#![allow(clippy::needless_range_loop, clippy::assign_op_pattern)]
use stoch_core::stochastic;

/// The code under `#[stochastic]`; `ieee` is the same code, unchanged, in IEEE arithmetic.
#[allow(dead_code, missing_docs)]
#[stochastic(plain = ieee)]
pub mod stoch {
    pub fn sum(xs: &[f32]) -> f32 {
        let mut s = 0.0f32;
        for x in xs {
            s += *x;
        }
        s
    }
}

/// `n` pairs: a value in (1e-4, 1e-3) and one in (1e3, 1e4), each with its negation, shuffled
/// by a fixed linear congruential generator (exact sum: 0).
pub fn data(n: usize) -> Vec<f32> {
    let mut state: u64 = 0x2545_F491_4F6C_DD1D;
    let mut rnd = || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    let mut v = Vec::with_capacity(4 * n);
    for _ in 0..n {
        let small = (1e-4 + 9e-4 * rnd()) as f32;
        let large = (1e3 + 9e3 * rnd()) as f32;
        v.extend([small, large, -small, -large]);
    }
    for i in (1..v.len()).rev() {
        let j = (rnd() * (i + 1) as f64) as usize;
        v.swap(i, j.min(i));
    }
    v
}

/// Prints the case: IEEE vs stochastic.
pub fn show() {
    println!("Sum of large and small f32 values of opposite signs (exact sum: 0)");
    let xs = data(2500);
    let sx: Vec<stoch_core::Sf32> = xs.iter().map(|&x| x.into()).collect();
    println!(
        "  sum of {}       IEEE: {:<24e} stochastic: {}",
        xs.len(),
        ieee::sum(&xs),
        stoch::sum(&sx)
    );
}

#[allow(dead_code)]
#[stochastic]
fn main() {
    show();
}
