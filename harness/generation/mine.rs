//! Mining an API grammar from carved calls (the carving chapter's
//! `CallGrammarMiner`, with its "abstracting arguments" exercise done).
//!
//! The arguments of every carved call of a target are merged into a
//! [`Shape`] ([`crate::generation::shape`]): a description of each position of the argument tree (struct
//! fields, enum variants seen, sequence elements, options, map entries) with
//! the values observed there. The shape then becomes a context-free grammar
//! with one nonterminal per position: observed values are alternatives, and
//! beside them stand abstractions of their type, so that generation can
//! recombine what was seen:
//! - integers: observed values, their neighbours, and boundaries;
//! - strings: observed strings, and a character-level grammar built from the
//!   characters and character classes seen (so `%`, hex digits and `+` of
//!   `cgi_decode`'s carve recombine into new encodings);
//! - byte strings: the same grammar over their bytes read as the characters
//!   `'\0'..='\u{ff}'` (Latin-1), so that text carried in bytes (an HTTP
//!   request line) gets the character classes of strings, and other bytes
//!   get classes of their own (control bytes, bytes above 0x7f). Every
//!   character such a grammar derives maps back to one byte;
//! - floats, chars, bools likewise.
//!
//! A derivation tree of the grammar converts back into a [`Value`] of the
//! arguments' shape ([`ArgsGrammar::value_of`]); the generation loop reads
//! the value straight from the fuzzer's derivation instead, without
//! building the tree ([`ArgsGrammar::value_of_derived`]).

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use crate::generation::dictionary::{self, Dictionary};
use crate::generation::grammar::{DerivationTree, Derived, Grammar};
use crate::generation::sealed::Sealed;
use crate::generation::shape::{Payload, Shape, Variant};
use crate::value::types::{Container, IntKind, ParamType, ParamTypes, PayloadTy, Ty};
use crate::value::Value;

/// A mined grammar of a target's arguments, with the shape that turns its
/// derivation trees back into argument values.
#[derive(Debug, Clone)]
pub struct ArgsGrammar {
    grammar: Grammar,
    shape: Shape,
}

impl ArgsGrammar {
    /// Mines the grammar of the argument values `calls` (each a struct
    /// `(name: value, …)` as carved). `None` when there are no calls.
    #[cfg(any(test, feature = "_internals"))]
    pub fn mine(calls: &[Value]) -> Option<ArgsGrammar> {
        let shape = calls.iter().map(Shape::of).reduce(Shape::merge)?;
        Some(ArgsGrammar::of_shape(shape, Grammarizer::default()))
    }

    /// The grammar of the values of `shape`.
    fn of_shape(shape: Shape, mut g: Grammarizer) -> ArgsGrammar {
        let start = g.symbol_for(&shape, "args");
        g.rules.insert("<start>".into(), vec![start]);
        let rules: Vec<(&str, Vec<&str>)> = g
            .rules
            .iter()
            .map(|(symbol, expansions)| {
                (
                    symbol.as_str(),
                    expansions.iter().map(String::as_str).collect(),
                )
            })
            .collect();
        let rules: Vec<(&str, &[&str])> = rules
            .iter()
            .map(|(symbol, expansions)| (*symbol, expansions.as_slice()))
            .collect();
        ArgsGrammar {
            grammar: Grammar::new(&rules),
            shape,
        }
    }

    /// Mines the grammar of `calls` within the traced parameter `types`
    /// (see [`Shape::typed`]); parameters whose type is not traced keep
    /// the mined shape. Also returns, per such parameter, why.
    ///
    /// The constants of `dictionary` are offered in every position that can
    /// hold them, and text-form parameters are derived by token from their
    /// carved texts (see [`crate::generation::dictionary`]). Positions of a
    /// sealed struct hold only the values of it the API made
    /// ([`Sealed::restrict`]).
    pub fn mine_typed(
        calls: &[Value],
        types: &ParamTypes,
        dictionary: &Dictionary,
        sealed: &Sealed,
    ) -> Option<(ArgsGrammar, Vec<String>)> {
        let mined = calls.iter().map(Shape::of).reduce(Shape::merge)?;
        let mut untyped = Vec::new();
        let mut grammarizer = Grammarizer {
            dictionary: dictionary.clone(),
            ..Grammarizer::default()
        };
        let shape = match mined {
            Shape::Struct(name, fields) => Shape::Struct(
                name,
                fields
                    .into_iter()
                    .map(|(param, mined)| {
                        let shape = match types.get(param) {
                            Some(ParamType::Typed(ty)) => {
                                // Texts inside (addresses in a `Vec`) are
                                // derived as text-form parameters are.
                                text_paths(ty, types, &format!("args.{param}"), &mut grammarizer.text_forms, &mut Vec::new());
                                Shape::typed(ty, Some(&mined), types)
                            }
                            Some(ParamType::Text { .. }) => {
                                grammarizer.text_forms.insert(format!("args.{param}"));
                                None
                            }
                            Some(ParamType::Untraced(why)) => {
                                untyped.push(format!("`{param}`: {why}"));
                                None
                            }
                            None => {
                                untyped.push(format!("`{param}`: not traced"));
                                None
                            }
                        };
                        (param, shape.unwrap_or(mined))
                    })
                    .collect(),
            ),
            other => other,
        };
        let shape = sealed.restrict(shape);
        Some((ArgsGrammar::of_shape(shape, grammarizer), untyped))
    }

    pub fn grammar(&self) -> &Grammar {
        &self.grammar
    }

    /// The merged shape of the arguments.
    #[cfg(any(test, feature = "_internals"))]
    pub fn shape(&self) -> &Shape {
        &self.shape
    }

    /// The argument value a derivation tree of [`Self::grammar`] stands for.
    #[cfg(any(test, feature = "_internals"))]
    pub fn value_of(&self, tree: &DerivationTree) -> Result<Value, MineError> {
        start_value(&self.shape, tree)
    }

    /// The argument value a derivation of [`Self::grammar`] stands for,
    /// read in place ([`GrammarFuzzer::derive`]): the value
    /// [`Self::value_of`] gives for its tree, without building the tree.
    ///
    /// [`GrammarFuzzer::derive`]: crate::generation::grammar::GrammarFuzzer::derive
    pub fn value_of_derived(&self, derived: Derived<'_>) -> Result<Value, MineError> {
        start_value(&self.shape, derived)
    }
}

/// How often a named type is followed into itself looking for texts (as
/// [`Shape::typed`] unfolds it).
const TEXT_UNFOLD: usize = 2;

/// The paths of the grammar's positions (as [`Grammarizer::symbol_for`]
/// names them) where a value of `ty`, at `path`, holds a [`Ty::Text`].
fn text_paths(ty: &Ty, types: &ParamTypes, path: &str, out: &mut BTreeSet<String>, stack: &mut Vec<&'static str>) {
    let numbered = |tys: &[Ty], path: &str| -> Vec<(String, Ty)> {
        tys.iter()
            .enumerate()
            .map(|(i, t)| (format!("{path}.{i}"), t.clone()))
            .collect()
    };
    let named = |fields: &[(&'static str, Ty)], path: &str| -> Vec<(String, Ty)> {
        fields
            .iter()
            .map(|(f, t)| (format!("{path}.{f}"), t.clone()))
            .collect()
    };
    // The positions inside, with their types.
    let inside: Vec<(String, Ty)> = match ty {
        Ty::Text(_) => {
            out.insert(path.to_owned());
            return;
        }
        Ty::Option(t) => vec![(format!("{path}?"), (**t).clone())],
        Ty::Seq(t) => vec![(format!("{path}[]"), (**t).clone())],
        Ty::Map(k, v) => vec![
            (format!("{path}{{key}}"), (**k).clone()),
            (format!("{path}{{value}}"), (**v).clone()),
        ],
        Ty::Tuple(tys) => numbered(tys, path),
        Ty::Named(name) if stack.iter().filter(|n| *n == name).count() < TEXT_UNFOLD => {
            match types.container(name) {
                Some(Container::Newtype(t)) => vec![(format!("{path}.0"), t.clone())],
                Some(Container::TupleStruct(tys)) => numbered(tys, path),
                Some(Container::Struct(fields)) => named(fields, path),
                Some(Container::Enum(variants)) => variants
                    .iter()
                    .flat_map(|v| {
                        let vpath = format!("{path}::{}", v.name);
                        match &v.payload {
                            PayloadTy::Unit => Vec::new(),
                            PayloadTy::Newtype(t) => vec![(vpath, t.clone())],
                            PayloadTy::Tuple(tys) => numbered(tys, &vpath),
                            PayloadTy::Struct(fields) => named(fields, &vpath),
                        }
                    })
                    .collect(),
                Some(Container::UnitStruct) | None => Vec::new(),
            }
        }
        _ => return,
    };
    if let Ty::Named(name) = ty {
        stack.push(name);
    }
    for (path, t) in &inside {
        text_paths(t, types, path, out, stack);
    }
    if let Ty::Named(_) = ty {
        stack.pop();
    }
}

/// A derivation tree that does not fit the mined shape.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MineError(&'static str);

impl fmt::Display for MineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "derivation tree does not fit the mined arguments: {}",
            self.0
        )
    }
}

impl std::error::Error for MineError {}

/// Builds grammar rules from a shape, one nonterminal per position.
#[derive(Default)]
struct Grammarizer {
    rules: BTreeMap<String, Vec<String>>,
    /// Constants offered where they fit.
    dictionary: Dictionary,
    /// The paths of text-form parameters (`args.date`).
    text_forms: BTreeSet<String>,
}

impl Grammarizer {
    /// The nonterminal for the position `path` of shape `shape`, with its rules.
    fn symbol_for(&mut self, shape: &Shape, path: &str) -> String {
        let symbol = format!("<{path}>");
        let expansions = match shape {
            Shape::Unit | Shape::UnitStruct(_) => vec![String::new()],
            Shape::Bool => vec!["true".into(), "false".into()],
            Shape::Int { signed, seen, kind } => {
                let seen: BTreeSet<i128> = seen.union(&self.dictionary.ints).copied().collect();
                int_alternatives(*signed, &seen, *kind)
            }
            Shape::Float { seen, .. } => float_alternatives(seen),
            Shape::Char(seen) => {
                let seen: Vec<char> = seen.iter().chain(&self.dictionary.chars).copied().collect();
                let chars = self.char_classes(seen.into_iter(), path, Alphabet::Unicode);
                chars.into_iter().collect()
            }
            Shape::Str(seen) if self.text_forms.contains(path) => {
                match self.text_form(seen.iter().cloned().collect(), path) {
                    // No carved text can be a terminal or a template (a
                    // long text with `<b>` in it): character by character.
                    alternatives if alternatives.is_empty() => {
                        self.text(seen.iter().cloned().collect(), path, Alphabet::Unicode)
                    }
                    alternatives => alternatives,
                }
            }
            Shape::Str(seen) => {
                let seen: Vec<String> = seen.iter().cloned().collect();
                let mut alternatives = self.text(seen.clone(), path, Alphabet::Unicode);
                alternatives.extend(self.dictionary_strings(|_| true));
                // Texts parsed by the target get the tokens of the texts seen
                // and of the dictionary too (`5 ms` -> `5 min`).
                alternatives.extend(self.token_templates(&seen, path, false));
                dedup(alternatives)
            }
            Shape::Bytes(seen) => {
                let mut alternatives =
                    self.text(seen.iter().map(|b| latin1(b)).collect(), path, Alphabet::Bytes);
                alternatives.extend(self.dictionary_strings(|s| s.is_ascii()));
                dedup(alternatives)
            }
            Shape::FixedBytes(len, seen) => {
                let char_symbol = self.char_symbol(
                    seen.iter().flatten().copied().map(char::from),
                    path,
                    Alphabet::Bytes,
                );
                let mut alternatives: Vec<String> = seen
                    .iter()
                    .map(|b| latin1(b))
                    .filter(|s| is_plain_terminal(s))
                    .collect();
                alternatives.push(char_symbol.repeat(*len));
                dedup(alternatives)
            }
            Shape::Option { none, some } => {
                let mut alternatives = Vec::new();
                if *none || some.is_none() {
                    alternatives.push("None".into());
                }
                if let Some(inner) = some {
                    alternatives.push(self.symbol_for(inner, &format!("{path}?")));
                }
                alternatives
            }
            Shape::Seq(element, _) => match element {
                None => vec![String::new()],
                Some(element) => {
                    let item = self.symbol_for(element, &format!("{path}[]"));
                    let items = format!("<{path}-items>");
                    self.rules
                        .insert(items.clone(), vec![item.clone(), format!("{item}{items}")]);
                    vec![String::new(), items]
                }
            },
            Shape::Tuple(_, items) => vec![self.sequence(
                items.iter().enumerate().map(|(i, s)| (i.to_string(), s)),
                path,
            )],
            Shape::Struct(_, fields) => {
                vec![self.sequence(fields.iter().map(|(f, s)| (f.to_string(), s)), path)]
            }
            Shape::Newtype(_, inner) => vec![self.symbol_for(inner, &format!("{path}.0"))],
            Shape::Map(entry) => match entry {
                None => vec![String::new()],
                Some(entry) => {
                    let key = self.symbol_for(&entry.0, &format!("{path}{{key}}"));
                    let value = self.symbol_for(&entry.1, &format!("{path}{{value}}"));
                    let items = format!("<{path}-entries>");
                    let pair = format!("{key}{value}");
                    self.rules
                        .insert(items.clone(), vec![pair.clone(), format!("{pair}{items}")]);
                    vec![String::new(), items]
                }
            },
            Shape::Enum(_, variants) => variants
                .iter()
                .map(|(name, variant)| {
                    let vpath = format!("{path}::{name}");
                    match &variant.payload {
                        Payload::Unit => name.to_string(),
                        Payload::Newtype(s) => self.symbol_for(s, &vpath),
                        Payload::Tuple(items) => self.sequence(
                            items.iter().enumerate().map(|(i, s)| (i.to_string(), s)),
                            &vpath,
                        ),
                        Payload::Struct(fields) => {
                            self.sequence(fields.iter().map(|(f, s)| (f.to_string(), s)), &vpath)
                        }
                    }
                })
                .collect(),
            Shape::Mixed(values) => (0..values.len()).map(|i| format!("#{i}")).collect(),
        };
        self.rules.insert(symbol.clone(), expansions);
        symbol
    }

    /// A nonterminal for each part of a composite value, concatenated.
    fn sequence<'s>(
        &mut self,
        parts: impl Iterator<Item = (String, &'s Shape)>,
        path: &str,
    ) -> String {
        parts
            .map(|(name, shape)| self.symbol_for(shape, &format!("{path}.{name}")))
            .collect()
    }

    /// The alternatives of text at `path` (strings, or byte strings as
    /// Latin-1 text): the texts seen, the empty text, and any list of
    /// characters drawn from those seen and their classes.
    fn text(&mut self, seen: Vec<String>, path: &str, alphabet: Alphabet) -> Vec<String> {
        let chars_symbol = format!("<{path}-chars>");
        let char_symbol = self.char_symbol(seen.iter().flat_map(|s| s.chars()), path, alphabet);
        self.rules.insert(
            chars_symbol.clone(),
            vec![char_symbol.clone(), format!("{char_symbol}{chars_symbol}")],
        );
        let mut alternatives: Vec<String> = seen
            .iter()
            .filter(|s| is_plain_terminal(s))
            .map(|s| literal(s))
            .collect();
        alternatives.push(String::new());
        alternatives.push(chars_symbol);
        dedup(alternatives)
    }

    /// The dictionary's strings that `fit`, as terminals.
    fn dictionary_strings(&self, fit: impl Fn(&str) -> bool) -> Vec<String> {
        self.dictionary
            .strings
            .iter()
            .filter(|s| fit(s) && is_plain_terminal(s))
            .map(|s| literal(s))
            .collect()
    }

    /// The alternatives of a text-form parameter at `path`: the texts seen,
    /// and each of them with its digit and letter tokens open to any token
    /// of the same kind ([`dictionary::slot`]; from the texts seen and the
    /// dictionary), and once more with its separators open too.
    fn text_form(&mut self, seen: Vec<String>, path: &str) -> Vec<String> {
        let mut alternatives: Vec<String> = seen
            .iter()
            .filter(|s| is_plain_terminal(s))
            .map(|s| literal(s))
            .collect();
        alternatives.extend(self.token_templates(&seen, path, true));
        // A whole text the code holds (a grandfathered language tag in a
        // registry table): no token move builds `i-klingon` from `en-US`.
        // One token long, it is a template's token already.
        alternatives.extend(self.dictionary_strings(|s| dictionary::tokens(s).len() > 1));
        dedup(alternatives)
    }

    /// Each text of `seen` with its digit and letter tokens open to any
    /// token of the same [`dictionary::slot`] (from the texts seen and the
    /// dictionary), once more with a fragment after it (of the text-form
    /// parameters' carved texts when `separators`, else of `seen`), and,
    /// when `separators`, once more with its separators open too.
    fn token_templates(&mut self, seen: &[String], path: &str, separators: bool) -> Vec<String> {
        let text_form = separators;
        let mut pools = dictionary::pools(seen.iter().map(String::as_str), &self.dictionary);
        let mut used = BTreeSet::new();
        let mut alternatives = Vec::new();
        // A long text (a megabyte argument) would make a template of
        // thousands of nonterminals that every derivation expands: it stays
        // whole.
        let templates = seen
            .iter()
            .filter(|s| dictionary::tokens(s).len() <= MAX_TEMPLATE_TOKENS)
            .take(MAX_TEMPLATES);
        // A plain string's fragments are those of its own carved texts
        // (`1.2.3` + `.3`: one part more than any carved text has, which
        // a condition like `parts.next().is_some()` rejects), and its list
        // items (`, <1.8`: one item more); no fragment of a text-form
        // parameter's texts is of its kind.
        if !separators {
            let own: BTreeSet<String> = templates
                .clone()
                .flat_map(|text| [dictionary::fragments(text), dictionary::items(text)])
                .flatten()
                .collect();
            match own.is_empty() {
                true => pools.remove(dictionary::FRAGMENT_SLOT),
                false => pools.insert(dictionary::FRAGMENT_SLOT.into(), own),
            };
        }
        // A template whose literal `<…>` reads as a nonterminal (`a<=>b`
        // with the letters open) is left out; `>=1.2.3, <1.8.0` is fine.
        let ours = format!("<{path}-tok-");
        let only_ours = |template: &str| {
            crate::generation::grammar::nonterminals(template)
                .iter()
                .all(|n| n.starts_with(&ours))
        };
        for text in templates {
            for open_separators in [false, true].into_iter().take(1 + usize::from(separators)) {
                let mut template = String::new();
                for (kind, token) in dictionary::tokens(text) {
                    let open = match kind {
                        dictionary::Kind::Digits | dictionary::Kind::Letters => true,
                        dictionary::Kind::Space | dictionary::Kind::Other => open_separators,
                    };
                    if open {
                        let slot = dictionary::slot(kind, token);
                        template.push_str(&format!("<{path}-tok-{slot}>"));
                        used.insert(slot);
                    } else {
                        template.push_str(&literal(token));
                    }
                }
                if only_ours(&template) {
                    // A text also gets a fragment after it (`>=1.2.3,
                    // <1.8.0` + `-alpha`, `1.2.3` + `.3`): a part its
                    // carved texts never showed, or one part too many.
                    let fragments = pools.contains_key(dictionary::FRAGMENT_SLOT);
                    if !open_separators && fragments {
                        let slot = dictionary::FRAGMENT_SLOT;
                        alternatives.push(format!("{template}<{path}-tok-{slot}>"));
                        used.insert(slot.to_owned());
                    }
                    alternatives.push(template);
                }
            }
        }
        // The one-character symbols the code compares against that no
        // carved text uses as a separator: a wildcard a parser takes in a
        // number's place (`1.2.*`, `*/5`), which no digit move makes.
        let separators: BTreeSet<&str> = seen
            .iter()
            .flat_map(|text| dictionary::tokens(text))
            .filter(|(kind, _)| *kind == dictionary::Kind::Other)
            .map(|(_, token)| token)
            .collect();
        let wildcards: Vec<String> = self
            .dictionary
            .tokens()
            .filter(|t| {
                // A token of kind `Other` is one character.
                matches!(&dictionary::tokens(t)[..], [(dictionary::Kind::Other, _)])
                    && !separators.contains(t.as_str())
                    && is_plain_terminal(t)
            })
            .collect();
        for slot in used {
            let tokens = pools.get(&slot).into_iter().flatten();
            let mut expansions: Vec<String> =
                tokens.filter(|t| is_plain_terminal(t)).map(|t| literal(t)).collect();
            // Digits are what varies most (a day, a year): any digits of
            // the same length too, and the wildcards.
            if let Some(len) = slot.strip_prefix('d').and_then(|l| l.parse::<usize>().ok()) {
                let digit = format!("<{path}-tok-digit>");
                self.rules
                    .insert(digit.clone(), ('0'..='9').map(String::from).collect());
                expansions.push(digit.repeat(len));
                expansions.extend(wildcards.iter().map(|w| literal(w)));
            }
            // A text-form parameter's words: half the time, any word of a
            // length its carved words have, of the letters they use (see
            // [`Grammarizer::words_of_seen_lengths`]), however many words
            // the carved texts and the dictionary hold (a registry table's
            // 64 rows would drown them). Where a word is free, a number
            // of such a length may stand in its place too
            // ([`Grammarizer::number_of_seen_lengths`]): among the made
            // words of a text-form parameter, beside the words of a plain
            // string.
            if slot == dictionary::LETTERS_SLOT {
                let number = self.number_of_seen_lengths(seen, path);
                let words = match text_form {
                    true => self.words_of_seen_lengths(seen, path),
                    false => Vec::new(),
                };
                if !words.is_empty() {
                    let (known, made) = (format!("<{path}-tok-known>"), format!("<{path}-tok-word>"));
                    self.rules.insert(known.clone(), expansions);
                    self.rules.insert(made.clone(), words.into_iter().chain(number).collect());
                    expansions = vec![known, made];
                } else {
                    expansions.extend(number);
                }
            }
            self.rules.insert(format!("<{path}-tok-{slot}>"), expansions);
        }
        alternatives
    }

    /// Words of every length the letter tokens of `seen` have (up to
    /// [`MAX_WORD_LEN`]), each of any of the letters they use, under a
    /// nonterminal `<{path}-tok-letter>`, when a word of them is free
    /// ([`dictionary::free_letters`]): as digits are open to any digits of
    /// the same length. A parser tells words apart by their length (a
    /// language tag's one-letter singleton opens an extension, four
    /// letters are a script, five to eight a variant): a text-form
    /// parameter carved as `en-Latn-US-x-private` has no one-letter word
    /// but `x`, and no whole word swapped in for another makes `en-a-US`,
    /// while a word of length one drawn from its letters does.
    fn words_of_seen_lengths(&mut self, seen: &[String], path: &str) -> Vec<String> {
        let letters: Vec<String> = dictionary::free_letters(seen.iter().map(String::as_str), &self.dictionary)
            .into_iter()
            .map(|c| literal(&c.to_string()))
            .filter(|l| is_plain_terminal(l))
            .collect();
        if letters.is_empty() {
            return Vec::new();
        }
        let letter = format!("<{path}-tok-letter>");
        self.rules.insert(letter.clone(), letters);
        word_lengths(seen).into_iter().map(|len| letter.repeat(len)).collect()
    }

    /// A nonterminal `<{path}-tok-number>` of the numbers of every length
    /// the letter tokens of `seen` have (up to [`MAX_WORD_LEN`]), when a
    /// word of them is free ([`dictionary::free_letters`]); `None` when
    /// none is. A parser that reads free words often takes a number in a
    /// word's place and tells the two apart by kind and length (a language
    /// tag's region is two letters or three digits, its singleton a letter
    /// or a digit; a version's pre-release identifier a word or a
    /// number): no word of letters, carved or made, is such a number.
    fn number_of_seen_lengths(&mut self, seen: &[String], path: &str) -> Option<String> {
        if dictionary::free_letters(seen.iter().map(String::as_str), &self.dictionary).is_empty() {
            return None;
        }
        let digit = format!("<{path}-tok-digit>");
        self.rules
            .insert(digit.clone(), ('0'..='9').map(String::from).collect());
        let number = format!("<{path}-tok-number>");
        let numbers = word_lengths(seen).into_iter().map(|len| digit.repeat(len)).collect();
        self.rules.insert(number.clone(), numbers);
        Some(number)
    }

    /// The nonterminal of one character of texts at `path`.
    fn char_symbol(
        &mut self,
        seen: impl Iterator<Item = char>,
        path: &str,
        alphabet: Alphabet,
    ) -> String {
        let symbol = format!("<{path}-char>");
        let alternatives = self.char_classes(seen, path, alphabet);
        self.rules
            .insert(symbol.clone(), alternatives.into_iter().collect());
        symbol
    }

    /// Observed characters, plus a nonterminal per character class seen.
    fn char_classes(
        &mut self,
        seen: impl Iterator<Item = char>,
        path: &str,
        alphabet: Alphabet,
    ) -> BTreeSet<String> {
        let classes = alphabet.classes();
        let seen: BTreeSet<char> = seen.collect();
        let mut alternatives = BTreeSet::new();
        for c in seen {
            alternatives.insert(literal(&c.to_string()));
            for (class, members) in &classes {
                if members.contains(&c) {
                    let symbol = format!("<{path}-{class}>");
                    self.rules.insert(
                        symbol.clone(),
                        members.iter().map(|m| literal(&m.to_string())).collect(),
                    );
                    alternatives.insert(symbol);
                }
            }
        }
        if alternatives.is_empty() {
            alternatives.insert("a".into());
        }
        alternatives
    }
}

/// Carved texts of one text-form parameter made templates of its grammar
/// (each is two alternatives).
const MAX_TEMPLATES: usize = 64;

/// The most tokens a carved text may have to become a template of tokens.
const MAX_TEMPLATE_TOKENS: usize = 64;

/// Words longer than this are derived at this length
/// ([`Grammarizer::words_of_seen_lengths`]): a long word is a name, not a
/// length a parser counts.
const MAX_WORD_LEN: usize = 8;

/// The lengths of the letter tokens of `seen`, each at most
/// [`MAX_WORD_LEN`].
fn word_lengths(seen: &[String]) -> BTreeSet<usize> {
    seen.iter()
        .flat_map(|text| dictionary::tokens(text))
        .filter(|(kind, _)| *kind == dictionary::Kind::Letters)
        .map(|(_, word)| word.chars().count().min(MAX_WORD_LEN))
        .collect()
}

/// Character classes: a class is offered when one of its members was seen,
/// so that characters never carved (a `%` after seeing `+`) can appear.
const CLASSES: [(&str, &str); 6] = [
    ("digit", "0123456789"),
    ("hex", "0123456789abcdefABCDEF"),
    ("lower", "abcdefghijklmnopqrstuvwxyz"),
    ("upper", "ABCDEFGHIJKLMNOPQRSTUVWXYZ"),
    ("punct", "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"),
    ("space", " \t\n"),
];

/// Whether a byte is a member of a class.
type ByteTest = fn(&u8) -> bool;

/// Classes of the bytes that are no printable ASCII character, for byte
/// strings only: a class is offered when one of its members was seen, as
/// for [`CLASSES`].
const BYTE_CLASSES: [(&str, ByteTest); 2] = [
    ("control", u8::is_ascii_control),
    ("high", |b| !b.is_ascii()),
];

/// The characters a text position can hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Alphabet {
    /// Any `char` (strings and chars).
    Unicode,
    /// `'\0'..='\u{ff}'`, one per byte (byte strings read as Latin-1).
    Bytes,
}

impl Alphabet {
    /// The character classes of this alphabet, with their members: every
    /// member of a byte string's class is at most `'\u{ff}'`.
    fn classes(self) -> Vec<(&'static str, Vec<char>)> {
        let mut classes: Vec<(&'static str, Vec<char>)> = CLASSES
            .iter()
            .map(|(class, members)| (*class, members.chars().collect()))
            .collect();
        if self == Alphabet::Bytes {
            classes.extend(BYTE_CLASSES.iter().map(|(class, member)| {
                (*class, (0..=u8::MAX).filter(member).map(char::from).collect())
            }));
        }
        classes
    }
}

/// A byte string as text: each byte the character of that code (Latin-1).
fn latin1(bytes: &[u8]) -> String {
    bytes.iter().copied().map(char::from).collect()
}

/// The bytes of text derived for a byte string; an error for a character
/// above `'\u{ff}'` (which such a grammar never derives).
fn from_latin1(text: &str) -> Result<Vec<u8>, MineError> {
    text.chars()
        .map(|c| u8::try_from(c).map_err(|_| MineError("byte above 0xFF")))
        .collect()
}

/// Terminals may not look like nonterminals.
fn is_plain_terminal(s: &str) -> bool {
    // `>=1.2.3, <1.8.0` is one; `<b>` would read as a nonterminal.
    crate::generation::grammar::nonterminals(s).is_empty()
}

/// A terminal for a literal string (`<` and `>` alone are fine; the grammar
/// only treats `<…>` without spaces as a nonterminal).
fn literal(s: &str) -> String {
    s.to_owned()
}

fn dedup(items: Vec<String>) -> Vec<String> {
    let mut seen = BTreeSet::new();
    items
        .into_iter()
        .filter(|i| seen.insert(i.clone()))
        .collect()
}

/// Seen integers, their neighbours, halves and doubles, and boundaries:
/// of the traced type `kind` when known (and nothing outside its range),
/// else of the common widths.
fn int_alternatives(signed: bool, seen: &BTreeSet<i128>, kind: Option<IntKind>) -> Vec<String> {
    let mut values: BTreeSet<i128> = BTreeSet::new();
    for v in seen {
        values.extend([
            *v,
            v.saturating_sub(1),
            v.saturating_add(1),
            v.saturating_mul(2),
            v / 2,
        ]);
    }
    values.extend([
        0,
        1,
        2,
        i128::from(u8::MAX),
        i128::from(u16::MAX),
        i128::from(u32::MAX),
        i128::from(u64::MAX),
    ]);
    if signed {
        values.extend([
            -1,
            -2,
            i128::from(i8::MIN),
            i128::from(i32::MIN),
            i128::from(i64::MIN),
            i128::from(i64::MAX),
        ]);
    } else {
        values.retain(|v| *v >= 0);
    }
    if let Some(kind) = kind {
        let (min, max) = kind.range();
        values.extend([min, max, min.saturating_add(1), max.saturating_sub(1)]);
        values.retain(|v| kind.contains(*v));
    }
    values.into_iter().map(|v| v.to_string()).collect()
}

fn float_alternatives(seen: &BTreeSet<u64>) -> Vec<String> {
    let mut values: Vec<f64> = vec![
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
    ];
    for bits in seen {
        let v = f64::from_bits(*bits);
        values.extend([v, -v, v + 1.0, v - 1.0, v * 2.0, v / 2.0]);
    }
    dedup(values.into_iter().map(|v| format!("{v:?}")).collect())
}

/// A derivation as [`to_value`] reads it: a [`DerivationTree`], or a
/// fuzzer's last derivation in place ([`Derived`]), read alike.
trait Tree<'a>: Copy + 'a {
    /// A nonterminal's name, or terminal text.
    fn symbol(self) -> &'a str;
    /// `None` for a nonterminal not expanded, none for terminal text.
    fn children(self) -> Option<impl Iterator<Item = Self> + 'a>;
    /// Whether the node is a nonterminal.
    fn is_nonterminal(self) -> bool {
        is_nonterminal(self.symbol())
    }
    /// The text the node derives (as [`DerivationTree`]'s `Display`):
    /// borrowed when it is one terminal's.
    fn text(self) -> Cow<'a, str> {
        text(self)
    }
}

impl<'a> Tree<'a> for &'a DerivationTree {
    fn symbol(self) -> &'a str {
        &self.symbol
    }
    fn children(self) -> Option<impl Iterator<Item = Self> + 'a> {
        self.children.as_deref().map(<[DerivationTree]>::iter)
    }
}

impl<'a> Tree<'a> for Derived<'a> {
    fn symbol(self) -> &'a str {
        Derived::symbol(&self)
    }
    fn children(self) -> Option<impl Iterator<Item = Self> + 'a> {
        Derived::children(&self)
    }
    /// A symbol node's name is a nonterminal of the grammar (`<…>`, no
    /// space), and no terminal text of it reads as one.
    fn is_nonterminal(self) -> bool {
        self.is_symbol() && self.symbol().len() > 2
    }
    fn text(self) -> Cow<'a, str> {
        Derived::text(&self)
    }
}

/// The argument value a whole derivation (`<start>` above the arguments'
/// nonterminal) stands for.
fn start_value<'a>(shape: &Shape, tree: impl Tree<'a>) -> Result<Value, MineError> {
    let inner = tree
        .children()
        .and_then(|mut c| c.next())
        .ok_or(MineError("empty derivation"))?;
    to_value(shape, inner)
}

/// The text a derivation derives (as [`DerivationTree`]'s `Display`):
/// borrowed when it is one terminal's.
fn text<'a>(tree: impl Tree<'a>) -> Cow<'a, str> {
    let Some(mut children) = tree.children() else {
        return Cow::Borrowed(tree.symbol());
    };
    match (children.next(), children.next()) {
        (None, _) => Cow::Borrowed(tree.symbol()),
        (Some(only), None) => text(only),
        (Some(first), Some(second)) => {
            let mut out = String::new();
            for child in [first, second].into_iter().chain(children) {
                push_text(child, &mut out);
            }
            Cow::Owned(out)
        }
    }
}

/// Appends the text `tree` derives to `out`.
fn push_text<'a>(tree: impl Tree<'a>, out: &mut String) {
    let mut children = tree.children().into_iter().flatten().peekable();
    if children.peek().is_none() {
        out.push_str(tree.symbol());
    }
    for child in children {
        push_text(child, out);
    }
}

/// The children of `tree` that are nonterminals.
fn nonterminals<'a, T: Tree<'a>>(tree: T) -> impl Iterator<Item = T> + 'a {
    let children = tree.children().into_iter().flatten();
    children.filter(|c| c.is_nonterminal())
}

/// The value a derivation tree of `shape`'s nonterminal stands for.
fn to_value<'a>(shape: &Shape, tree: impl Tree<'a>) -> Result<Value, MineError> {
    if tree.children().is_none() {
        return Err(MineError("unexpanded nonterminal"));
    }
    Ok(match shape {
        Shape::Unit => Value::Unit,
        Shape::UnitStruct(n) => Value::UnitStruct(n),
        Shape::Bool => Value::Bool(tree.text() == "true"),
        Shape::Int { signed, .. } => {
            let n: i128 = tree.text().parse().map_err(|_| MineError("integer"))?;
            match (signed, i64::try_from(n), u64::try_from(n)) {
                (true, Ok(v), _) => Value::I64(v),
                (true, Err(_), _) => Value::I128(n),
                (false, _, Ok(v)) => Value::U64(v),
                (false, _, Err(_)) => {
                    Value::U128(u128::try_from(n).map_err(|_| MineError("unsigned"))?)
                }
            }
        }
        Shape::Float { single, .. } => {
            let v: f64 = tree.text().parse().map_err(|_| MineError("float"))?;
            if *single {
                Value::F32(v as f32)
            } else {
                Value::F64(v)
            }
        }
        Shape::Char(_) => Value::Char(tree.text().chars().next().ok_or(MineError("char"))?),
        Shape::Str(_) => Value::Str(tree.text().into_owned()),
        Shape::Bytes(_) | Shape::FixedBytes(..) => Value::Bytes(from_latin1(&tree.text())?),
        Shape::Option { some, .. } => match (some, nonterminals(tree).next()) {
            (Some(inner), Some(child)) => Value::Some(Box::new(to_value(inner, child)?)),
            _ => Value::None,
        },
        Shape::Seq(element, _) => match (element, nonterminals(tree).next()) {
            (Some(element), Some(items)) => {
                Value::Seq(list(items, |item| to_value(element, item))?)
            }
            _ => Value::Seq(Vec::new()),
        },
        Shape::Tuple(name, items) => {
            let values = zip_values(items.iter(), nonterminals(tree))?;
            match name {
                Some(n) => Value::TupleStruct(n, values),
                None => Value::Tuple(values),
            }
        }
        Shape::Struct(n, fields) => {
            let values = fields.iter().zip(nonterminals(tree));
            let values = values.map(|((field, shape), t)| Ok((*field, to_value(shape, t)?)));
            Value::Struct(n, values.collect::<Result<_, MineError>>()?)
        }
        Shape::Newtype(n, inner) => Value::NewtypeStruct(
            n,
            Box::new(to_value(
                inner,
                nonterminals(tree).next().ok_or(MineError("newtype"))?,
            )?),
        ),
        Shape::Map(entry) => match (entry, nonterminals(tree).next()) {
            (Some(entry), Some(items)) => Value::Map(pairs(items, &entry.0, &entry.1)?),
            _ => Value::Map(Vec::new()),
        },
        Shape::Enum(name, variants) => enum_value(name, variants, tree)?,
        Shape::Mixed(values) => {
            let index: usize = tree.text()
                .trim_start_matches('#')
                .parse()
                .map_err(|_| MineError("mixed"))?;
            values.get(index).cloned().ok_or(MineError("mixed"))?
        }
    })
}

fn is_nonterminal(symbol: &str) -> bool {
    symbol.starts_with('<') && symbol.ends_with('>') && symbol.len() > 2 && !symbol.contains(' ')
}

fn zip_values<'a, 's, T: Tree<'a>>(
    shapes: impl Iterator<Item = &'s Shape>,
    trees: impl Iterator<Item = T>,
) -> Result<Vec<Value>, MineError> {
    shapes.zip(trees).map(|(s, t)| to_value(s, t)).collect()
}

/// Items of a right-recursive list `<items> → <item> | <item><items>`.
fn list<'a, T: Tree<'a>, V>(
    mut items: T,
    mut item: impl FnMut(T) -> Result<V, MineError>,
) -> Result<Vec<V>, MineError> {
    let mut out = Vec::new();
    loop {
        if items.children().is_none() {
            return Err(MineError("list"));
        }
        let mut parts = nonterminals(items);
        out.push(item(parts.next().ok_or(MineError("list item"))?)?);
        match parts.next() {
            Some(rest) => items = rest,
            None => return Ok(out),
        }
    }
}

fn pairs<'a>(
    items: impl Tree<'a>,
    key: &Shape,
    value: &Shape,
) -> Result<Vec<(Value, Value)>, MineError> {
    let mut out = Vec::new();
    let mut items = items;
    loop {
        if items.children().is_none() {
            return Err(MineError("map"));
        }
        let mut parts = nonterminals(items);
        let (k, v) = (
            parts.next().ok_or(MineError("map key"))?,
            parts.next().ok_or(MineError("map value"))?,
        );
        out.push((to_value(key, k)?, to_value(value, v)?));
        match parts.next() {
            Some(rest) => items = rest,
            None => return Ok(out),
        }
    }
}

/// Whether `symbol` is the nonterminal of a variant's payload: named
/// `<…::variant>` or `<…::variant.field>`.
fn names_variant(symbol: &str, variant: &str) -> bool {
    let whole = symbol
        .strip_suffix('>')
        .and_then(|s| s.strip_suffix(variant))
        .is_some_and(|s| s.ends_with("::"));
    whole
        || symbol.match_indices(':').any(|(at, _)| {
            let after = symbol[at..].strip_prefix("::");
            let rest = after.and_then(|after| after.strip_prefix(variant));
            rest.is_some_and(|rest| rest.starts_with('.'))
        })
}

fn enum_value<'a, T: Tree<'a>>(
    name: &'static str,
    variants: &BTreeMap<&'static str, Variant>,
    tree: T,
) -> Result<Value, MineError> {
    // Which variant: a unit variant derives its name; the others derive
    // nonterminals named `<…::Variant>` or `<…::Variant.field>`.
    let parts: Vec<T> = nonterminals(tree).collect();
    let text = parts.is_empty().then(|| tree.text());
    let chosen = variants.iter().find(|(variant, v)| match v.payload {
        Payload::Unit => text.as_deref() == Some(**variant),
        _ => parts.first().is_some_and(|p| names_variant(p.symbol(), variant)),
    });
    let (variant, v) = chosen.ok_or(MineError("enum variant"))?;
    Ok(match &v.payload {
        Payload::Unit => Value::UnitVariant {
            name,
            index: v.index,
            variant,
        },
        Payload::Newtype(s) => Value::NewtypeVariant {
            name,
            index: v.index,
            variant,
            value: Box::new(to_value(
                s,
                *parts.first().ok_or(MineError("newtype variant"))?,
            )?),
        },
        Payload::Tuple(items) => Value::TupleVariant {
            name,
            index: v.index,
            variant,
            fields: zip_values(items.iter(), parts.iter().copied())?,
        },
        Payload::Struct(fields) => Value::StructVariant {
            name,
            index: v.index,
            variant,
            fields: fields
                .iter()
                .map(|(f, _)| *f)
                .zip(zip_values(
                    fields.iter().map(|(_, s)| s),
                    parts.iter().copied(),
                )?)
                .collect(),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generation::grammar::{DerivationTree, GrammarFuzzer, Strategy};

    fn line(bytes: &[u8]) -> Value {
        Value::Struct("args", vec![("line", Value::Bytes(bytes.to_vec()))])
    }

    /// The byte strings of `count` arguments derived with `seed`.
    fn derive_lines(grammar: &ArgsGrammar, seed: u64, count: usize) -> Vec<Vec<u8>> {
        let mut fuzzer = GrammarFuzzer::new(grammar.grammar(), Strategy::DeepForesight, seed)
            .expect("a usable grammar");
        (0..count)
            .map(|_| match grammar.value_of(&fuzzer.fuzz_tree()) {
                Ok(Value::Struct("args", fields)) => match &fields[..] {
                    [("line", Value::Bytes(b))] => b.clone(),
                    other => panic!("not a byte string: {other:?}"),
                },
                other => panic!("not the arguments: {other:?}"),
            })
            .collect()
    }

    /// A duration like `1h 30min` or `250ms`: numbers each followed by a
    /// unit, separated by single spaces.
    fn parses_duration(text: &str) -> bool {
        !text.is_empty()
            && text.split(' ').all(|part| {
                let unit = part.trim_start_matches(|c: char| c.is_ascii_digit());
                unit.len() < part.len() && ["ms", "sec", "min", "h"].contains(&unit)
            })
    }

    /// Derivations of a text-form parameter `d` carved as `carved`, with
    /// the constants `dictionary`.
    fn derive_texts(carved: &[&str], dictionary: &Dictionary, count: usize) -> Vec<String> {
        derive_text_form("d", parses_duration, carved, dictionary, count)
    }

    /// `count` derivations (seed 7) of the text-form parameter `name`,
    /// read by `parses`, carved as `carved`, with `dictionary`.
    fn derive_text_form(
        name: &'static str,
        parses: fn(&str) -> bool,
        carved: &[&str],
        dictionary: &Dictionary,
        count: usize,
    ) -> Vec<String> {
        let mut types = ParamTypes::default();
        types.param(name, crate::value::types::Traced::plain(ParamType::Text { parses }));
        let calls: Vec<Value> = carved
            .iter()
            .map(|t| Value::Struct("args", vec![(name, Value::Str((*t).into()))]))
            .collect();
        let (grammar, _) = ArgsGrammar::mine_typed(&calls, &types, dictionary, &Sealed::default()).expect("a grammar");
        let mut fuzzer = GrammarFuzzer::new(grammar.grammar(), Strategy::DeepForesight, 7)
            .expect("a usable grammar");
        (0..count)
            .map(|_| match grammar.value_of(&fuzzer.fuzz_tree()) {
                Ok(Value::Struct("args", fields)) => match &fields[..] {
                    [(n, Value::Str(s))] if *n == name => s.clone(),
                    other => panic!("not a text: {other:?}"),
                },
                other => panic!("not the arguments: {other:?}"),
            })
            .collect()
    }

    #[test]
    fn texts_with_angle_brackets_are_derived_too() {
        // A version requirement: `<` and `>` that read as no nonterminal.
        fn parses_req(text: &str) -> bool {
            text.split(", ").all(|c| {
                let v = c.trim_start_matches(['<', '>', '=']);
                v.len() < c.len() && v.split('.').all(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
            })
        }
        let carved = [">=1.2.3, <1.8.0", "<2.0"];
        let texts: BTreeSet<String> = derive_text_form("req", parses_req, &carved, &Dictionary::default(), 200)
            .into_iter()
            .collect();
        let new: Vec<&String> = texts.iter().filter(|t| parses_req(t) && !t.starts_with(">=1.2.3, <1.8.0")).collect();
        assert!(texts.contains(">=1.2.3, <1.8.0"), "{texts:?}");
        assert!(new.len() >= 5, "{texts:?}");
        // A text that reads as nonterminals and is too long for a template
        // is derived character by character.
        let long = "<b>".repeat(40);
        let mut types = ParamTypes::default();
        types.param("req", crate::value::types::Traced::plain(ParamType::Text { parses: parses_req }));
        let calls = [Value::Struct("args", vec![("req", Value::Str(long))])];
        let (grammar, _) = ArgsGrammar::mine_typed(&calls, &types, &Dictionary::default(), &Sealed::default()).expect("a grammar");
        assert!(GrammarFuzzer::new(grammar.grammar(), Strategy::DeepForesight, 7).is_ok());
    }

    #[test]
    fn text_form_texts_get_fragments_of_other_carved_texts_after_them() {
        // A requirement whose versions may have a pre-release, which no
        // carved requirement shows; a carved version does.
        fn parses_req(text: &str) -> bool {
            text.split(", ").all(|c| {
                let v = c.trim_start_matches(['<', '>', '=']);
                let (v, pre) = v.split_once('-').unwrap_or((v, "a"));
                !pre.is_empty() && v.split('.').all(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
            })
        }
        let mut dictionary = Dictionary::default();
        dictionary.fragments.extend(crate::generation::dictionary::fragments("1.8.0-alpha.1"));
        let texts: BTreeSet<String> = derive_text_form("req", parses_req, &[">=1.2.3, <1.8.0"], &dictionary, 300)
            .into_iter()
            .collect();
        let with_pre: Vec<&String> = texts.iter().filter(|t| parses_req(t) && t.ends_with("-alpha")).collect();
        assert!(!with_pre.is_empty(), "{texts:?}");
    }

    #[test]
    fn text_form_derivations_mutate_carved_texts_by_token_and_mostly_parse() {
        use crate::registry::Constant;
        let carved = ["1h 30min", "250ms", "2min 5sec"];
        let dictionary = Dictionary::of([
            Constant::Str("ms"),
            Constant::Str("sec"),
            Constant::Str("min"),
            Constant::Str("h"),
            Constant::Int(60),
        ]);
        let texts = derive_texts(&carved, &dictionary, 1000);
        let parsed = texts.iter().filter(|t| parses_duration(t)).count();
        assert!(parsed >= 800, "{parsed} of 1000 parse: {:?}", &texts[..40]);
        let new: BTreeSet<&String> = texts
            .iter()
            .filter(|t| parses_duration(t) && !carved.contains(&t.as_str()))
            .collect();
        assert!(new.len() >= 20, "new texts that parse: {new:?}");
        // A unit only the dictionary has, in a place only a token can take.
        assert!(texts.iter().any(|t| t.contains("2h 5")), "{new:?}");
        assert!(texts.iter().any(|t| t.contains("60")), "{new:?}");
    }

    #[test]
    fn a_number_of_a_text_may_become_a_wildcard_the_code_compares_against() {
        use crate::registry::Constant;
        fn parses_version(text: &str) -> bool {
            let parts: Vec<&str> = text.split('.').collect();
            parts.len() == 3
                && parts.iter().all(|p| p == &"*" || (!p.is_empty() && p.bytes().all(|b| b.is_ascii_digit())))
        }
        // `*` is compared against; `.` is a separator the carved texts use
        // already, and `^` is offered too but rarely parses.
        let dictionary = Dictionary::of([Constant::Char('*'), Constant::Char('.'), Constant::Char('^')]);
        let texts = derive_text_form("v", parses_version, &["1.2.3", "0.10.7"], &dictionary, 400);
        assert!(texts.iter().any(|t| t == "1.2.*" || t == "0.10.*"), "{texts:?}");
        assert!(!texts.iter().any(|t| t.contains("..") && parses_version(t)));
    }

    #[test]
    fn a_word_of_a_text_form_parameter_may_be_any_word_of_a_length_its_words_have() {
        use crate::registry::Constant;
        // A language tag (BCP 47, simplified): a language of two or three
        // letters, then subtags told apart by length; a one-letter
        // singleton other than `x` opens an extension, which needs a
        // subtag of two letters or more after it.
        fn extension(text: &str) -> Option<bool> {
            let subtags: Vec<&str> = text.split('-').collect();
            let word = |s: &&str| !s.is_empty() && s.len() <= 8 && s.bytes().all(|b| b.is_ascii_alphabetic());
            if !subtags.iter().all(word) || !(2..=3).contains(&subtags[0].len()) {
                return None;
            }
            let mut extension = false;
            for (i, s) in subtags.iter().enumerate().skip(1) {
                if s.eq_ignore_ascii_case("x") {
                    return (i + 1 < subtags.len()).then_some(extension);
                }
                if s.len() == 1 {
                    if subtags.get(i + 1).is_none_or(|next| next.len() < 2) {
                        return None;
                    }
                    extension = true;
                }
            }
            Some(extension)
        }
        let parses = |text: &str| extension(text).is_some();
        let carved = ["en", "en-Latn-US-x-private", "zh-hak"];
        // The parser compares against `x` and `X`: the only one-letter
        // words the carved texts and the dictionary show.
        let dictionary = Dictionary::of([Constant::Str("x"), Constant::Str("X")]);
        let texts = derive_text_form("tag", parses, &carved, &dictionary, 500);
        let extensions: BTreeSet<&String> = texts.iter().filter(|t| extension(t) == Some(true)).collect();
        assert!(extensions.len() >= 3, "{extensions:?} of {:?}", &texts[..60]);
        // Half of them still parse, with half the words made up: a word
        // keeps a length the carved words have (a text that does not parse
        // is never run and costs no execution).
        let parsed = texts.iter().filter(|t| parses(t)).count();
        assert!(parsed >= 250, "{parsed} of 500 parse: {:?}", &texts[..60]);
    }

    #[test]
    fn a_free_word_may_become_a_number_of_a_length_the_words_have() {
        use crate::registry::Constant;
        // A language tag's region is two letters or three digits: carved
        // texts with letters only never show the digits.
        fn numeric_region(text: &str) -> bool {
            match text.split('-').collect::<Vec<_>>()[..] {
                [language, region] => {
                    (2..=3).contains(&language.len())
                        && language.bytes().all(|b| b.is_ascii_alphabetic())
                        && region.len() == 3
                        && region.bytes().all(|b| b.is_ascii_digit())
                }
                _ => false,
            }
        }
        fn parses_tag(text: &str) -> bool {
            !text.is_empty() && text.split('-').all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_alphanumeric()))
        }
        let carved = ["en-US", "zh-hak"];
        let texts = derive_text_form("tag", parses_tag, &carved, &Dictionary::default(), 300);
        assert!(texts.iter().any(|t| numeric_region(t)), "text-form: {texts:?}");
        // A plain string takes one too, beside its carved words.
        let plain = derived_texts_of(&carved, 300);
        assert!(plain.iter().any(|t| numeric_region(t)), "plain: {plain:?}");
        // Words that are all keywords the code compares against (units)
        // are read by name: no number takes their place.
        let keywords = Dictionary::of([Constant::Str("en"), Constant::Str("US"), Constant::Str("zh"), Constant::Str("hak")]);
        let texts = derive_text_form("tag", parses_tag, &carved, &keywords, 300);
        assert!(!texts.iter().any(|t| t.bytes().any(|b| b.is_ascii_digit())), "{texts:?}");
    }

    #[test]
    fn a_text_form_parameter_may_be_a_whole_text_of_the_dictionary() {
        use crate::registry::Constant;
        fn parses_tag(text: &str) -> bool {
            !text.is_empty() && text.split('-').all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_alphanumeric()))
        }
        let dictionary = Dictionary::of([Constant::Str("i-klingon"), Constant::Str("zh")]);
        let texts = derive_text_form("tag", parses_tag, &["en-US", "de"], &dictionary, 200);
        assert!(texts.iter().any(|t| t == "i-klingon"), "{texts:?}");
    }

    #[test]
    fn the_dictionary_is_offered_to_strings_chars_and_integers() {
        use crate::registry::Constant;
        let dictionary = Dictionary::of([Constant::Str("GMT"), Constant::Char(':'), Constant::Int(1000)]);
        let calls = [Value::Struct(
            "args",
            vec![("s", Value::Str("x".into())), ("c", Value::Char('a')), ("n", Value::U64(3))],
        )];
        let (grammar, _) =
            ArgsGrammar::mine_typed(&calls, &ParamTypes::default(), &dictionary, &Sealed::default()).expect("a grammar");
        let alternatives = |symbol: &str| {
            grammar
                .grammar()
                .rules()
                .find(|(s, _)| *s == symbol)
                .map(|(_, e)| e.to_vec())
                .unwrap_or_default()
        };
        assert!(alternatives("<args.s>").contains(&"GMT".to_string()));
        assert!(alternatives("<args.c>").contains(&":".to_string()));
        assert!(alternatives("<args.n>").contains(&"1000".to_string()));
        assert!(alternatives("<args.n>").contains(&"999".to_string()));
    }

    /// 100 texts the grammar mined from one carved call `f(s: <carved>)`
    /// derives for `s`.
    fn derived_texts(carved: &str) -> Vec<String> {
        derived_texts_of(&[carved], 100)
    }

    /// The texts of `count` derivations (seed 7) of a plain string
    /// parameter carved as `carved`.
    fn derived_texts_of(carved: &[&str], count: usize) -> Vec<String> {
        let calls: Vec<Value> = carved
            .iter()
            .map(|t| Value::Struct("args", vec![("s", Value::Str((*t).into()))]))
            .collect();
        let (grammar, _) =
            ArgsGrammar::mine_typed(&calls, &ParamTypes::default(), &Dictionary::default(), &Sealed::default())
                .expect("a grammar");
        let mut fuzzer = GrammarFuzzer::new(grammar.grammar(), Strategy::DeepForesight, 7)
            .expect("a usable grammar");
        (0..count)
            .filter_map(|_| match grammar.value_of(&fuzzer.fuzz_tree()) {
                Ok(Value::Struct("args", fields)) => match &fields[..] {
                    [("s", Value::Str(s))] => Some(s.clone()),
                    _ => None,
                },
                _ => None,
            })
            .collect()
    }

    #[test]
    fn plain_strings_get_a_fragment_of_their_own_carved_texts_after_them() {
        // `1.2.3` once more with a part after it (`1.2.3.3`): the parser's
        // "too many parts" branch, which no one-character move reaches
        // without breaking the parts before it.
        let texts = derived_texts("1.2.3");
        let four_parts = |t: &&String| {
            let parts: Vec<&str> = t.split('.').collect();
            parts.len() == 4 && parts.iter().all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
        };
        assert!(texts.iter().any(|t| four_parts(&t)), "{texts:?}");
    }

    #[test]
    fn plain_strings_get_one_of_their_list_items_after_them() {
        // `>=1, <3` once more with an item after it (`>=1, <3, <3`): a
        // limit on the count of items, which no fragment without the
        // white space reaches.
        let texts = derived_texts(">=1, <3");
        let three_items = |t: &&String| {
            let items: Vec<&str> = t.split(", ").collect();
            items.len() == 3
                && items.iter().all(|i| {
                    let n = i.trim_start_matches(['>', '<', '=']);
                    !n.is_empty() && n.len() < i.len() && n.bytes().all(|b| b.is_ascii_digit())
                })
        };
        assert!(texts.iter().any(|t| three_items(&t)), "{texts:?}");
    }

    #[test]
    fn byte_strings_get_the_string_grammar_with_byte_classes() {
        let samples: [&[u8]; 2] = [b"GET /a HTTP/1.1", b"\x7fELF\x02\xff"];
        let grammar =
            ArgsGrammar::mine(&samples.map(line)).expect("calls give a grammar");
        // Every terminal of the grammar is a character that is one byte.
        for (symbol, expansions) in grammar.grammar().rules() {
            for expansion in expansions {
                assert!(
                    expansion.chars().all(|c| u8::try_from(c).is_ok()),
                    "{symbol} -> {expansion:?} derives a character above 0xFF"
                );
            }
        }
        let lines = derive_lines(&grammar, 3, 300);
        let seen: BTreeSet<u8> = samples.iter().flat_map(|s| s.iter().copied()).collect();
        let new_byte = |class: fn(&u8) -> bool| {
            lines
                .iter()
                .flatten()
                .any(|b| class(b) && !seen.contains(b))
        };
        assert!(new_byte(u8::is_ascii_digit), "digits other than 1");
        assert!(new_byte(u8::is_ascii_uppercase), "letters never carved");
        assert!(new_byte(u8::is_ascii_lowercase), "lower case beside `a`");
        assert!(new_byte(u8::is_ascii_control), "control bytes beside 0x7f, 0x02");
        assert!(new_byte(|b| !b.is_ascii()), "high bytes beside 0xff");
        for sample in samples {
            assert!(lines.iter().any(|l| l == sample), "the samples themselves");
        }
        assert!(
            lines
                .iter()
                .filter(|l| !samples.contains(&l.as_slice()))
                .any(|l| l.len() >= 2 && l.iter().all(|b| b.is_ascii_alphanumeric())),
            "new text made of letters and digits"
        );
        assert_eq!(lines, derive_lines(&grammar, 3, 300), "same seed, same lines");
        assert_ne!(lines, derive_lines(&grammar, 4, 300));
    }

    #[allow(dead_code)]
    #[derive(serde::Serialize, serde::Deserialize)]
    enum Route {
        Ground { days: u8 },
        Air(u16),
        Sea,
    }

    /// The arguments of several mined grammars, covering every shape
    /// `to_value` reads: each with its parameter types (none: mined only).
    fn grammars_of_every_shape() -> Vec<ArgsGrammar> {
        use crate::registry::Constant;
        let args = |fields: Vec<(&'static str, Value)>| Value::Struct("args", fields);
        let variant = |variant, index, payload: Option<Value>| match payload {
            None => Value::UnitVariant { name: "E", index, variant },
            Some(Value::Tuple(fields)) => Value::TupleVariant { name: "E", index, variant, fields },
            Some(Value::Struct(_, fields)) => Value::StructVariant { name: "E", index, variant, fields },
            Some(value) => Value::NewtypeVariant { name: "E", index, variant, value: Box::new(value) },
        };
        let mut grammars = vec![
            ArgsGrammar::mine(&[
                args(vec![("s", Value::Str("Hello+World%21".into()))]),
                args(vec![("s", Value::Str("a%2b c".into()))]),
            ]),
            ArgsGrammar::mine(&[
                args(vec![
                    ("b", Value::Bool(true)),
                    ("i", Value::I64(-3)),
                    ("u", Value::U64(7)),
                    ("big", Value::U128(u128::MAX)),
                    ("f", Value::F64(1.5)),
                    ("g", Value::F32(-0.25)),
                    ("c", Value::Char('x')),
                    ("bytes", Value::Bytes(b"GET /\x00\xff".to_vec())),
                    ("o", Value::Some(Box::new(Value::Str("in".into())))),
                    ("seq", Value::Seq(vec![Value::U64(1), Value::U64(20)])),
                    ("map", Value::Map(vec![(Value::Str("k".into()), Value::I64(2))])),
                    ("t", Value::Tuple(vec![Value::Unit, Value::UnitStruct("U")])),
                    ("ts", Value::TupleStruct("T", vec![Value::Char('é')])),
                    ("n", Value::NewtypeStruct("N", Box::new(Value::U64(3)))),
                    ("e", variant("Unit", 0, None)),
                    ("mixed", Value::U64(250)),
                ]),
                args(vec![
                    ("b", Value::Bool(false)),
                    ("i", Value::I64(i64::MIN)),
                    ("u", Value::U64(0)),
                    ("big", Value::U128(1)),
                    ("f", Value::F64(f64::NAN)),
                    ("g", Value::F32(3.0)),
                    ("c", Value::Char('7')),
                    ("bytes", Value::Bytes(Vec::new())),
                    ("o", Value::None),
                    ("seq", Value::Seq(Vec::new())),
                    ("map", Value::Map(Vec::new())),
                    ("t", Value::Tuple(vec![Value::Unit, Value::UnitStruct("U")])),
                    ("ts", Value::TupleStruct("T", vec![Value::Char('b')])),
                    ("n", Value::NewtypeStruct("N", Box::new(Value::U64(9)))),
                    ("e", variant("New", 1, Some(Value::Str("n".into())))),
                    ("mixed", Value::Str("ab".into())),
                ]),
            ]),
            ArgsGrammar::mine(&[
                args(vec![
                    ("e", variant("Pair", 2, Some(Value::Tuple(vec![Value::I64(1), Value::Bool(true)])))),
                    ("mixed", Value::Seq(vec![Value::Unit])),
                ]),
                args(vec![
                    ("e", variant("Named", 3, Some(Value::Struct("", vec![("x", Value::U64(1)), ("y", Value::Str("yy".into()))])))),
                    ("mixed", Value::Bool(true)),
                ]),
                args(vec![("e", variant("Unit", 0, None)), ("mixed", Value::U64(3))]),
            ]),
        ]
        .into_iter()
        .map(|g| g.expect("calls"))
        .collect::<Vec<_>>();
        // Traced types: every variant of an enum, a fixed-size array.
        let mut types = ParamTypes::default();
        types.param("route", crate::value::tracer::trace::<Route>());
        types.param("raw", crate::value::tracer::trace::<[u8; 3]>());
        types.param("maybe", crate::value::tracer::trace::<Option<u32>>());
        let carved = args(vec![
            ("route", Value::capture(&Route::Ground { days: 200 }).unwrap()),
            ("raw", Value::capture(&[1u8, 2, 3]).unwrap()),
            ("maybe", Value::Some(Box::new(Value::U64(4_000_000_000)))),
        ]);
        let mined = ArgsGrammar::mine_typed(&[carved], &types, &Dictionary::default(), &Sealed::default());
        grammars.push(mined.expect("a grammar").0);
        // A text-form parameter, derived by token with the dictionary's.
        fn parses(text: &str) -> bool {
            !text.is_empty()
        }
        let mut types = ParamTypes::default();
        types.param("d", crate::value::types::Traced::plain(ParamType::Text { parses }));
        let calls = ["1h 30min", "250ms"].map(|t| args(vec![("d", Value::Str(t.into()))]));
        let dictionary = Dictionary::of([Constant::Str("sec"), Constant::Int(60), Constant::Char('*')]);
        let mined = ArgsGrammar::mine_typed(&calls, &types, &dictionary, &Sealed::default());
        grammars.push(mined.expect("a grammar").0);
        grammars
    }

    /// The generation loop reads each derivation in place
    /// (`value_of_derived`): for the same seed it gives what reading the
    /// derivation tree gives, value for value (`Debug`, for NaN), errors
    /// included, over grammars of every shape and several seeds.
    #[test]
    fn values_read_in_place_are_those_of_the_derivation_trees() {
        let grammars = grammars_of_every_shape();
        let mut kinds = std::collections::HashSet::new();
        for (g, grammar) in grammars.iter().enumerate() {
            for seed in 0..6 {
                let fuzzer = || GrammarFuzzer::new(grammar.grammar(), Strategy::DeepForesight, seed);
                let (mut by_tree, mut in_place) = (fuzzer().expect("usable"), fuzzer().expect("usable"));
                for i in 0..150 {
                    let tree = by_tree.fuzz_tree();
                    let derived = in_place.derive();
                    assert_eq!(derived.to_string(), tree.to_string(), "grammar {g} seed {seed} #{i}");
                    let (expected, got) = (grammar.value_of(&tree), grammar.value_of_derived(derived));
                    assert_eq!(format!("{got:?}"), format!("{expected:?}"), "grammar {g} seed {seed} #{i}");
                    if let Ok(Value::Struct(_, fields)) = &expected {
                        kinds.extend(fields.iter().map(|(_, v)| std::mem::discriminant(v)));
                    }
                }
                assert_eq!(in_place.expansion_coverage(), by_tree.expansion_coverage());
            }
        }
        // The grammars did make values of most kinds.
        assert!(kinds.len() >= 15, "{} kinds", kinds.len());
    }

    /// The generation loop tells a derivation it derived before by its
    /// key ([`Derivations`]) and takes what it read as then: over
    /// grammars of every shape and several seeds, that is the key of the
    /// value it reads as now (or no value both times), and most repeated
    /// trees are told so.
    ///
    /// [`Derivations`]: crate::generation::repeats::Derivations
    #[test]
    fn derivations_told_by_their_keys_read_as_the_arguments_they_read_as_before() {
        use crate::generation::repeats::{Derivations, Repeats};
        let (mut hits, mut misses) = (0, 0);
        for grammar in grammars_of_every_shape() {
            for seed in 0..4 {
                let mut fuzzer = GrammarFuzzer::new(grammar.grammar(), Strategy::DeepForesight, seed).expect("usable");
                let mut derivations = Derivations::default();
                for _ in 0..300 {
                    let derived = fuzzer.derive();
                    let read = grammar.value_of_derived(derived).ok().map(|v| Repeats::key(&v));
                    match derivations.known(derived.derivation_key()) {
                        Some(before) => {
                            assert_eq!(before, read, "{derived}");
                            hits += 1;
                        }
                        None => {
                            derivations.read(derived.derivation_key(), read);
                            misses += 1;
                        }
                    }
                }
            }
        }
        assert!(hits > 500 && misses > 500, "{hits} told, {misses} read");
    }

    /// An untagged enum's values serialize as the variant's payload: a
    /// number in one call, a string in another. The grammar replays them,
    /// where it used to lose both and never terminate.
    #[test]
    fn values_of_different_kinds_at_one_place_are_replayed() {
        let mut types = ParamTypes::default();
        types.param(
            "amount",
            crate::value::types::Traced::plain(ParamType::Untraced("untagged".into())),
        );
        let call = |v: Value| Value::Struct("args", vec![("amount", v)]);
        let carved = [call(Value::U64(250)), call(Value::Str("ab".into())), call(Value::U64(7))];
        let (grammar, untyped) =
            ArgsGrammar::mine_typed(&carved, &types, &Dictionary::default(), &Sealed::default()).expect("a grammar");
        assert_eq!(untyped.len(), 1);
        let mut fuzzer = GrammarFuzzer::new(grammar.grammar(), Strategy::DeepForesight, 1)
            .expect("a usable grammar");
        let derived: BTreeSet<String> = (0..50)
            .map(|_| format!("{:?}", grammar.value_of(&fuzzer.fuzz_tree()).expect("a value")))
            .collect();
        let expected: BTreeSet<String> = carved.iter().map(|v| format!("{v:?}")).collect();
        assert_eq!(derived, expected);
    }

    #[test]
    fn typed_grammars_make_every_variant_and_stay_in_range() {
        let mut types = ParamTypes::default();
        types.param("route", crate::value::tracer::trace::<Route>());
        types.param("n", crate::value::tracer::trace::<i8>());
        types.param("raw", crate::value::tracer::trace::<[u8; 3]>());
        types.param("maybe", crate::value::tracer::trace::<Option<u32>>());
        let carved = Value::Struct(
            "args",
            vec![
                ("route", Value::capture(&Route::Ground { days: 200 }).unwrap()),
                ("n", Value::I64(100)),
                ("raw", Value::capture(&[1u8, 2, 3]).unwrap()),
                ("maybe", Value::Some(Box::new(Value::U64(4_000_000_000)))),
            ],
        );
        let (grammar, untyped) = ArgsGrammar::mine_typed(&[carved], &types, &Dictionary::default(), &Sealed::default()).expect("a grammar");
        assert!(untyped.is_empty(), "{untyped:?}");
        let mut fuzzer = GrammarFuzzer::new(grammar.grammar(), Strategy::DeepForesight, 5)
            .expect("a usable grammar");
        let mut variants = BTreeSet::new();
        let mut nones = 0;
        for _ in 0..500 {
            let args = grammar.value_of(&fuzzer.fuzz_tree()).expect("a value");
            assert!(types.admits(&args), "outside the types: {args:?}");
            let Value::Struct(_, fields) = &args else {
                panic!("{args:?}")
            };
            if let Value::UnitVariant { variant, .. }
            | Value::NewtypeVariant { variant, .. }
            | Value::StructVariant { variant, .. } = &fields[0].1
            {
                variants.insert(*variant);
            }
            nones += usize::from(fields[3].1 == Value::None);
        }
        assert_eq!(variants, ["Air", "Ground", "Sea"].into(), "variants never carved too");
        assert!(nones > 0, "`None` though only `Some` was carved");
        // Integers: the type's boundaries, never past them (doubling 100 in an i8).
        let n_rule: Vec<&str> = grammar
            .grammar()
            .rules()
            .find(|(symbol, _)| *symbol == "<args.n>")
            .map(|(_, e)| e.iter().map(String::as_str).collect())
            .expect("a rule for n");
        assert!(n_rule.contains(&"127") && n_rule.contains(&"-128"), "{n_rule:?}");
        assert!(!n_rule.contains(&"200") && !n_rule.contains(&"255"), "{n_rule:?}");
    }

    #[allow(dead_code)]
    #[derive(serde::Deserialize)]
    struct Subnets {
        start: std::net::Ipv4Addr,
        end: std::net::Ipv4Addr,
        min_prefix_len: u8,
    }

    /// ipnet's `aggregate(&Vec<IpNet>)` and `Ipv4Subnets::next(&mut self)`:
    /// addresses inside a `Vec` and in struct fields are traced as texts and
    /// derived from their carved texts by token, so that nearly every
    /// derivation deserializes (the grammar derived them character by
    /// character, and half of them did not parse).
    #[test]
    fn texts_inside_values_are_derived_from_their_carved_texts() {
        use serde::Deserialize;
        type Networks = Vec<std::net::Ipv4Addr>;
        let mut types = ParamTypes::default();
        types.param(
            "networks",
            crate::value::tracer::trace::<Networks>().checked_by(|v| Networks::deserialize(v).is_ok()),
        );
        types.param(
            "subnets",
            crate::value::tracer::trace::<Subnets>().checked_by(|v| Subnets::deserialize(v).is_ok()),
        );
        let addrs = |a: &[&str]| Value::Seq(a.iter().map(|s| Value::Str((*s).into())).collect());
        let subnets = |start: &str, end: &str| {
            Value::Struct(
                "Subnets",
                vec![
                    ("start", Value::Str(start.into())),
                    ("end", Value::Str(end.into())),
                    ("min_prefix_len", Value::U64(26)),
                ],
            )
        };
        let carved = [
            Value::Struct(
                "args",
                vec![
                    ("networks", addrs(&["10.1.1.0", "10.1.0.0"])),
                    ("subnets", subnets("10.1.1.0", "10.1.1.255")),
                ],
            ),
            Value::Struct(
                "args",
                vec![("networks", addrs(&["192.168.0.1"])), ("subnets", subnets("10.0.0.0", "10.0.0.63"))],
            ),
        ];
        let derivations = 500;
        let (parsed, fields) = derive_as_types_admit(&carved, &types, derivations, |fields| {
            Networks::deserialize(&fields[0].1).is_ok() && Subnets::deserialize(&fields[1].1).is_ok()
        });
        let mut texts = BTreeSet::new();
        for fields in &fields {
            if let Value::Seq(items) = &fields[0].1 {
                texts.extend(items.iter().map(|v| format!("{v:?}")));
            }
        }
        assert!(parsed * 100 >= derivations * 90, "{parsed} of {derivations} parse");
        assert!(texts.len() >= 20, "new addresses, not only the carved ones: {texts:?}");
    }

    /// Derives `count` arguments from a grammar mined from `carved` with
    /// `types` (seed 3), checks that `types` admits exactly those whose
    /// fields `deserialize`, and returns how many did, and every
    /// derivation's fields.
    fn derive_as_types_admit(
        carved: &[Value],
        types: &ParamTypes,
        count: usize,
        deserialize: impl Fn(&[(&'static str, Value)]) -> bool,
    ) -> (usize, Vec<Vec<(&'static str, Value)>>) {
        let (grammar, untyped) =
            ArgsGrammar::mine_typed(carved, types, &Dictionary::default(), &Sealed::default())
                .expect("a grammar");
        assert!(untyped.is_empty(), "{untyped:?}");
        let mut fuzzer = GrammarFuzzer::new(grammar.grammar(), Strategy::DeepForesight, 3)
            .expect("a usable grammar");
        let (mut parsed, mut derived) = (0, Vec::new());
        for _ in 0..count {
            let args = grammar.value_of(&fuzzer.fuzz_tree()).expect("a value");
            let Value::Struct(_, fields) = &args else {
                panic!("{args:?}")
            };
            let deserializes = deserialize(fields);
            assert_eq!(types.admits(&args), deserializes, "{args:?}");
            parsed += usize::from(deserializes);
            derived.push(fields.clone());
        }
        (parsed, derived)
    }

    /// Addresses before a port in a tuple, and map keys that are addresses:
    /// traced as texts too, and derived by token from their carved texts
    /// (untraced, they were derived character by character).
    #[test]
    fn texts_before_more_elements_and_as_map_keys_are_derived_from_their_carved_texts() {
        use serde::Deserialize;
        use std::collections::BTreeMap;
        type Hops = Vec<(std::net::Ipv4Addr, u8)>;
        type Costs = BTreeMap<std::net::Ipv4Addr, u16>;
        let mut types = ParamTypes::default();
        types.param(
            "hops",
            crate::value::tracer::trace::<Hops>().checked_by(|v| Hops::deserialize(v).is_ok()),
        );
        types.param(
            "costs",
            crate::value::tracer::trace::<Costs>().checked_by(|v| Costs::deserialize(v).is_ok()),
        );
        let hops = |h: &[(&str, u64)]| {
            Value::Seq(
                h.iter()
                    .map(|(a, n)| Value::Tuple(vec![Value::Str((*a).into()), Value::U64(*n)]))
                    .collect(),
            )
        };
        let costs = |c: &[(&str, u64)]| {
            Value::Map(c.iter().map(|(a, n)| (Value::Str((*a).into()), Value::U64(*n))).collect())
        };
        let carved = [
            Value::Struct(
                "args",
                vec![
                    ("hops", hops(&[("10.1.1.0", 24), ("10.1.0.0", 16)])),
                    ("costs", costs(&[("10.1.1.1", 5), ("192.168.0.1", 10)])),
                ],
            ),
            Value::Struct(
                "args",
                vec![("hops", hops(&[("172.16.4.2", 30)])), ("costs", costs(&[("10.0.0.63", 1)]))],
            ),
        ];
        let derivations = 500;
        let (parsed, fields) = derive_as_types_admit(&carved, &types, derivations, |fields| {
            Hops::deserialize(&fields[0].1).is_ok() && Costs::deserialize(&fields[1].1).is_ok()
        });
        let mut keys = BTreeSet::new();
        for fields in &fields {
            if let Value::Map(entries) = &fields[1].1 {
                keys.extend(entries.iter().map(|(k, _)| format!("{k:?}")));
            }
        }
        // 442 of 500: made-up digits of three (an octet of 192.168…) may
        // pass 255, and those are not run.
        assert!(parsed * 100 >= derivations * 85, "{parsed} of {derivations} parse");
        assert!(keys.len() >= 20, "new keys, not only the carved ones: {keys:?}");
    }

    #[test]
    fn strings_get_no_byte_classes() {
        let s = Value::Struct("args", vec![("s", Value::Str("\u{1}é".into()))]);
        let grammar = ArgsGrammar::mine(&[s]).expect("a grammar");
        let symbols: Vec<&str> = grammar.grammar().rules().map(|(s, _)| s).collect();
        assert!(!symbols.iter().any(|s| s.ends_with("-control>") || s.ends_with("-high>")));
    }

    #[test]
    fn a_byte_string_derivation_maps_each_character_to_one_byte() {
        let shape = Shape::Bytes(BTreeSet::new());
        let tree = |text: &str| DerivationTree {
            symbol: "<args.line>".into(),
            children: Some(vec![DerivationTree::terminal(text)]),
        };
        assert_eq!(
            to_value(&shape, &tree("GET\u{0}\u{ff}")),
            Ok(Value::Bytes(b"GET\x00\xff".to_vec()))
        );
        assert_eq!(
            to_value(&shape, &tree("GET\u{100}")),
            Err(MineError("byte above 0xFF"))
        );
    }
}
