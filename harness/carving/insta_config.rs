//! What insta's settings say about a snapshot that matches, so that replay's
//! fast path (comparing a stored snapshot in memory, without insta) is taken
//! only where insta would do nothing either.
//!
//! insta acts on a passing snapshot in two cases: a forced update rewrites
//! it (`INSTA_UPDATE=force`, or `behavior: update: force` /
//! `force_update: true` in its config file), and a full match compares its
//! metadata too (`INSTA_REQUIRE_FULL_MATCH=1`, or `behavior:
//! require_full_match: true`). A variable, when set and not empty, wins over
//! the file, as in insta. insta reads its config from the workspace root
//! (`.config/insta.yaml`, `insta.yaml` or `.insta.yaml`, the first found);
//! its reader is not public, so carve reads the few keys it needs, and
//! anything it cannot read with certainty sends every assertion to insta:
//! slower, never wrong.
//!
//! ```
//! use carve::carving::insta_config::acts_on_passes;
//!
//! let no_env = |_: &str| None;
//! assert!(acts_on_passes(Some("behavior:\n  force_update: true\n"), no_env));
//! assert!(!acts_on_passes(Some("behavior:\n  force_update: false\n"), no_env));
//! assert!(!acts_on_passes(None, no_env));
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The names insta looks for its config file under, in its order.
const CONFIG_FILES: [&str; 3] = [".config/insta.yaml", "insta.yaml", ".insta.yaml"];

/// Whether insta would act on a matching snapshot, given the text of its
/// config file (if there is one) and the environment (`env(name)`).
pub fn acts_on_passes(config: Option<&str>, env: impl Fn(&str) -> Option<String>) -> bool {
    let set = |name: &str| env(name).filter(|v| !v.is_empty());
    // Variables insta acts on whatever its config says: the old names of a
    // forced update, and the list of referenced snapshots that
    // `cargo insta test --unreferenced` keeps.
    let old_or_listed = [
        "INSTA_FORCE_UPDATE",
        "INSTA_FORCE_UPDATE_SNAPSHOTS",
        "INSTA_SNAPSHOT_REFERENCES_FILE",
    ];
    if old_or_listed.iter().any(|name| set(name).is_some_and(|v| v != "0")) {
        return true;
    }
    let behavior = match config.map(behavior) {
        Some(Some(behavior)) => behavior,
        // A config file carve cannot read: let insta judge.
        Some(None) => return true,
        None => BTreeMap::new(),
    };
    let full_match = match set("INSTA_REQUIRE_FULL_MATCH") {
        Some(value) => value != "0",
        None => behavior.get("require_full_match").is_some_and(|v| is_true(v)),
    };
    let forced = match set("INSTA_UPDATE") {
        Some(value) => value == "force",
        None => match behavior.get("update") {
            Some(update) => update == "force",
            None => behavior.get("force_update").is_some_and(|v| is_true(v)),
        },
    };
    full_match || forced
}

/// A config value insta may take for `true`: anything but `false` (insta
/// reads only `true` as true; the doubt costs speed, not correctness).
fn is_true(value: &str) -> bool {
    value != "false"
}

/// The `key: value` pairs of the top-level `behavior:` block of an insta
/// config file (block style, quotes and comments removed); `None` when the
/// block is written in a way this reader does not follow (flow style,
/// anchors, multi-line values) and names a key carve needs.
fn behavior(yaml: &str) -> Option<BTreeMap<String, String>> {
    const NEEDED: [&str; 3] = ["update", "force_update", "require_full_match"];
    let mut pairs = BTreeMap::new();
    let mut inside = false;
    for line in yaml.lines() {
        let line = without_comment(line).trim_end();
        if line.trim().is_empty() || line == "---" {
            continue;
        }
        let top_level = !line.starts_with([' ', '\t']);
        if top_level {
            inside = match line.strip_prefix("behavior:") {
                Some("") => true,
                // `behavior: {update: force}` and the like.
                Some(_) => return None,
                None => false,
            };
            continue;
        }
        if !inside {
            continue;
        }
        let (key, value) = line.trim().split_once(':')?;
        let key = key.trim().trim_matches(['"', '\'']);
        let value = value.trim().trim_matches(['"', '\'']);
        if NEEDED.contains(&key) && (value.is_empty() || value.starts_with(['&', '*', '{', '|', '>'])) {
            return None;
        }
        pairs.insert(key.to_owned(), value.to_owned());
    }
    Some(pairs)
}

/// `line` without a `#` comment (one at its start or after a space).
fn without_comment(line: &str) -> &str {
    if line.trim_start().starts_with('#') {
        return "";
    }
    match line.find(" #") {
        Some(at) => &line[..at],
        None => line,
    }
}

/// The text of insta's config file for the crate whose files are under
/// `start`: in `INSTA_WORKSPACE_ROOT` when set, else in `start` or the
/// nearest folder above it with one, up to the workspace root (a
/// `Cargo.toml` with `[workspace]`), where insta looks.
pub fn config_text(start: &Path, env: impl Fn(&str) -> Option<String>) -> Option<String> {
    let read = |dir: &Path| {
        CONFIG_FILES
            .iter()
            .find_map(|name| std::fs::read_to_string(dir.join(name)).ok())
    };
    if let Some(root) = env("INSTA_WORKSPACE_ROOT").filter(|v| !v.is_empty()) {
        return read(&PathBuf::from(root));
    }
    for dir in start.ancestors() {
        if let Some(text) = read(dir) {
            return Some(text);
        }
        let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap_or_default();
        if manifest.lines().any(|l| l.trim() == "[workspace]") {
            break;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| vars.iter().find(|(k, _)| *k == name).map(|(_, v)| (*v).to_owned())
    }

    #[test]
    fn the_config_file_turns_on_what_insta_does_to_passing_snapshots() {
        let none = env(&[]);
        for config in [
            "behavior:\n  force_update: true\n",
            "behavior:\n  update: force\n",
            "behavior:\n  update: \"force\" # always\n",
            "test:\n  runner: nextest\nbehavior:\n  require_full_match: true\n",
            "behavior: {update: force}\n",
            "behavior:\n  update: &u force\n",
        ] {
            assert!(acts_on_passes(Some(config), &none), "{config}");
        }
        for config in [
            "",
            "behavior:\n  force_update: false\n  output: diff\n",
            "behavior:\n  update: always\n  force_update: true\n",
            "# behavior:\n#   force_update: true\n",
            "test:\n  force_update: true\nbehavior:\n  output: minimal\n",
        ] {
            assert!(!acts_on_passes(Some(config), &none), "{config}");
        }
    }

    #[test]
    fn a_variable_wins_over_the_config_file_as_in_insta() {
        let forced = Some("behavior:\n  force_update: true\n  require_full_match: true\n");
        assert!(acts_on_passes(forced, env(&[("INSTA_UPDATE", "")])));
        assert!(!acts_on_passes(
            forced,
            env(&[("INSTA_UPDATE", "auto"), ("INSTA_REQUIRE_FULL_MATCH", "0")])
        ));
        assert!(acts_on_passes(None, env(&[("INSTA_UPDATE", "force")])));
        assert!(acts_on_passes(None, env(&[("INSTA_REQUIRE_FULL_MATCH", "1")])));
        assert!(acts_on_passes(None, env(&[("INSTA_FORCE_UPDATE", "1")])));
        assert!(!acts_on_passes(None, env(&[("INSTA_FORCE_UPDATE", "0")])));
    }

    #[test]
    fn the_config_file_is_found_where_insta_looks() {
        let root = std::env::temp_dir().join(format!("carve-insta-config-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let member = root.join("member/carved");
        std::fs::create_dir_all(&member).unwrap();
        std::fs::write(root.join("Cargo.toml"), "[workspace]\nmembers = [\"member\"]\n").unwrap();
        assert_eq!(config_text(&member, env(&[])), None);
        std::fs::create_dir_all(root.join(".config")).unwrap();
        std::fs::write(root.join(".config/insta.yaml"), "a").unwrap();
        std::fs::write(root.join("insta.yaml"), "b").unwrap();
        assert_eq!(config_text(&member, env(&[])).as_deref(), Some("a"));
        let elsewhere = root.join("member");
        let pinned = [("INSTA_WORKSPACE_ROOT", elsewhere.to_str().unwrap())];
        assert_eq!(config_text(&member, env(&pinned)), None);
        std::fs::remove_dir_all(&root).unwrap();
    }
}
