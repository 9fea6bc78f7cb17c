//! `#[carve::system_test]`: registers a test function with carve's harness.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::{Expr, ItemFn, Lit, Meta};

use crate::Errors;

pub fn expand(attr: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    let mut errors = Errors::default();
    // `runtime = "tokio"`: an `async` test runs on tokio (carve's feature
    // `tokio`), else on carve's own executor.
    let mut tokio = false;
    if !attr.is_empty() {
        match syn::parse2::<syn::MetaNameValue>(attr.clone()) {
            Ok(nv)
                if nv.path.is_ident("runtime")
                    && matches!(&nv.value, Expr::Lit(l) if matches!(&l.lit, Lit::Str(s) if s.value() == "tokio")) =>
            {
                tokio = true;
            }
            _ => errors.spanned(
                attr,
                "`#[carve::system_test]` takes nothing, or `runtime = \"tokio\"` on an `async fn` test",
            ),
        }
    }
    let item: ItemFn = match syn::parse2(item) {
        Ok(item) => item,
        Err(e) => return Err(errors.fail(e)),
    };
    if !item.sig.inputs.is_empty() {
        errors.spanned(&item.sig.inputs, "a system test takes no arguments");
    }
    if !item.sig.generics.params.is_empty() {
        errors.spanned(&item.sig.generics, "a system test cannot be generic");
    }
    if tokio && item.sig.asyncness.is_none() {
        errors.spanned(
            item.sig.fn_token,
            "`runtime = \"tokio\"` is for an `async fn` system test: make it `async` or remove `runtime`",
        );
    }
    let mut ignored = false;
    let mut should_panic = quote!(::core::option::Option::None);
    for attr in &item.attrs {
        if attr.path().is_ident("ignore") {
            ignored = true;
        } else if attr.path().is_ident("should_panic") {
            match expected_panic(&attr.meta) {
                Ok(expected) => should_panic = quote!(::core::option::Option::Some(#expected)),
                Err(e) => errors.push(e),
            }
        }
    }
    errors.check()?;
    let ident = item.sig.ident.clone();
    let item_async = item.sig.asyncness.is_some();
    let item = plain(item);
    let name = ident.to_string();
    let static_ident = format_ident!("__CARVE_SYSTEM_TEST_{}", ident);
    let call = match (&item_async, tokio) {
        (false, _) => quote!(#ident()),
        (true, false) => quote!(::carve::_macro_support::block_on(#ident())),
        (true, true) => quote!(::carve::_macro_support::block_on_tokio(#ident())),
    };
    Ok(quote! {
        #item
        #[doc(hidden)]
        #[allow(non_upper_case_globals)]
        static #static_ident: ::carve::_macro_support::SystemTest = ::carve::_macro_support::SystemTest {
            module_path: ::core::module_path!(),
            fn_name: #name,
            ignored: #ignored,
            should_panic: #should_panic,
            run: {
                fn __carve_run() -> ::core::result::Result<(), ::std::string::String> {
                    ::carve::_macro_support::TestResult::into_test_result(#call)
                }
                __carve_run
            },
        };
        ::carve::_macro_support::inventory::submit! { ::carve::_macro_support::SystemTestRef(&#static_ident) }
    })
}

/// The item kept when expansion fails: the function, not registered.
pub fn keep(item: TokenStream) -> TokenStream {
    match syn::parse2::<ItemFn>(item.clone()) {
        Ok(item) => plain(item),
        Err(_) => item,
    }
}

/// The test function without the attributes carve reads; only carve's
/// harness calls it.
fn plain(mut item: ItemFn) -> TokenStream {
    item.attrs
        .retain(|a| !a.path().is_ident("ignore") && !a.path().is_ident("should_panic"));
    quote! {
        #[allow(dead_code)]
        #item
    }
}

/// `#[should_panic]` → `""`; `#[should_panic = "x"]` or `#[should_panic(expected = "x")]` → `"x"`.
fn expected_panic(meta: &Meta) -> syn::Result<String> {
    let string = |expr: &Expr| match expr {
        Expr::Lit(l) => match &l.lit {
            Lit::Str(s) => Ok(s.value()),
            _ => Err(syn::Error::new_spanned(expr, "expected a string")),
        },
        _ => Err(syn::Error::new_spanned(expr, "expected a string")),
    };
    match meta {
        Meta::Path(_) => Ok(String::new()),
        Meta::NameValue(nv) => string(&nv.value),
        Meta::List(list) => {
            let nv: syn::MetaNameValue = list.parse_args()?;
            if !nv.path.is_ident("expected") {
                return Err(syn::Error::new_spanned(
                    nv.path,
                    "expected `expected = \"…\"`",
                ));
            }
            string(&nv.value)
        }
    }
}
