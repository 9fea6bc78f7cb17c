//! The dictionary from the code, and texts as tokens.
//!
//! The string, char, byte and integer constants that the instrumented
//! comparisons and `match` patterns of a target's reach use, and that its
//! instrumented code passes to functions
//! ([`crate::registry::Constant`], collected by the derive), are offered to
//! generation wherever a parameter can hold them: as strings, chars and
//! integers, and as tokens inside text-form parameters (libFuzzer's value
//! profile and AFL's dictionaries, read from the source instead).
//!
//! A text-form parameter (`Display + FromStr`, carved as text) is derived by
//! mutating carved texts token by token ([`tokens`]): a run of digits, a run
//! of letters, a run of white space, or one other character (a separator).
//! A token is replaced by a token of the same kind (digits: and length) from any
//! carved text of the parameter or from the dictionary, so that what is
//! derived keeps the carved texts' layout, and nearly all of it parses.
//!
//! Search also inserts fragments ([`fragments`]): a separator with the
//! tokens after it (`-alpha`, `-alpha.1`), from the carved texts of every
//! text-form parameter of the target. A part that takes two tokens (a
//! version's pre-release inside a requirement, `>=1.2.3-alpha`) is out of
//! reach of one-token moves, whose first half alone does not parse.

use std::collections::{BTreeMap, BTreeSet};

use crate::coverage::{self, reach::Reach};
use crate::registry::Constant;
use crate::value::types::{ParamType, ParamTypes};
use crate::value::Value;

/// Constants longer than this are not offered (a message, not a keyword).
const MAX_LEN: usize = 64;

/// The constants offered to generation, by the kind of value that can hold
/// them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Dictionary {
    /// String constants, and chars and ASCII bytes as one-character strings.
    pub strings: BTreeSet<String>,
    /// Char constants, ASCII bytes, and one-character strings.
    pub chars: BTreeSet<char>,
    /// Integer constants and bytes.
    pub ints: BTreeSet<i128>,
    /// Fragments of the carved texts of the target's text-form parameters
    /// ([`fragments`]), offered to search's token insertions.
    pub fragments: BTreeSet<String>,
}

impl Dictionary {
    /// The dictionary of a target: the constants its reach compares
    /// against, and those of the instrumented functions that parse its
    /// text-form parameters. These run in `Deserialize`, before the call and
    /// outside the reach: `VersionReq::matches(&self, …)` reaches the
    /// evaluation of a requirement, while the `~` and `^` a requirement can
    /// start with are compared against in the parser. Which functions parse
    /// a parameter is seen by parsing the texts carved for it in `seeds`
    /// (and `""`, `"a"`, `"0"`) under coverage.
    pub fn of_target(reach: &Reach, types: &ParamTypes, seeds: &[Value]) -> Dictionary {
        let mut constants = reach.constants();
        let mut fragments = BTreeSet::new();
        for (name, ty) in types.params() {
            let ParamType::Text { parses } = ty else {
                continue;
            };
            let carved = seeds.iter().filter_map(|args| match args {
                Value::Struct(_, fields) => fields.iter().find_map(|(n, v)| match v {
                    Value::Str(text) if *n == name => Some(text.as_str()),
                    _ => None,
                }),
                _ => None,
            });
            let texts: BTreeSet<&str> = ["", "a", "0"].into_iter().chain(carved).collect();
            fragments.extend(texts.iter().flat_map(|text| self::fragments(text)));
            let ((), trace) = coverage::collect(|| {
                for text in texts {
                    parses(text);
                }
            });
            constants.extend(trace.functions().flat_map(|sites| sites.dictionary()));
        }
        Dictionary {
            fragments,
            ..Dictionary::of(constants)
        }
    }

    /// The dictionary of `constants`.
    pub fn of(constants: impl IntoIterator<Item = Constant>) -> Dictionary {
        let mut dictionary = Dictionary::default();
        for constant in constants {
            match constant {
                Constant::Str(s) => {
                    if !s.is_empty() && s.chars().count() <= MAX_LEN {
                        dictionary.strings.insert(s.to_owned());
                    }
                    let mut chars = s.chars();
                    if let (Some(c), None) = (chars.next(), chars.next()) {
                        dictionary.chars.insert(c);
                    }
                }
                Constant::Char(c) => {
                    dictionary.chars.insert(c);
                    dictionary.strings.insert(c.to_string());
                }
                Constant::Byte(b) => {
                    dictionary.ints.insert(i128::from(b));
                    if b.is_ascii() {
                        dictionary.chars.insert(char::from(b));
                        dictionary.strings.insert(char::from(b).to_string());
                    }
                }
                Constant::Int(i) => {
                    dictionary.ints.insert(i);
                }
            }
        }
        dictionary
    }

    /// The constants as tokens of a text ([`tokens`]): strings that are one
    /// token, and non-negative integers in decimal.
    pub fn tokens(&self) -> impl Iterator<Item = String> + '_ {
        let strings = self
            .strings
            .iter()
            .filter(|s| tokens(s).len() == 1)
            .cloned();
        let ints = self
            .ints
            .iter()
            .filter(|i| **i >= 0)
            .map(|i| i.to_string());
        strings.chain(ints)
    }
}

/// What a token of a text is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// A run of ASCII digits.
    Digits,
    /// A run of letters.
    Letters,
    /// A run of white space.
    Space,
    /// One other character: a separator.
    Other,
}

impl Kind {
    fn of(c: char) -> Kind {
        if c.is_ascii_digit() {
            Kind::Digits
        } else if c.is_alphabetic() {
            Kind::Letters
        } else if c.is_whitespace() {
            Kind::Space
        } else {
            Kind::Other
        }
    }
}

/// The tokens of `text`, in order: they concatenate to `text`.
pub fn tokens(text: &str) -> Vec<(Kind, &str)> {
    let mut out: Vec<(Kind, &str)> = Vec::new();
    let mut start = 0;
    let mut current: Option<Kind> = None;
    for (at, c) in text.char_indices() {
        let kind = Kind::of(c);
        if let Some(k) = current {
            if k != kind || k == Kind::Other {
                out.push((k, &text[start..at]));
                start = at;
            }
        }
        current = Some(kind);
    }
    if let Some(k) = current {
        out.push((k, &text[start..]));
    }
    out
}

/// What a token can be replaced with: digits of the same length (a year
/// stays four digits), any word (units and names differ in length), any
/// separator, any white space.
pub fn slot(kind: Kind, token: &str) -> String {
    match kind {
        Kind::Digits => format!("d{}", token.chars().count()),
        Kind::Letters => LETTERS_SLOT.into(),
        Kind::Space => "s".into(),
        Kind::Other => "p".into(),
    }
}

/// The [`slot`] of every word ([`Kind::Letters`]).
pub const LETTERS_SLOT: &str = "l";

/// The tokens of `texts` and of `dictionary`, by [`slot`].
pub fn pools<'t>(
    texts: impl IntoIterator<Item = &'t str>,
    dictionary: &Dictionary,
) -> BTreeMap<String, BTreeSet<String>> {
    let mut pools: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for text in texts {
        for (kind, token) in tokens(text) {
            pools
                .entry(slot(kind, token))
                .or_default()
                .insert(token.to_owned());
        }
    }
    for token in dictionary.tokens() {
        if let [(kind, t)] = tokens(&token)[..] {
            pools.entry(slot(kind, t)).or_default().insert(token.clone());
        }
    }
    // Under a slot no token has: inserted, never put in a token's place.
    if !dictionary.fragments.is_empty() {
        pools.insert(FRAGMENT_SLOT.into(), dictionary.fragments.clone());
    }
    pools
}

/// The letters of the words of `texts`, when one of their words is free:
/// no string of `dictionary` (`private` of `en-Latn-US-x-private`, where
/// the parser compares against `x` only). A word of such texts may be any
/// word of their letters, of a length their words have: a parser of free
/// words tells them apart by length (a language tag's one-letter
/// singleton, four-letter script). None when every word is a keyword the
/// code compares against (`1h 30min`, `15 May 2015 GMT`): those are read by
/// name, and a made-up word does not parse.
pub fn free_letters<'t>(
    texts: impl IntoIterator<Item = &'t str>,
    dictionary: &Dictionary,
) -> BTreeSet<char> {
    let mut letters = BTreeSet::new();
    let mut free = false;
    for text in texts {
        for (kind, token) in tokens(text) {
            if kind == Kind::Letters {
                letters.extend(token.chars());
                free |= !dictionary.strings.contains(token);
            }
        }
    }
    match free {
        true => letters,
        false => BTreeSet::new(),
    }
}

/// The pool of [`fragments`] in [`pools`].
pub const FRAGMENT_SLOT: &str = "fragment";

/// The longest fragment, in tokens: a separator and what follows it up to
/// the next but two separators (`-alpha.1`), not a whole long text.
const FRAGMENT_TOKENS: usize = 4;

/// The fragments of `text`: from each separator (a token of kind
/// [`Kind::Other`] followed by a digit or letter token), the separator with
/// the next token (`-alpha`), and with up to [`FRAGMENT_TOKENS`] tokens
/// (`-alpha.1`), stopping before white space and ending with a word.
pub fn fragments(text: &str) -> Vec<String> {
    fragments_or_items(text, false)
}

/// The list items of `text`: from each separator followed by white space
/// (`, <1.8` of `>=1.2.3, <1.8.0`), the separator, the white space and the
/// item's first word (with the separators before it), and up to
/// [`FRAGMENT_TOKENS`] tokens of the item, so that inserting one adds one
/// whole item. Search inserts them into plain strings only
/// ([`crate::generation::search`]): the grammar and text-form parameters
/// keep to [`fragments`].
pub fn items(text: &str) -> Vec<String> {
    fragments_or_items(text, true)
}

/// [`fragments`], or [`items`] when `items`.
fn fragments_or_items(text: &str, items: bool) -> Vec<String> {
    let tokens = tokens(text);
    let word = |k: &Kind| matches!(k, Kind::Digits | Kind::Letters);
    let mut out = Vec::new();
    for (i, (kind, _)) in tokens.iter().enumerate() {
        if *kind != Kind::Other {
            continue;
        }
        // Where the tokens the fragment counts begin, and its first word.
        let (body, first) = match tokens.get(i + 1) {
            Some((k, _)) if word(k) && !items => (i + 1, i + 1),
            // A list item: its first word after at most two separators
            // (`<` of `, <1`, `>=` of `, >=2`).
            Some((Kind::Space, _)) if items => {
                let first = (i + 2..tokens.len().min(i + 5)).find(|&at| word(&tokens[at].0));
                match first {
                    Some(first) if tokens[i + 2..first].iter().all(|(k, _)| *k == Kind::Other) => {
                        (i + 2, first)
                    }
                    _ => continue,
                }
            }
            _ => continue,
        };
        let mut end = tokens[body..]
            .iter()
            .take(FRAGMENT_TOKENS)
            .position(|(k, _)| *k == Kind::Space)
            .map_or(
                (i + FRAGMENT_TOKENS).max(first + FRAGMENT_TOKENS - 1).min(tokens.len()),
                |at| body + at,
            )
            .max(first + 1);
        // It ends with a word: `.3` of `.3, `, not `.3,`.
        while end > first + 1 && !word(&tokens[end - 1].0) {
            end -= 1;
        }
        for last in [first + 1, end] {
            let fragment: String = tokens[i..last].iter().map(|(_, t)| *t).collect();
            if out.last() != Some(&fragment) {
                out.push(fragment);
            }
        }
    }
    out
}

/// `text` with token `index` replaced by `with` (`""`: deleted), or `with`
/// inserted before it when `insert`.
pub fn edited(text: &str, index: usize, with: &str, insert: bool) -> String {
    let tokens = tokens(text);
    let mut out = String::with_capacity(text.len() + with.len());
    for (i, (_, token)) in tokens.iter().enumerate() {
        if i == index {
            out.push_str(with);
            if insert {
                out.push_str(token);
            }
        } else {
            out.push_str(token);
        }
    }
    if index >= tokens.len() {
        out.push_str(with);
    }
    out
}

/// `text` with the item that separator token `at` ends repeated after
/// it: the tokens from just after the previous equal separator (or from the
/// start) through token `at`, written again (`fd00:1::1` with its second
/// `:` gives `fd00:1:1::1`, with its first, `fd00:fd00:1::1`). A list
/// grows by one item of its own form, which inserting tokens one by one
/// builds only through texts that fail in between: a parser's limits on
/// the number of items (eight groups of an IPv6 address, four parts of a
/// version) are reached this way. `None` when token `at` is no separator
/// or the item would be the separator alone.
pub fn repeated_item(text: &str, at: usize) -> Option<String> {
    let tokens = tokens(text);
    repeatable(&tokens, at)?;
    let (_, separator) = tokens[at];
    let start = tokens[..at]
        .iter()
        .rposition(|(kind, token)| *kind == Kind::Other && *token == separator)
        .map_or(0, |i| i + 1);
    let item: String = tokens[start..=at].iter().map(|(_, t)| *t).collect();
    Some(edited(text, at + 1, &item, true))
}

/// Whether [`repeated_item`] repeats an item of `text` at some token,
/// without making any: asked before every search move on a string.
pub fn has_repeated_item(text: &str) -> bool {
    let tokens = tokens(text);
    (0..tokens.len()).any(|at| repeatable(&tokens, at).is_some())
}

/// `Some` when token `at` is a separator that ends an item: the token
/// before it is not the same separator (the item would be the separator
/// alone), and it is not the first.
fn repeatable(tokens: &[(Kind, &str)], at: usize) -> Option<()> {
    let (Kind::Other, _) = tokens.get(at)? else {
        return None;
    };
    (at > 0 && tokens[at - 1] != tokens[at]).then_some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_item_of_a_list_is_repeated_after_itself() {
        let colons: Vec<usize> = tokens("fd00:1::1")
            .iter()
            .enumerate()
            .filter(|(_, (_, t))| *t == ":")
            .map(|(i, _)| i)
            .collect();
        assert_eq!(colons.len(), 3);
        assert_eq!(repeated_item("fd00:1::1", colons[0]).as_deref(), Some("fd00:fd00:1::1"));
        assert_eq!(repeated_item("fd00:1::1", colons[1]).as_deref(), Some("fd00:1:1::1"));
        // `::`: the item would be the separator alone.
        assert_eq!(repeated_item("fd00:1::1", colons[2]), None);
        // Items between different separators: from the last equal one.
        assert_eq!(repeated_item("1.2.3-rc.1", 3).as_deref(), Some("1.2.2.3-rc.1"));
        assert_eq!(repeated_item("a, b", 1).as_deref(), Some("a,a, b"));
        // No separator there.
        assert_eq!(repeated_item("fd00:1::1", 0), None);
        assert_eq!(repeated_item("", 0), None);
        // The predicate says what the move does, without making a text.
        for text in ["fd00:1::1", "1.2.3-rc.1", "a, b", "::", ":", "", "abc", "a::b", "-x-"] {
            let some = (0..tokens(text).len()).any(|at| repeated_item(text, at).is_some());
            assert_eq!(has_repeated_item(text), some, "{text:?}");
        }
        assert!(!has_repeated_item("::") && has_repeated_item("a::b"));
    }

    #[test]
    fn texts_split_into_digit_letter_space_and_separator_tokens() {
        let t: Vec<&str> = tokens("Fri, 15 May 2015 15:34:21 GMT")
            .into_iter()
            .map(|(_, t)| t)
            .collect();
        assert_eq!(
            t,
            ["Fri", ",", " ", "15", " ", "May", " ", "2015", " ", "15", ":", "34", ":", "21", " ", "GMT"]
        );
        assert_eq!(tokens("1h30min").len(), 4);
        assert_eq!(tokens("--").len(), 2);
        assert!(tokens("").is_empty());
    }

    #[test]
    fn the_dictionary_holds_each_constant_where_it_fits() {
        let d = Dictionary::of([
            Constant::Str("GMT"),
            Constant::Str(":"),
            Constant::Char('T'),
            Constant::Byte(b'-'),
            Constant::Int(60),
            Constant::Int(-1),
            Constant::Str(""),
        ]);
        assert_eq!(d.strings, ["-", ":", "GMT", "T"].map(String::from).into());
        assert_eq!(d.chars, [':', 'T', '-'].into());
        assert_eq!(d.ints, [-1, 45, 60].into());
        let tokens: Vec<String> = d.tokens().collect();
        assert_eq!(tokens, ["-", ":", "GMT", "T", "45", "60"]);
    }

    #[test]
    fn pools_take_tokens_of_the_same_kind_and_length() {
        let d = Dictionary::of([Constant::Str("Jun"), Constant::Int(60), Constant::Str("msec")]);
        let pools = pools(["Fri, 15 May 2015"], &d);
        assert_eq!(pools["l"], ["Fri", "Jun", "May", "msec"].map(String::from).into());
        assert_eq!(pools["d2"], ["15", "60"].map(String::from).into());
        assert_eq!(pools["d4"], ["2015"].map(String::from).into());
        assert_eq!(edited("1h 30min", 4, "ms", false), "1h 30ms");
        assert_eq!(edited("1h 30min", 2, "", false), "1h30min");
        assert_eq!(edited("1h", 1, "5", true), "15h");
        assert_eq!(edited("1h", 2, "s", false), "1hs");
    }

    #[test]
    fn list_items_are_a_separator_its_white_space_and_what_follows() {
        assert_eq!(items(">=1.2.3, <1.8.0"), [", <1", ", <1.8"]);
        assert_eq!(items("a, >=2 b; c"), [", >=2", "; c"]);
        assert_eq!(items("1, 2.3.4.5"), [", 2", ", 2.3"]);
        assert!(items("a, , b").iter().all(|f| !f.starts_with(", ,")));
        assert!(items("1.8.0-alpha.1").is_empty());
    }

    #[test]
    fn fragments_are_separators_with_what_follows() {
        assert_eq!(fragments("1.8.0-alpha.1"), [".8", ".8.0", ".0", ".0-alpha", "-alpha", "-alpha.1", ".1"]);
        assert_eq!(fragments(">=1.2.3, <1.8.0"), ["=1", "=1.2", ".2", ".2.3", ".3", "<1", "<1.8", ".8", ".8.0", ".0"]);
        assert!(fragments("a, >=2 b; c").iter().all(|f| !f.contains(' ')));
        assert!(fragments("abc").is_empty());
        let mut d = Dictionary::default();
        d.fragments.extend(fragments("1.0.0-rc.1"));
        let pools = pools([">=1.2.3"], &d);
        assert!(pools[FRAGMENT_SLOT].contains("-rc"), "{pools:?}");
        assert!(!pools["p"].contains("-rc"));
    }
}
