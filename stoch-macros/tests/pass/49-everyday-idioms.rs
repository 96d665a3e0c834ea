// Everyday idioms: an imported plain constant, literal on the left of ==, powf, formatting
// with a precision, Default impls, captured closures, sort of a Vec of structs.
use std::f64::consts::PI;
use stoch_core::stochastic;

#[stochastic]
mod body {
    #[derive(Debug, Clone, Copy)]
    pub struct Particle {
        pub mass: f64,
        pub speed: f64,
    }

    impl Default for Particle {
        fn default() -> Self {
            Particle { mass: 1.0, speed: 0.0 }
        }
    }

    impl Particle {
        pub fn energy(&self) -> f64 {
            0.5 * self.mass * self.speed.powf(2.0)
        }
    }
}

#[stochastic]
fn main() {
    let circumference = 2.0 * PI * 0.5;
    assert!((circumference - PI).abs() < 1e-15);
    let rest = body::Particle::default();
    assert!(0.0 == rest.energy());
    let mut ps: Vec<body::Particle> = (1..=3)
        .map(|k| body::Particle { speed: k as f64, ..Default::default() })
        .collect();
    ps.sort_by(|a, b| b.energy().partial_cmp(&a.energy()).unwrap());
    assert!(ps[0].energy() == 4.5);
    let threshold = 1.0;
    let fast = ps.iter().filter(|p| p.energy() > threshold).count();
    assert_eq!(fast, 2);
    let text = format!("{:.3}", ps[0].energy());
    assert!(text.starts_with("4.5"), "{text}");
}
