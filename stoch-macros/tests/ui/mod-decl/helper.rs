pub fn twice(x: f64) -> f64 {
    2.0 * x
}
