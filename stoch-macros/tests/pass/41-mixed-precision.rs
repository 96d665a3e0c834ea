// f32 and f64 in the same item: casts both ways, f64::from on an f32.
use stoch_core::stochastic;

#[stochastic]
fn accumulate(xs: &[f32]) -> f64 {
    let mut acc: f64 = 0.0;
    for &x in xs {
        acc += f64::from(x) * 2.0;
    }
    acc
}

#[stochastic]
fn main() {
    let xs: Vec<f32> = vec![0.5, 0.25, 0.125];
    let total = accumulate(&xs);
    assert!(total == 1.75);
    let narrow = total as f32;
    assert!(narrow == 1.75f32);
    let wide = narrow as f64 / 7.0;
    assert!(wide.digits() >= 14);
}
