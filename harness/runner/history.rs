//! Where the runner keeps the [`RunHistory`] of each target: outside the
//! carve folder, in the target directory
//! (`target/carve/history/<package>/<target>.json`), since it describes
//! runs, not tests.
//!
//! A file that does not parse is replaced by the next run, never an error:
//! a history is a convenience, and a run must not fail over it.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::carving::layout;
use crate::carving::store::write_atomic;
use crate::coverage::history::RunHistory;

/// The history file of one target: its last runs, oldest first.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct History {
    /// What this file is, for whoever opens it.
    #[serde(default)]
    pub about: String,
    /// The target's name.
    pub target: String,
    /// Its last runs, oldest first (at most [`KEPT_RUNS`]).
    pub runs: Vec<RunHistory>,
}

/// Runs a history file keeps.
pub const KEPT_RUNS: usize = 20;

const ABOUT: &str = "carve: outcomes covered against executions of the last CARVE=generate \
                     runs of this target; written by carve, read by its HTML report (CARVE_HTML)";

/// The folder of a package's history files, inside the target directory
/// that holds the test binary `exe`: the first ancestor cargo marked with
/// `CACHEDIR.TAG`, else `<package_root>/target`. `package` (cargo's
/// `CARGO_PKG_NAME`) keeps the packages of one workspace apart.
pub fn folder(exe: &Path, package_root: &Path, package: &str) -> PathBuf {
    let target_dir = exe
        .ancestors()
        .skip(1)
        .find(|dir| dir.join("CACHEDIR.TAG").is_file())
        .map_or_else(|| package_root.join("target"), Path::to_path_buf);
    target_dir
        .join("carve")
        .join("history")
        .join(layout::path_segment(package))
}

/// The history file of `target` in `folder`: `decode/cgi_decode.json`.
pub fn file(folder: &Path, target: &str) -> PathBuf {
    layout::snapshot_folder(folder, target).with_extension("json")
}

/// The last run of `target` kept in `folder`, if any.
pub fn last_run(folder: &Path, target: &str) -> Option<RunHistory> {
    load(&file(folder, target)).and_then(|h| h.runs.last().cloned())
}

fn load(path: &Path) -> Option<History> {
    let text = std::fs::read_to_string(path).ok()?;
    serde_json::from_str(&text).ok()
}

/// Adds `run` to the history of `target` in `folder`, dropping the oldest
/// runs past [`KEPT_RUNS`].
pub fn append(folder: &Path, target: &str, run: RunHistory) -> std::io::Result<PathBuf> {
    let path = file(folder, target);
    let mut history = load(&path)
        .filter(|h| h.target == target)
        .unwrap_or_else(|| History {
            target: target.to_owned(),
            ..History::default()
        });
    history.about = ABOUT.to_owned();
    history.runs.push(run);
    let excess = history.runs.len().saturating_sub(KEPT_RUNS);
    history.runs.drain(..excess);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    let mut text = serde_json::to_string_pretty(&history).map_err(std::io::Error::other)?;
    text.push('\n');
    write_atomic(&path, text.as_bytes())?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coverage::history::tests::run;

    #[test]
    fn runs_are_appended_and_the_oldest_dropped() {
        let folder = std::env::temp_dir().join(format!("carve-history-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&folder);
        for seed in 0..KEPT_RUNS as u64 + 3 {
            append(&folder, "a::Type::f", run(seed)).unwrap();
        }
        let path = file(&folder, "a::Type::f");
        assert!(path.ends_with("a/Type/f.json"), "{}", path.display());
        let history = load(&path).unwrap();
        assert_eq!(history.runs.len(), KEPT_RUNS);
        assert_eq!(history.runs[0].seed, 3);
        assert_eq!(last_run(&folder, "a::Type::f"), Some(run(KEPT_RUNS as u64 + 2)));
        // A file that does not parse is replaced, not an error.
        std::fs::write(&path, "{ not json").unwrap();
        assert_eq!(last_run(&folder, "a::Type::f"), None);
        append(&folder, "a::Type::f", run(7)).unwrap();
        assert_eq!(load(&path).unwrap().runs, [run(7)]);
        std::fs::remove_dir_all(&folder).unwrap();
    }
}
