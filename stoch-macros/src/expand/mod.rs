//! Parse → validate → rewrite → emit. [`stochastic`] is the whole macro on `proc_macro2` tokens,
//! so it is unit-tested without a compiler.

use proc_macro2::{Span, TokenStream};
use quote::{quote, ToTokens};
use syn::visit_mut::VisitMut;
use syn::{Ident, Item, Stmt};

use crate::args::Args;
use crate::error::{bail, format_err, Errors};
use crate::rewrite::Rewrite;

mod bare_dyn;
mod plain;
#[cfg(test)]
mod tests;
mod validate;

use bare_dyn::add_dyn;
use plain::{plain_copy, strip_markers};
use validate::validate;

/// Expands `#[stochastic(args)] item`. Never panics: on error it emits the errors followed by
/// the item as written (minus our marker attributes) and, with `plain = name`, its IEEE twin
/// `name` as on success, so that the rest of the crate still resolves and the user sees only
/// the errors that matter.
pub(crate) fn stochastic(args: TokenStream, item: TokenStream) -> TokenStream {
    // A safety net: a bug in the rewrite must not become "proc macro panicked" with no span.
    let result = std::panic::catch_unwind(|| expand(args.clone(), item.clone()));
    let err = match result {
        Ok(Ok(tokens)) => return tokens,
        Ok(Err(err)) => err,
        Err(_) => syn::Error::new(
            Span::call_site(),
            "internal error in #[stochastic] (please report it with this item); the item is \
             left unchanged",
        ),
    };
    let mut out = err.into_compile_error();
    match syn::parse2::<Item>(item.clone()) {
        Ok(mut parsed) => {
            // The twin of the success path, when the arguments and the item allow one: callers
            // of `name::f` then resolve (an error in the copy itself was reported above).
            let twin = std::panic::catch_unwind(|| {
                let args = Args::parse_tokens(args).ok()?;
                let (key, name) = args.plain.as_ref()?;
                plain_copy(&parsed, key, name).ok()
            })
            .ok()
            .flatten();
            strip_markers(&mut parsed, false);
            parsed.to_tokens(&mut out);
            twin.to_tokens(&mut out);
        }
        Err(_) => out.extend(item),
    }
    out
}

fn expand(args: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    let args = Args::parse_tokens(args)?;
    let mut item: Item = match syn::parse2(item.clone()) {
        Ok(item) => item,
        // Bare trait objects of older editions (`&Fn(f64) -> f64`) do not parse with syn;
        // `dyn` is what they mean.
        Err(err) => syn::parse2(add_dyn(item)).map_err(|_| {
            syn::Error::new(
                err.span(),
                format!(
                    "#[stochastic] cannot parse this item ({err}); the item is left as written"
                ),
            )
        })?,
    };
    if args.skip.is_some() {
        if let Some((_, key)) = &args.report {
            bail!(key, "`report` has no effect together with `skip`");
        }
        if let Some((key, _)) = &args.plain {
            bail!(key, "`plain` has no effect together with `skip`");
        }
        if let Some(key) = &args.track_caller {
            bail!(key, "`track_caller` has no effect together with `skip`");
        }
        strip_markers(&mut item, false);
        return Ok(item.into_token_stream());
    }

    let mut errors = Errors::default();
    validate(&item, &mut errors);
    let is_main = matches!(&item, Item::Fn(f) if f.sig.ident == "main");
    if let Some((_, key)) = &args.report {
        if !is_main {
            errors.push(format_err!(
                key,
                "`report` applies only to `fn main`; the report of a library or test is printed \
                 by `stoch_core::finish()`"
            ));
        }
    }
    let plain = match &args.plain {
        Some((key, name)) => plain_copy(&item, key, name)
            .map_err(|err| errors.push(err))
            .ok(),
        None => None,
    };
    errors.into_result()?;

    let mut rewrite = Rewrite::new(&item);
    rewrite.track_caller = args.track_caller.is_some();
    rewrite.visit_item_mut(&mut item);
    // A nested construct the rewrite cannot handle is reported and left as written; the rest
    // of the item is rewritten, so that the error is the only one the user sees.
    let mut out = match rewrite.errors.into_result() {
        Ok(()) => TokenStream::new(),
        Err(err) => err.into_compile_error(),
    };

    if let (Item::Fn(main), true) = (&mut item, is_main) {
        let report = args.report.is_none_or(|(value, _)| value);
        let guard = Ident::new("__stoch_guard", Span::mixed_site());
        let prologue: Stmt = syn::parse2(quote! {
            let #guard = ::stoch_core::__private::main_prologue(#report);
        })?;
        main.block.stmts.insert(0, prologue);
    }
    item.to_tokens(&mut out);
    plain.to_tokens(&mut out);
    Ok(out)
}
