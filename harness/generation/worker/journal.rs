//! What lets a restarted worker retrace its predecessors' path exactly,
//! without running their calls again: the **journal** of the calls made so
//! far, the **crash list** of the calls that took a worker down (sent in
//! the worker's [`super::protocol::WorkerSetup`]), and the
//! **call marker** that tells the parent which call a worker was in when it
//! died.
//!
//! Generation is deterministic given the results of its calls, so a worker
//! that answers each call from the journal (its result and the branch
//! outcomes it reached) and each crashing call from the crash list makes
//! the same decisions as the workers before it, in every phase, and then
//! goes on where they stopped. Each entry carries a hash of the call's
//! arguments: an entry that does not match the call being made (the path
//! changed: a time budget decides by the clock) ends the replay there, and
//! the journal is cut at that point.
//!
//! The journal is written through a buffer: a crash loses its last entries,
//! which the next worker then runs again (they did not crash). Entries are
//! length-prefixed, so a torn last entry is ignored.

use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::coverage::Trace;
use crate::generation::generate::{Executed, NotRun};
use crate::outcome::{Failure, Observation, Outcome};
use crate::value::Value;

use crate::registry::{SiteNumbers, Sites};

/// The files a target's workers share, in a folder of their own that is
/// removed when generation for the target ends.
#[derive(Debug)]
pub struct Scratch {
    dir: PathBuf,
}

impl Scratch {
    /// A new, empty scratch folder for generating calls of `target`.
    pub fn create(target: &str) -> io::Result<Scratch> {
        use std::sync::atomic::{AtomicU64, Ordering};
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let name: String = target
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        let dir = std::env::temp_dir().join(format!(
            "carve-{}-{}-{name}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir)?;
        Ok(Scratch { dir })
    }

    /// The folder, for a worker to find the files in.
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.dir);
    }
}

fn journal_path(dir: &Path) -> PathBuf {
    dir.join("journal")
}

fn marker_path(dir: &Path) -> PathBuf {
    dir.join("marker")
}

/// A call that took a worker down (the parent sends the list of them in
/// each worker's setup).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Crash {
    /// The hash of its arguments.
    pub hash: u64,
    /// Its kind and place: failures are told apart by it (sent as the
    /// text a found entry's `at` holds).
    pub at: Failure,
    /// What happened, for the `Crashed("…")` outcome.
    pub message: String,
}

/// One call as the journal keeps it.
#[derive(Debug, Clone, PartialEq)]
enum Entry {
    NotRun(NotRun),
    Ran {
        trace: Trace,
        failure: Option<Failure>,
        fingerprint: u64,
        edges: Vec<u32>,
    },
}

/// The journal of a run's calls: read back by a restarted worker, then
/// written on from where the replay ends.
pub struct Journal {
    /// Entries to replay, with their argument hashes, in call order.
    replay: Vec<(u64, Entry)>,
    /// The next entry to replay.
    next: usize,
    /// Where each replayable entry starts in the file, and where the last ends.
    offsets: Vec<u64>,
    out: Option<BufWriter<File>>,
    path: PathBuf,
    numbers: Numbers,
    /// The entry being written, its room kept for the next.
    body: Vec<u8>,
}

impl Journal {
    /// Opens the journal in the scratch folder `dir`: what earlier workers
    /// wrote is replayed first.
    pub fn open(dir: &Path) -> io::Result<Journal> {
        let path = journal_path(dir);
        let bytes = match fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(e),
        };
        let sites = SiteNumbers::new();
        let (mut replay, mut offsets) = (Vec::new(), vec![0]);
        let mut at = 0usize;
        while let Some(len) = bytes
            .get(at..at + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
        {
            let Some(body) = bytes.get(at + 4..at + 4 + len) else {
                break;
            };
            let Some(entry) = decode(body, &sites) else {
                break;
            };
            replay.push(entry);
            at += 4 + len;
            offsets.push(at as u64);
        }
        Ok(Journal {
            replay,
            next: 0,
            offsets,
            out: None,
            path,
            numbers: Numbers { sites, last: None },
            body: Vec::new(),
        })
    }

    /// The result of the next call, if the journal has it and it was made
    /// with the same arguments (`hash`); otherwise the replay ends here.
    pub fn replay(&mut self, hash: u64) -> Option<Result<Executed, NotRun>> {
        let (recorded, entry) = self.replay.get(self.next)?;
        if *recorded != hash {
            self.replay.truncate(self.next);
            return None;
        }
        self.next += 1;
        Some(match entry {
            Entry::NotRun(why) => Err(*why),
            Entry::Ran {
                trace,
                failure,
                fingerprint,
                edges,
            } => Ok(Executed {
                // Not kept: a replayed call was saved already if it was
                // worth saving; a worker that needs it runs the call again, and
                // strong checks compare the fingerprint, which is kept.
                observation: Observation {
                    outcome: match failure {
                        None => Outcome::Returned(Value::Unit),
                        Some(_) => Outcome::Panicked(String::new()),
                    },
                    after: None,
                },
                trace: trace.clone(),
                failure: failure.clone(),
                fingerprint: *fingerprint,
                edges: edges.clone(),
            }),
        })
    }

    /// Adds a call made now (not replayed) with arguments `hash`.
    pub fn record(&mut self, hash: u64, result: &Result<Executed, NotRun>) -> io::Result<()> {
        // Encoded from the call's own result into a buffer kept from one
        // entry to the next: every execution of a run is recorded, and
        // cloning its trace for an entry was a tenth of what a worker did
        // besides running calls.
        let mut body = std::mem::take(&mut self.body);
        body.clear();
        body.extend_from_slice(&[0; 4]);
        encode(&mut body, hash, result, &mut self.numbers);
        let len = (body.len() - 4) as u32;
        body[..4].copy_from_slice(&len.to_le_bytes());
        let written = self.write(&body);
        self.body = body;
        written
    }

    fn write(&mut self, bytes: &[u8]) -> io::Result<()> {
        let out = match &mut self.out {
            Some(out) => out,
            None => {
                // Written on from the end of what was replayed: the rest
                // belongs to a path this run no longer takes.
                let file = OpenOptions::new()
                    .create(true)
                    .truncate(false)
                    .write(true)
                    .open(&self.path)?;
                file.set_len(self.offsets[self.next])?;
                let mut out = BufWriter::with_capacity(1 << 16, file);
                io::Seek::seek(&mut out, io::SeekFrom::End(0))?;
                self.replay.truncate(self.next);
                self.out.insert(out)
            }
        };
        out.write_all(bytes)
    }

    /// Writes what is buffered.
    pub fn flush(&mut self) -> io::Result<()> {
        match &mut self.out {
            Some(out) => out.flush(),
            None => Ok(()),
        }
    }
}

fn put_varint(out: &mut Vec<u8>, mut n: u64) {
    while n >= 0x80 {
        out.push((n as u8) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

fn get_varint(bytes: &[u8], at: &mut usize) -> Option<u64> {
    let mut n = 0u64;
    for shift in (0..64).step_by(7) {
        let b = *bytes.get(*at)?;
        *at += 1;
        n |= u64::from(b & 0x7f) << shift;
        if b < 0x80 {
            return Some(n);
        }
    }
    None
}

fn put_text(out: &mut Vec<u8>, text: &str) {
    put_varint(out, text.len() as u64);
    out.extend_from_slice(text.as_bytes());
}

fn get_text(bytes: &[u8], at: &mut usize) -> Option<String> {
    let len = get_varint(bytes, at)? as usize;
    let text = bytes.get(*at..*at + len)?;
    *at += len;
    String::from_utf8(text.to_vec()).ok()
}

/// `hash, kind, [location], [trace, edges]`; a trace is its reached outcomes as
/// `(function number, outcome id, distance)`, the distance 0 in one byte;
/// edges are the edge features as deltas (one byte when there are none).
fn encode(out: &mut Vec<u8>, hash: u64, result: &Result<Executed, NotRun>, numbers: &mut Numbers) {
    out.extend_from_slice(&hash.to_le_bytes());
    let executed = match result {
        Err(NotRun::Undeserializable) => return out.push(0),
        Err(NotRun::Uncaptured) => return out.push(1),
        Ok(executed) => executed,
    };
    match &executed.failure {
        None => out.push(2),
        Some(Failure { kind, site: None }) if !kind.is_crash() => out.push(3),
        Some(failure) => {
            out.push(if failure.kind.is_crash() { 5 } else { 4 });
            put_text(out, &failure.to_string());
        }
    }
    out.extend_from_slice(&executed.fingerprint.to_le_bytes());
    let reached = executed.trace.entries();
    put_varint(out, reached.len() as u64);
    for (table, id, distance) in reached {
        put_varint(out, u64::from(numbers.number(table)));
        put_varint(out, u64::from(*id));
        if *distance == 0.0 {
            out.push(0);
        } else {
            out.push(1);
            out.extend_from_slice(&distance.to_bits().to_le_bytes());
        }
    }
    put_varint(out, executed.edges.len() as u64);
    let mut last = 0;
    for &edge in &executed.edges {
        put_varint(out, u64::from(edge - last));
        last = edge;
    }
}

/// The functions' numbers ([`SiteNumbers`]), with the last one asked for
/// kept: a trace's entries come grouped by function, so most entries ask
/// for the one before them.
struct Numbers {
    sites: SiteNumbers,
    last: Option<(&'static Sites, u32)>,
}

impl Numbers {
    /// The number of `table`; `u32::MAX` (which reads back as no function)
    /// for one not registered.
    fn number(&mut self, table: &'static Sites) -> u32 {
        match self.last {
            Some((last, number)) if std::ptr::eq(last, table) => number,
            _ => {
                let number = self.sites.number(table).unwrap_or(u32::MAX);
                self.last = Some((table, number));
                number
            }
        }
    }
}

fn decode(body: &[u8], sites: &SiteNumbers) -> Option<(u64, Entry)> {
    let hash = u64::from_le_bytes(body.get(..8)?.try_into().ok()?);
    let mut at = 9;
    let failure = match *body.get(8)? {
        0 => return Some((hash, Entry::NotRun(NotRun::Undeserializable))),
        1 => return Some((hash, Entry::NotRun(NotRun::Uncaptured))),
        2 => None,
        3 => Some(Failure::panic(None)),
        // Both written as the failure's text, which reads back as it was.
        4 | 5 => Some(Failure::from(get_text(body, &mut at)?.as_str())),
        _ => return None,
    };
    let fingerprint = u64::from_le_bytes(body.get(at..at + 8)?.try_into().ok()?);
    at += 8;
    let count = get_varint(body, &mut at)? as usize;
    let mut reached = Vec::with_capacity(count.min(1 << 16));
    for _ in 0..count {
        let number = get_varint(body, &mut at)? as usize;
        let id = u32::try_from(get_varint(body, &mut at)?).ok()?;
        let tag = *body.get(at)?;
        at += 1;
        let distance = match tag {
            0 => 0.0,
            _ => {
                let bits = u64::from_le_bytes(body.get(at..at + 8)?.try_into().ok()?);
                at += 8;
                f64::from_bits(bits)
            }
        };
        reached.push((sites.sites(u32::try_from(number).ok()?)?, id, distance));
    }
    let count = get_varint(body, &mut at)? as usize;
    let mut edges = Vec::with_capacity(count.min(1 << 16));
    let mut last = 0u32;
    for _ in 0..count {
        last = last.checked_add(u32::try_from(get_varint(body, &mut at)?).ok()?)?;
        edges.push(last);
    }
    Some((
        hash,
        Entry::Ran {
            trace: Trace::from_entries(reached),
            failure,
            fingerprint,
            edges,
        },
    ))
}

/// Which call a worker is in, kept where the parent can read it after the
/// worker died: the number and argument hash of the call that started
/// last, and the number of the call that ended last.
pub struct CallMarker {
    #[cfg(unix)]
    words: *mut std::sync::atomic::AtomicU64,
    #[cfg(not(unix))]
    file: File,
}

// SAFETY: the mapping is only reached through atomics, and lives as long as
// the process (it is never unmapped).
#[cfg(unix)]
unsafe impl Send for CallMarker {}

/// What the call marker said when the worker ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Marked {
    /// The number of the call that started last (0: none).
    pub started: u64,
    /// The hash of its arguments.
    pub hash: u64,
    /// The number of the call that ended last.
    pub ended: u64,
    /// Nonzero while carve's own work around the call ran ([`in_setup`]):
    /// rebuilding its arguments, capturing its state after it.
    pub setup: u64,
    /// Nonzero while the call ran against a mutant ([`CallMarker::mutant`]).
    pub mutant: u64,
}

impl Marked {
    /// The call the worker died in, if it died in one: `(number, hash)`.
    pub fn in_call(&self) -> Option<(u64, u64)> {
        (self.started > self.ended).then_some((self.started, self.hash))
    }

    /// Whether the worker died in carve's own work around the call it was
    /// in, not in the call: one of its arguments did not build.
    pub fn in_setup(&self) -> bool {
        self.in_call().is_some() && self.setup != 0
    }

    /// Whether the call the worker died in ran against a mutant: a mutated
    /// condition that never ends (natord's loops), no failure of the target.
    pub fn in_mutant(&self) -> bool {
        self.in_call().is_some() && self.mutant != 0
    }
}

const MARKER_LEN: usize = 40;

/// The marker's setup word in this worker, once it opened its marker; null
/// elsewhere.
static SETUP_WORD: std::sync::atomic::AtomicPtr<std::sync::atomic::AtomicU64> =
    std::sync::atomic::AtomicPtr::new(std::ptr::null_mut());

/// Runs `f`, carve's own work around a call (rebuilding its arguments from
/// their values, capturing a `&mut` argument's state after it), marked as
/// such in a worker's call marker: a worker that dies there died of an
/// argument that does not build (slab's `Deserialize` of a key near
/// `usize::MAX` fills memory until the timeout), which is no failure of the
/// target. Outside a worker, only `f`.
pub fn in_setup<R>(f: impl FnOnce() -> R) -> R {
    use std::sync::atomic::{AtomicU64, Ordering};
    struct Leave(&'static AtomicU64);
    impl Drop for Leave {
        fn drop(&mut self) {
            self.0.fetch_sub(1, Ordering::Release);
        }
    }
    let word = SETUP_WORD.load(Ordering::Acquire);
    if word.is_null() {
        return f();
    }
    // SAFETY: a word of the marker's mapping, which lives as long as the
    // process (it is never unmapped), reached only through atomics.
    let word: &'static AtomicU64 = unsafe { &*word };
    word.fetch_add(1, Ordering::Release);
    let _leave = Leave(word);
    f()
}

impl CallMarker {
    /// Creates the (zeroed) marker in the scratch folder `dir`, for the
    /// parent, before each worker starts.
    pub fn reset(dir: &Path) -> io::Result<()> {
        fs::write(marker_path(dir), [0u8; MARKER_LEN])
    }

    /// Reads the marker after the worker ended.
    pub fn read(dir: &Path) -> io::Result<Marked> {
        let bytes = fs::read(marker_path(dir))?;
        let word = |i: usize| {
            bytes
                .get(i * 8..i * 8 + 8)
                .and_then(|b| b.try_into().ok())
                .map_or(0, u64::from_le_bytes)
        };
        Ok(Marked {
            started: word(0),
            hash: word(1),
            ended: word(2),
            setup: word(3),
            mutant: word(4),
        })
    }

    /// Opens the marker for the worker to write.
    pub fn open(dir: &Path) -> io::Result<CallMarker> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .open(marker_path(dir))?;
        file.set_len(MARKER_LEN as u64)?;
        #[cfg(unix)]
        {
            use std::os::fd::AsRawFd;
            // SAFETY: a shared mapping of a file of MARKER_LEN bytes that
            // this process keeps for its whole life; written only through
            // atomics (the parent reads the file once the worker is gone).
            let words = unsafe {
                libc::mmap(
                    std::ptr::null_mut(),
                    MARKER_LEN,
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_SHARED,
                    file.as_raw_fd(),
                    0,
                )
            };
            if words == libc::MAP_FAILED {
                return Err(io::Error::last_os_error());
            }
            let words: *mut std::sync::atomic::AtomicU64 = words.cast();
            // SAFETY: word 3 is inside the mapping.
            SETUP_WORD.store(unsafe { words.add(3) }, std::sync::atomic::Ordering::Release);
            Ok(CallMarker { words })
        }
        #[cfg(not(unix))]
        {
            Ok(CallMarker { file })
        }
    }

    fn set(&mut self, word: usize, value: u64) {
        #[cfg(unix)]
        {
            // SAFETY: `word` < 5, inside the mapping; page-aligned start.
            unsafe { &*self.words.add(word) }.store(value, std::sync::atomic::Ordering::Release);
        }
        #[cfg(not(unix))]
        {
            use std::io::Seek;
            let _ = self.file.seek(io::SeekFrom::Start(word as u64 * 8));
            let _ = self.file.write_all(&value.to_le_bytes());
        }
    }

    /// Call `number` with arguments `hash` starts now.
    pub fn started(&mut self, number: u64, hash: u64) {
        self.set(3, 0);
        self.set(1, hash);
        self.set(0, number);
    }

    /// Call `number` ended.
    pub fn ended(&mut self, number: u64) {
        self.set(2, number);
    }

    /// The calls from now on run against a mutant (`true`), or not.
    pub fn mutant(&mut self, on: bool) {
        self.set(4, u64::from(on));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_read_back() {
        for n in [0, 1, 127, 128, 300, u64::from(u32::MAX), u64::MAX] {
            let mut out = Vec::new();
            put_varint(&mut out, n);
            let mut at = 0;
            assert_eq!(get_varint(&out, &mut at), Some(n));
            assert_eq!(at, out.len());
        }
    }

    /// Replays what was written, stops at the first call with other
    /// arguments and goes on from there; a torn last entry is ignored.
    #[test]
    fn a_journal_replays_until_the_path_changes() {
        let scratch = Scratch::create("journal::replay").unwrap();
        let ran = |failure| {
            Ok(Executed {
                observation: Observation {
                    outcome: Outcome::Returned(Value::Unit),
                    after: None,
                },
                trace: Trace::default(),
                failure,
                fingerprint: 7,
                edges: vec![3, 17, 900],
            })
        };
        let mut journal = Journal::open(scratch.dir()).unwrap();
        journal.record(1, &ran(None)).unwrap();
        journal.record(2, &Err(NotRun::Undeserializable)).unwrap();
        journal
            .record(3, &ran(Some(Failure::from("src/lib.rs:9"))))
            .unwrap();
        journal.flush().unwrap();
        drop(journal);
        let path = journal_path(scratch.dir());
        let mut bytes = fs::read(&path).unwrap();
        bytes.extend_from_slice(&[40, 0, 0, 0, 1, 2]);
        fs::write(&path, bytes).unwrap();

        let mut journal = Journal::open(scratch.dir()).unwrap();
        assert!(matches!(
            journal.replay(1),
            Some(Ok(e)) if e.failure.is_none() && e.fingerprint == 7 && e.edges == [3, 17, 900]
        ));
        assert!(matches!(
            journal.replay(2),
            Some(Err(NotRun::Undeserializable))
        ));
        assert!(journal.replay(4).is_none(), "another call: the replay ends");
        assert!(journal.replay(3).is_none());
        journal.record(5, &ran(None)).unwrap();
        journal.flush().unwrap();
        drop(journal);

        let mut journal = Journal::open(scratch.dir()).unwrap();
        assert!(journal.replay(1).is_some());
        assert!(journal.replay(2).is_some());
        assert!(matches!(journal.replay(5), Some(Ok(_))));
        assert!(journal.replay(6).is_none());
    }
}
