//! Replaying carved calls as unit tests, with insta snapshots as the
//! regression oracle.
//!
//! Each [`Case`] is one entry of a carve file. Replaying it deserializes the
//! arguments into the target's parameter types, calls the target, and checks
//! the [`Observation`] against the snapshot `<id>.snap` in the target's
//! snapshot folder (`carved/bank/Account/withdraw/<id>.snap`), where `<id>`
//! is derived from the arguments, so adding a call elsewhere in the file
//! never renames another call's snapshot.
//!
//! A call without a snapshot, when new snapshots are accepted (record and
//! generate mode), gets its `.snap` written directly, counted per target in
//! [`Accepted`]: insta is not asked to store it as pending, so it prints no
//! diff, no `.snap.new` and no advice for a snapshot nobody has to review.
//!
//! ```
//! use carve::carving::replay::snapshot_id;
//!
//! // Whitespace does not matter, only the arguments do.
//! assert_eq!(snapshot_id("(s: \"a b\")"), snapshot_id("(\n    s: \"a b\",\n)"));
//! assert_ne!(snapshot_id("(s: \"a b\")"), snapshot_id("(s: \"ab\")"));
//! ```

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::fmt;
use std::fs;
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use insta::internals::TextSnapshotContents;
use insta::TextSnapshotKind;

use crate::call::{ArgsInput, Position, ReplayError, Replayed};
use crate::carving::identity::{canonical_text, stored_observation};
use crate::carving::insta_config;
use crate::carving::layout::{self, display_path};
use crate::carving::store::{
    sync_filesystem, write_atomic_unsynced, Entry, Origin, FIELD_INDENT,
};
use crate::coverage;
use crate::coverage::report::{CallCoverage, Calls, FoundFailure};
use crate::outcome::{panic_message, quietly, Ending, FailureKind, Observation, Outcome};
use crate::registry::Target;
use crate::value::text::{shorten, to_ron};
use crate::value::{depth, Value};

pub use crate::carving::identity::snapshot_id;

/// The snapshot name of each entry, in order: its [`snapshot_id`], with a
/// suffix `-<n>` for the `n`-th entry with the same arguments.
pub fn snapshot_names(entries: &[Entry]) -> Vec<String> {
    let mut uses: BTreeMap<String, usize> = BTreeMap::new();
    entries
        .iter()
        .map(|entry| {
            let id = snapshot_id(&entry.args);
            let n = uses.entry(id.clone()).or_default();
            *n += 1;
            match *n {
                1 => id,
                n => format!("{id}-{n}"),
            }
        })
        .collect()
}

/// For each entry, with the snapshot names [`snapshot_names`] gave them,
/// where the earlier entry it repeats starts (its arguments), if it is the
/// same call with the same outcome ([`CallKey`](crate::carving::identity::CallKey)): an entry duplicated by
/// hand. Only entries whose arguments repeat (a name with a suffix) are
/// compared, so a file without repeated arguments costs nothing more.
pub fn repeated_calls(entries: &[Entry], snapshots: &[String]) -> Vec<Option<Position>> {
    let repeated: std::collections::HashSet<&str> = snapshots
        .iter()
        .filter_map(|name| name.split_once('-').map(|(id, _)| id))
        .collect();
    if repeated.is_empty() {
        return vec![None; entries.len()];
    }
    let mut first = std::collections::HashMap::new();
    entries
        .iter()
        .zip(snapshots)
        .enumerate()
        .map(|(i, (entry, name))| {
            let id = name.split_once('-').map_or(name.as_str(), |(id, _)| id);
            if !repeated.contains(id) {
                return None;
            }
            let earlier = *first.entry(entry.call_key()).or_insert(i);
            (earlier != i).then(|| entries[earlier].args_position)
        })
        .collect()
}

/// Checks a call's observation, as its RON text, against its snapshot (the
/// name); `carve::main!()` makes this from insta's `assert_snapshot!` so
/// insta sees the user's crate.
pub type SnapshotCheck = fn(&str, &str);

/// Where and how cases are checked.
#[derive(Debug, Clone)]
pub struct Checker {
    /// Folder of carve files and snapshots.
    pub dir: PathBuf,
    /// The snapshot assertion.
    pub check: SnapshotCheck,
    /// Accept snapshots of calls that have none yet (record mode).
    pub accept_new: bool,
    /// Where each replayed call's coverage goes, for the report.
    pub coverage: Calls,
    /// The snapshots written because `accept_new` accepted them.
    pub accepted: Accepted,
}

/// New snapshots written while replaying, per target: shared by the trials
/// of a run, drained by the runner when they are done.
#[derive(Debug, Clone, Default)]
pub struct Accepted(Arc<Mutex<BTreeMap<String, (PathBuf, usize)>>>);

impl Accepted {
    /// Counts one snapshot written for `target` in `folder`.
    fn add(&self, target: &str, folder: &Path) {
        let mut written = self.0.lock().unwrap_or_else(|e| e.into_inner());
        written
            .entry(target.to_owned())
            .or_insert_with(|| (folder.to_owned(), 0))
            .1 += 1;
    }

    /// One line per target with the snapshots written since the last call,
    /// once they are on disk; the scratch folders they were made in are
    /// removed.
    pub fn report(&self) -> Vec<String> {
        remove_scratch_folders();
        let written = std::mem::take(&mut *self.0.lock().unwrap_or_else(|e| e.into_inner()));
        // Snapshots are written without a wait each (thousands of fsyncs
        // are most of a large record's time): one sync for all of them.
        let unsynced = written
            .values()
            .find_map(|(folder, _)| sync_filesystem(folder).err().map(|e| (folder.clone(), e)));
        let mut lines: Vec<String> = written
            .into_iter()
            .map(|(target, (folder, count))| {
                format!(
                    "carve: wrote {count} new snapshot(s) for {target} in {}/",
                    display_path(&folder)
                )
            })
            .collect();
        lines.extend(unsynced.map(|(folder, e)| {
            format!(
                "carve: warning: could not sync the new snapshots in {} to disk: {e}",
                display_path(&folder)
            )
        }));
        lines
    }
}

/// One carved call to replay as a test.
#[derive(Debug, Clone)]
pub struct Case {
    /// The test's name (`carved::<target>::<NNNN>`).
    pub test: String,
    pub target_name: String,
    pub target: &'static Target,
    /// The carve file the entry is in.
    pub file: PathBuf,
    pub entry: Entry,
    /// The folder of the target's snapshots (`carved/bank/Account/withdraw`).
    pub snapshot_folder: PathBuf,
    /// How many entries the target's carve file has: above
    /// [`layout::SHARD_ABOVE`], its snapshots are in shards.
    pub entries_in_file: usize,
    /// The snapshot's name (`<id>`, with a suffix `-<n>` for repeated
    /// arguments): its file is `<snapshot>.snap` in `snapshot_folder` or, for
    /// a target with thousands of entries, in its shard.
    pub snapshot: String,
    /// Where the earlier entry starts that this one repeats, if it is the
    /// same call with the same outcome ([`repeated_calls`]).
    pub repeats: Option<Position>,
}

/// Why a case failed; shown as the test's failure message.
#[derive(Debug)]
pub struct CaseFailure(String);

impl fmt::Display for CaseFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Case {
    /// Replays the call and checks its observation: a crashed entry is
    /// reported without running it, a found failure passes once it stops
    /// panicking, and anything else must match its snapshot.
    pub fn run(&self, checker: &Checker) -> Result<(), CaseFailure> {
        // Deserializing the arguments recurses once per level of nesting:
        // deep ones on a stack sized for the deepest value carve stores, not
        // the test thread's 2 MiB (writing the outcome sees to its own).
        let nesting = depth::nesting_bound(&self.entry.args);
        depth::with_stack_for(nesting, || self.run_here(checker))
    }

    fn run_here(&self, checker: &Checker) -> Result<(), CaseFailure> {
        if let Ending::Failed { kind, message } = &self.entry.outcome.ending {
            if kind.is_crash() {
                if self.entry.origin.is_open_failure() {
                    let call = format!("{}{}", self.target_name, self.entry.call_id().as_str());
                    self.report_failure(checker, call, kind.clone(), message.clone());
                }
                return self.crashed(message);
            }
        }
        let replayed = self.replay(checker)?;
        let call = describe_call(
            &self.target_name,
            replayed.args.as_ref().unwrap_or(&Value::Unit),
        );
        if self.entry.origin.is_open_failure() {
            if let Outcome::Panicked(message) = &replayed.observation.outcome {
                self.report_failure(checker, call.clone(), FailureKind::Panic, message.clone());
            }
            // Spelled as generation's line spelled it (`self:StatusCode(1)`,
            // where the description reads `self:(1)`).
            let found = self.entry.shown_call(&self.target_name);
            return self.still_failing(&found, &replayed.observation.outcome);
        }
        self.check_snapshot(checker, &call, &replayed.observation)
    }

    /// Tells the report about a found failure that still fails.
    fn report_failure(&self, checker: &Checker, call: String, kind: FailureKind, message: String) {
        let Some(at) = self.entry.origin.failure() else {
            return;
        };
        checker.coverage.push_failure(FoundFailure {
            test: self.test.clone(),
            target: self.target_name.clone(),
            call,
            at,
            kind,
            message,
        });
    }

    /// Whether the call's snapshot file exists.
    pub fn has_snapshot(&self) -> bool {
        self.snapshot_file(&self.snapshot_home()).exists()
    }

    /// The folder that holds the call's snapshot: its shard or the target's
    /// folder ([`layout::snapshot_shard`]), or the other of the two while a
    /// target that crossed the threshold has it there still.
    fn snapshot_home(&self) -> PathBuf {
        let entries = self.entries_in_file;
        let home = layout::snapshot_shard(&self.snapshot_folder, &self.snapshot, entries);
        if self.snapshot_file(&home).exists() {
            return home;
        }
        let other = match entries > layout::SHARD_ABOVE {
            true => self.snapshot_folder.clone(),
            false => layout::snapshot_shard(&self.snapshot_folder, &self.snapshot, usize::MAX),
        };
        match self.snapshot_file(&other).exists() {
            true => other,
            false => home,
        }
    }

    /// The call's snapshot file, were it in `folder`.
    fn snapshot_file(&self, folder: &Path) -> PathBuf {
        folder.join(format!("{}.snap", self.snapshot))
    }

    /// `file:line:col` of the entry's arguments.
    fn here(&self) -> String {
        format!("{}:{}", display_path(&self.file), self.entry.args_position)
    }

    /// A crashing entry is never replayed: it would take this test binary
    /// down with it.
    fn crashed(&self, crash: &str) -> Result<(), CaseFailure> {
        match &self.entry.origin {
            Origin::Found { expected: true, .. } => Ok(()),
            _ => Err(CaseFailure(format!(
                "{}: generation found an input on which `{}` {crash}: `{}{}`. It is not \
                 replayed here, as it would take the test binary down. Fix the code and \
                 delete the entry; or mark it `expected: true` if that is intended.",
                self.here(),
                self.target_name,
                self.target_name,
                self.entry.call_id().as_str(),
            ))),
        }
    }

    /// Replays the call with coverage, which goes to the checker's sink.
    fn replay(&self, checker: &Checker) -> Result<Replayed, CaseFailure> {
        let (replayed, trace) = coverage::collect(|| {
            quietly(|| (self.target.replay)(ArgsInput::Ron(&self.entry.args)))
        });
        if let Ok(replayed) = &replayed {
            checker.coverage.push(CallCoverage {
                test: self.test.clone(),
                target: self.target_name.clone(),
                call: describe_call(
                    &self.target_name,
                    replayed.args.as_ref().unwrap_or(&Value::Unit),
                ),
                generated: self.entry.origin.system_test().is_none(),
                passed: matches!(replayed.observation.outcome, Outcome::Returned(_)),
                trace,
            });
        }
        replayed.map_err(|e| match e {
            ReplayError::Args { position, message } => CaseFailure(format!(
                "{}:{}: the carved arguments of `{}` no longer fit its signature `{}` \
                 ({message}). This carve is stale: re-record it with `CARVE=record cargo test`, \
                 or delete the entry.",
                display_path(&self.file),
                self.entry.args_position.offset_by(position),
                self.target_name,
                self.target.signature,
            )),
            ReplayError::Capture(e) => CaseFailure(format!("{}: {e}", self.here())),
        })
    }

    /// A found bug: the test fails until the call stops panicking.
    fn still_failing(&self, call: &str, outcome: &Outcome) -> Result<(), CaseFailure> {
        match outcome {
            Outcome::Panicked(message) => Err(CaseFailure(format!(
                "{}: generation found a failing input: `{call}` panics: {message}\n\
                 Fix the code; or, if the panic is intended, mark the entry \
                 `expected: true` in its origin (`Found(…, expected: true)`).",
                self.here()
            ))),
            Outcome::Returned(_) | Outcome::Crashed(_) => Ok(()),
        }
    }

    /// Checks the observation against its insta snapshot; a missing
    /// snapshot is written when the checker accepts new ones.
    fn check_snapshot(
        &self,
        checker: &Checker,
        call: &str,
        observation: &Observation,
    ) -> Result<(), CaseFailure> {
        let (part, nesting) = depth::deepest(&observation.parts());
        if nesting > depth::MAX_DEPTH {
            return Err(CaseFailure(format!(
                "{}: the {part} of `{call}` nests {nesting} levels deep, deeper than the {} \
                 levels carve stores; it is not compared with its snapshot.",
                self.here(),
                depth::MAX_DEPTH
            )));
        }
        let text = depth::with_stack_for(nesting, || to_ron(observation)).map_err(|e| {
            CaseFailure(format!(
                "{}: the outcome of `{call}` cannot be written as RON: {e}",
                self.here()
            ))
        })?;
        let folder = self.snapshot_home();
        let snap = self.snapshot_file(&folder);
        if let Some(first) = self.repeats.filter(|_| !snap.exists()) {
            // Not a new outcome to review: no snapshot is made for it.
            let way_out = match self.entry.origin.system_test() {
                Some(_) => {
                    "Delete it, or re-record with `CARVE=record cargo test`, which stores each \
                     call once."
                }
                // Recording keeps generated entries as they are.
                None => "Delete it.",
            };
            return Err(CaseFailure(format!(
                "{}: this entry repeats the call at {}:{first} (same arguments, same outcome), \
                 so it has no snapshot of its own ({}). {way_out}",
                self.here(),
                display_path(&self.file),
                display_path(&snap),
            )));
        }
        let mut settings = insta::Settings::clone_current();
        settings.set_prepend_module_to_snapshot(false);
        settings.set_omit_expression(true);
        settings.set_description(call);
        if checker.accept_new && !snap.exists() {
            let check = |name: &str| (checker.check)(name, &text);
            return match write_new_snapshot(settings, &snap, check) {
                Ok(()) => {
                    checker.accepted.add(&self.target_name, &self.snapshot_folder);
                    self.check_stored_outcome(&text, &snap, true)
                }
                Err(e) => Err(CaseFailure(format!(
                    "{}: could not write the new snapshot of `{call}`: {e}",
                    self.here(),
                ))),
            };
        }
        // The pass path reads the one file and compares in memory: insta
        // scans the snapshot's folder on every assertion, which makes a
        // target with N calls cost O(N²). insta sees every call it must
        // judge: a new or changed outcome, or one its settings act on.
        if stored_snapshot_matches(&snap, &text, &checker.dir) {
            return self.check_stored_outcome(&text, &snap, false);
        }
        let existed = snap.exists();
        settings.set_snapshot_path(&folder);
        let check = || (checker.check)(&self.snapshot, &text);
        let checked =
            quietly(|| panic::catch_unwind(AssertUnwindSafe(|| settings.bind(check))));
        match checked {
            Ok(()) => self.check_stored_outcome(&text, &snap, false),
            // insta wrote no pending snapshot to review (CI, or
            // `INSTA_UPDATE=no`): recording is the one way to a snapshot.
            Err(_) if !existed && !snap.with_extension("snap.new").exists() => {
                Err(CaseFailure(format!(
                    "{}: `{call}` has no snapshot ({}), and none was written (nothing is \
                     written under CI): write it with `CARVE=record cargo test` where writing \
                     is allowed, and commit it.",
                    self.here(),
                    display_path(&snap)
                )))
            }
            Err(_) if !existed => Err(CaseFailure(format!(
                "{}: `{call}` has no snapshot yet ({}): write it with `CARVE=record cargo \
                 test`, or accept it with `cargo insta review`.",
                self.here(),
                display_path(&snap)
            ))),
            // Not a difference: insta could not compare (an unreadable or
            // malformed `.snap`), and printed no diff.
            Err(payload) if !readable_snapshot(&snap) => {
                Err(CaseFailure(format!(
                    "{}: the outcome of `{call}` could not be checked against its snapshot {}: \
                     {}",
                    self.here(),
                    display_path(&snap),
                    panic_message(&*payload)
                )))
            }
            Err(_) => Err(CaseFailure(format!(
                "{}: the outcome of `{call}` differs from its snapshot {} (diff above). \
                 If the change is intended, accept it with `cargo insta review`; otherwise fix \
                 the regression.",
                self.here(),
                display_path(&snap)
            ))),
        }
    }

    /// Checks that the carve file says what the snapshot `snap` says, once
    /// the call's observation (`text`, its RON) matched it: the snapshot is
    /// the oracle, but an outcome edited by hand into the carve file must
    /// not pass unnoticed as if it were checked. `fresh`: the snapshot was
    /// just written from this replay, so a disagreement is between the
    /// call as carved and the same call replayed.
    fn check_stored_outcome(&self, text: &str, snap: &Path, fresh: bool) -> Result<(), CaseFailure> {
        if stored_outcome_agrees(&self.entry, text) {
            return Ok(());
        }
        let stored = stored_observation(&self.entry);
        if fresh {
            // unicode-segmentation's `GraphemeIndices` shows the address of
            // its text in its `Debug`: no two runs agree.
            return Err(CaseFailure(format!(
                "{}:{}: replaying `{}` with the arguments carved for it gave `{}`, not the \
                 outcome carved with them (`{}`): what it returns depends on more than its \
                 arguments as carved (an address, the time, a random value, global state, or \
                 state an argument's carved form leaves out, as a capacity), so no snapshot \
                 can check it (its new snapshot {} holds this run's outcome, and the next run \
                 will differ again). Make what it returns the same on every run (a `Debug` \
                 that shows no address, a `Serialize` that keeps that state), or leave it \
                 out: remove its `#[carve::target]` (in a block with none marked, mark it \
                 `#[carve::instrument]`). (If the carve file was edited by hand, record \
                 again.)",
                display_path(&self.file),
                self.entry.outcome_position,
                self.target_name,
                shorten(text.trim()),
                shorten(self.entry.outcome.text.trim()),
                display_path(snap),
            )));
        }
        // Recording rewrites only the entries system tests carved.
        let way_out = match self.entry.origin.system_test() {
            Some(_) => "Rewrite it with `CARVE=record cargo test`, or fix it by hand.",
            None => "Fix it by hand (recording keeps generated entries as they are).",
        };
        Err(CaseFailure(format!(
            "{}:{}: the carve file's outcome of `{}` (`{}`) disagrees with its snapshot {} \
             (`{}`), which the call still matches. The snapshot is what replay checks; the \
             outcome in the carve file only documents the call. {way_out}",
            display_path(&self.file),
            self.entry.outcome_position,
            self.target_name,
            shorten(&stored),
            display_path(snap),
            shorten(&canonical_text(text)),
        )))
    }
}

/// Whether `entry`'s stored outcome (and state after the call) is the
/// observation whose RON is `made`. Carve writes the outcome as `made`,
/// indented to sit in the file, so the usual answer costs one pass over
/// text already in memory; an entry laid out by hand is compared in
/// canonical text.
fn stored_outcome_agrees(entry: &Entry, made: &str) -> bool {
    (entry.after.is_none() && is_indented(&entry.outcome.text, made))
        || stored_observation(entry) == canonical_text(made)
        || entry.after.as_ref().is_some_and(|after| {
            // Carve indents every line of what it writes, the lines of a
            // raw string (a `Debug` text over several lines) too: with
            // the state after the call beside it, `made` nests it one
            // level deeper, so only the text without that indentation is
            // the same.
            let outcome = canonical_text(&unindented(&entry.outcome.text));
            let after = canonical_text(&unindented(after));
            format!("(outcome:{outcome},after:{after})") == canonical_text(made)
        })
}

/// `text` as carve made it, before it was indented to sit in a carve file.
fn unindented(text: &str) -> String {
    text.replace(&format!("\n{FIELD_INDENT}"), "\n")
}

/// Whether `stored` is `made` as a carve file holds it: trimmed, each line
/// after the first indented by the fields' indentation.
fn is_indented(stored: &str, made: &str) -> bool {
    let mut rest = stored;
    for (i, line) in made.trim().split('\n').enumerate() {
        if i > 0 {
            let Some(next) = rest
                .strip_prefix('\n')
                .and_then(|r| r.strip_prefix(FIELD_INDENT))
            else {
                return false;
            };
            rest = next;
        }
        let Some(next) = rest.strip_prefix(line) else {
            return false;
        };
        rest = next;
    }
    rest.is_empty()
}

/// Whether the snapshot file `snap` holds `text`, as insta compares, and
/// insta would pass the assertion and do nothing else: no `.snap.new`
/// beside it for insta to clean up, and none of insta's settings that act
/// on a passing snapshot ([`insta_config`]; its config file is looked for
/// from `dir` up). Anything unusual (an unreadable file, a legacy
/// snapshot) is left to insta.
fn stored_snapshot_matches(snap: &Path, text: &str, dir: &Path) -> bool {
    static INSTA_ACTS_ON_PASSES: OnceLock<bool> = OnceLock::new();
    let insta_acts = *INSTA_ACTS_ON_PASSES.get_or_init(|| {
        let env = crate::env::insta_variable;
        let start = env("CARGO_MANIFEST_DIR").map_or_else(|| dir.to_owned(), PathBuf::from);
        insta_config::acts_on_passes(insta_config::config_text(&start, env).as_deref(), env)
    });
    if insta_acts {
        return false;
    }
    let Ok(stored) = insta::Snapshot::from_file(snap) else {
        return false;
    };
    stored.contents().as_text().is_some_and(|stored| same_contents(stored, text))
        && !snap.with_extension("snap.new").exists()
}

/// Whether insta reads `snap` as a snapshot: if it does, an assertion
/// against it that fails is a difference (insta printed the diff).
fn readable_snapshot(snap: &Path) -> bool {
    insta::Snapshot::from_file(snap).is_ok()
}

/// insta's comparison of a file snapshot's contents with `made` (trailing
/// whitespace and line endings do not count), by insta itself.
fn same_contents(stored: &TextSnapshotContents, made: &str) -> bool {
    stored.matches_latest(&TextSnapshotContents::new(made.to_owned(), TextSnapshotKind::File))
}

thread_local! {
    /// The snapshot insta made in the last [`write_new_snapshot`] on this thread.
    static MADE: RefCell<Option<insta::Snapshot>> = const { RefCell::new(None) };
}

/// A comparator that keeps the snapshot insta made (in [`MADE`]) and calls
/// it a match, so that insta neither prints nor stores anything.
#[derive(Debug, Clone, Copy)]
struct KeepMade;

impl insta::Comparator for KeepMade {
    fn matches(&self, _reference: &insta::Snapshot, made: &insta::Snapshot) -> bool {
        MADE.with(|m| *m.borrow_mut() = Some(made.clone()));
        true
    }

    fn dyn_clone(&self) -> Box<dyn insta::Comparator> {
        Box::new(*self)
    }
}

/// Writes the snapshot file `snap` (`<folder>/<name>.snap`) that `check`
/// makes, as `cargo insta accept` would, without insta reporting a pending
/// snapshot. `check(name)` is an insta assertion of a snapshot called
/// `name`, run with `settings`.
///
/// insta compares only against an existing snapshot, and reports anything
/// else as pending: so `check` runs against a placeholder snapshot in this
/// thread's scratch folder, with a comparator that keeps what insta made
/// and calls it a match. A pending `.snap.new` left beside `snap` by an
/// earlier run is removed.
fn write_new_snapshot(
    mut settings: insta::Settings,
    snap: &Path,
    check: impl FnOnce(&str),
) -> Result<(), Box<dyn std::error::Error>> {
    let scratch = scratch_folder()?;
    // The name is not part of a snapshot file, so every snapshot is made
    // against the same placeholder: writing 100,000 snapshots creates no
    // file or folder per snapshot beyond the snapshot itself.
    const PLACEHOLDER: &str = "carve-new";
    let placeholder = scratch.join(format!("{PLACEHOLDER}.snap"));
    if !placeholder.exists() {
        fs::write(&placeholder, "---\nsource: carve\n---\n")?;
    }
    // So that insta looks for exactly the placeholder.
    settings.set_snapshot_path(&scratch);
    settings.set_prepend_module_to_snapshot(false);
    settings.remove_snapshot_suffix();
    settings.set_comparator(Box::new(KeepMade));
    MADE.with(|m| m.borrow_mut().take());
    quietly(|| panic::catch_unwind(AssertUnwindSafe(|| settings.bind(|| check(PLACEHOLDER)))))
        .map_err(|payload| panic_message(&*payload))?;
    let made = MADE
        .with(|m| m.borrow_mut().take())
        .ok_or("insta made no snapshot")?;
    // insta's `save` writes in place, and names neither file nor OS error
    // well when that fails: it writes into the scratch folder, and the
    // snapshot is moved into place from there atomically.
    let written = scratch.join("made.snap");
    made.save(&written)?;
    write_atomic_unsynced(snap, &fs::read(&written)?).map_err(|e| format!("{}: {e}", display_path(snap)))?;
    let pending = snap.with_extension("snap.new");
    if pending.exists() {
        fs::remove_file(&pending).map_err(|e| format!("{}: {e}", display_path(&pending)))?;
    }
    Ok(())
}

/// The folder of this process's scratch folders for new snapshots; see
/// [`remove_scratch_folders`].
fn scratch_root() -> PathBuf {
    std::env::temp_dir().join(format!("carve-new-snapshots-{}", std::process::id()))
}

/// This thread's scratch folder for making new snapshots, created on first use.
fn scratch_folder() -> std::io::Result<PathBuf> {
    static THREADS: AtomicUsize = AtomicUsize::new(0);
    thread_local! {
        static SCRATCH: PathBuf =
            scratch_root().join(THREADS.fetch_add(1, Ordering::Relaxed).to_string());
    }
    let folder = SCRATCH.with(PathBuf::clone);
    fs::create_dir_all(&folder)?;
    Ok(folder)
}

/// Removes the scratch folders [`write_new_snapshot`] made in this process.
pub fn remove_scratch_folders() {
    let _ = fs::remove_dir_all(scratch_root());
}

/// `target(args)` on one line, shortened for display.
fn describe_call(target: &str, args: &Value) -> String {
    format!("{target}{}", shorten(&args.to_compact_ron()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_snapshot_is_written_quietly_as_insta_would() {
        let folder = std::env::temp_dir().join(format!("carve-replay-{}", std::process::id()));
        let _ = fs::remove_dir_all(&folder);
        let snap = folder.join("0123456789ab.snap");
        let pending = folder.join("0123456789ab.snap.new");
        fs::create_dir_all(&folder).unwrap();
        fs::write(&pending, "left by an earlier run").unwrap();
        let mut settings = insta::Settings::clone_current();
        settings.set_omit_expression(true);
        settings.set_description("f(x:1)");
        write_new_snapshot(settings, &snap, |name| {
            insta::assert_snapshot!(name, "Returned(2)");
        })
        .unwrap();
        let text = fs::read_to_string(&snap).unwrap();
        assert!(text.starts_with("---\nsource: harness/carving/replay.rs\n"), "{text}");
        assert!(text.ends_with("description: \"f(x:1)\"\n---\nReturned(2)\n"), "{text}");
        assert!(!pending.exists(), "the stale pending snapshot is gone");
        assert_eq!(fs::read_dir(&folder).unwrap().count(), 1);
        fs::remove_dir_all(folder).unwrap();
        remove_scratch_folders();
        assert!(!scratch_root().exists());
    }

    /// Also pins the part of insta's surface that is not public
    /// (`insta::internals`, see `Cargo.toml`): if insta moves it, this fails.
    #[test]
    fn only_a_stored_snapshot_insta_would_pass_passes_without_insta() {
        let folder = std::env::temp_dir().join(format!("carve-stored-{}", std::process::id()));
        fs::create_dir_all(&folder).unwrap();
        let stored = |name: &str, file: &str| {
            let path = folder.join(name);
            fs::write(&path, file).unwrap();
            insta::Snapshot::from_file(&path).unwrap()
        };
        let header = "---\nsource: tests/carve.rs\ndescription: \"f(x:1)\"\n---\n";
        let snap = stored("a.snap", &format!("{header}Returned(2)\n"));
        assert_eq!(snap.metadata().description(), Some("f(x:1)"));
        let contents = snap.contents().as_text().unwrap();
        assert!(same_contents(contents, "Returned(2)"));
        assert!(!same_contents(contents, "Returned(3)"));
        assert!(!same_contents(contents, "  Returned(2)"), "leading blanks count");
        let crlf = stored("b.snap", &format!("{header}Returned(\r\n2)\r\n"));
        assert!(same_contents(crlf.contents().as_text().unwrap(), "Returned(\n2)"));
        let malformed = folder.join("c.snap");
        fs::write(&malformed, "---\nsource: [\n---\nReturned(2)\n").unwrap();
        assert!(readable_snapshot(&folder.join("a.snap")));
        assert!(!readable_snapshot(&malformed));
        assert!(!readable_snapshot(&folder.join("missing.snap")));
        fs::remove_dir_all(folder).unwrap();
    }

    #[test]
    fn only_the_same_call_with_the_same_outcome_is_a_repeat() {
        use crate::carving::store::StoredOutcome;
        use crate::value::Value;
        let entry = |args: &str, returned: i64, line: usize| {
            let outcome = StoredOutcome::of(&Outcome::Returned(Value::I64(returned))).unwrap();
            let mut entry = Entry::new(Origin::System("t".into()), args, outcome, None);
            entry.args_position = Position { line, col: 19 };
            entry
        };
        // Same arguments, another outcome (a call that depends on state): no repeat.
        let entries = [entry("(n: 1)", 1, 10), entry("(n: 1)", 2, 17), entry("(n:1)", 1, 24)];
        let names = snapshot_names(&entries);
        assert_eq!(
            repeated_calls(&entries, &names),
            [None, None, Some(Position { line: 10, col: 19 })]
        );
        let distinct = [entry("(n: 1)", 1, 10), entry("(n: 2)", 1, 17)];
        assert_eq!(repeated_calls(&distinct, &snapshot_names(&distinct)), [None, None]);
    }

    #[test]
    fn a_stored_outcome_agrees_only_with_the_same_observation() {
        use crate::carving::store::StoredOutcome;
        use crate::value::Value;
        let observed = |outcome: Outcome, after: Option<Value>| {
            to_ron(&Observation { outcome, after }).unwrap()
        };
        let list = Value::Seq(vec![Value::I64(1), Value::I64(2)]);
        let entry = |outcome: &Outcome, after: Option<&Value>| {
            let stored = StoredOutcome::of(outcome).unwrap();
            let after = after.map(|a| to_ron(a).unwrap());
            Entry::new(Origin::System("t".into()), "(x: 1)", stored, after.as_deref())
        };
        let returned = Outcome::Returned(Value::Struct("S", vec![("a", list.clone())]));
        let made = observed(returned.clone(), None);
        assert!(made.contains('\n'), "several lines: {made}");
        let stored = entry(&returned, None);
        assert!(is_indented(&stored.outcome.text, &made));
        assert!(stored_outcome_agrees(&stored, &made));
        let mut by_hand = stored.clone();
        by_hand.outcome.text = "Returned( S( a: [1, 2] ) )".into();
        assert!(stored_outcome_agrees(&by_hand, &made), "whitespace does not count");
        by_hand.outcome.text = "Returned(S(a: [1, 3]))".into();
        assert!(!stored_outcome_agrees(&by_hand, &made));
        assert!(!stored_outcome_agrees(&stored, &observed(Outcome::Panicked("no".into()), None)));
        // With the state of `&mut` arguments after the call.
        let after = Value::Struct(crate::value::text::UNNAMED, vec![("v", list.clone())]);
        let made = observed(returned.clone(), Some(after.clone()));
        assert!(stored_outcome_agrees(&entry(&returned, Some(&after)), &made));
        let other = Value::Struct(crate::value::text::UNNAMED, vec![("v", Value::Seq(vec![]))]);
        assert!(!stored_outcome_agrees(&entry(&returned, Some(&other)), &made));
        assert!(!stored_outcome_agrees(&entry(&returned, None), &made));
        // A `Debug` text over several lines beside the state after the
        // call (hex's `decode_to_slice(&str, &mut [u8])` returning
        // `Err(InvalidHexCharacter { c, index })`): the carve file indents
        // the raw string's lines, the observation does not.
        let debug = Value::display_text("bad".into(), Some("E {\n    c: 'g',\n}".into()));
        let failed = Outcome::Returned(Value::NewtypeVariant {
            name: "Result",
            index: 1,
            variant: "Err",
            value: Box::new(debug),
        });
        let made = observed(failed.clone(), Some(after.clone()));
        assert!(stored_outcome_agrees(&entry(&failed, Some(&after)), &made));
        assert!(!stored_outcome_agrees(&entry(&failed, Some(&other)), &made));
        assert!(!stored_outcome_agrees(&entry(&returned, Some(&after)), &made));
    }
}
