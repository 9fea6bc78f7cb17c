//! Attribute macros of [carve](https://docs.rs/carve). Use them through the
//! `carve` crate (`#[carve::target]`, `#[carve::system_test]`), which also
//! holds everything the expanded code calls: this crate only parses, checks
//! and emits code.
//!
//! Each macro works in three steps, as serde_derive does: parse the item,
//! check it (collecting every error with the span of the offending tokens),
//! and expand.

mod attrs;
mod generics;
mod instrument;
mod names;
mod outcome;
mod params;
mod system_test;
mod tables;
mod target;

use proc_macro::TokenStream;
use quote::ToTokens;

/// See `carve::target`.
#[proc_macro_attribute]
pub fn target(attr: TokenStream, item: TokenStream) -> TokenStream {
    let item = proc_macro2::TokenStream::from(item);
    match target::expand(attr.into(), item.clone()) {
        Ok(expanded) => any_edition(expanded).into(),
        Err(error) => with_error(target::keep(item), error),
    }
}

/// See `carve::instrument`.
#[proc_macro_attribute]
pub fn instrument(attr: TokenStream, item: TokenStream) -> TokenStream {
    let item = proc_macro2::TokenStream::from(item);
    match instrument::expand(attr.into(), item.clone()) {
        Ok(expanded) => any_edition(expanded).into(),
        Err(error) => with_error(item, error),
    }
}

/// See `carve::system_test`.
#[proc_macro_attribute]
pub fn system_test(attr: TokenStream, item: TokenStream) -> TokenStream {
    let item = proc_macro2::TokenStream::from(item);
    match system_test::expand(attr.into(), item.clone()) {
        Ok(expanded) => any_edition(expanded).into(),
        Err(error) => with_error(system_test::keep(item), error),
    }
}

/// The item as it was, followed by the errors, as tokio's macros do: callers
/// of the item still find it, so the errors are not buried under a cascade
/// of "cannot find function".
fn with_error(item: proc_macro2::TokenStream, error: syn::Error) -> TokenStream {
    let mut tokens = item;
    tokens.extend(prelude_compile_error(error.into_compile_error()));
    tokens.into()
}

/// Makes the paths `::carve::…` and `::core::…` of generated code resolve
/// in every edition. Tokens spanned at the user's code (so that errors
/// point there) resolve with the user's edition, and in Rust 2015 `::carve`
/// means a `carve` module at the crate root, which is not there. Resolved at
/// the macro's call site instead, they keep their place in messages and
/// resolve through the extern prelude, as in later editions.
fn any_edition(tokens: proc_macro2::TokenStream) -> proc_macro2::TokenStream {
    use proc_macro2::{Group, Span, TokenTree};
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    let is_colon =
        |t: Option<&TokenTree>| matches!(t, Some(TokenTree::Punct(p)) if p.as_char() == ':');
    let is_root = |t: Option<&TokenTree>| matches!(t, Some(TokenTree::Ident(i)) if i == "carve" || i == "core");
    // Which tokens start `::carve` or `::core`: the two colons and the name.
    let mut respan = vec![false; tokens.len()];
    for i in 0..tokens.len() {
        if is_colon(tokens.get(i)) && is_colon(tokens.get(i + 1)) && is_root(tokens.get(i + 2)) {
            respan[i..i + 3].fill(true);
        }
    }
    tokens
        .into_iter()
        .zip(respan)
        .map(|(mut token, respan)| {
            match &mut token {
                TokenTree::Group(group) => {
                    let mut new = Group::new(group.delimiter(), any_edition(group.stream()));
                    new.set_span(group.span());
                    token = TokenTree::Group(new);
                }
                other if respan => other.set_span(other.span().resolved_at(Span::call_site())),
                _ => {}
            }
            token
        })
        .collect()
}

/// syn's errors (`::core::compile_error! { … }`) as `compile_error! { … }`,
/// which the prelude resolves in every edition: in Rust 2015, `::core` means
/// a `core` module at the crate root, and every error carve reports read
/// "cannot find `core` in the crate root". Respanning the path as
/// [`any_edition`] does would resolve it too, but rustc then no longer joins
/// the error's first and last spans, and the message underlines less.
fn prelude_compile_error(tokens: proc_macro2::TokenStream) -> proc_macro2::TokenStream {
    use proc_macro2::TokenTree;
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    let text = |i: usize| tokens.get(i).map(|t| t.to_string());
    let mut out = Vec::with_capacity(tokens.len());
    let mut i = 0;
    while i < tokens.len() {
        let prefixed = [":", ":", "core", ":", ":", "compile_error"]
            .iter()
            .enumerate()
            .all(|(k, want)| text(i + k).as_deref() == Some(*want));
        if prefixed {
            i += 5;
        }
        out.push(tokens[i].clone());
        i += 1;
    }
    out.into_iter().collect()
}

/// Collects errors so that one expansion reports all of them at once.
///
/// Dropping it without [`Errors::check`] panics, as serde_derive's `Ctxt`
/// does: an error pushed and then dropped would compile the item silently.
#[derive(Default)]
struct Errors {
    first: Option<syn::Error>,
    checked: bool,
    /// Another way out, added to each message [`Errors::spanned`] makes
    /// (`leave it out: …`).
    note: Option<String>,
}

impl Errors {
    fn push(&mut self, error: syn::Error) {
        match &mut self.first {
            Some(all) => all.combine(error),
            None => self.first = Some(error),
        }
    }

    fn spanned(&mut self, tokens: impl quote::ToTokens, message: impl std::fmt::Display) {
        let message = match &self.note {
            Some(note) => {
                let message = message.to_string();
                match message.strip_suffix('.') {
                    Some(sentence) => format!("{sentence}. Or {note}."),
                    None => format!("{message}; or {note}"),
                }
            }
            None => message.to_string(),
        };
        self.push(syn::Error::new_spanned(tokens, message));
    }

    /// Ends the collection with one more error, for when expansion cannot go on.
    fn fail(mut self, error: syn::Error) -> syn::Error {
        self.checked = true;
        match self.first.take() {
            Some(mut all) => {
                all.combine(error);
                all
            }
            None => error,
        }
    }

    fn check(mut self) -> syn::Result<()> {
        self.checked = true;
        self.first.take().map_or(Ok(()), Err)
    }
}

impl Drop for Errors {
    fn drop(&mut self) {
        if !self.checked && !std::thread::panicking() {
            panic!("forgot to check for errors");
        }
    }
}

/// Where `tokens` start: the span of their first token, or the call site
/// when there is none (a stable `Span` cannot cover a whole token stream).
fn first_span(tokens: impl ToTokens) -> proc_macro2::Span {
    tokens
        .into_token_stream()
        .into_iter()
        .next()
        .map_or_else(proc_macro2::Span::call_site, |t| t.span())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[should_panic(expected = "forgot to check for errors")]
    fn errors_dropped_unchecked_panic() {
        let mut errors = Errors::default();
        errors.spanned(quote::quote!(x), "lost");
    }

    #[test]
    fn check_and_fail_report_every_error() {
        let mut errors = Errors::default();
        errors.spanned(quote::quote!(a), "first");
        errors.spanned(quote::quote!(b), "second");
        let error = errors.check().unwrap_err();
        assert_eq!(error.into_iter().count(), 2);

        let mut errors = Errors::default();
        errors.spanned(quote::quote!(a), "first");
        let error = errors.fail(syn::Error::new(proc_macro2::Span::call_site(), "last"));
        let messages: Vec<_> = error.into_iter().map(|e| e.to_string()).collect();
        assert_eq!(messages, ["first", "last"]);
        assert!(Errors::default().check().is_ok());
    }

    #[test]
    fn errors_name_compile_error_through_the_prelude() {
        let mut errors = Errors::default();
        errors.spanned(quote::quote!(a), "first");
        errors.spanned(quote::quote!(b), "second");
        let tokens = prelude_compile_error(errors.check().unwrap_err().into_compile_error());
        assert_eq!(
            tokens.to_string(),
            r#"compile_error ! { "first" } compile_error ! { "second" }"#
        );
    }
}
