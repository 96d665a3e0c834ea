//! Unit tests of the whole expansion, without a compiler: each expands an item and compares
//! the tokens with the expected ones (or checks the error).

mod consts;
mod expressions;
mod items;

use proc_macro2::{Span, TokenStream};
use quote::{quote, ToTokens};
use syn::Ident;

use super::stochastic;

/// Expands and compares with the expected tokens.
#[track_caller]
fn check(args: TokenStream, input: TokenStream, expected: TokenStream) {
    assert_eq!(stochastic(args, input).to_string(), normalize(expected));
}

/// `quote!` joins `>>`; syn prints `> >`: compare both as syn prints them.
fn normalize(tokens: TokenStream) -> String {
    syn::parse2::<syn::File>(tokens)
        .unwrap()
        .into_token_stream()
        .to_string()
}

/// The expansion starts with `compile_error!` and contains `msg`.
#[track_caller]
fn check_err(args: TokenStream, input: TokenStream, msg: &str) -> String {
    let out = stochastic(args, input).to_string();
    assert!(out.starts_with(":: core :: compile_error !"), "{out}");
    assert!(out.contains(msg), "{out}");
    out
}

/// `::stoch_core::Stochastic<k>`.
fn s(k: &str) -> TokenStream {
    let k = Ident::new(k, Span::call_site());
    quote!(::stoch_core::Stochastic<#k>)
}
/// An unsuffixed literal, rewritten.
fn lit(x: TokenStream) -> TokenStream {
    let e: syn::Expr = syn::parse_quote!(<::stoch_core::Stochastic<_> as ::stoch_core::__private::From<_>>::from(#x));
    e.into_token_stream()
}
/// A literal of type `k`, rewritten.
fn lit_k(k: &str, x: TokenStream) -> TokenStream {
    let k = Ident::new(k, Span::call_site());
    let e: syn::Expr = syn::parse_quote!(<::stoch_core::Stochastic<#k> as ::stoch_core::__private::From<#k>>::from(#x));
    e.into_token_stream()
}
/// `x as target`, rewritten.
fn cast(target: TokenStream, x: TokenStream) -> TokenStream {
    quote!(::stoch_core::__private::cast::<#target, _>(#x))
}
