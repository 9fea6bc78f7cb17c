//! Atomic writes into the carve folder, and what a killed writer left.
//!
//! A file is written to a temporary file and renamed over its place
//! ([`tempfile::NamedTempFile::persist`]): a crash at any point leaves the
//! old file or the new one, whole. `carved/` is committed, so the temporary
//! file goes outside it when it can: into `carve-tmp/` in the cargo target
//! folder of the running test binary, on the same filesystem as the package
//! in the usual layout. Where a rename from there fails (another
//! filesystem), it goes beside the file as `.<name>.<pid>.<random>.tmp`.
//! A writer killed with `kill -9` between the two steps leaves that file;
//! [`remove_stale_temporaries`] removes those of processes no longer alive
//! (record and generate call it first), so nothing is left in `carved/`.

use std::fs;
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Writes through a temporary file and a rename, with the file's data on
/// disk before the rename: a crash at any point leaves the old file or the
/// new one, whole.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_through_rename(path, bytes, true)
}

/// [`write_atomic`] without waiting for the disk: a crash never leaves a
/// half-written file in place, but after a power loss the new file may be
/// empty until [`sync_filesystem`] has run. For files written by the
/// thousand that can be made again (snapshots, from their carve files).
pub fn write_atomic_unsynced(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_through_rename(path, bytes, false)
}

/// Puts on disk everything written to the filesystem that holds `path`:
/// one wait for many [`write_atomic_unsynced`] writes.
pub fn sync_filesystem(path: &Path) -> io::Result<()> {
    let file = fs::File::open(path)?;
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        // SAFETY: `file` is an open descriptor for the whole call.
        if unsafe { libc::syncfs(file.as_raw_fd()) } != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }
    #[cfg(not(target_os = "linux"))]
    {
        // No per-filesystem sync: at least the folder's own entries.
        file.sync_all()
    }
}

fn write_through_rename(path: &Path, bytes: &[u8], sync: bool) -> io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(dir)?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    // Any failure outside (no target folder, another filesystem) falls back
    // to the file's own folder, where the rename cannot cross filesystems.
    if let Some(outside) = outside_folder() {
        if write_in(outside, &name, path, bytes, sync).is_ok() {
            return Ok(());
        }
    }
    write_in(dir, &name, path, bytes, sync)
}

/// Writes `bytes` to a new temporary file in `folder` and renames it to
/// `path`; the temporary file is removed if anything fails. Errors are the
/// OS's alone, for the caller to name the file being written (tempfile's
/// own `tempfile_in` and `Write` add the random temporary name).
fn write_in(folder: &Path, name: &str, path: &Path, bytes: &[u8], sync: bool) -> io::Result<()> {
    let prefix = format!(".{name}.{}.", std::process::id());
    let mut file = tempfile::Builder::new()
        .prefix(&prefix)
        .suffix(TMP_SUFFIX)
        .make_in(folder, |path| {
            let mut options = fs::OpenOptions::new();
            options.write(true).create_new(true);
            // As `File::create`: readable by others unless the umask says no
            // (tempfile's own files are the owner's only).
            #[cfg(unix)]
            std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o666);
            options.open(path)
        })?;
    file.as_file_mut().write_all(bytes)?;
    if sync {
        file.as_file().sync_all()?;
    }
    file.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// How every temporary file carve writes ends.
const TMP_SUFFIX: &str = ".tmp";

/// The folder temporary files are written to, outside `carved/`:
/// `carve-tmp/` in the cargo target folder of this test binary (the
/// ancestor of the executable that holds cargo's `CACHEDIR.TAG`, else an
/// absolute `CARGO_TARGET_DIR`). `None` when there is none or it cannot be made.
fn outside_folder() -> Option<&'static Path> {
    static FOLDER: OnceLock<Option<PathBuf>> = OnceLock::new();
    FOLDER
        .get_or_init(|| {
            let exe = std::env::current_exe().ok();
            let target = exe
                .iter()
                .flat_map(|exe| exe.ancestors())
                .find(|dir| dir.join("CACHEDIR.TAG").is_file())
                .map(Path::to_path_buf)
                .or_else(|| {
                    // A relative one is relative to where cargo ran: unknown.
                    crate::env::cargo_target_dir().filter(|dir| dir.is_absolute() && dir.is_dir())
                })?;
            let folder = target.join("carve-tmp");
            fs::create_dir_all(&folder).ok()?;
            // What killed writers left here is removed too (not committed,
            // but it would pile up).
            let _ = remove_stale_in(&folder, false);
            Some(folder)
        })
        .as_deref()
}

/// Removes the temporary files that writers which are no longer alive left
/// in the carve folder `dir` (at any depth; `.<name>.<pid>[.<random>].tmp`).
/// Returns the files removed. Files of live processes are left alone: they
/// are being written.
pub fn remove_stale_temporaries(dir: &Path) -> io::Result<Vec<PathBuf>> {
    remove_stale_in(dir, true)
}

/// [`remove_stale_temporaries`], said in one line (`None` when there was
/// nothing to remove): `removed 2 temporary file(s) that killed writers
/// left in carved/: carved/.f.ron.4242.tmp, …`.
pub fn tidy(dir: &Path) -> Option<String> {
    let removed = remove_stale_temporaries(dir).ok()?;
    let first = removed.first()?;
    let more = match removed.len() {
        1 => String::new(),
        n => format!(" and {} more", n - 1),
    };
    Some(format!(
        "removed {} temporary file(s) that killed writers left in {}: {}{more}",
        removed.len(),
        super::layout::display_path(dir),
        super::layout::display_path(first),
    ))
}

fn remove_stale_in(dir: &Path, deep: bool) -> io::Result<Vec<PathBuf>> {
    let mut removed = Vec::new();
    let read = match fs::read_dir(dir) {
        Ok(read) => read,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(removed),
        Err(e) => return Err(e),
    };
    for entry in read {
        let entry = entry?;
        let path = entry.path();
        let kind = entry.file_type()?;
        if kind.is_dir() {
            if deep {
                removed.extend(remove_stale_in(&path, deep)?);
            }
            continue;
        }
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(writer_of) else {
            continue;
        };
        // One that cannot be removed (another run removed it first, or it
        // is not ours to remove) is left: it is no reason to stop a run.
        if is_stale(&path, pid) && fs::remove_file(&path).is_ok() {
            removed.push(path);
        }
    }
    removed.sort();
    Ok(removed)
}

/// The process id in the name of a temporary file carve wrote:
/// `.<name>.<pid>.<random>.tmp`, or `.<name>.<pid>.tmp` as earlier
/// versions wrote it.
fn writer_of(file_name: &str) -> Option<u32> {
    let stem = file_name.strip_prefix('.')?.strip_suffix(TMP_SUFFIX)?;
    let mut parts = stem.rsplit('.');
    let last = parts.next()?;
    let pid = match last.parse() {
        Ok(pid) => pid,
        Err(_) => parts.next()?.parse().ok()?,
    };
    // The name itself comes before: `.<pid>.tmp` alone is not carve's.
    parts.next().filter(|rest| !rest.is_empty())?;
    Some(pid)
}

/// Whether the temporary file at `path`, written by process `pid`, is no
/// write in progress: its writer is gone (a reused id keeps the file until
/// a later run: harmless).
fn is_stale(path: &Path, pid: u32) -> bool {
    if pid == std::process::id() {
        return false;
    }
    #[cfg(unix)]
    {
        let _ = path;
        let Ok(pid) = libc::pid_t::try_from(pid) else {
            return true;
        };
        // SAFETY: signal 0 only checks that the process exists.
        if unsafe { libc::kill(pid, 0) } == 0 {
            return false;
        }
        // EPERM: it exists, owned by another user.
        io::Error::last_os_error().raw_os_error() != Some(libc::EPERM)
    }
    #[cfg(not(unix))]
    {
        // No cheap check of the writer: a file untouched for ten minutes
        // is no write in progress.
        let _ = pid;
        fs::metadata(path)
            .and_then(|m| m.modified())
            .ok()
            .and_then(|at| at.elapsed().ok())
            .is_some_and(|age| age > std::time::Duration::from_secs(600))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writer_ids_are_read_from_both_name_forms() {
        assert_eq!(writer_of(".withdraw.ron.4242.tmp"), Some(4242));
        assert_eq!(writer_of(".withdraw.ron.4242.aB3xY9.tmp"), Some(4242));
        assert_eq!(writer_of(".0001.snap.77.Zz1234.tmp"), Some(77));
        assert_eq!(writer_of("withdraw.ron"), None);
        assert_eq!(writer_of(".4242.tmp"), None);
        assert_eq!(writer_of(".notes.tmp"), None);
    }

    #[test]
    fn writes_leave_nothing_beside_the_file_and_stale_files_go() {
        let dir = std::env::temp_dir().join(format!("carve-atomic-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        let path = dir.join("a/f.ron");
        write_atomic(&path, b"x").unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "x");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let plain = dir.join("plain");
            fs::File::create(&plain).unwrap();
            let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode(&path), mode(&plain), "as File::create makes them");
            fs::remove_file(plain).unwrap();
        }
        assert_eq!(fs::read_dir(dir.join("a")).unwrap().count(), 1);
        // A dead writer's file (no process has id u32::MAX - 1) and a live one's.
        let dead = dir.join(format!("a/.f.ron.{}.tmp", u32::MAX - 1));
        let live = dir.join(format!(".g.ron.{}.q1w2e3.tmp", std::process::id()));
        fs::write(&dead, "torn").unwrap();
        fs::write(&live, "being written").unwrap();
        assert_eq!(remove_stale_temporaries(&dir).unwrap(), vec![dead.clone()]);
        assert!(!dead.exists() && live.exists());
        fs::remove_dir_all(dir).unwrap();
    }

    /// The message of a failed write is the OS error, for the caller to
    /// name the file: not the random name of the temporary file.
    #[cfg(unix)]
    #[test]
    fn a_failed_write_says_only_the_os_error() {
        let dir = std::env::temp_dir().join(format!("carve-atomic-err-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        // A file where the temporary folder would be: no file goes in it.
        let blocked = dir.join("blocked");
        fs::write(&blocked, "").unwrap();
        let e = write_in(&blocked, "f.ron", &dir.join("f.ron"), b"x", false).unwrap_err();
        assert_eq!(e.to_string(), "Not a directory (os error 20)");
        fs::remove_dir_all(dir).unwrap();
    }
}
