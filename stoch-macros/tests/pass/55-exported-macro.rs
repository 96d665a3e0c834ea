// What the `#[macro_export]` error advises: the exported macro stays outside the annotated
// module, unannotated, and is named by path there; the fns it defines carry the attribute in
// its transcriber, and its expression form keeps a plain literal that mixes with `Sf64`.
#[macro_export]
macro_rules! half {
    ($x:expr) => {
        $x * 0.5
    };
}

#[macro_export]
macro_rules! scaled {
    ($name:ident, $k:expr) => {
        #[::stoch_core::stochastic]
        pub fn $name(x: f64) -> f64 {
            x * $k
        }
    };
}

#[stoch_core::stochastic]
mod numeric {
    crate::scaled!(tenth, 0.1);

    pub fn quarter(x: f64) -> f64 {
        crate::half!(crate::half!(x))
    }
}

fn main() {
    use stoch_core::Sf64;
    let q = numeric::quarter(Sf64::new(1.0));
    assert_eq!(q.samples(), [0.25; 3]);
    // 0.1 is inexact: the three samples of 3 * 0.1 differ in the last bit at most.
    let t: Sf64 = numeric::tenth(Sf64::new(3.0));
    assert!(t.digits() >= 14 && (t.to_f64() - 0.3).abs() < 1e-15, "{t:?}");
}
