#![doc = include_str!("../README.md")]
//!
//! This root package is not published: it owns the workspace's end-to-end tests (`tests/`) and
//! examples (`examples/`), and runs the README's code blocks as doctests.
pub mod repro; // composite-helper
