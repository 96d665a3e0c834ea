//! What the attribute cannot rewrite, on the item or nested in it, and the message that says
//! what to do instead: `extern` fns and blocks, `const fn` at the top level, exported macros.

use syn::Signature;

use crate::error::format_err;

/// `const fn` and `extern "ABI" fn` cannot be rewritten; the message says what to do instead.
pub(crate) fn fn_misuse(sig: &Signature, nested: bool) -> Option<syn::Error> {
    if let Some(constness) = &sig.constness {
        return Some(if nested {
            format_err!(
                constness,
                "#[stochastic] cannot rewrite the nested `const fn {}`: stochastic arithmetic \
                 does not run in const evaluation; remove `const`, or mark it \
                 `#[stochastic(skip)]` to keep it on plain floats",
                sig.ident
            )
        } else {
            format_err!(
                constness,
                "#[stochastic] cannot be applied to a `const fn`: stochastic arithmetic does not \
                 run in const evaluation; remove `const`, or keep this fn on plain floats and \
                 call it from a #[stochastic] fn"
            )
        });
    }
    if let Some(abi) = &sig.abi {
        return Some(if nested {
            format_err!(
                abi,
                "#[stochastic] cannot rewrite the nested `extern` fn `{}`: its signature is a \
                 foreign ABI and `Stochastic<T>` is not an FFI type; mark it \
                 `#[stochastic(skip)]` and convert at the call (`x.to_f64()`)",
                sig.ident
            )
        } else {
            format_err!(
                abi,
                "#[stochastic] cannot be applied to an `extern` fn: its signature is a foreign \
                 ABI and `Stochastic<T>` is not an FFI type; keep this fn on plain floats and \
                 move the arithmetic into a Rust fn marked #[stochastic]"
            )
        });
    }
    None
}

/// The message for a nested or top-level `extern { .. }` block.
pub(crate) fn foreign_mod_error(abi: &syn::Abi) -> syn::Error {
    format_err!(
        abi,
        "#[stochastic] cannot rewrite an `extern` block: foreign functions take plain floats; \
         declare them outside the #[stochastic] item (or mark the block `#[stochastic(skip)]`) \
         and convert at the call (`x.to_f64()`, `Stochastic::from(y)`)"
    )
}

/// A `#[macro_export] macro_rules!` cannot be rewritten: rustc does not let the crate name an
/// exported macro that another macro (the attribute) produced by path (`use crate::name;`,
/// `$crate::name!`), so the error sits on `#[macro_export]` and says what works instead.
pub(crate) fn macro_export_error(m: &syn::ItemMacro) -> Option<syn::Error> {
    let attr = m.attrs.iter().find(|a| a.path().is_ident("macro_export"))?;
    m.mac.path.is_ident("macro_rules").then(|| {
        format_err!(
            attr,
            "#[stochastic] cannot rewrite a `#[macro_export]` macro: rustc forbids naming a \
             macro-expanded exported macro by path (`use crate::name;`, `$crate::name!`); move \
             this `macro_rules!` out of the #[stochastic] item and leave it unannotated (its \
             arguments are still rewritten where it is called inside annotated code, and its \
             own float literals mix with stochastic values), and put `#[stoch_core::stochastic]` \
             on the items its transcriber expands to if it defines fns or impls"
        )
    })
}
