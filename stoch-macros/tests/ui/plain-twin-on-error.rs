// An error inside a `plain = name` item: the IEEE twin `ieee` is still emitted, so its callers
// resolve and the only error is the nested `extern` fn (no cascade of unresolved `ieee::...`).
// rustc itself stops after macro-expansion errors, so this file pins the single error; the
// twin in the expansion is checked by `expand::tests::plain_twin_survives_an_error` (what
// rust-analyzer, which does not stop there, would otherwise show as unresolved paths).
use stoch_macros::stochastic;

#[stochastic(plain = ieee)]
mod numerics {
    pub extern "C" fn half(x: f64) -> f64 {
        x / 2.0
    }

    pub fn quarter(x: f64) -> f64 {
        x / 4.0
    }
}

fn main() {
    let _ = numerics::quarter(1.0.into());
    let _ = ieee::quarter(1.0);
    let _ = ieee::half(1.0);
}
