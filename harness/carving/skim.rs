//! A first look at a carve file, for `--list`: its target and the origin of
//! each entry, found by scanning RON's tokens without parsing any value.
//!
//! Naming every test is all `--list` needs, and nextest lists every test
//! binary before it runs one. Parsing with ron reads a few MB/s in the
//! debug builds `cargo test` makes, seconds for 100,000 entries; this scan
//! is one pass over the bytes. It understands only what carve writes (and
//! what a person may edit into it: comments, whitespace, literals of any kind);
//! anything else gives `None`, and the file is then parsed in full, so a
//! file that does not parse is listed as the one failing test it will be.
//!
//! ```
//! use carve::carving::skim::skim;
//!
//! let file = r#"(
//!     target: "cgi::cgi_decode",
//!     calls: [
//!         (origin: System("decodes"), args: (s: "a)"), outcome: Returned(Ok("a)"))),
//!         (origin: Generated(seed: 1), args: (s: "// ("), outcome: Returned(Ok("//"))),
//!     ],
//! )"#;
//! let skimmed = skim(file).unwrap();
//! assert_eq!(skimmed.target, "cgi::cgi_decode");
//! assert_eq!(skimmed.carved, [true, false]);
//! assert!(skim("(target: \"x\", calls: [(args: ())])").is_none(), "no origin");
//! ```

use crate::carving::fragment::{whitespace_end, quoted_end, raw_string_end, without_bom};

/// What [`skim`] finds in a carve file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skimmed {
    /// The `target` field.
    pub target: String,
    /// Per entry, in order: whether a system test carved it (`System`).
    pub carved: Vec<bool>,
}

/// The target and entry origins of the carve file `text`, or `None` where
/// the file is not laid out as carve writes it (then parse it in full).
pub fn skim(text: &str) -> Option<Skimmed> {
    let text = without_bom(text);
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut i = 0;
    // The field at depth 1 whose value is being read, and, inside an entry
    // (depth 3), the last identifier seen and whether `:` followed it.
    let mut field: Option<&str> = None;
    let mut target = None;
    let mut carved = Vec::new();
    let mut origin_seen = true;
    let mut last_ident: Option<&str> = None;
    let mut after_colon = false;
    while i < bytes.len() {
        let start = i;
        if let Some(next) = whitespace_end(text, i) {
            i = next;
            continue;
        }
        match bytes[i] {
            b'(' | b'[' | b'{' => {
                depth += 1;
                if depth == 3 && field == Some("calls") {
                    if !origin_seen {
                        return None;
                    }
                    origin_seen = false;
                    carved.push(false);
                }
                i += 1;
            }
            b')' | b']' | b'}' => {
                depth = depth.checked_sub(1)?;
                i += 1;
            }
            b'"' | b'\'' => {
                i = quoted_end(bytes, i + 1, bytes[i]);
                if depth == 1 && field == Some("target") && bytes[start] == b'"' {
                    let literal = &text[start + 1..i.saturating_sub(1)];
                    // Escapes are left to the full parse.
                    if literal.contains('\\') || target.is_some() {
                        return None;
                    }
                    target = Some(literal.to_owned());
                }
            }
            b'r' | b'b' if raw_string_end(text, i).is_some() => {
                i = raw_string_end(text, i)?;
                if depth == 1 && field == Some("target") {
                    return None;
                }
            }
            b if b.is_ascii_alphabetic() || b == b'_' => {
                while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                    i += 1;
                }
                let ident = &text[start..i];
                if depth == 1 {
                    field = Some(ident);
                } else if depth == 3 && field == Some("calls") {
                    if after_colon && last_ident == Some("origin") {
                        origin_seen = true;
                        *carved.last_mut()? = match ident {
                            "System" => true,
                            "Generated" | "Found" => false,
                            _ => return None,
                        };
                    }
                    last_ident = Some(ident);
                }
                after_colon = false;
                continue;
            }
            b':' => {
                after_colon = depth == 3;
                i += 1;
                continue;
            }
            _ => i += 1,
        }
        after_colon = false;
    }
    (depth == 0 && origin_seen).then_some(())?;
    Some(Skimmed {
        target: target?,
        carved,
    })
}

#[cfg(test)]
mod tests {
    use std::fs;
    use std::path::Path;

    use super::*;
    use crate::carving::store::{CarveFile, Entry, Origin, StoredOutcome};
    use crate::outcome::Outcome;
    use crate::value::Value;

    /// What a full parse finds: the target and, per entry, whether a system
    /// test carved it.
    fn parsed(dir: &Path, path: &Path, text: &str) -> Skimmed {
        let file = CarveFile::parse(dir, path, text).unwrap();
        Skimmed {
            target: file.target,
            carved: file.entries.iter().map(|e| e.origin.system_test().is_some()).collect(),
        }
    }

    #[test]
    fn files_carve_writes_skim_as_they_parse() {
        let dir = Path::new("carved");
        let path = CarveFile::path_for(dir, "m::f");
        let tricky = ["\"origin: System(\\\")\"", "'('", "r#\"]\"#", "b\"(\"", "\"/* //\""];
        let entries: Vec<Entry> = tricky
            .iter()
            .enumerate()
            .map(|(i, arg)| {
                let origin = match i % 3 {
                    0 => Origin::System(format!("t{i}")),
                    1 => Origin::Generated { seed: 1, added: vec!["f:1 true".into()] },
                    _ => Origin::Found { seed: 2, at: "src/lib.rs:1:1".into(), expected: false },
                };
                let outcome = StoredOutcome::of(&Outcome::Returned(Value::Str(arg.to_string()))).unwrap();
                Entry::new(origin, &format!("(x: {arg}, y: [((a: 1))])"), outcome, Some("(x: \")\")"))
            })
            .collect();
        let text = CarveFile::render("m::f", &entries);
        assert_eq!(skim(&text), Some(parsed(dir, &path, &text)));
    }

    #[test]
    fn every_committed_carve_file_skims_as_it_parses() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("carved");
        let paths = CarveFile::list(&dir).unwrap();
        assert!(!paths.is_empty());
        for path in paths {
            let text = fs::read_to_string(&path).unwrap();
            assert_eq!(skim(&text), Some(parsed(&dir, &path, &text)), "{}", path.display());
        }
    }

    #[test]
    fn what_carve_writes_is_skimmed_as_ron_reads_it() {
        let file = "// a comment: calls: [(origin: System(\"no\"))]\n(\n    target: \"a::b\",\n    \
                    calls: [\n        (\n            origin: Found(seed: 1, at: \"x:1:1\"),\n            \
                    args: (s: r#\"origin: System(\")\"#, c: '(', v: [(a: 1)]),\n            \
                    outcome: Panicked(\"]\"), /* origin: System */\n        ),\n        \
                    (origin: /* c */ System(\"t\"), args: (), outcome: Returned(())),\n    ],\n)\n";
        assert_eq!(
            skim(file),
            Some(Skimmed {
                target: "a::b".into(),
                carved: vec![false, true]
            })
        );
    }

    #[test]
    fn a_byte_order_mark_is_skipped() {
        let dir = Path::new("carved");
        let path = CarveFile::path_for(dir, "m::f");
        let outcome = StoredOutcome::of(&Outcome::Returned(Value::I64(1))).unwrap();
        let entry = Entry::new(Origin::System("t".into()), "(x: 1)", outcome, None);
        let text = format!("\u{feff}{}", CarveFile::render("m::f", &[entry]));
        assert_eq!(skim(&text), Some(parsed(dir, &path, &text)));
    }

    #[test]
    fn anything_unusual_is_left_to_the_full_parse() {
        for file in [
            "(target: \"a\", calls: [(args: ())])",
            "(target: \"a\", calls: [(origin: Other, args: ())])",
            "(target: \"a\\u{3a}\", calls: [])",
            "(target: \"a\", calls: [(origin: System(\"t\")]",
            "(calls: [])",
            ")(",
        ] {
            assert_eq!(skim(file), None, "{file}");
        }
        assert_eq!(skim("(target: \"a\", calls: [])").map(|s| s.carved), Some(vec![]));
    }
}
