// #[stochastic] directly on an impl block (Self types, associated consts and fns).
use stoch_core::stochastic;

#[stochastic]
#[derive(Debug, Clone, Copy)]
struct Complex {
    re: f64,
    im: f64,
}

#[stochastic]
impl Complex {
    const I: Complex = Complex { re: 0.0, im: Self::ONE };
    const ONE: f64 = 1.0;

    fn mul(self, o: Self) -> Self {
        Complex { re: self.re * o.re - self.im * o.im, im: self.re * o.im + self.im * o.re }
    }

    fn abs(self) -> f64 {
        self.re.hypot(self.im)
    }
}

#[stochastic]
fn main() {
    let z = Complex { re: 3.0, im: 4.0 };
    assert!(z.abs() == 5.0);
    let w = z.mul(Complex::I);
    assert!(w.re == -4.0 && w.im == 3.0);
    assert!(w.abs().digits() >= 14);
}
