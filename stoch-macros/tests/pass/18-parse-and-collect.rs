// Turbofish: parse::<f64>(), sum::<f64>(), collect::<Vec<f64>>().
use stoch_core::stochastic;

#[stochastic]
fn parse_all(text: &str) -> Vec<f64> {
    text.split_whitespace().map(|w| w.parse::<f64>().unwrap()).collect::<Vec<f64>>()
}

#[stochastic]
fn main() {
    let v = parse_all("0.5 1.25 2.25");
    assert_eq!(v.len(), 3);
    let s = v.iter().sum::<f64>();
    assert!(s == 4.0 && s.digits() >= 15);
    let x: f64 = "0.1".parse().unwrap();
    assert!(x.digits() >= 15);
}
