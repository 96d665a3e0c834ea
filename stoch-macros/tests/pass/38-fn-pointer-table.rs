// A table of fn pointers built from f64 method paths, and boxed closures.
use stoch_core::stochastic;

#[stochastic]
fn main() {
    let table: [(&str, fn(f64) -> f64); 3] = [("sin", f64::sin), ("cos", f64::cos), ("exp", f64::exp)];
    let at_zero: Vec<f64> = table.iter().map(|(_, f)| f(0.0)).collect();
    assert!(at_zero[0] == 0.0 && at_zero[1] == 1.0 && at_zero[2] == 1.0);
    let scale = 3.0;
    let boxed: Vec<Box<dyn Fn(f64) -> f64>> = vec![Box::new(move |x| x * scale), Box::new(|x| x + 1.0)];
    let r = boxed.iter().fold(2.0, |acc, f| f(acc));
    assert!(r == 7.0);
}
