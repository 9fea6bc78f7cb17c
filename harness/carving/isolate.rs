//! Recording each system test in a process of its own, so that one test
//! that calls `exit()`, aborts or overflows its stack cannot stop the others
//! from being carved, and a test that fails keeps its carve entries as they
//! were.
//!
//! In record mode every `system::<fn>` trial re-executes the test binary
//! with `CARVE_RECORD_TEST=<fn>` and `CARVE_RECORD_OUT=<file>`. That child
//! runs just this system test under the recorder ([`record`]) and writes
//! what it carved to `<file>`, its entries per target called ([`Carved`]),
//! each call's texts rendered once, as the carve file will hold them
//! ([`WireEntry`]); the parent reads the file once and stores the texts as
//! they came. A child that dies writes nothing: the parent then knows only
//! how it ended ([`TestRun::Crashed`]).
//!
//! Each child holds one system test, so every call it makes, on any thread,
//! is that test's: tests may record in parallel and still carve the same
//! files on every run.
//!
//! A test still running after a while (60 s, [`SLOW_TEST_WARNING`]) is
//! named once, as libtest names a slow test: a hang is not silent.
//!
//! [`SLOW_TEST_WARNING`]: crate::env::SLOW_TEST_WARNING

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::carving::record;
use crate::carving::layout::display_path;
use crate::carving::store::{write_atomic, Entry, EntryError};
use crate::carving::wire::WireEntry;
use crate::env::role::{self, RECORD_OUT_VAR as OUT_VAR};
use crate::outcome::describe_exit;

pub use crate::env::role::RECORD_TEST_VAR as TEST_VAR;

/// What a child sends back: whether its test passed, and what it carved.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Carved {
    /// Why the system test failed (libtest's message), if it did.
    failure: Option<String>,
    /// `(target, entries)` of each target the test called.
    calls: Vec<(String, Vec<WireEntry>)>,
    /// Why calls that could not be written were left out.
    unwritable: Vec<String>,
    /// Calls not carved because a value of theirs does not rebuild.
    #[serde(default)]
    skipped: Vec<record::Skipped>,
    /// Calls of generic targets at instantiations their attribute does not list.
    #[serde(default)]
    unlisted: Vec<record::Unlisted>,
}

/// How recording one system test in its own process went.
#[derive(Debug)]
pub enum TestRun {
    /// The test passed; these are the entries it carved, per target, why
    /// calls that could not be written were left out, and the calls not
    /// carved because a value of theirs does not rebuild.
    Passed {
        entries: BTreeMap<String, Vec<Entry>>,
        unwritable: Vec<String>,
        skipped: Vec<record::Skipped>,
        unlisted: Vec<record::Unlisted>,
    },
    /// The test failed with this message; what it carved is not used.
    Failed(String),
    /// The test took its process down (exit, abort, signal), as described.
    Crashed(String),
}

impl TestRun {
    /// The test's result as libtest reports it.
    pub fn verdict(&self) -> Result<(), String> {
        match self {
            TestRun::Passed { .. } => Ok(()),
            TestRun::Failed(message) => Err(message.clone()),
            TestRun::Crashed(how) => Err(format!(
                "the system test ended its process: {how}. It was recorded in a process of \
                 its own, so the other tests were still carved"
            )),
        }
    }
}

/// Records system test `test` in a new process of `exe` (this test binary)
/// and reads back what it carved. Says so once if the test runs longer
/// than `slow`.
pub fn record_in_child(
    exe: &Path,
    test: &str,
    slow: Duration,
) -> Result<TestRun, String> {
    static RUNS: AtomicUsize = AtomicUsize::new(0);
    let out = std::env::temp_dir().join(format!(
        "carve-record-{}-{}.ron",
        std::process::id(),
        RUNS.fetch_add(1, Ordering::Relaxed)
    ));
    let started = Command::new(exe)
        .env(TEST_VAR, test)
        .env(OUT_VAR, &out)
        .stdin(Stdio::null())
        .spawn();
    let status = started
        .and_then(|mut child| wait_naming_slow(&mut child, test, slow))
        .map_err(|e| format!("could not run {} to record it: {e}", exe.display()))?;
    let text = fs::read_to_string(&out);
    let _ = fs::remove_file(&out);
    let text = match text {
        Ok(text) if status.success() => text,
        _ => return Ok(TestRun::Crashed(describe_exit(status))),
    };
    let carved: Carved = ron::from_str(&text)
        .map_err(|e| format!("the recording of `{test}` could not be read back: {e}"))?;
    if let Some(failure) = carved.failure {
        return Ok(TestRun::Failed(failure));
    }
    let mut entries = BTreeMap::new();
    for (target, wired) in carved.calls {
        let read: Result<Vec<Entry>, String> =
            wired.into_iter().map(WireEntry::into_entry).collect();
        let read =
            read.map_err(|e| format!("the recording of `{test}` could not be read back: {e}"))?;
        entries.insert(target, read);
    }
    Ok(TestRun::Passed {
        entries,
        unwritable: carved.unwritable,
        skipped: carved.skipped,
        unlisted: carved.unlisted,
    })
}

/// Waits for `child`, recording system test `test`, and says once that it
/// is still running if it runs longer than `slow`.
fn wait_naming_slow(child: &mut Child, test: &str, slow: Duration) -> std::io::Result<ExitStatus> {
    let (done, finished) = mpsc::channel::<()>();
    thread::scope(|scope| {
        scope.spawn(move || {
            // Woken by the end of the wait (`done` dropped) or by the time.
            if finished.recv_timeout(slow) == Err(RecvTimeoutError::Timeout) {
                println!(
                    "carve: system test `{test}` has been running for over {} seconds",
                    slow.as_secs()
                );
            }
        });
        let status = child.wait();
        drop(done);
        status
    })
}

/// The child's side, when [`TEST_VAR`] is set: runs the system test
/// (`run` reports its result as libtest would), writes what it carved, and
/// exits. Never returns.
///
/// Exit code 0 when the recording was written, whether the test passed or
/// not; 3 when it could not be.
pub fn child_main(test: &str, run: impl FnOnce() -> Result<(), String>) -> ! {
    let Some(out) = role::record_out() else {
        eprintln!("carve: {TEST_VAR} is set without {OUT_VAR}; it is for carve's own use");
        std::process::exit(3)
    };
    record::start();
    let result = run();
    let recordings = record::stop();
    let skipped = record::take_skipped();
    let unlisted = record::take_unlisted();
    let mut calls: BTreeMap<String, Vec<Entry>> = BTreeMap::new();
    let mut unwritable = Vec::new();
    for recording in &recordings {
        for call in &recording.calls {
            match Entry::from_call(&recording.test, call) {
                Ok(entry) => calls.entry(call.target.name()).or_default().push(entry),
                // Like an argument that cannot be captured: the call is not
                // carved, the others are, and the run does not fail for it.
                Err(e @ EntryError::TooDeep { .. }) => eprintln!(
                    "carve: not carving a call of `{}` in system test `{}`: {e}",
                    call.target.name(),
                    recording.test
                ),
                Err(e) => unwritable.push(format!(
                    "a call of `{}` could not be written: {e}",
                    call.target.name()
                )),
            }
        }
    }
    let carved = Carved {
        failure: result.err(),
        unwritable,
        skipped,
        unlisted,
        calls: calls
            .into_iter()
            .map(|(target, entries)| (target, entries.iter().map(WireEntry::from).collect()))
            .collect(),
    };
    let written = ron::to_string(&carved)
        .map_err(|e| e.to_string())
        .and_then(|text| write_atomic(&out, text.as_bytes()).map_err(|e| e.to_string()));
    match written {
        Ok(()) => std::process::exit(0),
        Err(e) => {
            eprintln!(
                "carve: could not hand the recording of `{test}` to the parent through {}: {e}",
                display_path(&out)
            );
            std::process::exit(3)
        }
    }
}
