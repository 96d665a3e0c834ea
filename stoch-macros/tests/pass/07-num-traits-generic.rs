// A generic helper bounded by num_traits::Float, called with f64 under the macro.
use num_traits::Float;
use stoch_core::stochastic;

fn norm2<T: Float>(xs: &[T]) -> T {
    xs.iter().fold(T::zero(), |acc, &x| acc + x * x).sqrt()
}

#[stochastic]
fn main() {
    let v = [3.0, 4.0, 12.0];
    let n = norm2(&v);
    assert!(n.digits() >= 14, "{n:?}");
    assert!(n == 13.0);
}
