//! Parse → validate → rewrite → emit. [`stochastic`] is the whole macro on `proc_macro2` tokens,
//! so it is unit-tested without a compiler.

use proc_macro2::{Span, TokenStream};
use quote::{quote, ToTokens};
use syn::visit_mut::VisitMut;
use syn::{Ident, Item, Stmt};

use crate::args::Args;
use crate::error::{bail, format_err, Errors};
use crate::rewrite::{fn_misuse, foreign_mod_error, macro_export_error, Rewrite};

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

/// `&Fn(f64) -> f64`, `Box<FnMut(f64)>`: `dyn` inserted before `Fn`/`FnMut`/`FnOnce` with
/// parenthesized arguments where a type starts after `&`, `&mut`, `&'a` or `<`.
fn add_dyn(tokens: TokenStream) -> TokenStream {
    use proc_macro2::{Group, TokenTree};
    let mut out: Vec<TokenTree> = Vec::new();
    let mut iter = tokens.into_iter().peekable();
    while let Some(tt) = iter.next() {
        match tt {
            TokenTree::Group(g) => {
                let mut new = Group::new(g.delimiter(), add_dyn(g.stream()));
                new.set_span(g.span());
                out.push(TokenTree::Group(new));
            }
            TokenTree::Ident(i)
                if (i == "Fn" || i == "FnMut" || i == "FnOnce")
                    && matches!(iter.peek(), Some(TokenTree::Group(g))
                        if g.delimiter() == proc_macro2::Delimiter::Parenthesis)
                    && type_starts_here(&out) =>
            {
                out.push(TokenTree::Ident(Ident::new("dyn", i.span())));
                out.push(TokenTree::Ident(i));
            }
            tt => out.push(tt),
        }
    }
    out.into_iter().collect()
}

/// After `&`, `&mut`, `&'a`, `&'a mut` or `<`.
fn type_starts_here(before: &[proc_macro2::TokenTree]) -> bool {
    use proc_macro2::TokenTree;
    let is_amp =
        |t: Option<&TokenTree>| matches!(t, Some(TokenTree::Punct(p)) if p.as_char() == '&');
    let n = before.len();
    match before.last() {
        Some(TokenTree::Punct(p)) => p.as_char() == '&' || p.as_char() == '<',
        Some(TokenTree::Ident(i)) if i == "mut" => {
            is_amp(n.checked_sub(2).and_then(|k| before.get(k)))
                || n >= 4
                    && matches!(&before[n - 3], TokenTree::Ident(_))
                    && matches!(&before[n - 4], TokenTree::Punct(p) if p.as_char() == '\'')
                    && is_amp(n.checked_sub(5).and_then(|k| before.get(k)))
        }
        // `&'a Fn(..)`: a lifetime is a `'` punct and an ident.
        Some(TokenTree::Ident(_)) => {
            n >= 3
                && matches!(&before[n - 2], TokenTree::Punct(p) if p.as_char() == '\'')
                && is_amp(before.get(n - 3))
        }
        _ => false,
    }
}

/// `plain = name`: the item as written, with every nested `#[stochastic..]` removed.
fn plain_copy(item: &Item, key: &Ident, name: &Ident) -> syn::Result<Item> {
    let mut copy = item.clone();
    match &mut copy {
        Item::Fn(f) if f.sig.ident == "main" => bail!(key, "`plain` does not apply to `fn main`"),
        Item::Fn(f) => f.sig.ident = name.clone(),
        Item::Mod(m) if m.content.is_some() => m.ident = name.clone(),
        _ => bail!(
            key,
            "`plain = name` applies to a fn or an inline mod (a copy of the item as written, \
             renamed); for an impl block, put the methods in a mod"
        ),
    }
    strip_markers(&mut copy, true);
    Ok(copy)
}

/// Top-level misuse: what `#[stochastic]` cannot be put on.
fn validate(item: &Item, errors: &mut Errors) {
    let unsupported = |what: &str, tokens: &dyn ToTokens| {
        format_err!(
            tokens.to_token_stream(),
            "#[stochastic] cannot be applied to {}; put it on a fn, an impl block, an inline \
             mod, a trait, a struct, an enum, a type alias, a const or a static",
            what
        )
    };
    match item {
        Item::Fn(f) => {
            // A `const fn` (Rust ABI) is rewritten: kept `const` when it only builds values,
            // made a plain fn when it computes.
            if let Some(err) = fn_misuse(&f.sig, false) {
                if f.sig.abi.is_some() {
                    errors.push(err);
                }
            }
        }
        Item::ForeignMod(m) => errors.push(foreign_mod_error(&m.abi)),
        Item::Mod(m) if m.content.is_none() => errors.push(format_err!(
            {
                let (mod_token, ident, semi) = (&m.mod_token, &m.ident, &m.semi);
                quote!(#mod_token #ident #semi)
            },
            "#[stochastic] cannot see into `mod {};` (its items are in another file); write the \
             module inline, or put #[stochastic] on the items of that file",
            m.ident
        )),
        Item::Use(u) => errors.push(unsupported("a `use` declaration", u)),
        Item::ExternCrate(e) => errors.push(unsupported("an `extern crate` item", e)),
        Item::Macro(m) if !m.mac.path.is_ident("macro_rules") => {
            errors.push(unsupported("a macro item", &m.mac.path));
        }
        Item::Macro(m) => {
            if let Some(err) = macro_export_error(m) {
                errors.push(err);
            }
        }
        Item::TraitAlias(t) => errors.push(unsupported("a trait alias", t)),
        Item::Verbatim(v) => errors.push(unsupported("this item", v)),
        _ => {}
    }
}

/// Removes `#[stochastic_skip]` and `#[stochastic(..)]` from nested items (fallback output),
/// and also plain `#[stochastic]` when `all` (the `plain` copy).
fn strip_markers(item: &mut Item, all: bool) {
    struct Strip(bool);
    impl VisitMut for Strip {
        fn visit_attributes_mut(&mut self, attrs: &mut Vec<syn::Attribute>) {
            attrs.retain(|a| {
                !(a.path().is_ident("stochastic_skip")
                    || a.path().is_ident("stochastic")
                        && (self.0 || matches!(a.meta, syn::Meta::List(_))))
            });
        }
    }
    Strip(all).visit_item_mut(item);
}

#[cfg(test)]
mod tests {
    use super::*;

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

    fn s(k: &str) -> TokenStream {
        let k = Ident::new(k, Span::call_site());
        quote!(::stoch_core::Stochastic<#k>)
    }
    fn lit(x: TokenStream) -> TokenStream {
        let e: syn::Expr = syn::parse_quote!(<::stoch_core::Stochastic<_> as ::stoch_core::__private::From<_>>::from(#x));
        e.into_token_stream()
    }
    fn lit_k(k: &str, x: TokenStream) -> TokenStream {
        let k = Ident::new(k, Span::call_site());
        let e: syn::Expr = syn::parse_quote!(<::stoch_core::Stochastic<#k> as ::stoch_core::__private::From<#k>>::from(#x));
        e.into_token_stream()
    }
    fn cast(target: TokenStream, x: TokenStream) -> TokenStream {
        quote!(::stoch_core::__private::cast::<#target, _>(#x))
    }

    #[test]
    fn signature_and_literal() {
        let f64s = s("f64");
        let two = lit(quote!(2.0));
        check(
            quote!(),
            quote! { fn f(x: f64) -> f64 { x * 2.0 } },
            quote! { fn f(x: #f64s) -> #f64s { x * #two } },
        );
    }

    #[test]
    fn suffixed_literals() {
        let (a, b) = (lit_k("f32", quote!(1.5f32)), lit_k("f64", quote!(1e-3_f64)));
        check(
            quote!(),
            quote! { fn f() { let a = 1.5f32; let b = 1e-3_f64; } },
            quote! { fn f() { let a = #a; let b = #b; } },
        );
    }

    #[test]
    fn types_everywhere() {
        let (d, f) = (s("f64"), s("f32"));
        check(
            quote!(),
            quote! {
                fn f(
                    a: &[f64], b: &mut Vec<f32>, c: Option<(f64, [f32; 3])>,
                    g: fn(f64) -> f64, h: &dyn Fn(f32) -> f32, m: HashMap<String, f64>,
                ) -> Box<[f64]> {
                    let k = |x: f64| -> f64 { x };
                    let v: Vec<f64> = Vec::<f64>::new();
                    let p = "1".parse::<f64>();
                    let t = a.iter().copied().sum::<f64>();
                    todo!()
                }
            },
            quote! {
                fn f(
                    a: &[#d], b: &mut Vec<#f>, c: Option<(#d, [#f; 3])>,
                    g: fn(#d) -> #d, h: &dyn Fn(#f) -> #f, m: HashMap<String, #d>,
                ) -> Box<[#d]> {
                    let k = |x: #d| -> #d { x };
                    let v: Vec<#d> = Vec::<#d>::new();
                    let p = "1".parse::<#d>();
                    let t = a.iter().copied().sum::<#d>();
                    todo!()
                }
            },
        );
    }

    #[test]
    fn integer_code_untouched() {
        let code = quote! {
            fn f(v: &[u32], n: usize) -> usize {
                let mut s = 0usize;
                for i in 0..n { s += v[i] as usize + 1; }
                let b = [0u8; 4];
                s + b.len() + (3 as usize) + Kind::A as usize + v.len() as u64 as usize
            }
        };
        let i_as_usize = cast(quote!(usize), quote!(v[i]));
        check(
            quote!(),
            code,
            quote! {
                fn f(v: &[u32], n: usize) -> usize {
                    let mut s = 0usize;
                    for i in 0..n { s += #i_as_usize + 1; }
                    let b = [0u8; 4];
                    s + b.len() + (3 as usize) + Kind::A as usize + v.len() as u64 as usize
                }
            },
        );
    }

    #[test]
    fn casts() {
        let d = s("f64");
        let f = s("f32");
        let a = cast(d.clone(), quote!(n));
        let b = cast(f.clone(), quote!(x));
        let c = cast(quote!(i64), quote!(x.floor()));
        let e = cast(d.clone(), quote!(2));
        let g = cast(d.clone(), quote!(a + b));
        check(
            quote!(),
            quote! { fn f() { let a = n as f64; let b = x as f32; let c = x.floor() as i64;
            let e = 2 as f64; let g = (a + b) as f64; let h = p as *const f64; } },
            quote! { fn f() { let a = #a; let b = #b; let c = #c; let e = #e; let g = #g;
            let h = p as *const #d; } },
        );
    }

    #[test]
    fn float_paths() {
        let d = s("f64");
        let sqrt = quote!(::stoch_core::Stochastic::<f64>::sqrt(x));
        let max = quote!(::stoch_core::Stochastic::<f32>::max(a, b));
        let pi = lit_k("f64", quote!(::stoch_core::__private::consts_f64::PI));
        let e = lit_k("f32", quote!(::stoch_core::__private::consts_f32::E));
        let eps = quote!(::stoch_core::Stochastic::<f64>::EPSILON);
        let inf = quote!(::stoch_core::Stochastic::<f64>::NEG_INFINITY);
        let from = quote!(::stoch_core::__private::cast::<#d, _>);
        check(
            quote!(),
            quote! { fn f() { f64::sqrt(x); f32::max(a, b); std::f64::consts::PI; core::f32::consts::E;
            f64::EPSILON; std::f64::NEG_INFINITY; f64::from(3u8); v.map(f64::from);
            f64::MANTISSA_DIGITS; } },
            quote! { fn f() { #sqrt; #max; #pi; #e; #eps; #inf; #from(3u8); v.map(#from);
            f64::MANTISSA_DIGITS; } },
        );
    }

    #[test]
    fn patterns_keep_literals() {
        let d = s("f64");
        let one = lit(quote!(1.0));
        check(
            quote!(),
            quote! { fn f(x: f64) { match x { 0.0 => {} 1.0..=2.0 => {} _ if x > 1.0 => {} _ => {} }
            let (a, b): (f64, f64) = (x, x); } },
            quote! { fn f(x: #d) { match x { 0.0 => {} 1.0..=2.0 => {} _ if x > #one => {} _ => {} }
            let (a, b): (#d, #d) = (x, x); } },
        );
    }

    #[test]
    fn array_lengths_and_const_generics_untouched() {
        let d = s("f64");
        let z = lit(quote!(0.0));
        check(
            quote!(),
            quote! { fn f() -> [f64; N * 2] { let a = [0.0; { N * 2 }]; g::<{ 3 }>(); a } },
            quote! { fn f() -> [#d; N * 2] { let a = [#z; { N * 2 }]; g::<{ 3 }>(); a } },
        );
    }

    #[test]
    fn track_caller_on_small_fns() {
        let d = s("f64");
        let out = stochastic(
            quote!(track_caller),
            quote! { mod m {
                trait Abs { fn abs2(self) -> Self; fn twice(self) -> Self where Self: Sized { self } }
                impl Abs for f64 { fn abs2(self) -> Self { self.abs() } }
                fn long(x: f64) -> f64 { let y = x * x; y - x }
                #[track_caller] fn marked(x: f64) -> f64 { x }
                fn main() { }
            } },
        );
        let expected = quote! { mod m {
            trait Abs { fn abs2(self) -> Self; #[track_caller] fn twice(self) -> Self where Self: Sized { self } }
            impl Abs for #d { #[track_caller] fn abs2(self) -> Self { self.abs() } }
            fn long(x: #d) -> #d { let y = x * x; y - x }
            #[track_caller] fn marked(x: #d) -> #d { x }
            fn main() { }
        } };
        assert_eq!(out.to_string(), normalize(expected));
        check_err(
            quote!(),
            quote! { mod m { #[stochastic(track_caller)] fn f() {} } },
            "`track_caller` applies to the whole item",
        );
    }

    #[test]
    fn bare_trait_objects_parse() {
        let d = s("f64");
        check(
            quote!(),
            quote! { fn f(g: &Fn(&Vec<f64>) -> f64) { let h: Box<Fn(f64) -> f64> = Box::new(|x| x); } },
            quote! { fn f(g: &dyn Fn(&Vec<#d>) -> #d) { let h: Box<dyn Fn(#d) -> #d> = Box::new(|x| x); } },
        );
    }

    #[test]
    fn real_code_forms() {
        let (d, f) = (s("f64"), s("f32"));
        let zero = lit_k("f64", quote!(0f64));
        let big = lit_k("f32", quote!(10_000f32));
        let pi = quote!(::stoch_core::__private::promote(PI));
        let cpi = quote!(::stoch_core::__private::promote(consts::PI));
        let zero2 = lit_k("f64", quote!(2f64));
        let (one_five, two_five) = (lit(quote!(1.5)), lit(quote!(2.5)));
        check(
            quote!(),
            quote! { fn f(v: &mut Vec<f64>, a: &mut [[f64; 2]; 2], k: usize) {
                let z = [0f64; 2]; let w = vec![10_000f32];
                v[1] += v[0];
                a[k][1] -= a[0][1] * 2f64;
                let t = PI * consts::PI;
                let p = stoch_core::plain!(0.5 * 2.0);
                let q = array![[1.5, 2.5]];
            } },
            quote! { fn f(v: &mut Vec<#d>, a: &mut [[#d; 2]; 2], k: usize) {
                let z = [#zero; 2]; let w = vec![#big];
                { let __stoch_rhs = v[0]; v[1] += __stoch_rhs; };
                { let __stoch_rhs = a[0][1] * #zero2; a[k][1] -= __stoch_rhs; };
                let t = #pi * #cpi;
                let p = stoch_core::plain!(0.5 * 2.0);
                let q = array![[#one_five, #two_five]];
            } },
        );
        let _ = f;
    }

    #[test]
    fn constants_of_other_items_and_aliases() {
        let d = s("f64");
        check(
            quote!(),
            quote! { mod m {
                const FPMIN: f64 = f64::MIN_POSITIVE / EPS;
                const B: [f64; 2] = [Self::C[1], 0.5];
                const PI2: R = std::f64::consts::PI * 2.0;
                const L: f64 = NAME.len() as f64;
                fn g(n: i32) -> R { n as R }
            } },
            quote! { mod m {
                const FPMIN: #d = ::stoch_core::__private::const_f64(
                    f64::MIN_POSITIVE / ::stoch_core::__private::const_plain(EPS));
                const B: [#d; 2] = [
                    ::stoch_core::__private::const_f64(::stoch_core::__private::const_plain(Self::C[1])),
                    ::stoch_core::__private::const_f64(0.5)];
                const PI2: R = ::stoch_core::__private::const_f64(std::f64::consts::PI * 2.0);
                const L: #d = ::stoch_core::__private::const_f64(NAME.len() as f64);
                fn g(n: i32) -> R { ::stoch_core::__private::cast::<R, _>(n) }
            } },
        );
    }

    #[test]
    fn macros_arguments() {
        let (z, one, two) = (lit(quote!(0.0)), lit(quote!(1.0)), lit(quote!(2.0)));
        check(
            quote!(),
            quote! { fn f(n: usize) {
                let v = vec![0.0; n]; let w = vec![1.0, 2.0];
                println!("{} {x}", 1.0, x = 2.0);
                assert!(v[0] < 1.0, "v = {}", 2.0);
                assert_eq!(w[0], 1.0);
                matches!(x, 1.0);
            } },
            quote! { fn f(n: usize) {
                let v = vec![#z; n]; let w = vec![#one, #two];
                println!("{} {x}", #one, x = #two);
                assert!(v[0] < #one, "v = {}", #two);
                assert_eq!(w[0], #one);
                matches!(x, 1.0);
            } },
        );
    }

    #[test]
    fn impl_block_and_consts() {
        let d = s("f64");
        check(
            quote!(),
            quote! {
                impl Body {
                    const G: f64 = 6.674e-11;
                    const TWO_G: f64 = 2.0 * Self::G;
                    const N: usize = 3;
                    fn energy(&self) -> f64 { Self::G * self.m }
                }
            },
            quote! {
                impl Body {
                    const G: #d = ::stoch_core::__private::const_f64(6.674e-11);
                    const TWO_G: #d = ::stoch_core::__private::const_f64(
                        2.0 * ::stoch_core::__private::const_value_f64(&Self::G));
                    const N: usize = 3;
                    fn energy(&self) -> #d { Self::G * self.m }
                }
            },
        );
    }

    #[test]
    fn const_arrays_tuples_refs_statics() {
        let (d, f) = (s("f64"), s("f32"));
        check(
            quote!(),
            quote! { mod m {
                const W: [f64; 2] = [0.5, 1.0 / 3.0];
                static T: (usize, f32) = (1, 2.5);
                const R: &[f64] = &[1.0, -1.0];
                const Z: [f32; 4] = [0.0; 4];
            } },
            quote! { mod m {
                const W: [#d; 2] = [::stoch_core::__private::const_f64(0.5),
                                    ::stoch_core::__private::const_f64(1.0 / 3.0)];
                static T: (usize, #f) = (1, ::stoch_core::__private::const_f32(2.5));
                const R: &[#d] = &[::stoch_core::__private::const_f64(1.0),
                                   ::stoch_core::__private::const_f64(-1.0)];
                const Z: [#f; 4] = [::stoch_core::__private::const_f32(0.0); 4];
            } },
        );
    }

    #[test]
    fn const_struct_literals() {
        let (d, f) = (s("f64"), s("f32"));
        check(
            quote!(),
            quote! { mod m {
                struct P { x: f64, y: f32, n: u8 }
                struct T(f64, usize);
                const O: P = P { x: 1.0 / 3.0, y: 0.5, n: 2 };
                const U: T = T(-1.0, 3);
                const Q: Other = Other { x: 1.0 };
            } },
            quote! { mod m {
                struct P { x: #d, y: #f, n: u8 }
                struct T(#d, usize);
                const O: P = P {
                    x: ::stoch_core::__private::const_f64(1.0 / 3.0),
                    y: ::stoch_core::__private::const_f32(0.5),
                    n: 2
                };
                const U: T = T(::stoch_core::__private::const_f64(-1.0), 3);
                const Q: Other = Other { x: 1.0 };
            } },
        );
        // In an impl of a struct declared elsewhere: float-valued fields, dominant type.
        check(
            quote!(),
            quote! { impl C {
                const I: C = C { re: 0.0, im: Self::ONE, tag: 1 };
                const ONE: f32 = 1.0;
                const J: Self = Self { re: 0.0, im: -1.0, tag: 2 };
            } },
            quote! { impl C {
                const I: C = C {
                    re: ::stoch_core::__private::const_f32(0.0),
                    im: ::stoch_core::__private::const_f32(
                        ::stoch_core::__private::const_value_f32(&Self::ONE)),
                    tag: 1
                };
                const ONE: #f = ::stoch_core::__private::const_f32(1.0);
                const J: Self = Self {
                    re: ::stoch_core::__private::const_f32(0.0),
                    im: ::stoch_core::__private::const_f32(-1.0),
                    tag: 2
                };
            } },
        );
    }

    #[test]
    fn const_generic_wrappers() {
        let d = s("f64");
        check(
            quote!(),
            quote! { mod m {
                static TOTAL: Mutex<f64> = Mutex::new(0.0);
                const LIMIT: Option<f64> = Some(-1.5e3);
            } },
            quote! { mod m {
                static TOTAL: Mutex<#d> = Mutex::new(::stoch_core::__private::const_f64(0.0));
                const LIMIT: Option<#d> = Some(::stoch_core::__private::const_f64(-1.5e3));
            } },
        );
    }

    #[test]
    fn const_initializer_it_cannot_rewrite() {
        check_err(
            quote!(),
            quote! { mod m { const P: [f64; 2] = make(); } },
            "cannot rewrite this constant initializer",
        );
    }

    #[test]
    fn type_alias_and_cast_to_alias() {
        let d = s("f64");
        let c = cast(quote!(Real), quote!(n));
        check(
            quote!(),
            quote! { mod m { type Real = f64; fn f(n: i32) -> Real { n as Real } } },
            quote! { mod m { type Real = #d; fn f(n: i32) -> Real { #c } } },
        );
    }

    #[test]
    fn main_prologue() {
        let one = lit(quote!(1.0));
        let out = stochastic(quote!(), quote! { fn main() { let x = 1.0; } }).to_string();
        let expected = quote! { fn main() {
            let __stoch_guard = ::stoch_core::__private::main_prologue(true);
            let x = #one;
        } };
        assert_eq!(out, normalize(expected));
        let out = stochastic(
            quote!(report = false),
            quote! { fn main() -> Result<(), String> { Ok(()) } },
        );
        let expected = quote! { fn main() -> Result<(), String> {
            let __stoch_guard = ::stoch_core::__private::main_prologue(false);
            Ok(())
        } };
        assert_eq!(out.to_string(), normalize(expected));
    }

    #[test]
    fn plain_copy_of_fn_and_mod() {
        let d = s("f64");
        let two = lit(quote!(2.0));
        check(
            quote!(plain = twice_ieee),
            quote! { fn twice(x: f64) -> f64 { x * 2.0 } },
            quote! {
                fn twice(x: #d) -> #d { x * #two }
                fn twice_ieee(x: f64) -> f64 { x * 2.0 }
            },
        );
        let out = stochastic(
            quote!(plain = ieee),
            quote! { mod num { #[stochastic_skip] fn a(x: f64) {} #[stochastic] fn b(x: f64) {} } },
        );
        let expected = quote! {
            mod num { fn a(x: f64) {} fn b(x: #d) {} }
            mod ieee { fn a(x: f64) {} fn b(x: f64) {} }
        };
        assert_eq!(out.to_string(), expected.to_string());
        check_err(
            quote!(plain = x),
            quote! { fn main() {} },
            "does not apply to `fn main`",
        );
        check_err(
            quote!(plain = x),
            quote! { impl A {} },
            "applies to a fn or an inline mod",
        );
        check_err(
            quote!(plain = x, skip),
            quote! { fn f() {} },
            "no effect together",
        );
    }

    #[test]
    fn plain_twin_survives_an_error() {
        // An error in the item: the error, the rest of the item rewritten (the construct in
        // error as written), and the twin `ieee`.
        let d = s("f64");
        let out = check_err(
            quote!(plain = ieee),
            quote! { mod num { extern "C" fn a(x: f64) -> f64 { x * x } fn b(x: f64) {} } },
            "cannot rewrite the nested `extern` fn `a`",
        );
        let rest = quote! {
            mod num { extern "C" fn a(x: f64) -> f64 { x * x } fn b(x: #d) {} }
            mod ieee { extern "C" fn a(x: f64) -> f64 { x * x } fn b(x: f64) {} }
        };
        assert!(out.ends_with(&rest.to_string()), "{out}");
        assert_eq!(out.matches("compile_error").count(), 1, "{out}");
        let out = check_err(
            quote!(plain = twin),
            quote! { extern "C" fn f(x: f64) -> f64 { -x } },
            "`extern` fn",
        );
        assert!(out.ends_with(&quote! { extern "C" fn twin(x: f64) -> f64 { -x } }.to_string()));
        // `plain` with `skip` is an error, but the twin still resolves.
        let out = check_err(quote!(plain = x, skip), quote! { fn f() {} }, "no effect");
        assert!(
            out.ends_with(&quote! { fn f() {} fn x() {} }.to_string()),
            "{out}"
        );
        // No twin where the copy itself is the error, or the arguments do not parse.
        let out = check_err(quote!(plain = x), quote! { impl A {} }, "applies to a fn");
        assert!(out.ends_with(&quote! { impl A {} }.to_string()), "{out}");
        let out = check_err(
            quote!(plain = x, plain = y),
            quote! { fn f() {} },
            "duplicate",
        );
        assert!(out.ends_with(&quote! { fn f() {} }.to_string()), "{out}");
    }

    #[test]
    fn skip_nested_items() {
        let d = s("f64");
        check(
            quote!(),
            quote! { mod m {
                #[stochastic(skip)] fn plain(x: f64) -> f64 { x * 2.0 }
                #[stochastic_skip] const C: f64 = 1.0;
                fn g(x: f64) -> f64 { #[stochastic_skip] let y: f64 = 1.0; x }
                #[stochastic] fn h(x: f64) {}
            } },
            quote! { mod m {
                fn plain(x: f64) -> f64 { x * 2.0 }
                const C: f64 = 1.0;
                fn g(x: #d) -> #d { let y: f64 = 1.0; x }
                fn h(x: #d) {}
            } },
        );
    }

    #[test]
    fn top_level_const_static_alias() {
        let (d, f) = (s("f64"), s("f32"));
        check(
            quote!(),
            quote! { pub const G: f64 = 9.81; },
            quote! { pub const G: #d = ::stoch_core::__private::const_f64(9.81); },
        );
        check(
            quote!(),
            quote! { static mut ACC: f32 = 0.0; },
            quote! { static mut ACC: #f = ::stoch_core::__private::const_f32(0.0); },
        );
        check(
            quote!(),
            quote! { pub type Real = f64; },
            quote! { pub type Real = #d; },
        );
    }

    #[test]
    fn skip_at_top_level_is_identity() {
        check(
            quote!(skip),
            quote! { fn f(x: f64) -> f64 { x } },
            quote! { fn f(x: f64) -> f64 { x } },
        );
    }

    #[test]
    fn trait_impl_struct_enum() {
        let d = s("f64");
        let half = lit(quote!(0.5));
        check(
            quote!(),
            quote! { mod m {
                struct P { x: f64, tag: u8 }
                enum Shape { Circle(f64), Square { side: f64 } }
                trait Area { const UNIT: f64 = 1.0; fn area(&self) -> f64; fn half(&self) -> f64 { self.area() * 0.5 } }
                impl std::ops::Add for P { type Output = P; fn add(self, o: P) -> P { P { x: self.x + o.x, tag: 0 } } }
            } },
            quote! { mod m {
                struct P { x: #d, tag: u8 }
                enum Shape { Circle(#d), Square { side: #d } }
                trait Area { const UNIT: #d = ::stoch_core::__private::const_f64(1.0); fn area(&self) -> #d; fn half(&self) -> #d { self.area() * #half } }
                impl std::ops::Add for P { type Output = P; fn add(self, o: P) -> P { P { x: self.x + o.x, tag: 0 } } }
            } },
        );
    }

    #[test]
    fn already_stochastic_is_not_rewritten_twice() {
        let once = stochastic(
            quote!(),
            quote! { fn f(x: f64) -> f64 { x * 2.0 + f64::EPSILON } },
        );
        let twice = stochastic(quote!(), once.clone());
        assert_eq!(once.to_string(), twice.to_string());
        check(
            quote!(),
            quote! { fn f(x: Stochastic<f64>) -> stoch_core::Sf64 { x } },
            quote! { fn f(x: Stochastic<f64>) -> stoch_core::Sf64 { x } },
        );
    }

    #[test]
    fn stoch_core_calls_keep_plain_arguments() {
        let d = s("f64");
        let two = lit(quote!(2.0));
        check(
            quote!(),
            quote! { fn f() -> f64 {
                let a = Sf64::with_relative_error(1.0, 1e-3);
                let b = Stochastic::<f32>::new(0.5);
                let c = stoch_core::Sf64::from_samples([1.0, 1.1, 0.9]);
                a * 2.0
            } },
            quote! { fn f() -> #d {
                let a = Sf64::with_relative_error(1.0, 1e-3);
                let b = Stochastic::<f32>::new(0.5);
                let c = stoch_core::Sf64::from_samples([1.0, 1.1, 0.9]);
                a * #two
            } },
        );
    }

    #[test]
    fn attributes_untouched() {
        let d = s("f64");
        check(
            quote!(),
            quote! { #[doc = "x"] #[allow(clippy::excessive_precision)] fn f(x: f64) {} },
            quote! { #[doc = "x"] #[allow(clippy::excessive_precision)] fn f(x: #d) {} },
        );
    }

    #[test]
    fn computing_const_fn_becomes_a_plain_fn() {
        let d = s("f64");
        let one = lit(quote!(1.0));
        check(
            quote!(),
            quote! { const fn f(x: f64) -> f64 { x + 1.0 } },
            quote! { fn f(x: #d) -> #d { x + #one } },
        );
        check(
            quote!(),
            quote! { impl P { pub const fn g(x: f64) -> f64 { -x } } },
            quote! { impl P { pub fn g(x: #d) -> #d { -x } } },
        );
        // Foreign ABIs stay errors.
        let out = check_err(
            quote!(),
            quote! { const extern "C" fn f(x: f64) -> f64 { x } },
            "cannot be applied to a `const fn`",
        );
        assert!(
            out.ends_with("const extern \"C\" fn f (x : f64) -> f64 { x }"),
            "{out}"
        );
    }

    #[test]
    fn macro_rules_transcribers() {
        let d = s("f64");
        let z = lit(quote!(0.0));
        let c = cast(d.clone(), quote!(i + 1));
        let two = lit(quote!(2.0));
        // The transcriber parses once `$N` stands for an identifier: rewritten, `$N` restored;
        // a repetition's body is rewritten on its own, its separator and operator kept.
        let out = stochastic(
            quote!(),
            quote! { mod m {
                macro_rules! deriv {
                    ($N:literal, $M:literal) => {
                        impl Poly<$N> {
                            fn d(&self, r: f64) -> [f64; $M] { let a = [0.0; $M]; (i + 1) as f64; a }
                        }
                    };
                }
                macro_rules! many { ($($x:expr),*) => { [$($x * 2.0),*] }; }
            } },
        );
        let expected = quote! { mod m {
            macro_rules! deriv {
                ($N:literal, $M:literal) => {
                    impl Poly<$N> {
                        fn d(&self, r: #d) -> [#d; $M] { let a = [#z; $M]; #c; a }
                    }
                };
            }
            macro_rules! many { ($($x:expr),*) => { [$($x * #two),*] }; }
        } };
        assert_eq!(out.to_string(), expected.to_string());
    }

    #[test]
    fn const_fn_that_only_builds_values_is_rewritten() {
        let d = s("f64");
        check(
            quote!(),
            quote! { mod m {
                struct P(f64, f64);
                impl P { pub const fn new(a: f64) -> Self { P(a, -1.0) } }
            } },
            quote! { mod m {
                struct P(#d, #d);
                impl P { pub const fn new(a: #d) -> Self {
                    P(a, ::stoch_core::__private::const_f64(-1.0))
                } }
            } },
        );
    }

    #[test]
    fn misuse_errors() {
        check_err(
            quote!(),
            quote! { extern "C" fn f(x: f64) {} },
            "`extern` fn",
        );
        check_err(
            quote!(),
            quote! { extern "C" { fn sin(x: f64) -> f64; } },
            "`extern` block",
        );
        check_err(quote!(), quote! { mod m; }, "cannot see into `mod m;`");
        check_err(quote!(), quote! { use std::f64; }, "`use` declaration");
        check_err(quote!(), quote! { m! { x } }, "macro item");
        check_err(
            quote!(report = false),
            quote! { fn f() {} },
            "applies only to `fn main`",
        );
        check_err(
            quote!(fast),
            quote! { fn f() {} },
            "unknown argument `fast`",
        );
        check_err(quote!(skip, skip), quote! { fn f() {} }, "duplicate `skip`");
        check_err(
            quote!(skip, report = true),
            quote! { fn main() {} },
            "no effect together",
        );
        check_err(quote!(), quote! { struct }, "");
    }

    #[test]
    fn nested_misuse_errors_are_all_reported() {
        let out = check_err(
            quote!(),
            quote! { mod m {
                const fn a(x: f64) -> f64 { x / 2.0 }
                const extern "C" fn z() {}
                extern "C" fn b() {}
                extern "C" { fn c(); }
                fn d() { #[stochastic(report = false)] fn e() {} }
            } },
            "nested `const fn z`",
        );
        assert!(out.contains("nested `extern` fn `b`"), "{out}");
        assert!(out.contains("`extern` block"), "{out}");
        assert!(out.contains("applies only to `fn main`"), "{out}");
        // The rest of the item rewritten (no cascade of type errors), marker attributes
        // removed, each construct in error as written.
        assert!(out.contains("fn d () { fn e () { } }"), "{out}");
        assert!(out.contains("const extern \"C\" fn z () { }"), "{out}");
        assert!(
            out.contains("fn a (x : :: stoch_core :: Stochastic < f64 >)"),
            "{out}"
        );
        assert_eq!(out.matches("compile_error").count(), 4, "{out}");
    }

    #[test]
    fn nested_fn_and_closures() {
        let d = s("f64");
        let two = lit(quote!(2.0));
        check(
            quote!(),
            quote! { fn outer(x: f64) -> f64 { fn inner(y: f64) -> f64 { y * 2.0 } let c = |z| z * 2.0; inner(c(x)) } },
            quote! { fn outer(x: #d) -> #d { fn inner(y: #d) -> #d { y * #two } let c = |z| z * #two; inner(c(x)) } },
        );
    }

    #[test]
    fn neg_and_method_receivers() {
        let one = lit(quote!(1.0));
        let two = lit_k("f64", quote!(2.0_f64));
        check(
            quote!(),
            quote! { fn f() { let a = -1.0; let b = 2.0_f64.sqrt(); } },
            quote! { fn f() { let a = -#one; let b = #two.sqrt(); } },
        );
    }
}
