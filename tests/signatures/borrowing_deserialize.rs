// A parameter type with a lifetime whose `Deserialize` borrows from the
// data (a `&'a str` field, `#[serde(borrow)]`), in a slice, by value and
// by reference: rustc said "implementation of `Deserialize` is not
// general enough". Carve reads such types from text that lives as long as
// the program; `Cow` fields that do not borrow keep working. Methods of
// such a type, in a block with none marked, are carved too.
use std::borrow::Cow;

use carve::_internals::call::ArgsInput;
use carve::_internals::outcome::Outcome;
use carve::_internals::registry::Registry;
use carve::_internals::value::Value;

#[derive(serde::Serialize, serde::Deserialize, Debug)]
pub struct Token<'a> {
    #[serde(borrow)]
    pub text: Cow<'a, str>,
    pub kind: &'a str,
}

#[derive(serde::Serialize, serde::Deserialize, Debug, Clone)]
pub struct Owned<'a> {
    pub text: Cow<'a, str>,
}

#[carve::target]
pub fn width(tokens: &[Token<'_>]) -> usize {
    tokens.iter().map(|t| t.text.len() + t.kind.len()).sum()
}

#[carve::target]
pub fn kinds<'a>(first: Token<'a>, rest: &Token<'a>, owned: &[Owned<'_>]) -> String {
    format!("{}{}{}", first.kind, rest.kind, owned.len())
}

// In a block with no method marked, methods of such a type are carved;
// those of a type with a lifetime and no form are skipped at run time.
#[carve::target]
impl<'a> Token<'a> {
    pub fn len(&self) -> usize {
        self.text.len() + self.kind.len()
    }
}

pub struct Words<'a> {
    pub text: &'a str,
}

#[carve::target]
impl<'a> Words<'a> {
    pub fn count(&self) -> usize {
        self.text.split_whitespace().count()
    }
}

pub fn main() {
    let registry = Registry::collect();
    let targets: Vec<&str> = registry
        .targets()
        .filter_map(|(name, _)| crate::in_module(module_path!(), name))
        .collect();
    assert_eq!(targets, ["Token::len", "kinds", "width"]);
    let skipped = carve::_internals::registry::skipped_lines();
    assert!(
        skipped.iter().any(|l| l.starts_with(
            "carve: skipped in impl borrowing_deserialize::Words: count (parameter `self`: `Words` has neither serde"
        )),
        "{skipped:#?}"
    );
    let len = registry
        .target("borrowing_deserialize::Token::len")
        .expect("registered");
    let outcome = (len.replay)(ArgsInput::Ron(r#"(self: Token(text: "ab", kind: "c"))"#))
        .map(|r| r.observation.outcome);
    assert!(
        matches!(outcome, Ok(Outcome::Returned(Value::U64(3)))),
        "{outcome:?}"
    );
    let width = registry
        .target("borrowing_deserialize::width")
        .expect("registered");
    let replayed = (width.replay)(ArgsInput::Ron(
        r#"(tokens: [Token(text: "a\"b", kind: "x")])"#,
    ));
    let outcome = replayed.map(|r| r.observation.outcome);
    assert!(
        matches!(outcome, Ok(Outcome::Returned(Value::U64(4)))),
        "{outcome:?}"
    );
    // Generated arguments come as value trees.
    let mut args = carve::_internals::carving::record::ArgsBuilder::default();
    let token = |kind| Token {
        text: Cow::Borrowed(""),
        kind,
    };
    args.arg("first", Value::capture(&token("k")));
    args.arg("rest", Value::capture(&token("l")));
    args.arg("owned", Value::capture(&vec![Owned { text: "o".into() }]));
    let args = args.finish().expect("captured");
    let kinds = registry
        .target("borrowing_deserialize::kinds")
        .expect("registered");
    let outcome = (kinds.replay)(ArgsInput::Value(&args)).map(|r| r.observation.outcome);
    assert!(
        matches!(&outcome, Ok(Outcome::Returned(Value::Str(s))) if s == "kl1"),
        "{outcome:?}"
    );
}
