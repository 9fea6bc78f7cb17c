//! Names carve gives to items, shared by `#[carve::target]` and
//! `#[carve::instrument]` (both name a method `Type::method`).

use syn::{ItemImpl, Type};

/// `Account` for `impl Account` (or `impl Trait for Account`).
pub fn self_type_name(item: &ItemImpl) -> syn::Result<String> {
    match &*item.self_ty {
        Type::Path(p) if p.qself.is_none() => p.path.segments.last().map(|s| s.ident.to_string()),
        _ => None,
    }
    .ok_or_else(|| {
        syn::Error::new_spanned(
            &item.self_ty,
            "carve handles methods of a named type only (`impl Account`)",
        )
    })
}
