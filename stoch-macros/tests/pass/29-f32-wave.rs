// f32 stencil code in the style of a finite-difference wave solver: consts, arrays, casts.
use stoch_core::stochastic;

#[stochastic]
mod wave {
    pub const C: [f32; 3] = [-2.5, 1.333_333_3, -0.083_333_33];
    pub const DT: f32 = 0.001;

    pub fn laplacian(u: &[f32], i: usize, h: f32) -> f32 {
        let mut s = C[0] * u[i];
        for k in 1..3 {
            s += C[k] * (u[i + k] + u[i - k]);
        }
        s / (h * h)
    }

    pub fn step(u: &[f32], prev: &[f32], h: f32) -> Vec<f32> {
        let mut next = u.to_vec();
        for i in 2..u.len() - 2 {
            next[i] = 2.0 * u[i] - prev[i] + DT * DT * laplacian(u, i, h);
        }
        next
    }
}

#[stochastic]
fn main() {
    let n = 32;
    let h = 1.0 / n as f32;
    let u: Vec<f32> = (0..n).map(|i| (i as f32 * h * std::f32::consts::PI).sin()).collect();
    let mut prev = u.clone();
    let mut cur = u;
    for _ in 0..10 {
        let next = wave::step(&cur, &prev, h);
        prev = cur;
        cur = next;
    }
    let mean_digits = cur.iter().map(|x| x.digits() as f64).sum::<f64>() / n as f64;
    assert!(mean_digits >= 3.0, "{mean_digits:?}");
}
