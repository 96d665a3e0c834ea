//! Marker attributes on nested items and `let` statements: `#[stochastic(skip)]` and
//! `#[stochastic_skip]` leave the item as written, a nested `#[stochastic]` is redundant; all of
//! them are removed from the output, and misplaced arguments are reported.

use syn::{Attribute, ImplItem, Item, Meta, TraitItem};

use crate::args::Args;
use crate::error::{format_err, Errors};

/// Is this attribute path `stochastic`, `stoch_core::stochastic` or `stoch_macros::stochastic`?
fn is_stochastic_attr(path: &syn::Path) -> bool {
    path.segments
        .last()
        .is_some_and(|s| s.ident == "stochastic")
        && (path.segments.len() == 1
            || path.segments.len() == 2
                && (path.segments[0].ident == "stoch_core"
                    || path.segments[0].ident == "stoch_macros"))
}

/// Does the item carry `#[stochastic(skip)]` or `#[stochastic_skip]`? (Read only.)
pub(super) fn has_skip_marker(attrs: &[Attribute]) -> bool {
    attrs.iter().any(|attr| {
        attr.path().is_ident("stochastic_skip")
            || is_stochastic_attr(attr.path())
                && matches!(&attr.meta, Meta::List(l)
                    if Args::parse_tokens(l.tokens.clone()).is_ok_and(|a| a.skip.is_some()))
    })
}

/// Removes `#[stochastic_skip]` and nested `#[stochastic(..)]` attributes; returns whether the
/// item is to be skipped. Bad nested arguments are reported into `errors`.
pub(super) fn take_markers(attrs: &mut Vec<Attribute>, errors: &mut Errors) -> bool {
    let mut skip = false;
    attrs.retain(|attr| {
        if attr.path().is_ident("stochastic_skip") {
            if attr.meta.require_path_only().is_err() {
                errors.push(format_err!(attr, "`#[stochastic_skip]` takes no arguments"));
            }
            skip = true;
            return false;
        }
        if !is_stochastic_attr(attr.path()) {
            return true;
        }
        match &attr.meta {
            // A nested `#[stochastic]` is redundant: the outer one rewrites this item already.
            Meta::Path(_) => {}
            Meta::List(list) => match Args::parse_tokens(list.tokens.clone()) {
                Ok(args) => {
                    if args.skip.is_some() {
                        skip = true;
                    }
                    if let Some((_, key)) = args.report {
                        errors.push(format_err!(
                            key,
                            "`report` applies only to `fn main` under its own #[stochastic]"
                        ));
                    }
                    if let Some(key) = args.track_caller {
                        errors.push(format_err!(
                            key,
                            "`track_caller` applies to the whole item: write it on the outer \
                             #[stochastic]"
                        ));
                    }
                }
                Err(err) => errors.push(err),
            },
            Meta::NameValue(_) => errors.push(format_err!(
                attr,
                "expected `#[stochastic]` or `#[stochastic(skip)]`"
            )),
        }
        false
    });
    skip
}

/// `attrs_mut!(node; Enum::Variant, ..)`: `Some(&mut node.attrs)` of the variants listed, `None`
/// for the others (verbatim tokens).
macro_rules! attrs_mut {
    ($node:expr; $($variant:path),* $(,)?) => {
        match $node {
            $($variant(i) => Some(&mut i.attrs),)*
            _ => None,
        }
    };
}

/// The attributes of an item, if it has attributes.
pub(super) fn item_attrs_mut(item: &mut Item) -> Option<&mut Vec<Attribute>> {
    attrs_mut!(item;
        Item::Const, Item::Enum, Item::ExternCrate, Item::Fn, Item::ForeignMod, Item::Impl,
        Item::Macro, Item::Mod, Item::Static, Item::Struct, Item::Trait, Item::TraitAlias,
        Item::Type, Item::Union, Item::Use,
    )
}

/// The attributes of an impl item, if it has attributes.
pub(super) fn impl_item_attrs_mut(item: &mut ImplItem) -> Option<&mut Vec<Attribute>> {
    attrs_mut!(item; ImplItem::Const, ImplItem::Fn, ImplItem::Type, ImplItem::Macro)
}

/// The attributes of a trait item, if it has attributes.
pub(super) fn trait_item_attrs_mut(item: &mut TraitItem) -> Option<&mut Vec<Attribute>> {
    attrs_mut!(item; TraitItem::Const, TraitItem::Fn, TraitItem::Type, TraitItem::Macro)
}
