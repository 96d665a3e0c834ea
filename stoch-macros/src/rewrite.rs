//! The rewrite itself: a [`VisitMut`] that turns `f32`/`f64` code into `Stochastic` code.
//!
//! Shaped like pin-project's `ReplaceReceiver`: each `visit_*_mut` handles the nodes it knows and
//! otherwise recurses with `visit_mut::visit_*_mut`. What it does, node by node:
//!
//! - types: `f32`/`f64` become `::stoch_core::Stochastic<f32>`/`<f64>` everywhere a type appears,
//!   except array lengths and const generic arguments (those are integer constant expressions);
//! - float literals (outside patterns): `1.5f32` becomes
//!   `<::stoch_core::Stochastic<f32> as ::stoch_core::__private::From<f32>>::from(1.5f32)`, an unsuffixed
//!   `0.5` becomes `<::stoch_core::Stochastic<_> as ::stoch_core::__private::From<_>>::from(0.5)` whose
//!   two `_` are found by the same inference (and the same fallback to `f64`) that would have
//!   typed the literal;
//! - casts to a float type become `::stoch_core::__private::cast::<Stochastic<T>, _>(e)`, and
//!   casts to an integer type too unless the operand obviously is not a float (a literal, an
//!   enum variant path, `.len()`, a cast to an integer, a comparison, ...);
//! - `f64::sqrt`-style paths, `f64::EPSILON`-style constants, `std::f64::consts::PI`, `f64::from`;
//! - `const`/`static` items of float type (`[f64; N]`, tuples, references, `Mutex<f64>`,
//!   `Option<f64>` and struct literals of rewritten structs too): the initializer stays a plain
//!   constant expression and each float value in it is wrapped by a `const fn`;
//! - the arguments of calls into stoch-core (`Sf64::with_relative_error(1.0, 1e-3)`) are left
//!   as written: they are plain values;
//! - the arguments of every macro whose arguments parse as expressions (not `matches!`,
//!   `stringify!`, `plain!`, ... see [`NON_EXPR_MACROS`]), and `macro_rules!` transcribers that
//!   parse once their metavariables and repetitions stand for placeholders;
//! - compound assignment on a place other than a local: the right side into a temporary first;
//! - std constants named without their type (`PI`, `consts::PI`) through `__private::promote`;
//!   constants of other items in constant initializers through `__private::const_plain`;
//! - nested items: `#[stochastic(skip)]`/`#[stochastic_skip]` leave one untouched; a `const fn`
//!   stays `const` when it only builds values and becomes a plain fn when it computes; nested
//!   `extern` items are errors (reported, left as written, the rest rewritten).

use std::collections::HashMap;

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned, ToTokens};
use syn::parse::{ParseStream, Parser};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::visit::{self, Visit};
use syn::visit_mut::{self, VisitMut};
use syn::{
    Attribute, BinOp, Expr, ExprCast, ExprPath, GenericArgument, Ident, ImplItem, Item, LitFloat,
    Macro, Meta, Pat, Signature, Stmt, Token, TraitItem, Type, UnOp,
};

use crate::args::Args;
use crate::error::{format_err, Errors};

/// `gen_expr!(span=> tokens)`: generated code as an [`Expr`], spanned on the user's tokens.
/// Never panics: tokens that do not re-parse (unstable syntax syn keeps verbatim) are kept as
/// [`Expr::Verbatim`]. Every generated expression is a path or a call, so it needs no
/// parentheses wherever it lands.
macro_rules! gen_expr {
    ($span:expr=> $($tt:tt)*) => {{
        let tokens = quote_spanned!($span=> $($tt)*);
        syn::parse2::<Expr>(tokens.clone()).unwrap_or(Expr::Verbatim(tokens))
    }};
}

/// The two float types the macro rewrites.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FloatKind {
    F32,
    F64,
}

impl FloatKind {
    fn from_name(name: &str) -> Option<Self> {
        match name {
            "f32" => Some(FloatKind::F32),
            "f64" => Some(FloatKind::F64),
            _ => None,
        }
    }

    fn name(self) -> &'static str {
        match self {
            FloatKind::F32 => "f32",
            FloatKind::F64 => "f64",
        }
    }

    fn ident(self, span: Span) -> Ident {
        Ident::new(self.name(), span)
    }

    /// `__private::const_f32`/`const_f64`: exact value as a stochastic constant (`const fn`).
    fn const_fn(self, span: Span) -> Ident {
        Ident::new(&format!("const_{}", self.name()), span)
    }

    /// `__private::const_value_f32`/`const_value_f64`: back to the plain value (`const fn`).
    fn const_value_fn(self, span: Span) -> Ident {
        Ident::new(&format!("const_value_{}", self.name()), span)
    }
}

/// `Some(kind)` if `ty` is exactly `f32` or `f64` (possibly parenthesized).
pub(crate) fn scalar_float(ty: &Type) -> Option<FloatKind> {
    match ty {
        Type::Path(p) if p.qself.is_none() => p
            .path
            .get_ident()
            .and_then(|i| FloatKind::from_name(&i.to_string())),
        Type::Paren(p) => scalar_float(&p.elem),
        Type::Group(g) => scalar_float(&g.elem),
        _ => None,
    }
}

/// Whether `f32` or `f64` appears anywhere in `ty` (array lengths excluded).
pub(crate) fn mentions_float(ty: &Type) -> bool {
    struct Mentions(bool);
    impl Visit<'_> for Mentions {
        fn visit_type_path(&mut self, p: &syn::TypePath) {
            if p.qself.is_none()
                && p.path
                    .get_ident()
                    .is_some_and(|i| FloatKind::from_name(&i.to_string()).is_some())
            {
                self.0 = true;
            }
            visit::visit_type_path(self, p);
        }
        fn visit_expr(&mut self, _: &Expr) {}
    }
    let mut m = Mentions(false);
    m.visit_type(ty);
    m.0
}

/// The float types named in `ty`, each once.
fn float_kinds(ty: &Type) -> Vec<FloatKind> {
    struct Kinds(Vec<FloatKind>);
    impl Visit<'_> for Kinds {
        fn visit_type(&mut self, ty: &Type) {
            match scalar_float(ty) {
                Some(kind) if !self.0.contains(&kind) => self.0.push(kind),
                Some(_) => {}
                None => visit::visit_type(self, ty),
            }
        }
        fn visit_expr(&mut self, _: &Expr) {}
    }
    let mut kinds = Kinds(Vec::new());
    kinds.visit_type(ty);
    kinds.0
}

/// `::stoch_core::Stochastic<f64>`, spanned on the user's `f64`.
fn stoch_type(kind: FloatKind, span: Span) -> Type {
    let k = kind.ident(span);
    let tokens = quote_spanned!(span=> ::stoch_core::Stochastic<#k>);
    syn::parse2(tokens.clone()).unwrap_or(Type::Verbatim(tokens))
}

fn is_int_type(ty: &Type) -> bool {
    const INTS: &[&str] = &[
        "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128", "usize",
    ];
    match ty {
        Type::Path(p) if p.qself.is_none() => p
            .path
            .get_ident()
            .is_some_and(|i| INTS.contains(&i.to_string().as_str())),
        Type::Paren(p) => is_int_type(&p.elem),
        Type::Group(g) => is_int_type(&g.elem),
        _ => false,
    }
}

/// Paths the macro generated itself (or the user wrote): never rewritten again.
fn is_stoch_path(path: &syn::Path) -> bool {
    path.segments
        .first()
        .is_some_and(|s| s.ident == "stoch_core" || s.ident == "Stochastic")
        || path
            .segments
            .last()
            .is_some_and(|s| s.ident == "Stochastic")
}

/// Is this attribute path `stochastic`, `stoch_core::stochastic` or `stoch_macros::stochastic`?
fn is_stochastic_attr(path: &syn::Path) -> bool {
    path.segments
        .last()
        .is_some_and(|s| s.ident == "stochastic")
        && (path.segments.len() == 1
            || path.segments.len() == 2
                && (path.segments[0].ident == "stoch_core"
                    || path.segments[0].ident == "stoch_macros"))
}

/// Does the item carry `#[stochastic(skip)]` or `#[stochastic_skip]`? (Read only.)
fn has_skip_marker(attrs: &[Attribute]) -> bool {
    attrs.iter().any(|attr| {
        attr.path().is_ident("stochastic_skip")
            || is_stochastic_attr(attr.path())
                && matches!(&attr.meta, Meta::List(l)
                    if Args::parse_tokens(l.tokens.clone()).is_ok_and(|a| a.skip.is_some()))
    })
}

/// Removes `#[stochastic_skip]` and nested `#[stochastic(..)]` attributes; returns whether the
/// item is to be skipped. Bad nested arguments are reported into `errors`.
fn take_markers(attrs: &mut Vec<Attribute>, errors: &mut Errors) -> bool {
    let mut skip = false;
    attrs.retain(|attr| {
        if attr.path().is_ident("stochastic_skip") {
            if attr.meta.require_path_only().is_err() {
                errors.push(format_err!(attr, "`#[stochastic_skip]` takes no arguments"));
            }
            skip = true;
            return false;
        }
        if !is_stochastic_attr(attr.path()) {
            return true;
        }
        match &attr.meta {
            // A nested `#[stochastic]` is redundant: the outer one rewrites this item already.
            Meta::Path(_) => {}
            Meta::List(list) => match Args::parse_tokens(list.tokens.clone()) {
                Ok(args) => {
                    if args.skip.is_some() {
                        skip = true;
                    }
                    if let Some((_, key)) = args.report {
                        errors.push(format_err!(
                            key,
                            "`report` applies only to `fn main` under its own #[stochastic]"
                        ));
                    }
                    if let Some(key) = args.track_caller {
                        errors.push(format_err!(
                            key,
                            "`track_caller` applies to the whole item: write it on the outer \
                             #[stochastic]"
                        ));
                    }
                }
                Err(err) => errors.push(err),
            },
            Meta::NameValue(_) => errors.push(format_err!(
                attr,
                "expected `#[stochastic]` or `#[stochastic(skip)]`"
            )),
        }
        false
    });
    skip
}

/// The marker attributes of an item, if it has attributes.
fn item_attrs_mut(item: &mut Item) -> Option<&mut Vec<Attribute>> {
    Some(match item {
        Item::Const(i) => &mut i.attrs,
        Item::Enum(i) => &mut i.attrs,
        Item::ExternCrate(i) => &mut i.attrs,
        Item::Fn(i) => &mut i.attrs,
        Item::ForeignMod(i) => &mut i.attrs,
        Item::Impl(i) => &mut i.attrs,
        Item::Macro(i) => &mut i.attrs,
        Item::Mod(i) => &mut i.attrs,
        Item::Static(i) => &mut i.attrs,
        Item::Struct(i) => &mut i.attrs,
        Item::Trait(i) => &mut i.attrs,
        Item::TraitAlias(i) => &mut i.attrs,
        Item::Type(i) => &mut i.attrs,
        Item::Union(i) => &mut i.attrs,
        Item::Use(i) => &mut i.attrs,
        _ => return None,
    })
}

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

/// The rewriting visitor. One per expansion.
pub(crate) struct Rewrite {
    /// Every problem found, reported together.
    pub(crate) errors: Errors,
    /// `const`/`static` items of type `f32`/`f64` declared inside the item, by name.
    consts: HashMap<String, FloatKind>,
    /// `type Real = f64;` aliases declared inside the item, by name.
    aliases: HashMap<String, FloatKind>,
    /// Structs declared inside the item: their `f32`/`f64` fields (tuple fields by index).
    structs: HashMap<String, HashMap<String, FloatKind>>,
    /// The only float type the item mentions (`f64` when it mentions both or none): the type
    /// of the unsuffixed literals in a constant struct literal of a struct declared elsewhere.
    dominant: FloatKind,
    /// The self type of the impl being rewritten, by its last name.
    self_ty: Option<String>,
    /// Inside a `const fn` that only moves and builds values (see [`const_fn_ok`]): literals
    /// become `const fn` calls.
    in_const_fn: bool,
    /// `#[stochastic(track_caller)]`: small fns get `#[track_caller]`.
    pub(crate) track_caller: bool,
}

impl Rewrite {
    /// A visitor for `item`, after a first pass that finds the float constants and aliases it
    /// declares.
    pub(crate) fn new(item: &Item) -> Self {
        struct Collect<'a>(&'a mut Rewrite);
        impl Visit<'_> for Collect<'_> {
            fn visit_item(&mut self, item: &Item) {
                let attrs: &[Attribute] = match item {
                    Item::Const(i) => &i.attrs,
                    Item::Fn(i) => &i.attrs,
                    Item::Impl(i) => &i.attrs,
                    Item::Mod(i) => &i.attrs,
                    Item::Static(i) => &i.attrs,
                    Item::Trait(i) => &i.attrs,
                    Item::Type(i) => &i.attrs,
                    _ => &[],
                };
                if !has_skip_marker(attrs) {
                    visit::visit_item(self, item);
                }
            }
            fn visit_item_const(&mut self, c: &syn::ItemConst) {
                self.0.add_const(&c.ident, &c.ty);
            }
            fn visit_item_static(&mut self, s: &syn::ItemStatic) {
                self.0.add_const(&s.ident, &s.ty);
            }
            fn visit_impl_item_const(&mut self, c: &syn::ImplItemConst) {
                if !has_skip_marker(&c.attrs) {
                    self.0.add_const(&c.ident, &c.ty);
                }
            }
            fn visit_trait_item_const(&mut self, c: &syn::TraitItemConst) {
                if !has_skip_marker(&c.attrs) {
                    self.0.add_const(&c.ident, &c.ty);
                }
            }
            fn visit_item_type(&mut self, t: &syn::ItemType) {
                if let Some(kind) = scalar_float(&t.ty) {
                    self.0.aliases.insert(t.ident.to_string(), kind);
                }
            }
            fn visit_item_struct(&mut self, st: &syn::ItemStruct) {
                if has_skip_marker(&st.attrs) {
                    return;
                }
                let fields = st
                    .fields
                    .iter()
                    .enumerate()
                    .filter_map(|(i, f)| {
                        let name = f.ident.as_ref().map_or(i.to_string(), Ident::to_string);
                        scalar_float(&f.ty).map(|kind| (name, kind))
                    })
                    .collect();
                self.0.structs.insert(st.ident.to_string(), fields);
            }
        }
        struct Kinds(bool, bool);
        impl Visit<'_> for Kinds {
            fn visit_type(&mut self, ty: &Type) {
                match scalar_float(ty) {
                    Some(FloatKind::F32) => self.0 = true,
                    Some(FloatKind::F64) => self.1 = true,
                    None => visit::visit_type(self, ty),
                }
            }
            fn visit_lit_float(&mut self, lit: &LitFloat) {
                match lit.suffix() {
                    "f32" => self.0 = true,
                    "f64" => self.1 = true,
                    _ => {}
                }
            }
            fn visit_lit_int(&mut self, lit: &syn::LitInt) {
                match lit.suffix() {
                    "f32" => self.0 = true,
                    "f64" => self.1 = true,
                    _ => {}
                }
            }
        }
        let mut kinds = Kinds(false, false);
        kinds.visit_item(item);
        let mut rw = Rewrite {
            errors: Errors::default(),
            consts: HashMap::new(),
            aliases: HashMap::new(),
            structs: HashMap::new(),
            dominant: if kinds.0 && !kinds.1 {
                FloatKind::F32
            } else {
                FloatKind::F64
            },
            self_ty: match item {
                Item::Impl(i) => type_name(&i.self_ty),
                _ => None,
            },
            in_const_fn: false,
            track_caller: false,
        };
        Collect(&mut rw).visit_item(item);
        rw
    }

    fn add_const(&mut self, ident: &Ident, ty: &Type) {
        if let Some(kind) = scalar_float(ty) {
            self.consts.insert(ident.to_string(), kind);
        }
    }

    /// The kind of a float literal (`-1.5`, `2f32`): its suffix, else the item's dominant kind;
    /// `None` for other literals.
    fn literal_kind(&self, e: &Expr) -> Option<FloatKind> {
        match e {
            Expr::Lit(l) => match &l.lit {
                syn::Lit::Float(f) if f.suffix().is_empty() => Some(self.dominant),
                syn::Lit::Float(f) => FloatKind::from_name(f.suffix()),
                syn::Lit::Int(i) => FloatKind::from_name(i.suffix()),
                _ => None,
            },
            Expr::Unary(u) => self.literal_kind(&u.expr),
            Expr::Paren(p) => self.literal_kind(&p.expr),
            _ => None,
        }
    }

    /// The float kind of a constant whose type is an alias (`R`, `Real`): known from a `type`
    /// of the item, or taken from a float initializer (the item's dominant kind) when the type
    /// is one identifier that names no struct of the item and no primitive.
    fn alias_kind(&self, ty: &Type, expr: &Expr) -> Option<FloatKind> {
        if let Some(kind) = self.float_alias(ty) {
            return Some(kind);
        }
        let Type::Path(p) = ty else { return None };
        let ident = p.path.get_ident()?.to_string();
        (p.qself.is_none()
            && !self.structs.contains_key(&ident)
            && !is_primitive_name(&ident)
            && self.is_const_float(expr))
        .then_some(self.dominant)
    }

    /// `Real` when `type Real = f64;` is declared in the item.
    fn float_alias(&self, ty: &Type) -> Option<FloatKind> {
        match ty {
            Type::Path(p) if p.qself.is_none() => p
                .path
                .get_ident()
                .and_then(|i| self.aliases.get(&i.to_string()).copied()),
            _ => None,
        }
    }

    /// Rewrites an item (after the skip/misuse checks of [`VisitMut::visit_item_mut`]).
    fn rewrite_item(&mut self, item: &mut Item) {
        match item {
            Item::Const(c) => self.rewrite_const(&mut c.ty, &mut c.expr),
            Item::Static(s) => self.rewrite_const(&mut s.ty, &mut s.expr),
            Item::Macro(m) if m.mac.path.is_ident("macro_rules") => {
                m.mac.tokens = self.rewrite_macro_rules(m.mac.tokens.clone());
            }
            Item::Macro(_) | Item::Use(_) | Item::ExternCrate(_) | Item::Verbatim(_) => {}
            _ => visit_mut::visit_item_mut(self, item),
        }
    }

    /// The rules of a `macro_rules!`: each transcriber that parses as items, statements or an
    /// expression once its `$name` metavariables stand for identifiers is rewritten like the
    /// code around it (`impl Poly<$N> { fn deflate(&self, root: f64) .. }`); a transcriber with
    /// repetitions (`$(..)*`) or other token-level syntax is left as written.
    fn rewrite_macro_rules(&mut self, tokens: TokenStream) -> TokenStream {
        use proc_macro2::{Delimiter, Group, TokenTree};
        let mut out: Vec<TokenTree> = Vec::new();
        let mut after_arrow = false;
        let mut prev_eq = false;
        for tt in tokens {
            match tt {
                TokenTree::Group(g) if after_arrow => {
                    let body = self.rewrite_transcriber(g.stream()).unwrap_or(g.stream());
                    let mut new = Group::new(g.delimiter(), body);
                    new.set_span(g.span());
                    out.push(TokenTree::Group(new));
                    after_arrow = false;
                }
                TokenTree::Punct(p) => {
                    after_arrow = prev_eq && p.as_char() == '>';
                    prev_eq = p.as_char() == '=' && p.spacing() == proc_macro2::Spacing::Joint;
                    out.push(TokenTree::Punct(p));
                }
                tt => {
                    prev_eq = false;
                    out.push(tt);
                }
            }
        }
        let _ = Delimiter::None;
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

    fn placeholders(
        &mut self,
        ts: TokenStream,
        reps: &mut Vec<TokenStream>,
    ) -> Option<TokenStream> {
        use proc_macro2::{Delimiter, Group, Punct, Spacing, TokenTree};
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
                        let mut group = Group::new(Delimiter::Parenthesis, inner);
                        group.set_span(g.span());
                        let mut rep = vec![TokenTree::Punct(p), TokenTree::Group(group)];
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
                    let mut new = Group::new(g.delimiter(), inner);
                    new.set_span(g.span());
                    out.push(TokenTree::Group(new));
                }
                tt => out.push(tt),
            }
        }
        Some(out.into_iter().collect())
    }

    /// A `const`/`static` of float type: rewrite the type, keep the initializer a plain constant
    /// expression and wrap each float value with `__private::const_f64` (a `const fn`).
    fn rewrite_const(&mut self, ty: &mut Type, expr: &mut Expr) {
        match self.const_init(ty, expr) {
            Ok(()) => self.visit_type_mut(ty),
            Err(err) => self.errors.push(err),
        }
    }

    fn const_init(&self, ty: &Type, expr: &mut Expr) -> syn::Result<()> {
        if let Some(kind) = scalar_float(ty) {
            let span = expr.span();
            let mut inner = expr.clone();
            self.replace_const_refs(&mut inner);
            let f = kind.const_fn(span);
            *expr = gen_expr!(span=> ::stoch_core::__private::#f(#inner));
            return Ok(());
        }
        // `const PI: R = ...;` with `type R = f64;` declared here or in another item: a type
        // named by one identifier, not a struct of the item, with a float initializer.
        if let Some(kind) = self.alias_kind(ty, expr) {
            let span = expr.span();
            let mut inner = expr.clone();
            self.replace_const_refs(&mut inner);
            let f = kind.const_fn(span);
            *expr = gen_expr!(span=> ::stoch_core::__private::#f(#inner));
            return Ok(());
        }
        if !mentions_float(ty) && type_name(ty).is_some() {
            self.const_struct_init(ty, expr);
            return Ok(());
        }
        match (ty, expr) {
            (Type::Paren(t), expr) => self.const_init(&t.elem, expr),
            (Type::Group(t), expr) => self.const_init(&t.elem, expr),
            (ty, Expr::Paren(e)) => self.const_init(ty, &mut e.expr),
            (Type::Array(t), Expr::Array(e)) => e
                .elems
                .iter_mut()
                .try_for_each(|e| self.const_init(&t.elem, e)),
            (Type::Slice(t), Expr::Array(e)) => e
                .elems
                .iter_mut()
                .try_for_each(|e| self.const_init(&t.elem, e)),
            (Type::Array(t), Expr::Repeat(e)) => self.const_init(&t.elem, &mut e.expr),
            (Type::Reference(t), Expr::Reference(e)) => self.const_init(&t.elem, &mut e.expr),
            // Another constant, `Self::ROW` or `TABLE[1]`: of the rewritten type when it is
            // declared under `#[stochastic]` too.
            (_, Expr::Path(_) | Expr::Index(_)) => Ok(()),
            (Type::Tuple(t), Expr::Tuple(e)) if t.elems.len() == e.elems.len() => t
                .elems
                .iter()
                .zip(e.elems.iter_mut())
                .try_for_each(|(t, e)| self.const_init(t, e)),
            (ty, expr) if mentions_float(ty) => {
                // `Mutex<f64>`, `Option<f32>`, `Cell<f64>`: wrap the float-valued constant
                // expressions inside, when the type names one float type.
                let kinds = float_kinds(ty);
                if kinds.len() == 1 && self.wrap_const_floats(kinds[0], expr) {
                    return Ok(());
                }
                Err(format_err!(
                    expr,
                    "#[stochastic] cannot rewrite this constant initializer: write the float \
                     values as constant expressions (arrays, tuples, references, struct literals \
                     and calls of them are fine), or mark the constant `#[stochastic(skip)]` to \
                     keep it a plain float"
                ))
            }
            _ => Ok(()),
        }
    }

    /// `const ORIGIN: Point = Point { x: 0.0, y: 0.0 };` (or `Point(0.0, 0.0)`) where `Point`'s
    /// float fields are rewritten: a struct declared in the item (its field types are known),
    /// or the self type of the impl being rewritten (then the float-valued constant expressions
    /// are taken to be the item's dominant float type). Other constants are left alone.
    fn const_struct_init(&self, ty: &Type, expr: &mut Expr) {
        let Some(mut name) = type_name(ty) else {
            return;
        };
        if name == "Self" {
            match &self.self_ty {
                Some(self_ty) => name = self_ty.clone(),
                None => return,
            }
        }
        let known = self.structs.get(&name);
        if known.is_none() && self.self_ty.as_deref() != Some(name.as_str()) {
            return;
        }
        let kind_of = |member: String, value: &Expr| match known {
            Some(fields) => fields.get(&member).copied(),
            None => self.is_const_float(value).then_some(self.dominant),
        };
        let names_struct = |path: &syn::Path| {
            path.segments
                .last()
                .is_some_and(|s| s.ident == name || s.ident == "Self")
        };
        let wrap = |kind: FloatKind, value: &mut Expr| {
            let span = value.span();
            let mut inner = value.clone();
            self.replace_const_refs(&mut inner);
            let f = kind.const_fn(span);
            *value = gen_expr!(span=> ::stoch_core::__private::#f(#inner));
        };
        match expr {
            Expr::Struct(st) if names_struct(&st.path) => {
                for field in st.fields.iter_mut() {
                    let member = match &field.member {
                        syn::Member::Named(ident) => ident.to_string(),
                        syn::Member::Unnamed(index) => index.index.to_string(),
                    };
                    if let Some(kind) = kind_of(member, &field.expr) {
                        wrap(kind, &mut field.expr);
                    }
                }
            }
            Expr::Call(call) if matches!(&*call.func, Expr::Path(p) if names_struct(&p.path)) => {
                for (i, arg) in call.args.iter_mut().enumerate() {
                    if let Some(kind) = kind_of(i.to_string(), arg) {
                        wrap(kind, arg);
                    }
                }
            }
            // `Point::new(0.0, 1.0)`: a `const fn` of the struct, rewritten to take stochastic
            // values; its float arguments are wrapped in the item's float type.
            Expr::Call(call) => {
                for arg in call.args.iter_mut() {
                    if self.is_const_float(arg) {
                        wrap(self.dominant, arg);
                    }
                }
            }
            _ => {}
        }
    }

    /// Wraps each float-valued constant expression found in call arguments, struct fields,
    /// arrays and tuples of `expr`. Returns whether it wrapped any.
    fn wrap_const_floats(&self, kind: FloatKind, expr: &mut Expr) -> bool {
        if self.is_const_float(expr) {
            let span = expr.span();
            let mut inner = expr.clone();
            self.replace_const_refs(&mut inner);
            let f = kind.const_fn(span);
            *expr = gen_expr!(span=> ::stoch_core::__private::#f(#inner));
            return true;
        }
        let mut any = false;
        let mut each = |e: &mut Expr| any |= self.wrap_const_floats(kind, e);
        match expr {
            Expr::Call(c) => c.args.iter_mut().for_each(&mut each),
            Expr::Struct(st) => st.fields.iter_mut().for_each(|f| each(&mut f.expr)),
            Expr::Array(a) => a.elems.iter_mut().for_each(&mut each),
            Expr::Tuple(t) => t.elems.iter_mut().for_each(&mut each),
            Expr::Paren(p) => each(&mut p.expr),
            Expr::Reference(r) => each(&mut r.expr),
            Expr::Repeat(r) => each(&mut r.expr),
            _ => {}
        }
        any
    }

    /// A constant expression of float type: literals, float constants of the item, float casts
    /// and `f64::` constants combined by arithmetic.
    fn is_const_float(&self, e: &Expr) -> bool {
        fn walk(rw: &Rewrite, e: &Expr, float: &mut bool) -> bool {
            match e {
                Expr::Lit(l) => {
                    *float |= match &l.lit {
                        syn::Lit::Float(_) => true,
                        syn::Lit::Int(i) => FloatKind::from_name(i.suffix()).is_some(),
                        _ => false,
                    };
                    true
                }
                Expr::Paren(p) => walk(rw, &p.expr, float),
                Expr::Group(g) => walk(rw, &g.expr, float),
                Expr::Unary(u) => walk(rw, &u.expr, float),
                Expr::Binary(b) => walk(rw, &b.left, float) && walk(rw, &b.right, float),
                Expr::Cast(c) => {
                    *float |= scalar_float(&c.ty).is_some();
                    walk(rw, &c.expr, float)
                }
                Expr::Path(p) => {
                    let last = p.path.segments.last().map(|s| s.ident.to_string());
                    *float |=
                        last.is_some_and(|n| rw.consts.contains_key(&n)) || float_path(p).is_some();
                    true
                }
                // `TABLE[1]`: an element of another constant (read as plain).
                Expr::Index(_) => names_other_const(e),
                _ => false,
            }
        }
        let mut float = false;
        walk(self, e, &mut float) && float
    }

    /// Inside a constant initializer, a float constant of the item (now stochastic) is read
    /// back as a plain value: `__private::const_value_f64(&PI2)`.
    fn replace_const_refs(&self, expr: &mut Expr) {
        struct Refs<'a>(&'a HashMap<String, FloatKind>);
        impl VisitMut for Refs<'_> {
            fn visit_expr_mut(&mut self, e: &mut Expr) {
                if let Expr::Path(p) = e {
                    let segs = &p.path.segments;
                    let name = match segs.len() {
                        1 if p.qself.is_none() => Some(&segs[0].ident),
                        2 if p.qself.is_none() && segs[0].ident == "Self" => Some(&segs[1].ident),
                        _ => None,
                    };
                    if let Some(kind) = name.and_then(|n| self.0.get(&n.to_string())) {
                        let span = p.span();
                        let f = kind.const_value_fn(span);
                        *e = gen_expr!(span=> ::stoch_core::__private::#f(&#p));
                        return;
                    }
                }
                // `NAME.len()`, `TABLE.0`: the constant is not a float value itself.
                match e {
                    Expr::MethodCall(m) => {
                        m.args.iter_mut().for_each(|a| self.visit_expr_mut(a));
                        return;
                    }
                    Expr::Field(_) => return,
                    _ => {}
                }
                // Another constant whose type the macro cannot see (declared in another item,
                // plain or stochastic), or an element of a constant table: read as plain.
                if names_other_const(e) {
                    let span = e.span();
                    *e = gen_expr!(span=> ::stoch_core::__private::const_plain(#e));
                    return;
                }
                visit_mut::visit_expr_mut(self, e);
            }
        }
        Refs(&self.consts).visit_expr_mut(expr);
    }

    /// `x as f64` and friends.
    fn rewrite_cast(&mut self, cast: &mut ExprCast) -> Option<Expr> {
        let span = cast.as_token.span;
        let literal_source = is_literal(&cast.expr);
        let target: Option<Type> = if let Some(kind) = scalar_float(&cast.ty) {
            Some(stoch_type(kind, cast.ty.span()))
        } else if self.float_alias(&cast.ty).is_some()
            || is_int_type(&cast.ty) && !literal_source && self.may_be_float(&cast.expr)
            || is_alias_name(&cast.ty)
        {
            Some((*cast.ty).clone())
        } else {
            None
        };
        if !literal_source {
            self.visit_expr_mut(&mut cast.expr);
        }
        match target {
            Some(target) => {
                // `(a + b) as f64`: the call's parentheses replace the user's.
                let mut source = &*cast.expr;
                while let Expr::Paren(syn::ExprParen { expr, .. })
                | Expr::Group(syn::ExprGroup { expr, .. }) = source
                {
                    source = expr;
                }
                Some(gen_expr!(span=>
                    ::stoch_core::__private::cast::<#target, _>(#source)
                ))
            }
            None => {
                self.visit_type_mut(&mut cast.ty);
                None
            }
        }
    }

    /// Could the operand of `e as <int>` be a float? When unsure: yes, and the cast goes through
    /// `__private::cast`, which accepts plain numbers too.
    fn may_be_float(&self, e: &Expr) -> bool {
        match e {
            Expr::Lit(_) => false,
            Expr::Paren(p) => self.may_be_float(&p.expr),
            Expr::Group(g) => self.may_be_float(&g.expr),
            Expr::Unary(u) => match u.op {
                UnOp::Neg(_) => self.may_be_float(&u.expr),
                UnOp::Not(_) => false,
                _ => true,
            },
            Expr::Cast(c) => scalar_float(&c.ty).is_some() || self.float_alias(&c.ty).is_some(),
            Expr::Binary(b) => !matches!(
                b.op,
                BinOp::Eq(_)
                    | BinOp::Ne(_)
                    | BinOp::Lt(_)
                    | BinOp::Le(_)
                    | BinOp::Gt(_)
                    | BinOp::Ge(_)
                    | BinOp::And(_)
                    | BinOp::Or(_)
                    | BinOp::Shl(_)
                    | BinOp::Shr(_)
                    | BinOp::BitAnd(_)
                    | BinOp::BitOr(_)
                    | BinOp::BitXor(_)
            ),
            Expr::Path(p) => {
                p.qself.is_none() && p.path.segments.len() == 1 || float_path(p).is_some()
            }
            Expr::MethodCall(m) => !matches!(
                m.method.to_string().as_str(),
                "len"
                    | "count"
                    | "capacity"
                    | "count_ones"
                    | "count_zeros"
                    | "leading_zeros"
                    | "trailing_zeros"
                    | "digits"
            ),
            _ => true,
        }
    }

    /// `f64::sqrt`, `f64::EPSILON`, `std::f64::consts::PI`, `f64::from`.
    fn rewrite_path(&self, p: &ExprPath) -> Option<Expr> {
        let (kind, rest) = float_path(p)?;
        let span = p.span();
        let k = kind.ident(span);
        let names: Vec<String> = rest.iter().map(|s| s.ident.to_string()).collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        match names.as_slice() {
            ["consts", _] => {
                let name = &rest[1].ident;
                let consts = Ident::new(&format!("consts_{}", kind.name()), span);
                Some(gen_expr!(span=>
                    <::stoch_core::Stochastic<#k> as ::stoch_core::__private::From<#k>>::from(
                        ::stoch_core::__private::#consts::#name
                    )
                ))
            }
            ["from"] => Some(gen_expr!(span=>
                ::stoch_core::__private::cast::<::stoch_core::Stochastic<#k>, _>
            )),
            [name]
                if FLOAT_CONSTS.contains(name)
                    || name.starts_with(|c: char| c.is_lowercase() || c == '_') =>
            {
                let seg = &rest[0];
                Some(gen_expr!(span=> ::stoch_core::Stochastic::<#k>::#seg))
            }
            // `f64::DIGITS`, `f64::MANTISSA_DIGITS`, ...: integers, left alone.
            _ => None,
        }
    }

    /// `0f64`, `10_000f32`: an integer-looking literal with a float suffix is a float literal.
    fn int_float_literal(lit: &syn::LitInt) -> Option<Expr> {
        let span = lit.span();
        let k = FloatKind::from_name(lit.suffix())?.ident(span);
        Some(gen_expr!(span=>
            <::stoch_core::Stochastic<#k> as ::stoch_core::__private::From<#k>>::from(#lit)
        ))
    }

    /// A float literal as a stochastic value; `None` for other suffixes (`f16`, `f128`).
    fn float_literal(lit: &LitFloat) -> Option<Expr> {
        let span = lit.span();
        if lit.suffix().is_empty() {
            return Some(gen_expr!(span=>
                <::stoch_core::Stochastic<_> as ::stoch_core::__private::From<_>>::from(#lit)
            ));
        }
        let k = FloatKind::from_name(lit.suffix())?.ident(span);
        Some(gen_expr!(span=>
            <::stoch_core::Stochastic<#k> as ::stoch_core::__private::From<#k>>::from(#lit)
        ))
    }
}

/// `f64::EPSILON`-style associated constants that have a stochastic counterpart.
const FLOAT_CONSTS: &[&str] = &[
    "EPSILON",
    "MAX",
    "MIN",
    "MIN_POSITIVE",
    "INFINITY",
    "NEG_INFINITY",
    "NAN",
];

/// `f64::X...`, `std::f64::X...` or `core::f64::X...`: the kind and the segments after `f64`.
fn float_path(p: &ExprPath) -> Option<(FloatKind, Vec<&syn::PathSegment>)> {
    if p.qself.is_some() {
        return None;
    }
    let segs: Vec<&syn::PathSegment> = p.path.segments.iter().collect();
    let at = |i: usize| segs.get(i).map(|s| s.ident.to_string());
    let (kind, start) = if let Some(kind) = at(0).as_deref().and_then(FloatKind::from_name) {
        (kind, 1)
    } else if matches!(at(0).as_deref(), Some("std" | "core")) {
        (at(1).as_deref().and_then(FloatKind::from_name)?, 2)
    } else {
        return None;
    };
    if segs.len() <= start || segs[..start].iter().any(|s| !s.arguments.is_none()) {
        return None;
    }
    Some((kind, segs[start..].to_vec()))
}

/// `::stoch_core::...` or `<::stoch_core::Stochastic<_> as ..>::...` as a callee.
fn is_generated(func: &Expr) -> bool {
    match func {
        Expr::Path(p) => match &p.qself {
            Some(q) => {
                matches!(&*q.ty, Type::Path(t) if t.qself.is_none() && is_stoch_path(&t.path))
            }
            None => p.path.leading_colon.is_some() && is_stoch_path(&p.path),
        },
        _ => false,
    }
}

/// The last name of a path type (`Point` for `geo::Point`), `Self` included.
fn type_name(ty: &Type) -> Option<String> {
    match ty {
        Type::Path(p) if p.qself.is_none() => p.path.segments.last().map(|s| s.ident.to_string()),
        Type::Paren(p) => type_name(&p.elem),
        Type::Group(g) => type_name(&g.elem),
        _ => None,
    }
}

/// `Stochastic::..`, `Sf64::..`, `Sf32::..` or `stoch_core::..` as a callee.
fn is_stoch_api(func: &Expr) -> bool {
    match func {
        Expr::Path(p) if p.qself.is_none() => p.path.segments.first().is_some_and(|s| {
            s.ident == "Stochastic"
                || s.ident == "Sf64"
                || s.ident == "Sf32"
                || s.ident == "stoch_core"
        }),
        _ => false,
    }
}

/// `1.0`, `-1.0`, `3`, `'a'`, `(2.5)`.
fn is_literal(e: &Expr) -> bool {
    match e {
        Expr::Lit(_) => true,
        Expr::Paren(p) => is_literal(&p.expr),
        Expr::Group(g) => is_literal(&g.expr),
        Expr::Unary(u) => matches!(u.op, UnOp::Neg(_)) && is_literal(&u.expr),
        _ => false,
    }
}

/// A `const fn` (not `extern`) whose body only moves and builds values (no arithmetic, method
/// call, comparison or float cast): rewritten as a const fn, its float literals built by
/// `const fn`s. Others cannot run on stochastic values in const evaluation.
pub(crate) fn const_fn_ok(sig: &Signature, body: Option<&syn::Block>) -> bool {
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

/// A metavariable `$name` while a transcriber is parsed: `__stoch_metavar_name`.
const METAVAR: &str = "__stoch_metavar_";
/// A repetition `$( .. ) sep op` while a transcriber is parsed: `__stoch_rep_N! {}`.
const REPETITION: &str = "__stoch_rep_";

/// Puts the metavariables and repetitions back.
fn from_placeholders(ts: TokenStream, reps: &[TokenStream]) -> TokenStream {
    use proc_macro2::{Group, Punct, Spacing, TokenTree};
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
            TokenTree::Group(g) => {
                let mut new = Group::new(g.delimiter(), from_placeholders(g.stream(), reps));
                new.set_span(g.span());
                out.push(TokenTree::Group(new));
            }
            tt => out.push(tt),
        }
    }
    out.into_iter().collect()
}

/// `#[track_caller]` on a small fn (a body of at most one statement or expression, as one-line
/// helpers and operator impls are) with the Rust ABI, not `async`, not already marked.
fn mark_track_caller(sig: &Signature, attrs: &mut Vec<Attribute>, body: Option<&syn::Block>) {
    let small = body.is_some_and(|b| b.stmts.len() <= 1);
    let marked = attrs
        .iter()
        .any(|a| a.path().is_ident("track_caller") || a.path().is_ident("naked"));
    if small && !marked && sig.abi.is_none() && sig.asyncness.is_none() {
        attrs.push(syn::parse_quote!(#[track_caller]));
    }
}

/// For a small fn left without `#[track_caller]` (the criteria of [`mark_track_caller`]): a
/// link-time record of its lines (`__private::SMALL_HELPERS`), so that the report can say a
/// site is inside it at no cost on the hot path. An item statement first in the body.
fn record_small_helper(sig: &Signature, attrs: &[Attribute], body: Option<&mut syn::Block>) {
    // Outside a compiler run (this crate's unit tests) spans carry no source lines.
    let Some(body) = body.filter(|_| proc_macro::is_available()) else {
        return;
    };
    let marked = attrs
        .iter()
        .any(|a| a.path().is_ident("track_caller") || a.path().is_ident("naked"));
    if body.stmts.len() > 1 || marked || sig.abi.is_some() || sig.asyncness.is_some() {
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

/// `n as Real`: `as` converts only to primitive types, so a target named by one identifier
/// that is no primitive is an alias of one (declared in another item, maybe of a float).
fn is_alias_name(ty: &Type) -> bool {
    matches!(ty, Type::Path(p) if p.qself.is_none()
        && p.path.get_ident().is_some_and(|i| !is_primitive_name(&i.to_string())))
}

/// `+=`, `-=`, ... (all compound assignments).
fn is_compound_assign(op: &BinOp) -> bool {
    matches!(
        op,
        BinOp::AddAssign(_)
            | BinOp::SubAssign(_)
            | BinOp::MulAssign(_)
            | BinOp::DivAssign(_)
            | BinOp::RemAssign(_)
            | BinOp::BitXorAssign(_)
            | BinOp::BitAndAssign(_)
            | BinOp::BitOrAssign(_)
            | BinOp::ShlAssign(_)
            | BinOp::ShrAssign(_)
    )
}

/// A local variable (`x += 1.0` needs no temporary).
fn is_local(e: &Expr) -> bool {
    matches!(e, Expr::Path(p) if p.qself.is_none() && p.path.get_ident().is_some())
}

/// `i32`, `usize`, `bool`, ...: the primitive types other than the floats.
fn is_primitive_name(name: &str) -> bool {
    matches!(
        name,
        "i8" | "i16"
            | "i32"
            | "i64"
            | "i128"
            | "isize"
            | "u8"
            | "u16"
            | "u32"
            | "u64"
            | "u128"
            | "usize"
            | "bool"
            | "char"
            | "str"
            | "f32"
            | "f64"
    )
}

/// `EPS`, `Self::C`, `consts::TABLE[1][2]`: a constant named by a SCREAMING_CASE path (not
/// `f64::EPSILON`-style, which stays plain in a constant initializer), or an element of one.
fn names_other_const(e: &Expr) -> bool {
    match e {
        Expr::Path(p) => {
            p.qself.is_none()
                && float_path(p).is_none()
                && p.path.segments.last().is_some_and(|s| {
                    let name = s.ident.to_string();
                    name.chars().any(|c| c.is_ascii_uppercase())
                        && name
                            .chars()
                            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
                })
        }
        Expr::Index(i) => names_other_const(&i.expr),
        _ => false,
    }
}

/// The std float constants (`std::f64::consts::*`), by name.
const STD_CONSTS: &[&str] = &[
    "PI",
    "TAU",
    "E",
    "SQRT_2",
    "FRAC_1_SQRT_2",
    "LN_2",
    "LN_10",
    "LOG2_E",
    "LOG2_10",
    "LOG10_E",
    "LOG10_2",
    "FRAC_PI_2",
    "FRAC_PI_3",
    "FRAC_PI_4",
    "FRAC_PI_6",
    "FRAC_PI_8",
    "FRAC_1_PI",
    "FRAC_2_PI",
    "FRAC_2_SQRT_PI",
];

/// `PI`, `consts::PI` (after `use std::f64::consts::PI` or `use std::f64::consts;`, possibly
/// outside the annotated item): a std float constant named without its type.
fn is_std_const_name(p: &ExprPath) -> bool {
    let segs = &p.path.segments;
    p.qself.is_none()
        && p.path.leading_colon.is_none()
        && match segs.len() {
            1 => STD_CONSTS.contains(&segs[0].ident.to_string().as_str()),
            2 => {
                segs[0].ident == "consts"
                    && STD_CONSTS.contains(&segs[1].ident.to_string().as_str())
            }
            _ => false,
        }
        && segs.iter().all(|s| s.arguments.is_none())
}

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

impl VisitMut for Rewrite {
    fn visit_item_mut(&mut self, item: &mut Item) {
        if let Some(attrs) = item_attrs_mut(item) {
            if take_markers(attrs, &mut self.errors) {
                return;
            }
        }
        match item {
            Item::Fn(f) => {
                if let Some(err) = fn_misuse(&f.sig, true) {
                    if const_fn_ok(&f.sig, Some(&f.block)) {
                        let outer = std::mem::replace(&mut self.in_const_fn, true);
                        visit_mut::visit_item_fn_mut(self, f);
                        self.in_const_fn = outer;
                    } else if f.sig.abi.is_none() {
                        // A `const fn` that computes: stochastic arithmetic does not run in
                        // const evaluation, so it becomes a plain fn (a call in a constant is
                        // then reported by rustc at that call).
                        f.sig.constness = None;
                        visit_mut::visit_item_fn_mut(self, f);
                    } else {
                        self.errors.push(err);
                    }
                    return;
                }
            }
            Item::ForeignMod(m) => {
                self.errors.push(foreign_mod_error(&m.abi));
                return;
            }
            Item::Macro(m) => {
                if let Some(err) = macro_export_error(m) {
                    self.errors.push(err);
                    return;
                }
            }
            _ => {}
        }
        self.rewrite_item(item);
    }

    fn visit_item_fn_mut(&mut self, f: &mut syn::ItemFn) {
        visit_mut::visit_item_fn_mut(self, f);
        if self.track_caller && f.sig.ident != "main" {
            mark_track_caller(&f.sig, &mut f.attrs, Some(&f.block));
        } else if f.sig.ident != "main" {
            record_small_helper(&f.sig, &f.attrs, Some(&mut f.block));
        }
    }

    fn visit_impl_item_fn_mut(&mut self, f: &mut syn::ImplItemFn) {
        visit_mut::visit_impl_item_fn_mut(self, f);
        if self.track_caller {
            mark_track_caller(&f.sig, &mut f.attrs, Some(&f.block));
        } else {
            record_small_helper(&f.sig, &f.attrs, Some(&mut f.block));
        }
    }

    fn visit_trait_item_fn_mut(&mut self, f: &mut syn::TraitItemFn) {
        visit_mut::visit_trait_item_fn_mut(self, f);
        if self.track_caller {
            mark_track_caller(&f.sig, &mut f.attrs, f.default.as_ref());
        } else {
            record_small_helper(&f.sig, &f.attrs, f.default.as_mut());
        }
    }

    fn visit_item_impl_mut(&mut self, item: &mut syn::ItemImpl) {
        let outer = std::mem::replace(&mut self.self_ty, type_name(&item.self_ty));
        visit_mut::visit_item_impl_mut(self, item);
        self.self_ty = outer;
    }

    fn visit_impl_item_mut(&mut self, item: &mut ImplItem) {
        let attrs = match item {
            ImplItem::Const(i) => &mut i.attrs,
            ImplItem::Fn(i) => &mut i.attrs,
            ImplItem::Type(i) => &mut i.attrs,
            ImplItem::Macro(i) => &mut i.attrs,
            _ => return,
        };
        if take_markers(attrs, &mut self.errors) {
            return;
        }
        match item {
            ImplItem::Fn(f) => {
                if let Some(err) = fn_misuse(&f.sig, true) {
                    if const_fn_ok(&f.sig, Some(&f.block)) {
                        let outer = std::mem::replace(&mut self.in_const_fn, true);
                        visit_mut::visit_impl_item_fn_mut(self, f);
                        self.in_const_fn = outer;
                    } else if f.sig.abi.is_none() {
                        // A `const fn` that computes: stochastic arithmetic does not run in
                        // const evaluation, so it becomes a plain fn (a call in a constant is
                        // then reported by rustc at that call).
                        f.sig.constness = None;
                        visit_mut::visit_impl_item_fn_mut(self, f);
                    } else {
                        self.errors.push(err);
                    }
                    return;
                }
            }
            ImplItem::Const(c) => return self.rewrite_const(&mut c.ty, &mut c.expr),
            ImplItem::Macro(_) => return,
            _ => {}
        }
        visit_mut::visit_impl_item_mut(self, item);
    }

    fn visit_trait_item_mut(&mut self, item: &mut TraitItem) {
        let attrs = match item {
            TraitItem::Const(i) => &mut i.attrs,
            TraitItem::Fn(i) => &mut i.attrs,
            TraitItem::Type(i) => &mut i.attrs,
            TraitItem::Macro(i) => &mut i.attrs,
            _ => return,
        };
        if take_markers(attrs, &mut self.errors) {
            return;
        }
        match item {
            TraitItem::Fn(f) => {
                if let Some(err) = fn_misuse(&f.sig, true) {
                    if const_fn_ok(&f.sig, f.default.as_ref()) {
                        let outer = std::mem::replace(&mut self.in_const_fn, true);
                        visit_mut::visit_trait_item_fn_mut(self, f);
                        self.in_const_fn = outer;
                    } else if f.sig.abi.is_none() {
                        // A `const fn` that computes: stochastic arithmetic does not run in
                        // const evaluation, so it becomes a plain fn (a call in a constant is
                        // then reported by rustc at that call).
                        f.sig.constness = None;
                        visit_mut::visit_trait_item_fn_mut(self, f);
                    } else {
                        self.errors.push(err);
                    }
                    return;
                }
            }
            TraitItem::Const(c) => {
                match &mut c.default {
                    Some((_, expr)) => self.rewrite_const(&mut c.ty, expr),
                    None => self.visit_type_mut(&mut c.ty),
                }
                return;
            }
            TraitItem::Macro(_) => return,
            _ => {}
        }
        visit_mut::visit_trait_item_mut(self, item);
    }

    fn visit_stmt_mut(&mut self, stmt: &mut Stmt) {
        if let Stmt::Local(local) = stmt {
            if take_markers(&mut local.attrs, &mut self.errors) {
                return;
            }
        }
        visit_mut::visit_stmt_mut(self, stmt);
    }

    /// Attributes are left as written (`#[doc = ..]`, `#[allow(..)]`, ...).
    fn visit_attribute_mut(&mut self, _: &mut Attribute) {}

    /// Patterns keep their literals (`0.0 =>` cannot match a stochastic value anyway, and
    /// rewriting it would only change the error); types inside patterns are rewritten.
    fn visit_pat_mut(&mut self, pat: &mut Pat) {
        match pat {
            Pat::Lit(_) | Pat::Range(_) | Pat::Const(_) | Pat::Macro(_) => {}
            _ => visit_mut::visit_pat_mut(self, pat),
        }
    }

    fn visit_type_mut(&mut self, ty: &mut Type) {
        match ty {
            Type::Path(p) if p.qself.is_none() => {
                if let Some(kind) = p
                    .path
                    .get_ident()
                    .and_then(|i| FloatKind::from_name(&i.to_string()))
                {
                    *ty = stoch_type(kind, p.span());
                    return;
                }
                if is_stoch_path(&p.path) {
                    return;
                }
            }
            // The length is an integer constant expression.
            Type::Array(a) => return self.visit_type_mut(&mut a.elem),
            Type::Macro(_) => return,
            _ => {}
        }
        visit_mut::visit_type_mut(self, ty);
    }

    fn visit_generic_argument_mut(&mut self, arg: &mut GenericArgument) {
        match arg {
            GenericArgument::Const(_) | GenericArgument::AssocConst(_) => {}
            _ => visit_mut::visit_generic_argument_mut(self, arg),
        }
    }

    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        match expr {
            Expr::Lit(_) | Expr::Unary(_) if self.in_const_fn && is_literal(expr) => {
                if let Some(kind) = self.literal_kind(expr) {
                    let span = expr.span();
                    let f = kind.const_fn(span);
                    *expr = gen_expr!(span=> ::stoch_core::__private::#f(#expr));
                }
                return;
            }
            Expr::Lit(lit) => {
                let new = match &lit.lit {
                    syn::Lit::Float(f) => Self::float_literal(f),
                    syn::Lit::Int(i) => Self::int_float_literal(i),
                    _ => None,
                };
                if let Some(new) = new {
                    *expr = new;
                }
                return;
            }
            Expr::Cast(cast) => {
                if let Some(new) = self.rewrite_cast(cast) {
                    *expr = new;
                }
                return;
            }
            Expr::Path(p) => {
                if p.qself.is_none() && is_stoch_path(&p.path) {
                    return;
                }
                if let Some(new) = self.rewrite_path(p) {
                    *expr = new;
                    return;
                }
                if is_std_const_name(p) {
                    let span = p.span();
                    *expr = gen_expr!(span=> ::stoch_core::__private::promote(#p));
                    return;
                }
            }
            // Our own expansions (a nested or repeated `#[stochastic]`): already rewritten; and
            // the user's calls into stoch-core (`Sf64::with_relative_error(1.0, 1e-3)`), whose
            // arguments are plain values.
            Expr::Call(call) if is_generated(&call.func) || is_stoch_api(&call.func) => return,
            // `[0.0; N]`: the length is an integer constant expression.
            Expr::Repeat(r) => return self.visit_expr_mut(&mut r.expr),
            Expr::Binary(b) if is_compound_assign(&b.op) && !is_local(&b.left) => {
                visit_mut::visit_expr_binary_mut(self, b);
                // `v[1] += v[0]`, `aug[k][j] -= aug[r][j] * mult`: for `f64`, `op=` evaluates
                // the right side first; the trait call that replaces it borrows the place first
                // (E0502). Evaluating the right side into a temporary keeps the primitive order.
                let span = b.op.span();
                let tmp = Ident::new("__stoch_rhs", Span::mixed_site().located_at(span));
                let (left, op, right) = (&b.left, &b.op, &b.right);
                *expr = gen_expr!(span=> { let #tmp = #right; #left #op #tmp; });
                return;
            }
            Expr::Const(_) => return,
            _ => {}
        }
        visit_mut::visit_expr_mut(self, expr);
    }

    fn visit_macro_mut(&mut self, mac: &mut Macro) {
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
}
