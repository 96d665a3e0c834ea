//! Constants: a `const`/`static` of float type (arrays, slices, tuples, references, wrappers
//! such as `Mutex<f64>`, struct literals of rewritten structs) keeps a plain constant
//! initializer in which each float value is wrapped by a `const fn`
//! (`__private::const_f64(1.0 / 64.0)`); float constants of the item named inside are read back
//! as plain values, constants of other items through `__private::const_plain`.

use std::collections::HashMap;

use syn::spanned::Spanned;
use syn::visit_mut::{self, VisitMut};
use syn::{Expr, Type};

use super::paths::float_path;
use super::types::{
    float_kinds, is_primitive_name, mentions_float, scalar_float, type_name, FloatKind,
};
use super::Rewrite;
use crate::error::format_err;

impl Rewrite {
    /// A `const`/`static` of float type: rewrite the type, keep the initializer a plain constant
    /// expression and wrap each float value with `__private::const_f64` (a `const fn`).
    pub(super) fn rewrite_const(&mut self, ty: &mut Type, expr: &mut Expr) {
        match self.const_init(ty, expr) {
            Ok(()) => self.visit_type_mut(ty),
            Err(err) => self.errors.push(err),
        }
    }

    fn const_init(&self, ty: &Type, expr: &mut Expr) -> syn::Result<()> {
        // `f64`, or `const PI: R = ...;` with `type R = f64;` declared here or in another item
        // (a type named by one identifier, not a struct of the item, with a float initializer).
        if let Some(kind) = scalar_float(ty).or_else(|| self.alias_kind(ty, expr)) {
            self.wrap_const(kind, expr);
            return Ok(());
        }
        if !mentions_float(ty) && type_name(ty).is_some() {
            self.const_struct_init(ty, expr);
            return Ok(());
        }
        match (ty, expr) {
            (Type::Paren(t), expr) => self.const_init(&t.elem, expr),
            (Type::Group(t), expr) => self.const_init(&t.elem, expr),
            (ty, Expr::Paren(e)) => self.const_init(ty, &mut e.expr),
            (Type::Array(t), Expr::Array(e)) => e
                .elems
                .iter_mut()
                .try_for_each(|e| self.const_init(&t.elem, e)),
            (Type::Slice(t), Expr::Array(e)) => e
                .elems
                .iter_mut()
                .try_for_each(|e| self.const_init(&t.elem, e)),
            (Type::Array(t), Expr::Repeat(e)) => self.const_init(&t.elem, &mut e.expr),
            (Type::Reference(t), Expr::Reference(e)) => self.const_init(&t.elem, &mut e.expr),
            // Another constant, `Self::ROW` or `TABLE[1]`: of the rewritten type when it is
            // declared under `#[stochastic]` too.
            (_, Expr::Path(_) | Expr::Index(_)) => Ok(()),
            (Type::Tuple(t), Expr::Tuple(e)) if t.elems.len() == e.elems.len() => t
                .elems
                .iter()
                .zip(e.elems.iter_mut())
                .try_for_each(|(t, e)| self.const_init(t, e)),
            (ty, expr) if mentions_float(ty) => {
                // `Mutex<f64>`, `Option<f32>`, `Cell<f64>`: wrap the float-valued constant
                // expressions inside, when the type names one float type.
                let kinds = float_kinds(ty);
                if kinds.len() == 1 && self.wrap_const_floats(kinds[0], expr) {
                    return Ok(());
                }
                Err(format_err!(
                    expr,
                    "#[stochastic] cannot rewrite this constant initializer: write the float \
                     values as constant expressions (arrays, tuples, references, struct literals \
                     and calls of them are fine), or mark the constant `#[stochastic(skip)]` to \
                     keep it a plain float"
                ))
            }
            _ => Ok(()),
        }
    }

    /// `value` becomes `__private::const_f64(value)` (a `const fn`), the float constants of the
    /// item named inside it read back as plain values.
    fn wrap_const(&self, kind: FloatKind, value: &mut Expr) {
        let span = value.span();
        let mut inner = value.clone();
        self.replace_const_refs(&mut inner);
        let f = kind.const_fn(span);
        *value = gen_expr!(span=> ::stoch_core::__private::#f(#inner));
    }

    /// The float kind of a constant whose type is an alias (`R`, `Real`): known from a `type`
    /// of the item, or taken from a float initializer (the item's dominant kind) when the type
    /// is one identifier that names no struct of the item and no primitive.
    fn alias_kind(&self, ty: &Type, expr: &Expr) -> Option<FloatKind> {
        if let Some(kind) = self.float_alias(ty) {
            return Some(kind);
        }
        let Type::Path(p) = ty else { return None };
        let ident = p.path.get_ident()?.to_string();
        (p.qself.is_none()
            && !self.structs.contains_key(&ident)
            && !is_primitive_name(&ident)
            && self.is_const_float(expr))
        .then_some(self.dominant)
    }

    /// `const ORIGIN: Point = Point { x: 0.0, y: 0.0 };` (or `Point(0.0, 0.0)`) where `Point`'s
    /// float fields are rewritten: a struct declared in the item (its field types are known),
    /// or the self type of the impl being rewritten (then the float-valued constant expressions
    /// are taken to be the item's dominant float type). Other constants are left alone.
    fn const_struct_init(&self, ty: &Type, expr: &mut Expr) {
        let Some(mut name) = type_name(ty) else {
            return;
        };
        if name == "Self" {
            match &self.self_ty {
                Some(self_ty) => name = self_ty.clone(),
                None => return,
            }
        }
        let known = self.structs.get(&name);
        if known.is_none() && self.self_ty.as_deref() != Some(name.as_str()) {
            return;
        }
        let kind_of = |member: String, value: &Expr| match known {
            Some(fields) => fields.get(&member).copied(),
            None => self.is_const_float(value).then_some(self.dominant),
        };
        let names_struct = |path: &syn::Path| {
            path.segments
                .last()
                .is_some_and(|s| s.ident == name || s.ident == "Self")
        };
        match expr {
            Expr::Struct(st) if names_struct(&st.path) => {
                for field in st.fields.iter_mut() {
                    let member = match &field.member {
                        syn::Member::Named(ident) => ident.to_string(),
                        syn::Member::Unnamed(index) => index.index.to_string(),
                    };
                    if let Some(kind) = kind_of(member, &field.expr) {
                        self.wrap_const(kind, &mut field.expr);
                    }
                }
            }
            Expr::Call(call) if matches!(&*call.func, Expr::Path(p) if names_struct(&p.path)) => {
                for (i, arg) in call.args.iter_mut().enumerate() {
                    if let Some(kind) = kind_of(i.to_string(), arg) {
                        self.wrap_const(kind, arg);
                    }
                }
            }
            // `Point::new(0.0, 1.0)`: a `const fn` of the struct, rewritten to take stochastic
            // values; its float arguments are wrapped in the item's float type.
            Expr::Call(call) => {
                for arg in call.args.iter_mut() {
                    if self.is_const_float(arg) {
                        self.wrap_const(self.dominant, arg);
                    }
                }
            }
            _ => {}
        }
    }

    /// Wraps each float-valued constant expression found in call arguments, struct fields,
    /// arrays and tuples of `expr`. Returns whether it wrapped any.
    fn wrap_const_floats(&self, kind: FloatKind, expr: &mut Expr) -> bool {
        if self.is_const_float(expr) {
            self.wrap_const(kind, expr);
            return true;
        }
        let mut any = false;
        let mut each = |e: &mut Expr| any |= self.wrap_const_floats(kind, e);
        match expr {
            Expr::Call(c) => c.args.iter_mut().for_each(&mut each),
            Expr::Struct(st) => st.fields.iter_mut().for_each(|f| each(&mut f.expr)),
            Expr::Array(a) => a.elems.iter_mut().for_each(&mut each),
            Expr::Tuple(t) => t.elems.iter_mut().for_each(&mut each),
            Expr::Paren(p) => each(&mut p.expr),
            Expr::Reference(r) => each(&mut r.expr),
            Expr::Repeat(r) => each(&mut r.expr),
            _ => {}
        }
        any
    }

    /// A constant expression of float type: literals, float constants of the item, float casts
    /// and `f64::` constants combined by arithmetic.
    fn is_const_float(&self, e: &Expr) -> bool {
        fn walk(rw: &Rewrite, e: &Expr, float: &mut bool) -> bool {
            match e {
                Expr::Lit(l) => {
                    *float |= match &l.lit {
                        syn::Lit::Float(_) => true,
                        syn::Lit::Int(i) => FloatKind::from_name(i.suffix()).is_some(),
                        _ => false,
                    };
                    true
                }
                Expr::Paren(p) => walk(rw, &p.expr, float),
                Expr::Group(g) => walk(rw, &g.expr, float),
                Expr::Unary(u) => walk(rw, &u.expr, float),
                Expr::Binary(b) => walk(rw, &b.left, float) && walk(rw, &b.right, float),
                Expr::Cast(c) => {
                    *float |= scalar_float(&c.ty).is_some();
                    walk(rw, &c.expr, float)
                }
                Expr::Path(p) => {
                    let last = p.path.segments.last().map(|s| s.ident.to_string());
                    *float |=
                        last.is_some_and(|n| rw.consts.contains_key(&n)) || float_path(p).is_some();
                    true
                }
                // `TABLE[1]`: an element of another constant (read as plain).
                Expr::Index(_) => names_other_const(e),
                _ => false,
            }
        }
        let mut float = false;
        walk(self, e, &mut float) && float
    }

    /// Inside a constant initializer, a float constant of the item (now stochastic) is read
    /// back as a plain value: `__private::const_value_f64(&PI2)`.
    fn replace_const_refs(&self, expr: &mut Expr) {
        struct Refs<'a>(&'a HashMap<String, FloatKind>);
        impl VisitMut for Refs<'_> {
            fn visit_expr_mut(&mut self, e: &mut Expr) {
                if let Expr::Path(p) = e {
                    let segs = &p.path.segments;
                    let name = match segs.len() {
                        1 if p.qself.is_none() => Some(&segs[0].ident),
                        2 if p.qself.is_none() && segs[0].ident == "Self" => Some(&segs[1].ident),
                        _ => None,
                    };
                    if let Some(kind) = name.and_then(|n| self.0.get(&n.to_string())) {
                        let span = p.span();
                        let f = kind.const_value_fn(span);
                        *e = gen_expr!(span=> ::stoch_core::__private::#f(&#p));
                        return;
                    }
                }
                // `NAME.len()`, `TABLE.0`: the constant is not a float value itself.
                match e {
                    Expr::MethodCall(m) => {
                        m.args.iter_mut().for_each(|a| self.visit_expr_mut(a));
                        return;
                    }
                    Expr::Field(_) => return,
                    _ => {}
                }
                // Another constant whose type the macro cannot see (declared in another item,
                // plain or stochastic), or an element of a constant table: read as plain.
                if names_other_const(e) {
                    let span = e.span();
                    *e = gen_expr!(span=> ::stoch_core::__private::const_plain(#e));
                    return;
                }
                visit_mut::visit_expr_mut(self, e);
            }
        }
        Refs(&self.consts).visit_expr_mut(expr);
    }
}

/// `EPS`, `Self::C`, `consts::TABLE[1][2]`: a constant named by a SCREAMING_CASE path (not
/// `f64::EPSILON`-style, which stays plain in a constant initializer), or an element of one.
fn names_other_const(e: &Expr) -> bool {
    match e {
        Expr::Path(p) => {
            p.qself.is_none()
                && float_path(p).is_none()
                && p.path.segments.last().is_some_and(|s| {
                    let name = s.ident.to_string();
                    name.chars().any(|c| c.is_ascii_uppercase())
                        && name
                            .chars()
                            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
                })
        }
        Expr::Index(i) => names_other_const(&i.expr),
        _ => false,
    }
}
