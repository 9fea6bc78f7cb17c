//! An advisory lock on a carve folder, held by every read-modify-write of
//! its carve files: two `CARVE=generate` runs (with different seeds), or a
//! record beside a generate, each load the file, add to it and write it
//! back; without the lock the later write drops what the earlier one added.
//!
//! The lock is a file lock ([`File::lock`], `flock` on Unix, `LockFileEx`
//! on Windows): the operating system releases it when the process ends, so
//! a killed writer never leaves the folder locked. The lock file lives in
//! the system's temporary folder, named after the carve folder's canonical
//! path, and not in `carved/` itself: `carved/` is committed, and a lock
//! file in it would show up as an untracked file after every run. The lock
//! files are tiny and never removed (removing a lock file while another
//! process waits on it would let a third one lock a new file beside it).
//!
//! Only processes that agree on the temporary folder (`TMPDIR`) meet on the
//! same lock; every carve process of one user's `cargo test` does.

use std::fs::{self, File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};

use crate::carving::layout::fnv1a;
use crate::carving::layout::StoreError;

/// Holds the lock on one carve folder until dropped.
#[derive(Debug)]
#[must_use = "the carve folder is unlocked as soon as the guard is dropped"]
pub struct CarveDirLock {
    /// Closing it releases the lock.
    _file: File,
}

impl CarveDirLock {
    /// Waits until no other process (or thread) holds the lock on `dir`,
    /// then takes it. Hold the guard across the whole load, change and write.
    ///
    /// `dir` need not exist yet. An error names the lock file and the OS
    /// error.
    pub fn acquire(dir: &Path) -> Result<CarveDirLock, StoreError> {
        let path = lock_path(dir);
        let file = open(&path).map_err(|e| StoreError::io(&path, e))?;
        file.lock().map_err(|e| StoreError::io(&path, e))?;
        Ok(CarveDirLock { _file: file })
    }
}

/// The lock file for `dir`: `carve-<hash of its canonical path>.lock` in the
/// temporary folder, so that `carved` and `./carved/` meet on one lock.
pub fn lock_path(dir: &Path) -> PathBuf {
    let canonical = canonical(dir);
    let hash = fnv1a(canonical.as_os_str().as_encoded_bytes());
    std::env::temp_dir().join(format!("carve-{hash:016x}.lock"))
}

/// `dir` made absolute and free of links, for the part of it that exists
/// (a carve folder is created by its first write).
fn canonical(dir: &Path) -> PathBuf {
    let absolute = std::path::absolute(dir).unwrap_or_else(|_| dir.to_owned());
    let mut missing = Vec::new();
    let mut existing = absolute.as_path();
    loop {
        if let Ok(found) = fs::canonicalize(existing) {
            return missing
                .iter()
                .rev()
                .fold(found, |path, part| path.join(part));
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                missing.push(name.to_owned());
                existing = parent;
            }
            _ => return absolute,
        }
    }
}

/// Opens the lock file, creating it if needed. An existing file is opened
/// read-only: a lock needs no write access, and the file may belong to
/// another user who ran carve on the same folder.
fn open(path: &Path) -> io::Result<File> {
    loop {
        match File::open(path) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            opened => return opened,
        }
        match OpenOptions::new().write(true).create_new(true).open(path) {
            // Another process created it in between: open theirs.
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            created => return created,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    use std::time::Duration;

    /// Removes a scratch folder and its lock file (no other process uses it).
    fn remove(dir: &Path) {
        let _ = fs::remove_file(lock_path(dir));
        fs::remove_dir_all(dir).unwrap();
    }

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "carve-lock-test-{name}-{}",
            std::process::id()
        ));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn spellings_of_one_folder_share_a_lock_file_and_it_is_not_in_the_folder() {
        let dir = scratch("spellings");
        let carved = dir.join("carved");
        let lock = lock_path(&carved);
        fs::create_dir_all(dir.join("x")).unwrap();
        assert_eq!(lock_path(&dir.join("x/.././carved/")), lock);
        fs::create_dir_all(&carved).unwrap();
        assert_eq!(lock_path(&carved), lock, "same before and after it exists");
        assert_ne!(lock_path(&dir.join("other")), lock);
        assert!(!lock.starts_with(&carved));
        let _guard = CarveDirLock::acquire(&carved).unwrap();
        assert_eq!(fs::read_dir(&carved).unwrap().count(), 0);
        drop(_guard);
        let _ = fs::remove_file(&lock);
        remove(&dir);
    }

    /// Threads that each load a counter, wait, and write it back lose no
    /// increment while they hold the lock. Each acquire opens its own file,
    /// so this is the same contention two processes see.
    #[test]
    fn contending_writers_lose_nothing() {
        let dir = scratch("contention");
        let counter = dir.join("counter");
        fs::write(&counter, "0").unwrap();
        let inside = Arc::new(AtomicUsize::new(0));
        let threads: Vec<_> = (0..4)
            .map(|_| {
                let (dir, counter, inside) = (dir.clone(), counter.clone(), Arc::clone(&inside));
                std::thread::spawn(move || {
                    for _ in 0..10 {
                        let _guard = CarveDirLock::acquire(&dir).unwrap();
                        assert_eq!(inside.fetch_add(1, Ordering::SeqCst), 0, "two inside");
                        let n: u32 = fs::read_to_string(&counter).unwrap().parse().unwrap();
                        std::thread::sleep(Duration::from_millis(1));
                        fs::write(&counter, (n + 1).to_string()).unwrap();
                        inside.fetch_sub(1, Ordering::SeqCst);
                    }
                })
            })
            .collect();
        for thread in threads {
            thread.join().unwrap();
        }
        assert_eq!(fs::read_to_string(&counter).unwrap(), "40");
        remove(&dir);
    }

    #[test]
    fn a_lock_file_of_another_user_is_opened_read_only() {
        let dir = scratch("read-only");
        let lock = lock_path(&dir);
        drop(CarveDirLock::acquire(&dir).unwrap());
        let mut permissions = fs::metadata(&lock).unwrap().permissions();
        permissions.set_readonly(true);
        fs::set_permissions(&lock, permissions.clone()).unwrap();
        let guard = CarveDirLock::acquire(&dir);
        #[allow(clippy::permissions_set_readonly_false)]
        permissions.set_readonly(false);
        fs::set_permissions(&lock, permissions).unwrap();
        drop(guard.unwrap());
        remove(&dir);
    }
}
