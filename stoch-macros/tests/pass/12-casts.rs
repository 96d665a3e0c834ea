// Casts: integer to float, float to integer, between float types.
use stoch_core::stochastic;

#[stochastic]
fn histogram(xs: &[f64], bins: usize, lo: f64, hi: f64) -> Vec<usize> {
    let mut h = vec![0; bins];
    let width = (hi - lo) / bins as f64;
    for &x in xs {
        let k = ((x - lo) / width).floor() as usize;
        h[k.min(bins - 1)] += 1;
    }
    h
}

#[stochastic]
fn main() {
    let xs: Vec<f64> = (0..100).map(|i| i as f64 / 100.0).collect();
    let h = histogram(&xs, 4, 0.0, 1.0);
    assert_eq!(h, vec![25, 25, 25, 25]);
    let single = 0.1f64 as f32;
    let back = single as f64;
    assert!(back.digits() >= 6);
    let n: u32 = 7;
    let r = n as f64 / 2.0;
    assert!(r == 3.5);
    let flags = (r > 3.0) as i32 + 'a' as i32;
    assert_eq!(flags, 98);
}
