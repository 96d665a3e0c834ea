// HashMap<String, f64> accumulation and lookups.
use std::collections::HashMap;
use stoch_core::stochastic;

#[stochastic]
fn totals(items: &[(&str, f64)]) -> HashMap<String, f64> {
    let mut map: HashMap<String, f64> = HashMap::new();
    for (k, v) in items {
        *map.entry(k.to_string()).or_insert(0.0) += *v;
    }
    map
}

#[stochastic]
fn main() {
    let t = totals(&[("a", 1.5), ("b", 2.0), ("a", 0.25)]);
    assert!(t["a"] == 1.75);
    assert!(t["b"].digits() >= 15);
    let missing = t.get("c").copied().unwrap_or(0.0);
    assert!(missing == 0.0);
}
