//! Parameters of a target: how each is recorded, replayed and passed.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::visit::Visit;
use syn::visit_mut::VisitMut;
use syn::{FnArg, GenericParam, Ident, Pat, ReceiverKind, ReturnType, Signature, Type};

use crate::generics::{has_impl_trait, replace_impl_trait, Inst};
use crate::names::peel;
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
    /// The `&mut Formatter` of a `fmt` method: carved as the runtime's
    /// `FormatSpec`, and replayed by formatting with that spec (the call
    /// runs inside the runtime's `format_with`, which passes `__carve_f`).
    Format,
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
    /// A `&'static T` parameter, or one with a `'static` reference inside
    /// (`&[&'static str]`): the owned value is leaked to live as long.
    pub leaked: bool,
    /// How the passed value is lent from the owned one, for a type with
    /// references inside (`Option<&str>`); `None`: the owned value itself.
    pub lend: Option<Lend>,
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
        // A type with a lifetime parameter may borrow what it deserializes
        // from, which the runtime's serde form cannot tell: it is read
        // from text that lives as long as the program.
        if has_lifetime_arg(owned) {
            return quote_spanned!(self.span=> {
                #[allow(unused_imports)]
                use ::carve::_macro_support::{ViaBorrowedSerde as _, ViaNothing as _, ViaSerde as _, ViaSerializeOnly as _, ViaText as _};
                (&&&&&::carve::_macro_support::ArgProbe::<#owned>::new()).arg_form()
            });
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
            Pass::RefMut | Pass::Format => quote!(&*#binding),
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
            Pass::RefMut | Pass::Format => quote!(&**#cast),
        }
    }

    /// A statement binding the value lent from `value` (an owned binding)
    /// for [`Param::pass`], for a type with references inside.
    pub fn lent(&self, value: &Ident) -> Option<TokenStream> {
        let lend = self.lend.as_ref()?;
        let lent = lent_binding(value);
        // `&[&'static str]`: the owned items are leaked to live as long.
        let owned = match self.leaked {
            true => quote!(::carve::_macro_support::leak(#value)),
            false => quote!(&#value),
        };
        let expr = lend.expr(owned);
        // Outside the call's coverage, as rebuilding the owned value is.
        Some(quote!(let #lent = ::carve::_macro_support::setup(|| #expr);))
    }

    /// The expression passing `value` (an owned binding) to the target.
    pub fn pass(&self, value: &Ident) -> TokenStream {
        if self.lend.is_some() {
            let lent = lent_binding(value);
            return match self.pass {
                Pass::Ref => quote!(&#lent),
                _ => quote!(#lent),
            };
        }
        match self.pass {
            Pass::Value => quote!(#value),
            Pass::Ref if self.leaked => quote!(::carve::_macro_support::leak(#value)),
            Pass::Ref => quote!(&#value),
            Pass::RefMut => quote!(&mut #value),
            Pass::Format => quote!(__carve_f),
        }
    }

    /// The capture of this parameter's value bound to `binding`, made when
    /// the recorder asks: a `Deferred` (the runtime keys a repeated call
    /// from the value itself, and builds its `Value` only for a new one).
    pub fn capture(&self, view: TokenStream) -> TokenStream {
        match self.pass {
            Pass::Format => quote!(::carve::_macro_support::FormatSpec::capture(#view)),
            _ => {
                let form = self.form();
                quote!(#form.defer(#view))
            }
        }
    }
}

/// The binding [`Param::lent`] makes and [`Param::pass`] passes.
fn lent_binding(value: &Ident) -> Ident {
    format_ident!("{}_lent", value)
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
    // names the attribute that binds it), not again at each use. One bound
    // by `Fn…` is a closure, which no `generics(…)` can name: the function
    // cannot be carved, and naming its other parameters would not help.
    let closures: Vec<(&Ident, &'static str)> = match inst {
        Some(_) => Vec::new(),
        None => sig
            .generics
            .type_params()
            .filter_map(|t| {
                closure_bound(t, sig.generics.where_clause.as_ref()).map(|f| (&t.ident, f))
            })
            .collect(),
    };
    for (ident, bound) in &closures {
        errors.spanned(
            ident,
            format!(
                "`{ident}` is a closure type (bound by `{bound}`): functions and closures cannot \
                 be carved, at any `generics(…)`. Carve the functions that call this one with \
                 a closure, or use `#[carve::instrument]` instead of `#[carve::target]` to \
                 measure its branch coverage"
            ),
        );
    }
    for param in &sig.generics.params {
        match param {
            GenericParam::Type(_) if inst.is_some() || !closures.is_empty() => {}
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
            GenericParam::Const(_) if inst.is_some() => {}
            GenericParam::Const(c) => {
                errors.spanned(
                    c,
                    format!(
                        "`{0}` is a const generic: carve carves the function at the values you \
                         name in its attribute, `#[carve::target(generics({0} = 4))]` (a \
                         literal or a `{{ … }}` block; one `generics(…)` per instantiation).",
                        c.ident
                    ),
                );
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
                        // `self: Pin<&Self>` (either's `as_pin_ref`).
                        let written = display_signature(&syn::parse_quote!(fn f(#receiver)));
                        let written = written
                            .trim_start_matches("fn f(")
                            .trim_end_matches(')')
                            .to_owned();
                        errors.spanned(
                            &*receiver,
                            format!(
                                "carve cannot carve the receiver `{written}`: it carves `self`, \
                                 `&self` and `&mut self` receivers only"
                            ),
                        );
                        continue;
                    }
                };
                // `impl BitAnd for &FixedBitSet`: a `self` that is a shared
                // reference is carved as a `&self` of the type it borrows.
                let (self_ty, pass) = match (peel(self_ty), pass) {
                    (Type::Reference(r), Pass::Value) if r.mutability.is_none() => {
                        (&*r.elem, Pass::Ref)
                    }
                    _ => (self_ty, pass),
                };
                params.push(Param {
                    name: "self".into(),
                    binding: Ident::new("self", receiver.self_token.span),
                    pattern: None,
                    // `impl Trait for str`: a `&self` is lent from a `String`;
                    // a crate's own unsized type (camino's `Utf8Path`) from the
                    // type its `carve::Twin` names.
                    owned: unsized_twin(self_ty).unwrap_or_else(|| match pass {
                        Pass::Value => self_ty.clone(),
                        Pass::Ref | Pass::RefMut | Pass::Format => twin_of(self_ty),
                    }),
                    pass,
                    leaked: false,
                    lend: None,
                    span: receiver.self_token.span,
                    subst_ty: match pass {
                        Pass::Value => self_ty.clone(),
                        Pass::Ref => syn::parse_quote!(&#self_ty),
                        Pass::RefMut | Pass::Format => syn::parse_quote!(&mut #self_ty),
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
                if is_formatter(&pat_type.ty, &sig.output) {
                    params.push(Param {
                        name,
                        binding,
                        pattern,
                        owned: syn::parse_quote!(::carve::_macro_support::FormatSpec),
                        pass: Pass::Format,
                        leaked: false,
                        lend: None,
                        span,
                        subst_ty: (*pat_type.ty).clone(),
                    });
                    continue;
                }
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
                            SelfType(self_ty, None).visit_type_mut(&mut ty);
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
                let (mut owned, pass, lend) = owned_type(&ty, &what, errors);
                let leaked = match lend {
                    None => matches!(&ty, Type::Reference(r) if r.mutability.is_none()
                        && r.lifetime.as_ref().is_some_and(|l| l.ident == "static")),
                    Some(_) => mentions_static(&ty),
                };
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
                    leaked,
                    lend,
                    span,
                    subst_ty,
                });
            }
        }
    }
    // A `fmt` method's call is asked again into a buffer for its outcome
    // (the text it writes), so it must not take anything by value or
    // `&mut` besides its `Formatter`.
    if params.iter().any(|p| p.pass == Pass::Format) {
        for p in params
            .iter()
            .filter(|p| matches!(p.pass, Pass::Value | Pass::RefMut))
        {
            let span = p.span;
            errors.spanned(
                quote_spanned!(span=> _),
                format!(
                    "carve carves a function with a `&mut Formatter` beside `&self` and shared \
                     references only, not beside {}: its outcome is the text it writes, which \
                     carve asks for again",
                    match p.name.as_str() {
                        "self" => "`self` by value or `&mut self`".to_owned(),
                        name => format!("parameter `{name}` (by value or `&mut`)"),
                    }
                ),
            );
        }
    }
    params
}

/// Whether `ty` is `&mut fmt::Formatter` (as `fmt::Formatter<'_>`,
/// `std::fmt::Formatter`, or `Formatter` in a function returning
/// `fmt::Result` or an imported `Result`).
pub fn is_formatter(ty: &Type, output: &ReturnType) -> bool {
    let Type::Reference(r) = ty else {
        return false;
    };
    let Type::Path(path) = &*r.elem else {
        return false;
    };
    let segments: Vec<String> = path
        .path
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    let fmt_result = match output {
        ReturnType::Type(_, ty) => match &**ty {
            Type::Path(p) => p
                .path
                .segments
                .last()
                .is_some_and(|s| s.ident == "Result" && s.arguments.is_none()),
            _ => false,
        },
        ReturnType::Default => false,
    };
    r.mutability.is_some()
        && path.qself.is_none()
        && match segments.as_slice() {
            [.., fmt, formatter] => fmt == "fmt" && formatter == "Formatter",
            [formatter] => formatter == "Formatter" && fmt_result,
            [] => false,
        }
}

/// The `Fn…` trait that bounds the type parameter `param`, inline or in
/// `where_clause` (`Skip: for<'a> FnMut(&'a T) -> bool`): a closure type.
fn closure_bound(
    param: &syn::TypeParam,
    where_clause: Option<&syn::WhereClause>,
) -> Option<&'static str> {
    let in_where = where_clause.into_iter().flat_map(|w| &w.predicates).filter_map(|p| match p {
        syn::WherePredicate::Type(p)
            if matches!(&p.bounded_ty, Type::Path(t) if t.qself.is_none() && t.path.is_ident(&param.ident)) =>
        {
            Some(&p.bounds)
        }
        _ => None,
    });
    std::iter::once(&param.bounds)
        .chain(in_where)
        .flatten()
        .find_map(fn_trait)
}

/// `Fn`, `FnMut` or `FnOnce`, where `bound` is one of them.
fn fn_trait(bound: &syn::TypeParamBound) -> Option<&'static str> {
    let syn::TypeParamBound::Trait(t) = bound else {
        return None;
    };
    match t.path.segments.last()?.ident.to_string().as_str() {
        "Fn" => Some("Fn"),
        "FnMut" => Some("FnMut"),
        "FnOnce" => Some("FnOnce"),
        _ => None,
    }
}

/// Whether `ty` is an `impl Fn…` (a closure), which no instantiation can carve.
pub fn is_closure(ty: &Type) -> bool {
    let ty = match ty {
        Type::Reference(r) => &*r.elem,
        ty => ty,
    };
    matches!(ty, Type::ImplTrait(t) if t.bounds.iter().any(|b| fn_trait(b).is_some()))
}

/// Replaces `Self` in `ty` by the impl's type `self_ty`.
/// In a trait impl (`trait_path`), `Self::Err` becomes `<Type as
/// Trait>::Err`: a generic target names its return type at an
/// instantiation, where `Self::Err` would still be the generic one. An
/// associated type the impl does not define (`trait_types`) is a
/// supertrait's, which `<Type as Trait>::Owned` does not name (heck's
/// `ToKebabCase: ToOwned`): it becomes `_`, which the code that reads the
/// returned value infers.
pub fn replace_self(
    ty: &mut Type,
    self_ty: &Type,
    trait_path: Option<&syn::Path>,
    trait_types: &[Ident],
) {
    SelfType(self_ty, trait_path.map(|p| (p, trait_types))).visit_type_mut(ty);
}

/// Replaces `Self` by the impl's type (an instantiation of it), and
/// `Self::Assoc` by the trait's associated type of it (`_` for one the
/// impl does not define).
struct SelfType<'a>(&'a Type, Option<(&'a syn::Path, &'a [Ident])>);

impl VisitMut for SelfType<'_> {
    fn visit_type_mut(&mut self, ty: &mut Type) {
        if let Type::Path(p) = &*ty {
            if p.qself.is_none() && p.path.is_ident("Self") {
                *ty = located_at(self.0, first_span(&*ty));
                return;
            }
            let starts_with_self = p.qself.is_none()
                && p.path.leading_colon.is_none()
                && p.path.segments.len() > 1
                && p.path.segments[0].ident == "Self"
                && p.path.segments[0].arguments.is_none();
            if let (true, Some((trait_path, defined))) = (starts_with_self, self.1) {
                let self_ty = self.0;
                let mut rest = p.path.segments.clone().into_iter().skip(1);
                let Some(first) = rest.next() else {
                    return;
                };
                if !defined.contains(&first.ident) {
                    *ty = syn::parse_quote!(_);
                    return;
                }
                let rest: Vec<_> = rest.collect();
                *ty = syn::parse_quote!(<#self_ty as #trait_path>::#first #(::#rest)*);
                return;
            }
        }
        syn::visit_mut::visit_type_mut(self, ty);
    }
}

/// `ty` with every token located at `span` (where `Self` was written), its
/// name resolution kept: an error about the type of a method's `-> Self`
/// then points at that method, not at the impl block's header.
fn located_at(ty: &Type, span: Span) -> Type {
    fn relocate(tokens: TokenStream, span: Span) -> TokenStream {
        use proc_macro2::{Group, TokenTree};
        tokens
            .into_iter()
            .map(|mut token| {
                if let TokenTree::Group(group) = &token {
                    let mut new = Group::new(group.delimiter(), relocate(group.stream(), span));
                    new.set_span(group.span().located_at(span));
                    token = TokenTree::Group(new);
                } else {
                    token.set_span(token.span().located_at(span));
                }
                token
            })
            .collect()
    }
    syn::parse2(relocate(ty.to_token_stream(), span)).unwrap_or_else(|_| ty.clone())
}

/// The owned type carved arguments of a parameter type `ty` deserialize
/// into, how it is passed, and how it is lent when `ty` holds references
/// below its top (`Option<&str>` from `Option<String>`).
fn owned_type(ty: &Type, what: &str, errors: &mut Errors) -> (Type, Pass, Option<Lend>) {
    let Type::Reference(reference) = ty else {
        return match lend(ty) {
            Some((owned, lend)) if holds_reference(ty) => (owned, Pass::Value, Some(lend)),
            // A reference the lending does not reach: the type check names it.
            _ => (ty.clone(), Pass::Value, None),
        };
    };
    let pass = if reference.mutability.is_some() {
        Pass::RefMut
    } else {
        Pass::Ref
    };
    // `&[&str]`, `&Vec<&str>`: the lent items are kept in a value of their
    // own, passed by reference.
    if pass == Pass::Ref && holds_reference(&reference.elem) {
        let elem = match &*reference.elem {
            Type::Slice(slice) => {
                let item = &slice.elem;
                syn::parse_quote!(Vec<#item>)
            }
            elem => elem.clone(),
        };
        if let Some((owned, lend)) = lend(&elem) {
            return (owned, pass, Some(lend));
        }
    }
    if pass == Pass::RefMut && is_str(&reference.elem) {
        errors.spanned(
            ty,
            format!("carve cannot carve {what}: `&mut str` is not supported, take `&mut String`"),
        );
    }
    let owned = unsized_twin(&reference.elem).unwrap_or_else(|| twin_of(&reference.elem));
    (owned, pass, None)
}

/// The owned type a `&T` or `&mut T` of a named type is rebuilt as: `T`
/// itself when it is sized, else the owned type its `carve::Twin` names
/// (ascii's `&AsciiStr` from an `AsciiString`), which derefs to it.
fn twin_of(ty: &Type) -> Type {
    match ty {
        Type::Path(p) if p.qself.is_none() && !is_byte_string(ty) => {
            syn::parse_quote!(<#ty as ::carve::Twin>::Owned)
        }
        _ => ty.clone(),
    }
}

/// How a value of a type with references inside (`Option<&str>`,
/// `Vec<&str>`, `(&str, u32)`) is lent from its owned twin (`Option<String>`,
/// `Vec<String>`, `(String, u32)`): carved arguments deserialize into the
/// twin, and the call gets a value that borrows from it.
#[derive(Clone, Debug, PartialEq)]
pub enum Lend {
    /// A part without references, cloned (the `u32` of `(&str, u32)`).
    Clone,
    /// `&str`, `&[T]`, `&Path`, `&OsStr` from `String`, `Vec<T>`, `PathBuf`,
    /// `OsString`.
    Deref,
    /// `&T` from `T`.
    Borrow,
    /// `Option<A>` from `Option<owned A>`.
    Option(Box<Lend>),
    /// `Vec<A>` from `Vec<owned A>`.
    Vec(Box<Lend>),
    /// `[A; N]` from `[owned A; N]`.
    Array(Box<Lend>),
    /// `(A, B, …)` from `(owned A, owned B, …)`.
    Tuple(Vec<Lend>),
}

impl Lend {
    /// An expression of the lent value, from `owned`, an expression of a
    /// reference to the owned twin.
    pub fn expr(&self, owned: TokenStream) -> TokenStream {
        let item = || quote!(__carve_item);
        match self {
            Lend::Clone => quote!(::core::clone::Clone::clone(#owned)),
            Lend::Deref => quote!(::core::ops::Deref::deref(#owned)),
            Lend::Borrow => owned,
            Lend::Option(inner) => {
                let inner = inner.expr(item());
                quote!(::core::option::Option::as_ref(#owned).map(|__carve_item| #inner))
            }
            Lend::Vec(inner) => {
                let inner = inner.expr(item());
                quote!((#owned).iter().map(|__carve_item| #inner)
                    .collect::<::carve::_macro_support::std::vec::Vec<_>>())
            }
            Lend::Array(inner) => {
                let inner = inner.expr(item());
                quote!(::core::array::from_fn(|__carve_index| {
                    let __carve_item = &(#owned)[__carve_index];
                    #inner
                }))
            }
            Lend::Tuple(parts) => {
                let parts = parts.iter().enumerate().map(|(i, part)| {
                    let i = syn::Index::from(i);
                    part.expr(quote!(&(#owned).#i))
                });
                quote!((#(#parts,)*))
            }
        }
    }
}

/// The owned twin of `ty` and how `ty` is lent from it; `None` where a
/// reference sits where lending cannot reach it (inside a map, a user's
/// type, behind `&mut`, or a reference to a type that itself holds one).
fn lend(ty: &Type) -> Option<(Type, Lend)> {
    if !holds_reference(ty) {
        return Some((ty.clone(), Lend::Clone));
    }
    match ty {
        Type::Reference(r) if r.mutability.is_none() && !holds_reference(&r.elem) => {
            let (owned, lend) = match unsized_twin(&r.elem) {
                Some(owned) => (owned, Lend::Deref),
                None => ((*r.elem).clone(), Lend::Borrow),
            };
            Some((owned, lend))
        }
        Type::Paren(p) => lend(&p.elem),
        Type::Group(g) => lend(&g.elem),
        Type::Tuple(tuple) => {
            let (owned, lends): (Vec<Type>, Vec<Lend>) = tuple
                .elems
                .iter()
                .map(lend)
                .collect::<Option<Vec<_>>>()?
                .into_iter()
                .unzip();
            Some((syn::parse_quote!((#(#owned,)*)), Lend::Tuple(lends)))
        }
        Type::Array(array) => {
            let (owned, inner) = lend(&array.elem)?;
            let len = &array.len;
            Some((
                syn::parse_quote!([#owned; #len]),
                Lend::Array(Box::new(inner)),
            ))
        }
        Type::Path(p) if p.qself.is_none() => {
            let last = p.path.segments.last()?;
            let [item] = type_args(&last.arguments)[..] else {
                return None;
            };
            let (owned, inner) = lend(item)?;
            match last.ident.to_string().as_str() {
                "Option" => Some((
                    syn::parse_quote!(::core::option::Option<#owned>),
                    Lend::Option(Box::new(inner)),
                )),
                "Vec" => Some((
                    syn::parse_quote!(::carve::_macro_support::std::vec::Vec<#owned>),
                    Lend::Vec(Box::new(inner)),
                )),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The owned type that derefs to `ty`, for the unsized types carve takes
/// by reference: `String` for `str`, `Vec<T>` for `[T]`, `PathBuf` for
/// `Path`, `OsString` for `OsStr`.
pub fn unsized_twin(ty: &Type) -> Option<Type> {
    let twin = match ty {
        Type::Slice(slice) => {
            let elem = &slice.elem;
            syn::parse_quote!(::carve::_macro_support::std::vec::Vec<#elem>)
        }
        _ if is_str(ty) => syn::parse_quote!(::carve::_macro_support::std::string::String),
        Type::Path(p) if p.qself.is_none() && p.path.is_ident("Path") => {
            syn::parse_quote!(::carve::_macro_support::std::path::PathBuf)
        }
        Type::Path(p) if p.qself.is_none() && p.path.is_ident("OsStr") => {
            syn::parse_quote!(::carve::_macro_support::std::ffi::OsString)
        }
        _ => return None,
    };
    Some(twin)
}

/// Whether `ty` is spelled `str`.
fn is_str(ty: &Type) -> bool {
    matches!(ty, Type::Path(p) if p.qself.is_none() && p.path.is_ident("str"))
}

/// Whether a function's return type may borrow from its arguments: it
/// holds a reference or a lifetime (`&mut [T]`, `Name<'a>`, `(&str, u8)`).
pub fn returns_borrow(output: &ReturnType) -> bool {
    fn borrows(tokens: TokenStream) -> bool {
        tokens.into_iter().any(|t| match t {
            proc_macro2::TokenTree::Punct(p) => p.as_char() == '&' || p.as_char() == '\'',
            proc_macro2::TokenTree::Group(g) => borrows(g.stream()),
            _ => false,
        })
    }
    match output {
        ReturnType::Default => false,
        ReturnType::Type(_, ty) => borrows(ty.to_token_stream()),
    }
}

/// Whether a function's return type may borrow from its arguments without
/// saying so: it names a type that is not one of the standard library's
/// owned ones, which may have a lifetime parameter its spelling elides
/// (`-> CharsMut` for `CharsMut<'a>`, ascii's `AsciiStr::chars_mut`).
/// Syntax cannot tell `-> CharsMut` from `-> Owned`. `generics`: the type
/// parameters in scope, which hide none.
pub fn may_hide_lifetime(output: &ReturnType, generics: &[Ident]) -> bool {
    struct Finder<'g> {
        generics: &'g [Ident],
        found: bool,
    }
    impl<'ast> Visit<'ast> for Finder<'_> {
        fn visit_type_path(&mut self, p: &'ast syn::TypePath) {
            if p.qself.is_some() {
                // `<T as Trait>::Output`: whatever it is.
                self.found = true;
                return;
            }
            let Some(last) = p.path.segments.last() else {
                return;
            };
            let name = last.ident.to_string();
            let known = OWNED_STD.contains(&name.as_str())
                || name == "Self"
                || (p.path.segments.len() == 1 && self.generics.contains(&last.ident));
            if !known {
                self.found = true;
            }
            syn::visit::visit_type_path(self, p);
        }
    }
    let ReturnType::Type(_, ty) = output else {
        return false;
    };
    let mut finder = Finder {
        generics,
        found: false,
    };
    finder.visit_type(ty);
    finder.found
}

/// Types of the standard library with no lifetime parameter, which a
/// returned value of owns its data in (its type arguments aside).
const OWNED_STD: &[&str] = &[
    "bool",
    "char",
    "str",
    "u8",
    "u16",
    "u32",
    "u64",
    "u128",
    "usize",
    "i8",
    "i16",
    "i32",
    "i64",
    "i128",
    "isize",
    "f32",
    "f64",
    "String",
    "Vec",
    "Option",
    "Result",
    "Box",
    "Rc",
    "Arc",
    "HashMap",
    "HashSet",
    "BTreeMap",
    "BTreeSet",
    "VecDeque",
    "BinaryHeap",
    "PathBuf",
    "OsString",
    "CString",
    "Duration",
    "Ordering",
    "Range",
    "RangeInclusive",
    "NonZeroU8",
    "NonZeroU16",
    "NonZeroU32",
    "NonZeroU64",
    "NonZeroUsize",
    "Infallible",
    "Error",
    "ParseIntError",
    "ParseFloatError",
    "Utf8Error",
    "FromUtf8Error",
];

/// Whether `ty` names a type with a lifetime argument (`Token<'static>`),
/// or a reference among a type's arguments (bs58's `DecodeBuilder<'static,
/// &'static str>`, a block carved at `generics(I = &str)`): other than
/// `Cow`, which owns what it deserializes.
fn has_lifetime_arg(ty: &Type) -> bool {
    struct Finder {
        found: bool,
        in_args: bool,
    }
    impl<'ast> Visit<'ast> for Finder {
        fn visit_path_segment(&mut self, segment: &'ast syn::PathSegment) {
            if let syn::PathArguments::AngleBracketed(args) = &segment.arguments {
                if segment.ident == "Cow" {
                    return syn::visit::visit_path_segment(self, segment);
                }
                self.found |= args
                    .args
                    .iter()
                    .any(|a| matches!(a, syn::GenericArgument::Lifetime(_)));
                let outer = std::mem::replace(&mut self.in_args, true);
                syn::visit::visit_path_segment(self, segment);
                self.in_args = outer;
            }
        }

        fn visit_type_reference(&mut self, reference: &'ast syn::TypeReference) {
            self.found |= self.in_args;
            syn::visit::visit_type_reference(self, reference);
        }
    }
    let mut finder = Finder {
        found: false,
        in_args: false,
    };
    finder.visit_type(ty);
    finder.found
}

/// Whether `ty` names the lifetime `'static` anywhere in it.
fn mentions_static(ty: &Type) -> bool {
    struct Finder(bool);
    impl<'ast> Visit<'ast> for Finder {
        fn visit_lifetime(&mut self, l: &'ast syn::Lifetime) {
            self.0 |= l.ident == "static";
        }
    }
    let mut finder = Finder(false);
    finder.visit_type(ty);
    finder.0
}

/// Whether `ty` holds a reference anywhere in it.
fn holds_reference(ty: &Type) -> bool {
    struct Finder(bool);
    impl<'ast> Visit<'ast> for Finder {
        fn visit_type_reference(&mut self, _: &'ast syn::TypeReference) {
            self.0 = true;
        }
    }
    let mut finder = Finder(false);
    finder.visit_type(ty);
    finder.0
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
                "a reference inside this type cannot be carved: carve lends references \
                 inside `Option`, `Vec`, tuples and arrays (`Option<&str>`, `&[&str]`), not \
                 here; own the items (`HashMap<String, u32>`)",
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_formatter_is_told_by_its_path_or_by_a_fmt_result() {
        let fmt_result: ReturnType = syn::parse_quote!(-> fmt::Result);
        let other: ReturnType = syn::parse_quote!(-> Result<(), Error>);
        let is = |ty: Type, output: &ReturnType| is_formatter(&ty, output);
        assert!(is(syn::parse_quote!(&mut fmt::Formatter<'_>), &other));
        assert!(is(syn::parse_quote!(&mut ::core::fmt::Formatter), &other));
        assert!(is(syn::parse_quote!(&mut Formatter<'a>), &fmt_result));
        assert!(is(
            syn::parse_quote!(&mut Formatter),
            &syn::parse_quote!(-> Result)
        ));
        // A crate's own `Formatter` (serde_json has one), or a shared one.
        assert!(!is(syn::parse_quote!(&mut Formatter), &other));
        assert!(!is(syn::parse_quote!(&mut json::Formatter), &fmt_result));
        assert!(!is(syn::parse_quote!(&fmt::Formatter<'_>), &fmt_result));
    }

    /// The owned twin, pass and lent expression of a parameter type, as text.
    fn twin(ty: Type) -> Option<(String, String)> {
        let mut errors = Errors::default();
        let (owned, _, lend) = owned_type(&ty, "parameter `p`", &mut errors);
        assert!(errors.check().is_ok());
        let lent = lend?.expr(quote!(owned));
        Some((owned.to_token_stream().to_string(), lent.to_string()))
    }

    #[test]
    fn references_inside_options_vecs_tuples_and_arrays_are_lent_from_owned_twins() {
        let (owned, lent) = twin(syn::parse_quote!(Option<&str>)).unwrap();
        assert_eq!(
            owned,
            ":: core :: option :: Option < :: carve :: _macro_support :: std :: string :: String >"
        );
        assert_eq!(lent, ":: core :: option :: Option :: as_ref (owned) . map (| __carve_item | :: core :: ops :: Deref :: deref (__carve_item))");
        let (owned, _) = twin(syn::parse_quote!(&[&str])).unwrap();
        assert_eq!(owned, ":: carve :: _macro_support :: std :: vec :: Vec < :: carve :: _macro_support :: std :: string :: String >");
        let (owned, lent) = twin(syn::parse_quote!((&Config, u32))).unwrap();
        assert_eq!(owned, "(Config , u32 ,)");
        assert_eq!(
            lent,
            "(& (owned) . 0 , :: core :: clone :: Clone :: clone (& (owned) . 1) ,)"
        );
        let (owned, _) = twin(syn::parse_quote!([Option<&[u8]>; 2])).unwrap();
        assert_eq!(owned, "[:: core :: option :: Option < :: carve :: _macro_support :: std :: vec :: Vec < u8 > > ; 2]");
    }

    #[test]
    fn references_lending_cannot_reach_are_left_to_the_type_check() {
        // Inside a map, behind `&mut`, a reference to a type holding one
        // below the top, a user's generic type.
        for ty in [
            syn::parse_quote!(HashMap<&str, u32>),
            syn::parse_quote!(Option<&mut String>),
            syn::parse_quote!(Option<&Option<&str>>),
            syn::parse_quote!(Wrapper<&str>),
        ] {
            assert_eq!(twin(ty), None);
        }
        // Without references inside, nothing is lent.
        assert_eq!(twin(syn::parse_quote!(&[u8])), None);
        assert_eq!(twin(syn::parse_quote!(Option<String>)), None);
    }

    #[test]
    fn returned_types_that_may_hide_a_lifetime_are_those_std_does_not_own() {
        let hides = |ty: ReturnType| may_hide_lifetime(&ty, &[format_ident!("T")]);
        assert!(hides(syn::parse_quote!(-> CharsMut)));
        assert!(hides(syn::parse_quote!(-> Option<Token>)));
        assert!(hides(syn::parse_quote!(-> <T as Iterator>::Item)));
        assert!(!hides(syn::parse_quote!()));
        assert!(!hides(syn::parse_quote!(-> Result<Vec<u8>, Error>)));
        assert!(!hides(syn::parse_quote!(-> Option<(T, String)>)));
        assert!(!hides(syn::parse_quote!(-> Self)));
    }
}
