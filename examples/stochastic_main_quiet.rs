//! `#[stochastic(report = false)]` on `main`: the same program as
//! `examples/stochastic_main.rs` (both run `examples/shared/main_demo.rs`: Rump's polynomial, one cancellation; a `main` that returns a
//! `Result`), but the generated `main` prints no instability report when it ends, whether it
//! returns `Ok`, returns `Err` or panics, and whatever `STOCH_REPORT` says. The configuration is
//! still read from the environment first: a bad `STOCH_*` value stops the program with status 2
//! before any work. `tests/stochastic_main.rs` runs it in each mode next to the example that
//! does print the report.
//!
//! Run: `cargo run --example stochastic_main_quiet -- [ok|err|panic]` (default `ok`). Expected:
//! Rump's polynomial at (10864, 18817), IEEE 2 vs stochastic `@.0`, on stdout; then, by mode,
//! nothing more (`ok`, status 0, stderr empty), the error `Error: "deliberate error ..."`
//! (`err`, status 1) or the panic message (`panic`, status 101); in no mode a report.
use stoch_core::stochastic;

#[path = "shared/main_demo.rs"]
mod demo;

#[stochastic(report = false)]
fn main() -> Result<(), String> {
    demo::run()
}
