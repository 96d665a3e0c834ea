//! The attribute's arguments: `#[stochastic]`, `#[stochastic(report = false)]`,
//! `#[stochastic(skip)]`, `#[stochastic(track_caller)]`.

use proc_macro2::TokenStream;
use syn::ext::IdentExt;
use syn::parse::{Parse, ParseStream};
use syn::{Ident, LitBool, Token};

use crate::error::bail;

/// Parsed arguments of `#[stochastic(...)]`.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Args {
    /// `report = <bool>`: print the instability report when `main` ends (default `true`).
    /// Keeps the span of the `report` keyword for the "only on `main`" error.
    pub(crate) report: Option<(bool, Ident)>,
    /// `skip`: leave the item untouched (meant for items nested in a rewritten item).
    pub(crate) skip: Option<Ident>,
    /// `plain = name`: also emit the item as written, renamed `name` (a fn or an inline mod),
    /// to compare IEEE and stochastic results. Keeps the `plain` keyword for error spans.
    pub(crate) plain: Option<(Ident, Ident)>,
    /// `track_caller`: mark the item's small fns (one statement or expression) and methods
    /// `#[track_caller]`, so that an instability inside such a helper is reported at the line
    /// that called it.
    pub(crate) track_caller: Option<Ident>,
}

impl Args {
    /// Parses the arguments of the attribute (the tokens inside the parentheses).
    pub(crate) fn parse_tokens(tokens: TokenStream) -> syn::Result<Self> {
        syn::parse2(tokens)
    }
}

impl Parse for Args {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let mut args = Args::default();
        while !input.is_empty() {
            let key: Ident = input.call(Ident::parse_any)?;
            match key.to_string().as_str() {
                "report" => {
                    not_yet(&args.report, &key)?;
                    let value: LitBool = value_after_eq(
                        input,
                        &key,
                        "expected `report = true` or `report = false`",
                        "expected `true` or `false` after `report =`",
                    )?;
                    args.report = Some((value.value, key));
                }
                "plain" => {
                    not_yet(&args.plain, &key)?;
                    let name: Ident = value_after_eq(
                        input,
                        &key,
                        "expected `plain = name_of_the_ieee_copy`",
                        "expected a name after `plain =`, as in `plain = rump_ieee`",
                    )?;
                    args.plain = Some((key, name));
                }
                "track_caller" => {
                    not_yet(&args.track_caller, &key)?;
                    args.track_caller = Some(key);
                }
                "skip" => {
                    not_yet(&args.skip, &key)?;
                    args.skip = Some(key);
                }
                _ => bail!(
                    key,
                    "unknown argument `{}`; #[stochastic] accepts `report = false` (on `fn main`), \
                     `plain = name`, `track_caller` and `skip`",
                    key
                ),
            }
            if input.is_empty() {
                break;
            }
            input.parse::<Token![,]>()?;
        }
        Ok(args)
    }
}

/// `= value` after `key`: the value, or the error `no_eq` on the key, or `bad_value` on what
/// stands where the value should.
fn value_after_eq<T: Parse>(
    input: ParseStream<'_>,
    key: &Ident,
    no_eq: &str,
    bad_value: &str,
) -> syn::Result<T> {
    if !input.peek(Token![=]) {
        bail!(key, no_eq);
    }
    input.parse::<Token![=]>()?;
    input
        .parse()
        .map_err(|err| syn::Error::new(err.span(), bad_value))
}

/// An argument is given once: a second `key` is an error on it.
fn not_yet<T>(slot: &Option<T>, key: &Ident) -> syn::Result<()> {
    if slot.is_some() {
        bail!(key, "duplicate `{}` argument", key);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    fn parse(tokens: TokenStream) -> syn::Result<Args> {
        Args::parse_tokens(tokens)
    }

    #[test]
    fn empty() {
        assert_eq!(parse(quote!()).unwrap(), Args::default());
    }

    #[test]
    fn report_false() {
        let args = parse(quote!(report = false)).unwrap();
        assert!(!args.report.unwrap().0);
        let args = parse(quote!(report = true,)).unwrap();
        assert!(args.report.unwrap().0);
    }

    #[test]
    fn plain() {
        let args = parse(quote!(plain = rump_ieee)).unwrap();
        assert_eq!(args.plain.unwrap().1, "rump_ieee");
        let msg = |t| parse(t).unwrap_err().to_string();
        assert_eq!(
            msg(quote!(plain)),
            "expected `plain = name_of_the_ieee_copy`"
        );
        assert_eq!(
            msg(quote!(plain = "x")),
            "expected a name after `plain =`, as in `plain = rump_ieee`"
        );
        assert_eq!(
            msg(quote!(plain = a, plain = b)),
            "duplicate `plain` argument"
        );
    }

    #[test]
    fn track_caller() {
        assert!(parse(quote!(track_caller)).unwrap().track_caller.is_some());
        assert_eq!(
            parse(quote!(track_caller, track_caller))
                .unwrap_err()
                .to_string(),
            "duplicate `track_caller` argument"
        );
    }

    #[test]
    fn skip() {
        assert!(parse(quote!(skip)).unwrap().skip.is_some());
    }

    #[test]
    fn errors() {
        let msg = |t| parse(t).unwrap_err().to_string();
        assert_eq!(msg(quote!(skip, skip)), "duplicate `skip` argument");
        assert_eq!(
            msg(quote!(report = false, report = true)),
            "duplicate `report` argument"
        );
        assert!(msg(quote!(fast)).starts_with("unknown argument `fast`"));
        assert!(msg(quote!(type)).starts_with("unknown argument `type`"));
        assert_eq!(
            msg(quote!(report)),
            "expected `report = true` or `report = false`"
        );
        assert_eq!(
            msg(quote!(report = 1)),
            "expected `true` or `false` after `report =`"
        );
    }
}
