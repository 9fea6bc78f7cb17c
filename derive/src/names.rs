//! Names carve gives to items, shared by `#[carve::target]` and
//! `#[carve::instrument]` (both name a method `Type::method`).

use quote::ToTokens;
use syn::visit_mut::VisitMut;
use syn::{ItemImpl, Type};

/// `Account` for `impl Account` (or `impl Trait for Account`), `[u8]` for
/// `impl Trait for [u8]`.
pub fn self_type_name(item: &ItemImpl) -> syn::Result<String> {
    match peel(&item.self_ty) {
        Type::Path(p) if p.qself.is_none() => p.path.segments.last().map(|s| s.ident.to_string()),
        // Extension traits of slices and arrays (`impl Checksum for [u8]`).
        ty @ (Type::Slice(_) | Type::Array(_)) => Some(short_type(ty)),
        // Operators on references (`impl BitAnd for &FixedBitSet`), named
        // apart from the same trait's impl for the type itself.
        ty @ Type::Reference(r)
            if r.mutability.is_none()
                && matches!(peel(&r.elem), Type::Path(p) if p.qself.is_none()) =>
        {
            Some(short_type(ty))
        }
        _ => None,
    }
    .ok_or_else(|| match mut_ref_of_named(&item.self_ty) {
        // form_urlencoded's `impl Target for &mut String`: its receivers
        // are a `&mut String` moved in and a `&mut &mut String`.
        true => syn::Error::new_spanned(
            &item.self_ty,
            format!(
                "carve cannot carve the methods of an impl for a mutable reference (`{}`): \
                 it carves methods of a named type, a shared reference to one, a slice or an \
                 array (`impl Account`, `impl BitAnd for &Bits`, `impl Checksum for [u8]`). \
                 Remove `carve::target` from this block, or write `carve::instrument` \
                 instead to measure its branch coverage",
                short_type(&item.self_ty)
            ),
        ),
        false => syn::Error::new_spanned(
            &item.self_ty,
            "carve handles methods of a named type, a reference to one, a slice or an array only (`impl Account`, `impl BitAnd for &Bits`, `impl Checksum for [u8]`)",
        ),
    })
}

/// Whether `ty` is `&mut` of a named type (`&mut String`).
fn mut_ref_of_named(ty: &Type) -> bool {
    matches!(peel(ty), Type::Reference(r)
        if r.mutability.is_some() && matches!(peel(&r.elem), Type::Path(p) if p.qself.is_none()))
}

/// The name `#[carve::instrument]` gives an impl block's type: as
/// [`self_type_name`], and also `&mut String` for `impl Target for &mut
/// String`, whose methods carve measures but does not carve.
pub fn helper_type_name(item: &ItemImpl) -> syn::Result<String> {
    self_type_name(item).or_else(|e| match mut_ref_of_named(&item.self_ty) {
        true => Ok(short_type(peel(&item.self_ty))),
        false => Err(e),
    })
}

/// `ty` without the invisible group a macro's `$t:ty` puts around it (an
/// `impl Trait for $t` expanded once per type, as itoa's `impl_Integer!`)
/// and without parentheses.
pub fn peel(mut ty: &Type) -> &Type {
    loop {
        match ty {
            Type::Group(g) => ty = &g.elem,
            Type::Paren(p) => ty = &p.elem,
            _ => return ty,
        }
    }
}

/// A type as carve writes it in a target's name: each path by its last
/// segment, no lifetimes (`String`, `Vec<u8>`, `&str`), so that the name
/// holds no `::` (its separator).
pub fn short_type(ty: &Type) -> String {
    let mut ty = ty.clone();
    ShortPaths.visit_type_mut(&mut ty);
    tidy(&ty.to_token_stream().to_string())
}

/// A trait as carve writes it in a target's name, shortened as
/// [`short_type`] shortens types (`From<u32>`, `From<Vec<String>>`).
pub fn short_path(path: &syn::Path) -> String {
    let mut path = path.clone();
    ShortPaths.visit_path_mut(&mut path);
    tidy(&path.to_token_stream().to_string())
}

/// Shortens every path to its last segment and drops lifetimes.
struct ShortPaths;

impl VisitMut for ShortPaths {
    fn visit_path_mut(&mut self, path: &mut syn::Path) {
        if let Some(last) = path.segments.pop() {
            path.segments = std::iter::once(last).collect();
            path.leading_colon = None;
        }
        syn::visit_mut::visit_path_mut(self, path);
    }
    fn visit_type_path_mut(&mut self, ty: &mut syn::TypePath) {
        ty.qself = None;
        syn::visit_mut::visit_type_path_mut(self, ty);
    }
    fn visit_type_reference_mut(&mut self, ty: &mut syn::TypeReference) {
        ty.lifetime = None;
        syn::visit_mut::visit_type_reference_mut(self, ty);
    }
    fn visit_angle_bracketed_generic_arguments_mut(
        &mut self,
        args: &mut syn::AngleBracketedGenericArguments,
    ) {
        args.args = std::mem::take(&mut args.args)
            .into_iter()
            .filter(|a| !matches!(a, syn::GenericArgument::Lifetime(_)))
            .collect();
        syn::visit_mut::visit_angle_bracketed_generic_arguments_mut(self, args);
    }
    fn visit_path_segment_mut(&mut self, segment: &mut syn::PathSegment) {
        syn::visit_mut::visit_path_segment_mut(self, segment);
        // Only lifetimes were there (`Chars<'a>`): no brackets left behind.
        if matches!(&segment.arguments, syn::PathArguments::AngleBracketed(a) if a.args.is_empty())
        {
            segment.arguments = syn::PathArguments::None;
        }
    }
}

/// Token text without the spaces `to_string` puts inside types.
fn tidy(text: &str) -> String {
    let mut name = text.to_owned();
    for (from, to) in [
        (" <", "<"),
        ("< ", "<"),
        (" >", ">"),
        (" ,", ","),
        ("& ", "&"),
        ("( ", "("),
        (" )", ")"),
        ("[ ", "["),
        (" ]", "]"),
        (" ;", ";"),
        (" (", "("),
    ] {
        name = name.replace(from, to);
    }
    name
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_drop_lifetimes_and_the_brackets_they_leave_empty() {
        let ty: Type = syn::parse_quote!(std::str::Chars<'a>);
        assert_eq!(short_type(&ty), "Chars");
        let ty: Type = syn::parse_quote!(&'a Cow<'a, str>);
        assert_eq!(short_type(&ty), "&Cow<str>");
        let path: syn::Path = syn::parse_quote!(crate::UnicodeNormalization<std::str::Chars<'a>>);
        assert_eq!(short_path(&path), "UnicodeNormalization<Chars>");
    }
}
