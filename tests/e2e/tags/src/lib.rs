//! A language tag (BCP 47, simplified), carved as its text: a language,
//! then subtags told apart by their length. A one-letter singleton other
//! than `x` opens an extension; `x` opens a private-use section.

use std::fmt;
use std::str::FromStr;

/// A parsed tag: its text, and where its sections are.
#[derive(Debug, Clone, PartialEq)]
pub struct Tag {
    text: String,
    extension: Option<String>,
    private_use: Option<String>,
}

#[cfg_attr(feature = "carve", carve::target)]
impl Tag {
    /// The extension (`a-bbb` of `en-a-bbb`), if any.
    pub fn extension(&self) -> Option<&str> {
        match &self.extension {
            Some(extension) => Some(extension),
            None => None,
        }
    }

    /// The private-use section (`priv` of `en-x-priv`), if any.
    pub fn private_use(&self) -> Option<&str> {
        match &self.private_use {
            Some(private_use) => Some(private_use),
            None => None,
        }
    }

    /// Whether it is a language range: no extension, no private use.
    pub fn is_range(&self) -> bool {
        self.extension.is_none() && self.private_use.is_none()
    }
}

impl fmt::Display for Tag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl FromStr for Tag {
    type Err = String;
    fn from_str(text: &str) -> Result<Tag, String> {
        parse(text)
    }
}

/// Where the parser is in a tag.
#[derive(PartialEq)]
enum State {
    Language,
    Extension { empty: bool },
    PrivateUse { empty: bool },
}

#[cfg_attr(feature = "carve", carve::instrument)]
fn parse(text: &str) -> Result<Tag, String> {
    let mut subtags = text.split('-');
    let language = subtags.next().unwrap_or_default();
    if language.len() < 2 || language.len() > 3 || !language.bytes().all(|b| b.is_ascii_alphabetic()) {
        return Err(format!("not a language: {language:?}"));
    }
    let mut tag = Tag { text: text.to_owned(), extension: None, private_use: None };
    let mut state = State::Language;
    for subtag in subtags {
        if subtag.is_empty() || subtag.len() > 8 || !subtag.bytes().all(|b| b.is_ascii_alphanumeric()) {
            return Err(format!("not a subtag: {subtag:?}"));
        }
        let section = match state {
            State::PrivateUse { .. } => &mut tag.private_use,
            _ if subtag == "x" => {
                if state == (State::Extension { empty: true }) {
                    return Err("an empty extension".into());
                }
                state = State::PrivateUse { empty: true };
                continue;
            }
            _ if subtag.len() == 1 => {
                if state == (State::Extension { empty: true }) {
                    return Err("an empty extension".into());
                }
                state = State::Extension { empty: true };
                &mut tag.extension
            }
            State::Extension { .. } => &mut tag.extension,
            State::Language => continue,
        };
        match section {
            Some(section) => {
                section.push('-');
                section.push_str(subtag);
            }
            None => *section = Some(subtag.to_owned()),
        }
        state = match state {
            State::PrivateUse { .. } => State::PrivateUse { empty: false },
            State::Extension { .. } if subtag.len() > 1 => State::Extension { empty: false },
            other => other,
        };
    }
    if matches!(state, State::Extension { empty: true } | State::PrivateUse { empty: true }) {
        return Err("an empty section at the end".into());
    }
    Ok(tag)
}
