//! The small fns `#[stochastic]` rewrote without `#[track_caller]`, so that the report can say
//! when a site lies inside one. A leaf module: the macro fills the slice (through
//! `__private`), the report reads it.

pub use linkme;

/// A small fn (one statement or expression) that `#[stochastic]` rewrote without
/// `#[track_caller]`: the report notes a site on lines `first..=last` of `file` as inside it.
/// Recorded at link time (a `linkme` distributed slice), so the hot path pays nothing.
#[derive(Debug)]
pub struct SmallHelper {
    /// `file!()` of the fn, as `Location::file` names it.
    pub file: &'static str,
    /// The line of `fn`.
    pub first: u32,
    /// The line of the body's closing brace.
    pub last: u32,
    /// The fn's name.
    pub name: &'static str,
}

/// Every [`SmallHelper`] of the program.
#[linkme::distributed_slice]
pub static SMALL_HELPERS: [SmallHelper];

/// The name of the innermost small helper holding `file:line`, if any.
pub(crate) fn small_helper(file: &str, line: u32) -> Option<&'static str> {
    SMALL_HELPERS
        .iter()
        .filter(|h| h.file == file && (h.first..=h.last).contains(&line))
        .min_by_key(|h| h.last - h.first)
        .map(|h| h.name)
}

#[cfg(test)]
mod tests {
    use super::{small_helper, SmallHelper, SMALL_HELPERS};

    #[linkme::distributed_slice(SMALL_HELPERS)]
    static OUTER: SmallHelper = SmallHelper {
        file: "made/up.rs",
        first: 10,
        last: 20,
        name: "outer",
    };

    #[linkme::distributed_slice(SMALL_HELPERS)]
    static INNER: SmallHelper = SmallHelper {
        file: "made/up.rs",
        first: 12,
        last: 12,
        name: "inner",
    };

    #[test]
    fn the_innermost_helper_holding_the_line() {
        assert_eq!(small_helper("made/up.rs", 12), Some("inner"));
        assert_eq!(small_helper("made/up.rs", 10), Some("outer"));
        assert_eq!(small_helper("made/up.rs", 20), Some("outer"));
        assert_eq!(small_helper("made/up.rs", 21), None);
        assert_eq!(small_helper("made/up.rs", 9), None);
        assert_eq!(small_helper("other.rs", 12), None);
    }
}
