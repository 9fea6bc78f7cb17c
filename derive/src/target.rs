//! `#[carve::target]`: wraps a function (or the methods of an impl block) so
//! that its calls are carved, and registers it with a replay function.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::visit_mut::VisitMut;
use syn::{
    Attribute, Block, FnArg, ImplItem, Item, ItemFn, ItemImpl, Pat, ReturnType, Signature, Type,
    Visibility,
};

use crate::attrs::{cfg_attr_parts, marked_again};
use crate::generics::{has_impl_trait, parse_args, Inst, TargetArgs};
use crate::instrument::{instrument_fn, Instrumented};
use crate::names::{self_type_name, short_type};
use crate::outcome::{capture_closure, sink_closure, typed_parts, Checks};
use crate::params::{analyze, display_signature, Param, Pass};
use crate::Errors;

pub fn expand(attr: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    let mut errors = Errors::default();
    let args = parse_args(attr, &mut errors);
    match syn::parse2::<Item>(item) {
        Ok(Item::Fn(item)) => expand_fn(item, args, errors),
        Ok(Item::Impl(item)) => expand_impl(item, args, errors),
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

/// One instantiation of a target to carve: a generic one's types, and for
/// a method the impl's type at them.
pub struct Spec {
    /// The types of the generic parameters (empty for a target that is not
    /// generic).
    pub inst: Inst,
    /// For a method: the impl's type (its lifetimes `'static`) and the name
    /// its methods are registered under (`Meters`, `Stack<u32>`, or
    /// `Meters::From<u32>` in a trait impl).
    pub self_ty: Option<(Type, String)>,
    /// How replay names the function, without turbofish (`cgi_decode`,
    /// `<Stack<u32>>::push`).
    pub call_path: TokenStream,
    /// For a method of a trait impl: the trait at this instantiation, so
    /// that `Self::Err` can be named as `<Type as Trait>::Err`.
    pub self_trait: Option<syn::Path>,
    /// The associated types the trait impl defines (`Err` of `type Err =
    /// …;`): `Self::Owned` of a supertrait's (heck's `ToKebabCase:
    /// ToOwned`) is not the trait's, and is left to inference.
    pub trait_types: Vec<syn::Ident>,
}

/// One registered target: a function, or one instantiation of a generic one.
struct Instance {
    params: Vec<Param>,
    /// `cgi_decode`, `Account::withdraw`, `parse<String>`, `Stack<u32>::push`.
    fn_name: String,
    /// The static holding its registration.
    static_ident: syn::Ident,
    /// How replay calls it.
    call_path: TokenStream,
    /// The return type at this instantiation (`None` for `()` written as nothing).
    ret: Option<Type>,
    /// Each generic parameter of the target (the impl's, then the
    /// function's) and its type here, to tell which instantiation a call is.
    generic_args: Vec<(syn::Ident, Type)>,
}

/// One target function, checked and ready to expand.
struct TargetFn {
    sig: Signature,
    /// One per instantiation; one for a target that is not generic.
    instances: Vec<Instance>,
    /// Whether the function is generic (its instances are told apart at
    /// each call).
    generic: bool,
    /// The function's own name for its branch table and messages
    /// (`parse`, `Stack::push`).
    base_name: String,
    /// The signature as the user wrote it.
    display: String,
    /// Whether the state of `&mut` arguments after a call is recorded.
    records_after: bool,
    /// Whether the impl block's type borrows (`Request<'h>`).
    block_borrows: bool,
    /// Whether that state is taken from a replay of the carved arguments,
    /// not read after the call: the returned value may borrow them without
    /// saying so (`-> CharsMut` for `CharsMut<'a>`), and nothing may read
    /// them while it is alive. The body then runs in a `move` closure.
    after_by_replay: bool,
    /// Whether the return type borrows (`&mut [T]` from `&mut self`): the
    /// body then runs in a `move` closure, which alone can hand out a
    /// reborrow of a captured `&mut` for the function's whole lifetime.
    returns_borrow: bool,
    /// The static holding its branch site table.
    sites_ident: syn::Ident,
    /// `runtime = "tokio"` of an `async fn`.
    runtime: Option<syn::LitStr>,
    /// A method of an impl block with no method marked: a parameter or part
    /// of the return value carve cannot carve skips it (asked at run time,
    /// see the runtime's `Target::uncarvable`), not a compile error.
    lenient: bool,
}

impl TargetFn {
    /// `specs`: the instantiations to carve (one, with no types, for a
    /// function that is not generic); `impl_generics`: the type parameters
    /// of the impl block around a method; `base_name`: the function's name
    /// (`Stack::push`).
    fn new(
        mut sig: Signature,
        specs: &[Spec],
        impl_generics: &[syn::Ident],
        base_name: String,
        runtime: Option<syn::LitStr>,
        lenient: bool,
        errors: &mut Errors,
    ) -> TargetFn {
        let display = display_signature(&sig);
        let fn_generics: Vec<syn::Ident> = sig
            .generics
            .params
            .iter()
            .filter_map(|p| match p {
                syn::GenericParam::Type(t) => Some(t.ident.clone()),
                syn::GenericParam::Const(c) => Some(c.ident.clone()),
                _ => None,
            })
            .collect();
        let impl_trait_params: Vec<syn::Ident> = sig
            .inputs
            .iter()
            .filter_map(|input| match input {
                FnArg::Typed(t) if has_impl_trait(&t.ty) => match &*t.pat {
                    Pat::Ident(p) => Some(p.ident.clone()),
                    _ => None,
                },
                _ => None,
            })
            .collect();
        let generic =
            !fn_generics.is_empty() || !impl_trait_params.is_empty() || !impl_generics.is_empty();
        let bound = specs.iter().any(|s| !s.inst.bindings.is_empty());
        if runtime.is_some() && sig.asyncness.is_none() {
            errors.spanned(
                runtime.as_ref(),
                "`runtime` is for an `async fn`: remove it from this function's attribute",
            );
        }
        // Every generic parameter is bound by every instantiation, and
        // nothing else is.
        let required: Vec<&syn::Ident> = impl_generics
            .iter()
            .chain(&fn_generics)
            .chain(&impl_trait_params)
            .collect();
        if bound || !generic {
            for spec in specs {
                // A function's own bindings (a block's are checked once, by
                // the block).
                for (_, ty) in spec
                    .inst
                    .bindings
                    .iter()
                    .filter(|(n, _)| !impl_generics.contains(n))
                {
                    for shadowed in crate::generics::shadowed_names(ty, &required) {
                        errors.spanned(&shadowed, crate::generics::shadowed_message(&shadowed));
                    }
                }
                for (name, _) in &spec.inst.bindings {
                    if !required.contains(&name) {
                        errors.spanned(
                            name,
                            format!(
                                "`{name}` is not a generic parameter or `impl Trait` parameter of `{}`: \
                                 `generics(…)` binds {}",
                                sig.ident,
                                match required.is_empty() {
                                    true => "nothing here (the function is not generic)".to_owned(),
                                    false => required.iter().map(|r| format!("`{r}`")).collect::<Vec<_>>().join(", "),
                                }
                            ),
                        );
                    }
                }
                for name in &required {
                    if spec.inst.get(name).is_none() && impl_generics.iter().all(|i| i != *name) {
                        errors.spanned(
                            *name,
                            format!(
                                "`{name}` has no type in a `generics(…)` of `{}`: add \
                                 `{name} = Type` (each instantiation names a type for every \
                                 generic parameter)",
                                sig.ident
                            ),
                        );
                    }
                }
            }
        }
        let ident = sig.ident.to_string();
        let ident = ident.trim_start_matches("r#").to_owned();
        let mut instances = Vec::new();
        let mut analyzed = None;
        for (index, spec) in specs.iter().enumerate() {
            let mut this_sig = sig.clone();
            let inst = (generic && bound).then_some(&spec.inst);
            // Errors that are not about the instantiation would repeat
            // once per instantiation: only the first reports them.
            let mut probe = Errors::default();
            let params = analyze(
                &mut this_sig,
                spec.self_ty.as_ref().map(|(ty, _)| ty),
                inst,
                if index == 0 { &mut *errors } else { &mut probe },
            );
            if let Err(e) = probe.check() {
                if !e.to_string().is_empty() {
                    errors.push(e);
                }
            }
            analyzed.get_or_insert(this_sig);
            let type_list = |names: &[syn::Ident]| -> Vec<Type> {
                names
                    .iter()
                    .filter_map(|n| spec.inst.get(n).cloned())
                    .collect()
            };
            let own_types: Vec<Type> = type_list(&fn_generics)
                .into_iter()
                .chain(type_list(&impl_trait_params))
                .collect();
            let own = match own_types.is_empty() {
                true => String::new(),
                false => format!(
                    "<{}>",
                    own_types
                        .iter()
                        .map(short_type)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            };
            let fn_name = match &spec.self_ty {
                Some((_, prefix)) => format!("{prefix}::{ident}{own}"),
                None => format!("{ident}{own}"),
            };
            // A turbofish names the function's own types (it is not
            // allowed beside an `impl Trait` parameter, where inference
            // finds them from the arguments).
            let turbofish = (!fn_generics.is_empty() && impl_trait_params.is_empty()).then(|| {
                let types = type_list(&fn_generics);
                quote!(::<#(#types),*>)
            });
            let call_path = &spec.call_path;
            let self_replace = |ty: &Type| -> Type {
                let mut ty = spec.inst.apply(ty);
                if let Some((self_ty, _)) = &spec.self_ty {
                    crate::params::replace_self(
                        &mut ty,
                        self_ty,
                        spec.self_trait.as_ref(),
                        &spec.trait_types,
                    );
                }
                ty
            };
            let formats = params.iter().any(|p| p.pass == Pass::Format);
            instances.push(Instance {
                params,
                fn_name,
                static_ident: match index {
                    0 => format_ident!("__CARVE_TARGET"),
                    i => format_ident!("__CARVE_TARGET_{}", i),
                },
                call_path: quote!(#call_path #turbofish),
                ret: match &sig.output {
                    // A `fmt` method is carved with the text it writes.
                    _ if formats => Some(syn::parse_quote!(
                        ::core::result::Result<
                            ::carve::_macro_support::std::string::String,
                            ::carve::_macro_support::FormatError,
                        >
                    )),
                    ReturnType::Default => None,
                    ReturnType::Type(_, ty) => Some(self_replace(ty)),
                },
                generic_args: impl_generics
                    .iter()
                    .chain(&fn_generics)
                    .filter_map(|n| spec.inst.get(n).map(|t| (n.clone(), t.clone())))
                    .collect(),
            });
        }
        if let Some(analyzed) = analyzed {
            sig = analyzed;
        }
        let sites_ident = crate::instrument::sites_ident();
        // A return value that borrows from the call's arguments keeps a `&mut`
        // argument borrowed, so its state after the call cannot be read then.
        let returns_borrow = crate::params::returns_borrow(&sig.output);
        let records_after = !returns_borrow
            && instances
                .first()
                .is_some_and(|i| i.params.iter().any(|p| p.pass == Pass::RefMut));
        let in_scope: Vec<syn::Ident> = impl_generics.iter().chain(&fn_generics).cloned().collect();
        // A method of a block whose type borrows (httparse's `Request<'h>`)
        // may keep a reborrow of an argument in `self` for the block's
        // lifetime (`self.headers = headers`), which only a `move` closure
        // compiles, and which nothing may read after: so may a return type
        // that hides a lifetime.
        let block_borrows = specs
            .first()
            .and_then(|s| s.self_ty.as_ref())
            .is_some_and(|(ty, _)| receiver_borrows(ty));
        let after_by_replay = records_after
            && (block_borrows || crate::params::may_hide_lifetime(&sig.output, &in_scope));
        // An `impl Trait` return has no type to ask about: checked.
        let lenient = lenient && !has_impl_trait_output(&sig.output);
        TargetFn {
            sig,
            instances,
            generic: generic && bound,
            base_name,
            display,
            records_after,
            block_borrows,
            after_by_replay,
            returns_borrow,
            sites_ident,
            runtime,
            lenient,
        }
    }

    /// The body: capture arguments when recording, run the original body (or
    /// its instrumented twin while coverage is collected). The registration
    /// and the site table are items at its start.
    fn body(&self, block: &Block) -> Block {
        let is_async = self.sig.asyncness.is_some();
        let Instrumented {
            body: block,
            sites_static,
        } = instrument_fn(
            block,
            &self.sites_ident,
            &self.base_name,
            &self.sig,
            !self.after_by_replay,
        );
        let registrations = self.instances.iter().map(|i| self.registration(i));
        let first = &self.instances[0];
        let destructure = first.params.iter().filter_map(|p| {
            let binding = &p.binding;
            p.pattern.as_ref().map(|pat| quote!(let #pat = #binding;))
        });
        let ret = match &self.sig.output {
            ReturnType::Default => quote!(()),
            ReturnType::Type(_, ty) => ty.to_token_stream(),
        };
        let generic = self.generic;
        // The frame of a recorded call, and (generic) which instance it is of.
        let begin = |i: &Instance| {
            let static_ident = &i.static_ident;
            let captures = i.params.iter().map(|p| {
                let (name, capture) = (&p.name, p.capture(self.view(p)));
                quote!(__carve_args.arg(#name, #capture);)
            });
            // A format spec is plain data: it rebuilds.
            let checks = i
                .params
                .iter()
                .filter(|p| p.pass != Pass::Format)
                .map(|p| rebuild_check(p, self.view(p)));
            quote!(::carve::_macro_support::begin(
                &#static_ident,
                |__carve_args| { #(#captures)* },
                |__carve_check| { #(#checks)* },
            ))
        };
        let finish = |i: &Instance| {
            let afters = self.after_params(i).map(|p| {
                let (name, form) = (&p.name, p.form());
                let view = self.view_after(p);
                quote!(__carve_after.arg(#name, #form.capture(#view));)
            });
            let after_checks = self
                .after_params(i)
                .map(|p| rebuild_check(p, self.view_after(p)));
            let capture = match (&i.ret, &self.sig.output) {
                // A `fmt` method's outcome is the text it writes with the
                // spec it was given: asked again, into a buffer.
                (Some(text), _) if self.formatter(i).is_some() => {
                    let f = self.formatter(i).map(|p| &p.binding);
                    let inner = capture_closure(Some(text), true, self.checks());
                    quote!(|_: &_| {
                        let __carve_spec = ::carve::_macro_support::FormatSpec::of(&*#f)?;
                        let __carve_written = ::carve::_macro_support::format_with(
                            &__carve_spec,
                            |#f: &mut ::core::fmt::Formatter<'_>| -> ::core::fmt::Result #block,
                        );
                        (#inner)(&__carve_written)
                    })
                }
                (Some(concrete), ReturnType::Type(_, written)) if generic => {
                    let inner = capture_closure(Some(concrete), true, self.checks());
                    quote!(|__carve_g: &#written| (#inner)(::carve::_macro_support::cast_ref::<_, #concrete>(__carve_g)))
                }
                // The impl's lifetimes are `'static` in `ret` (`Doc<'static>`
                // for `Self`), which the body's `Doc<'input>` is not: any
                // lifetime, where it reads the returned value.
                _ => capture_closure(
                    i.ret.as_ref().map(|t| with_lifetimes(t, "'_")).as_ref(),
                    true,
                    self.checks(),
                ),
            };
            if self.after_by_replay {
                return quote!(__carve_frame.finish_replaying_after(__carve_result, #capture));
            }
            // Put in the recorder's sink, deferred: a repeated call is keyed
            // from the returned value without building its `Value`.
            let capture = match (&i.ret, &self.sig.output) {
                (Some(text), _) if self.formatter(i).is_some() => {
                    let f = self.formatter(i).map(|p| &p.binding);
                    let inner = sink_closure(Some(text), self.checks());
                    quote!(|_: &_, __carve_sink: &mut ::carve::_macro_support::OutcomeSink<'_>| {
                        let __carve_spec = ::carve::_macro_support::FormatSpec::of(&*#f)?;
                        let __carve_written = ::carve::_macro_support::format_with(
                            &__carve_spec,
                            |#f: &mut ::core::fmt::Formatter<'_>| -> ::core::fmt::Result #block,
                        );
                        (#inner)(&__carve_written, __carve_sink)
                    })
                }
                (Some(concrete), ReturnType::Type(_, written)) if generic => {
                    let inner = sink_closure(Some(concrete), self.checks());
                    quote!(|__carve_g: &#written, __carve_sink: &mut ::carve::_macro_support::OutcomeSink<'_>| {
                        (#inner)(::carve::_macro_support::cast_ref::<_, #concrete>(__carve_g), __carve_sink)
                    })
                }
                _ => sink_closure(
                    i.ret.as_ref().map(|t| with_lifetimes(t, "'_")).as_ref(),
                    self.checks(),
                ),
            };
            quote!(__carve_frame.finish_keyed(
                __carve_result,
                #capture,
                |__carve_after| { #(#afters)* },
                |__carve_check| { #(#after_checks)* },
            ))
        };
        let frame = if generic {
            let arms = self.instances.iter().enumerate().map(|(n, i)| {
                let cond = self.matches(i);
                let begin = begin(i);
                quote!(if #cond { #begin.map(|__carve_f| (__carve_f, #n)) } else)
            });
            let names = self.instances[0]
                .generic_args
                .iter()
                .map(|(n, _)| n.to_string())
                .chain(
                    first
                        .params
                        .iter()
                        .filter(|p| has_impl_trait_name(&self.sig, &p.binding))
                        .map(|p| p.name.clone()),
                );
            let type_names = self.instances[0]
                .generic_args
                .iter()
                .map(|(n, ty)| match ty {
                    // A const parameter: its value.
                    Type::Verbatim(_) => {
                        quote!(&*::carve::_macro_support::std::format!("{:?}", #n))
                    }
                    _ => quote!(::core::any::type_name::<#n>()),
                })
                .chain(
                    first
                        .params
                        .iter()
                        .filter(|p| has_impl_trait_name(&self.sig, &p.binding))
                        .map(|p| {
                            let binding = &p.binding;
                            quote!(::core::any::type_name_of_val(&#binding))
                        }),
                );
            let base_name = &self.base_name;
            // A method skipped at every instantiation listed (a parameter
            // of a type without a form, see `uncarvable`) is not worth
            // listing more of.
            let statics = self.instances.iter().map(|i| &i.static_ident);
            quote!(#(#arms)* {
                if false #(|| (#statics.uncarvable)().is_none())* {
                    ::carve::_macro_support::unlisted(
                        ::core::module_path!(),
                        #base_name,
                        &[#(#names),*],
                        &[#(#type_names),*],
                    );
                }
                ::core::option::Option::None
            })
        } else {
            begin(first)
        };
        let finished = if generic {
            let last = self.instances.len() - 1;
            let arms = self.instances.iter().enumerate().map(|(n, i)| {
                let finish = finish(i);
                match n == last {
                    true => quote!(_ => #finish,),
                    false => quote!(#n => #finish,),
                }
            });
            quote!(match __carve_i { #(#arms)* })
        } else {
            finish(first)
        };
        let frame_pattern = match generic {
            true => quote!((__carve_frame, __carve_i)),
            false => quote!(__carve_frame),
        };
        if is_async {
            return syn::parse_quote!({
                #(#registrations)*
                #sites_static
                let __carve_frame = if ::carve::_macro_support::is_recording() {
                    #frame
                } else {
                    ::core::option::Option::None
                };
                #(#destructure)*
                let __carve_body = ::carve::_macro_support::future_of::<#ret, _>(async #block);
                match __carve_frame {
                    ::core::option::Option::None => __carve_body.await,
                    ::core::option::Option::Some(#frame_pattern) => {
                        let __carve_result = ::carve::_macro_support::CatchUnwind::new(__carve_body).await;
                        #finished
                    }
                }
            });
        }
        // Nothing reads the arguments after the body when it returns a
        // borrow (no state after the call is recorded then), or may return
        // one (that state is read from a replay).
        let move_kw = (self.returns_borrow || self.after_by_replay).then(|| quote!(move));
        // A `&mut` argument whose state after the call is read is lent to
        // the body as a reborrow: a body that moves it (byteorder's `for n
        // in numbers` over `numbers: &mut [u16]`) moves the reborrow, and
        // the argument is still there to read after the call (E0382
        // otherwise).
        let lent: Vec<(&syn::Ident, syn::Ident)> = self
            .lent_params()
            .map(|p| (&p.binding, format_ident!("__carve_lent_{}", p.binding)))
            .collect();
        let lend = lent
            .iter()
            .map(|(binding, lent)| quote!(let #lent = &mut *#binding;));
        let take = lent.iter().map(|(binding, lent)| {
            quote!(#[allow(unused_mut, unused_variables)] let mut #binding = #lent;)
        });
        let block: Block = match lent.is_empty() {
            true => block,
            false => syn::parse_quote!({ #(#take)* #block }),
        };
        syn::parse_quote!({
            #(#registrations)*
            #sites_static
            let __carve_frame = if ::carve::_macro_support::is_recording() {
                #frame
            } else {
                ::core::option::Option::None
            };
            #(#destructure)*
            #(#lend)*
            let __carve_body = #move_kw || -> #ret #block;
            match __carve_frame {
                ::core::option::Option::None => ::carve::_macro_support::call_once(__carve_body),
                ::core::option::Option::Some(#frame_pattern) => {
                    let __carve_result = ::carve::_macro_support::catch_unwind(__carve_body);
                    #finished
                }
            }
        })
    }

    /// A reference to parameter `p`'s value as the form captures it: for a
    /// generic target, read as the instantiation's type.
    fn view(&self, p: &Param) -> TokenStream {
        match self.generic {
            true => p.cast_view(&p.binding),
            false => p.view(&p.binding),
        }
    }

    /// [`TargetFn::view`] of a `&mut` parameter after the call.
    fn view_after(&self, p: &Param) -> TokenStream {
        let binding = &p.binding;
        match self.generic {
            true => p.cast_view(binding),
            false => quote!(&*#binding),
        }
    }

    /// Whether a call of a generic target is at instance `i`: its generic
    /// parameters and the values of its `impl Trait` parameters have the
    /// instance's types.
    fn matches(&self, i: &Instance) -> TokenStream {
        // A const parameter is told by its value, a type one by its type.
        let (consts, types): (Vec<_>, Vec<_>) = i
            .generic_args
            .iter()
            .partition(|(_, ty)| matches!(ty, Type::Verbatim(_)));
        let (names, types): (Vec<_>, Vec<_>) = types.into_iter().cloned().unzip();
        let consts = consts
            .iter()
            .map(|(name, value)| quote!(&& #name == #value));
        let values = i
            .params
            .iter()
            .filter(|p| has_impl_trait_name(&self.sig, &p.binding))
            .map(|p| {
                let (binding, ty) = (&p.binding, &p.subst_ty);
                quote!(&& ::carve::_macro_support::is_type::<_, #ty>(&#binding))
            });
        // Tuples of references, not `fn` pointers: `fn(&&str)` is
        // higher-ranked over the `&str`'s lifetime, `fn(&S)` is not.
        quote!(::carve::_macro_support::same_type::<(#(&#names,)*), (#(&#types,)*)>() #(#consts)* #(#values)*)
    }

    /// The `&mut Formatter` parameter of instance `i`, if it has one.
    fn formatter<'a>(&self, i: &'a Instance) -> Option<&'a Param> {
        i.params.iter().find(|p| p.pass == Pass::Format)
    }

    /// The `&mut` parameters the body gets a reborrow of ([`TargetFn::body`]).
    fn lent_params(&self) -> impl Iterator<Item = &Param> {
        let moves = self.returns_borrow || self.after_by_replay;
        self.after_params(&self.instances[0])
            .filter(move |p| !moves && p.pattern.is_none() && p.binding != "self")
    }

    /// The signature to emit: a `mut` parameter the body gets a reborrow
    /// of is mutated through that reborrow only, so rustc's `unused_mut`
    /// would fire on the user's `mut` (a failed build under `-D warnings`).
    fn signature(&self) -> Signature {
        let mut sig = self.sig.clone();
        let lent: Vec<&syn::Ident> = self.lent_params().map(|p| &p.binding).collect();
        for input in &mut sig.inputs {
            if let FnArg::Typed(t) = input {
                if matches!(&*t.pat, syn::Pat::Ident(i) if i.mutability.is_some() && lent.contains(&&i.ident))
                {
                    t.attrs.push(syn::parse_quote!(#[allow(unused_mut)]));
                }
            }
        }
        sig
    }

    fn after_params<'a>(&'a self, i: &'a Instance) -> impl Iterator<Item = &'a Param> {
        i.params.iter().filter(move |p| self.records_after_of(p))
    }

    /// Whether the state of `p` after a call is recorded: a `&mut`
    /// argument's, unless the block's type borrows and `p`'s type names a
    /// lifetime (httparse's `headers: &'h mut [Header]`, which the call may
    /// keep in `self`; replay names the block's lifetimes `'static`, so it
    /// stays borrowed for good).
    fn records_after_of(&self, p: &Param) -> bool {
        self.records_after
            && p.pass == Pass::RefMut
            && !(self.block_borrows && p.name != "self" && names_lifetime(&p.subst_ty))
    }

    /// The registration static of instance `i` and its replay function.
    fn registration(&self, i: &Instance) -> TokenStream {
        let Self {
            display,
            sites_ident,
            ..
        } = self;
        let Instance {
            static_ident,
            fn_name,
            call_path,
            params,
            ..
        } = i;
        let fields: Vec<_> = (0..params.len())
            .map(|i| format_ident!("__carve_p{}", i))
            .collect();
        let names = params.iter().map(|p| &p.name);
        let trace_names = params.iter().map(|p| &p.name);
        let owned: Vec<_> = params.iter().map(|p| &p.owned).collect();
        let checks = params.iter().filter(|_| !self.lenient).map(|p| {
            let form = p.form();
            quote_spanned!(p.span=> #form.check();)
        });
        let uncarvable = self.uncarvable(i);
        let ser_fns: Vec<_> = (0..params.len())
            .map(|i| format_ident!("__carve_ser{}", i))
            .collect();
        let de_fns: Vec<_> = (0..params.len())
            .map(|i| format_ident!("__carve_de{}", i))
            .collect();
        let (ser_names, de_names) = (
            ser_fns.iter().map(|f| f.to_string()),
            de_fns.iter().map(|f| f.to_string()),
        );
        let forms: Vec<_> = params.iter().map(|p| p.form()).collect();
        let lent = params.iter().zip(&fields).filter_map(|(p, f)| p.lent(f));
        let pass = params.iter().zip(&fields).map(|(p, f)| p.pass(f));
        let afters: Vec<TokenStream> = params
            .iter()
            .zip(&fields)
            .filter_map(|(p, f)| {
                let (name, form) = (&p.name, p.form());
                self.records_after_of(p)
                    .then(|| quote!(__carve_after.arg(#name, #form.capture(&#f));))
            })
            .collect();
        // No state after the call to capture: no setup to run for it (each
        // costs a generation execution a few thread-local accesses).
        let capture_after = (!afters.is_empty())
            .then(|| quote!(::carve::_macro_support::setup(|| { #(#afters)* });));
        let capture = capture_closure(i.ret.as_ref(), false, Checks::None);
        let has_after = self.records_after;
        let line = quote_spanned!(self.sig.ident.span()=> ::core::line!());
        let call = quote!(#call_path(#(#pass),*));
        // A `fmt` method runs inside a `format!` with the carved spec.
        let call = match params
            .iter()
            .zip(&fields)
            .find(|(p, _)| p.pass == Pass::Format)
        {
            Some((_, spec)) => quote!(::carve::_macro_support::format_with(
                &#spec,
                |__carve_f: &mut ::core::fmt::Formatter<'_>| #call,
            )),
            None => call,
        };
        // An `async fn` is driven to its end: by carve's executor, or by
        // the runtime the attribute names.
        let call = match (&self.sig.asyncness, &self.runtime) {
            (None, _) => call,
            (Some(_), None) => quote!(::carve::_macro_support::block_on(#call)),
            (Some(_), Some(_)) => quote!(::carve::_macro_support::block_on_tokio(#call)),
        };
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
                        let (__carve_args, __carve_args_value) = ::carve::_macro_support::setup_arguments(|| {
                            let __carve_args: arguments = ::carve::_macro_support::parse_args(__carve_input)?;
                            let __carve_value = __carve_input.to_value(&__carve_args)?;
                            ::core::result::Result::Ok::<_, ::carve::_macro_support::ReplayError>((__carve_args, __carve_value))
                        })?;
                        let arguments { #( #fields: mut #fields, )* } = __carve_args;
                        #(#lent)*
                        let __carve_outcome = ::carve::_macro_support::observe(|| #call, #capture);
                        let mut __carve_after = ::carve::_macro_support::ArgsBuilder::default();
                        #capture_after
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
                uncarvable: #uncarvable,
            };
            ::carve::_macro_support::inventory::submit! { ::carve::_macro_support::TargetRef(&#static_ident) }
        }
    }

    /// How the return value's parts are checked at compile time.
    fn checks(&self) -> Checks {
        match self.lenient {
            true => Checks::Untyped,
            false => Checks::All,
        }
    }

    /// The registration's `uncarvable` function of instance `i`: for a
    /// lenient method, the first parameter or part of the return value
    /// whose form the probes find is none carve can carve.
    fn uncarvable(&self, i: &Instance) -> TokenStream {
        if !self.lenient {
            return quote!(|| ::core::option::Option::None);
        }
        // `Parse<'_>` without its lifetime is `Parse`, not `Parse<>`.
        let short = |ty: &Type| crate::names::short_type(ty).replace("<>", "");
        let params = i.params.iter().map(|p| {
            let form = p.form();
            // `self` is carved as `<Error as Twin>::Owned`: named `Error`.
            let ty = match &p.owned {
                Type::Path(path) => path.qself.as_ref().map_or(&p.owned, |q| &*q.ty),
                ty => ty,
            };
            let why = format!("parameter `{}`: `{}`", p.name, short(ty));
            quote!(if let ::core::option::Option::Some(__carve_lacks) = ::carve::_macro_support::lacks(|(): ()| #form) {
                return ::core::option::Option::Some(::carve::_macro_support::std::format!("{} {}", #why, __carve_lacks));
            })
        });
        let parts = typed_parts(i.ret.as_ref()).into_iter().map(|part| {
            let why = format!("returns `{}`, which", short(&part));
            let part = with_lifetimes(&part, "'static");
            quote!(if let ::core::option::Option::Some(__carve_lacks) = ::carve::_macro_support::lacks(|__carve_v: &'static #part| {
                #[allow(unused_imports)]
                use ::carve::_macro_support::{
                    ViaDebug as _, ViaDisplay as _, ViaDisplayDebug as _, ViaNeither as _, ViaSerialize as _,
                };
                (&&&&&::carve::_macro_support::OutcomeProbe(__carve_v)).outcome_form()
            }) {
                return ::core::option::Option::Some(::carve::_macro_support::std::format!("{} {}", #why, __carve_lacks));
            })
        });
        quote!({
            #[allow(unused_mut, non_snake_case, clippy::needless_borrow)]
            fn __carve_uncarvable() -> ::core::option::Option<::carve::_macro_support::std::string::String> {
                #(#params)*
                #(#parts)*
                ::core::option::Option::None
            }
            __carve_uncarvable
        })
    }
}

/// Whether the return type holds an `impl Trait`.
fn has_impl_trait_output(output: &ReturnType) -> bool {
    matches!(output, ReturnType::Type(_, ty) if has_impl_trait(ty))
}

/// Whether the parameter bound to `binding` is an `impl Trait` parameter
/// of `sig`.
fn has_impl_trait_name(sig: &Signature, binding: &syn::Ident) -> bool {
    sig.inputs.iter().any(|input| {
        matches!(input, FnArg::Typed(t) if has_impl_trait(&t.ty)
            && matches!(&*t.pat, Pat::Ident(p) if p.ident == *binding))
    })
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

fn expand_fn(mut item: ItemFn, args: TargetArgs, mut errors: Errors) -> syn::Result<TokenStream> {
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
    if let Some(error) = marked_again(&item.attrs, "target", &item.sig.ident) {
        return Err(errors.fail(error));
    }
    let ident = &item.sig.ident;
    let insts = args
        .insts
        .into_iter()
        .map(|inst| inst.with_traits(&item.sig.generics))
        .collect();
    let specs = specs_of(insts, |inst| Spec {
        inst,
        self_ty: None,
        call_path: quote!(#ident),
        self_trait: None,
        trait_types: Vec::new(),
    });
    let base_name = ident.to_string().trim_start_matches("r#").to_owned();
    let target = TargetFn::new(
        item.sig.clone(),
        &specs,
        &[],
        base_name,
        args.runtime,
        false,
        &mut errors,
    );
    errors.check()?;
    *item.block = target.body(&item.block);
    item.sig = target.signature();
    Ok(quote!(#item))
}

/// One spec per instantiation, or one without types when there is none.
fn specs_of(insts: Vec<Inst>, spec: impl FnMut(Inst) -> Spec) -> Vec<Spec> {
    let insts = match insts.is_empty() {
        true => vec![Inst::default()],
        false => insts,
    };
    insts.into_iter().map(spec).collect()
}

/// The arguments of a method's marker (`#[carve::target(…)]`, or the
/// `carve::target(…)` in a `cfg_attr`), if it has any.
fn marker_args(attr: &Attribute) -> Option<TokenStream> {
    let meta = match cfg_attr_parts(attr) {
        Some((_, metas)) => metas
            .into_iter()
            .find(|m| is_carve_path(m.path(), "target"))?,
        None => attr.meta.clone(),
    };
    match meta {
        syn::Meta::List(list) => Some(list.tokens),
        _ => None,
    }
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

fn expand_impl(
    mut item: ItemImpl,
    args: TargetArgs,
    mut errors: Errors,
) -> syn::Result<TokenStream> {
    // `impl Trait for $t` in a macro: the type itself, not its group.
    *item.self_ty = crate::names::peel(&item.self_ty).clone();
    // Lifetimes are fine: carved values own their data, and the statics
    // name the type with `'static` or elided lifetimes. Type parameters are
    // carved at the types `generics(…)` names.
    let impl_generics: Vec<syn::Ident> = item
        .generics
        .params
        .iter()
        .filter_map(|p| match p {
            syn::GenericParam::Type(t) => Some(t.ident.clone()),
            syn::GenericParam::Const(c) => Some(c.ident.clone()),
            _ => None,
        })
        .collect();
    // The example binds every parameter of the block at once, a const one
    // to a value of its type (wildmatch's `const MULTI_WILDCARD: char`).
    let example = crate::generics::example_bindings(&item.generics);
    for param in &item.generics.params {
        match param {
            syn::GenericParam::Const(c) if args.insts.is_empty() => errors.spanned(
                param,
                format!(
                    "`{0}` is a const generic: carve carves this impl block's methods at the \
                     values you name in the block's attribute, \
                     `#[carve::target(generics({example}))]` (a literal, or a `{{ … }}` block; \
                     one `generics(…)` per instantiation)",
                    c.ident
                ),
            ),
            syn::GenericParam::Type(t) if args.insts.is_empty() => errors.spanned(
                param,
                format!(
                    "`{0}` is generic: carve carves this impl block's methods at the types \
                     you name in the block's attribute, \
                     `#[carve::target(generics({example}))]` (one `generics(…)` per \
                     instantiation)",
                    t.ident
                ),
            ),
            _ => {}
        }
    }
    let block_params: Vec<&syn::Ident> = impl_generics.iter().collect();
    for inst in &args.insts {
        for (_, ty) in &inst.bindings {
            for shadowed in crate::generics::shadowed_names(ty, &block_params) {
                errors.spanned(&shadowed, crate::generics::shadowed_message(&shadowed));
            }
        }
        for (name, _) in &inst.bindings {
            if !impl_generics.contains(name) {
                errors.spanned(
                    name,
                    format!(
                        "`{name}` is not a type parameter of this impl block: the block's \
                         `generics(…)` binds its own parameters; a method's go on its \
                         `#[carve::target(generics(…))]`"
                    ),
                );
            }
        }
        for name in &impl_generics {
            if inst.get(name).is_none() {
                errors.spanned(
                    name,
                    format!(
                        "`{name}` has no type in a `generics(…)` of this impl block: add \
                         `{name} = Type` (each instantiation names a type for every generic \
                         parameter)"
                    ),
                );
            }
        }
    }
    // Without a name the methods are still checked, so that their errors
    // are reported with this one.
    let type_name = self_type_name(&item).unwrap_or_else(|e| {
        errors.push(e);
        String::new()
    });
    let owned_ty = with_lifetimes(&item.self_ty, "'static");
    // The impl's type and names at each instantiation of the block.
    let generic = !impl_generics.is_empty() && !args.insts.is_empty();
    let insts = args
        .insts
        .into_iter()
        .map(|inst| inst.with_traits(&item.generics))
        .collect();
    let impl_specs = specs_of(insts, |inst| {
        // Bound first, then the lifetimes set: a type bound with an elided
        // lifetime (bs58's `DecodeBuilder<'a, I>` at `I = &str`) is named
        // `&'static str` in carved values, where elision is not allowed.
        let owned_ty = with_lifetimes(&inst.apply(&item.self_ty), "'static");
        let call_ty = with_lifetimes(&inst.apply(&item.self_ty), "'_");
        // The type as this instantiation names it (`Stack<u8>`); a type
        // the block's parameters are not part of keeps its name (`Total`
        // in `impl<T> From<Vec<T>> for Total`, whose trait carries them).
        let type_name = match (generic, &*item.self_ty) {
            (true, Type::Path(_) | Type::Reference(_)) => short_type(&inst.apply(&item.self_ty)),
            _ => type_name.clone(),
        };
        let (prefix, call_prefix, self_trait) = match &item.trait_ {
            Some((path, _)) => {
                let mut call_trait = with_lifetimes_in_path(path, "'_");
                let mut named = path.clone();
                if generic {
                    call_trait = apply_in_path(&inst, &call_trait);
                    named = apply_in_path(&inst, &named);
                }
                (
                    format!("{type_name}::{}", trait_name(&named)),
                    quote!(<#call_ty as #call_trait>::),
                    Some(named),
                )
            }
            None => (type_name, quote!(<#call_ty>::), None),
        };
        Spec {
            inst,
            self_ty: Some((owned_ty, prefix)),
            call_path: call_prefix,
            self_trait,
            trait_types: item
                .items
                .iter()
                .filter_map(|i| match i {
                    syn::ImplItem::Type(t) => Some(t.ident.clone()),
                    _ => None,
                })
                .collect(),
        }
    });
    let base_type_ty = owned_ty.clone();
    let any_marked = item.items.iter().any(
        |i| matches!(i, ImplItem::Fn(f) if f.attrs.iter().any(|a| is_carve_attr(a, "target"))),
    );
    let base_prefix = match &item.trait_ {
        Some((path, _)) => format!("{type_name}::{}", trait_name(path)),
        None => type_name.clone(),
    };
    // A generic block is named as written (`NotNan<T>`): what is skipped
    // is skipped at every instantiation, and an instantiation's name
    // (`NotNan<f64>`) reads as a block of its own.
    let skipped_prefix = match (generic, &*item.self_ty, &item.trait_) {
        (true, Type::Path(_) | Type::Reference(_), None) => short_type(&item.self_ty),
        (true, Type::Path(_) | Type::Reference(_), Some((path, _))) => {
            format!("{}::{}", short_type(&item.self_ty), trait_name(path))
        }
        _ => impl_specs
            .first()
            .and_then(|s| s.self_ty.as_ref().map(|(_, p)| p.clone()))
            .unwrap_or_default(),
    };
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
            let first = &impl_specs[0];
            let self_ty = first.self_ty.as_ref().map_or(&base_type_ty, |(t, _)| t);
            let inst = generic.then_some(&first.inst);
            if let Some(why) = uncarvable(&method.sig, self_ty, inst) {
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
        let ident = method.sig.ident.clone();
        // A method marked by hand that cannot be carved: its errors say how
        // to leave it out.
        errors.note = marker
            .as_ref()
            .map(|m| match is_carve_path(m.path(), "target") {
                true => format!("leave `{ident}` out: remove its `#[carve::target]`"),
                false => format!("leave `{ident}` out: remove `carve::target` from its `cfg_attr`"),
            });
        let method_args = marker
            .as_ref()
            .and_then(marker_args)
            .map(|tokens| parse_args(tokens, &mut errors))
            .unwrap_or_default();
        let method_insts = match method_args.insts.is_empty() {
            true => vec![Inst::default()],
            false => method_args
                .insts
                .into_iter()
                .map(|inst| inst.with_traits(&method.sig.generics))
                .collect(),
        };
        let mut specs = Vec::new();
        for spec in &impl_specs {
            for method_inst in &method_insts {
                specs.push(Spec {
                    inst: spec.inst.and(method_inst),
                    self_ty: spec.self_ty.clone(),
                    call_path: {
                        let prefix = &spec.call_path;
                        quote!(#prefix #ident)
                    },
                    self_trait: spec.self_trait.clone(),
                    trait_types: spec.trait_types.clone(),
                });
            }
        }
        let target = TargetFn::new(
            method.sig.clone(),
            &specs,
            if generic { &impl_generics } else { &[] },
            format!(
                "{base_prefix}::{}",
                ident.to_string().trim_start_matches("r#")
            ),
            method_args.runtime.or_else(|| args.runtime.clone()),
            !any_marked,
            &mut errors,
        );
        errors.note = None;
        method.block = target.body(&method.block);
        method.sig = target.signature();
    }
    errors.check()?;
    let skipped = (!skipped.is_empty()).then(|| {
        let methods = skipped.iter().map(|(name, why)| quote!((#name, #why)));
        quote! {
            const _: () = {
                static __CARVE_SKIPPED: ::carve::_macro_support::Skipped = ::carve::_macro_support::Skipped {
                    module_path: ::core::module_path!(),
                    impl_name: #skipped_prefix,
                    methods: &[#(#methods),*],
                };
                ::carve::_macro_support::inventory::submit! { ::carve::_macro_support::SkippedRef(&__CARVE_SKIPPED) }
            };
        }
    });
    Ok(quote!(#item #skipped))
}

/// `path` with an instantiation's types in place of its type parameters.
fn apply_in_path(inst: &Inst, path: &syn::Path) -> syn::Path {
    let ty: Type = syn::parse_quote!(#path);
    match inst.apply(&ty) {
        Type::Path(p) => p.path,
        _ => path.clone(),
    }
}

/// Why a method of a block with no method marked cannot be carved, in a
/// few words (`generic`, `const fn`, ``parameter `f` ``); `None` when it
/// can be (as far as its signature shows).
/// A receiver of a type with lifetimes (`Words<'a>`) is not one: one with
/// serde is read from leaked text (the runtime's `BorrowedSerdeForm`), one
/// without a form is skipped at run time, as any parameter's type.
fn uncarvable(sig: &Signature, self_ty: &Type, inst: Option<&Inst>) -> Option<String> {
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
    } else if let Some(name) = sig.inputs.iter().find_map(|input| match input {
        FnArg::Typed(t) if crate::params::is_closure(&t.ty) => Some(t.pat.to_token_stream()),
        _ => None,
    }) {
        // indexmap's `pop_if(&mut self, predicate: impl FnOnce(&K, &mut V)
        // -> bool)`: a closure is no value to carve, at any `generics(…)`.
        return Some(format!("parameter `{name}`"));
    } else if sig.inputs.iter().any(|input| {
        matches!(input, FnArg::Typed(t)
            if has_impl_trait(&t.ty) && !crate::params::is_closure(&t.ty))
    }) {
        // camino's `join(&self, path: impl AsRef<Utf8Path>)`.
        "`impl Trait` parameter"
    } else if inst.is_some_and(|inst| bounds_block_parameters(sig, inst)) {
        // Either's `into_iter(self) where L: IntoIterator`: at `L = u32`
        // the method does not exist, and calling it would not compile.
        "where clause"
    } else {
        let mut probe = Errors::default();
        analyze(&mut sig.clone(), Some(self_ty), inst, &mut probe);
        let error = probe.check().err()?;
        // `carve cannot carve parameter `f`: …` → ``parameter `f` ``.
        let message = error.to_string();
        // The first `:` outside backticks ends it (`self: Pin<&Self>` is
        // quoted).
        let what = message
            .strip_prefix("carve cannot carve ")
            .map(|rest| {
                let mut quoted = false;
                let end = rest.find(|c| {
                    quoted ^= c == '`';
                    c == ':' && !quoted
                });
                &rest[..end.unwrap_or(rest.len())]
            })
            .unwrap_or("cannot be carved");
        return Some(what.to_owned());
    };
    Some(why.to_owned())
}

/// Whether `ty` names a lifetime (`&'h mut [Header]`, `Request<'_>`).
fn names_lifetime(ty: &Type) -> bool {
    struct Finder(bool);
    impl<'ast> syn::visit::Visit<'ast> for Finder {
        fn visit_lifetime(&mut self, _: &'ast syn::Lifetime) {
            self.0 = true;
        }
    }
    let mut finder = Finder(false);
    syn::visit::Visit::visit_type(&mut finder, ty);
    finder.0
}

/// Whether a receiver of the impl's type `self_ty` borrows (`Words<'a>`):
/// a lifetime in the type, other than that of a shared reference to it
/// (`impl Add for &'a Ratio<T>`, whose `self` is lent from an owned
/// `Ratio<T>`).
fn receiver_borrows(self_ty: &Type) -> bool {
    struct Finder(bool);
    impl<'ast> syn::visit::Visit<'ast> for Finder {
        fn visit_lifetime(&mut self, _: &'ast syn::Lifetime) {
            self.0 = true;
        }
    }
    let owned = match crate::names::peel(self_ty) {
        Type::Reference(r) if r.mutability.is_none() => &*r.elem,
        ty => ty,
    };
    let mut finder = Finder(false);
    syn::visit::Visit::visit_type(&mut finder, owned);
    finder.0
}

/// Whether `sig`'s `where` clause bounds a generic parameter of the impl
/// block (bound to a type by `inst`) or `Self`: whether the method exists
/// at an instantiation depends on bounds the macro cannot check.
fn bounds_block_parameters(sig: &Signature, inst: &Inst) -> bool {
    fn names(tokens: TokenStream, inst: &Inst) -> bool {
        tokens.into_iter().any(|t| match t {
            proc_macro2::TokenTree::Ident(i) => {
                i == "Self" || inst.bindings.iter().any(|(name, _)| *name == i)
            }
            proc_macro2::TokenTree::Group(g) => names(g.stream(), inst),
            _ => false,
        })
    }
    sig.generics.where_clause.as_ref().is_some_and(|w| {
        w.predicates.iter().any(|p| match p {
            syn::WherePredicate::Type(t) => names(t.bounded_ty.to_token_stream(), inst),
            _ => false,
        })
    })
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

    /// An elided reference lifetime too (`impl BitAnd for &FixedBitSet`),
    /// which a static cannot leave out.
    fn visit_type_reference_mut(&mut self, ty: &mut syn::TypeReference) {
        if ty.lifetime.is_none() {
            ty.lifetime = Some(syn::Lifetime::new(self.0, ty.and_token.span));
        }
        syn::visit_mut::visit_type_reference_mut(self, ty);
    }
}

/// How a trait impl's methods are named after their type: the trait's last
/// segment and its arguments, each path in them by its last segment and
/// without lifetimes (`From<u32>`, `From<Vec<String>>`, `From<&str>`), so
/// that the name holds no `::` (its separator).
fn trait_name(path: &syn::Path) -> String {
    crate::names::short_path(path)
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
        let why = |sig: Signature| uncarvable(&sig, &syn::parse_quote!(Meters), None);
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
        let inst = Inst {
            bindings: vec![(syn::parse_quote!(L), syn::parse_quote!(u32))],
            ..Default::default()
        };
        let at_u32 =
            |sig: Signature| uncarvable(&sig, &syn::parse_quote!(Either<u32>), Some(&inst));
        assert_eq!(
            at_u32(syn::parse_quote!(fn into_iter(self) -> L::IntoIter where L: IntoIterator))
                .as_deref(),
            Some("where clause")
        );
        assert_eq!(
            at_u32(syn::parse_quote!(fn iter(&self) -> u8 where for<'a> &'a L: IntoIterator))
                .as_deref(),
            Some("where clause")
        );
        assert_eq!(at_u32(syn::parse_quote!(fn is_left(&self) -> bool)), None);
        assert_eq!(
            why(syn::parse_quote!(fn join(&self, p: impl AsRef<str>) -> String)).as_deref(),
            Some("`impl Trait` parameter")
        );
        assert_eq!(
            why(syn::parse_quote!(fn as_pin_ref(self: Pin<&Self>) -> Pin<&u32>)).as_deref(),
            Some("the receiver `self: Pin<&Self>`")
        );
        // A receiver that borrows is decided by its type's form, at run time.
        let borrowed = uncarvable(
            &syn::parse_quote!(fn count(&self) -> usize),
            &syn::parse_quote!(Words<'static>),
            None,
        );
        assert_eq!(borrowed, None);
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
