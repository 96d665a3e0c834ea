//! Expansion of items and options: nested items, skip markers, `track_caller`, `plain = name`,
//! `fn main`, `macro_rules!`, and the errors of misuse.

use super::*;

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
