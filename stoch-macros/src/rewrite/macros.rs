//! Macros: the arguments of every macro invocation that parse as comma-separated expressions
//! (or `elem; len`) are rewritten, except for the macros of [`NON_EXPR_MACROS`]; the
//! transcribers of a `macro_rules!` are rewritten when they parse once their metavariables and
//! repetitions stand for placeholders, and left as written otherwise.

use proc_macro2::{Delimiter, Group, Punct, Spacing, TokenStream, TokenTree};
use quote::{quote, ToTokens};
use syn::parse::{ParseStream, Parser};
use syn::punctuated::Punctuated;
use syn::visit_mut::VisitMut;
use syn::{Expr, Ident, Macro, Token};

use super::Rewrite;
use crate::tokens::regroup;

/// Macros whose arguments are not (all) expressions of the program: patterns (`matches!`),
/// compile-time strings and paths (`concat!`, `stringify!`, `include_str!`, `env!`), token
/// trees (`quote!`), assembly. Every other macro whose arguments parse as comma-separated
/// expressions (`vec!`, `println!`, `assert_eq!`, ndarray's `array!`, ...) has them rewritten.
const NON_EXPR_MACROS: &[&str] = &[
    // `stoch_core::plain!(expr)`: the user's way to keep one expression plain.
    "plain",
    "matches",
    "assert_matches",
    "debug_assert_matches",
    "concat",
    "concat_idents",
    "stringify",
    "include",
    "include_str",
    "include_bytes",
    "env",
    "option_env",
    "cfg",
    "line",
    "column",
    "file",
    "module_path",
    "compile_error",
    "asm",
    "global_asm",
    "naked_asm",
    "quote",
    "quote_spanned",
    "parse_quote",
    "parse_quote_spanned",
    "macro_rules",
    "thread_local",
    "lazy_static",
];

/// A metavariable `$name` while a transcriber is parsed: `__stoch_metavar_name`.
const METAVAR: &str = "__stoch_metavar_";
/// A repetition `$( .. ) sep op` while a transcriber is parsed: `__stoch_rep_N! {}`.
const REPETITION: &str = "__stoch_rep_";

impl Rewrite {
    /// [`VisitMut::visit_macro_mut`]: the arguments of a macro invocation.
    pub(super) fn rewrite_macro_args(&mut self, mac: &mut Macro) {
        let Some(name) = mac.path.segments.last().map(|s| s.ident.to_string()) else {
            return;
        };
        if NON_EXPR_MACROS.contains(&name.as_str()) {
            return;
        }
        if name == "vec" {
            let repeat = |input: ParseStream<'_>| -> syn::Result<(Expr, Token![;], TokenStream)> {
                Ok((input.parse()?, input.parse()?, input.parse()?))
            };
            if let Ok((mut elem, semi, len)) = repeat.parse2(mac.tokens.clone()) {
                self.visit_expr_mut(&mut elem);
                mac.tokens = quote!(#elem #semi #len);
                return;
            }
        }
        if let Ok(mut args) =
            Punctuated::<Expr, Token![,]>::parse_terminated.parse2(mac.tokens.clone())
        {
            for arg in args.iter_mut() {
                self.visit_expr_mut(arg);
            }
            mac.tokens = args.into_token_stream();
        }
    }

    /// The rules of a `macro_rules!`: each transcriber that parses as items, statements or an
    /// expression once its `$name` metavariables stand for identifiers is rewritten like the
    /// code around it (`impl Poly<$N> { fn deflate(&self, root: f64) .. }`); a transcriber with
    /// repetitions (`$(..)*`) or other token-level syntax is left as written.
    pub(super) fn rewrite_macro_rules(&mut self, tokens: TokenStream) -> TokenStream {
        let mut out: Vec<TokenTree> = Vec::new();
        let mut after_arrow = false;
        let mut prev_eq = false;
        for tt in tokens {
            match tt {
                TokenTree::Group(g) if after_arrow => {
                    let body = self.rewrite_transcriber(g.stream()).unwrap_or(g.stream());
                    out.push(regroup(&g, body));
                    after_arrow = false;
                }
                TokenTree::Punct(p) => {
                    after_arrow = prev_eq && p.as_char() == '>';
                    prev_eq = p.as_char() == '=' && p.spacing() == Spacing::Joint;
                    out.push(TokenTree::Punct(p));
                }
                tt => {
                    prev_eq = false;
                    out.push(tt);
                }
            }
        }
        out.into_iter().collect()
    }

    /// One transcriber, rewritten; `None` when it does not parse with placeholders: each
    /// `$name` stands for an identifier, each repetition `$( .. ) sep op` for a macro call
    /// `__stoch_rep_N! {}` (its body rewritten on its own), and both are put back after.
    fn rewrite_transcriber(&mut self, body: TokenStream) -> Option<TokenStream> {
        let mut reps = Vec::new();
        let body = self.placeholders(body, &mut reps)?;
        let rewritten = if let Ok(mut file) = syn::parse2::<syn::File>(body.clone()) {
            for item in &mut file.items {
                self.visit_item_mut(item);
            }
            file.into_token_stream()
        } else if let Ok(mut stmts) = syn::Block::parse_within.parse2(body.clone()) {
            for stmt in &mut stmts {
                self.visit_stmt_mut(stmt);
            }
            quote!(#(#stmts)*)
        } else {
            let mut expr = syn::parse2::<Expr>(body).ok()?;
            self.visit_expr_mut(&mut expr);
            expr.into_token_stream()
        };
        Some(from_placeholders(rewritten, &reps))
    }

    /// `ts` with its metavariables and repetitions replaced by placeholders (the repetitions'
    /// tokens pushed to `reps`); `None` on a `$` that starts neither.
    fn placeholders(
        &mut self,
        ts: TokenStream,
        reps: &mut Vec<TokenStream>,
    ) -> Option<TokenStream> {
        let mut out = Vec::new();
        let mut iter = ts.into_iter().peekable();
        while let Some(tt) = iter.next() {
            match tt {
                TokenTree::Punct(p) if p.as_char() == '$' => match iter.next()? {
                    TokenTree::Ident(i) => {
                        let name = i.to_string();
                        let name = name.trim_start_matches("r#");
                        out.push(TokenTree::Ident(Ident::new(
                            &format!("{METAVAR}{name}"),
                            i.span(),
                        )));
                    }
                    TokenTree::Group(g) if g.delimiter() == Delimiter::Parenthesis => {
                        // `$( body ) sep? op`: the body on its own, the rest kept as written.
                        let inner = self
                            .rewrite_transcriber(g.stream())
                            .unwrap_or_else(|| g.stream());
                        let mut rep = vec![TokenTree::Punct(p), regroup(&g, inner)];
                        let is_op = |t: &TokenTree| matches!(t, TokenTree::Punct(q) if matches!(q.as_char(), '*' | '+' | '?'));
                        match iter.next()? {
                            t if is_op(&t) => rep.push(t),
                            sep => {
                                rep.push(sep);
                                let op = iter.next()?;
                                if !is_op(&op) {
                                    return None;
                                }
                                rep.push(op);
                            }
                        }
                        let name = Ident::new(&format!("{REPETITION}{}", reps.len()), g.span());
                        reps.push(rep.into_iter().collect());
                        out.push(TokenTree::Ident(name));
                        out.push(TokenTree::Punct(Punct::new('!', Spacing::Alone)));
                        out.push(TokenTree::Group(Group::new(
                            Delimiter::Brace,
                            TokenStream::new(),
                        )));
                    }
                    _ => return None,
                },
                TokenTree::Group(g) => {
                    let inner = self.placeholders(g.stream(), reps)?;
                    out.push(regroup(&g, inner));
                }
                tt => out.push(tt),
            }
        }
        Some(out.into_iter().collect())
    }
}

/// Puts the metavariables and repetitions back.
fn from_placeholders(ts: TokenStream, reps: &[TokenStream]) -> TokenStream {
    let mut out = Vec::new();
    let mut iter = ts.into_iter();
    while let Some(tt) = iter.next() {
        match tt {
            TokenTree::Ident(i) if i.to_string().starts_with(METAVAR) => {
                let mut dollar = Punct::new('$', Spacing::Alone);
                dollar.set_span(i.span());
                out.push(TokenTree::Punct(dollar));
                let name = i.to_string()[METAVAR.len()..].to_string();
                out.push(TokenTree::Ident(Ident::new(&name, i.span())));
            }
            TokenTree::Ident(i) if i.to_string().starts_with(REPETITION) => {
                let n: usize = i.to_string()[REPETITION.len()..].parse().unwrap_or(0);
                // The `!` and the empty braces of the placeholder call.
                let _ = (iter.next(), iter.next());
                out.extend(reps.get(n).cloned().unwrap_or_default());
            }
            TokenTree::Group(g) => out.push(regroup(&g, from_placeholders(g.stream(), reps))),
            tt => out.push(tt),
        }
    }
    out.into_iter().collect()
}
