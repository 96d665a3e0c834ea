//! trybuild: `ui/` holds one misuse per file with its reviewed `.stderr`; `pass/` holds realistic
//! numerical snippets that must compile under `#[stochastic]` and run (their `main` asserts on
//! exact digits). Regenerate the `.stderr` files with
//! `TRYBUILD=overwrite cargo test -p stoch-macros --test compiletest` and review the diff.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}

#[test]
fn pass() {
    let t = trybuild::TestCases::new();
    t.pass("tests/pass/*.rs");
}
