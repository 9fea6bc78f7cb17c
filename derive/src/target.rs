//! `#[carve::target]`: wraps a function (or the methods of an impl block) so
//! that its calls are carved, and registers it with a replay function.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::visit_mut::VisitMut;
use syn::{
    Attribute, Block, ImplItem, Item, ItemFn, ItemImpl, ReturnType, Signature, Type, Visibility,
};

use crate::instrument::{instrument_fn, Instrumented};
use crate::names::self_type_name;
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
                    take_markers(&mut method.attrs, "instrument");
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
    /// `self_ty`: for a method, the impl's type (its lifetimes `'static`)
    /// and the name its methods are registered under (`Meters`, or
    /// `Meters::From<u32>` in a trait impl).
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
        let fn_name = match self_ty {
            Some((_, prefix)) => format!("{prefix}::{ident}"),
            None => ident.to_owned(),
        };
        // Both statics live in the function's body, where no other item
        // sees them: two impls of one type with methods of the same name
        // (`From<u32>`, `From<u16>`) do not clash.
        let static_ident = format_ident!("__CARVE_TARGET");
        let sites_ident = crate::instrument::sites_ident();
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
    /// its instrumented twin while coverage is collected). The registration
    /// and the site table are items at its start.
    fn body(&self, block: &Block) -> Block {
        let Instrumented {
            body: block,
            sites_static,
        } = instrument_fn(block, &self.sites_ident, &self.fn_name, &self.sig.output);
        let registration = self.registration();
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
        syn::parse_quote!({
            #registration
            #sites_static
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
        })
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
    if is_method(&item) {
        // Its registration would need the impl's type, which only the impl
        // block's attribute sees.
        return Err(errors.fail(syn::Error::new_spanned(
            &item.sig.ident,
            format!(
                "`#[carve::target]` on the method `{}` needs `#[carve::target]` on its impl \
                 block too: `#[carve::target] impl Type {{ #[carve::target] fn {}(…) }}` \
                 (the block carves only the methods marked in it)",
                item.sig.ident, item.sig.ident
            ),
        )));
    }
    let ident = &item.sig.ident;
    let target = TargetFn::new(item.sig.clone(), None, quote!(#ident), &mut errors);
    errors.check()?;
    *item.block = target.body(&item.block);
    item.sig = target.sig.clone();
    Ok(quote!(#item))
}

/// Whether a function given to `#[carve::target]` on its own is a method:
/// it has a receiver, or names `Self` outside the items nested in it.
fn is_method(item: &ItemFn) -> bool {
    struct FindSelf(bool);
    impl<'ast> syn::visit::Visit<'ast> for FindSelf {
        fn visit_ident(&mut self, ident: &'ast syn::Ident) {
            self.0 |= ident == "Self";
        }
        // A nested `impl` has a `Self` of its own.
        fn visit_item(&mut self, _: &'ast Item) {}
    }
    let mut find = FindSelf(item.sig.receiver().is_some());
    syn::visit::Visit::visit_signature(&mut find, &item.sig);
    syn::visit::Visit::visit_block(&mut find, &item.block);
    find.0
}

/// Whether `path` is `name` or `carve::name`.
fn is_carve_path(path: &syn::Path, name: &str) -> bool {
    path.is_ident(name)
        || (path.segments.len() == 2
            && path.segments[0].ident == "carve"
            && path.segments[1].ident == name)
}

/// Whether `attr` is the carve attribute `name` (`target`, `instrument`):
/// `#[carve::target]`, or `#[cfg_attr(feature = "carve", carve::target)]`
/// (inner attributes reach the impl block's macro before their `cfg_attr`
/// is expanded).
fn is_carve_attr(attr: &Attribute, name: &str) -> bool {
    is_carve_path(attr.path(), name)
        || cfg_attr_parts(attr)
            .is_some_and(|(_, metas)| metas.iter().any(|m| is_carve_path(m.path(), name)))
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

/// Removes the carve attributes `name` from a method's attributes, keeping
/// whatever else a `cfg_attr` holds; says whether there was one.
fn take_markers(attrs: &mut Vec<Attribute>, name: &str) -> bool {
    let marked = attrs.iter().any(|a| is_carve_attr(a, name));
    attrs.retain_mut(|attr| {
        if is_carve_path(attr.path(), name) {
            return false;
        }
        let Some((predicate, metas)) = cfg_attr_parts(attr) else {
            return true;
        };
        let rest: Vec<_> = metas
            .into_iter()
            .filter(|m| !is_carve_path(m.path(), name))
            .collect();
        if rest.is_empty() {
            return false;
        }
        *attr = syn::parse_quote!(#[cfg_attr(#predicate, #(#rest),*)]);
        true
    });
    marked
}

/// Removes the target markers from a method's attributes; says whether
/// there was one.
fn take_target_markers(attrs: &mut Vec<Attribute>) -> bool {
    take_markers(attrs, "target")
}

fn expand_impl(mut item: ItemImpl, mut errors: Errors) -> syn::Result<TokenStream> {
    // Lifetimes are fine: carved values own their data, and the statics
    // name the type with `'static` or elided lifetimes.
    if let Some(param) = item
        .generics
        .params
        .iter()
        .find(|p| !matches!(p, syn::GenericParam::Lifetime(_)))
    {
        errors.spanned(
            param,
            "carve cannot carve methods of a generic impl block: carve a concrete function that calls them",
        );
    }
    // Without a name the methods are still checked, so that their errors
    // are reported with this one.
    let type_name = self_type_name(&item).unwrap_or_else(|e| {
        errors.push(e);
        String::new()
    });
    let owned_ty = with_lifetimes(&item.self_ty, "'static");
    let call_ty = with_lifetimes(&item.self_ty, "'_");
    let (prefix, call_prefix) = match &item.trait_ {
        Some((path, _)) => {
            let call_trait = with_lifetimes_in_path(path, "'_");
            (
                format!("{type_name}::{}", trait_name(path)),
                quote!(<#call_ty as #call_trait>::),
            )
        }
        None => (type_name.clone(), quote!(<#call_ty>::)),
    };
    let lifetimes = !item.generics.params.is_empty();
    let any_marked = item.items.iter().any(
        |i| matches!(i, ImplItem::Fn(f) if f.attrs.iter().any(|a| is_carve_attr(a, "target"))),
    );
    let mut skipped = Vec::new();
    for impl_item in &mut item.items {
        let ImplItem::Fn(method) = impl_item else {
            continue;
        };
        let marker = method
            .attrs
            .iter()
            .find(|a| is_carve_attr(a, "target"))
            .cloned();
        let marked = take_target_markers(&mut method.attrs);
        // `#[carve::instrument]` on a method of the block: instrumented here,
        // not carved (its own expansion would find no impl block around it).
        let helper = take_markers(&mut method.attrs, "instrument");
        let carved = if any_marked {
            marked
        } else {
            !helper && (item.trait_.is_some() || matches!(method.vis, Visibility::Public(_)))
        };
        if carved && !any_marked {
            if let Some(why) = uncarvable(&method.sig, &owned_ty, lifetimes) {
                skipped.push((method.sig.ident.to_string(), why));
                crate::instrument::instrument_method(method, &type_name);
                continue;
            }
        }
        if !carved {
            // The methods a target calls count for its coverage too.
            crate::instrument::instrument_method(method, &type_name);
            continue;
        }
        let ident = &method.sig.ident;
        // A method marked by hand that cannot be carved: its errors say how
        // to leave it out.
        errors.note = marker.map(|m| match is_carve_path(m.path(), "target") {
            true => format!("leave `{ident}` out: remove its `#[carve::target]`"),
            false => format!("leave `{ident}` out: remove `carve::target` from its `cfg_attr`"),
        });
        let target = TargetFn::new(
            method.sig.clone(),
            Some((&owned_ty, &prefix)),
            quote!(#call_prefix #ident),
            &mut errors,
        );
        errors.note = None;
        method.block = target.body(&method.block);
        method.sig = target.sig.clone();
    }
    errors.check()?;
    let skipped = (!skipped.is_empty()).then(|| {
        let methods = skipped.iter().map(|(name, why)| quote!((#name, #why)));
        quote! {
            const _: () = {
                static __CARVE_SKIPPED: ::carve::_macro_support::Skipped = ::carve::_macro_support::Skipped {
                    module_path: ::core::module_path!(),
                    impl_name: #prefix,
                    methods: &[#(#methods),*],
                };
                ::carve::_macro_support::inventory::submit! { ::carve::_macro_support::SkippedRef(&__CARVE_SKIPPED) }
            };
        }
    });
    Ok(quote!(#item #skipped))
}

/// Why a method of a block with no method marked cannot be carved, in a
/// few words (`generic`, `const fn`, ``parameter `f` ``); `None` when it
/// can be (as far as its signature shows).
fn uncarvable(sig: &Signature, self_ty: &Type, lifetimes: bool) -> Option<String> {
    let why = if sig.constness.is_some() {
        "const fn"
    } else if sig.asyncness.is_some() {
        "async fn"
    } else if matches!(sig.safety, syn::Safety::Unsafe(_)) {
        "unsafe fn"
    } else if sig
        .generics
        .params
        .iter()
        .any(|p| !matches!(p, syn::GenericParam::Lifetime(_)))
    {
        "generic"
    } else if lifetimes && sig.receiver().is_some() {
        // The receiver's type borrows: its values cannot be rebuilt owned.
        "borrowing receiver"
    } else {
        let mut probe = Errors::default();
        analyze(&mut sig.clone(), Some(self_ty), &mut probe);
        let error = probe.check().err()?;
        // `carve cannot carve parameter `f`: …` → ``parameter `f` ``.
        let message = error.to_string();
        let what = message
            .strip_prefix("carve cannot carve ")
            .and_then(|rest| rest.split(':').next())
            .unwrap_or("cannot be carved");
        return Some(what.to_owned());
    };
    Some(why.to_owned())
}

/// `ty` with every lifetime replaced by `lifetime` (`'static` to name an
/// owned value's type outside the impl, `'_` in a call path).
fn with_lifetimes(ty: &Type, lifetime: &str) -> Type {
    let mut ty = ty.clone();
    SetLifetimes(lifetime).visit_type_mut(&mut ty);
    ty
}

fn with_lifetimes_in_path(path: &syn::Path, lifetime: &str) -> syn::Path {
    let mut path = path.clone();
    SetLifetimes(lifetime).visit_path_mut(&mut path);
    path
}

struct SetLifetimes<'a>(&'a str);

impl VisitMut for SetLifetimes<'_> {
    fn visit_lifetime_mut(&mut self, lifetime: &mut syn::Lifetime) {
        *lifetime = syn::Lifetime::new(self.0, lifetime.span());
    }
}

/// How a trait impl's methods are named after their type: the trait's last
/// segment and its arguments, each path in them by its last segment and
/// without lifetimes (`From<u32>`, `From<Vec<String>>`, `From<&str>`), so
/// that the name holds no `::` (its separator).
fn trait_name(path: &syn::Path) -> String {
    struct Short;
    impl VisitMut for Short {
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
    }
    let mut path = path.clone();
    Short.visit_path_mut(&mut path);
    let mut name = path.to_token_stream().to_string();
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

    #[test]
    fn trait_impl_methods_are_named_after_the_trait_and_its_arguments() {
        let name = |path: syn::Path| trait_name(&path);
        assert_eq!(name(syn::parse_quote!(From<u32>)), "From<u32>");
        assert_eq!(name(syn::parse_quote!(fmt::Display)), "Display");
        assert_eq!(
            name(syn::parse_quote!(
                ::std::convert::From<Vec<std::string::String>>
            )),
            "From<Vec<String>>"
        );
        assert_eq!(name(syn::parse_quote!(From<&'a str>)), "From<&str>");
        assert_eq!(name(syn::parse_quote!(Cow<'a, [u8; 4]>)), "Cow<[u8; 4]>");
        assert_eq!(name(syn::parse_quote!(Add<(u8, u16)>)), "Add<(u8, u16)>");
    }

    #[test]
    fn unmarked_methods_that_cannot_be_carved_say_why_in_a_few_words() {
        let why = |sig: Signature| uncarvable(&sig, &syn::parse_quote!(Meters), false);
        assert_eq!(why(syn::parse_quote!(fn get(&self) -> u32)), None);
        assert_eq!(
            why(syn::parse_quote!(fn scale<T: Into<u32>>(&self, by: T) -> u32)).as_deref(),
            Some("generic")
        );
        assert_eq!(
            why(syn::parse_quote!(const fn zero() -> Meters)).as_deref(),
            Some("const fn")
        );
        assert_eq!(
            why(syn::parse_quote!(async fn fetch(&self) -> u32)).as_deref(),
            Some("async fn")
        );
        assert_eq!(
            why(syn::parse_quote!(unsafe fn peek(&self) -> u32)).as_deref(),
            Some("unsafe fn")
        );
        assert_eq!(
            why(syn::parse_quote!(fn apply(&self, f: impl Fn(u32) -> u32) -> u32)).as_deref(),
            Some("parameter `f`")
        );
        assert_eq!(
            why(syn::parse_quote!(fn iter(&self) -> impl Iterator<Item = u32>)).as_deref(),
            Some("the return type")
        );
        let borrowed = uncarvable(
            &syn::parse_quote!(fn count(&self) -> usize),
            &syn::parse_quote!(Words<'static>),
            true,
        );
        assert_eq!(borrowed.as_deref(), Some("borrowing receiver"));
    }

    #[test]
    fn a_lone_method_is_told_from_a_function() {
        let method = |item: ItemFn| is_method(&item);
        assert!(method(syn::parse_quote!(
            fn get(&self) -> u32 {
                1
            }
        )));
        assert!(method(syn::parse_quote!(
            fn new() -> Self {
                todo!()
            }
        )));
        assert!(method(syn::parse_quote!(
            fn new() -> Meters {
                Self(1)
            }
        )));
        assert!(!method(syn::parse_quote!(
            fn cgi_decode(s: &str) -> String {
                s.into()
            }
        )));
    }
}
