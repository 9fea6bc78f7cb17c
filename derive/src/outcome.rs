//! How a target's return value is captured: the runtime's form of each part
//! of the return type, chosen part by part where the type's spelling shows
//! its parts (`Result`, `Option`, tuples), so that `Result<Version,
//! ParseError>` keeps a serde `Version` structured when `ParseError` is
//! only `Display` and `Debug`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::Type;

use crate::first_span;
use crate::names::peel;
use crate::params::{is_byte_string, is_u8, type_args};

/// A closure `|value: &R| -> Result<Value, CaptureError>` capturing a
/// return value of type `ty` (`None`: `()`). Its parameter's type is written
/// out only with `annotate` (outside the function, the type's lifetimes are
/// not in scope; inference finds it there). With `check`, each part's form
/// is checked, so that a part carve cannot carve is a compile error at its
/// span; generated code checks once per target.
pub fn capture_closure(ty: Option<&Type>, annotate: bool, check: Checks) -> TokenStream {
    let value = format_ident!("__carve_v");
    let body = Capture {
        check,
        bindings: 0,
        deferred: false,
    }
    .expr(ty, &value);
    let param = match ty {
        Some(ty) if annotate => quote!(#value: &#ty),
        None if annotate => quote!(#value: &()),
        _ => quote!(#value),
    };
    quote!(|#param| -> ::core::result::Result<::carve::_macro_support::Value, ::carve::_macro_support::CaptureError> { #body })
}

/// A closure that puts a return value of type `ty` (a reference to it) in
/// the recorder's `OutcomeSink`, taken apart as [`capture_closure`] takes it,
/// each part deferred (`Deferred`): the recorder keys a repeated call from
/// the value itself, and builds its `Value` only for a new call.
pub fn sink_closure(ty: Option<&Type>, check: Checks) -> TokenStream {
    let value = format_ident!("__carve_v");
    let body = Capture {
        check,
        bindings: 0,
        deferred: true,
    }
    .expr(ty, &value);
    let param = match ty {
        Some(ty) => quote!(#value: &#ty),
        None => quote!(#value: &()),
    };
    quote!(|#param, __carve_sink: &mut ::carve::_macro_support::OutcomeSink<'_>| -> ::core::result::Result<(), ::carve::_macro_support::CaptureError> {
        __carve_sink.put(#body)
    })
}

/// The most parts of a tuple a deferred capture takes apart (`TupleParts`).
const DEFERRED_TUPLE: usize = 12;

/// Which parts of a return value [`capture_closure`] checks.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Checks {
    /// Every part: one carve cannot carve is a compile error.
    All,
    /// Only parts whose type the spelling does not show (`Result<T>` of an
    /// alias): the others are asked with [`typed_parts`] instead, and make
    /// the method skipped.
    Untyped,
    /// None (the check is made elsewhere).
    None,
}

/// The parts of a return type `ty` that are captured whole, as
/// [`capture_closure`] splits it (`Result<Version, Error>`: `Version` and
/// `Error`), with their lifetimes `'static`; byte strings, which need no
/// form, and parts whose type the spelling does not show are left out.
pub fn typed_parts(ty: Option<&Type>) -> Vec<Type> {
    let mut parts = Vec::new();
    collect_parts(ty, &mut parts);
    parts
}

fn collect_parts(ty: Option<&Type>, parts: &mut Vec<Type>) {
    let Some(ty) = ty else {
        return;
    };
    let ty = peel(ty);
    if is_byte_string(ty) || is_byte_slice_ref(ty) {
        return;
    }
    match ty {
        // A supertrait's `Self::Owned`, left to inference: not spelled.
        Type::Infer(_) => {}
        Type::Path(p) if p.qself.is_none() => {
            let args = p
                .path
                .segments
                .last()
                .map(|last| (last.ident.to_string(), type_args(&last.arguments)));
            match args.as_ref().map(|(name, args)| (name.as_str(), &args[..])) {
                Some(("Result", [ok, rest @ ..])) if rest.len() <= 1 => {
                    collect_parts(Some(ok), parts);
                    collect_parts(rest.first().copied(), parts);
                }
                Some(("Option", [some])) => collect_parts(Some(some), parts),
                _ => parts.push(ty.clone()),
            }
        }
        Type::Tuple(tuple) if !tuple.elems.is_empty() => {
            for elem in &tuple.elems {
                collect_parts(Some(elem), parts);
            }
        }
        _ => parts.push(ty.clone()),
    }
}

struct Capture {
    check: Checks,
    /// How many match bindings were made, for their names.
    bindings: usize,
    /// Whether the expression is a `Deferred` ([`sink_closure`]) rather
    /// than a captured `Result<Value, CaptureError>`.
    deferred: bool,
}

impl Capture {
    /// An expression capturing `value` (a reference to a `ty`, when known).
    fn expr(&mut self, ty: Option<&Type>, value: &syn::Ident) -> TokenStream {
        let Some(ty) = ty else {
            return self.leaf(None, value);
        };
        let ty = peel(ty);
        if is_byte_string(ty) || is_byte_slice_ref(ty) {
            return match self.deferred {
                true => quote!(::carve::_macro_support::defer_bytes(#value)),
                false => quote!(::carve::_macro_support::capture_bytes(#value)),
            };
        }
        match ty {
            Type::Path(p) if p.qself.is_none() => {
                let Some(last) = p.path.segments.last() else {
                    return self.leaf(Some(ty), value);
                };
                let args = type_args(&last.arguments);
                match (last.ident.to_string().as_str(), &args[..]) {
                    ("Result", [ok, rest @ ..]) if rest.len() <= 1 => {
                        let (o, e) = (self.binding(), self.binding());
                        // A crate's own `Result<T>` may wrap `T` in its
                        // `Ok` (httparse's `Result<Status<T>, Error>`): a
                        // `T` whose parts would be taken apart is captured
                        // whole, in the form of the `Ok` value's own type.
                        let ok = match rest.is_empty() && has_parts(ok) {
                            true => self.leaf(Some(ok), &o),
                            false => self.expr(Some(ok), &o),
                        };
                        let err = self.expr(rest.first().copied(), &e);
                        if self.deferred {
                            return quote!(match #value {
                                ::core::result::Result::Ok(#o) => ::carve::_macro_support::ResultParts::Ok(#ok),
                                ::core::result::Result::Err(#e) => ::carve::_macro_support::ResultParts::Err(#err),
                            });
                        }
                        quote!(match #value {
                            ::core::result::Result::Ok(#o) => ::carve::_macro_support::ok_variant(#ok),
                            ::core::result::Result::Err(#e) => ::carve::_macro_support::err_variant(#err),
                        })
                    }
                    ("Option", [some]) => {
                        let s = self.binding();
                        let inner = self.expr(Some(some), &s);
                        if self.deferred {
                            return quote!(match #value {
                                ::core::option::Option::Some(#s) => ::carve::_macro_support::OptionParts::Some(#inner),
                                ::core::option::Option::None => ::carve::_macro_support::OptionParts::None,
                            });
                        }
                        quote!(match #value {
                            ::core::option::Option::Some(#s) => ::carve::_macro_support::some_value(#inner),
                            ::core::option::Option::None => ::core::result::Result::Ok(::carve::_macro_support::Value::None),
                        })
                    }
                    _ => self.leaf(Some(ty), value),
                }
            }
            Type::Tuple(tuple) if !tuple.elems.is_empty() => {
                // A tuple too long for `TupleParts` is captured whole (a
                // captured value is a `Deferred` too).
                let deferred = self.deferred;
                self.deferred = deferred && tuple.elems.len() <= DEFERRED_TUPLE;
                let parts = tuple.elems.iter().enumerate().map(|(i, elem)| {
                    let part = self.binding();
                    let index = syn::Index::from(i);
                    let inner = self.expr(Some(elem), &part);
                    quote!({ let #part = &#value.#index; #inner })
                });
                let parts: Vec<_> = parts.collect();
                let expr = match self.deferred {
                    true => quote!(::carve::_macro_support::TupleParts((#(#parts,)*))),
                    false => quote!(::carve::_macro_support::tuple_value([#(#parts),*])),
                };
                self.deferred = deferred;
                expr
            }
            _ => self.leaf(Some(ty), value),
        }
    }

    /// A part captured whole, in the form the runtime's probe picks.
    fn leaf(&self, ty: Option<&Type>, value: &syn::Ident) -> TokenStream {
        let span = ty.map_or_else(proc_macro2::Span::call_site, first_span);
        let check = match self.check {
            Checks::All => true,
            Checks::Untyped => matches!(ty, None | Some(Type::Infer(_))),
            Checks::None => false,
        }
        .then(|| quote_spanned!(span=> __carve_form.check();));
        let method = match self.deferred {
            true => format_ident!("defer"),
            false => format_ident!("capture"),
        };
        quote_spanned!(span=> {
            #[allow(unused_imports)]
            use ::carve::_macro_support::{
                ViaDebug as _, ViaDisplay as _, ViaDisplayDebug as _, ViaNeither as _, ViaSerialize as _,
            };
            let __carve_form = (&&&&&::carve::_macro_support::OutcomeProbe(#value)).outcome_form();
            #check
            __carve_form.#method(#value)
        })
    }

    fn binding(&mut self) -> syn::Ident {
        self.bindings += 1;
        format_ident!("__carve_v{}", self.bindings)
    }
}

/// Whether [`Capture::expr`] takes a value of type `ty` apart: a tuple, a
/// `Result`, an `Option`.
fn has_parts(ty: &Type) -> bool {
    match peel(ty) {
        Type::Tuple(tuple) => !tuple.elems.is_empty(),
        Type::Path(p) if p.qself.is_none() => p
            .path
            .segments
            .last()
            .is_some_and(|last| last.ident == "Result" || last.ident == "Option"),
        _ => false,
    }
}

/// `&[u8]` (any lifetime).
fn is_byte_slice_ref(ty: &Type) -> bool {
    matches!(ty, Type::Reference(r) if r.mutability.is_none()
        && matches!(&*r.elem, Type::Slice(s)
            if is_u8(&s.elem)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn capture(ty: Type) -> String {
        capture_closure(Some(&ty), false, Checks::None).to_string()
    }

    #[test]
    fn a_crates_own_one_argument_result_keeps_its_ok_value_whole() {
        // httparse's `Result<T> = Result<Status<T>, Error>`: the `Ok` value
        // is a `Status`, not the tuple, nor an `Option`, spelled.
        for ty in [
            syn::parse_quote!(Result<(usize, &'h [Header<'b>])>),
            syn::parse_quote!(Result<Option<u8>>),
            syn::parse_quote!(io::Result<Result<u8, E>>),
        ] {
            let text = capture(ty);
            assert!(!text.contains(". 0"), "{text}");
            assert!(!text.contains("Option :: Some"), "{text}");
            assert!(!text.contains("Result :: Ok (__carve_v3)"), "{text}");
        }
        // With both sides spelled, and a one-argument `Result` of a part
        // that is not taken apart, the parts are as before.
        assert!(capture(syn::parse_quote!(Result<(usize, u64), E>)).contains("__carve_v1 . 0"));
        assert!(capture(syn::parse_quote!(Result<Option<u8>, E>)).contains("Option :: Some"));
        assert!(capture(syn::parse_quote!(io::Result<Vec<u8>>)).contains("capture_bytes"));
    }
}
