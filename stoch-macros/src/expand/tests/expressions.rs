//! Expansion of types and expressions: signatures, literals, casts, float paths, macro
//! arguments, compound assignment, and what is left alone (patterns, integers, lengths).

use super::*;

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
fn neg_and_method_receivers() {
    let one = lit(quote!(1.0));
    let two = lit_k("f64", quote!(2.0_f64));
    check(
        quote!(),
        quote! { fn f() { let a = -1.0; let b = 2.0_f64.sqrt(); } },
        quote! { fn f() { let a = -#one; let b = #two.sqrt(); } },
    );
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
fn attributes_untouched() {
    let d = s("f64");
    check(
        quote!(),
        quote! { #[doc = "x"] #[allow(clippy::excessive_precision)] fn f(x: f64) {} },
        quote! { #[doc = "x"] #[allow(clippy::excessive_precision)] fn f(x: #d) {} },
    );
}
