//! `#[stochastic(report = false)]` on `main`: the same program as
//! `examples/stochastic_main.rs` (Rump's polynomial, one cancellation; a `main` that returns a
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

/// Rump's polynomial (see `examples/rump.rs`): three terms of about 1e17 that cancel;
/// `rump_ieee` is the same code in IEEE arithmetic.
#[stochastic(plain = rump_ieee)]
fn rump(x: f64, y: f64) -> f64 {
    9.0 * x * x * x * x - y * y * y * y + 2.0 * y * y
}

#[stochastic(report = false)]
fn main() -> Result<(), String> {
    let mode = std::env::args().nth(1).unwrap_or_else(|| "ok".to_string());
    #[stochastic_skip] // plain floats: the IEEE twin
    let ieee = rump_ieee(10864.0, 18817.0);
    let r = rump(10864.0, 18817.0);
    println!("rump(10864, 18817): IEEE {ieee}, stochastic {r}");
    match mode.as_str() {
        "ok" => Ok(()),
        "err" => Err(format!("deliberate error (the stochastic result was {r})")),
        "panic" => panic!("deliberate panic (the stochastic result was {r})"),
        other => Err(format!("unknown mode {other:?}: expected ok, err or panic")),
    }
}
