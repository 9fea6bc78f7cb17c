//! A RON value's text, borrowed from the carve file it was read from.
//!
//! This is what [`ron::value::RawValue`] does, less one limit: `RawValue`
//! checks the text it is handed by parsing it again with ron's default
//! options, whose recursion limit (128) a deep carved value exceeds, and
//! it does so even when the file is read with a raised limit. [`Fragment`]
//! asks ron's deserializer for the same borrowed text (through the token
//! `RawValue` uses, so the value is checked once, with the limit of the
//! reader at hand) and keeps it as it is.
//!
//! ```
//! use carve::carving::fragment::Fragment;
//!
//! let (a, b): (Fragment, Fragment) = ron::from_str("(/* x */ Some([1]) // y\n, 2)").unwrap();
//! assert_eq!(a.text(), "Some([1])");
//! assert_eq!(a.source(), "/* x */ Some([1]) // y");
//! assert_eq!(b.text(), "2");
//! ```

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, Visitor};

use crate::value::RAW_VALUE_TOKEN;

/// The source text of one RON value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fragment<'a> {
    /// With the comments around it (as `RawValue::get_ron` keeps them).
    source: &'a str,
}

impl<'a> Fragment<'a> {
    /// The value's text, without the whitespace and comments around it: a
    /// slice of the text it was read from.
    pub fn text(self) -> &'a str {
        trim(self.source)
    }

    /// The value's text with the comments around it, as written.
    pub fn source(self) -> &'a str {
        self.source.trim()
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Fragment<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Borrowed;

        impl<'de> Visitor<'de> for Borrowed {
            type Value = Fragment<'de>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a RON value")
            }

            fn visit_borrowed_str<E: de::Error>(self, text: &'de str) -> Result<Self::Value, E> {
                Ok(Fragment { source: text })
            }
        }

        deserializer.deserialize_newtype_struct(RAW_VALUE_TOKEN, Borrowed)
    }
}

/// `text` (one RON value, with whitespace and comments around it) without
/// what is around the value. Scans RON's tokens, so that `//` in a string is
/// not taken for a comment.
fn trim(text: &str) -> &str {
    let bytes = text.as_bytes();
    let mut start = None;
    let mut end = 0;
    let mut i = 0;
    while i < bytes.len() {
        let token_start = i;
        if let Some(next) = whitespace_end(text, i) {
            i = next;
            continue;
        }
        match bytes[i] {
            b'"' => i = quoted_end(bytes, i + 1, b'"'),
            b'\'' => i = quoted_end(bytes, i + 1, b'\''),
            _ => i = raw_string_end(text, i).unwrap_or(i + 1),
        }
        start.get_or_insert(token_start);
        end = i;
    }
    &text[start.unwrap_or(0)..end.max(start.unwrap_or(0))]
}

/// `text` without the UTF-8 byte order mark some editors put first: ron
/// rejects it, and no editor shows it, so positions count from after it.
pub(crate) fn without_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

/// Just past the whitespace or comment at `i`, if there is one there.
pub(crate) fn whitespace_end(text: &str, i: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    match (bytes[i], bytes.get(i + 1)) {
        (b, _) if b.is_ascii_whitespace() => Some(i + 1),
        (b'/', Some(b'/')) => Some(text[i..].find('\n').map_or(bytes.len(), |n| i + n + 1)),
        (b'/', Some(b'*')) => Some(block_comment_end(bytes, i)),
        _ => None,
    }
}

/// Just past the raw string (`r#"…"#`, `br"…"`) at `i`, if one starts there.
pub(crate) fn raw_string_end(text: &str, i: usize) -> Option<usize> {
    let (open, hashes) = raw_string_hashes(text.as_bytes(), i)?;
    let close = format!("\"{}", "#".repeat(hashes));
    Some(
        text[open..]
            .find(&close)
            .map_or(text.len(), |n| open + n + close.len()),
    )
}

/// Just past the closing `quote` of a literal whose text starts at `i`.
pub(crate) fn quoted_end(bytes: &[u8], mut i: usize, quote: u8) -> usize {
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b if b == quote => return i + 1,
            _ => i += 1,
        }
    }
    bytes.len()
}

/// For a raw string `r#"…"#` or `br#"…"#` at `i`: just past its opening
/// quote, and its number of `#`.
fn raw_string_hashes(bytes: &[u8], i: usize) -> Option<(usize, usize)> {
    let mut j = i + usize::from(bytes[i] == b'b');
    if bytes.get(j) != Some(&b'r') || (i > 0 && is_ident(bytes[i - 1])) {
        return None;
    }
    j += 1;
    let hashes = bytes[j..].iter().take_while(|&&b| b == b'#').count();
    (bytes.get(j + hashes) == Some(&b'"')).then_some((j + hashes + 1, hashes))
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Just past the end of the (possibly nested) block comment at `i`.
fn block_comment_end(bytes: &[u8], mut i: usize) -> usize {
    let mut open = 0usize;
    while i + 1 < bytes.len() {
        match (bytes[i], bytes[i + 1]) {
            (b'/', b'*') => {
                open += 1;
                i += 2;
            }
            (b'*', b'/') => {
                open -= 1;
                i += 2;
                if open == 0 {
                    return i;
                }
            }
            _ => i += 1,
        }
    }
    bytes.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_around_a_value_are_trimmed_but_not_inside_literals() {
        assert_eq!(trim("  // a\n (s: \"// no\") // b\n"), "(s: \"// no\")");
        assert_eq!(trim("/* a /* b */ */ 'x' /* c */"), "'x'");
        assert_eq!(trim("r##\"a \"# // b\"## // c"), "r##\"a \"# // b\"##");
        assert_eq!(trim("b\"//\" "), "b\"//\"");
        assert_eq!(trim("br#\"x\"# "), "br#\"x\"#");
        assert_eq!(trim("Some(bar) // r\"x"), "Some(bar)");
        assert_eq!(trim("'\\'' // c"), "'\\''");
    }

    /// The token is private to ron: this asks ron's own `RawValue` which
    /// name it deserializes through, so a ron that renames it fails here
    /// first, by name.
    #[test]
    fn the_token_is_the_one_rons_raw_value_uses() {
        use serde::de::value::Error;

        struct Spy(Option<&'static str>);

        impl<'de> Deserializer<'de> for &mut Spy {
            type Error = Error;

            fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Error> {
                Err(de::Error::custom("not a newtype"))
            }

            fn deserialize_newtype_struct<V: Visitor<'de>>(
                self,
                name: &'static str,
                visitor: V,
            ) -> Result<V::Value, Error> {
                self.0 = Some(name);
                visitor.visit_borrowed_str("1")
            }

            serde::forward_to_deserialize_any! {
                bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
                bytes byte_buf option unit unit_struct seq tuple tuple_struct map struct
                enum identifier ignored_any
            }
        }

        let mut spy = Spy(None);
        let raw = <&ron::value::RawValue>::deserialize(&mut spy).unwrap();
        assert_eq!(raw.get_ron(), "1");
        assert_eq!(spy.0, Some(RAW_VALUE_TOKEN));
    }

    #[test]
    fn deep_values_are_borrowed_past_rons_default_limit() {
        let deep = format!("{}1{}", "[".repeat(200), "]".repeat(200));
        let text = format!("(a: {deep}, b: 2)");
        #[derive(serde::Deserialize)]
        struct Two<'a> {
            #[serde(borrow)]
            a: Fragment<'a>,
            #[serde(borrow)]
            b: Fragment<'a>,
        }
        assert!(ron::from_str::<Two<'_>>(&text).is_err(), "ron's default limit");
        let two: Two<'_> = ron::Options::default()
            .with_recursion_limit(1000)
            .from_str(&text)
            .unwrap();
        assert_eq!((two.a.text(), two.b.text()), (deep.as_str(), "2"));
    }
}
