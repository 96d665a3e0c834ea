// A `const fn` that computes becomes a plain fn (stochastic arithmetic does not run in const
// evaluation): a call in a constant is reported by rustc at that call.
use stoch_macros::stochastic;

#[stochastic]
const fn f(x: f64) -> f64 {
    x * 2.0
}

const TWICE: stoch_core::Sf64 = f(stoch_core::__private::const_f64(1.0));

fn main() {
    let _ = TWICE;
}
