//! The first pass over the item, before anything is rewritten: the float constants, float
//! aliases and structs it declares (outside skipped items), the float type it mentions most
//! plainly, and the self type of an impl.

use std::collections::HashMap;

use syn::visit::{self, Visit};
use syn::{Attribute, Ident, Item, LitFloat, Type};

use super::markers::has_skip_marker;
use super::types::{scalar_float, type_name, FloatKind};
use super::Rewrite;
use crate::error::Errors;

impl Rewrite {
    /// A visitor for `item`, after a first pass that finds the float constants and aliases it
    /// declares.
    pub(crate) fn new(item: &Item) -> Self {
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
}

/// The declarations of the item, outside the items marked to be skipped.
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

/// Whether the item names `f32` (`.0`) and `f64` (`.1`), in types or literal suffixes.
struct Kinds(bool, bool);

impl Kinds {
    fn suffix(&mut self, suffix: &str) {
        match suffix {
            "f32" => self.0 = true,
            "f64" => self.1 = true,
            _ => {}
        }
    }
}

impl Visit<'_> for Kinds {
    fn visit_type(&mut self, ty: &Type) {
        match scalar_float(ty) {
            Some(FloatKind::F32) => self.0 = true,
            Some(FloatKind::F64) => self.1 = true,
            None => visit::visit_type(self, ty),
        }
    }
    fn visit_lit_float(&mut self, lit: &LitFloat) {
        self.suffix(lit.suffix());
    }
    fn visit_lit_int(&mut self, lit: &syn::LitInt) {
        self.suffix(lit.suffix());
    }
}
