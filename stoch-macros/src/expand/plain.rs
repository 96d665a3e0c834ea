//! `plain = name`: the IEEE twin of the item (a copy as written, renamed), and the removal of
//! the attribute's markers from nested items in that copy and in the fallback output.

use syn::visit_mut::VisitMut;
use syn::{Ident, Item};

use crate::error::bail;

/// `plain = name`: the item as written, with every nested `#[stochastic..]` removed.
pub(super) fn plain_copy(item: &Item, key: &Ident, name: &Ident) -> syn::Result<Item> {
    let mut copy = item.clone();
    match &mut copy {
        Item::Fn(f) if f.sig.ident == "main" => bail!(key, "`plain` does not apply to `fn main`"),
        Item::Fn(f) => f.sig.ident = name.clone(),
        Item::Mod(m) if m.content.is_some() => m.ident = name.clone(),
        _ => bail!(
            key,
            "`plain = name` applies to a fn or an inline mod (a copy of the item as written, \
             renamed); for an impl block, put the methods in a mod"
        ),
    }
    strip_markers(&mut copy, true);
    Ok(copy)
}

/// Removes `#[stochastic_skip]` and `#[stochastic(..)]` from nested items (fallback output),
/// and also plain `#[stochastic]` when `all` (the `plain` copy).
pub(super) fn strip_markers(item: &mut Item, all: bool) {
    struct Strip(bool);
    impl VisitMut for Strip {
        fn visit_attributes_mut(&mut self, attrs: &mut Vec<syn::Attribute>) {
            attrs.retain(|a| {
                !(a.path().is_ident("stochastic_skip")
                    || a.path().is_ident("stochastic")
                        && (self.0 || matches!(a.meta, syn::Meta::List(_))))
            });
        }
    }
    Strip(all).visit_item_mut(item);
}
