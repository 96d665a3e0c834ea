//! serde for stochastic values (feature `serde`): JSON and a binary format (postcard) keep the
//! three samples and the flags bit for bit, plain numbers load exactly, and the flags are
//! named as the report names the kinds.
#![cfg(feature = "serde")]

use serde::{Deserialize, Serialize};
use stoch_core::{Flags, Instability, Sf32, Sf64, StochFloat, Stochastic};

#[derive(Debug, Serialize, Deserialize)]
struct Particle {
    name: String,
    position: [Sf64; 3],
    mass: Sf32,
}

/// A seeded generator of awkward samples: random bit patterns (subnormals, huge and tiny
/// values), signed zeros and infinities; NaN is checked apart (JSON keeps no payload).
struct Gen(u64);
impl Gen {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 ^ (self.0 >> 29)
    }
    fn f64(&mut self) -> f64 {
        match self.next() % 8 {
            0 => -0.0,
            1 => f64::INFINITY,
            2 => f64::NEG_INFINITY,
            3 => f64::from_bits(self.next() & 0x000f_ffff_ffff_ffff), // subnormal
            _ => loop {
                let x = f64::from_bits(self.next());
                if !x.is_nan() {
                    break x;
                }
            },
        }
    }
}

fn same_bits<T: StochFloat>(a: Stochastic<T>, b: Stochastic<T>) -> bool {
    a.samples()
        .iter()
        .zip(b.samples())
        .all(|(x, y)| StochFloat::to_f64(*x).to_bits() == StochFloat::to_f64(y).to_bits())
        && a.flags() == b.flags()
}

#[test]
fn round_trips_bit_for_bit() {
    let seed = 0x5eed_2024;
    let mut g = Gen(seed);
    for case in 0..2000 {
        let s = [g.f64(), g.f64(), g.f64()];
        let flags = Flags::from_bits((g.next() & 0x7f) as u8);
        let x = Sf64::from_parts(s, flags);
        let json = serde_json::to_string(&x).unwrap();
        let back: Sf64 = serde_json::from_str(&json).unwrap();
        assert!(same_bits(x, back), "seed {seed:#x}, case {case}: {json}");
        let bin = postcard::to_allocvec(&x).unwrap();
        let back: Sf64 = postcard::from_bytes(&bin).unwrap();
        assert!(same_bits(x, back), "seed {seed:#x}, case {case}: {bin:?}");
        let y = Sf32::from_parts(s.map(|v| v as f32), flags);
        let back: Sf32 = serde_json::from_str(&serde_json::to_string(&y).unwrap()).unwrap();
        assert!(same_bits(y, back), "seed {seed:#x}, case {case}");
        let back: Sf32 = postcard::from_bytes(&postcard::to_allocvec(&y).unwrap()).unwrap();
        assert!(same_bits(y, back), "seed {seed:#x}, case {case}");
    }
    // NaN samples stay NaN (JSON: as "NaN"; binary: the exact bits).
    let x = Sf64::from_samples([f64::NAN, 1.0, -f64::NAN]);
    let back: Sf64 = serde_json::from_str(&serde_json::to_string(&x).unwrap()).unwrap();
    assert!(back.samples()[0].is_nan() && back.samples()[2].is_nan());
    let back: Sf64 = postcard::from_bytes(&postcard::to_allocvec(&x).unwrap()).unwrap();
    assert!(same_bits(x, back));
}

#[test]
fn existing_files_load_into_stochastic_structs() {
    // A file written for `struct { name: String, position: [f64; 3], mass: f32 }`.
    let old = r#"{"name": "probe", "position": [0.1, -2, 3e-5], "mass": 0.3}"#;
    let p: Particle = serde_json::from_str(old).unwrap();
    assert_eq!(p.position[0].samples(), [0.1; 3]);
    assert_eq!(p.position[1].samples(), [-2.0; 3]);
    assert_eq!(p.position[2].samples(), [3e-5; 3]);
    assert_eq!(p.mass.samples(), [0.3f32; 3]);
    assert!(p.mass.flags().is_empty());
    // Computed values go out with their samples and flags, named as the report names kinds.
    let q = Particle {
        position: p
            .position
            .map(|x| x / Sf64::from_samples([1e-17, -1e-17, 2e-17])),
        ..p
    };
    let v = serde_json::to_value(&q).unwrap();
    assert_eq!(v["position"][0]["flags"], serde_json::json!(["division"]));
    assert_eq!(
        serde_json::to_value(Instability::Division).unwrap(),
        serde_json::json!("division")
    );
    let back: Particle = serde_json::from_value(v).unwrap();
    for i in 0..3 {
        assert!(same_bits(back.position[i], q.position[i]));
    }
}

/// With `nalgebra` and `ndarray` on, their matrices and arrays of stochastic values serialize.
#[cfg(all(feature = "nalgebra", feature = "ndarray"))]
#[test]
fn matrices_and_arrays_serialize() {
    let m = nalgebra::Matrix2::from_fn(|i, j| Sf64::ONE / ((i + j + 1) as f64));
    let back: nalgebra::Matrix2<Sf64> =
        serde_json::from_str(&serde_json::to_string(&m).unwrap()).unwrap();
    assert!(m.iter().zip(back.iter()).all(|(a, b)| same_bits(*a, *b)));
    let a = ndarray::Array1::from_vec(vec![Sf32::ONE / 3.0, Sf32::new(2.5)]);
    let back: ndarray::Array1<Sf32> =
        postcard::from_bytes(&postcard::to_allocvec(&a).unwrap()).unwrap();
    assert!(a.iter().zip(back.iter()).all(|(x, y)| same_bits(*x, *y)));
}
