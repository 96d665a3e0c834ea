// `track_caller` on a nested item: it applies to the whole item, so it goes on the outer
// attribute.
use stoch_macros::stochastic;

#[stochastic]
mod helpers {
    #[stochastic(track_caller)]
    pub fn gap(a: f64, b: f64) -> f64 {
        a - b
    }
}

fn main() {
    let _ = helpers::gap(1.0.into(), 0.5.into());
}
