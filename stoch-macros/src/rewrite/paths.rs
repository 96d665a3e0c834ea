//! Paths: `f64::sqrt` (every lower-case `f64::name`) and `f64::EPSILON`-style constants become
//! `Stochastic::<f64>`'s, `std::f64::consts::PI` an exact stochastic constant, `f64::from` the
//! cast, `PI`/`consts::PI` named without their type `__private::promote(..)`; paths and calls
//! into stoch-core (the macro's own output, or the user's) are left alone.

use syn::spanned::Spanned;
use syn::{Expr, ExprPath, Ident, Type};

use super::types::FloatKind;
use super::Rewrite;

/// `f64::EPSILON`-style associated constants that have a stochastic counterpart.
const FLOAT_CONSTS: &[&str] = &[
    "EPSILON",
    "MAX",
    "MIN",
    "MIN_POSITIVE",
    "INFINITY",
    "NEG_INFINITY",
    "NAN",
];

/// The std float constants (`std::f64::consts::*`), by name.
const STD_CONSTS: &[&str] = &[
    "PI",
    "TAU",
    "E",
    "SQRT_2",
    "FRAC_1_SQRT_2",
    "LN_2",
    "LN_10",
    "LOG2_E",
    "LOG2_10",
    "LOG10_E",
    "LOG10_2",
    "FRAC_PI_2",
    "FRAC_PI_3",
    "FRAC_PI_4",
    "FRAC_PI_6",
    "FRAC_PI_8",
    "FRAC_1_PI",
    "FRAC_2_PI",
    "FRAC_2_SQRT_PI",
];

impl Rewrite {
    /// The rewrite of a path expression; `false` when it is to be visited as usual.
    pub(super) fn rewrite_expr_path(&self, expr: &mut Expr) -> bool {
        let Expr::Path(p) = expr else { return false };
        if p.qself.is_none() && is_stoch_path(&p.path) {
            return true;
        }
        if let Some(new) = float_type_path(p) {
            *expr = new;
            return true;
        }
        if is_std_const_name(p) {
            let span = p.span();
            *expr = gen_expr!(span=> ::stoch_core::__private::promote(#p));
            return true;
        }
        false
    }
}

/// `f64::sqrt`, `f64::EPSILON`, `std::f64::consts::PI`, `f64::from`.
fn float_type_path(p: &ExprPath) -> Option<Expr> {
    let (kind, rest) = float_path(p)?;
    let span = p.span();
    let k = kind.ident(span);
    let names: Vec<String> = rest.iter().map(|s| s.ident.to_string()).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    match names.as_slice() {
        ["consts", _] => {
            let name = &rest[1].ident;
            let consts = Ident::new(&format!("consts_{}", kind.name()), span);
            Some(gen_expr!(span=>
                <::stoch_core::Stochastic<#k> as ::stoch_core::__private::From<#k>>::from(
                    ::stoch_core::__private::#consts::#name
                )
            ))
        }
        ["from"] => Some(gen_expr!(span=>
            ::stoch_core::__private::cast::<::stoch_core::Stochastic<#k>, _>
        )),
        [name]
            if FLOAT_CONSTS.contains(name)
                || name.starts_with(|c: char| c.is_lowercase() || c == '_') =>
        {
            let seg = &rest[0];
            Some(gen_expr!(span=> ::stoch_core::Stochastic::<#k>::#seg))
        }
        // `f64::DIGITS`, `f64::MANTISSA_DIGITS`, ...: integers, left alone.
        _ => None,
    }
}

/// `f64::X...`, `std::f64::X...` or `core::f64::X...`: the kind and the segments after `f64`.
pub(super) fn float_path(p: &ExprPath) -> Option<(FloatKind, Vec<&syn::PathSegment>)> {
    if p.qself.is_some() {
        return None;
    }
    let segs: Vec<&syn::PathSegment> = p.path.segments.iter().collect();
    let at = |i: usize| segs.get(i).map(|s| s.ident.to_string());
    let (kind, start) = if let Some(kind) = at(0).as_deref().and_then(FloatKind::from_name) {
        (kind, 1)
    } else if matches!(at(0).as_deref(), Some("std" | "core")) {
        (at(1).as_deref().and_then(FloatKind::from_name)?, 2)
    } else {
        return None;
    };
    if segs.len() <= start || segs[..start].iter().any(|s| !s.arguments.is_none()) {
        return None;
    }
    Some((kind, segs[start..].to_vec()))
}

/// `PI`, `consts::PI` (after `use std::f64::consts::PI` or `use std::f64::consts;`, possibly
/// outside the annotated item): a std float constant named without its type.
fn is_std_const_name(p: &ExprPath) -> bool {
    let segs = &p.path.segments;
    p.qself.is_none()
        && p.path.leading_colon.is_none()
        && match segs.len() {
            1 => STD_CONSTS.contains(&segs[0].ident.to_string().as_str()),
            2 => {
                segs[0].ident == "consts"
                    && STD_CONSTS.contains(&segs[1].ident.to_string().as_str())
            }
            _ => false,
        }
        && segs.iter().all(|s| s.arguments.is_none())
}

/// Paths the macro generated itself (or the user wrote): never rewritten again.
pub(super) fn is_stoch_path(path: &syn::Path) -> bool {
    path.segments
        .first()
        .is_some_and(|s| s.ident == "stoch_core" || s.ident == "Stochastic")
        || path
            .segments
            .last()
            .is_some_and(|s| s.ident == "Stochastic")
}

/// A call whose arguments stay as written: the macro's own expansions (a nested or repeated
/// `#[stochastic]`, already rewritten) and the user's calls into stoch-core
/// (`Sf64::with_relative_error(1.0, 1e-3)`), whose arguments are plain values.
pub(super) fn is_plain_call(func: &Expr) -> bool {
    is_generated(func) || is_stoch_api(func)
}

/// `::stoch_core::...` or `<::stoch_core::Stochastic<_> as ..>::...` as a callee.
fn is_generated(func: &Expr) -> bool {
    match func {
        Expr::Path(p) => match &p.qself {
            Some(q) => {
                matches!(&*q.ty, Type::Path(t) if t.qself.is_none() && is_stoch_path(&t.path))
            }
            None => p.path.leading_colon.is_some() && is_stoch_path(&p.path),
        },
        _ => false,
    }
}

/// `Stochastic::..`, `Sf64::..`, `Sf32::..` or `stoch_core::..` as a callee.
fn is_stoch_api(func: &Expr) -> bool {
    match func {
        Expr::Path(p) if p.qself.is_none() => p.path.segments.first().is_some_and(|s| {
            s.ident == "Stochastic"
                || s.ident == "Sf64"
                || s.ident == "Sf32"
                || s.ident == "stoch_core"
        }),
        _ => false,
    }
}
