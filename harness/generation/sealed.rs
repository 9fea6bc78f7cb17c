//! Sealed types: structs whose values only their crate's API makes.
//!
//! Generation builds arguments through their `Deserialize`, and one derived
//! for carve accepts any field values, also those the type's constructors
//! never make: data-encoding's `Encoding` (a table checked where
//! `Specification::encoding` builds it) generated as `Encoding([])` makes
//! every method panic, and each panic read as a found bug. A user of the
//! crate cannot make such a value when the struct has a field they cannot
//! set (not `pub`: private, `pub(crate)`, `pub(super)`, …; or `pub` but
//! `#[doc(hidden)]`, outside the documented API) or is `#[non_exhaustive]`. Such a struct is *sealed*, read from the crate's
//! sources ([`sealed_structs`]), and generation uses only values of it that
//! the API made ([`Sealed`]): those carved from system tests, and those that
//! calls returned or left behind in `&mut` arguments from arguments made so.
//! A generated argument that holds any other value of a sealed struct is not
//! run; it counts as an argument that did not deserialize, as it would with a
//! `Deserialize` that checks (`#[serde(try_from = "…")]`).
//!
//! ```
//! use carve::generation::sealed::{sealed_structs, Sealed};
//! use carve::value::Value;
//!
//! let names = sealed_structs("pub struct Table { bytes: Vec<u8> }\npub struct Point { pub x: i32 }");
//! assert_eq!(names, ["Table"]);
//! let mut sealed = Sealed::new(names);
//! let made = Value::NewtypeStruct("Table", Box::new(Value::Bytes(vec![1, 2])));
//! sealed.add_made(&made);
//! assert!(sealed.admits(&Value::Struct("args", vec![("self", made)])));
//! let forged = Value::NewtypeStruct("Table", Box::new(Value::Bytes(vec![])));
//! assert!(!sealed.admits(&Value::Struct("args", vec![("self", forged)])));
//! ```

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::carving::fragment::{quoted_end, raw_string_end, whitespace_end};
use crate::generation::shape::{Payload, Shape};
use crate::value::Value;

/// The sealed structs of a crate and the values of them its API made.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Sealed {
    /// Names of the sealed structs (as serde names them: the struct's name).
    names: BTreeSet<String>,
    /// Values of sealed structs the API made, by struct name, in value
    /// order; at most [`MAX_MADE`] of each.
    made: BTreeMap<String, BTreeSet<Value>>,
}

/// At most this many values of one sealed struct are kept: enough to draw
/// varied receivers from, few enough that every call may add to them.
pub const MAX_MADE: usize = 256;

impl Sealed {
    /// No value made yet of the structs `names`.
    pub fn new(names: impl IntoIterator<Item = impl Into<String>>) -> Sealed {
        Sealed {
            names: names.into_iter().map(Into::into).collect(),
            made: BTreeMap::new(),
        }
    }

    /// The sealed structs of the instrumented code's sources: the `.rs`
    /// files in the folders of the files the attributes marked, read once.
    pub fn of_sources(files: impl IntoIterator<Item = PathBuf>) -> Sealed {
        let mut names = BTreeSet::new();
        for file in source_files(files) {
            if let Ok(text) = std::fs::read_to_string(&file) {
                names.extend(sealed_structs(&text));
            }
        }
        Sealed::new(names)
    }

    /// Whether there is no sealed struct at all.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// The sealed structs' names.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.names.iter().map(String::as_str)
    }

    /// The values the API made, by struct name, each in value order.
    pub fn made(&self) -> impl Iterator<Item = &Value> {
        self.made.values().flatten()
    }

    /// The values of the struct `name` the API made, in value order.
    pub fn made_of<'s>(&'s self, name: &str) -> impl Iterator<Item = &'s Value> + 's {
        self.made.get(name).into_iter().flatten()
    }

    /// What generation for a target whose calls had arguments `seeds` does
    /// with sealed structs, for its user: one line per struct they hold.
    pub fn notes(&self, seeds: &[Value]) -> Vec<String> {
        let held: BTreeSet<&str> = seeds.iter().flat_map(|s| self.held_in(s)).collect();
        held.into_iter()
            .map(|name| {
                format!(
                    "`{name}` has a field its users cannot set: generated only as the {} \
                     value(s) of it the crate's API made (carved, returned or left in `&mut` \
                     arguments)",
                    self.made_of(name).count()
                )
            })
            .collect()
    }

    /// Whether `value` is a value of a sealed struct.
    pub(crate) fn is_sealed(&self, value: &Value) -> bool {
        self.sealed_name(value).is_some()
    }

    /// The name of `value`'s struct, if it is a sealed one.
    fn sealed_name(&self, value: &Value) -> Option<&'static str> {
        name_of(value).filter(|name| self.names.contains(*name))
    }

    /// The outermost values of sealed structs inside `value` (itself, if it
    /// is one), in order.
    fn sealed_in<'v>(&self, value: &'v Value, found: &mut Vec<&'v Value>) {
        if self.is_sealed(value) {
            found.push(value);
        } else {
            for child in value.children() {
                self.sealed_in(child, found);
            }
        }
    }

    /// Records every value of a sealed struct in `value` as made by the API.
    pub fn add_made(&mut self, value: &Value) {
        let mut found = Vec::new();
        self.sealed_in(value, &mut found);
        for value in found {
            let Some(name) = name_of(value) else {
                continue;
            };
            let made = self.made.entry(name.to_owned()).or_default();
            if made.len() < MAX_MADE && !made.contains(value) {
                made.insert(value.clone());
            }
        }
    }

    /// Whether every value of a sealed struct in `value` is one the API made.
    pub fn admits(&self, value: &Value) -> bool {
        if self.names.is_empty() {
            return true;
        }
        let mut found = Vec::new();
        self.sealed_in(value, &mut found);
        found.iter().all(|v| {
            name_of(v).is_some_and(|name| self.made.get(name).is_some_and(|made| made.contains(*v)))
        })
    }

    /// `value` with each value of a sealed struct in it replaced by one the
    /// API made, drawn by `draw` (the same `draw`, the same values): values
    /// calls made during generation join those a grammar was mined with.
    pub fn redraw(&self, value: &mut Value, draw: u64) {
        if self.names.is_empty() {
            // No struct is sealed: nothing to redraw, no walk of the value.
            return;
        }
        let mut k = 0u64;
        self.redraw_in(value, draw, &mut k);
    }

    fn redraw_in(&self, value: &mut Value, draw: u64, k: &mut u64) {
        if let Some(name) = self.sealed_name(value) {
            let made = self.made.get(name);
            if let Some(made) = made.filter(|m| !m.is_empty()) {
                *k += 1;
                let at = mix(draw, *k) % made.len() as u64;
                if let Some(drawn) = made.iter().nth(at as usize) {
                    *value = drawn.clone();
                }
            }
            return;
        }
        for child in value.children_mut() {
            self.redraw_in(child, draw, k);
        }
    }

    /// The sealed structs `value` holds values of, by name.
    pub fn held_in(&self, value: &Value) -> BTreeSet<&'static str> {
        let mut found = Vec::new();
        self.sealed_in(value, &mut found);
        found.into_iter().filter_map(name_of).collect()
    }

    /// What a call shows of its arguments `args`, its returned value and its
    /// `&mut` arguments afterwards (`outputs`): a call whose arguments are
    /// known to be made through the API (`trusted`: carved from a system
    /// test, or stored by generation, which only runs such arguments) made
    /// all of them so; any other call made its outputs so when its
    /// arguments hold only values the API made.
    pub fn add_call(&mut self, trusted: bool, args: &Value, outputs: &[Option<&Value>]) {
        if trusted {
            self.add_made(args);
        } else if !self.admits(args) {
            return;
        }
        for output in outputs.iter().flatten() {
            self.add_made(output);
        }
    }

    /// `shape` with each position of a sealed struct holding only the values
    /// the API made of it (positions of a struct with none made keep their
    /// shape: what is derived there is not run).
    pub fn restrict(&self, shape: Shape) -> Shape {
        if self.names.is_empty() {
            return shape;
        }
        let name = match &shape {
            Shape::Struct(name, _) | Shape::Newtype(name, _) | Shape::Tuple(Some(name), _) => {
                Some(*name)
            }
            _ => None,
        };
        if let Some(name) = name.filter(|n| self.names.contains(*n)) {
            let made: Vec<Value> = self.made_of(name).cloned().collect();
            return if made.is_empty() { shape } else { Shape::Mixed(made) };
        }
        let restrict = |s: Shape| self.restrict(s);
        let restrict_box = |s: Box<Shape>| Box::new(self.restrict(*s));
        match shape {
            Shape::Option { none, some } => Shape::Option {
                none,
                some: some.map(restrict_box),
            },
            Shape::Seq(element, lengths) => Shape::Seq(element.map(restrict_box), lengths),
            Shape::Tuple(name, items) => Shape::Tuple(name, items.into_iter().map(restrict).collect()),
            Shape::Struct(name, fields) => Shape::Struct(
                name,
                fields.into_iter().map(|(f, s)| (f, restrict(s))).collect(),
            ),
            Shape::Newtype(name, inner) => Shape::Newtype(name, restrict_box(inner)),
            Shape::Map(entry) => Shape::Map(entry.map(|e| {
                let (k, v) = *e;
                Box::new((restrict(k), restrict(v)))
            })),
            Shape::Enum(name, mut variants) => {
                for variant in variants.values_mut() {
                    let payload = std::mem::replace(&mut variant.payload, Payload::Unit);
                    variant.payload = match payload {
                        Payload::Unit => Payload::Unit,
                        Payload::Newtype(s) => Payload::Newtype(restrict(s)),
                        Payload::Tuple(items) => {
                            Payload::Tuple(items.into_iter().map(restrict).collect())
                        }
                        Payload::Struct(fields) => Payload::Struct(
                            fields.into_iter().map(|(f, s)| (f, restrict(s))).collect(),
                        ),
                    };
                }
                Shape::Enum(name, variants)
            }
            other => other,
        }
    }
}

/// A well-mixed number from `a` and `b` (splitmix64's finalizer).
fn mix(a: u64, b: u64) -> u64 {
    let mut z = a.wrapping_add(b.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The struct name of a value of a struct.
fn name_of(value: &Value) -> Option<&'static str> {
    match value {
        Value::Struct(name, _) | Value::TupleStruct(name, _) | Value::NewtypeStruct(name, _) => {
            Some(*name)
        }
        _ => None,
    }
}

/// At most this many source files are read: a crate's own sources, not a
/// vendored tree.
const MAX_FILES: usize = 2_000;

/// The `.rs` files in the folders of `files` and below them (not in
/// `target/` or hidden folders), each once, in path order.
fn source_files(files: impl IntoIterator<Item = PathBuf>) -> BTreeSet<PathBuf> {
    let mut folders: BTreeSet<PathBuf> = files
        .into_iter()
        .filter_map(|f| f.parent().map(Path::to_path_buf))
        .collect();
    // A folder inside another is read with it.
    let all = folders.clone();
    folders.retain(|f| !all.iter().any(|o| o != f && f.starts_with(o)));
    let mut found = BTreeSet::new();
    let mut stack: Vec<PathBuf> = folders.into_iter().collect();
    while let Some(folder) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        let mut entries: Vec<PathBuf> = entries.filter_map(|e| Some(e.ok()?.path())).collect();
        entries.sort();
        for path in entries {
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if path.is_dir() {
                if !name.starts_with('.') && name != "target" {
                    stack.push(path);
                }
            } else if name.ends_with(".rs") {
                found.insert(path);
                if found.len() >= MAX_FILES {
                    return found;
                }
            }
        }
    }
    found
}

/// A token of Rust source, as far as finding structs' fields needs.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Token<'a> {
    Ident(&'a str),
    Punct(char),
    /// `->`, apart from `>` so that it closes no angle bracket.
    Arrow,
    /// A literal, a lifetime or anything else that is neither.
    Other,
}

/// The tokens of `text`, with comments and literals skipped.
fn tokens(text: &str) -> Vec<Token<'_>> {
    let bytes = text.as_bytes();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if let Some(end) = whitespace_end(text, i) {
            i = end;
            continue;
        }
        if let Some(end) = raw_string_end(text, i) {
            tokens.push(Token::Other);
            i = end;
            continue;
        }
        let b = bytes[i];
        if b == b'"' || (b == b'b' && bytes.get(i + 1) == Some(&b'"')) {
            let open = if b == b'b' { i + 1 } else { i };
            tokens.push(Token::Other);
            i = quoted_end(bytes, open + 1, b'"');
            continue;
        }
        if b == b'\'' || (b == b'b' && bytes.get(i + 1) == Some(&b'\'')) {
            let open = if b == b'b' { i + 1 } else { i };
            tokens.push(Token::Other);
            i = char_or_lifetime_end(text, open);
            continue;
        }
        if b.is_ascii_alphabetic() || b == b'_' || !b.is_ascii() {
            // `r#type`: the identifier `type`.
            if text[i..].starts_with("r#") {
                i += 2;
            }
            let end = text[i..]
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .map_or(text.len(), |n| i + n);
            let end = end.max(i + text[i..].chars().next().map_or(1, char::len_utf8));
            tokens.push(Token::Ident(&text[i..end]));
            i = end;
            continue;
        }
        if b.is_ascii_digit() {
            let end = text[i..]
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.'))
                .map_or(text.len(), |n| i + n);
            tokens.push(Token::Other);
            i = end;
            continue;
        }
        if b == b'-' && bytes.get(i + 1) == Some(&b'>') {
            tokens.push(Token::Arrow);
            i += 2;
            continue;
        }
        tokens.push(Token::Punct(char::from(b)));
        i += 1;
    }
    tokens
}

/// Just past the char literal (`'a'`, `'\n'`) or lifetime (`'a`) whose
/// quote is at `i`.
fn char_or_lifetime_end(text: &str, i: usize) -> usize {
    let rest = &text[i + 1..];
    if rest.starts_with('\\') {
        return quoted_end(text.as_bytes(), i + 1, b'\'');
    }
    let mut chars = rest.char_indices();
    match (chars.next(), chars.next()) {
        (Some(_), Some((at, '\''))) => i + 1 + at + 1,
        _ => {
            // A lifetime: its name.
            let name = rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            i + 1 + name
        }
    }
}

/// The names of the structs in Rust source `text` that have a field not
/// `pub` or are `#[non_exhaustive]`, in the order they appear. Structs with
/// no field (`struct Unit;`, `struct Empty {}`) are not sealed.
pub fn sealed_structs(text: &str) -> Vec<String> {
    let tokens = tokens(text);
    let mut sealed = Vec::new();
    let mut non_exhaustive = false;
    let mut i = 0;
    while i < tokens.len() {
        match &tokens[i] {
            Token::Punct('#') => {
                let end = attribute_end(&tokens, i);
                non_exhaustive |= tokens[i..end].contains(&Token::Ident("non_exhaustive"));
                i = end;
                continue;
            }
            Token::Punct(';' | '{' | '}') => non_exhaustive = false,
            Token::Ident("struct") => {
                if let Some(Token::Ident(name)) = tokens.get(i + 1) {
                    let (hides, end) = hides_a_field(&tokens, i + 2);
                    if hides || (non_exhaustive && end > i + 2) {
                        sealed.push((*name).to_owned());
                    }
                    non_exhaustive = false;
                    i = end.max(i + 2);
                    continue;
                }
            }
            _ => {}
        }
        i += 1;
    }
    sealed
}

/// Just past the attribute (`#[…]`, `#![…]`) at `i`.
fn attribute_end(tokens: &[Token], i: usize) -> usize {
    let mut j = i + 1;
    if tokens.get(j) == Some(&Token::Punct('!')) {
        j += 1;
    }
    if tokens.get(j) != Some(&Token::Punct('[')) {
        return i + 1;
    }
    group_end(tokens, j)
}

/// Just past the bracketed group (`(…)`, `[…]`, `{…}`) that opens at `i`.
fn group_end(tokens: &[Token], i: usize) -> usize {
    let mut depth = 0usize;
    for (j, token) in tokens.iter().enumerate().skip(i) {
        match token {
            Token::Punct('(' | '[' | '{') => depth += 1,
            Token::Punct(')' | ']' | '}') => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return j + 1;
                }
            }
            _ => {}
        }
    }
    tokens.len()
}

/// For a struct whose name is just before `i`: whether it has a field that
/// is not `pub`, and where its definition ends (past its fields).
fn hides_a_field(tokens: &[Token], mut i: usize) -> (bool, usize) {
    // Generics: angle brackets, whose bounds may hold `->` and groups.
    if tokens.get(i) == Some(&Token::Punct('<')) {
        let mut depth = 0usize;
        while i < tokens.len() {
            match tokens[i] {
                Token::Punct('<') => depth += 1,
                Token::Punct('>') => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        i += 1;
                        break;
                    }
                }
                Token::Punct('(' | '[') => {
                    i = group_end(tokens, i);
                    continue;
                }
                _ => {}
            }
            i += 1;
        }
    }
    // The fields, after a `where` clause whose bounds may hold `Fn(…)`.
    let mut in_where = false;
    while let Some(token) = tokens.get(i) {
        match token {
            Token::Ident("where") => in_where = true,
            Token::Punct(';') => return (false, i + 1),
            Token::Punct('{') => {
                let end = group_end(tokens, i);
                return (fields_hide_one(&tokens[i + 1..end - 1]), end);
            }
            Token::Punct('(') if !in_where => {
                let end = group_end(tokens, i);
                return (fields_hide_one(&tokens[i + 1..end - 1]), end);
            }
            Token::Punct('(' | '[') => {
                i = group_end(tokens, i);
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    (false, i)
}

/// Whether one of the comma-separated fields in `tokens` is not `pub`.
fn fields_hide_one(tokens: &[Token]) -> bool {
    let mut fields = Vec::new();
    let (mut start, mut depth) = (0, 0usize);
    for (j, token) in tokens.iter().enumerate() {
        match token {
            Token::Punct('(' | '[' | '{' | '<') => depth += 1,
            Token::Punct(')' | ']' | '}' | '>') => depth = depth.saturating_sub(1),
            Token::Punct(',') if depth == 0 => {
                fields.push(&tokens[start..j]);
                start = j + 1;
            }
            _ => {}
        }
    }
    fields.push(&tokens[start..]);
    fields.into_iter().filter(|f| !f.is_empty()).any(|field| {
        let (mut j, mut hidden) = (0, false);
        while field.get(j) == Some(&Token::Punct('#')) {
            let end = attribute_end(field, j);
            // `#[doc(hidden)]`: public to the compiler, not part of the API
            // (data-encoding's `Encoding(#[doc(hidden)] pub InternalEncoding)`).
            let attribute = &field[j..end];
            hidden |= attribute.contains(&Token::Ident("doc"))
                && attribute.contains(&Token::Ident("hidden"));
            j = end;
        }
        // `pub` alone is public; `pub(crate)`, `pub(super)`, `pub(in …)`
        // are not, to a user of the crate.
        let public =
            field.get(j) == Some(&Token::Ident("pub")) && field.get(j + 1) != Some(&Token::Punct('('));
        hidden || !public
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn structs_with_a_field_users_cannot_set_are_sealed() {
        let source = r#"
            /// A `struct Doc { x: u8 }` in a comment is no struct.
            pub struct Open { pub a: u8, pub b: Vec<(u8, u8)> }
            pub struct Closed { pub a: u8, b: u8 }
            pub struct Crate { pub(crate) a: u8 }
            pub struct InPath { pub(in crate::m) a: u8 }
            pub struct Tuple(pub u8, Cow<'static, [u8]>);
            pub struct OpenTuple(pub u8);
            pub struct Unit;
            pub struct Empty {}
            #[non_exhaustive]
            pub struct Later { pub a: u8 }
            #[derive(Debug)]
            pub struct AfterDerive { pub a: u8 }
            pub struct Generic<'a, T: Fn(u8) -> u8, const N: usize> where T: Clone { pub f: T, pub s: &'a [u8; N] }
            pub struct GenericHidden<T> where T: Fn(u8) -> u8 { f: T }
            pub struct Attributed { #[serde(rename = "x")] pub a: u8, #[doc = "b"] b: u8 }
            pub struct Hidden(#[doc(hidden)] pub Cow<'static, [u8]>);
            pub struct Documented { #[doc = "hidden"] pub a: u8 }
            const S: &str = "struct InString { a: u8 }";
            const C: char = '"';
            fn f<'a>(x: &'a str) -> char { let r#struct = 1; 'x' }
            macro_rules! m { ($name:ident) => { struct $name { a: u8 } } }
        "#;
        assert_eq!(
            sealed_structs(source),
            [
                "Closed",
                "Crate",
                "InPath",
                "Tuple",
                "Later",
                "GenericHidden",
                "Attributed",
                "Hidden",
            ]
        );
    }

    fn table(bytes: &[u8]) -> Value {
        Value::NewtypeStruct("Table", Box::new(Value::Bytes(bytes.to_vec())))
    }

    fn args(value: Value) -> Value {
        Value::Struct("args", vec![("self", value)])
    }

    #[test]
    fn calls_add_what_the_api_made_and_only_from_values_it_made() {
        let mut sealed = Sealed::new(["Table"]);
        // A carved call made its arguments and outputs through the API.
        sealed.add_call(true, &args(table(b"a")), &[Some(&table(b"b"))]);
        // A generated call on a forged table made nothing the API made ...
        sealed.add_call(false, &args(table(b"forged")), &[Some(&table(b"c"))]);
        // ... one on a made table did, as did one with no table at all.
        sealed.add_call(false, &args(table(b"b")), &[None, Some(&Value::Some(Box::new(table(b"d"))))]);
        sealed.add_call(false, &Value::Struct("args", vec![]), &[Some(&table(b"e"))]);
        let made: Vec<&Value> = sealed.made().collect();
        assert_eq!(made, [&table(b"a"), &table(b"b"), &table(b"d"), &table(b"e")]);
        assert!(sealed.admits(&args(Value::Seq(vec![table(b"a"), table(b"e")]))));
        assert!(!sealed.admits(&args(Value::Seq(vec![table(b"a"), table(b"c")]))));
        assert_eq!(sealed.held_in(&args(table(b"zz"))), BTreeSet::from(["Table"]));
    }

    #[test]
    fn redrawn_values_are_made_ones_and_the_same_for_the_same_draw() {
        let mut sealed = Sealed::new(["Table"]);
        for b in [b"a", b"b", b"c"] {
            sealed.add_made(&table(b));
        }
        let forged = args(Value::Seq(vec![table(b"x"), table(b"y"), Value::U64(3)]));
        let drawn = |draw| {
            let mut value = forged.clone();
            sealed.redraw(&mut value, draw);
            value
        };
        let mut seen = BTreeSet::new();
        for draw in 0..64 {
            let value = drawn(draw);
            assert!(sealed.admits(&value), "{value:?}");
            assert_eq!(value, drawn(draw));
            let Value::Struct(_, fields) = &value else { unreachable!() };
            seen.insert(fields[0].1.clone());
        }
        assert!(seen.len() > 3, "draws vary: {seen:?}");
        // Values of a struct nothing made stay as they are.
        let mut other = Sealed::new(["Table"]);
        let mut value = forged.clone();
        other.redraw(&mut value, 1);
        assert_eq!(value, forged);
        // At most MAX_MADE of one struct are kept.
        for n in 0..(MAX_MADE + 10) {
            other.add_made(&table(&n.to_le_bytes()));
        }
        assert_eq!(other.made_of("Table").count(), MAX_MADE);
    }

    #[test]
    fn sealed_positions_of_a_shape_hold_only_made_values() {
        let mut sealed = Sealed::new(["Table"]);
        sealed.add_made(&table(b"a"));
        let shape = Shape::of(&args(Value::Some(Box::new(table(b"forged")))));
        let restricted = sealed.restrict(shape);
        let Shape::Struct(_, fields) = &restricted else {
            panic!("{restricted:?}");
        };
        let Shape::Option { some: Some(inner), .. } = &fields[0].1 else {
            panic!("{restricted:?}");
        };
        assert_eq!(**inner, Shape::Mixed(vec![table(b"a")]));
        // Nothing made: the shape stays (what it makes is not run).
        let unmade = Sealed::new(["Other"]);
        let shape = Shape::of(&args(table(b"x")));
        assert_eq!(unmade.restrict(shape.clone()), shape);
    }
}
