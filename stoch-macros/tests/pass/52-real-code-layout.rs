// Code as published crates write it, with the attribute on each item (issue 28): constants,
// aliases and structs declared in other annotated items, `0f64` literals, compound assignment
// on indexed places, std consts imported outside the items, expression macros of the user's
// own, `macro_rules!` generating impls, const fns that build values, bare trait objects of
// older editions, and `plain!` for an expression that stays plain.
#![allow(bare_trait_objects, clippy::all)]
use std::f64::consts;
use std::f64::consts::PI;
use stoch_core::{plain, stochastic};

#[stochastic]
type R = f64;

#[stochastic]
const EPS: f64 = f64::EPSILON;

#[stochastic]
const FPMIN: f64 = f64::MIN_POSITIVE / EPS;

#[stochastic]
const TABLE: [f64; 3] = [0f64, 0.5, 1.5];

#[stochastic]
const SECOND: R = TABLE[1] * 2.0;

#[stochastic]
#[derive(Clone, Copy)]
struct Point(f64, f64);

#[stochastic]
impl Point {
    const fn new(x: f64, y: f64) -> Self {
        Point(x, y)
    }
    const ORIGIN: Point = Point::new(0f64, -0.0);
}

#[stochastic]
macro_rules! norm_impl {
    ($t:ident) => {
        impl $t {
            fn norm(&self) -> f64 {
                (self.0 * self.0 + self.1 * self.1).sqrt()
            }
        }
    };
}

norm_impl!(Point);

macro_rules! pair {
    ($a:expr, $b:expr) => {
        [$a, $b]
    };
}

#[stochastic]
fn eliminate(a: &mut Vec<Vec<f64>>) {
    for k in 0..a.len() {
        for r in k + 1..a.len() {
            let mult = a[r][k] / a[k][k];
            for j in k..a[0].len() {
                a[r][j] -= a[k][j] * mult;
            }
        }
    }
}

#[stochastic]
fn apply(f: &Fn(f64) -> f64, x: f64) -> f64 {
    f(x)
}

#[stochastic]
fn main() {
    assert!(FPMIN > 0.0 && SECOND == 1.0);
    assert!(TABLE[2] == 1.5 && Point::ORIGIN.0 == 0.0);
    let p = Point::new(3f64, 4.0);
    assert!(p.norm() == 5.0);
    let mut v = vec![1.0, 10_000f64];
    v[1] += v[0];
    assert!(v[1] == 10_001.0);
    // `op=` evaluates its right side first, as for `f64`.
    let order = std::cell::RefCell::new(Vec::new());
    let at = |i: usize| {
        order.borrow_mut().push("place");
        i
    };
    let rhs = || {
        order.borrow_mut().push("value");
        2.0
    };
    v[at(0)] *= rhs();
    assert_eq!(*order.borrow(), ["value", "place"]);
    assert!(v[0] == 2.0);
    let mut a = vec![vec![2.0, 1.0], vec![4.0, 3.0]];
    eliminate(&mut a);
    assert!(a[1][1] == 1.0);
    let circle = PI * consts::FRAC_1_PI * 2.0;
    assert!(circle.digits() >= 14);
    let w = pair!(0.25, 0.75);
    assert!(w[0] + w[1] == 1.0);
    let xs: Vec<f64> = vec![1.0, 2.0];
    let shifted: Vec<f64> = xs.iter().map(|x| x + 1.0).collect();
    assert!(shifted[1] == 3.0);
    assert!(apply(&|x| x * 2.0, 1.5) == 3.0);
    // Stays a plain f64 inside annotated code.
    let n: usize = plain!((2.5f64 * 2.0) as usize);
    assert_eq!(n, 5);
    let q: u32 = plain!(f64::sqrt(16.0)) as u32;
    assert_eq!(q, 4);
}
