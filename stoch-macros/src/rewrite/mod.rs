//! The rewrite itself: a [`VisitMut`] that turns `f32`/`f64` code into `Stochastic` code.
//!
//! Shaped like pin-project's `ReplaceReceiver`: each `visit_*_mut` hands the nodes it knows to
//! the module that rewrites them and otherwise recurses with `visit_mut::visit_*_mut`:
//!
//! - [`scan`]: the first pass, what the item declares (float constants, aliases, structs);
//! - [`types`]: `f32`/`f64` become `::stoch_core::Stochastic<f32>`/`<f64>` in every type;
//! - [`literals`]: float literals (outside patterns) become `From` calls;
//! - [`casts`]: `e as f64` (and `e as usize` on a possible float) become `__private::cast`;
//! - [`paths`]: `f64::sqrt`, `f64::EPSILON`, `std::f64::consts::PI`, `f64::from`, `PI`;
//! - [`consts`]: `const`/`static` initializers stay constant, each float value wrapped;
//! - [`macros`]: macro arguments and `macro_rules!` transcribers;
//! - [`assign`]: compound assignment on a place evaluates its right side first;
//! - [`markers`], [`fns`], [`misuse`]: nested items: skip markers, `const fn`s and small fns,
//!   what cannot be rewritten (reported, left as written, the rest rewritten).

use std::collections::HashMap;

use syn::visit_mut::{self, VisitMut};
use syn::{Attribute, Expr, GenericArgument, ImplItem, Item, Macro, Pat, Stmt, TraitItem, Type};

use crate::error::Errors;

/// `gen_expr!(span=> tokens)`: generated code as an [`Expr`], spanned on the user's tokens.
/// Never panics: tokens that do not re-parse (unstable syntax syn keeps verbatim) are kept as
/// [`Expr::Verbatim`]. Every generated expression is a path or a call, so it needs no
/// parentheses wherever it lands.
macro_rules! gen_expr {
    ($span:expr=> $($tt:tt)*) => {{
        let tokens = ::quote::quote_spanned!($span=> $($tt)*);
        ::syn::parse2::<::syn::Expr>(tokens.clone()).unwrap_or(::syn::Expr::Verbatim(tokens))
    }};
}

mod assign;
mod casts;
mod consts;
mod fns;
mod literals;
mod macros;
mod markers;
mod misuse;
mod paths;
mod scan;
mod types;

pub(crate) use misuse::{fn_misuse, foreign_mod_error, macro_export_error};

use markers::{impl_item_attrs_mut, item_attrs_mut, take_markers, trait_item_attrs_mut};
use paths::is_plain_call;
use types::FloatKind;

/// The rewriting visitor. One per expansion.
pub(crate) struct Rewrite {
    /// Every problem found, reported together.
    pub(crate) errors: Errors,
    /// `const`/`static` items of type `f32`/`f64` declared inside the item, by name.
    consts: HashMap<String, FloatKind>,
    /// `type Real = f64;` aliases declared inside the item, by name.
    aliases: HashMap<String, FloatKind>,
    /// Structs declared inside the item: their `f32`/`f64` fields (tuple fields by index).
    structs: HashMap<String, HashMap<String, FloatKind>>,
    /// The only float type the item mentions (`f64` when it mentions both or none): the type
    /// of the unsuffixed literals in a constant struct literal of a struct declared elsewhere.
    dominant: FloatKind,
    /// The self type of the impl being rewritten, by its last name.
    self_ty: Option<String>,
    /// Inside a `const fn` that only moves and builds values: literals become `const fn`
    /// calls.
    in_const_fn: bool,
    /// `#[stochastic(track_caller)]`: small fns get `#[track_caller]`.
    pub(crate) track_caller: bool,
}

impl Rewrite {
    /// Takes the marker attributes off a node that has attributes; whether it is to be left as
    /// written (`#[stochastic(skip)]`, `#[stochastic_skip]`).
    fn skipped(&mut self, attrs: Option<&mut Vec<Attribute>>) -> bool {
        attrs.is_some_and(|attrs| take_markers(attrs, &mut self.errors))
    }
}

impl VisitMut for Rewrite {
    fn visit_item_mut(&mut self, item: &mut Item) {
        if self.skipped(item_attrs_mut(item)) {
            return;
        }
        match item {
            Item::Const(c) => self.rewrite_const(&mut c.ty, &mut c.expr),
            Item::Static(s) => self.rewrite_const(&mut s.ty, &mut s.expr),
            Item::ForeignMod(m) => self.errors.push(foreign_mod_error(&m.abi)),
            Item::Macro(m) => match macro_export_error(m) {
                Some(err) => self.errors.push(err),
                None if m.mac.path.is_ident("macro_rules") => {
                    m.mac.tokens = self.rewrite_macro_rules(m.mac.tokens.clone());
                }
                None => {}
            },
            Item::Use(_) | Item::ExternCrate(_) | Item::Verbatim(_) => {}
            _ => visit_mut::visit_item_mut(self, item),
        }
    }

    fn visit_item_fn_mut(&mut self, f: &mut syn::ItemFn) {
        let mark = f.sig.ident != "main";
        self.rewrite_fn(f, mark);
    }

    fn visit_item_impl_mut(&mut self, item: &mut syn::ItemImpl) {
        let outer = std::mem::replace(&mut self.self_ty, types::type_name(&item.self_ty));
        visit_mut::visit_item_impl_mut(self, item);
        self.self_ty = outer;
    }

    fn visit_impl_item_mut(&mut self, item: &mut ImplItem) {
        if !self.skipped(impl_item_attrs_mut(item)) {
            visit_mut::visit_impl_item_mut(self, item);
        }
    }

    fn visit_impl_item_fn_mut(&mut self, f: &mut syn::ImplItemFn) {
        self.rewrite_fn(f, true);
    }

    fn visit_impl_item_const_mut(&mut self, c: &mut syn::ImplItemConst) {
        self.rewrite_const(&mut c.ty, &mut c.expr);
    }

    /// Macro invocations in impl and trait bodies are left as written.
    fn visit_impl_item_macro_mut(&mut self, _: &mut syn::ImplItemMacro) {}

    fn visit_trait_item_mut(&mut self, item: &mut TraitItem) {
        if !self.skipped(trait_item_attrs_mut(item)) {
            visit_mut::visit_trait_item_mut(self, item);
        }
    }

    fn visit_trait_item_fn_mut(&mut self, f: &mut syn::TraitItemFn) {
        self.rewrite_fn(f, true);
    }

    fn visit_trait_item_const_mut(&mut self, c: &mut syn::TraitItemConst) {
        match &mut c.default {
            Some((_, expr)) => self.rewrite_const(&mut c.ty, expr),
            None => self.visit_type_mut(&mut c.ty),
        }
    }

    fn visit_trait_item_macro_mut(&mut self, _: &mut syn::TraitItemMacro) {}

    fn visit_stmt_mut(&mut self, stmt: &mut Stmt) {
        if let Stmt::Local(local) = stmt {
            if self.skipped(Some(&mut local.attrs)) {
                return;
            }
        }
        visit_mut::visit_stmt_mut(self, stmt);
    }

    /// Attributes are left as written (`#[doc = ..]`, `#[allow(..)]`, ...).
    fn visit_attribute_mut(&mut self, _: &mut Attribute) {}

    /// Patterns keep their literals (`0.0 =>` cannot match a stochastic value anyway, and
    /// rewriting it would only change the error); types inside patterns are rewritten.
    fn visit_pat_mut(&mut self, pat: &mut Pat) {
        match pat {
            Pat::Lit(_) | Pat::Range(_) | Pat::Const(_) | Pat::Macro(_) => {}
            _ => visit_mut::visit_pat_mut(self, pat),
        }
    }

    fn visit_type_mut(&mut self, ty: &mut Type) {
        self.rewrite_type(ty);
    }

    fn visit_generic_argument_mut(&mut self, arg: &mut GenericArgument) {
        self.rewrite_generic_argument(arg);
    }

    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        if self.rewrite_literal(expr) || self.rewrite_expr_path(expr) {
            return;
        }
        match expr {
            Expr::Cast(cast) => {
                if let Some(new) = self.rewrite_cast(cast) {
                    *expr = new;
                }
                return;
            }
            // Already rewritten, or plain arguments of stoch-core's API.
            Expr::Call(call) if is_plain_call(&call.func) => return,
            // `[0.0; N]`: the length is an integer constant expression.
            Expr::Repeat(r) => return self.visit_expr_mut(&mut r.expr),
            Expr::Const(_) => return,
            _ => {}
        }
        if !self.rewrite_compound_assign(expr) {
            visit_mut::visit_expr_mut(self, expr);
        }
    }

    fn visit_macro_mut(&mut self, mac: &mut Macro) {
        self.rewrite_macro_args(mac);
    }
}
