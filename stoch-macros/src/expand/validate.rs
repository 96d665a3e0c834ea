//! Top-level misuse: the items `#[stochastic]` cannot be put on, each with a spanned error that
//! says what to do instead.

use quote::{quote, ToTokens};
use syn::Item;

use crate::error::{format_err, Errors};
use crate::rewrite::{fn_misuse, foreign_mod_error, macro_export_error};

/// Top-level misuse: what `#[stochastic]` cannot be put on.
pub(super) fn validate(item: &Item, errors: &mut Errors) {
    let unsupported = |what: &str, tokens: &dyn ToTokens| {
        format_err!(
            tokens.to_token_stream(),
            "#[stochastic] cannot be applied to {}; put it on a fn, an impl block, an inline \
             mod, a trait, a struct, an enum, a type alias, a const or a static",
            what
        )
    };
    match item {
        Item::Fn(f) => {
            // A `const fn` (Rust ABI) is rewritten: kept `const` when it only builds values,
            // made a plain fn when it computes.
            if let Some(err) = fn_misuse(&f.sig, false) {
                if f.sig.abi.is_some() {
                    errors.push(err);
                }
            }
        }
        Item::ForeignMod(m) => errors.push(foreign_mod_error(&m.abi)),
        Item::Mod(m) if m.content.is_none() => errors.push(format_err!(
            {
                let (mod_token, ident, semi) = (&m.mod_token, &m.ident, &m.semi);
                quote!(#mod_token #ident #semi)
            },
            "#[stochastic] cannot see into `mod {};` (its items are in another file); write the \
             module inline, or put #[stochastic] on the items of that file",
            m.ident
        )),
        Item::Use(u) => errors.push(unsupported("a `use` declaration", u)),
        Item::ExternCrate(e) => errors.push(unsupported("an `extern crate` item", e)),
        Item::Macro(m) if !m.mac.path.is_ident("macro_rules") => {
            errors.push(unsupported("a macro item", &m.mac.path));
        }
        Item::Macro(m) => {
            if let Some(err) = macro_export_error(m) {
                errors.push(err);
            }
        }
        Item::TraitAlias(t) => errors.push(unsupported("a trait alias", t)),
        Item::Verbatim(v) => errors.push(unsupported("this item", v)),
        _ => {}
    }
}
