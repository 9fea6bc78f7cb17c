//! RON text as carve writes it, in carve files and snapshots alike.
//!
//! Pretty-printed with four-space indentation and struct names, so that a
//! carve file and a snapshot show a value the same way
//! (`Ok(Duration(secs: 1, nanos: 0))` in both). Two touches on top of ron's
//! output:
//! - a struct named [`UNNAMED`] (a call's arguments `(name: value, …)`)
//!   is written without its name;
//! - the `Debug` text of a return value that is not `Serialize`
//!   ([`Value::debug_text`]), and the texts of one carved by its `Display`
//!   ([`Value::display_text`]), are written as raw strings over several
//!   lines, so that a changed field shows as a one-line diff.
//!
//! ```
//! use carve::value::{text::to_ron, Value};
//!
//! let debug = Value::debug_text("Error {\n    at: 3,\n}".into());
//! assert_eq!(to_ron(&debug).unwrap(), "Debug(r#\"Error {\n    at: 3,\n}\"#)");
//! let shown = Value::display_text("no digit".into(), Some("E {\n    at: 3,\n}".into()));
//! assert_eq!(
//!     to_ron(&shown).unwrap(),
//!     "Display(\n    text: \"no digit\",\n    debug: r#\"E {\n    at: 3,\n}\"#,\n)"
//! );
//! let args = Value::Struct(carve::value::text::UNNAMED, vec![("s", Value::Str("a".into()))]);
//! assert_eq!(to_ron(&args).unwrap(), "(\n    s: \"a\",\n)");
//! ```

use serde::Serialize;

use crate::value::{depth, Value};

/// The name of structs written without one: a call's arguments, an
/// observation with the after-state of its `&mut` arguments.
pub const UNNAMED: &str = "__carve_unnamed";

/// The newtype name the `Debug` text of a return value is wrapped in.
pub const DEBUG: &str = "Debug";

/// The struct name the `Display` text of a return value (and its `Debug`
/// text) is wrapped in.
pub const DISPLAY: &str = "Display";

impl Value {
    /// The `Debug` text of a value that is not `Serialize`, as carve stores it.
    pub fn debug_text(text: String) -> Value {
        Value::NewtypeStruct(DEBUG, Box::new(Value::Str(text)))
    }

    /// The `Display` text of a value that is not `Serialize`, with its
    /// `{:#?}` text when it has one: `Display(text: "…", debug: "…")`.
    pub fn display_text(text: String, debug: Option<String>) -> Value {
        let mut fields = vec![("text", Value::Str(text))];
        fields.extend(debug.map(|d| ("debug", Value::Str(d))));
        Value::Struct(DISPLAY, fields)
    }
}

/// `text` cut to a length that fits a message (200 characters and `…`).
///
/// ```
/// # use carve::value::text::shorten;
/// assert_eq!(shorten("short"), "short");
/// assert_eq!(shorten(&"x".repeat(300)).chars().count(), 201);
/// ```
pub fn shorten(text: &str) -> String {
    const MAX: usize = 200;
    match text.char_indices().nth(MAX) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}

/// Reads `text` with `read` (a type's `Deserialize` on carve's RON
/// reader), as replay and the rebuild check read carved values, except
/// that a struct written under another name than its `Deserialize` asks
/// for is read as if written unnamed: a type may serialize as itself and
/// deserialize through a checked twin (bit-vec's `BitVec` through an
/// `UncheckedBitVec`, serde's `#[serde(try_from = "…")]`), which formats
/// without struct names never notice, where ron refuses `BitVec(…)` for
/// an `UncheckedBitVec`.
pub fn read_ron<T>(
    text: &str,
    read: impl Fn(&mut ron::Deserializer<'_>) -> Result<T, ron::Error>,
) -> Result<T, ron::error::SpannedError> {
    let mut text = std::borrow::Cow::Borrowed(text);
    loop {
        let mut de = ron::Deserializer::from_str_with_options(&text, &depth::options())?;
        let error = match read(&mut de).and_then(|value| de.end().map(|()| value)) {
            Ok(value) => return Ok(value),
            Err(e) => de.span_error(e),
        };
        // ron names the struct it found right after reading its name: that
        // name, the last one before the error's place, is dropped.
        let unnamed = match &error.code {
            ron::Error::ExpectedDifferentStructName { found, .. } => {
                without_name_before(&text, found, &error.span.end)
            }
            ron::Error::ExpectedUnit => unit_for_name_at(&text, &error.span.end),
            _ => None,
        };
        match unnamed {
            Some(unnamed) => text = std::borrow::Cow::Owned(unnamed),
            None => return Err(error),
        }
    }
}

/// The byte offset in `text` of ron's position `at` (lines and columns
/// counted from 1, columns in characters).
fn offset_of(text: &str, at: &ron::error::Position) -> usize {
    let line_start: usize = text
        .split_inclusive('\n')
        .take(at.line.saturating_sub(1))
        .map(str::len)
        .sum();
    let line = text[line_start..].split('\n').next().unwrap_or("");
    line_start
        + line
            .char_indices()
            .nth(at.col.saturating_sub(1))
            .map_or(line.len(), |(i, _)| i)
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// `text` with the unit struct's name at `at` (where ron expected a unit,
/// `()`) written as `()`: a type may serialize as a unit struct and
/// deserialize as a unit (ryu 1.0.23's `Buffer`, which holds no state,
/// written by hand as `serialize_unit_struct("Buffer")` and read as
/// `()`), which formats without struct names, where both are `()`, never
/// notice. `None` where no bare name stands there (a name followed by `(`
/// is a struct or a variant with contents, not a unit struct).
fn unit_for_name_at(text: &str, at: &ron::error::Position) -> Option<String> {
    let at = offset_of(text, at);
    let start = at + (text[at..].len() - text[at..].trim_start().len());
    let name_len: usize = text[start..]
        .chars()
        .take_while(|&c| is_ident(c))
        .map(char::len_utf8)
        .sum();
    let first = text[start..].chars().next()?;
    if name_len == 0 || first.is_numeric() || text[start + name_len..].trim_start().starts_with('(') {
        return None;
    }
    let name = &text[start..start + name_len];
    if matches!(name, "true" | "false" | "None" | "inf" | "NaN") {
        return None;
    }
    Some(format!("{}(){}", &text[..start], &text[start + name_len..]))
}

/// `text` without the last `name` that ends at or before `at`, when that
/// is an identifier of its own.
fn without_name_before(text: &str, name: &str, at: &ron::error::Position) -> Option<String> {
    let end = offset_of(text, at);
    let start = text[..end]
        .match_indices(name)
        .map(|(i, _)| i)
        .filter(|&i| {
            let before = text[..i].chars().next_back();
            let after = text[i + name.len()..].chars().next();
            !before.is_some_and(is_ident) && !after.is_some_and(is_ident)
        })
        .last()?;
    Some(format!("{}{}", &text[..start], &text[start + name.len()..]))
}

/// `value` as pretty RON, the way carve writes it.
pub fn to_ron<T: Serialize + ?Sized>(value: &T) -> Result<String, ron::Error> {
    let config = ron::ser::PrettyConfig::new()
        .indentor("    ")
        .new_line("\n")
        .struct_names(true);
    // With carve's limit, not ron's default of 128: what carve reads back
    // (`depth::options`), it must be able to write.
    let text = depth::options().to_string_pretty(value, config)?;
    if !text.contains(UNNAMED)
        && !text.contains(&format!("{DEBUG}(\""))
        && !text.contains(&format!("{DISPLAY}("))
    {
        return Ok(text);
    }
    Ok(touch_up(&text))
}

/// `value` as RON on one line, with struct names as carve writes it: the
/// form messages quote a value in, so that a message and the carve file
/// show the same text (without struct names, a unit struct `Buffer` read
/// as `()` showed as `()` beside ron's "Expected unit").
///
/// ```
/// use carve::value::{text::to_one_line_ron, Value};
///
/// let v = Value::Struct("Call", vec![("buf", Value::UnitStruct("Buffer")), ("f", Value::F64(1.5))]);
/// assert_eq!(to_one_line_ron(&v), "Call(buf: Buffer, f: 1.5)");
/// ```
pub fn to_one_line_ron<T: Serialize + ?Sized>(value: &T) -> String {
    let config = ron::ser::PrettyConfig::new()
        .struct_names(true)
        .compact_structs(true)
        .compact_arrays(true)
        .compact_maps(true);
    depth::options()
        .to_string_pretty(value, config)
        .unwrap_or_else(|e| format!("<unprintable: {e}>"))
}

/// Drops the [`UNNAMED`] names and rewrites each `Debug("…")` string, and
/// the strings inside a `Display(…)`, that span lines as raw strings.
fn touch_up(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    // Inside `Display(…)`: its fields are strings, so no other parenthesis
    // comes before its end.
    let mut in_display = false;
    while !rest.is_empty() {
        let Some((token, after)) = next_token(rest) else {
            out.push_str(rest);
            break;
        };
        rest = after;
        if in_display && token.starts_with('"') {
            out.push_str(&raw_if_multiline(token));
            continue;
        }
        if token != UNNAMED {
            out.push_str(token);
        }
        if token == ")" {
            in_display = false;
        }
        if token == DISPLAY && rest.starts_with('(') {
            in_display = true;
        }
        if token == DEBUG && rest.starts_with("(\"") {
            out.push('(');
            rest = &rest[1..];
            let Some((literal, after)) = next_token(rest) else {
                continue;
            };
            out.push_str(&raw_if_multiline(literal));
            rest = after;
        }
    }
    out
}

/// The next token of ron's output: a string or char literal, an identifier,
/// or one other character; with the text after it.
fn next_token(text: &str) -> Option<(&str, &str)> {
    let mut chars = text.char_indices();
    let (_, first) = chars.next()?;
    let end = match first {
        '"' => {
            let mut escaped = false;
            chars
                .find(|&(_, c)| {
                    let end = c == '"' && !escaped;
                    escaped = c == '\\' && !escaped;
                    end
                })
                .map_or(text.len(), |(i, c)| i + c.len_utf8())
        }
        '\'' => {
            // `'x'`, `'\''`, `'\\'`: ron writes nothing else.
            let (_, c) = chars.next()?;
            if c == '\\' {
                chars.next()?;
            }
            chars.next().map_or(text.len(), |(i, c)| i + c.len_utf8())
        }
        c if c.is_alphanumeric() || c == '_' => chars
            .find(|&(_, c)| !(c.is_alphanumeric() || c == '_'))
            .map_or(text.len(), |(i, _)| i),
        c => c.len_utf8(),
    };
    Some(text.split_at(end))
}

/// A string literal as a raw string when its text spans lines and has no
/// other control characters (which would be invisible in a raw string).
fn raw_if_multiline(literal: &str) -> String {
    let Ok(text) = ron::from_str::<String>(literal) else {
        return literal.to_owned();
    };
    let plain = text
        .chars()
        .all(|c| !c.is_control() || c == '\n' || c == '\t');
    if !text.contains('\n') || !plain {
        return literal.to_owned();
    }
    let hashes = "#".repeat(longest_hash_run_after_quote(&text) + 1);
    format!("r{hashes}\"{text}\"{hashes}")
}

/// The most `#` that follow a `"` in `text`: a raw string needs one more.
fn longest_hash_run_after_quote(text: &str) -> usize {
    text.split('"')
        .skip(1)
        .map(|part| part.chars().take_while(|&c| c == '#').count())
        .max()
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A type read through a checked twin of another name, as bit-vec
    /// 0.10.2's `BitVec` is read through its `UncheckedBitVec`.
    #[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
    #[serde(rename = "UncheckedBits")]
    struct Unchecked {
        len: u8,
    }

    #[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
    #[serde(try_from = "Unchecked")]
    struct Bits {
        len: u8,
    }

    impl TryFrom<Unchecked> for Bits {
        type Error = String;
        fn try_from(u: Unchecked) -> Result<Bits, String> {
            match u.len < 8 {
                true => Ok(Bits { len: u.len }),
                false => Err(format!("{} bits do not fit", u.len)),
            }
        }
    }

    #[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
    enum Holder {
        Bits(Bits),
        Pair(Option<Bits>, Bits),
    }

    /// A stateless scratch buffer written as a unit struct and read as a
    /// unit, as ryu 1.0.23's `Buffer` is by hand.
    #[derive(Debug, PartialEq)]
    struct Scratch;

    impl serde::Serialize for Scratch {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            s.serialize_unit_struct("Scratch")
        }
    }

    impl<'de> serde::Deserialize<'de> for Scratch {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            <()>::deserialize(d).map(|()| Scratch)
        }
    }

    #[test]
    fn a_unit_struct_read_as_a_unit_is_read_as_written() {
        #[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
        struct Call {
            buf: Scratch,
            f: f64,
            tail: Option<Scratch>,
        }
        let read = |text: &str| read_ron(text, |de| <Call as serde::Deserialize>::deserialize(de));
        let call = Call { buf: Scratch, f: 1.5, tail: Some(Scratch) };
        let written = to_ron(&call).unwrap();
        assert_eq!(written, "Call(\n    buf: Scratch,\n    f: 1.5,\n    tail: Some(Scratch),\n)");
        assert_eq!(read(&written).unwrap(), call);
        let alone = read_ron("Scratch", |de| <Scratch as serde::Deserialize>::deserialize(de));
        assert_eq!(alone.unwrap(), Scratch);
        // Only a bare name becomes `()`: one with contents, a number or a
        // keyword is still refused.
        for refused in ["Scratch(1)", "Scratch(x: 1)", "1", "true", "None"] {
            let read = read_ron(refused, |de| <Scratch as serde::Deserialize>::deserialize(de));
            assert!(read.is_err(), "{refused} was read");
        }
    }

    #[test]
    fn a_struct_read_through_a_twin_of_another_name_is_read_as_written() {
        let read = |text: &str| read_ron(text, |de| <Holder as serde::Deserialize>::deserialize(de));
        let one = Holder::Bits(Bits { len: 3 });
        let written = to_ron(&one).unwrap();
        assert_eq!(written, "Bits(Bits(\n    len: 3,\n))");
        assert_eq!(read(&written).unwrap(), one);
        let two = Holder::Pair(Some(Bits { len: 1 }), Bits { len: 2 });
        assert_eq!(read(&to_ron(&two).unwrap()).unwrap(), two);
        // Its own checks still apply, and a name ron has no quarrel with
        // is kept: an unknown variant is still an error.
        let refused = read("Bits(Bits(len: 9))").unwrap_err();
        assert!(refused.to_string().contains("9 bits do not fit"), "{refused}");
        assert!(read("Bytes(Bits(len: 1))").is_err());
        assert_eq!(read("Bits(UncheckedBits(len: 1))").unwrap(), Holder::Bits(Bits { len: 1 }));
    }

    #[test]
    fn struct_names_are_written() {
        #[derive(Serialize)]
        struct Duration {
            secs: u64,
        }
        let ok: Result<Duration, ()> = Ok(Duration { secs: 1 });
        assert_eq!(to_ron(&ok).unwrap(), "Ok(Duration(\n    secs: 1,\n))");
    }

    #[test]
    fn debug_texts_become_raw_strings_that_parse_back() {
        let text = "E {\n    msg: \"a\\\"#b\",\n    c: '\"',\n}".to_owned();
        let value = Value::Tuple(vec![
            Value::Str("Debug(\"x\ny\")".into()),
            Value::Char('"'),
            Value::debug_text(text.clone()),
        ]);
        let written = to_ron(&value).unwrap();
        assert!(written.contains("Debug(r##\"E {\n"), "{written}");
        // The user's string that looks like a Debug text stays escaped.
        assert!(written.contains(r#""Debug(\"x\ny\")""#), "{written}");
        #[derive(serde::Deserialize, PartialEq, Debug)]
        struct Debug(String);
        let back: (String, char, Debug) = ron::from_str(&written).unwrap();
        assert_eq!(back.2, Debug(text));
    }

    #[test]
    fn display_texts_become_raw_strings_that_parse_back() {
        let debug = "E {\n    msg: \"a\",\n}".to_owned();
        let value = Value::Tuple(vec![
            Value::display_text("two\nlines".into(), Some(debug.clone())),
            Value::Str("after\nit".into()),
            Value::display_text("one line".into(), None),
        ]);
        let written = to_ron(&value).unwrap();
        assert_eq!(
            written,
            "(Display(\n    text: r#\"two\nlines\"#,\n    debug: r#\"E {\n    msg: \"a\",\n}\"#,\n), \"after\\nit\", Display(\n    text: \"one line\",\n))"
        );
        #[derive(serde::Deserialize, PartialEq, Debug)]
        struct Display {
            text: String,
            #[serde(default)]
            debug: String,
        }
        let back: (Display, String, Display) = ron::from_str(&written).unwrap();
        assert_eq!(back.0.debug, debug);
        assert_eq!(back.0.text, "two\nlines");
        assert_eq!(back.1, "after\nit", "a string after it stays escaped");
    }

    #[test]
    fn one_line_and_odd_debug_texts_stay_escaped() {
        let one_line = Value::debug_text("E".into());
        assert_eq!(to_ron(&one_line).unwrap(), "Debug(\"E\")");
        let with_nul = Value::debug_text("a\n\u{0}".into());
        assert_eq!(to_ron(&with_nul).unwrap(), "Debug(\"a\\n\\0\")");
    }
}
