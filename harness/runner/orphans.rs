//! Orphan cleanup after recording: snapshots whose call is no longer in
//! any carve file.

use std::collections::BTreeSet;
use std::fs;
use std::io;
use std::path::Path;

use crate::carving::layout::{self, display_path, StoreError};
use crate::carving::lock::CarveDirLock;
use crate::carving::replay::snapshot_names;
use crate::carving::store::CarveFile;

/// Deletes the snapshots no entry uses any more: for each of `targets`, the
/// `<id>.snap` files in its snapshot folder (and shards) that no entry of
/// its carve file checks, and the pending ones (`<id>.snap.new`,
/// `<id>.pending-snap`) that no entry would accept: left by a call removed
/// since (an entry duplicated by hand, say), `cargo insta review` would
/// offer them for a call that no longer exists. The file is read again
/// under the carve-folder lock, so an entry a generate run beside this one
/// just added keeps its snapshot. Nothing else is touched; folders left
/// empty are removed.
pub(super) fn remove_orphan_snapshots(
    dir: &Path,
    targets: &BTreeSet<String>,
) -> Result<(), StoreError> {
    let _lock = CarveDirLock::acquire(dir)?;
    for target in targets {
        let path = CarveFile::path_for(dir, target);
        let entries = match CarveFile::load(dir, &path) {
            Ok(file) => file.entries,
            // Gone: every snapshot of the target is an orphan.
            Err(StoreError::Io { error, .. }) if error.kind() == io::ErrorKind::NotFound => {
                Vec::new()
            }
            Err(e) => return Err(e),
        };
        let used: BTreeSet<String> = snapshot_names(&entries).into_iter().collect();
        let folder = layout::snapshot_folder(dir, target);
        for (path, snapshot, pending) in snapshot_files(&folder) {
            if !used.contains(&snapshot) {
                if fs::remove_file(&path).is_ok() {
                    println!(
                        "carve: removed {} ({}its call is no longer carved)",
                        display_path(&path),
                        if pending { "a pending snapshot; " } else { "" }
                    );
                }
                continue;
            }
            if pending {
                // A change to review (`cargo insta review`): not carve's.
                continue;
            }
            // In use, but where the target's size no longer puts it (it
            // crossed the sharding threshold): moved, never rewritten.
            let home = layout::snapshot_shard(&folder, &snapshot, entries.len())
                .join(format!("{snapshot}.snap"));
            if home != path && !home.exists() {
                let moved = home
                    .parent()
                    .map_or(Ok(()), fs::create_dir_all)
                    .and_then(|()| fs::rename(&path, &home));
                if let Err(e) = moved {
                    return Err(StoreError::io(&home, e));
                }
            }
        }
        for shard in shard_folders(&folder) {
            layout::remove_empty_folders(dir, &shard);
        }
        layout::remove_empty_folders(dir, &folder);
    }
    Ok(())
}

/// The snapshot files in a target's snapshot folder and its shards, each
/// with its snapshot's name and whether it is pending review: `<id>.snap`,
/// and `<id>.snap.new` or `<id>.pending-snap` (pending).
pub(super) fn snapshot_files(folder: &Path) -> Vec<(std::path::PathBuf, String, bool)> {
    let in_folder = |folder: &Path| -> Vec<(std::path::PathBuf, String, bool)> {
        let Ok(read) = fs::read_dir(folder) else {
            return Vec::new();
        };
        read.flatten()
            .filter_map(|e| {
                let path = e.path();
                let name = path.file_name()?.to_str()?;
                let (snapshot, pending) = match name.strip_suffix(".snap") {
                    Some(stem) => (stem, false),
                    None => (
                        name.strip_suffix(".snap.new")
                            .or_else(|| name.strip_suffix(".pending-snap"))?,
                        true,
                    ),
                };
                let snapshot = snapshot.to_owned();
                (layout::is_snapshot_name(&snapshot) && path.is_file())
                    .then_some((path, snapshot, pending))
            })
            .collect()
    };
    let mut files = in_folder(folder);
    for shard in shard_folders(folder) {
        files.extend(in_folder(&shard));
    }
    files.sort();
    files
}

/// The shard folders (`0x3a`) of a target's snapshot folder.
pub(super) fn shard_folders(folder: &Path) -> Vec<std::path::PathBuf> {
    let Ok(read) = fs::read_dir(folder) else {
        return Vec::new();
    };
    read.flatten()
        .filter(|e| e.file_name().to_str().is_some_and(layout::is_shard_name))
        .map(|e| e.path())
        .filter(|path| path.is_dir())
        .collect()
}
