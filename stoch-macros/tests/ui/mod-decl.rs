use stoch_macros::stochastic;

#[stochastic]
#[path = "mod-decl/helper.rs"]
mod helper;

fn main() {
    let _ = helper::twice(1.0);
}
