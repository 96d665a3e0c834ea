// A global accumulator in a static Mutex<f64>, and an Option<f64> constant.
use stoch_core::stochastic;

#[stochastic]
mod ledger {
    use std::sync::Mutex;

    pub static TOTAL: Mutex<f64> = Mutex::new(0.0);
    pub const CAP: Option<f64> = Some(100.0);

    pub fn deposit(x: f64) -> f64 {
        let mut t = TOTAL.lock().unwrap();
        *t += x;
        match CAP {
            Some(cap) if *t > cap => cap,
            _ => *t,
        }
    }
}

#[stochastic]
fn main() {
    for _ in 0..4 {
        ledger::deposit(0.25);
    }
    assert!(ledger::deposit(0.0) == 1.0);
    assert!(ledger::deposit(1000.0) == 100.0);
}
