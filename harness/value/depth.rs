//! How deeply a value carve stores may nest, and the RON reader every carve
//! read goes through.
//!
//! RON's reader refuses values nested past its recursion limit (128 by
//! default): left at the default, a carved tree some 60 levels deep was
//! written and then could not be read back. Every read carve does therefore
//! goes through [`options`], whose limit is raised to fit [`MAX_DEPTH`], and
//! a value nested deeper than [`MAX_DEPTH`] is refused when its entry is
//! made, so no carve file is written that replay cannot parse.
//!
//! The limit stays finite on purpose: reading, deserializing and writing
//! recurse once per level, about 7 KiB a level to read and 11 KiB to write
//! in a debug build (measured with ron 0.12). A test thread's 2 MiB hold
//! some 190 levels, not enough for a 100-level tree (200), so that work runs
//! on a thread of [`STACK`] ([`with_stack`]), which holds a value of
//! [`MAX_DEPTH`] with room to spare: the test below replays one on a
//! quarter of it.
//!
//! ```
//! use carve::value::{depth, Value};
//!
//! let v = Value::capture(&Some(vec![(1, "a")])).unwrap();
//! assert_eq!(depth::depth(&v), 3); // Some, [ ], ( )
//! let back: Option<Vec<(u8, String)>> = depth::options().from_str("Some([(1, \"a\")])").unwrap();
//! assert_eq!(back.unwrap()[0].1, "a");
//! ```

use ron::Options;

use crate::value::Value;

/// The deepest nesting carve stores: a value with more containers (structs,
/// tuples, sequences, maps, `Some`, variants with data) inside one another
/// is not carved. A recursive tree (`Node { children: Vec<Node> }`, two
/// containers a level) of 127 levels fits, with the arguments around it.
pub const MAX_DEPTH: usize = 256;

/// Containers a value in a carve file sits in: the file, its `calls`, the
/// entry, and the `Returned(…)` or `(outcome: …, after: …)` around it.
const FILE_NESTING: usize = 6;

/// RON's reader counts up to two levels per container (the container, and
/// the field or element inside it).
const RON_LEVELS_PER_CONTAINER: usize = 2;

/// The recursion limit of every RON read carve does: enough for a value of
/// [`MAX_DEPTH`] inside a carve file.
pub const READ_LIMIT: usize = RON_LEVELS_PER_CONTAINER * (MAX_DEPTH + FILE_NESTING);

/// The RON reader carve reads carve files, outcomes and arguments with.
pub fn options() -> Options {
    Options::default().with_recursion_limit(READ_LIMIT)
}

/// The stack carve reads and writes values on ([`with_stack`]): 16 MiB,
/// some six times the 2.8 MiB writing a value of [`MAX_DEPTH`] takes in a
/// debug build. Only the pages used are ever committed.
pub const STACK: usize = 16 << 20;

/// Runs `f` on a thread with a [`STACK`]-sized stack, for work that
/// recurses once per level of a carved value: reading a carve file,
/// writing an entry, replaying a call. A test thread has 2 MiB, which
/// writing a value of some 190 levels already overflows in a debug build.
pub fn with_stack<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    let f = std::sync::Mutex::new(Some(f));
    let take = || f.lock().unwrap_or_else(|e| e.into_inner()).take();
    let mut builder = std::thread::Builder::new().stack_size(STACK);
    if let Some(name) = std::thread::current().name() {
        builder = builder.name(name.to_owned());
    }
    std::thread::scope(|scope| {
        let spawned = builder.spawn_scoped(scope, || take().map(|f| f()));
        let ran = match spawned {
            Ok(thread) => thread
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            // No thread to be had: run here, on the stack there is.
            Err(_) => None,
        };
        match ran {
            Some(result) => result,
            None => match take() {
                Some(f) => f(),
                None => unreachable!("the closure ran or is still here"),
            },
        }
    })
}

/// Nesting that any thread's stack holds, a 2 MiB test thread's included
/// (some 700 KiB to write a value this deep): work on values no deeper
/// runs where it is ([`with_stack_for`]). Nearly every carved value is this
/// shallow, and a thread of its own costs more than most replays.
pub const SHALLOW: usize = 64;

/// Runs `f` here when the values it works on nest at most [`SHALLOW`]
/// levels deep, else on a [`STACK`]-sized thread ([`with_stack`]).
pub fn with_stack_for<R: Send>(nesting: usize, f: impl FnOnce() -> R + Send) -> R {
    if nesting <= SHALLOW {
        f()
    } else {
        with_stack(f)
    }
}

/// A bound on how deep the value RON `text` spells nests: every container
/// opens with a bracket, so there are at least as many as levels (brackets
/// in strings only make the bound looser). Linear, and never recurses.
pub fn nesting_bound(text: &str) -> usize {
    text.bytes()
        .filter(|b| matches!(b, b'(' | b'[' | b'{'))
        .count()
}

/// The deepest of the named `parts` (the first, on a tie), with how deep it
/// nests; `("", 0)` for none.
pub fn deepest(parts: &[(&'static str, Option<&Value>)]) -> (&'static str, usize) {
    parts
        .iter()
        .map(|&(part, value)| (part, value.map_or(0, depth)))
        .fold(("", 0), |deepest, part| {
            if part.1 > deepest.1 {
                part
            } else {
                deepest
            }
        })
}

/// How many containers deep `value` nests (a scalar: 0). Walks the tree with
/// an explicit stack, so measuring never recurses.
pub fn depth(value: &Value) -> usize {
    let mut deepest = 0;
    let mut pending = vec![(value, 0usize)];
    while let Some((value, above)) = pending.pop() {
        if !value.is_container() {
            deepest = deepest.max(above);
            continue;
        }
        let level = above + 1;
        deepest = deepest.max(level);
        pending.extend(value.children().into_iter().map(|child| (child, level)));
    }
    deepest
}

/// ron's message for `code`, with its advice to raise
/// `ron::Options::recursion_limit` (which a carve user cannot set) replaced
/// by carve's bound.
pub fn describe(code: &ron::Error) -> String {
    match code {
        ron::Error::ExceededRecursionLimit => format!(
            "values nest deeper than carve reads ({MAX_DEPTH} levels); carve never writes such \
             a value, so this one was written or edited by hand"
        ),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use serde::{Deserialize, Serialize};

    use super::*;
    use crate::carving::store::{CarveFile, Entry, Origin};
    use crate::outcome::{Observation, Outcome};
    use crate::value::text::{to_ron, UNNAMED};

    /// A recursive tree: two containers (the struct and its `Vec`) a level.
    #[derive(Debug, Serialize, Deserialize, PartialEq)]
    struct Node {
        label: u32,
        children: Vec<Node>,
    }

    /// A chain `levels` deep.
    fn chain(levels: usize) -> Node {
        let mut node = Node {
            label: 0,
            children: vec![],
        };
        for label in 1..levels {
            node = Node {
                label: label as u32,
                children: vec![node],
            };
        }
        node
    }

    #[derive(Deserialize)]
    struct Args {
        tree: Node,
    }

    /// What carve does with a value from record to replay: capture, write the
    /// entry, read the file, deserialize the arguments and the outcome,
    /// capture the outcome and write it for its snapshot.
    fn round_trip(tree: &Node) -> Result<(), String> {
        let value = Value::capture(tree).map_err(|e| e.to_string())?;
        let args = Value::Struct(UNNAMED, vec![("tree", value.clone())]);
        let observation = Observation {
            outcome: Outcome::Returned(value),
            after: None,
        };
        let entry = Entry::from_values(Origin::System("t".into()), &args, &observation)
            .map_err(|e| e.to_string())?;
        let text = CarveFile::render("f", &[entry]);
        let file = CarveFile::parse(Path::new(""), Path::new("f.ron"), &text)
            .map_err(|e| e.to_string())?;
        let read: Args = options()
            .from_str(&file.entries[0].args)
            .map_err(|e| e.to_string())?;
        let snapshot = to_ron(&Observation {
            outcome: Outcome::Returned(Value::capture(&read.tree).map_err(|e| e.to_string())?),
            after: None,
        })
        .map_err(|e| e.to_string())?;
        assert_eq!(&read.tree, tree);
        assert_eq!(snapshot, file.entries[0].outcome.text.replace("\n            ", "\n"));
        Ok(())
    }

    /// The bound's promise: a value of [`MAX_DEPTH`] levels goes from
    /// record to replay on a quarter of [`STACK`]; one level more is refused.
    #[test]
    fn the_bracket_count_bounds_the_nesting_of_ron_text() {
        let v = Value::capture(&Some(vec![(1, "a(b")])).unwrap();
        let text = crate::value::text::to_ron(&v).unwrap();
        assert_eq!(depth(&v), 3);
        // Some(, [, ( and the bracket inside the string.
        assert_eq!(nesting_bound(&text), 4);
        let tree = Value::capture(&chain(40)).unwrap();
        let text = crate::value::text::to_ron(&tree).unwrap();
        assert!(nesting_bound(&text) >= depth(&tree), "{}", depth(&tree));
        assert_eq!(deepest(&[("a", Some(&v)), ("b", Some(&tree)), ("c", None)]).0, "b");
        assert_eq!(deepest(&[("c", None)]), ("", 0));
    }

    #[test]
    fn a_value_at_the_bound_round_trips_on_a_quarter_of_the_stack() {
        // The arguments' struct is a level, and each tree level two.
        let levels = (MAX_DEPTH - 1) / 2;
        let tree = chain(levels);
        let value = Value::capture(&tree).unwrap();
        let args = Value::Struct(UNNAMED, vec![("tree", value)]);
        assert_eq!(depth(&args), MAX_DEPTH - 1);
        std::thread::Builder::new()
            .stack_size(STACK / 4)
            .spawn(move || {
                round_trip(&tree).unwrap();
                // Deeper by one level is refused when the entry is made.
                let deeper = Node {
                    label: 0,
                    children: vec![tree],
                };
                let err = round_trip(&deeper).unwrap_err();
                assert!(err.contains(&format!("arguments is {} levels", MAX_DEPTH + 1)), "{err}");
            })
            .unwrap()
            .join()
            .unwrap();
    }

    #[test]
    fn depth_counts_containers() {
        assert_eq!(depth(&Value::I64(1)), 0);
        let map = Value::Map(vec![(Value::Seq(vec![Value::Unit]), Value::I64(1))]);
        assert_eq!(depth(&map), 2);
        assert_eq!(depth(&Value::Some(Box::new(map))), 3);
    }

    #[test]
    fn rons_advice_to_raise_its_limit_is_replaced() {
        let deep = format!("{}1{}", "[".repeat(READ_LIMIT), "]".repeat(READ_LIMIT));
        let err = options().from_str::<serde::de::IgnoredAny>(&deep).unwrap_err();
        insta::assert_snapshot!(describe(&err.code), @r#"values nest deeper than carve reads (256 levels); carve never writes such a value, so this one was written or edited by hand"#);
    }
}
