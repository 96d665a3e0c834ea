//! Float literals (outside patterns): `1.5f32` becomes
//! `<Stochastic<f32> as From<f32>>::from(1.5f32)`, an unsuffixed `0.5` becomes
//! `<Stochastic<_> as From<_>>::from(0.5)`, typed by the compiler's own inference; inside a
//! `const fn` that only builds values, a literal becomes a `__private::const_f64(..)` call.

use syn::spanned::Spanned;
use syn::{Expr, LitFloat, UnOp};

use super::types::FloatKind;
use super::Rewrite;

impl Rewrite {
    /// The rewrite of a literal expression (`Expr::Lit`, or a negated literal inside a
    /// `const fn`); `false` when `expr` is no literal and is to be visited as usual.
    pub(super) fn rewrite_literal(&self, expr: &mut Expr) -> bool {
        match expr {
            Expr::Lit(_) | Expr::Unary(_) if self.in_const_fn && is_literal(expr) => {
                if let Some(kind) = self.literal_kind(expr) {
                    let span = expr.span();
                    let f = kind.const_fn(span);
                    *expr = gen_expr!(span=> ::stoch_core::__private::#f(#expr));
                }
                true
            }
            Expr::Lit(lit) => {
                let new = match &lit.lit {
                    syn::Lit::Float(f) => float_literal(f),
                    syn::Lit::Int(i) => int_float_literal(i),
                    _ => None,
                };
                if let Some(new) = new {
                    *expr = new;
                }
                true
            }
            _ => false,
        }
    }

    /// The kind of a float literal (`-1.5`, `2f32`): its suffix, else the item's dominant kind;
    /// `None` for other literals.
    pub(super) fn literal_kind(&self, e: &Expr) -> Option<FloatKind> {
        match e {
            Expr::Lit(l) => match &l.lit {
                syn::Lit::Float(f) if f.suffix().is_empty() => Some(self.dominant),
                syn::Lit::Float(f) => FloatKind::from_name(f.suffix()),
                syn::Lit::Int(i) => FloatKind::from_name(i.suffix()),
                _ => None,
            },
            Expr::Unary(u) => self.literal_kind(&u.expr),
            Expr::Paren(p) => self.literal_kind(&p.expr),
            _ => None,
        }
    }
}

/// `0f64`, `10_000f32`: an integer-looking literal with a float suffix is a float literal.
fn int_float_literal(lit: &syn::LitInt) -> Option<Expr> {
    let span = lit.span();
    let k = FloatKind::from_name(lit.suffix())?.ident(span);
    Some(gen_expr!(span=>
        <::stoch_core::Stochastic<#k> as ::stoch_core::__private::From<#k>>::from(#lit)
    ))
}

/// A float literal as a stochastic value; `None` for other suffixes (`f16`, `f128`).
fn float_literal(lit: &LitFloat) -> Option<Expr> {
    let span = lit.span();
    if lit.suffix().is_empty() {
        return Some(gen_expr!(span=>
            <::stoch_core::Stochastic<_> as ::stoch_core::__private::From<_>>::from(#lit)
        ));
    }
    let k = FloatKind::from_name(lit.suffix())?.ident(span);
    Some(gen_expr!(span=>
        <::stoch_core::Stochastic<#k> as ::stoch_core::__private::From<#k>>::from(#lit)
    ))
}

/// `1.0`, `-1.0`, `3`, `'a'`, `(2.5)`.
pub(super) fn is_literal(e: &Expr) -> bool {
    match e {
        Expr::Lit(_) => true,
        Expr::Paren(p) => is_literal(&p.expr),
        Expr::Group(g) => is_literal(&g.expr),
        Expr::Unary(u) => matches!(u.op, UnOp::Neg(_)) && is_literal(&u.expr),
        _ => false,
    }
}
