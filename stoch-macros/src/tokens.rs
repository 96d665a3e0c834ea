//! Token-tree helpers shared by the passes that work on tokens rather than on syn's tree
//! (`macro_rules!` transcribers, bare trait objects).

use proc_macro2::{Group, TokenStream, TokenTree};

/// A group of `g`'s delimiter and span around `stream`.
pub(crate) fn regroup(g: &Group, stream: TokenStream) -> TokenTree {
    let mut new = Group::new(g.delimiter(), stream);
    new.set_span(g.span());
    TokenTree::Group(new)
}
