//! Bare trait objects of older editions (`&Fn(f64) -> f64`), which syn does not parse: `dyn`
//! inserted where it is meant, on the tokens, before the item is parsed again.

use proc_macro2::{TokenStream, TokenTree};
use syn::Ident;

use crate::tokens::regroup;

/// `&Fn(f64) -> f64`, `Box<FnMut(f64)>`: `dyn` inserted before `Fn`/`FnMut`/`FnOnce` with
/// parenthesized arguments where a type starts after `&`, `&mut`, `&'a` or `<`.
pub(super) fn add_dyn(tokens: TokenStream) -> TokenStream {
    let mut out: Vec<TokenTree> = Vec::new();
    let mut iter = tokens.into_iter().peekable();
    while let Some(tt) = iter.next() {
        match tt {
            TokenTree::Group(g) => out.push(regroup(&g, add_dyn(g.stream()))),
            TokenTree::Ident(i)
                if (i == "Fn" || i == "FnMut" || i == "FnOnce")
                    && matches!(iter.peek(), Some(TokenTree::Group(g))
                        if g.delimiter() == proc_macro2::Delimiter::Parenthesis)
                    && type_starts_here(&out) =>
            {
                out.push(TokenTree::Ident(Ident::new("dyn", i.span())));
                out.push(TokenTree::Ident(i));
            }
            tt => out.push(tt),
        }
    }
    out.into_iter().collect()
}

/// After `&`, `&mut`, `&'a`, `&'a mut` or `<`.
fn type_starts_here(before: &[TokenTree]) -> bool {
    let is_amp =
        |t: Option<&TokenTree>| matches!(t, Some(TokenTree::Punct(p)) if p.as_char() == '&');
    let n = before.len();
    match before.last() {
        Some(TokenTree::Punct(p)) => p.as_char() == '&' || p.as_char() == '<',
        Some(TokenTree::Ident(i)) if i == "mut" => {
            is_amp(n.checked_sub(2).and_then(|k| before.get(k)))
                || n >= 4
                    && matches!(&before[n - 3], TokenTree::Ident(_))
                    && matches!(&before[n - 4], TokenTree::Punct(p) if p.as_char() == '\'')
                    && is_amp(n.checked_sub(5).and_then(|k| before.get(k)))
        }
        // `&'a Fn(..)`: a lifetime is a `'` punct and an ident.
        Some(TokenTree::Ident(_)) => {
            n >= 3
                && matches!(&before[n - 2], TokenTree::Punct(p) if p.as_char() == '\'')
                && is_amp(before.get(n - 3))
        }
        _ => false,
    }
}
