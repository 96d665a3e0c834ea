//! A small program with numerical instabilities that ends the ways a program can end, to check
//! that the report is printed exactly once (`tests/report_once.rs` runs it and reads stderr).
//!
//! ```text
//! cargo run --example report_once -- MODE
//! ```
//!
//! Modes:
//!
//! - `finish-twice` (default): configuration from the `STOCH_*` environment variables, read on
//!   first use; calls `stoch_core::finish()` twice.
//! - `guard`: holds the guard of `stoch_core::init(Config::from_env()?)` and also calls
//!   `finish()` before the guard drops; a bad variable makes it print the error and exit with 2.
//! - `guard-panic`: holds the guard and panics; the guard prints while unwinding.
//! - `none`: never asks for the report; it is printed once all the same, when the process
//!   exits, because instabilities were recorded (`STOCH_REPORT=off` turns it off).
//! - `explicit`: holds the guard of `init(Config::default().seed(1))`; any `STOCH_*` variable
//!   whose value that configuration does not hold is named on stderr as not applied.
//! - `abs-first`: the program's first stochastic operation is `abs` of a value whose samples
//!   differ in sign (an intrinsic instability, unless `STOCH_DETECT` switches it off), then
//!   `finish()`: the environment is read before that first check.
//!
//! Expected stderr for `finish-twice` with no variables set: one report block that lists a
//! division, a cancellation and a branching instability, with their lines in this file.

use stoch_core::{finish, init, Config, Sf64};

/// A division by noise, a cancellation and an unstable branch; returns a result to print.
fn unstable_work() -> Sf64 {
    let noise = Sf64::from_samples([1e-17, -1e-17, 2e-17]);
    let q = Sf64::ONE / noise; // unstable division
    let a = Sf64::from_samples([1.0 - 1e-10, 1.0, 1.0 + 1e-10]);
    let c = a - Sf64::new(0.9999); // cancellation
    if noise > Sf64::new(0.0) {
        // unstable branching
        return c;
    }
    q + c
}

fn main() {
    let mode = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "finish-twice".into());
    match mode.as_str() {
        "finish-twice" => {
            println!("result: {}", unstable_work());
            finish();
            finish();
        }
        "guard" => {
            let cfg = Config::from_env().unwrap_or_else(|e| {
                eprintln!("error: {e}");
                std::process::exit(2);
            });
            let _guard = init(cfg);
            println!("result: {}", unstable_work());
            finish();
        }
        "guard-panic" => {
            let _guard = init(Config::from_env().unwrap_or_default());
            let r = unstable_work();
            panic!("deliberate panic after computing {r}");
        }
        "none" => {
            println!("result: {}", unstable_work());
        }
        "explicit" => {
            // An explicit configuration: `STOCH_*` variables are named as not applied.
            let _guard = init(Config::default().seed(1));
            println!("result: {}", unstable_work());
        }
        "abs-first" => {
            let x = Sf64::from_samples([-1e-3, 1e-3, 2e-3]).abs();
            println!("result: {x:?}");
            finish();
        }
        other => {
            eprintln!("unknown mode {other:?}: expected finish-twice, guard, guard-panic, none, explicit or abs-first");
            std::process::exit(2);
        }
    }
}
