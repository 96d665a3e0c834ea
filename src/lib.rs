//! End-to-end tests and examples of the stoch workspace live in `tests/` and `examples/`.
