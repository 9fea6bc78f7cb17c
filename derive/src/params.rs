//! Parameters of a target: how each is recorded, replayed and passed.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::visit::Visit;
use syn::visit_mut::VisitMut;
use syn::{FnArg, GenericParam, Ident, Pat, ReceiverKind, ReturnType, Signature, Type};

use crate::generics::{has_impl_trait, replace_impl_trait, Inst};
use crate::{first_span, Errors};

/// How the replayed (owned) value is passed to the target.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Pass {
    /// By value.
    Value,
    /// As `&value` (also `&str` from `String`, `&[T]` from `Vec<T>`).
    Ref,
    /// As `&mut value`; its state after the call is recorded.
    RefMut,
}

/// One parameter (the receiver included).
pub struct Param {
    /// The name arguments are recorded under.
    pub name: String,
    /// The identifier the wrapper binds it to.
    pub binding: Ident,
    /// A destructuring pattern, applied after the arguments are captured.
    pub pattern: Option<Pat>,
    /// The owned type carved arguments deserialize into.
    pub owned: Type,
    /// How the owned value is passed.
    pub pass: Pass,
    /// Tokens errors and checks point at.
    pub span: Span,
    /// The parameter's type as the function's body names it, with an
    /// instantiation's types in place of generic parameters: a generic
    /// target reads its argument as this type to capture it.
    pub subst_ty: Type,
}

impl Param {
    /// An expression for the runtime's form of this parameter's type (see
    /// the runtime's `value::form`); its methods capture, serialize,
    /// deserialize and `check` values of the type: byte strings by their
    /// spelling, anything else by the runtime's probe (serde, else text).
    pub fn form(&self) -> TokenStream {
        let owned = &self.owned;
        if is_byte_string(owned) {
            return quote_spanned!(self.span=> ::carve::_macro_support::BytesForm::<#owned>::new());
        }
        quote_spanned!(self.span=> {
            #[allow(unused_imports)]
            use ::carve::_macro_support::{ViaNothing as _, ViaSerde as _, ViaSerializeOnly as _, ViaText as _};
            (&&&&::carve::_macro_support::ArgProbe::<#owned>::new()).arg_form()
        })
    }

    /// A reference to the value bound to `binding` (of the parameter's type
    /// as written), for the form's `capture`.
    pub fn view(&self, binding: &Ident) -> TokenStream {
        match self.pass {
            Pass::Value => quote!(&#binding),
            Pass::Ref => quote!(#binding),
            Pass::RefMut => quote!(&*#binding),
        }
    }

    /// [`Param::view`] of a generic target's parameter: `binding` (of the
    /// generic type as written) read as the instantiation's type.
    pub fn cast_view(&self, binding: &Ident) -> TokenStream {
        let ty = &self.subst_ty;
        let cast = quote!(::carve::_macro_support::cast_ref::<_, #ty>(&#binding));
        match self.pass {
            Pass::Value => cast,
            Pass::Ref => quote!(*#cast),
            Pass::RefMut => quote!(&**#cast),
        }
    }

    /// The expression passing `value` (an owned binding) to the target.
    pub fn pass(&self, value: &Ident) -> TokenStream {
        match self.pass {
            Pass::Value => quote!(#value),
            Pass::Ref => quote!(&#value),
            Pass::RefMut => quote!(&mut #value),
        }
    }
}

/// Checks a target's signature and describes its parameters. Pattern
/// parameters are renamed in `sig` (their pattern is applied in the body).
/// `inst`: the instantiation a generic target is carved at (its types
/// replace the generic parameters and `impl Trait` parameters, which the
/// caller checked are all bound); without one, generic parameters are
/// errors that name the attribute's `generics(…)`.
pub fn analyze(
    sig: &mut Signature,
    self_ty: Option<&Type>,
    inst: Option<&Inst>,
    errors: &mut Errors,
) -> Vec<Param> {
    if let Some(c) = &sig.constness {
        errors.spanned(
            c,
            "carve cannot carve a `const fn`: remove `const` or `#[carve::target]`",
        );
    }
    if let syn::Safety::Unsafe(u) = &sig.safety {
        errors.spanned(
            u,
            "carve cannot carve an `unsafe fn`: a replayed call cannot uphold its safety \
             conditions. Carve the safe function that calls it",
        );
    }
    if let Some(v) = &sig.variadic {
        errors.spanned(v, "carve cannot carve a variadic function");
    }
    // A generic parameter is reported once, at its declaration (which
    // names the attribute that binds it), not again at each use.
    for param in &sig.generics.params {
        match param {
            GenericParam::Type(_) if inst.is_some() => {}
            GenericParam::Type(t) => {
                errors.spanned(
                    t,
                    format!(
                        "`{0}` is generic: carve carves the function at the types you name \
                         in its attribute, `#[carve::target(generics({0} = String))]` (one \
                         `generics(…)` per instantiation).",
                        t.ident
                    ),
                );
            }
            GenericParam::Const(c) => {
                errors.spanned(c, "carve cannot carve a function with const generics");
            }
            GenericParam::Lifetime(_) => {}
        }
    }
    if let ReturnType::Type(_, ty) = &sig.output {
        let ty = inst.map_or_else(|| (**ty).clone(), |inst| inst.apply(ty));
        let mut check = TypeCheck {
            errors,
            what: "the return type",
            in_return_type: true,
        };
        check.visit_type(&ty);
    }

    let mut params = Vec::new();
    for (index, input) in sig.inputs.iter_mut().enumerate() {
        match input {
            FnArg::Receiver(receiver) => {
                let Some(self_ty) = self_ty else {
                    errors.spanned(
                        &*receiver,
                        "`#[carve::target]` on a method must go on its impl block: \
                         `#[carve::target] impl T { #[carve::target] fn … }`",
                    );
                    continue;
                };
                let pass = match &receiver.kind {
                    ReceiverKind::Value => Pass::Value,
                    ReceiverKind::Reference(_, _, None) => Pass::Ref,
                    ReceiverKind::Reference(_, _, Some(_)) => Pass::RefMut,
                    _ => {
                        errors.spanned(
                            &*receiver,
                            "carve can carve `self`, `&self` and `&mut self` receivers only",
                        );
                        continue;
                    }
                };
                params.push(Param {
                    name: "self".into(),
                    binding: Ident::new("self", receiver.self_token.span),
                    pattern: None,
                    owned: self_ty.clone(),
                    pass,
                    span: receiver.self_token.span,
                    subst_ty: match pass {
                        Pass::Value => self_ty.clone(),
                        Pass::Ref => syn::parse_quote!(&#self_ty),
                        Pass::RefMut => syn::parse_quote!(&mut #self_ty),
                    },
                });
            }
            FnArg::Typed(pat_type) => {
                let span = first_span(&*pat_type);
                let (name, binding, pattern) = match &*pat_type.pat {
                    Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => {
                        let name = p.ident.to_string();
                        (
                            name.trim_start_matches("r#").to_owned(),
                            p.ident.clone(),
                            None,
                        )
                    }
                    other => {
                        let binding = format_ident!("__carve_arg{}", index);
                        let pattern = other.clone();
                        *pat_type.pat = syn::parse_quote!(#binding);
                        (format!("arg{index}"), binding, Some(pattern))
                    }
                };
                let what = format!("parameter `{name}`");
                // An instantiation's types in place of the generic ones; an
                // `impl Trait` parameter is bound by the parameter's name.
                let ty = match inst {
                    Some(inst) => {
                        let ty = match (
                            has_impl_trait(&pat_type.ty),
                            inst.get(&Ident::new(&name, span)),
                        ) {
                            (true, Some(bound)) => replace_impl_trait(&pat_type.ty, bound),
                            // Unbound: the caller reports it.
                            (true, None) => continue,
                            _ => (*pat_type.ty).clone(),
                        };
                        let mut ty = inst.apply(&ty);
                        if let Some(self_ty) = self_ty {
                            SelfType(self_ty).visit_type_mut(&mut ty);
                        }
                        ty
                    }
                    None => (*pat_type.ty).clone(),
                };
                if inst.is_none() && is_closure(&ty) {
                    errors.spanned(
                        &pat_type.ty,
                        format!(
                            "carve cannot carve {what}: functions and closures cannot be carved"
                        ),
                    );
                    continue;
                }
                if inst.is_none() && has_impl_trait(&ty) {
                    errors.spanned(
                        &pat_type.ty,
                        format!(
                            "{what} is `impl Trait`: carve carves the function at the type \
                             you name for it, by the parameter's name, in its attribute: \
                             `#[carve::target(generics({name} = Vec<u32>))]`"
                        ),
                    );
                    continue;
                }
                let subst_ty = ty.clone();
                let (mut owned, pass) = owned_type(&ty, &what, errors);
                TypeCheck {
                    errors,
                    what: &what,
                    in_return_type: false,
                }
                .visit_type(&owned);
                Normalize { self_ty }.visit_type_mut(&mut owned);
                params.push(Param {
                    name,
                    binding,
                    pattern,
                    owned,
                    pass,
                    span,
                    subst_ty,
                });
            }
        }
    }
    params
}

/// Whether `ty` is an `impl Fn…` (a closure), which no instantiation can carve.
fn is_closure(ty: &Type) -> bool {
    let ty = match ty {
        Type::Reference(r) => &*r.elem,
        ty => ty,
    };
    matches!(ty, Type::ImplTrait(t) if t.bounds.iter().any(|b| matches!(b,
        syn::TypeParamBound::Trait(t) if t.path.segments.last().is_some_and(|s|
            matches!(s.ident.to_string().as_str(), "Fn" | "FnMut" | "FnOnce")))))
}

/// Replaces `Self` in `ty` by the impl's type `self_ty`.
pub fn replace_self(ty: &mut Type, self_ty: &Type) {
    SelfType(self_ty).visit_type_mut(ty);
}

/// Replaces `Self` by the impl's type (an instantiation of it).
struct SelfType<'a>(&'a Type);

impl VisitMut for SelfType<'_> {
    fn visit_type_mut(&mut self, ty: &mut Type) {
        if let Type::Path(p) = &*ty {
            if p.qself.is_none() && p.path.is_ident("Self") {
                *ty = self.0.clone();
                return;
            }
        }
        syn::visit_mut::visit_type_mut(self, ty);
    }
}

/// The owned type carved arguments of a parameter type `ty` deserialize into.
fn owned_type(ty: &Type, what: &str, errors: &mut Errors) -> (Type, Pass) {
    let Type::Reference(reference) = ty else {
        return (ty.clone(), Pass::Value);
    };
    let pass = if reference.mutability.is_some() {
        Pass::RefMut
    } else {
        Pass::Ref
    };
    let owned = match &*reference.elem {
        Type::Path(p) if p.qself.is_none() && p.path.is_ident("str") => {
            if pass == Pass::RefMut {
                errors.spanned(ty, format!("carve cannot carve {what}: `&mut str` is not supported, take `&mut String`"));
            }
            syn::parse_quote!(::carve::_macro_support::std::string::String)
        }
        Type::Slice(slice) => {
            let elem = &slice.elem;
            syn::parse_quote!(::carve::_macro_support::std::vec::Vec<#elem>)
        }
        Type::Path(p) if p.qself.is_none() && p.path.is_ident("Path") => {
            syn::parse_quote!(::carve::_macro_support::std::path::PathBuf)
        }
        Type::Path(p) if p.qself.is_none() && p.path.is_ident("OsStr") => {
            syn::parse_quote!(::carve::_macro_support::std::ffi::OsString)
        }
        elem => elem.clone(),
    };
    (owned, pass)
}

/// Whether `ty` is spelled as a byte string: `Vec<u8>` or `[u8; N]`.
pub fn is_byte_string(ty: &Type) -> bool {
    match ty {
        Type::Array(array) => is_u8(&array.elem),
        Type::Path(p) if p.qself.is_none() => p.path.segments.last().is_some_and(|last| {
            last.ident == "Vec" && matches!(type_args(&last.arguments)[..], [t] if is_u8(t))
        }),
        _ => false,
    }
}

/// Whether `ty` is spelled `u8`.
pub fn is_u8(ty: &Type) -> bool {
    matches!(ty, Type::Path(p) if p.qself.is_none() && p.path.is_ident("u8"))
}

/// The type arguments of a path segment (`<A, B>`), lifetimes left out.
pub fn type_args(args: &syn::PathArguments) -> Vec<&Type> {
    match args {
        syn::PathArguments::AngleBracketed(args) => args
            .args
            .iter()
            .filter_map(|a| match a {
                syn::GenericArgument::Type(t) => Some(t),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// Rejects what cannot be carved inside a type.
struct TypeCheck<'a> {
    errors: &'a mut Errors,
    what: &'a str,
    /// References and trait objects are carvable in a return type (a
    /// borrowed result, a `Box<dyn Error>`), not in parameters.
    in_return_type: bool,
}

impl<'ast> Visit<'ast> for TypeCheck<'_> {
    fn visit_type(&mut self, ty: &'ast Type) {
        let problem = match ty {
            Type::Reference(_) if !self.in_return_type => Some(
                "a reference inside another type cannot be carved: take the outer value by \
                 reference (`&Vec<String>`) or own its items (`Vec<String>`)",
            ),
            Type::ImplTrait(_) => Some(
                "`impl Trait` inside another type cannot be carved: take the `impl Trait` \
                 itself as the parameter and name its type in `generics(…)`",
            ),
            // A returned `Box<dyn Error>` is carved as its `Debug` text.
            Type::TraitObject(_) if !self.in_return_type => {
                Some("a trait object cannot be carved: use a concrete serde type")
            }
            Type::FnPtr(_) => Some("functions and closures cannot be carved"),
            Type::Ptr(_) => Some("raw pointers cannot be carved"),
            Type::Infer(_) | Type::Never(_) => Some("this type cannot be carved"),
            _ => None,
        };
        match problem {
            Some(problem) => self
                .errors
                .spanned(ty, format!("carve cannot carve {}: {problem}", self.what)),
            None => syn::visit::visit_type(self, ty),
        }
    }
}

/// Makes a parameter type nameable outside its function: lifetimes become
/// `'static` and `Self` becomes the impl's type.
struct Normalize<'a> {
    self_ty: Option<&'a Type>,
}

impl VisitMut for Normalize<'_> {
    fn visit_lifetime_mut(&mut self, lifetime: &mut syn::Lifetime) {
        *lifetime = syn::Lifetime::new("'static", lifetime.span());
    }

    fn visit_type_mut(&mut self, ty: &mut Type) {
        if let (Type::Path(p), Some(self_ty)) = (&*ty, self.self_ty) {
            if p.qself.is_none() && p.path.is_ident("Self") {
                *ty = self_ty.clone();
                return;
            }
        }
        syn::visit_mut::visit_type_mut(self, ty);
    }
}

/// A signature shown in messages: tokens with rustfmt-like spacing.
pub fn display_signature(sig: &Signature) -> String {
    let mut s = sig.to_token_stream().to_string();
    for (from, to) in [
        (" (", "("),
        ("( ", "("),
        (" )", ")"),
        (" : ", ": "),
        (" ,", ","),
        ("& ", "&"),
        (" <", "<"),
        ("< ", "<"),
        (" >", ">"),
        ("' ", "'"),
        (" ::", "::"),
        (":: ", "::"),
        ("mut self", "mut self"),
    ] {
        s = s.replace(from, to);
    }
    s.replace("->", " -> ").replace("  ", " ")
}
