//! Types: which types are floats, integers or aliases of them, and the rewrite of `f32`/`f64` to
//! `::stoch_core::Stochastic<f32>`/`<f64>` wherever a type appears (array lengths and const
//! generic arguments excepted: they are integer constant expressions).

use proc_macro2::Span;
use quote::quote_spanned;
use syn::spanned::Spanned;
use syn::visit::{self, Visit};
use syn::visit_mut::{self, VisitMut};
use syn::{Expr, GenericArgument, Ident, Type};

use super::paths::is_stoch_path;
use super::Rewrite;

/// The two float types the macro rewrites.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum FloatKind {
    F32,
    F64,
}

impl FloatKind {
    pub(super) fn from_name(name: &str) -> Option<Self> {
        match name {
            "f32" => Some(FloatKind::F32),
            "f64" => Some(FloatKind::F64),
            _ => None,
        }
    }

    pub(super) fn name(self) -> &'static str {
        match self {
            FloatKind::F32 => "f32",
            FloatKind::F64 => "f64",
        }
    }

    pub(super) fn ident(self, span: Span) -> Ident {
        Ident::new(self.name(), span)
    }

    /// `__private::const_f32`/`const_f64`: exact value as a stochastic constant (`const fn`).
    pub(super) fn const_fn(self, span: Span) -> Ident {
        Ident::new(&format!("const_{}", self.name()), span)
    }

    /// `__private::const_value_f32`/`const_value_f64`: back to the plain value (`const fn`).
    pub(super) fn const_value_fn(self, span: Span) -> Ident {
        Ident::new(&format!("const_value_{}", self.name()), span)
    }
}

/// The path of `ty` when it is a plain path type (no `<T as Trait>::`), through parentheses
/// and invisible groups.
fn plain_path(ty: &Type) -> Option<&syn::Path> {
    match ty {
        Type::Path(p) if p.qself.is_none() => Some(&p.path),
        Type::Paren(p) => plain_path(&p.elem),
        Type::Group(g) => plain_path(&g.elem),
        _ => None,
    }
}

/// `Some(kind)` if `ty` is exactly `f32` or `f64` (possibly parenthesized).
pub(super) fn scalar_float(ty: &Type) -> Option<FloatKind> {
    plain_path(ty)?
        .get_ident()
        .and_then(|i| FloatKind::from_name(&i.to_string()))
}

/// Whether `f32` or `f64` appears anywhere in `ty` (array lengths excluded).
pub(super) fn mentions_float(ty: &Type) -> bool {
    struct Mentions(bool);
    impl Visit<'_> for Mentions {
        fn visit_type_path(&mut self, p: &syn::TypePath) {
            if p.qself.is_none()
                && p.path
                    .get_ident()
                    .is_some_and(|i| FloatKind::from_name(&i.to_string()).is_some())
            {
                self.0 = true;
            }
            visit::visit_type_path(self, p);
        }
        fn visit_expr(&mut self, _: &Expr) {}
    }
    let mut m = Mentions(false);
    m.visit_type(ty);
    m.0
}

/// The float types named in `ty`, each once.
pub(super) fn float_kinds(ty: &Type) -> Vec<FloatKind> {
    struct Kinds(Vec<FloatKind>);
    impl Visit<'_> for Kinds {
        fn visit_type(&mut self, ty: &Type) {
            match scalar_float(ty) {
                Some(kind) if !self.0.contains(&kind) => self.0.push(kind),
                Some(_) => {}
                None => visit::visit_type(self, ty),
            }
        }
        fn visit_expr(&mut self, _: &Expr) {}
    }
    let mut kinds = Kinds(Vec::new());
    kinds.visit_type(ty);
    kinds.0
}

/// `::stoch_core::Stochastic<f64>`, spanned on the user's `f64`.
pub(super) fn stoch_type(kind: FloatKind, span: Span) -> Type {
    let k = kind.ident(span);
    let tokens = quote_spanned!(span=> ::stoch_core::Stochastic<#k>);
    syn::parse2(tokens.clone()).unwrap_or(Type::Verbatim(tokens))
}

/// `i8` ... `usize`, possibly parenthesized.
pub(super) fn is_int_type(ty: &Type) -> bool {
    plain_path(ty)
        .and_then(syn::Path::get_ident)
        .is_some_and(|i| is_int_name(&i.to_string()))
}

/// `i8` ... `usize`: the primitive integer types.
fn is_int_name(name: &str) -> bool {
    matches!(
        name,
        "i8" | "i16"
            | "i32"
            | "i64"
            | "i128"
            | "isize"
            | "u8"
            | "u16"
            | "u32"
            | "u64"
            | "u128"
            | "usize"
    )
}

/// `i32`, `usize`, `bool`, ...: the primitive types other than the floats.
pub(super) fn is_primitive_name(name: &str) -> bool {
    is_int_name(name) || matches!(name, "bool" | "char" | "str" | "f32" | "f64")
}

/// The last name of a path type (`Point` for `geo::Point`), `Self` included.
pub(super) fn type_name(ty: &Type) -> Option<String> {
    plain_path(ty)?.segments.last().map(|s| s.ident.to_string())
}

/// `n as Real`: `as` converts only to primitive types, so a target named by one identifier
/// that is no primitive is an alias of one (declared in another item, maybe of a float).
pub(super) fn is_alias_name(ty: &Type) -> bool {
    matches!(ty, Type::Path(p) if p.qself.is_none()
        && p.path.get_ident().is_some_and(|i| !is_primitive_name(&i.to_string())))
}

impl Rewrite {
    /// `Real` when `type Real = f64;` is declared in the item.
    pub(super) fn float_alias(&self, ty: &Type) -> Option<FloatKind> {
        match ty {
            Type::Path(p) if p.qself.is_none() => p
                .path
                .get_ident()
                .and_then(|i| self.aliases.get(&i.to_string()).copied()),
            _ => None,
        }
    }

    /// [`VisitMut::visit_type_mut`]: `f64` becomes `Stochastic<f64>`; the macro's own paths
    /// and array lengths are left alone.
    pub(super) fn rewrite_type(&mut self, ty: &mut Type) {
        match ty {
            Type::Path(p) if p.qself.is_none() => {
                if let Some(kind) = p
                    .path
                    .get_ident()
                    .and_then(|i| FloatKind::from_name(&i.to_string()))
                {
                    *ty = stoch_type(kind, p.span());
                    return;
                }
                if is_stoch_path(&p.path) {
                    return;
                }
            }
            // The length is an integer constant expression.
            Type::Array(a) => return self.visit_type_mut(&mut a.elem),
            Type::Macro(_) => return,
            _ => {}
        }
        visit_mut::visit_type_mut(self, ty);
    }

    /// [`VisitMut::visit_generic_argument_mut`]: const generic arguments are integer constant
    /// expressions, left alone.
    pub(super) fn rewrite_generic_argument(&mut self, arg: &mut GenericArgument) {
        match arg {
            GenericArgument::Const(_) | GenericArgument::AssocConst(_) => {}
            _ => visit_mut::visit_generic_argument_mut(self, arg),
        }
    }
}
