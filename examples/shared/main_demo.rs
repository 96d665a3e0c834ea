//! The program of `examples/stochastic_main.rs` and `examples/stochastic_main_quiet.rs`, which
//! differ only in the attribute on `main`: Rump's polynomial at (10864, 18817) in IEEE and in
//! stochastic arithmetic, then `Ok`, an `Err` or a panic as the first argument asks.
use stoch_core::{stochastic, Sf64};

/// Rump's polynomial (see `examples/rump.rs`): three terms of about 1e17 that cancel;
/// `rump_ieee` is the same code in IEEE arithmetic.
#[stochastic(plain = rump_ieee)]
fn rump(x: f64, y: f64) -> f64 {
    9.0 * x * x * x * x - y * y * y * y + 2.0 * y * y
}

/// Prints both results; then `ok` returns `Ok`, `err` an `Err`, `panic` panics.
pub fn run() -> Result<(), String> {
    let mode = std::env::args().nth(1).unwrap_or_else(|| "ok".to_string());
    let ieee = rump_ieee(10864.0, 18817.0);
    let r = rump(Sf64::new(10864.0), Sf64::new(18817.0));
    println!("rump(10864, 18817): IEEE {ieee}, stochastic {r}");
    match mode.as_str() {
        "ok" => Ok(()),
        "err" => Err(format!("deliberate error (the stochastic result was {r})")),
        "panic" => panic!("deliberate panic (the stochastic result was {r})"),
        other => Err(format!("unknown mode {other:?}: expected ok, err or panic")),
    }
}
