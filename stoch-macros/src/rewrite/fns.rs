//! Nested fns, methods and trait methods: a `const fn` stays `const` when it only builds values
//! and becomes a plain fn when it computes; a nested `extern` fn is an error; a small fn gets
//! `#[track_caller]` (with the `track_caller` option) or a link-time record of its lines.

use syn::visit::{self, Visit};
use syn::visit_mut;
use syn::{Attribute, Block, Expr, ImplItemFn, ItemFn, Signature, TraitItemFn, UnOp};

use super::literals::is_literal;
use super::misuse::fn_misuse;
use super::Rewrite;

/// The three kinds of fn the rewrite meets: free fns, methods of impls, methods of traits.
pub(super) trait FnItem {
    fn sig(&self) -> &Signature;
    fn sig_mut(&mut self) -> &mut Signature;
    /// The body (a trait method's default body).
    fn body(&self) -> Option<&Block>;
    /// The signature, the attributes and the body at once.
    fn parts_mut(&mut self) -> (&Signature, &mut Vec<Attribute>, Option<&mut Block>);
    /// syn's default traversal (not [`Rewrite`]'s own `visit_*_fn_mut`, which calls this).
    fn walk(rw: &mut Rewrite, f: &mut Self);
}

/// [`FnItem`] for the fns that always have a body, and syn's traversal of them.
macro_rules! fn_with_block {
    ($ty:ty, $walk:path) => {
        impl FnItem for $ty {
            fn sig(&self) -> &Signature {
                &self.sig
            }
            fn sig_mut(&mut self) -> &mut Signature {
                &mut self.sig
            }
            fn body(&self) -> Option<&Block> {
                Some(&self.block)
            }
            fn parts_mut(&mut self) -> (&Signature, &mut Vec<Attribute>, Option<&mut Block>) {
                (&self.sig, &mut self.attrs, Some(&mut self.block))
            }
            fn walk(rw: &mut Rewrite, f: &mut Self) {
                $walk(rw, f);
            }
        }
    };
}

fn_with_block!(ItemFn, visit_mut::visit_item_fn_mut);
fn_with_block!(ImplItemFn, visit_mut::visit_impl_item_fn_mut);

impl FnItem for TraitItemFn {
    fn sig(&self) -> &Signature {
        &self.sig
    }
    fn sig_mut(&mut self) -> &mut Signature {
        &mut self.sig
    }
    fn body(&self) -> Option<&Block> {
        self.default.as_ref()
    }
    fn parts_mut(&mut self) -> (&Signature, &mut Vec<Attribute>, Option<&mut Block>) {
        (&self.sig, &mut self.attrs, self.default.as_mut())
    }
    fn walk(rw: &mut Rewrite, f: &mut Self) {
        visit_mut::visit_trait_item_fn_mut(rw, f);
    }
}

impl Rewrite {
    /// A fn, method or trait method: its signature and body rewritten, then (`mark`) the small
    /// fn marked or recorded; a `const fn` or `extern` fn as [`Self::rewrite_const_or_extern_fn`]
    /// says.
    pub(super) fn rewrite_fn<F: FnItem>(&mut self, f: &mut F, mark: bool) {
        if self.rewrite_const_or_extern_fn(f) {
            return;
        }
        F::walk(self, f);
        if mark {
            self.mark_small_fn(f);
        }
    }

    /// A `const fn` or `extern` fn, rewritten or reported (never marked); `false` for any other
    /// fn.
    fn rewrite_const_or_extern_fn<F: FnItem>(&mut self, f: &mut F) -> bool {
        let Some(err) = fn_misuse(f.sig(), true) else {
            return false;
        };
        if const_fn_ok(f.sig(), f.body()) {
            let outer = std::mem::replace(&mut self.in_const_fn, true);
            F::walk(self, f);
            self.in_const_fn = outer;
        } else if f.sig().abi.is_none() {
            // A `const fn` that computes: stochastic arithmetic does not run in const
            // evaluation, so it becomes a plain fn (a call in a constant is then reported by
            // rustc at that call).
            f.sig_mut().constness = None;
            F::walk(self, f);
        } else {
            self.errors.push(err);
        }
        true
    }

    /// After a fn is rewritten: `#[track_caller]` on it if it is small and the item asks for
    /// it, else a record of its lines if it is small.
    fn mark_small_fn<F: FnItem>(&self, f: &mut F) {
        let (sig, attrs, body) = f.parts_mut();
        if self.track_caller {
            mark_track_caller(sig, attrs, body.as_deref());
        } else {
            record_small_helper(sig, attrs, body);
        }
    }
}

/// A `const fn` (not `extern`) whose body only moves and builds values (no arithmetic, method
/// call, comparison or float cast): rewritten as a const fn, its float literals built by
/// `const fn`s. Others cannot run on stochastic values in const evaluation.
fn const_fn_ok(sig: &Signature, body: Option<&Block>) -> bool {
    struct Safe(bool);
    impl Visit<'_> for Safe {
        fn visit_expr(&mut self, e: &Expr) {
            match e {
                Expr::Binary(_) | Expr::MethodCall(_) | Expr::Cast(_) | Expr::Macro(_) => {
                    self.0 = false;
                }
                Expr::Unary(u) if !(matches!(u.op, UnOp::Neg(_)) && is_literal(&u.expr)) => {
                    self.0 = false;
                }
                _ => visit::visit_expr(self, e),
            }
        }
    }
    let mut safe = Safe(sig.abi.is_none() && sig.constness.is_some());
    if let Some(body) = body {
        safe.visit_block(body);
    }
    safe.0
}

/// A small fn (a body of at most one statement or expression, as one-line helpers and operator
/// impls are) with the Rust ABI, not `async`, not already `#[track_caller]` (or `#[naked]`).
fn is_small_unmarked(sig: &Signature, attrs: &[Attribute], body: Option<&Block>) -> bool {
    let small = body.is_some_and(|b| b.stmts.len() <= 1);
    let marked = attrs
        .iter()
        .any(|a| a.path().is_ident("track_caller") || a.path().is_ident("naked"));
    small && !marked && sig.abi.is_none() && sig.asyncness.is_none()
}

/// `#[track_caller]` on a small fn (see [`is_small_unmarked`]).
fn mark_track_caller(sig: &Signature, attrs: &mut Vec<Attribute>, body: Option<&Block>) {
    if is_small_unmarked(sig, attrs, body) {
        attrs.push(syn::parse_quote!(#[track_caller]));
    }
}

/// For a small fn left without `#[track_caller]` (see [`is_small_unmarked`]): a link-time
/// record of its lines (`__private::SMALL_HELPERS`), so that the report can say a site is
/// inside it at no cost on the hot path. An item statement first in the body.
fn record_small_helper(sig: &Signature, attrs: &[Attribute], body: Option<&mut Block>) {
    // Outside a compiler run (this crate's unit tests) spans carry no source lines.
    let Some(body) = body.filter(|_| proc_macro::is_available()) else {
        return;
    };
    if !is_small_unmarked(sig, attrs, Some(&*body)) {
        return;
    }
    let first = sig.fn_token.span.start().line as u32;
    let last = body.brace_token.span.close().end().line as u32;
    if first == 0 || last < first {
        return; // no line information
    }
    let name = sig.ident.to_string();
    let p = quote::quote!(::stoch_core::__private);
    body.stmts.insert(
        0,
        syn::parse_quote! {
            #[#p::linkme::distributed_slice(#p::SMALL_HELPERS)]
            #[linkme(crate = #p::linkme)]
            static __STOCH_SMALL_HELPER: #p::SmallHelper = #p::SmallHelper {
                file: ::core::file!(),
                first: #first,
                last: #last,
                name: #name,
            };
        },
    );
}
