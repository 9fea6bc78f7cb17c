//! Attribute macros of [carve](https://docs.rs/carve). Use them through the
//! `carve` crate (`#[carve::target]`, `#[carve::system_test]`), which also
//! holds everything the expanded code calls: this crate only parses, checks
//! and emits code.
//!
//! Each macro works in three steps, as serde_derive does: parse the item,
//! check it (collecting every error with the span of the offending tokens),
//! and expand.

mod instrument;
mod params;
mod system_test;
mod target;

use proc_macro::TokenStream;

/// See `carve::target`.
#[proc_macro_attribute]
pub fn target(attr: TokenStream, item: TokenStream) -> TokenStream {
    target::expand(attr.into(), item.into())
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// See `carve::instrument`.
#[proc_macro_attribute]
pub fn instrument(attr: TokenStream, item: TokenStream) -> TokenStream {
    instrument::expand(attr.into(), item.into())
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// See `carve::system_test`.
#[proc_macro_attribute]
pub fn system_test(attr: TokenStream, item: TokenStream) -> TokenStream {
    system_test::expand(attr.into(), item.into())
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// Collects errors so that one expansion reports all of them at once.
#[derive(Default)]
struct Errors(Option<syn::Error>);

impl Errors {
    fn push(&mut self, error: syn::Error) {
        match &mut self.0 {
            Some(all) => all.combine(error),
            None => self.0 = Some(error),
        }
    }

    fn spanned(&mut self, tokens: impl quote::ToTokens, message: impl std::fmt::Display) {
        self.push(syn::Error::new_spanned(tokens, message));
    }

    fn check(self) -> syn::Result<()> {
        self.0.map_or(Ok(()), Err)
    }
}
