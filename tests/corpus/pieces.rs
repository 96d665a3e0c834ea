//! The corpus: published crates by other authors, pinned, with the drivers we wrote for them.
//! Each piece records its origin (crate, version, files). Drivers are plain `f64` code that
//! calls the crate as `m::...` and prints with `{}`; the same text runs on the published crate
//! and, under `#[stochastic]`, on the annotated copy.

use crate::tool::Piece;

pub const PIECES: &[Piece] = &[
    Piece {
        name: "haversine",
        krate: "haversine",
        version: "0.2.1",
        files: "src/lib.rs",
        what: "great-circle distance; edition 2015, struct of f64 fields, match assigning",
        deps: "",
        edits: &[],
        driver: r#"
        let d = m::distance(
            m::Location { latitude: 38.898556, longitude: -77.037852 },
            m::Location { latitude: 38.897147, longitude: -77.043934 },
            m::Units::Kilometers,
        );
        println!("short distance km {}", d);
        let d = m::distance(
            m::Location { latitude: 51.5007, longitude: 0.1246 },
            m::Location { latitude: 40.6892, longitude: 74.0445 },
            m::Units::Miles,
        );
        println!("London-New York miles {}", d);
        "#,
    },
    Piece {
        name: "fresnel",
        krate: "fresnel",
        version: "0.1.0",
        files: "src/lib.rs",
        what: "Cephes Fresnel integrals: type alias R = f64, coefficient arrays, polevl",
        deps: "",
        edits: &[],
        driver: r#"
        for x in [0.1, 0.5, 1.0, 2.5, 7.0, 40.0] {
            let (s, c) = m::fresnl(x);
            println!("S({}) {} C {}", x, s, c);
        }
        "#,
    },
    Piece {
        name: "geoutils",
        krate: "geoutils",
        version: "0.5.1",
        files: "src/lib.rs, src/formula.rs",
        what: "Vincenty's iterative inverse geodesic, haversine, centroid; tuple struct, Result",
        deps: "",
        edits: &[],
        driver: r#"
        let a = m::Location::new(40.7128, -74.0060);
        let b = m::Location::new(51.5074, -0.1278);
        println!("vincenty m {}", a.distance_to(&b).unwrap().meters());
        println!("haversine m {}", a.haversine_distance_to(&b).meters());
        let c = m::Location::center(&[&a, &b]);
        println!("center {} {}", c.latitude(), c.longitude());
        "#,
    },
    Piece {
        name: "quadrature",
        krate: "quadrature",
        version: "0.1.2",
        files: "src/lib.rs, src/double_exponential/{mod,constants}.rs, src/clenshaw_curtis/{mod,constants}.rs",
        what: "double-exponential and Clenshaw-Curtis quadrature; large constant tables, closures",
        deps: "",
        edits: &[],
        driver: r#"
        let o = m::integrate(|x: f64| x.exp(), 0.0, 1.0, 1e-10);
        println!("DE exp {} evaluations {}", o.integral, o.num_function_evaluations);
        let o = m::double_exponential::integrate(|x: f64| (1.0 - x * x).sqrt(), -1.0, 1.0, 1e-8);
        println!("DE half disc {}", o.integral);
        let o = m::clenshaw_curtis::integrate(|x: f64| 1.0 / (1.0 + x * x), 0.0, 1.0, 1e-10);
        println!("CC atan {}", o.integral);
        "#,
    },
    Piece {
        name: "kahan",
        krate: "kahan",
        version: "0.1.4",
        files: "src/lib.rs",
        what: "compensated summation generic over num_traits::Float, operator impls, blanket trait",
        deps: "num-traits = \"0.2\"",
        edits: &[],
        driver: r#"
        use m::KahanSummator;
        let v: Vec<f64> = (1..=1000).map(|i| 1.0 / (i as f64)).collect();
        let s: m::KahanSum<f64> = v.iter().kahan_sum();
        println!("harmonic 1000 {}", s.sum());
        let mut k = m::KahanSum::new_with_value(1e16);
        for _ in 0..10 {
            k += 1.0;
        }
        println!("1e16 + ten ones {}", k.sum());
        "#,
    },
    Piece {
        name: "welford",
        krate: "welford",
        version: "0.1.0",
        files: "src/lib.rs",
        what: "Welford's running mean and variance, generic over num_traits, weighted form",
        deps: "num-traits = \"0.2\"",
        edits: &[],
        driver: r#"
        let mut w = m::Welford::new();
        for i in 0..100 {
            w.push(1e6 + (i as f64) * 0.1);
        }
        println!("mean {} var {}", w.mean().unwrap(), w.var().unwrap());
        "#,
    },
];
