//! Casts: `e as f64` (or to an alias of a float) becomes
//! `::stoch_core::__private::cast::<Stochastic<f64>, _>(e)`, and `e as usize` too unless the
//! operand obviously is not a float (a literal, an enum variant, `.len()`, a comparison, ...).

use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;
use syn::{BinOp, Expr, ExprCast, Type, UnOp};

use super::literals::is_literal;
use super::paths::float_path;
use super::types::{is_alias_name, is_int_type, scalar_float, stoch_type};
use super::Rewrite;

impl Rewrite {
    /// `x as f64` and friends: the call that replaces the cast, or `None` when the cast stays
    /// (its operand and type rewritten in place).
    pub(super) fn rewrite_cast(&mut self, cast: &mut ExprCast) -> Option<Expr> {
        let span = cast.as_token.span;
        let literal_source = is_literal(&cast.expr);
        let target: Option<Type> = if let Some(kind) = scalar_float(&cast.ty) {
            Some(stoch_type(kind, cast.ty.span()))
        } else if self.float_alias(&cast.ty).is_some()
            || is_int_type(&cast.ty) && !literal_source && self.may_be_float(&cast.expr)
            || is_alias_name(&cast.ty)
        {
            Some((*cast.ty).clone())
        } else {
            None
        };
        if !literal_source {
            self.visit_expr_mut(&mut cast.expr);
        }
        match target {
            Some(target) => {
                // `(a + b) as f64`: the call's parentheses replace the user's.
                let mut source = &*cast.expr;
                while let Expr::Paren(syn::ExprParen { expr, .. })
                | Expr::Group(syn::ExprGroup { expr, .. }) = source
                {
                    source = expr;
                }
                Some(gen_expr!(span=>
                    ::stoch_core::__private::cast::<#target, _>(#source)
                ))
            }
            None => {
                self.visit_type_mut(&mut cast.ty);
                None
            }
        }
    }

    /// Could the operand of `e as <int>` be a float? When unsure: yes, and the cast goes through
    /// `__private::cast`, which accepts plain numbers too.
    fn may_be_float(&self, e: &Expr) -> bool {
        match e {
            Expr::Lit(_) => false,
            Expr::Paren(p) => self.may_be_float(&p.expr),
            Expr::Group(g) => self.may_be_float(&g.expr),
            Expr::Unary(u) => match u.op {
                UnOp::Neg(_) => self.may_be_float(&u.expr),
                UnOp::Not(_) => false,
                _ => true,
            },
            Expr::Cast(c) => scalar_float(&c.ty).is_some() || self.float_alias(&c.ty).is_some(),
            Expr::Binary(b) => !matches!(
                b.op,
                BinOp::Eq(_)
                    | BinOp::Ne(_)
                    | BinOp::Lt(_)
                    | BinOp::Le(_)
                    | BinOp::Gt(_)
                    | BinOp::Ge(_)
                    | BinOp::And(_)
                    | BinOp::Or(_)
                    | BinOp::Shl(_)
                    | BinOp::Shr(_)
                    | BinOp::BitAnd(_)
                    | BinOp::BitOr(_)
                    | BinOp::BitXor(_)
            ),
            Expr::Path(p) => {
                p.qself.is_none() && p.path.segments.len() == 1 || float_path(p).is_some()
            }
            Expr::MethodCall(m) => !matches!(
                m.method.to_string().as_str(),
                "len"
                    | "count"
                    | "capacity"
                    | "count_ones"
                    | "count_zeros"
                    | "leading_zeros"
                    | "trailing_zeros"
                    | "digits"
            ),
            _ => true,
        }
    }
}
