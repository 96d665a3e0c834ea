// A generic container instantiated with f64, and an impl for Grid<f64>.
use stoch_core::stochastic;

struct Grid<T> {
    nx: usize,
    data: Vec<T>,
}

impl<T: Copy> Grid<T> {
    fn get(&self, i: usize, j: usize) -> T {
        self.data[i * self.nx + j]
    }
}

#[stochastic]
impl Grid<f64> {
    fn filled(nx: usize, ny: usize, v: f64) -> Self {
        Grid { nx, data: vec![v; nx * ny] }
    }

    fn total(&self) -> f64 {
        self.data.iter().sum()
    }
}

#[stochastic]
fn main() {
    let g = Grid::filled(4, 3, 0.25);
    assert!(g.total() == 3.0);
    assert!(g.get(2, 1) == 0.25);
}
