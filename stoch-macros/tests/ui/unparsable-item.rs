// An item syn cannot parse (here a `box` expression, removed syntax): one error that says the
// item is left as written.
use stoch_macros::stochastic;

#[stochastic]
fn f(x: f64) -> f64 {
    let b = box x;
    *b
}

fn main() {
    let _ = f(1.0);
}
