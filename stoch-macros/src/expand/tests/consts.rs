//! Expansion of constants, aliases and `const fn`s: initializers stay constant, each float
//! value wrapped by a `const fn`.

use super::*;

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
