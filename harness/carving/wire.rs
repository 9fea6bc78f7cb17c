//! A carve entry as it travels between carve's processes (a recording
//! child to its parent, a generation worker to its parent): its texts as
//! they will stand in the carve file, each a RON string whose escapes keep
//! the message on one line. The receiver parses only the outcome (to know
//! how the call ended), never a whole carve file, and writes the texts
//! into the file as they came: byte for byte what the sender rendered.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::carving::store::{Entry, Origin, StoredOutcome};

/// An [`Entry`] as it travels.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WireEntry {
    /// Where it came from.
    pub origin: Origin,
    /// The arguments' RON text, as the carve file holds it.
    pub args: String,
    /// The outcome's RON text.
    pub outcome: String,
    /// The after-state's RON text, if any.
    pub after: Option<String>,
}

impl From<&Entry> for WireEntry {
    fn from(entry: &Entry) -> Self {
        WireEntry {
            origin: entry.origin.clone(),
            args: entry.args.clone(),
            outcome: entry.outcome.text.clone(),
            after: entry.after.clone(),
        }
    }
}

impl WireEntry {
    /// The entry it carries; fails when its outcome is not one.
    pub fn into_entry(self) -> Result<Entry, String> {
        let outcome = StoredOutcome::parse(&self.outcome)
            .map_err(|e| format!("outcome {:?}: {e}", self.outcome))?;
        Ok(Entry {
            origin: self.origin,
            args: self.args,
            outcome,
            after: self.after,
            args_position: Default::default(),
            outcome_position: Default::default(),
        })
    }
}

/// `#[serde(with = "crate::carving::wire::entry")]` for an [`Entry`] field.
pub mod entry {
    use super::*;

    /// Writes `entry` as a [`WireEntry`].
    pub fn serialize<S: Serializer>(entry: &Entry, s: S) -> Result<S::Ok, S::Error> {
        WireEntry::from(entry).serialize(s)
    }

    /// Reads a [`WireEntry`]; an outcome that is not one is an error.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Entry, D::Error> {
        WireEntry::deserialize(d)?
            .into_entry()
            .map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::carving::store::CarveFile;

    /// What the receiver writes is what the sender rendered: multi-line
    /// texts, escapes and all, with no carve file rendered or parsed on
    /// the way.
    #[test]
    fn an_entry_arrives_byte_for_byte() {
        let outcome = StoredOutcome::parse("Panicked(\"boom\\nline two\")").unwrap();
        let sent = Entry::new(
            Origin::System("tests::a".into()),
            "(\n    s: \"tab\\there\",\n    c: '\\'',\n)",
            outcome,
            Some("(\n    v: [\n        1,\n    ],\n)"),
        );
        let text = ron::to_string(&WireEntry::from(&sent)).unwrap();
        assert!(!text.contains('\n'), "{text}");
        let got = ron::from_str::<WireEntry>(&text).unwrap().into_entry().unwrap();
        assert_eq!(got, sent);
        assert_eq!(CarveFile::render("a", &[got]), CarveFile::render("a", &[sent]));
    }

    #[test]
    fn an_outcome_that_is_not_one_is_an_error() {
        let wired = WireEntry {
            origin: Origin::System("t".into()),
            args: "()".into(),
            outcome: "Nope(1)".into(),
            after: None,
        };
        let error = wired.into_entry().unwrap_err();
        assert!(error.starts_with("outcome \"Nope(1)\": "), "{error}");
    }
}
