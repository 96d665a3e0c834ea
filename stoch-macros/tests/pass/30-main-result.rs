// main returning Result, `?` on parse errors, report = false.
use stoch_core::stochastic;

#[stochastic]
fn average(text: &str) -> Result<f64, String> {
    let mut total = 0.0;
    let mut n = 0;
    for w in text.split(',') {
        total += w.trim().parse::<f64>().map_err(|e| e.to_string())?;
        n += 1;
    }
    Ok(total / n as f64)
}

#[stochastic(report = false)]
fn main() -> Result<(), String> {
    let a = average("1.5, 2.5, 3.5")?;
    assert!(a == 2.5);
    assert!(average("1.5, x").is_err());
    Ok(())
}
