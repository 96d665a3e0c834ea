//! Compound assignment on a place other than a local (`v[1] += v[0]`): the right side is
//! evaluated into a temporary first, as `op=` does for `f64`, because the trait call that
//! replaces it would borrow the place before evaluating the right side (E0502).

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::visit_mut;
use syn::{BinOp, Expr, Ident};

use super::Rewrite;

impl Rewrite {
    /// The rewrite of `place op= value`; `false` when `expr` is no compound assignment to a
    /// place other than a local, and is to be visited as usual.
    pub(super) fn rewrite_compound_assign(&mut self, expr: &mut Expr) -> bool {
        let Expr::Binary(b) = expr else { return false };
        if !is_compound_assign(&b.op) || is_local(&b.left) {
            return false;
        }
        visit_mut::visit_expr_binary_mut(self, b);
        // `v[1] += v[0]`, `aug[k][j] -= aug[r][j] * mult`: for `f64`, `op=` evaluates the right
        // side first; the trait call that replaces it borrows the place first (E0502).
        // Evaluating the right side into a temporary keeps the primitive order.
        let span = b.op.span();
        let tmp = Ident::new("__stoch_rhs", Span::mixed_site().located_at(span));
        let (left, op, right) = (&b.left, &b.op, &b.right);
        *expr = gen_expr!(span=> { let #tmp = #right; #left #op #tmp; });
        true
    }
}

/// `+=`, `-=`, ... (all compound assignments).
fn is_compound_assign(op: &BinOp) -> bool {
    matches!(
        op,
        BinOp::AddAssign(_)
            | BinOp::SubAssign(_)
            | BinOp::MulAssign(_)
            | BinOp::DivAssign(_)
            | BinOp::RemAssign(_)
            | BinOp::BitXorAssign(_)
            | BinOp::BitAndAssign(_)
            | BinOp::BitOrAssign(_)
            | BinOp::ShlAssign(_)
            | BinOp::ShrAssign(_)
    )
}

/// A local variable (`x += 1.0` needs no temporary).
fn is_local(e: &Expr) -> bool {
    matches!(e, Expr::Path(p) if p.qself.is_none() && p.path.get_ident().is_some())
}
