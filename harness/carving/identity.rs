//! What makes two calls the same call, next to the carve format that writes
//! them: their arguments' RON text in canonical form, whatever its
//! whitespace, comments and trailing commas ([`canonical_text`]).
//!
//! One identity serves every place that tells calls apart: a call's snapshot
//! is named after it ([`CallId::snapshot_id`]), recording merges entries by
//! it and its outcome ([`CallKey`]), replay finds entries repeated by hand
//! with the same key, and generation knows the calls that crashed a worker
//! by it ([`CallId::of_value`] for a call it makes, [`CallId::hash`] where a
//! number is kept).
//!
//! ```
//! use carve::carving::identity::CallId;
//! use carve::value::Value;
//!
//! let laid_out = CallId::of_args("(\n    s: \"a b\", \n) // a comment");
//! assert_eq!(laid_out, CallId::of_args("(s:\"a b\")"));
//! assert_eq!(laid_out.snapshot_id(), "c362ffa851fa");
//! let made = Value::Struct(carve::value::text::UNNAMED, vec![("s", Value::Str("a b".into()))]);
//! assert_eq!(CallId::of_value(&made), laid_out);
//! ```

use crate::carving::fragment::{quoted_end, raw_string_end, whitespace_end};
use crate::carving::layout;
use crate::carving::store::Entry;
use crate::value::text::{shorten, to_ron};
use crate::value::Value;

/// A call's identity: the canonical text of its arguments.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CallId(String);

impl CallId {
    /// The identity of the call whose arguments are this RON text, laid
    /// out in any way.
    pub fn of_args(args: &str) -> CallId {
        CallId(canonical_text(args))
    }

    /// The identity of a call with these arguments: the same as that of the
    /// entry carve writes for it.
    pub fn of_value(args: &Value) -> CallId {
        // As the entry is written: `to_compact_ron` leaves struct names out
        // (`(v:(x:1))` for `(v:P(x:1))`). A value that cannot be written has
        // no entry to be the same as.
        match to_ron(args) {
            Ok(text) => CallId::of_args(&text),
            Err(_) => CallId(args.to_compact_ron()),
        }
    }

    /// The canonical text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The part of a snapshot's name that identifies its call: 12 hex
    /// digits of a hash of the canonical text. Stored in users' snapshot
    /// file names: it must never change.
    pub fn snapshot_id(&self) -> String {
        format!("{:012x}", self.hash() >> 16)
    }

    /// A 64-bit hash of the identity (FNV-1a of the canonical text), the
    /// same in every process and on every platform.
    pub fn hash(&self) -> u64 {
        layout::fnv1a(self.0.as_bytes())
    }
}

/// The part of a snapshot name that identifies a call with arguments
/// `args` (RON text): see [`CallId::snapshot_id`].
pub fn snapshot_id(args: &str) -> String {
    CallId::of_args(args).snapshot_id()
}

/// What makes two entries the same call with the same outcome, whatever
/// their origins and whitespace: recording keeps one entry per key, and replay
/// tells an entry repeated by hand by it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CallKey {
    /// The call.
    pub call: CallId,
    /// Its outcome, with the state after the call where there is one, in
    /// canonical text: `Returned(1)`, `(outcome:Returned(1),after:(…))`.
    pub observation: String,
}

impl Entry {
    /// The identity of the entry's call.
    pub fn call_id(&self) -> CallId {
        CallId::of_args(&self.args)
    }

    /// The call of `target` with the entry's arguments, for a message about a
    /// found failure: as carve reads the arguments (struct names kept), cut
    /// where a long argument would fill the line (the carve file has it whole).
    pub fn shown_call(&self, target: &str) -> String {
        format!("{target}{}", shorten(&canonical_text(&self.args)))
    }

    /// The key of the entry's call and outcome ([`CallKey`]).
    pub fn call_key(&self) -> CallKey {
        CallKey {
            call: self.call_id(),
            observation: stored_observation(self),
        }
    }
}

/// The observation `entry` stores, in canonical text: its outcome, or
/// `(outcome:…,after:…)` with the state after the call (as
/// [`Observation`](crate::outcome::Observation) is written).
pub fn stored_observation(entry: &Entry) -> String {
    let outcome = canonical_text(&entry.outcome.text);
    match &entry.after {
        None => outcome,
        Some(after) => format!("(outcome:{outcome},after:{})", canonical_text(after)),
    }
}

/// RON text in canonical form: whitespace, comments (`//` and `/* */`) and
/// trailing commas outside literals removed; strings, raw strings
/// (`r#"…"#`), byte strings and chars kept as written. Scans RON's tokens
/// as [`fragment`](super::fragment) does.
pub fn canonical_text(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < bytes.len() {
        if let Some(next) = whitespace_end(text, i) {
            i = next;
            continue;
        }
        let end = match bytes[i] {
            quote @ (b'"' | b'\'') => quoted_end(bytes, i + 1, quote),
            // A trailing comma is whitespace too: `(a: 1,)` is `(a: 1)`. A
            // comma before a comment is kept, as it always was (snapshot
            // ids of entries edited so must not change).
            b',' if matches!(
                bytes[i + 1..].iter().find(|b| !b.is_ascii_whitespace()),
                Some(b')' | b']' | b'}')
            ) =>
            {
                i += 1;
                continue;
            }
            _ => raw_string_end(text, i)
                .unwrap_or_else(|| i + text[i..].chars().next().map_or(1, char::len_utf8)),
        };
        out.push_str(&text[i..end]);
        i = end;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::text::UNNAMED;

    #[test]
    fn whitespace_comments_and_trailing_commas_are_ignored_but_literals_are_not() {
        assert_eq!(
            canonical_text("( s : \"a , b\" , c: 'x', )"),
            "(s:\"a , b\",c:'x')"
        );
        assert_eq!(
            canonical_text("(s: \"a\\\" b\") // note\n"),
            "(s:\"a\\\" b\")"
        );
        assert_ne!(CallId::of_args("(s: \"a b\")"), CallId::of_args("(s: \"ab\")"));
        // A comma before a comment is kept, as it always was: snapshot ids
        // of entries edited so must not change.
        assert_eq!(canonical_text("(a: 1, // one\n)"), "(a:1,)");
    }

    #[test]
    fn raw_strings_are_kept_as_written() {
        // Inside a raw string `"` does not end it and `\` escapes nothing:
        // the spaces after them are the value's.
        assert_eq!(canonical_text("(s: r#\"a \" b\"#)"), "(s:r#\"a \" b\"#)");
        assert_ne!(CallId::of_args("(s: r#\"a \" b\"#)"), CallId::of_args("(s: r#\"a \"b\"#)"));
        assert_eq!(canonical_text("(s: r\"a\\ b\" , t: 1)"), "(s:r\"a\\ b\",t:1)");
        assert_eq!(canonical_text("(s: br##\"x \"# y\"## )"), "(s:br##\"x \"# y\"##)");
        // A raw identifier and an `r` ending a word are not raw strings.
        assert_eq!(canonical_text("(r#type: 1, attr: \"a b\")"), "(r#type:1,attr:\"a b\")");
    }

    #[test]
    fn block_comments_are_ignored_like_line_comments() {
        assert_eq!(canonical_text("(a: /* one /* nested */ */ 1)"), "(a:1)");
        assert_eq!(CallId::of_args("(a: 1 /* the answer */)"), CallId::of_args("(a: 1)"));
        assert_eq!(canonical_text("(s: \"/* kept */\")"), "(s:\"/* kept */\")");
    }

    /// Snapshot ids are file names in users' repositories: these are the
    /// names of snapshots under `carved/` (and of earlier releases).
    #[test]
    fn snapshot_ids_never_change() {
        let pinned = [
            ("(\n    query: \"q=carving+unit%21\",\n)", "111e9eb2e4cf"),
            ("(query: \"a=1&b=%41\")", "921a26b514e4"),
            (
                "(\n    self: Account(\n        owner: \"ada\",\n        balance: 100,\n    ),\n    amount: 30,\n)",
                "bd0326a70547",
            ),
            ("(self: Account(owner: \"ada\", balance: 70), amount: 500)", "e2825e113ce5"),
            ("( s : \"a , b\" , c: 'x', ) // note", "cb13ef4bb0fd"),
        ];
        for (args, id) in pinned {
            assert_eq!(snapshot_id(args), id, "{args}");
        }
    }

    #[test]
    fn a_made_call_has_the_identity_of_the_entry_written_for_it() {
        let values = [
            Value::Struct(
                UNNAMED,
                vec![
                    ("s", Value::Str("a, b ) // not a comment\n".into())),
                    ("c", Value::Char(' ')),
                    ("f", Value::F64(1.5)),
                    ("v", Value::Seq(vec![Value::I64(-1), Value::None])),
                ],
            ),
            Value::Struct(UNNAMED, vec![("v", Value::Struct("P", vec![("x", Value::U64(1))]))]),
        ];
        for value in values {
            let written = to_ron(&value).unwrap();
            assert_eq!(CallId::of_value(&value), CallId::of_args(&written), "{written}");
        }
    }

    #[test]
    fn entries_laid_out_apart_are_the_same_call() {
        use crate::carving::store::{Origin, StoredOutcome};
        let entry = |args: &str, outcome: &str, after: Option<&str>| {
            let outcome = StoredOutcome::parse(outcome).unwrap();
            Entry::new(Origin::System("t".into()), args, outcome, after)
        };
        let written = entry("(\n    a: 1,\n)", "Returned(\n    [1],\n)", Some("(v: 2)"));
        let by_hand = entry("(a:1)", "Returned([1,])", Some("( v : 2 )"));
        assert_eq!(written.call_key(), by_hand.call_key());
        assert_eq!(
            written.call_key().observation,
            "(outcome:Returned([1]),after:(v:2))"
        );
        assert_ne!(written.call_key(), entry("(a:1)", "Returned([2])", Some("(v:2)")).call_key());
    }
}
