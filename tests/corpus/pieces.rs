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
        edits: &[],
        driver: r#"
        let mut w = m::Welford::new();
        for i in 0..100 {
            w.push(1e6 + (i as f64) * 0.1);
        }
        println!("mean {} var {}", w.mean().unwrap(), w.var().unwrap());
        "#,
    },
    Piece {
        name: "polycool",
        krate: "polycool",
        version: "0.4.0",
        files: "src/poly.rs, src/quadratic.rs, src/cubic.rs, src/yuksel.rs",
        what: "polynomial roots (Yuksel's method), const generics Poly<N>, ArrayVec results",
        edits: &[],
        driver: r#"
        let q = m::Quadratic::new([2.0, -3.0, 1.0]);
        for r in q.roots() {
            println!("quadratic root {}", r);
        }
        let c = m::Cubic::new([-6.0, 11.0, -6.0, 1.0]);
        for r in c.roots_between(0.0, 10.0, 1e-12) {
            println!("cubic root {}", r);
        }
        println!("eval {}", c.eval(0.5));
        "#,
    },
    Piece {
        name: "roots",
        krate: "roots",
        version: "0.0.8",
        files: "src/float.rs, src/analytical/{quadratic,cubic,linear,roots}.rs, src/numerical/{brent,simple_convergency,mod}.rs",
        what: "generic FloatType root finders: closed forms and Brent's method; edition 2015",
        edits: &[],
        driver: r#"
        let r = m::find_roots_quadratic(1f64, -3f64, 2f64);
        println!("quadratic {:?}", r.as_ref().len());
        for x in r.as_ref() {
            println!("root {}", x);
        }
        for x in m::find_roots_cubic(1f64, -6f64, 11f64, -6f64).as_ref() {
            println!("cubic root {}", x);
        }
        let f = |x: f64| x * x - 2.0;
        let mut conv = m::SimpleConvergency { eps: 1e-10f64, max_iter: 60 };
        println!("brent sqrt2 {}", m::find_root_brent(0f64, 2f64, &f, &mut conv).unwrap());
        "#,
    },
    Piece {
        name: "compensated_summation",
        krate: "compensated-summation",
        version: "0.3.1",
        files: "src/lib.rs",
        what: "two_sum, Kahan-Babuska and Kahan summation, generic over num_traits::Float",
        edits: &[],
        driver: r#"
        let mut kb = m::KahanBabuska::<f64>::new();
        for i in 0..1000 {
            kb += 0.1;
            kb -= 1e-3 * (i as f64);
        }
        println!("Kahan-Babuska {}", kb.total());
        let (s, e) = m::two_sum(1e16, 1.0);
        println!("two_sum {} {}", s, e);
        "#,
    },
    Piece {
        name: "linreg",
        krate: "linreg",
        version: "0.2.0",
        files: "src/lib.rs",
        what: "least-squares line fit generic over FloatCore, iterator adaptors, Result errors",
        edits: &[],
        driver: r#"
        let xs: Vec<f64> = (0..50).map(|i| 1000.0 + i as f64).collect();
        let ys: Vec<f64> = xs.iter().map(|x| 3.0 * x + 0.25).collect();
        let (slope, intercept): (f64, f64) = m::linear_regression(&xs, &ys).unwrap();
        println!("slope {} intercept {}", slope, intercept);
        "#,
    },
    Piece {
        name: "cubic_spline",
        krate: "cubic_spline",
        version: "1.0.0",
        files: "src/calc.rs, src/points.rs, src/opts.rs, src/err.rs, src/tfti.rs",
        what: "cardinal spline interpolation; Vec of points, builder options, own TryFrom",
        edits: &[],
        driver: r#"
        let pts = m::Points::from(&[(0.0, 0.0), (1.0, 2.0), (2.5, 1.5), (4.0, 3.0)]);
        let opts = m::SplineOpts::new().tension(0.5).num_of_segments(4);
        let out = m::calc_spline(&pts, &opts).unwrap();
        for p in out.get_ref().iter().step_by(3) {
            println!("spline {} {}", p.x, p.y);
        }
        "#,
    },
    Piece {
        name: "interp",
        krate: "interp",
        version: "2.1.2",
        files: "src/lib.rs",
        what: "numpy-style linear interpolation generic over num_traits::Num, modes enum",
        edits: &[],
        driver: r#"
        let x = vec![0.0, 1.0, 2.5, 4.0];
        let y = vec![1.0, 3.0, 2.0, 0.5];
        let mode = m::InterpMode::default();
        for xp in [0.5, 2.0, 3.9, 5.0] {
            println!("interp({}) {}", xp, m::interp(&x, &y, xp, &mode));
        }
        let v = m::interp_slice(&x, &y, &[-1.0, 1.2], &mode);
        println!("slice {} {}", v[0], v[1]);
        "#,
    },
    Piece {
        name: "simple_moving_average",
        krate: "simple_moving_average",
        version: "1.0.2",
        files: "src/sum_tree_sma.rs, src/sum_tree.rs, src/single_sum_sma.rs, src/ring_buffer.rs, src/common.rs",
        what: "moving averages over a ring buffer and a sum tree, const generic window, traits",
        edits: &[],
        driver: r#"
        use m::SMA;
        let mut a = m::SumTreeSMA::<f64, f64, 8>::new();
        let mut b = m::SingleSumSMA::<f64, f64, 8>::new();
        for i in 0..100 {
            let x = 1e8 + (i as f64).sin();
            a.add_sample(x);
            b.add_sample(x);
        }
        println!("sum tree {} single sum {}", a.get_average(), b.get_average());
        "#,
    },
    Piece {
        name: "statistical",
        krate: "statistical",
        version: "1.0.0",
        files: "src/stats_.rs, src/univariate_.rs",
        what: "Python-statistics-style mean, variance, moments, generic over num::Float; 2015",
        edits: &[],
        driver: r#"
        let v: Vec<f64> = (0..40).map(|i| 100.0 + ((i * 7) % 13) as f64 * 0.3).collect();
        let mean = m::mean(&v);
        println!("mean {} median {}", mean, m::median(&v));
        println!("variance {} stdev {}", m::variance(&v, None), m::standard_deviation(&v, Some(mean)));
        println!("skewness {} kurtosis {}", m::univariate::skewness(&v, None, None), m::univariate::kurtosis(&v, None, None));
        println!("harmonic {} geometric {}", m::univariate::harmonic_mean(&v), m::univariate::geometric_mean(&v));
        "#,
    },
    Piece {
        name: "geographiclib",
        krate: "geographiclib-rs",
        version: "0.2.7",
        files: "src/geodesic.rs, src/geomath.rs, src/geodesic_line.rs, src/geodesic_capability.rs",
        what: "Karney's geodesic algorithms: series expansions, error-free sums, trait-generic results",
        edits: &[(
            "src/geomath.rs",
            "let (mut r, q) = libm::remquo(x, 90.0);",
            "let (r, q) = libm::remquo(x.to_f64(), ::stoch_core::plain!(90.0));\n    let mut r = ::stoch_core::Sf64::new(r);",
            "libm::remquo is plain f64 code from another crate, `fn(f64, f64) -> (f64, i32)`: \
             the user converts at the call (the reduction by 90 degrees is exact; the per-sample \
             bridge of issue 29 would keep the samples' spread)",
        )],
        driver: r#"
        use m::InverseGeodesic;
        let g = m::Geodesic::wgs84();
        let s12: f64 = g.inverse(40.64, -73.78, 1.36, 103.99);
        println!("JFK-SIN m {}", s12);
        let (s12, azi1, azi2, _a12): (f64, f64, f64, f64) = g.inverse(-30.0, 0.0, 29.9, 179.8);
        println!("nearly antipodal m {} azimuths {} {}", s12, azi1, azi2);
        "#,
    },
    Piece {
        name: "sunrise",
        krate: "sunrise",
        version: "3.0.0",
        files: "src/solar_equation/*.rs, src/julian.rs, src/coordinates.rs, src/event.rs, src/math.rs",
        what: "NOAA-style sunrise equations; chrono dates, a const fn validator, math wrappers from a macro_rules! repetition, f64 to i64 timestamps",
        edits: &[],
        driver: r#"
        #[allow(deprecated)]
        let (rise, set) = m::sunrise_sunset(43.6532, -79.3832, 2016, 1, 1);
        println!("Toronto sunrise {} sunset {}", rise, set);
        #[allow(deprecated)]
        let (rise, set) = m::sunrise_sunset(-33.8688, 151.2093, 2024, 6, 21);
        println!("Sydney sunrise {} sunset {}", rise, set);
        "#,
    },
    Piece {
        name: "owens_t",
        krate: "owens-t",
        version: "0.1.5",
        files: "src/owens_t.rs, src/bivariate_normal.rs, src/util.rs",
        what: "Owen's T function (Patefield-Tandy: six series by region, Gauss quadrature) and the bivariate normal CDF; edition 2024, libm calls, From<f64> for argument structs",
        edits: &[
            (
                "src/owens_t.rs",
                "use libm::{atan, atan2, erf, erfc, expm1};",
                "use ::stoch_core::Sf64;\n\
                 fn atan(x: Sf64) -> Sf64 { x.atan() }\n\
                 fn atan2(y: Sf64, x: Sf64) -> Sf64 { y.atan2(x) }\n\
                 fn erf(x: Sf64) -> Sf64 { x.map_plain(libm::erf) }\n\
                 fn erfc(x: Sf64) -> Sf64 { x.map_plain(libm::erfc) }\n\
                 fn expm1(x: Sf64) -> Sf64 { x.exp_m1() }",
                "libm's functions are plain `fn(f64) -> f64` of another crate: the user calls them on each sample with `map_plain` (erf, erfc: stoch-core has none) or takes stoch-core's own (atan, atan2, exp_m1, asin)",
            ),
            (
                "src/bivariate_normal.rs",
                "use libm::{asin, erfc};",
                "use ::stoch_core::Sf64;\n\
                 fn asin(x: Sf64) -> Sf64 { x.asin() }\n\
                 fn erfc(x: Sf64) -> Sf64 { x.map_plain(libm::erfc) }",
                "libm's functions are plain `fn(f64) -> f64` of another crate: the user calls them on each sample with `map_plain` (erf, erfc: stoch-core has none) or takes stoch-core's own (atan, atan2, exp_m1, asin)",
            ),
        ],
        driver: r#"
        for (h, a) in [(0.0625, 0.25), (1.0, 0.5), (0.5, 2.0), (3.0, 0.999), (6.5, 0.4375), (0.25, 10.0)] {
            println!("T({}, {}) {}", h, a, m::owens_t(h, a));
        }
        for (x, y, rho) in [(0.0, 0.0, 0.5), (1.0, -0.5, 0.3), (-1.5, 2.0, -0.7), (2.0, 2.0, 0.95)] {
            println!("BVN({}, {}, {}) {}", x, y, rho, m::biv_norm(x, y, rho));
        }
        "#,
    },
];

/// Crates tried and left out, with what stops them (kept here so that the record is complete;
/// the test prints them).
pub const LEFT_OUT: &[(&str, &str)] = &[
    (
        "colorsys 0.7.3",
        "`macro_rules!` generic over the float type (`from_for_hsl_all!(f64)` expanding \
         `h as $t`): the type arrives as a macro argument the rewrite cannot tell from others",
    ),
    (
        "puruspe 0.4.4",
        "bit-level code (`to_bits`/`from_bits` in utils.rs, frexp) and num-complex's `Complex64` \
         (a foreign alias of `Complex<f64>`) built from rewritten values in faddeeva.rs",
    ),
    (
        "lambert_w 2.1.8",
        "`const fn` table builders with loops, num-complex's `Complex64::new` (a foreign alias) \
         and a user trait `AsCastFrom<f64>` implemented for f64 and f32",
    ),
    (
        "average 0.17.0",
        "`#[macro_export]` macros used as `$crate::name!` (macro-expanded exports cannot be named \
         by path), and the generic APIs of easy-cast (`i64::conv_nearest`, `f64::conv`) and \
         float-ord (`FloatOrd<f64>: Ord`)",
    ),
];
