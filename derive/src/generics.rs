//! The arguments of `#[carve::target(…)]`: the instantiations of a generic
//! target (`generics(S = String)`, once per instantiation) and the runtime
//! of an `async fn` target (`runtime = "tokio"`), and the substitution of an
//! instantiation's types into a signature.

use proc_macro2::TokenStream;
use syn::parse::{Parse, ParseStream, Parser};
use syn::punctuated::Punctuated;
use syn::visit_mut::VisitMut;
use syn::{Ident, Meta, Token, Type};

use crate::Errors;

/// One instantiation: the type each generic parameter (`S`) or `impl
/// Trait` parameter (by the parameter's name, `items`) is carved at.
#[derive(Clone, Default)]
pub struct Inst {
    pub bindings: Vec<(Ident, Type)>,
    /// The one trait bound of a parameter, where it has one (`A: Array`):
    /// an associated type of the parameter (`A::Item`) is that trait's at
    /// the bound type (`<[u32; 4] as Array>::Item`).
    pub traits: Vec<(Ident, syn::Path)>,
}

impl Inst {
    /// The type bound to `name`, if any.
    pub fn get(&self, name: &Ident) -> Option<&Type> {
        self.bindings
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, t)| t)
    }

    /// This instantiation followed by `other`'s bindings (an impl block's
    /// and then its method's).
    pub fn and(&self, other: &Inst) -> Inst {
        let mut bindings = self.bindings.clone();
        bindings.extend(other.bindings.iter().cloned());
        let mut traits = self.traits.clone();
        traits.extend(other.traits.iter().cloned());
        Inst { bindings, traits }
    }

    /// This instantiation, knowing the trait bounds `generics` (the impl
    /// block's or the function's, with their `where` clause) puts on its
    /// parameters: a parameter bounded by exactly one trait gets it.
    pub fn with_traits(mut self, generics: &syn::Generics) -> Inst {
        let mut bounds: Vec<(Ident, Vec<syn::Path>)> = Vec::new();
        let mut add = |ident: &Ident, list: &Punctuated<syn::TypeParamBound, Token![+]>| {
            let traits = list.iter().filter_map(|b| match b {
                syn::TypeParamBound::Trait(t) => Some(t.path.clone()),
                _ => None,
            });
            match bounds.iter_mut().find(|(i, _)| i == ident) {
                Some((_, all)) => all.extend(traits),
                None => bounds.push((ident.clone(), traits.collect())),
            }
        };
        for param in &generics.params {
            if let syn::GenericParam::Type(t) = param {
                add(&t.ident, &t.bounds);
            }
        }
        for predicate in generics.where_clause.iter().flat_map(|w| &w.predicates) {
            if let syn::WherePredicate::Type(p) = predicate {
                if let Type::Path(ty) = &p.bounded_ty {
                    if let (None, Some(ident)) = (&ty.qself, ty.path.get_ident()) {
                        add(ident, &p.bounds);
                    }
                }
            }
        }
        for (ident, traits) in bounds {
            if let [only] = &traits[..] {
                self.traits.push((ident, only.clone()));
            }
        }
        self
    }

    /// `ty` with each generic parameter bound here replaced by its type.
    pub fn apply(&self, ty: &Type) -> Type {
        let mut ty = ty.clone();
        Subst(self).visit_type_mut(&mut ty);
        ty
    }
}

struct Subst<'a>(&'a Inst);

impl VisitMut for Subst<'_> {
    // A const parameter in an expression (an array's length `[u8; N]`).
    fn visit_expr_mut(&mut self, expr: &mut syn::Expr) {
        if let syn::Expr::Path(p) = &*expr {
            if p.qself.is_none() {
                if let Some(Type::Verbatim(value)) = p.path.get_ident().and_then(|i| self.0.get(i))
                {
                    *expr = syn::Expr::Verbatim(value.clone());
                    return;
                }
            }
        }
        syn::visit_mut::visit_expr_mut(self, expr);
    }

    fn visit_type_mut(&mut self, ty: &mut Type) {
        if let Type::Path(p) = &*ty {
            if p.qself.is_none() {
                if let Some(ident) = p.path.get_ident() {
                    if let Some(bound) = self.0.get(ident) {
                        *ty = bound.clone();
                        return;
                    }
                }
                // smallvec's `Vec<A::Item>` at `A = [u32; 4]`:
                // `<[u32; 4] as Array>::Item`.
                let segments = &p.path.segments;
                if let (Some(first), true) = (segments.first(), segments.len() > 1) {
                    let bound = self.0.get(&first.ident);
                    let bound_trait = self
                        .0
                        .traits
                        .iter()
                        .find(|(i, _)| *i == first.ident)
                        .map(|(_, t)| t);
                    if let (Some(bound), Some(bound_trait), true) =
                        (bound, bound_trait, first.arguments.is_none())
                    {
                        let rest = segments.iter().skip(1);
                        *ty = syn::parse_quote!(<#bound as #bound_trait>#(::#rest)*);
                        return;
                    }
                }
            }
        }
        syn::visit_mut::visit_type_mut(self, ty);
    }
}

/// `ty` with every `impl Trait` in it replaced by `bound` (an `impl Trait`
/// parameter carved at `bound`).
pub fn replace_impl_trait(ty: &Type, bound: &Type) -> Type {
    struct Replace<'a>(&'a Type);
    impl VisitMut for Replace<'_> {
        fn visit_type_mut(&mut self, ty: &mut Type) {
            if matches!(ty, Type::ImplTrait(_)) {
                *ty = self.0.clone();
                return;
            }
            syn::visit_mut::visit_type_mut(self, ty);
        }
    }
    let mut ty = ty.clone();
    Replace(bound).visit_type_mut(&mut ty);
    ty
}

/// Whether `ty` holds an `impl Trait` anywhere.
pub fn has_impl_trait(ty: &Type) -> bool {
    struct Find(bool);
    impl<'ast> syn::visit::Visit<'ast> for Find {
        fn visit_type_impl_trait(&mut self, _: &'ast syn::TypeImplTrait) {
            self.0 = true;
        }
    }
    let mut find = Find(false);
    syn::visit::Visit::visit_type(&mut find, ty);
    find.0
}

/// What `#[carve::target(…)]` (on a function, an impl block or a method in
/// one) was given.
#[derive(Default)]
pub struct TargetArgs {
    /// Each `generics(…)`, in order.
    pub insts: Vec<Inst>,
    /// `runtime = "tokio"`, for an `async fn`.
    pub runtime: Option<syn::LitStr>,
}

struct Binding {
    name: Ident,
    ty: Type,
}

impl Parse for Binding {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let name = input.parse()?;
        input.parse::<Token![=]>()?;
        // A const parameter's value (`N = 4`, `C = '*'`, `N = { 2 * 2 }`)
        // is kept as a type of verbatim tokens: it stands where the
        // parameter stood in a generic argument list (`Pattern<'*'>`).
        if input.peek(syn::Lit) || input.peek(Token![-]) || input.peek(syn::token::Brace) {
            let value: syn::Expr = input.parse()?;
            return Ok(Binding {
                name,
                ty: Type::Verbatim(quote::quote!(#value)),
            });
        }
        let ty = input.parse()?;
        Ok(Binding { name, ty })
    }
}

const USAGE: &str = "`#[carve::target]` takes `generics(T = Type, …)` (once per instantiation \
                     to carve) and `runtime = \"tokio\"`";

/// Parses the attribute's arguments, collecting what is wrong in `errors`.
pub fn parse_args(attr: TokenStream, errors: &mut Errors) -> TargetArgs {
    let mut args = TargetArgs::default();
    if attr.is_empty() {
        return args;
    }
    let metas = match Punctuated::<Meta, Token![,]>::parse_terminated.parse2(attr) {
        Ok(metas) => metas,
        Err(e) => {
            errors.push(syn::Error::new(e.span(), format!("{e}: {USAGE}")));
            return args;
        }
    };
    for meta in metas {
        match &meta {
            Meta::List(list) if list.path.is_ident("generics") => {
                match list.parse_args_with(Punctuated::<Binding, Token![,]>::parse_terminated) {
                    Ok(bindings) if bindings.is_empty() => errors.spanned(
                        &meta,
                        "`generics()` names no type: write `generics(T = Type, …)`",
                    ),
                    Ok(bindings) => {
                        let mut inst = Inst::default();
                        for b in bindings {
                            if inst.get(&b.name).is_some() {
                                errors.spanned(
                                    &b.name,
                                    format!("`{}` is bound twice in one `generics(…)`", b.name),
                                );
                            }
                            inst.bindings.push((b.name, b.ty));
                        }
                        args.insts.push(inst);
                    }
                    Err(e) => errors.push(syn::Error::new(
                        e.span(),
                        format!("{e}: write `generics(T = Type, …)`"),
                    )),
                }
            }
            Meta::NameValue(nv) if nv.path.is_ident("runtime") => match &nv.value {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) if s.value() == "tokio" => args.runtime = Some(s.clone()),
                other => errors.spanned(
                    other,
                    "carve knows the runtime \"tokio\" (carve's feature `tokio`); without \
                     `runtime`, carve drives the future with its own small executor",
                ),
            },
            other => errors.spanned(other, USAGE),
        }
    }
    args
}

/// An example `generics(…)` binding for every type and const parameter of
/// `generics`, for messages: `T = u32`, and a value of a const
/// parameter's type (`N = 4`, `C = 'a'`, `B = true`).
pub fn example_bindings(generics: &syn::Generics) -> String {
    generics
        .params
        .iter()
        .filter_map(|p| match p {
            syn::GenericParam::Type(t) => Some(format!("{} = u32", t.ident)),
            syn::GenericParam::Const(c) => {
                let value = match &c.ty {
                    syn::Type::Path(p) if p.path.is_ident("char") => "'a'",
                    syn::Type::Path(p) if p.path.is_ident("bool") => "true",
                    _ => "4",
                };
                Some(format!("{} = {value}", c.ident))
            }
            syn::GenericParam::Lifetime(_) => None,
        })
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::names::short_type;
    use quote::quote;

    fn parsed(attr: TokenStream) -> (TargetArgs, Option<String>) {
        let mut errors = Errors::default();
        let args = parse_args(attr, &mut errors);
        (args, errors.check().err().map(|e| e.to_string()))
    }

    #[test]
    fn each_generics_list_is_one_instantiation() {
        let (args, error) = parsed(quote!(generics(S = String), generics(S = &str, T = u8)));
        assert!(error.is_none());
        let names: Vec<Vec<String>> = args
            .insts
            .iter()
            .map(|i| {
                i.bindings
                    .iter()
                    .map(|(n, t)| format!("{n}={}", short_type(t)))
                    .collect()
            })
            .collect();
        assert_eq!(names, [vec!["S=String"], vec!["S=&str", "T=u8"]]);
        assert!(args.runtime.is_none());
    }

    #[test]
    fn runtime_is_tokio_or_an_error_that_says_what_is_known() {
        let (args, error) = parsed(quote!(runtime = "tokio"));
        assert!(error.is_none());
        assert_eq!(args.runtime.map(|r| r.value()).as_deref(), Some("tokio"));
        let (_, error) = parsed(quote!(runtime = "async-std"));
        assert!(error.unwrap().contains("carve knows the runtime \"tokio\""));
        let (_, error) = parsed(quote!(budget = 3));
        assert!(error.unwrap().contains("takes `generics(T = Type, …)`"));
        let (_, error) = parsed(quote!(generics(S = String, S = u8)));
        assert!(error.unwrap().contains("`S` is bound twice"));
    }

    #[test]
    fn const_parameters_are_bound_to_values_that_stand_in_types_and_lengths() {
        let (args, error) = parsed(quote!(generics(C = '*', N = { 1 + 1 }, T = u8)));
        assert!(error.is_none());
        let inst = &args.insts[0];
        let ty: Type = syn::parse_quote!(Pattern<C, N, T>);
        assert_eq!(short_type(&inst.apply(&ty)), "Pattern<'*', { 1 + 1 }, u8>");
        let ty: Type = syn::parse_quote!([T; N]);
        assert_eq!(short_type(&inst.apply(&ty)), "[u8; { 1 + 1 }]");
    }

    #[test]
    fn associated_types_of_a_bound_parameter_name_its_one_trait() {
        // smallvec 1.16.6's `impl<A: Array> SmallVec<A>`, whose methods take
        // `Vec<A::Item>`; and a `where` clause naming the trait.
        let at = |generics: syn::Generics| {
            Inst {
                bindings: vec![(syn::parse_quote!(A), syn::parse_quote!([u32; 4]))],
                ..Default::default()
            }
            .with_traits(&generics)
        };
        let text = |ty: Type| quote::ToTokens::to_token_stream(&ty).to_string();
        let ty: Type = syn::parse_quote!(Vec<A::Item>);
        let inline = at(syn::parse_quote!(<A: Array>));
        assert_eq!(
            text(inline.apply(&ty)),
            text(syn::parse_quote!(Vec<<[u32; 4] as Array>::Item>))
        );
        let mut clause: syn::Generics = syn::parse_quote!(<A>);
        clause.where_clause = Some(syn::parse_quote!(where A: crate::Array));
        assert_eq!(
            text(at(clause).apply(&ty)),
            text(syn::parse_quote!(Vec<<[u32; 4] as crate::Array>::Item>))
        );
        // Two traits: which declares `Item` is not known; left as written.
        let two = at(syn::parse_quote!(<A: Array + Clone>));
        assert_eq!(text(two.apply(&ty)), text(ty));
    }

    #[test]
    fn substitution_replaces_bound_parameters_and_impl_trait() {
        let inst = Inst {
            bindings: vec![(syn::parse_quote!(T), syn::parse_quote!(u32))],
            ..Default::default()
        };
        let ty: Type = syn::parse_quote!(Option<Vec<T>>);
        assert_eq!(short_type(&inst.apply(&ty)), "Option<Vec<u32>>");
        let ty: Type = syn::parse_quote!(&impl AsRef<str>);
        let bound: Type = syn::parse_quote!(std::string::String);
        assert_eq!(short_type(&replace_impl_trait(&ty, &bound)), "&String");
    }
}

/// The bare names in `ty` (a type a `generics(…)` binds) that are one of
/// `params`, the generic parameters in scope where carve's code for the
/// instantiation goes (urlencoding's `impl<String: AsRef<[u8]>> Display
/// for Encoded<String>`): there the name means the parameter, not the type
/// the user meant, and rustc's error would point at carve's attribute with
/// "can't use generic parameters from outer item".
pub fn shadowed_names(ty: &Type, params: &[&Ident]) -> Vec<Ident> {
    struct Find<'a> {
        params: &'a [&'a Ident],
        found: Vec<Ident>,
    }
    impl<'ast> syn::visit::Visit<'ast> for Find<'_> {
        fn visit_type_path(&mut self, ty: &'ast syn::TypePath) {
            if let (None, Some(ident)) = (&ty.qself, ty.path.get_ident()) {
                if self.params.contains(&ident) {
                    self.found.push(ident.clone());
                }
            }
            syn::visit::visit_type_path(self, ty);
        }
    }
    let mut find = Find {
        params,
        found: Vec::new(),
    };
    syn::visit::Visit::visit_type(&mut find, ty);
    find.found
}

/// The message for a name [`shadowed_names`] found.
pub fn shadowed_message(name: &Ident) -> String {
    format!(
        "`{name}` here is the generic parameter `{name}`, not a type: carve's code for this \
         instantiation goes inside the item, where the parameter shadows any type of that \
         name. Write the type by a path (`std::string::String` for std's `String`, \
         `crate::{name}` for one of this crate)"
    )
}

#[cfg(test)]
mod shadow_tests {
    use super::*;

    #[test]
    fn a_bare_name_of_a_parameter_is_shadowed_and_a_path_is_not() {
        let string: Ident = syn::parse_quote!(String);
        let params = [&string];
        let names = |ty: Type| {
            shadowed_names(&ty, &params)
                .iter()
                .map(|i| i.to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(names(syn::parse_quote!(String)), ["String"]);
        assert_eq!(names(syn::parse_quote!(Vec<String>)), ["String"]);
        assert!(names(syn::parse_quote!(std::string::String)).is_empty());
        assert!(names(syn::parse_quote!(Str)).is_empty());
    }
}
