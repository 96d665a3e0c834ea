// `plain = name`: one source, the IEEE and the stochastic versions side by side (fn and mod).
use stoch_core::stochastic;

#[stochastic(plain = rump_ieee)]
fn rump(a: f64, b: f64) -> f64 {
    333.75 * b.powi(6) + a * a * (11.0 * a * a * b * b - b.powi(6) - 121.0 * b.powi(4) - 2.0)
        + 5.5 * b.powi(8)
        + a / (2.0 * b)
}

#[stochastic(plain = ieee)]
mod solver {
    pub fn discriminant(a: f64, b: f64, c: f64) -> f64 {
        b * b - 4.0 * a * c
    }

    pub fn roots(a: f64, b: f64, c: f64) -> (f64, f64) {
        let d = discriminant(a, b, c).max(0.0).sqrt();
        ((-b + d) / (2.0 * a), (-b - d) / (2.0 * a))
    }
}

fn main() {
    let plain: f64 = rump_ieee(77617.0, 33096.0);
    let dsa = rump(77617.0.into(), 33096.0.into());
    assert!(plain.is_finite());
    assert!(dsa.digits() <= 1, "{dsa:?}");

    let d_plain: f64 = ieee::discriminant(0.3, 2.1, 3.675);
    let d = solver::discriminant(0.3.into(), 2.1.into(), 3.675.into());
    println!("IEEE discriminant {d_plain:e}, stochastic {d}");
    // The exact discriminant is 0; IEEE gives one ulp of 4.41. (Whether the stochastic value
    // shows it as a computed zero depends on the random draws: three samples cannot always.)
    assert!(d_plain != 0.0 && d.digits() <= 15);
    let (r1, r2) = solver::roots(1.0.into(), (-3.0).into(), 2.0.into());
    assert!(r1 == 2.0 && r2 == 1.0);
    let (p1, _) = ieee::roots(1.0, -3.0, 2.0);
    assert_eq!(p1, 2.0);
}
