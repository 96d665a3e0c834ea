//! `#[stochastic]` on a `main` that returns a `Result`: the generated `main` reads the
//! configuration from the environment first (a bad `STOCH_*` value stops the program with
//! status 2 before any work), and prints the instability report exactly once when `main` ends,
//! whether it returns `Ok`, returns `Err` or panics. `tests/stochastic_main.rs` runs it in each
//! mode. The program itself is in `examples/shared/main_demo.rs`, shared with
//! `examples/stochastic_main_quiet.rs`.
//!
//! Run: `cargo run --example stochastic_main -- [ok|err|panic]` (default `ok`). Expected: Rump's
//! polynomial at (10864, 18817), IEEE 2 vs stochastic `@.0`, on stdout; then, by mode, nothing
//! more (`ok`, status 0), the error `Error: "deliberate error ..."` (`err`, status 1) or the
//! panic message (`panic`, status 101); in every mode the report on stderr (one cancellation,
//! at the polynomial's line in `examples/shared/main_demo.rs`), printed before the error and
//! after the panic message.
use stoch_core::stochastic;

#[path = "shared/main_demo.rs"]
mod demo;

#[stochastic]
fn main() -> Result<(), String> {
    demo::run()
}
