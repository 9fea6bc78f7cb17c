//! Where carve files and snapshots live under `carved/`, with names every OS
//! accepts.
//!
//! The modules that read and write those files ([`store`](crate::carving::store),
//! the lock, the replay) build on the two helpers kept here with the paths:
//! [`StoreError`], for any file under `carved/` that cannot be read, parsed,
//! written or moved, and [`display_path`], which names a path in messages.
//!
//! A target's carve file sits in one folder per segment of its path in the
//! crate, and its snapshots in the folder named after it:
//!
//! ```text
//! carved/bank/Account/withdraw.ron          target bank::Account::withdraw
//! carved/bank/Account/withdraw/<id>.snap    its snapshots
//! carved/cgi_decode.ron                     target cgi_decode (crate root)
//! carved/cgi_decode/<id>.snap
//! carved/big/f/0x5e/3a9c….snap              a target with over 1,000 entries
//! ```
//!
//! A target with more than [`SHARD_ABOVE`] entries has its snapshots in
//! 256 shards (`0x00`–`0xff`, by a hash of the snapshot's id),
//! so that no folder holds thousands of files: insta reads a snapshot's
//! whole folder each time it judges a new or changed outcome, and git and
//! file browsers slow down on huge folders. A snapshot found in the other
//! place (a target that just crossed the threshold) is still used, and
//! moved by the next record.
//!
//! Earlier versions of carve stored `carved/<target>.ron` and
//! `carved/<target>@<id>.snap`, with the `::` of the target in the file name,
//! which Windows rejects. [`OldLayout`] finds such files and moves them.
//!
//! ```
//! use std::path::Path;
//! use carve::carving::layout::{carve_file, snapshot_folder, target_of};
//!
//! let dir = Path::new("carved");
//! let file = carve_file(dir, "bank::Account::withdraw");
//! assert_eq!(file, Path::new("carved/bank/Account/withdraw.ron"));
//! assert_eq!(snapshot_folder(dir, "bank::Account::withdraw"), Path::new("carved/bank/Account/withdraw"));
//! assert_eq!(target_of(dir, &file), "bank::Account::withdraw");
//! ```

use std::collections::BTreeMap;
use std::fmt;
use std::fs;
use std::io;
use std::path::{Component, Path, PathBuf};

use crate::call::Position;

/// The file or folder name that stands for one segment of a target's path
/// (`bank`, `Account`, `withdraw`), valid on every OS.
///
/// Segments are Rust identifiers, or the trait of a trait impl's method
/// (`Meters::From<u32>::from`). Windows rejects `<`, `>` and a few more
/// characters in file names: the angle brackets become parentheses, which
/// no identifier holds (`From<u32>` → `From(u32)`), and the others (`:`,
/// `"`, `/`, `\`, `|`, `?`, `*`, control characters) `_`. Windows also
/// rejects its reserved device names: `CON`, `PRN`, `AUX`, `NUL`,
/// `COM0`–`COM9` and `LPT0`–`LPT9` (and `COM¹²³`, `LPT¹²³`), in any case and
/// with any extension (`con.ron` is rejected too). Those get a `_` appended
/// (`con` → `con_`, file `con_.ron`). A raw identifier loses its `r#`
/// (`r#type` → `type`).
///
/// A char literal of a const-generic instantiation (wildmatch's
/// `WildMatchPattern<'*', '?'>`) whose character would be replaced, or that
/// is an escape, is spelled by its code point instead (`'U+002A'`), so
/// that `<'*', '?'>`, `<'_', '_'>` and `<'<', '('>` get names of their own.
///
/// ```
/// use carve::carving::layout::path_segment;
///
/// assert_eq!(path_segment("withdraw"), "withdraw");
/// assert_eq!(path_segment("r#type"), "type");
/// assert_eq!(path_segment("Con"), "Con_");
/// assert_eq!(path_segment("lpt1"), "lpt1_");
/// assert_eq!(path_segment("console"), "console");
/// assert_eq!(path_segment("From<Vec<u8>>"), "From(Vec(u8))");
/// assert_eq!(path_segment("Add<&'static str>"), "Add(&'static str)");
/// assert_eq!(path_segment("Fn<*const u8>"), "Fn(_const u8)");
/// assert_eq!(path_segment("Pattern<'*', '?'>"), "Pattern('U+002A', 'U+003F')");
/// assert_eq!(path_segment("Pattern<'_', '%'>"), "Pattern('_', '%')");
/// ```
pub fn path_segment(segment: &str) -> String {
    let name = segment.strip_prefix("r#").unwrap_or(segment);
    let name: String = spell_char_literals(name)
        .chars()
        .map(|c| match c {
            '<' => '(',
            '>' => ')',
            ':' | '"' | '/' | '\\' | '|' | '?' | '*' => '_',
            c if c.is_control() => '_',
            c => c,
        })
        .collect();
    if is_reserved_on_windows(&name) {
        format!("{name}_")
    } else {
        name
    }
}

/// Whether `c` is a character [`path_segment`] replaces.
fn replaced(c: char) -> bool {
    matches!(c, '<' | '>' | ':' | '"' | '/' | '\\' | '|' | '?' | '*') || c.is_control()
}

/// `segment` with each char literal that holds a character [`path_segment`]
/// replaces, or an escape, spelled by its code point (`'*'` → `'U+002A'`,
/// `'\n'` → `'U+000A'`); lifetimes (`'static`) and other text as they are.
fn spell_char_literals(segment: &str) -> String {
    let chars: Vec<char> = segment.chars().collect();
    let mut out = String::with_capacity(segment.len());
    let mut i = 0;
    while i < chars.len() {
        if let Some((c, len)) = char_literal(&chars[i..]) {
            if chars[i + 1] == '\\' || replaced(c) {
                out.push_str(&format!("'U+{:04X}'", u32::from(c)));
                i += len;
                continue;
            }
        }
        out.push(chars[i]);
        i += 1;
    }
    out
}

/// The char literal `text` starts with (`'a'`, `'\n'`, `'\u{2a}'`) and its
/// length in chars; `None` for anything else (a lifetime, `'static`).
fn char_literal(text: &[char]) -> Option<(char, usize)> {
    let closed = |c: char, len: usize| (text.get(len - 1) == Some(&'\'')).then_some((c, len));
    match text {
        ['\'', '\\', 'u', '{', rest @ ..] => {
            let end = rest.iter().position(|c| *c == '}')?;
            let hex: String = rest[..end].iter().collect();
            let c = char::from_u32(u32::from_str_radix(&hex, 16).ok()?)?;
            closed(c, 4 + end + 2)
        }
        ['\'', '\\', 'x', hi, lo, ..] => {
            let hex: String = [*hi, *lo].iter().collect();
            closed(char::from(u8::from_str_radix(&hex, 16).ok()?), 6)
        }
        ['\'', '\\', e, ..] => {
            let c = match e {
                'n' => '\n',
                'r' => '\r',
                't' => '\t',
                '0' => '\0',
                '\\' | '\'' | '"' => *e,
                _ => return None,
            };
            closed(c, 4)
        }
        ['\'', c, '\'', ..] if *c != '\'' => Some((*c, 3)),
        _ => None,
    }
}

/// Whether Windows reserves `name` for a device.
fn is_reserved_on_windows(name: &str) -> bool {
    let upper = name.to_uppercase();
    match upper.as_str() {
        "CON" | "PRN" | "AUX" | "NUL" => true,
        _ => ["COM", "LPT"].iter().any(|device| {
            upper.strip_prefix(device).is_some_and(|number| {
                let mut chars = number.chars();
                matches!(
                    (chars.next(), chars.next()),
                    (Some('0'..='9' | '¹' | '²' | '³'), None)
                )
            })
        }),
    }
}

/// The folder that holds the snapshots of `target`:
/// `carved/bank/Account/withdraw` for `bank::Account::withdraw`.
pub fn snapshot_folder(dir: &Path, target: &str) -> PathBuf {
    let mut path = dir.to_path_buf();
    path.extend(target.split("::").map(path_segment));
    path
}

/// Above how many entries a target's snapshots are sharded.
pub const SHARD_ABOVE: usize = 1000;

/// The folder that holds the snapshot `name` of a target whose snapshots
/// are in `folder` ([`snapshot_folder`]) and whose carve file has `entries`
/// entries: `folder` itself, or its shard `folder/0x<first two hex digits>`
/// above [`SHARD_ABOVE`] entries. A shard's name starts with a digit, so no
/// target's folder (an identifier) is ever taken for one.
///
/// ```
/// use std::path::Path;
/// use carve::carving::layout::snapshot_shard;
///
/// let folder = Path::new("carved/f");
/// assert_eq!(snapshot_shard(folder, "3a9c0d1e2f40", 12), folder);
/// let shard = snapshot_shard(folder, "3a9c0d1e2f40", 5000);
/// assert_eq!(shard.parent(), Some(folder));
/// assert!(shard.file_name().unwrap().to_str().unwrap().starts_with("0x"));
/// ```
pub fn snapshot_shard(folder: &Path, name: &str, entries: usize) -> PathBuf {
    match entries > SHARD_ABOVE {
        true => folder.join(format!("0x{:02x}", shard_of(name))),
        false => folder.to_path_buf(),
    }
}

/// The shard of the snapshot `name`: its hash mixed so that every bit
/// counts. The ids themselves are FNV hashes, whose top bits barely change
/// between similar arguments (`(n: 17)`, `(n: 18)`): sharding by them left
/// half the shards empty.
fn shard_of(name: &str) -> u8 {
    let mut hash = fnv1a(name.as_bytes());
    // MurmurHash3's finalizer.
    hash ^= hash >> 33;
    hash = hash.wrapping_mul(0xff51_afd7_ed55_8ccd);
    hash ^= hash >> 33;
    hash = hash.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    hash ^= hash >> 33;
    (hash >> 56) as u8
}

/// 64-bit FNV-1a: a hash that is the same in every build, process and
/// platform (the standard library's hashers promise none of these), for
/// names that must not change: snapshot ids, shards, lock files.
pub(crate) fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(*byte)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// Whether `name` is the name of a snapshot shard folder (`0x3a`).
pub fn is_shard_name(name: &str) -> bool {
    name.strip_prefix("0x").is_some_and(|hex| {
        hex.len() == 2 && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
    })
}

/// The carve file of `target`: `carved/bank/Account/withdraw.ron` for
/// `bank::Account::withdraw`.
pub fn carve_file(dir: &Path, target: &str) -> PathBuf {
    let mut path = snapshot_folder(dir, target);
    let name = path
        .file_name()
        .map(|n| format!("{}.ron", n.to_string_lossy()))
        .unwrap_or_else(|| ".ron".to_owned());
    path.set_file_name(name);
    path
}

/// The target a carve file's path spells (`carved/bank/Account/withdraw.ron`
/// → `bank::Account::withdraw`). Only for naming a file that cannot be read:
/// the name of a target is the `target:` its file holds, and a target whose
/// segments [`path_segment`] changed is not spelled back.
pub fn target_of(dir: &Path, path: &Path) -> String {
    let relative = path.strip_prefix(dir).unwrap_or(path);
    let segments: Vec<String> = relative
        .components()
        .filter_map(|c| match c {
            Component::Normal(name) => Some(name.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect();
    let mut name = segments.join("::");
    if let Some(stem) = name.strip_suffix(".ron") {
        name.truncate(stem.len());
    }
    name
}

/// Whether `stem` is the name carve gives a snapshot file, without
/// `.snap`: 12 hex digits, and a `-<n>` suffix for repeated arguments.
pub fn is_snapshot_name(stem: &str) -> bool {
    let (id, repeat) = match stem.split_once('-') {
        Some((id, n)) => (id, Some(n)),
        None => (stem, None),
    };
    id.len() == 12
        && id.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
        && repeat.is_none_or(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// Every `.ron` file under `dir`, at any depth, sorted by the target their
/// path spells (then by path); none when `dir` does not exist.
pub fn list_carve_files(dir: &Path) -> Result<Vec<PathBuf>, StoreError> {
    let mut paths = Vec::new();
    match collect_carve_files(dir, &mut paths) {
        Err((path, e)) if path == dir && e.kind() == io::ErrorKind::NotFound => {
            return Ok(Vec::new())
        }
        Err((path, e)) => return Err(StoreError::io(&path, e)),
        Ok(()) => {}
    }
    paths.sort_by_cached_key(|p| (target_of(dir, p), p.clone()));
    Ok(paths)
}

fn collect_carve_files(dir: &Path, paths: &mut Vec<PathBuf>) -> Result<(), (PathBuf, io::Error)> {
    let fail = |e| (dir.to_path_buf(), e);
    for item in fs::read_dir(dir).map_err(fail)? {
        let item = item.map_err(fail)?;
        let path = item.path();
        // Not followed: a symbolic link to a folder could loop.
        if item.file_type().map_err(fail)?.is_dir() {
            collect_carve_files(&path, paths)?;
        } else if path.extension().is_some_and(|e| e == "ron") && path.is_file() {
            paths.push(path);
        }
    }
    Ok(())
}

/// Removes `folder` and then each parent up to (not including) `dir`, as
/// long as they are empty: a removed carve file or snapshot leaves no empty
/// folders behind. Never removes anything that is not an empty folder.
pub fn remove_empty_folders(dir: &Path, folder: &Path) {
    let mut current = folder;
    while current != dir && current.starts_with(dir) && fs::remove_dir(current).is_ok() {
        match current.parent() {
            Some(parent) => current = parent,
            None => break,
        }
    }
}

/// The files of one target in the old layout (`carved/a::b.ron`,
/// `carved/a::b@<id>.snap`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OldFiles {
    /// Its carve file, when its old name differs from its new one (a target
    /// at the crate root, `carved/f.ron`, already has its new name).
    pub carve_file: Option<PathBuf>,
    /// Its snapshots (`.snap` and pending `.snap.new`), each with the file
    /// name it gets in the target's snapshot folder.
    pub snapshots: Vec<(PathBuf, String)>,
}

/// Files left in `carved/` by earlier versions of carve, by target.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OldLayout {
    /// The folder they are in.
    pub dir: PathBuf,
    /// Each target's old files.
    pub targets: BTreeMap<String, OldFiles>,
}

/// One target's files moved to the new layout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Moved {
    /// The target.
    pub target: String,
    /// Its carve file: where it was and where it is now.
    pub carve_file: Option<(PathBuf, PathBuf)>,
    /// Snapshots moved (`.snap`).
    pub snapshots: usize,
    /// Pending snapshots moved (`.snap.new`, for `cargo insta review`).
    pub pending: usize,
    /// The folder the snapshots went to.
    pub snapshot_folder: PathBuf,
}

impl fmt::Display for Moved {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut what = Vec::new();
        if let Some((from, _)) = &self.carve_file {
            what.push(display_path(from).to_string());
        }
        what.push(format!("{} snapshot(s)", self.snapshots));
        if self.pending > 0 {
            what.push(format!("{} pending snapshot(s)", self.pending));
        }
        let last = what.pop().unwrap_or_default();
        let what = match what.is_empty() {
            true => last,
            false => format!("{} and {last}", what.join(", ")),
        };
        match &self.carve_file {
            Some((_, to)) => write!(f, "moved {what} to {}", display_path(to))?,
            None => write!(
                f,
                "moved {what} of {} to {}/",
                self.target,
                display_path(&self.snapshot_folder)
            )?,
        }
        f.write_str(" (portable file names)")
    }
}

impl OldLayout {
    /// Finds the files of the old layout directly in `dir`: carve files whose
    /// name holds `::`, and snapshots named `<target>@<id>.snap` (or
    /// `.snap.new`). None when `dir` does not exist.
    pub fn find(dir: &Path) -> Result<OldLayout, StoreError> {
        let mut layout = OldLayout {
            dir: dir.to_path_buf(),
            targets: BTreeMap::new(),
        };
        let read = match fs::read_dir(dir) {
            Ok(read) => read,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(layout),
            Err(e) => return Err(StoreError::io(dir, e)),
        };
        for item in read {
            let path = item.map_err(|e| StoreError::io(dir, e))?.path();
            let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
                continue;
            };
            if !path.is_file() {
                continue;
            }
            if let Some(target) = name.strip_suffix(".ron").filter(|t| t.contains("::")) {
                let files = layout.targets.entry(target.to_owned()).or_default();
                files.carve_file = Some(path.clone());
            } else if let Some((target, snapshot)) = old_snapshot(name) {
                let files = layout.targets.entry(target.to_owned()).or_default();
                files.snapshots.push((path.clone(), snapshot.to_owned()));
            }
        }
        for files in layout.targets.values_mut() {
            files.snapshots.sort();
        }
        Ok(layout)
    }

    /// Whether no file is in the old layout.
    pub fn is_empty(&self) -> bool {
        self.targets.is_empty()
    }

    /// Every old file, sorted.
    pub fn files(&self) -> Vec<&Path> {
        let mut files: Vec<&Path> = self
            .targets
            .values()
            .flat_map(|f| {
                f.carve_file
                    .iter()
                    .map(PathBuf::as_path)
                    .chain(f.snapshots.iter().map(|(p, _)| p.as_path()))
            })
            .collect();
        files.sort();
        files
    }

    /// Moves every old file to its new place (a rename, so version control
    /// sees a move). A file whose new place is taken is left where it is,
    /// with an error; the others are still moved.
    pub fn migrate(&self) -> (Vec<Moved>, Vec<StoreError>) {
        let mut moved = Vec::new();
        let mut errors = Vec::new();
        for (target, files) in &self.targets {
            let folder = snapshot_folder(&self.dir, target);
            let mut done = Moved {
                target: target.clone(),
                carve_file: None,
                snapshots: 0,
                pending: 0,
                snapshot_folder: folder.clone(),
            };
            if let Some(from) = &files.carve_file {
                let to = carve_file(&self.dir, target);
                match move_file(from, &to) {
                    Ok(()) => done.carve_file = Some((from.clone(), to)),
                    Err(e) => errors.push(e),
                }
            }
            for (from, name) in &files.snapshots {
                match move_file(from, &folder.join(name)) {
                    Ok(()) if name.ends_with(".new") => done.pending += 1,
                    Ok(()) => done.snapshots += 1,
                    Err(e) => errors.push(e),
                }
            }
            if done.carve_file.is_some() || done.snapshots + done.pending > 0 {
                moved.push(done);
            }
        }
        (moved, errors)
    }

    /// Why `cargo test` does not replay the targets in the old layout, and
    /// how to move them.
    pub fn replay_message(&self) -> String {
        let files = self.files();
        let example = files
            .first()
            .map(|p| display_path(p).to_string())
            .unwrap_or_default();
        const SHOWN: usize = 5;
        let mut targets: Vec<&str> = self
            .targets
            .keys()
            .take(SHOWN)
            .map(String::as_str)
            .collect();
        let more = format!("and {} more", self.targets.len().saturating_sub(SHOWN));
        if self.targets.len() > SHOWN {
            targets.push(&more);
        }
        let target = self.targets.keys().next().map_or("", String::as_str);
        format!(
            "{}: {} file(s) are in the old layout of carve, with `::` or `@` in their names \
             (which Windows rejects), e.g. `{example}`; the calls of {} target(s) ({}) are not \
             replayed. Run `CARVE=record cargo test` once to move them to portable names \
             (e.g. `{}`, with its snapshots in `{}/`), then commit the move.",
            display_path(&self.dir),
            files.len(),
            self.targets.len(),
            targets.join(", "),
            display_path(&carve_file(&self.dir, target)),
            display_path(&snapshot_folder(&self.dir, target)),
        )
    }
}

/// `(target, new file name)` of an old snapshot file name
/// (`a::b@0123456789ab.snap` → `("a::b", "0123456789ab.snap")`).
fn old_snapshot(name: &str) -> Option<(&str, &str)> {
    let (target, snapshot) = name.rsplit_once('@')?;
    let stem = snapshot
        .strip_suffix(".snap.new")
        .or_else(|| snapshot.strip_suffix(".snap"))?;
    (!target.is_empty() && is_snapshot_name(stem)).then_some((target, snapshot))
}

/// Renames `from` to `to`, creating `to`'s folder; never replaces a file.
fn move_file(from: &Path, to: &Path) -> Result<(), StoreError> {
    if to.exists() {
        return Err(StoreError::MoveBlocked {
            from: from.to_owned(),
            to: to.to_owned(),
        });
    }
    if let Some(parent) = to.parent() {
        fs::create_dir_all(parent).map_err(|e| StoreError::io(parent, e))?;
    }
    fs::rename(from, to).map_err(|e| StoreError::io(from, e))
}

// Paths in messages are shown as the environment (the working directory)
// makes them shortest.
pub use crate::env::display_path;

/// A carve file that could not be read, parsed or written.
#[derive(Debug)]
pub enum StoreError {
    /// Reading or writing failed.
    Io {
        path: PathBuf,
        error: io::Error,
    },
    /// The file is not valid RON, or not shaped like a carve file.
    Syntax {
        path: PathBuf,
        /// Where the parser stopped.
        position: Position,
        /// What it found.
        message: String,
    },
    /// The file's `target:` does not match where it is.
    TargetMismatch {
        path: PathBuf,
        /// The target named inside.
        found: String,
        /// Where that target's carve file is.
        expected: PathBuf,
    },
    /// A file of the old layout could not be moved: its new place is taken.
    MoveBlocked {
        /// The file in the old layout.
        from: PathBuf,
        /// Where it would go.
        to: PathBuf,
    },
}

impl StoreError {
    /// An I/O error on `path`.
    pub fn io(path: &Path, error: io::Error) -> StoreError {
        StoreError::Io {
            path: path.to_owned(),
            error,
        }
    }

}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreError::Io { path, error } => write!(f, "{}: {error}", display_path(path)),
            StoreError::Syntax {
                path,
                position,
                message,
            } => write!(
                f,
                "{}:{position}: this carve file does not parse: {message}. Fix it by hand \
                 (see any other file in the same folder for the shape), or delete it and \
                 re-record with `CARVE=record cargo test`.",
                display_path(path)
            ),
            StoreError::TargetMismatch {
                path,
                found,
                expected,
            } => write!(
                f,
                "{}: holds target `{found}`, whose carve file is {}: move the file there \
                 (and its snapshot folder beside it), or fix its `target:`.",
                display_path(path),
                display_path(expected)
            ),
            StoreError::MoveBlocked { from, to } => write!(
                f,
                "{}: not moved to {}, which exists already (both layouts hold this target): \
                 keep one of the two files, delete the other, and re-record with \
                 `CARVE=record cargo test`.",
                display_path(from),
                display_path(to)
            ),
        }
    }
}

impl std::error::Error for StoreError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            StoreError::Io { error, .. } => Some(error),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh, empty folder for one test.
    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("carve-layout-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn touch(dir: &Path, path: &str, text: &str) {
        let path = dir.join(path);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    /// Every file under `dir`, relative, with `/` between segments.
    fn tree(dir: &Path) -> Vec<String> {
        fn walk(dir: &Path, root: &Path, out: &mut Vec<String>) {
            for item in fs::read_dir(dir).unwrap() {
                let path = item.unwrap().path();
                if path.is_dir() {
                    walk(&path, root, out);
                } else {
                    let relative = path.strip_prefix(root).unwrap();
                    let parts: Vec<_> = relative
                        .components()
                        .map(|c| c.as_os_str().to_string_lossy().into_owned())
                        .collect();
                    out.push(parts.join("/"));
                }
            }
        }
        let mut out = Vec::new();
        walk(dir, dir, &mut out);
        out.sort();
        out
    }

    #[test]
    fn segments_are_valid_file_names_everywhere() {
        assert_eq!(path_segment("cgi_decode"), "cgi_decode");
        assert_eq!(path_segment("r#fn"), "fn");
        for reserved in ["CON", "con", "Prn", "aux", "NUL", "com1", "COM9", "lpt5", "LPT0"] {
            assert_eq!(path_segment(reserved), format!("{reserved}_"), "{reserved}");
        }
        assert_eq!(path_segment("r#con"), "con_");
        // Const-generic char literals (wildmatch 2.4.0's
        // `WildMatchPattern<'*', '?'>`) each get a name of their own.
        let names: Vec<String> = [
            "P<'*', '?'>",
            "P<'_', '_'>",
            "P<'?', '*'>",
            "P<'<', '('>",
            "P<'(', '<'>",
            "P<'\\\\', '/'>",
            "P<'\\n', '\\u{a}'>",
            "P<'\\'', '\"'>",
        ]
        .iter()
        .map(|s| path_segment(s))
        .collect();
        assert_eq!(
            names,
            [
                "P('U+002A', 'U+003F')",
                "P('_', '_')",
                "P('U+003F', 'U+002A')",
                "P('U+003C', '(')",
                "P('(', 'U+003C')",
                "P('U+005C', 'U+002F')",
                "P('U+000A', 'U+000A')",
                "P('U+0027', 'U+0022')",
            ]
        );
        // Lifetimes and pointers as before.
        assert_eq!(path_segment("Add<&'static str>"), "Add(&'static str)");
        assert_eq!(path_segment("Pair<'a, 'b>"), "Pair('a, 'b)");
        for fine in ["COM", "com10", "lpt", "cons", "null", "auxiliary", "COMa", "Account"] {
            assert_eq!(path_segment(fine), fine, "{fine}");
        }
    }

    #[test]
    fn a_target_has_one_folder_per_segment() {
        let dir = Path::new("carved");
        assert_eq!(
            carve_file(dir, "bank::Account::withdraw"),
            Path::new("carved/bank/Account/withdraw.ron")
        );
        assert_eq!(carve_file(dir, "cgi_decode"), Path::new("carved/cgi_decode.ron"));
        assert_eq!(snapshot_folder(dir, "cgi_decode"), Path::new("carved/cgi_decode"));
        assert_eq!(
            carve_file(dir, "r#type::nul::get"),
            Path::new("carved/type/nul_/get.ron")
        );
    }

    #[test]
    fn paths_spell_their_target_back() {
        let dir = Path::new("/x/carved");
        for target in ["cgi_decode", "bank::Account::withdraw", "a::b::c::d"] {
            assert_eq!(target_of(dir, &carve_file(dir, target)), target);
        }
        // Changed segments are spelled as they are in the path.
        assert_eq!(target_of(dir, &carve_file(dir, "r#type::con")), "type::con_");
    }

    #[test]
    fn snapshot_names_are_ids_with_an_optional_repeat() {
        assert!(is_snapshot_name("0123456789ab"));
        assert!(is_snapshot_name("0123456789ab-2"));
        assert!(!is_snapshot_name("0123456789ab-"));
        assert!(!is_snapshot_name("0123456789AB"));
        assert!(!is_snapshot_name("0123456789a"));
        assert!(!is_snapshot_name("notes"));
        assert!(!is_snapshot_name("0123456789ab-x"));
    }

    #[test]
    fn listing_finds_carve_files_in_nested_folders_in_target_order() {
        let dir = scratch("list");
        for path in [
            "bank/Account/withdraw.ron",
            "bank/Account/withdraw/0123456789ab.snap",
            "bank/Account/open.ron",
            "cgi_decode.ron",
            "cgi_decode/0123456789ab.snap",
            "a.ron",
            "a/b.ron",
            "notes.txt",
        ] {
            touch(&dir, path, "");
        }
        let listed: Vec<String> = list_carve_files(&dir)
            .unwrap()
            .iter()
            .map(|p| target_of(&dir, p))
            .collect();
        assert_eq!(
            listed,
            ["a", "a::b", "bank::Account::open", "bank::Account::withdraw", "cgi_decode"]
        );
        assert!(list_carve_files(&dir.join("missing")).unwrap().is_empty());
        fs::remove_dir_all(dir).unwrap();
    }

    // Old names hold `:`, which Windows rejects.
    #[cfg(not(windows))]
    #[test]
    fn old_files_move_to_the_new_layout() {
        let dir = scratch("migrate");
        for (path, text) in [
            ("bank::Account::withdraw.ron", "withdraw"),
            ("bank::Account::withdraw@0123456789ab.snap", "w1"),
            ("bank::Account::withdraw@0123456789ab-2.snap", "w2"),
            ("bank::Account::withdraw@ba9876543210.snap.new", "w3"),
            ("cgi_decode.ron", "decode"),
            ("cgi_decode@aaaaaaaaaaaa.snap", "d1"),
            ("url::parse@bbbbbbbbbbbb.snap", "orphan"),
            ("keep@me.snap", "not carve's"),
            ("notes.txt", "mine"),
        ] {
            touch(&dir, path, text);
        }
        let old = OldLayout::find(&dir).unwrap();
        assert_eq!(
            old.targets.keys().collect::<Vec<_>>(),
            ["bank::Account::withdraw", "cgi_decode", "url::parse"]
        );
        assert_eq!(old.files().len(), 6);
        let (moved, errors) = old.migrate();
        assert!(errors.is_empty(), "{errors:?}");
        let lines: Vec<String> = moved
            .iter()
            .map(|m| m.to_string().replace(&dir.display().to_string(), "[dir]"))
            .collect();
        assert_eq!(
            lines,
            [
                "moved [dir]/bank::Account::withdraw.ron, 2 snapshot(s) and 1 pending \
                 snapshot(s) to [dir]/bank/Account/withdraw.ron (portable file names)",
                "moved 1 snapshot(s) of cgi_decode to [dir]/cgi_decode/ (portable file names)",
                "moved 1 snapshot(s) of url::parse to [dir]/url/parse/ (portable file names)",
            ]
        );
        assert_eq!(
            tree(&dir),
            [
                "bank/Account/withdraw.ron",
                "bank/Account/withdraw/0123456789ab-2.snap",
                "bank/Account/withdraw/0123456789ab.snap",
                "bank/Account/withdraw/ba9876543210.snap.new",
                "cgi_decode.ron",
                "cgi_decode/aaaaaaaaaaaa.snap",
                "keep@me.snap",
                "notes.txt",
                "url/parse/bbbbbbbbbbbb.snap",
            ]
        );
        assert_eq!(
            fs::read_to_string(dir.join("bank/Account/withdraw/0123456789ab-2.snap")).unwrap(),
            "w2"
        );
        assert!(OldLayout::find(&dir).unwrap().is_empty(), "moved once");
        fs::remove_dir_all(dir).unwrap();
    }

    #[cfg(not(windows))]
    #[test]
    fn a_move_never_replaces_a_file() {
        let dir = scratch("blocked");
        touch(&dir, "a::b.ron", "old");
        touch(&dir, "a/b.ron", "new");
        touch(&dir, "a::b@0123456789ab.snap", "snap");
        let (moved, errors) = OldLayout::find(&dir).unwrap().migrate();
        assert_eq!(errors.len(), 1);
        assert!(matches!(errors[0], StoreError::MoveBlocked { .. }));
        assert_eq!(moved.len(), 1, "the snapshot still moves");
        assert_eq!(fs::read_to_string(dir.join("a/b.ron")).unwrap(), "new");
        assert_eq!(fs::read_to_string(dir.join("a::b.ron")).unwrap(), "old");
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn only_empty_folders_are_removed() {
        let dir = scratch("prune");
        touch(&dir, "a/keep.ron", "");
        fs::create_dir_all(dir.join("a/b/c")).unwrap();
        remove_empty_folders(&dir, &dir.join("a/b/c"));
        assert!(!dir.join("a/b").exists());
        assert!(dir.join("a/keep.ron").exists());
        remove_empty_folders(&dir, &dir);
        assert!(dir.exists());
        fs::remove_dir_all(dir).unwrap();
    }
}
