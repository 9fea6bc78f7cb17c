//! Fixtures that generation's unit tests share: the table of a function with
//! one condition, a scratch folder, and carve-file entries.

use std::path::PathBuf;

use tempfile::TempDir;

use crate::carving::store::{Entry, Origin, StoredOutcome};
use crate::registry::{Branch, BranchKind, Side, Sites};

const fn branch(side: Side) -> Branch {
    Branch {
        kind: BranchKind::Condition,
        condition: "x > 9",
        side,
        line: 2,
        col: 8,
        parent: u32::MAX,
    }
}

const X_GT_9: [Branch; 2] = [branch(Side::True), branch(Side::False)];

/// The table of `fn <function>(x)` in `demo`, whose one condition `x > 9`
/// has outcomes 0 (true) and 1 (false).
pub(crate) const fn x_gt_9(function: &'static str) -> Sites {
    Sites::new("demo", function, "src/lib.rs", (1, 3), &X_GT_9, &[])
}

/// A fresh folder, removed when the value is dropped, and its path.
pub(crate) fn scratch() -> (TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let path = dir.path().to_owned();
    (dir, path)
}

/// An entry for the call `(x: <x>)` that returned `()`.
pub(crate) fn returned(origin: Origin, x: u32) -> Entry {
    let outcome = StoredOutcome::parse("Returned(())").expect("a stored outcome");
    Entry::new(origin, &format!("(x: {x})"), outcome, None)
}
