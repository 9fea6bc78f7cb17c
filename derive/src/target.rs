//! `#[carve::target]`: wraps a function (or the methods of an impl block) so
//! that its calls are carved, and registers it with a replay function.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::{
    Attribute, Block, ImplItem, Item, ItemFn, ItemImpl, ReturnType, Signature, Type, Visibility,
};

use crate::instrument::{instrument_fn, Instrumented};
use crate::outcome::capture_closure;
use crate::params::{analyze, display_signature, Param, Pass};
use crate::Errors;

pub fn expand(attr: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    let mut errors = Errors::default();
    if !attr.is_empty() {
        errors.spanned(attr, "`#[carve::target]` takes no arguments");
    }
    match syn::parse2::<Item>(item) {
        Ok(Item::Fn(item)) => expand_fn(item, errors),
        Ok(Item::Impl(item)) => expand_impl(item, errors),
        Ok(other) => Err(errors.fail(syn::Error::new_spanned(
            other,
            "`#[carve::target]` goes on a function or an impl block",
        ))),
        Err(e) => Err(errors.fail(e)),
    }
}

/// The item kept when expansion fails: the methods of an impl block lose
/// their `#[carve::target]` markers, which would otherwise expand on their
/// own and fail again.
pub fn keep(item: TokenStream) -> TokenStream {
    match syn::parse2::<ItemImpl>(item.clone()) {
        Ok(mut item) => {
            for impl_item in &mut item.items {
                if let ImplItem::Fn(method) = impl_item {
                    take_target_markers(&mut method.attrs);
                }
            }
            item.into_token_stream()
        }
        Err(_) => item,
    }
}

/// One target function, checked and ready to expand.
struct TargetFn {
    sig: Signature,
    params: Vec<Param>,
    /// `cgi_decode`, or `Account::withdraw`.
    fn_name: String,
    /// The static holding its registration.
    static_ident: syn::Ident,
    /// How replay calls it.
    call_path: TokenStream,
    /// The signature as the user wrote it.
    display: String,
    records_after: bool,
    /// The static holding its branch site table.
    sites_ident: syn::Ident,
}

impl TargetFn {
    fn new(
        mut sig: Signature,
        self_ty: Option<(&Type, &str)>,
        call_path: TokenStream,
        errors: &mut Errors,
    ) -> TargetFn {
        let display = display_signature(&sig);
        let params = analyze(&mut sig, self_ty.map(|(ty, _)| ty), errors);
        let ident = sig.ident.to_string();
        let ident = ident.trim_start_matches("r#");
        let (fn_name, static_ident, sites_ident) = match self_ty {
            Some((_, type_name)) => (
                format!("{type_name}::{ident}"),
                format_ident!("__CARVE_TARGET_{}_{}", type_name, ident),
                crate::instrument::sites_ident(Some(type_name), &sig.ident),
            ),
            None => (
                ident.to_owned(),
                format_ident!("__CARVE_TARGET_{}", ident),
                crate::instrument::sites_ident(None, &sig.ident),
            ),
        };
        // A return value that borrows from the call's arguments keeps a `&mut`
        // argument borrowed, so its state after the call cannot be read then.
        let returns_borrow = match &sig.output {
            ReturnType::Default => false,
            ReturnType::Type(_, ty) => ty.to_token_stream().into_iter().any(|t| {
                matches!(&t, proc_macro2::TokenTree::Punct(p) if p.as_char() == '&' || p.as_char() == '\'')
            }),
        };
        let records_after = !returns_borrow && params.iter().any(|p| p.pass == Pass::RefMut);
        TargetFn {
            sig,
            params,
            fn_name,
            static_ident,
            call_path,
            display,
            records_after,
            sites_ident,
        }
    }

    /// The body: capture arguments when recording, run the original body (or
    /// its instrumented twin while coverage is collected). Also returns the
    /// site table static.
    fn body(&self, block: &Block) -> (Block, TokenStream) {
        let Instrumented {
            body: block,
            sites_static,
        } = instrument_fn(block, &self.sites_ident, &self.fn_name, &self.sig.output);
        let static_ident = &self.static_ident;
        let captures = self.params.iter().map(|p| {
            let (name, form, view) = (&p.name, p.form(), p.view(&p.binding));
            quote!(__carve_args.arg(#name, #form.capture(#view));)
        });
        let destructure = self.params.iter().filter_map(|p| {
            let binding = &p.binding;
            p.pattern.as_ref().map(|pat| quote!(let #pat = #binding;))
        });
        let afters = self.after_params().map(|p| {
            let (name, form, binding) = (&p.name, p.form(), &p.binding);
            quote!(__carve_after.arg(#name, #form.capture(&*#binding));)
        });
        let checks = self
            .params
            .iter()
            .map(|p| rebuild_check(p, p.view(&p.binding)));
        let after_checks = self.after_params().map(|p| {
            let binding = &p.binding;
            rebuild_check(p, quote!(&*#binding))
        });
        let ret = match &self.sig.output {
            ReturnType::Default => quote!(()),
            ReturnType::Type(_, ty) => ty.to_token_stream(),
        };
        let capture = capture_closure(self.return_type(), true, true);
        let body = syn::parse_quote!({
            let __carve_frame = if ::carve::_macro_support::is_recording() {
                ::carve::_macro_support::begin(
                    &#static_ident,
                    |__carve_args| { #(#captures)* },
                    |__carve_check| { #(#checks)* },
                )
            } else {
                ::core::option::Option::None
            };
            #(#destructure)*
            let __carve_body = || -> #ret #block;
            match __carve_frame {
                ::core::option::Option::None => ::carve::_macro_support::call_once(__carve_body),
                ::core::option::Option::Some(__carve_frame) => __carve_frame.finish(
                    ::std::panic::catch_unwind(::std::panic::AssertUnwindSafe(__carve_body)),
                    #capture,
                    |__carve_after| { #(#afters)* },
                    |__carve_check| { #(#after_checks)* },
                ),
            }
        });
        (body, sites_static)
    }

    /// The return type, `None` for `()` written as nothing.
    fn return_type(&self) -> Option<&Type> {
        match &self.sig.output {
            ReturnType::Default => None,
            ReturnType::Type(_, ty) => Some(ty),
        }
    }

    fn after_params(&self) -> impl Iterator<Item = &Param> {
        self.params
            .iter()
            .filter(move |p| self.records_after && p.pass == Pass::RefMut)
    }

    /// The registration static and its replay function.
    fn registration(&self) -> TokenStream {
        let Self {
            static_ident,
            fn_name,
            display,
            call_path,
            sites_ident,
            ..
        } = self;
        let fields: Vec<_> = (0..self.params.len())
            .map(|i| format_ident!("__carve_p{}", i))
            .collect();
        let names = self.params.iter().map(|p| &p.name);
        let trace_names = self.params.iter().map(|p| &p.name);
        let owned: Vec<_> = self.params.iter().map(|p| &p.owned).collect();
        let checks = self.params.iter().map(|p| {
            let form = p.form();
            quote_spanned!(p.span=> #form.check();)
        });
        let ser_fns: Vec<_> = (0..self.params.len())
            .map(|i| format_ident!("__carve_ser{}", i))
            .collect();
        let de_fns: Vec<_> = (0..self.params.len())
            .map(|i| format_ident!("__carve_de{}", i))
            .collect();
        let (ser_names, de_names) = (
            ser_fns.iter().map(|f| f.to_string()),
            de_fns.iter().map(|f| f.to_string()),
        );
        let forms: Vec<_> = self.params.iter().map(|p| p.form()).collect();
        let pass = self.params.iter().zip(&fields).map(|(p, f)| p.pass(f));
        let afters = self.params.iter().zip(&fields).filter_map(|(p, f)| {
            let (name, form) = (&p.name, p.form());
            (self.records_after && p.pass == Pass::RefMut)
                .then(|| quote!(__carve_after.arg(#name, #form.capture(&#f));))
        });
        let capture = capture_closure(self.return_type(), false, false);
        let has_after = self.records_after;
        let line = quote_spanned!(self.sig.ident.span()=> ::core::line!());
        quote! {
            #[doc(hidden)]
            #[allow(non_upper_case_globals)]
            static #static_ident: ::carve::_macro_support::Target = ::carve::_macro_support::Target {
                module_path: ::core::module_path!(),
                fn_name: #fn_name,
                signature: #display,
                file: ::core::file!(),
                line: #line,
                sites: &#sites_ident,
                replay: {
                    #[allow(unused_mut, non_snake_case, non_camel_case_types, clippy::needless_borrow)]
                    fn __carve_replay(__carve_input: ::carve::_macro_support::ArgsInput<'_>) -> ::carve::_macro_support::ReplayResult {
                        #(#checks)*
                        #(
                            fn #ser_fns<S: ::carve::_macro_support::serde::Serializer>(
                                v: &#owned,
                                s: S,
                            ) -> ::core::result::Result<S::Ok, S::Error> {
                                #forms.serialize(v, s)
                            }
                            fn #de_fns<'de, D: ::carve::_macro_support::serde::Deserializer<'de>>(
                                d: D,
                            ) -> ::core::result::Result<#owned, D::Error> {
                                #forms.deserialize(d)
                            }
                        )*
                        #[derive(::carve::_macro_support::serde::Serialize, ::carve::_macro_support::serde::Deserialize)]
                        #[serde(crate = "::carve::_macro_support::serde", rename(serialize = "__carve_unnamed", deserialize = "arguments"), deny_unknown_fields)]
                        struct arguments { #( #[serde(rename = #names, serialize_with = #ser_names, deserialize_with = #de_names)] #fields: #owned, )* }
                        // Rebuilding and capturing the arguments is not the call: it
                        // runs outside its coverage (`setup`); the call and the capture
                        // of what it returned are the outcome.
                        let (__carve_args, __carve_args_value) = ::carve::_macro_support::setup(|| {
                            let __carve_args: arguments = ::carve::_macro_support::parse_args(__carve_input)?;
                            let __carve_value = __carve_input.to_value(&__carve_args)?;
                            ::core::result::Result::Ok::<_, ::carve::_macro_support::ReplayError>((__carve_args, __carve_value))
                        })?;
                        let arguments { #( #fields: mut #fields, )* } = __carve_args;
                        let __carve_outcome = ::carve::_macro_support::observe(|| #call_path(#(#pass),*), #capture);
                        let mut __carve_after = ::carve::_macro_support::ArgsBuilder::default();
                        ::carve::_macro_support::setup(|| { #(#afters)* });
                        ::carve::_macro_support::replayed(__carve_args_value, __carve_outcome, __carve_after, #has_after)
                    }
                    __carve_replay
                },
                trace: {
                    #[allow(unused_mut, non_snake_case, clippy::needless_borrow)]
                    fn __carve_trace(__carve_types: &mut ::carve::_macro_support::ParamTypes) {
                        #( __carve_types.param(#trace_names, #forms.trace()); )*
                    }
                    __carve_trace
                },
            };
            ::carve::_macro_support::inventory::submit! { ::carve::_macro_support::TargetRef(&#static_ident) }
        }
    }
}

/// Generated code checking, at record time, that parameter `p` (its value
/// `view`, a reference) rebuilds from its carved form as replay rebuilds it
/// (see the runtime's `RebuildCheck`).
fn rebuild_check(p: &Param, view: TokenStream) -> TokenStream {
    let (name, form, owned) = (&p.name, p.form(), &p.owned);
    quote!(__carve_check.param(
        #name,
        |__carve_d| #form.deserialize(__carve_d),
        |__carve_r: &#owned, __carve_w: &::carve::_macro_support::Value| {
            #[allow(unused_imports)]
            use ::carve::_macro_support::{SameByDebug as _, SameByForm as _};
            (&&::carve::_macro_support::SameProbe(#view, __carve_r))
                .same(|__carve_r| #form.capture(__carve_r), __carve_w)
        },
    );)
}

fn expand_fn(mut item: ItemFn, mut errors: Errors) -> syn::Result<TokenStream> {
    let ident = &item.sig.ident;
    let target = TargetFn::new(item.sig.clone(), None, quote!(#ident), &mut errors);
    errors.check()?;
    let (body, sites) = target.body(&item.block);
    *item.block = body;
    item.sig = target.sig.clone();
    let registration = target.registration();
    Ok(quote!(#item #registration #sites))
}

fn is_target_path(path: &syn::Path) -> bool {
    path.is_ident("target")
        || (path.segments.len() == 2
            && path.segments[0].ident == "carve"
            && path.segments[1].ident == "target")
}

/// Whether `attr` marks a method as a target: `#[carve::target]`, or
/// `#[cfg_attr(feature = "carve", carve::target)]` (inner attributes reach
/// the impl block's macro before their `cfg_attr` is expanded).
fn is_target_attr(attr: &Attribute) -> bool {
    is_target_path(attr.path())
        || cfg_attr_parts(attr)
            .is_some_and(|(_, metas)| metas.iter().any(|m| is_target_path(m.path())))
}

/// The predicate and attributes of a `#[cfg_attr(predicate, attr, …)]`.
fn cfg_attr_parts(attr: &Attribute) -> Option<(syn::Meta, Vec<syn::Meta>)> {
    if !attr.path().is_ident("cfg_attr") {
        return None;
    }
    let parts = attr
        .parse_args_with(syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated)
        .ok()?;
    let mut parts = parts.into_iter();
    Some((parts.next()?, parts.collect()))
}

/// Removes the target markers from a method's attributes, keeping whatever
/// else a `cfg_attr` holds; says whether there was one.
fn take_target_markers(attrs: &mut Vec<Attribute>) -> bool {
    let marked = attrs.iter().any(is_target_attr);
    attrs.retain_mut(|attr| {
        if is_target_path(attr.path()) {
            return false;
        }
        let Some((predicate, metas)) = cfg_attr_parts(attr) else {
            return true;
        };
        let rest: Vec<_> = metas
            .into_iter()
            .filter(|m| !is_target_path(m.path()))
            .collect();
        if rest.is_empty() {
            return false;
        }
        *attr = syn::parse_quote!(#[cfg_attr(#predicate, #(#rest),*)]);
        true
    });
    marked
}

fn expand_impl(mut item: ItemImpl, mut errors: Errors) -> syn::Result<TokenStream> {
    if !item.generics.params.is_empty() {
        errors.spanned(
            &item.generics,
            "carve cannot carve methods of a generic impl block: carve a concrete function that calls them",
        );
    }
    // Without a name the methods are still checked, so that their errors
    // are reported with this one.
    let type_name = self_type_name(&item).unwrap_or_else(|e| {
        errors.push(e);
        String::new()
    });
    let self_ty = (*item.self_ty).clone();
    let call_prefix = match &item.trait_ {
        Some((path, _)) => quote!(<#self_ty as #path>::),
        None => quote!(<#self_ty>::),
    };
    let any_marked = item
        .items
        .iter()
        .any(|i| matches!(i, ImplItem::Fn(f) if f.attrs.iter().any(is_target_attr)));
    let mut registrations = Vec::new();
    for impl_item in &mut item.items {
        let ImplItem::Fn(method) = impl_item else {
            continue;
        };
        let marked = take_target_markers(&mut method.attrs);
        let carved = if any_marked {
            marked
        } else {
            item.trait_.is_some() || matches!(method.vis, Visibility::Public(_))
        };
        if !carved {
            // The methods a target calls count for its coverage too.
            registrations.extend(crate::instrument::instrument_method(method, &type_name));
            continue;
        }
        let ident = &method.sig.ident;
        let target = TargetFn::new(
            method.sig.clone(),
            Some((&self_ty, &type_name)),
            quote!(#call_prefix #ident),
            &mut errors,
        );
        let (body, sites) = target.body(&method.block);
        method.block = body;
        method.sig = target.sig.clone();
        registrations.push(target.registration());
        registrations.push(sites);
    }
    errors.check()?;
    Ok(quote!(#item #(#registrations)*))
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cfg_attr_target_markers_are_taken_and_other_attributes_kept() {
        let mut attrs: Vec<Attribute> = vec![
            syn::parse_quote!(#[cfg_attr(feature = "carve", carve::target, inline)]),
            syn::parse_quote!(#[doc = "x"]),
        ];
        assert!(take_target_markers(&mut attrs));
        let kept: Vec<String> = attrs
            .iter()
            .map(|a| a.to_token_stream().to_string())
            .collect();
        assert_eq!(
            kept,
            [
                "# [cfg_attr (feature = \"carve\" , inline)]",
                "# [doc = \"x\"]"
            ]
        );
        let mut attrs: Vec<Attribute> = vec![syn::parse_quote!(#[cfg_attr(test, derive(Debug))])];
        assert!(!take_target_markers(&mut attrs));
        assert_eq!(attrs.len(), 1);
    }
}
