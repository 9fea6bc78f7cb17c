//! Reading the attributes on an item that carve's own attributes care
//! about: a `cfg_attr`'s parts, and a second carve attribute on an item
//! one already marks. Shared by `#[carve::target]` and
//! `#[carve::instrument]`.

use syn::Attribute;

/// A second carve attribute on an item one already marks (`by`,
/// `#[carve::target]` or `#[carve::instrument]`): another
/// `#[carve::target]` or `#[carve::instrument]` among the item's remaining
/// attributes, as such or in a `cfg_attr` (a line copied twice). Expanded
/// over the first one's output, it would instrument carve's own generated
/// code and fail with errors about it; the error names the function
/// instead. Only `carve::`-qualified paths count: a bare `#[instrument]` is
/// tracing's.
pub(crate) fn marked_again(
    attrs: &[Attribute],
    by: &str,
    function: &syn::Ident,
) -> Option<syn::Error> {
    let qualified = |path: &syn::Path| {
        path.segments.len() == 2
            && path.segments[0].ident == "carve"
            && ["target", "instrument"]
                .iter()
                .any(|n| path.segments[1].ident == n)
    };
    let again = attrs.iter().find(|attr| {
        qualified(attr.path())
            || cfg_attr_parts(attr)
                .is_some_and(|(_, metas)| metas.iter().any(|m| qualified(m.path())))
    })?;
    Some(syn::Error::new_spanned(
        again,
        format!(
            "`{function}` is already marked with `#[carve::{by}]`: mark a function once \
             (`#[carve::target]` instruments the body too; remove this attribute)"
        ),
    ))
}

/// The predicate and attributes of a `#[cfg_attr(predicate, attr, …)]`.
pub(crate) fn cfg_attr_parts(attr: &Attribute) -> Option<(syn::Meta, Vec<syn::Meta>)> {
    if !attr.path().is_ident("cfg_attr") {
        return None;
    }
    let parts = attr
        .parse_args_with(syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated)
        .ok()?;
    let mut parts = parts.into_iter();
    Some((parts.next()?, parts.collect()))
}
