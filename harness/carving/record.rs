//! The recorder: captures each call of a target while system tests run.
//!
//! Global state, like coverage's per-thread branch recording, because calls
//! are made deep inside the user's code where nothing can be passed in. A
//! process-wide flag says whether anything records (one relaxed load is all
//! a dormant target pays);
//! each system test owns a thread-local [`TestRecording`], so tests running in
//! parallel threads never share a buffer and their calls cannot interleave.
//! Calls are kept as [`Value`]s, not RON text: text is written once per
//! distinct call, by the store, after the tests ran. Most calls repeat one
//! already kept: a call is found by its key ([`key`](crate::value::key)),
//! made from its arguments themselves ([`ArgsBuilder::key`]), and their
//! [`Value`] is built only for arguments not seen before on the thread.
//!
//! Generated code calls [`begin`] before the body and [`CallFrame::finish`]
//! after it. Only what replay can rebuild is carved: each distinct set of
//! arguments (and of `&mut` states after a call) is rebuilt once from the
//! form carve writes, with the deserialization replay uses, and compared
//! with the original ([`RebuildCheck`]); a call whose values do not rebuild
//! is skipped and counted ([`take_skipped`]). While carve captures or
//! rebuilds a value ([`capturing`]), calls of targets made by the value's
//! own code (a `Display` that calls a target) are neither carved nor
//! captured.
//!
//! ```
//! # use carve::carving::record;
//! # use carve::value::Value;
//! # fn double(x: u32) -> u32 { x * 2 }
//! # static SITES: carve::registry::Sites = carve::registry::Sites::new("demo", "double", "", (0, 0), &[], &[]);
//! # static TARGET: carve::registry::Target = carve::registry::Target {
//! #     module_path: "demo", fn_name: "double", signature: "fn double(x: u32) -> u32",
//! #     file: "", line: 0, sites: &SITES, replay: |_| unreachable!(), trace: |_| {},
//! #     uncarvable: || None };
//! record::start();
//! record::record_test("doubles", || {
//!     let x = 21;
//!     let frame = record::begin(&TARGET, |args| args.arg("x", Value::capture(&x)), |_| {}).unwrap();
//!     let result = std::panic::catch_unwind(|| double(x));
//!     assert_eq!(frame.finish(result, Value::capture, |_| {}, |_| {}), 42);
//! });
//! let recordings = record::stop();
//! assert_eq!(recordings[0].calls.len(), 1);
//! ```

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use crate::call::{ArgsInput, ReplayError};
use crate::outcome::{panic_message, quietly, Observation, Outcome};
use crate::registry::Target;
use crate::value::form::Deferred;
use crate::value::key::{encode, encode_bytes, patch_len, start_struct};
use crate::value::text::{read_ron, shorten, to_one_line_ron, to_ron, UNNAMED};
use crate::value::{depth, CaptureError, Value};

static RECORDING: AtomicBool = AtomicBool::new(false);
static FINISHED: Mutex<Vec<TestRecording>> = Mutex::new(Vec::new());
/// System tests running now, for calls made on threads they spawned.
static ACTIVE: Mutex<Vec<ActiveTest>> = Mutex::new(Vec::new());
static WARNED_UNATTRIBUTED: AtomicBool = AtomicBool::new(false);

struct ActiveTest {
    name: String,
    /// Calls made on threads without a recording context of their own,
    /// with their keys ([`TestRecording::push`]).
    foreign_calls: Vec<(Call, Vec<u8>)>,
}

thread_local! {
    static CURRENT: RefCell<Option<TestRecording>> = const { RefCell::new(None) };
    /// How many values carve is capturing or rebuilding on this thread now
    /// (see [`capturing`]).
    static CAPTURING: Cell<u32> = const { Cell::new(0) };
    /// The verdict of every set of values checked on this thread, so that
    /// each distinct one is rebuilt once however often it is passed.
    static CHECKED: RefCell<Checked> = RefCell::new(Checked::default());
    /// A buffer for a call's key, kept between calls so that a call does
    /// not allocate one ([`CallFrame`]).
    static SCRATCH: Cell<Vec<u8>> = const { Cell::new(Vec::new()) };
    /// The target whose carved call is in progress on this thread, if any:
    /// a call made inside it is nested ([`Skipped::inside`]).
    static ENCLOSING: Cell<Option<&'static Target>> = const { Cell::new(None) };
}

/// One carved call.
#[derive(Debug, Clone)]
pub struct Call {
    /// The function called.
    pub target: &'static Target,
    /// `(name: value, …)` of the arguments, receiver first.
    pub args: Value,
    /// How it ended, and the `&mut` state afterwards.
    pub observation: Observation,
}

impl PartialEq for Call {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self.target, other.target)
            && self.args == other.args
            && self.observation == other.observation
    }
}

impl Eq for Call {}

impl Hash for Call {
    fn hash<H: Hasher>(&self, state: &mut H) {
        std::ptr::hash(self.target, state);
        self.args.hash(state);
        self.observation.hash(state);
    }
}

/// The distinct calls carved while one system test ran, in the order they
/// first completed.
#[derive(Debug, Default)]
pub struct TestRecording {
    /// The system test's name.
    pub test: String,
    /// Distinct calls, first occurrence order.
    pub calls: Vec<Call>,
    /// The keys of `calls` ([`TestRecording::push`]).
    seen: Distinct,
    /// This recording's number, unique in the process (0: none).
    id: u64,
}

/// The number of the next [`TestRecording`].
static NEXT_RECORDING: AtomicU64 = AtomicU64::new(1);

impl TestRecording {
    fn new(test: &str) -> Self {
        TestRecording {
            test: test.to_owned(),
            id: NEXT_RECORDING.fetch_add(1, Ordering::Relaxed),
            ..Default::default()
        }
    }

    /// Adds `call` unless an identical one (same target, arguments, outcome)
    /// is already there. `key` is its key: the target's address and the
    /// [`encode`]ing of its arguments ([`begin`] makes that part, for the
    /// rebuild check), then [`encode_observation`] of what it did. Keys are
    /// equal exactly when calls are, and compared in full: no call is
    /// dropped for a hash it shares with another.
    fn push(&mut self, call: Call, key: &[u8]) {
        self.push_hashed(call, key, hash_bytes(key));
    }

    /// [`TestRecording::push`] with the key's hash given.
    fn push_hashed(&mut self, call: Call, key: &[u8], hash: u64) {
        self.push_new(key, hash, || Some(call));
    }

    /// [`TestRecording::push_hashed`] of the call `call` makes, made only
    /// when its key is new (a repeated call builds nothing); `None` for a
    /// call that is not kept after all. Whether the call is kept now (new,
    /// or kept before).
    fn push_new(&mut self, key: &[u8], hash: u64, call: impl FnOnce() -> Option<Call>) -> bool {
        if self.seen.find(hash, key).is_some() {
            return true;
        }
        let Some(call) = call() else {
            return false;
        };
        self.seen.insert(hash, key, self.calls.len());
        self.calls.push(call);
        true
    }
}

/// Whether calls are being carved now. Generated code checks this first.
#[inline(always)]
pub fn is_recording() -> bool {
    RECORDING.load(Ordering::Relaxed)
}

/// Whether carve is capturing or rebuilding a value on this thread (calls
/// made meanwhile are carve's, not the test's).
pub fn is_capturing() -> bool {
    CAPTURING.with(Cell::get) > 0
}

/// The system test recording on this thread (or the only one running).
pub fn current_test() -> Option<String> {
    CURRENT
        .with(|c| c.borrow().as_ref().map(|r| r.test.clone()))
        .or_else(|| lock(&ACTIVE).first().map(|a| a.name.clone()))
}

/// Starts carving: targets called from [`record_test`] scopes are recorded.
pub fn start() {
    RECORDING.store(true, Ordering::SeqCst);
}

/// Stops carving and hands over every finished recording, sorted by test name.
pub fn stop() -> Vec<TestRecording> {
    RECORDING.store(false, Ordering::SeqCst);
    let mut all = std::mem::take(&mut *lock(&FINISHED));
    all.sort_by(|a, b| a.test.cmp(&b.test));
    all
}

/// Runs the system test `f` named `test` with calls attributed to it. The
/// recording is kept even when `f` panics (a failing system test still carves
/// the calls it made, the panicking one included).
pub fn record_test<R>(test: &str, f: impl FnOnce() -> R) -> R {
    struct Finish;
    impl Drop for Finish {
        fn drop(&mut self) {
            if let Some(mut rec) = CURRENT.with(|c| c.borrow_mut().take()) {
                let mut active = lock(&ACTIVE);
                if let Some(pos) = active.iter().position(|a| a.name == rec.test) {
                    for (call, key) in active.remove(pos).foreign_calls {
                        rec.push(call, &key);
                    }
                }
                drop(active);
                lock(&FINISHED).push(rec);
            }
        }
    }
    lock(&ACTIVE).push(ActiveTest {
        name: test.to_owned(),
        foreign_calls: Vec::new(),
    });
    CURRENT.with(|c| *c.borrow_mut() = Some(TestRecording::new(test)));
    let _finish = Finish;
    f()
}

/// Collects the named arguments of a call: their values, or (keying) the
/// bytes of their key, without their values.
#[derive(Debug, Default)]
pub struct ArgsBuilder {
    fields: Vec<(&'static str, Value)>,
    error: Option<(&'static str, CaptureError)>,
    keying: Option<Keying>,
}

/// The key an [`ArgsBuilder`] appends arguments to instead of capturing
/// them: [`encode`] of the `(name: value, …)` struct their values make.
#[derive(Debug)]
struct Keying {
    key: Vec<u8>,
    /// Where the count of arguments goes.
    count_at: usize,
    count: u64,
    /// Whether every argument so far could be keyed without its value.
    whole: bool,
}

impl ArgsBuilder {
    /// Adds argument `name`, captured in its form (see
    /// [`form`](crate::value::form)) when the builder asks: a value
    /// captured already (`Result<Value, CaptureError>`) or a form's
    /// `defer`.
    pub fn arg(&mut self, name: &'static str, captured: impl Deferred) {
        if let Some(keying) = &mut self.keying {
            if keying.whole {
                encode_bytes(name.as_bytes(), &mut keying.key);
                keying.whole = captured.encode(&mut keying.key);
                keying.count += 1;
            }
            return;
        }
        if self.error.is_some() {
            return;
        }
        match captured.value() {
            Ok(v) => self.fields.push((name, v)),
            Err(e) => self.error = Some((name, e)),
        }
    }

    /// Appends to `key` the [`encode`]ing of the arguments `capture`
    /// names, made from the arguments themselves: `false` (with `key` as it
    /// was) when one of them can only be keyed from its value.
    fn key(key: &mut Vec<u8>, capture: &impl Fn(&mut ArgsBuilder)) -> bool {
        let start = key.len();
        let count_at = start_struct(UNNAMED, key);
        let mut keying = ArgsBuilder {
            keying: Some(Keying {
                key: std::mem::take(key),
                count_at,
                count: 0,
                whole: true,
            }),
            ..Default::default()
        };
        capturing(|| capture(&mut keying));
        let Some(keying) = keying.keying else {
            return false;
        };
        *key = keying.key;
        if !keying.whole {
            key.truncate(start);
            return false;
        }
        patch_len(key, keying.count_at, keying.count);
        true
    }

    /// The arguments as a struct value `(name: value, …)`.
    pub fn finish(self) -> Result<Value, (&'static str, CaptureError)> {
        match self.error {
            Some(e) => Err(e),
            None => Ok(Value::Struct(UNNAMED, self.fields)),
        }
    }

    fn finish_or_warn(self, target: &Target) -> Option<Value> {
        self.finish()
            .map_err(|(name, e)| {
                eprintln!(
                    "carve: not carving a call of `{}`: argument `{name}`: {e}",
                    target.name()
                )
            })
            .ok()
    }
}

/// A call of a target in progress; see [`begin`].
#[must_use = "finish the frame with the call's result"]
pub struct CallFrame {
    target: &'static Target,
    args: FrameArgs,
    /// The target's address and the [`encode`]ing of `args`: the start of
    /// the call's key ([`TestRecording::push`]).
    key: Vec<u8>,
    nesting: Nesting,
}

/// Marks a carved call in progress as the one calls made on its thread are
/// nested in ([`ENCLOSING`]), until it finishes or is dropped. Frames of
/// one thread open and close in order, but for async targets whose futures
/// interleave on one thread: there the mark may name another call in
/// progress, which only words a message ([`Skipped::message`]).
struct Nesting {
    outer: Option<&'static Target>,
}

impl Nesting {
    fn open(target: &'static Target) -> Nesting {
        Nesting {
            outer: ENCLOSING.with(|e| e.replace(Some(target))),
        }
    }

    /// Ends the mark before the call's end is recorded: what is skipped
    /// then (its state after the call) is nested in the call's own caller.
    fn close(&self) {
        ENCLOSING.with(|e| e.set(self.outer));
    }
}

impl Drop for Nesting {
    fn drop(&mut self) {
        self.close();
    }
}

/// The arguments of a call in progress: captured, or (arguments seen
/// before on this thread, keyed without capturing them) the number of
/// their entry in [`Checked`], which keeps their value.
enum FrameArgs {
    Captured(Value),
    Checked(usize),
}

impl FrameArgs {
    /// The number of their entry in [`Checked`], when they were keyed
    /// without capturing them.
    fn checked(&self) -> Option<usize> {
        match self {
            FrameArgs::Checked(number) => Some(*number),
            FrameArgs::Captured(_) => None,
        }
    }

    /// The arguments' value (`None` only if the entry kept none).
    fn into_value(self) -> Option<Value> {
        match self {
            FrameArgs::Captured(args) => Some(args),
            FrameArgs::Checked(number) => {
                CHECKED.with(|c| c.borrow().args.get(number).cloned())
            }
        }
    }
}

/// Starts carving a call of `target` if this thread records for a system
/// test, and carve is not capturing a value on it. `capture` names and
/// captures each argument; `check` rebuilds each from its captured form
/// (once per distinct set of arguments): a call whose arguments do not
/// rebuild is not carved.
///
/// `capture` runs first to key the arguments ([`ArgsBuilder::key`]):
/// arguments seen before on this thread are found by their key, and not
/// captured again (their value is kept with their verdict). Only new
/// arguments (or ones that can only be keyed from their value) are
/// captured, by a second run of `capture`.
pub fn begin(
    target: &'static Target,
    capture: impl Fn(&mut ArgsBuilder),
    check: impl FnOnce(&mut RebuildCheck<'_>),
) -> Option<CallFrame> {
    // A call made while a value is captured or rebuilt (a `Display` calling
    // a target) belongs to carve's work, not the test's: carving it would
    // capture the value again, and recurse.
    if CAPTURING.with(Cell::get) > 0 {
        return None;
    }
    // A method skipped for a type without a form (see `Target::uncarvable`).
    if (target.uncarvable)().is_some() {
        return None;
    }
    let attributed = CURRENT.with(|c| c.borrow().is_some()) || lock(&ACTIVE).len() == 1;
    if !attributed {
        if !WARNED_UNATTRIBUTED.swap(true, Ordering::Relaxed) {
            eprintln!(
                "carve: `{}` was called on a thread no system test owns while several ran; \
                 such calls are not carved (record with `--test-threads=1` to carve them)",
                target.name()
            );
        }
        return None;
    }
    let mut key = SCRATCH.with(Cell::take);
    key.clear();
    key.extend_from_slice(&(target as *const Target as usize).to_le_bytes());
    if ArgsBuilder::key(&mut key, &capture) {
        match checked(target, Side::Before, &mut key) {
            Some(Ok(number)) => {
                return Some(CallFrame {
                    target,
                    args: FrameArgs::Checked(number),
                    key,
                    nesting: Nesting::open(target),
                })
            }
            Some(Err(())) => {
                SCRATCH.with(|s| s.set(key));
                return None;
            }
            None => {}
        }
    }
    let Some(args) = capturing(|| {
        let mut args = ArgsBuilder::default();
        capture(&mut args);
        args.finish_or_warn(target)
    }) else {
        SCRATCH.with(|s| s.set(key));
        return None;
    };
    start_key(target, &args, &mut key);
    if !rebuilds(target, Side::Before, &args, &mut key, check) {
        SCRATCH.with(|s| s.set(key));
        return None;
    }
    Some(CallFrame {
        target,
        args: FrameArgs::Captured(args),
        key,
        nesting: Nesting::open(target),
    })
}

/// Runs `f`, a capture or rebuild of a value by carve, marked as such on
/// this thread: targets its code calls (a `Display` or `FromStr` calling
/// one) are not carved meanwhile ([`begin`] checks the mark).
pub fn capturing<R>(f: impl FnOnce() -> R) -> R {
    struct Done;
    impl Drop for Done {
        fn drop(&mut self) {
            CAPTURING.with(|c| c.set(c.get() - 1));
        }
    }
    CAPTURING.with(|c| c.set(c.get() + 1));
    let _done = Done;
    f()
}

impl CallFrame {
    /// Records how the call ended and hands back its result, resuming the
    /// panic if it panicked. `capture` captures a returned value in its form
    /// (see [`form`](crate::value::form)), `after` the `&mut` arguments'
    /// state, which `check` rebuilds as [`begin`]'s does the arguments.
    pub fn finish<R>(
        self,
        result: std::thread::Result<R>,
        capture: impl FnOnce(&R) -> Result<Value, CaptureError>,
        after: impl FnOnce(&mut ArgsBuilder),
        check: impl FnOnce(&mut RebuildCheck<'_>),
    ) -> R {
        self.nesting.close();
        let outcome = capture_outcome(&result, capture);
        let after = capture_after(self.target, after, check);
        self.conclude(result, outcome, after)
    }

    /// [`CallFrame::finish`] that keys the call's outcome straight from the
    /// returned value (`capture` puts it in an [`OutcomeSink`], as a
    /// [`Deferred`]): a call that repeats one kept already is found by its
    /// key and dropped without its outcome's [`Value`] being built. Only a
    /// new call (or one whose returned value can only be keyed from its
    /// `Value`: a hash table, a `Serialize` that fails or panics) runs
    /// `capture` again to build it, and is keyed from that, as
    /// [`CallFrame::finish`] keys every call.
    pub fn finish_keyed<R>(
        self,
        result: std::thread::Result<R>,
        capture: impl Fn(&R, &mut OutcomeSink<'_>) -> Result<(), CaptureError>,
        after: impl FnOnce(&mut ArgsBuilder),
        check: impl FnOnce(&mut RebuildCheck<'_>),
    ) -> R {
        let CallFrame {
            target,
            args,
            mut key,
            nesting,
        } = self;
        nesting.close();
        let args_end = key.len();
        let keyed = key_outcome(&result, &capture, &mut key);
        let after = capture_after(target, after, check);
        if let (OutcomeKey::Keyed, Some(state)) = (&keyed, &after) {
            encode_after(state, &mut key);
            if kept_already(&args, &key, args_end) {
                SCRATCH.with(|s| s.set(key));
                return match result {
                    Ok(value) => value,
                    Err(payload) => panic::resume_unwind(payload),
                };
            }
        }
        key.truncate(args_end);
        let outcome = match keyed {
            // Capturing the returned value panicked: the call's outcome,
            // as `capture_outcome` makes it.
            OutcomeKey::Panicked(message) => Ok(Outcome::Panicked(message)),
            OutcomeKey::Keyed | OutcomeKey::Unkeyed => capture_outcome(&result, |value| {
                let mut sink = OutcomeSink {
                    key: None,
                    keyed: false,
                    value: None,
                };
                capture(value, &mut sink)?;
                sink.value.unwrap_or_else(|| {
                    Err(serde::ser::Error::custom("the returned value was not put"))
                })
            }),
        };
        let frame = CallFrame {
            target,
            args,
            key,
            nesting,
        };
        frame.conclude(result, outcome, after)
    }

    /// Stores the call (unless `after` is `None`: its state after the call
    /// was not carvable) and hands back its result.
    fn conclude<R>(
        self,
        result: std::thread::Result<R>,
        outcome: Result<Outcome, CaptureError>,
        after: Option<Option<Value>>,
    ) -> R {
        match (outcome, after) {
            (Ok(outcome), Some(after)) => {
                let observation = Observation { outcome, after };
                let mut key = self.key;
                let args_end = key.len();
                encode_observation(&observation, &mut key);
                store(self.target, self.args, observation, key, args_end)
            }
            (Err(e), _) => eprintln!(
                "carve: not carving a call of `{}`: its result: {e}",
                self.target.name()
            ),
            (_, None) => {}
        }
        match result {
            Ok(value) => value,
            Err(payload) => panic::resume_unwind(payload),
        }
    }

    /// [`CallFrame::finish`] for a target whose returned value may borrow
    /// its `&mut` arguments without saying so (`-> CharsMut` where the type
    /// is `CharsMut<'a>`): their state after the call cannot be read while
    /// that value is alive, so it is taken from a replay of the carved
    /// arguments, as `cargo test` will replay them (a replay reads the state
    /// once the returned value is gone). A replay that fails leaves the call
    /// uncarved, with a note.
    pub fn finish_replaying_after<R>(
        self,
        result: std::thread::Result<R>,
        capture: impl FnOnce(&R) -> Result<Value, CaptureError>,
    ) -> R {
        let CallFrame {
            target,
            args,
            key,
            nesting,
        } = self;
        nesting.close();
        let args = args.into_value();
        let after = args.as_ref().map(|args| {
            capturing(|| quietly(|| (target.replay)(ArgsInput::Value(args))))
        });
        match (args, after) {
            (Some(args), Some(Ok(replayed))) => {
                let outcome = capture_outcome(&result, capture);
                let frame = CallFrame {
                    target,
                    args: FrameArgs::Captured(args),
                    key,
                    nesting,
                };
                frame.conclude(result, outcome, Some(replayed.observation.after))
            }
            (None, _) | (_, None) => match result {
                Ok(value) => value,
                Err(payload) => panic::resume_unwind(payload),
            },
            (_, Some(Err(e))) => {
                let why = match e {
                    ReplayError::Args { message, .. } => message,
                    ReplayError::Capture(e) => e.to_string(),
                };
                eprintln!(
                    "carve: not carving a call of `{}`: its `&mut` arguments' state after \
                     the call is read from a replay, which failed: {why}",
                    target.name()
                );
                match result {
                    Ok(value) => value,
                    Err(payload) => panic::resume_unwind(payload),
                }
            }
        }
    }
}

/// The state of a call's `&mut` arguments after it, as `after` captures
/// it: `Some(None)` when it has none, `None` when it is not carvable (a
/// capture failed, or it does not rebuild as `check` finds).
fn capture_after(
    target: &'static Target,
    after: impl FnOnce(&mut ArgsBuilder),
    check: impl FnOnce(&mut RebuildCheck<'_>),
) -> Option<Option<Value>> {
    let after = capturing(|| {
        let mut after_args = ArgsBuilder::default();
        after(&mut after_args);
        if after_args.fields.is_empty() && after_args.error.is_none() {
            Some(None)
        } else {
            after_args.finish_or_warn(target).map(Some)
        }
    });
    match after {
        Some(Some(state)) if !rebuilds_after(target, &state, check) => None,
        other => other,
    }
}

/// Where generated code puts a call's returned value while it is recorded
/// ([`CallFrame::finish_keyed`]): straight into the bytes of the call's key,
/// or, for a call that is new, into its [`Value`].
pub struct OutcomeSink<'a> {
    /// Keying: the key the value's bytes are appended to.
    key: Option<&'a mut Vec<u8>>,
    /// Whether the value could be keyed without building it.
    keyed: bool,
    /// Capturing: the value.
    value: Option<Result<Value, CaptureError>>,
}

impl OutcomeSink<'_> {
    /// Takes the returned value, as a [`Deferred`] of its form (`Ok(…)` of
    /// a `Result` taken apart, and so on).
    pub fn put(&mut self, value: impl Deferred) -> Result<(), CaptureError> {
        match &mut self.key {
            Some(key) => self.keyed = value.encode(key),
            None => self.value = Some(value.value()),
        }
        Ok(())
    }
}

/// What [`key_outcome`] made of a call's outcome.
enum OutcomeKey {
    /// Its bytes are in the key.
    Keyed,
    /// They can only be made from its [`Value`].
    Unkeyed,
    /// Reading the returned value panicked (its `Serialize` or `Display`):
    /// the call's outcome, with this message, as [`capture_outcome`] makes
    /// it (the value is not read again).
    Panicked(String),
}

/// Appends to `key` the outcome part of [`encode_observation`] of the call
/// that ended with `result`, made from the returned value itself by
/// `capture` (see [`OutcomeSink`]); `key` is left as it was unless
/// [`OutcomeKey::Keyed`].
fn key_outcome<R>(
    result: &std::thread::Result<R>,
    capture: &impl Fn(&R, &mut OutcomeSink<'_>) -> Result<(), CaptureError>,
    key: &mut Vec<u8>,
) -> OutcomeKey {
    let start = key.len();
    let keyed = match result {
        Ok(value) => {
            key.push(OUTCOME_RETURNED);
            let keyed = capturing(|| {
                quietly(|| {
                    panic::catch_unwind(AssertUnwindSafe(|| {
                        let mut sink = OutcomeSink {
                            key: Some(&mut *key),
                            keyed: false,
                            value: None,
                        };
                        capture(value, &mut sink).is_ok() && sink.keyed
                    }))
                })
            });
            match keyed {
                Ok(true) => OutcomeKey::Keyed,
                Ok(false) => OutcomeKey::Unkeyed,
                Err(payload) => OutcomeKey::Panicked(panic_message(&*payload)),
            }
        }
        Err(payload) => {
            key.push(OUTCOME_PANICKED);
            encode_bytes(panic_message(&**payload).as_bytes(), key);
            OutcomeKey::Keyed
        }
    };
    if !matches!(keyed, OutcomeKey::Keyed) {
        key.truncate(start);
    }
    keyed
}

/// Whether the call of key `key` (arguments up to `args_end`, see
/// [`TestRecording::push`]) repeats one the recording on this thread kept
/// already (as [`store`] finds it, noting it as [`store`] does).
fn kept_already(args: &FrameArgs, key: &[u8], args_end: usize) -> bool {
    let checked = args.checked();
    CURRENT.with(|c| {
        let c = c.borrow();
        let Some(rec) = c.as_ref() else {
            return false;
        };
        if let Some(number) = checked {
            if repeats_last(number, rec.id, &key[args_end..]) {
                return true;
            }
        }
        if rec.seen.find(hash_bytes(key), key).is_none() {
            return false;
        }
        if let Some(number) = checked {
            remember_last(number, rec.id, &key[args_end..]);
        }
        true
    })
}

/// How a call ended, its returned value captured by `capture`.
fn capture_outcome<R>(
    result: &std::thread::Result<R>,
    capture: impl FnOnce(&R) -> Result<Value, CaptureError>,
) -> Result<Outcome, CaptureError> {
    capturing(|| match result {
        // As in replay ([`crate::outcome::observe`]): a panic while the
        // returned value is captured (its `Display`) is the call's.
        Ok(value) => match quietly(|| panic::catch_unwind(AssertUnwindSafe(|| capture(value)))) {
            Ok(captured) => captured.map(Outcome::Returned),
            Err(payload) => Ok(Outcome::Panicked(panic_message(&*payload))),
        },
        Err(payload) => Ok(Outcome::Panicked(panic_message(&**payload))),
    })
}

/// Which values of a call are checked: its arguments, or the state of its
/// `&mut` arguments after it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Side {
    /// The arguments, as the call received them.
    Before,
    /// The `&mut` arguments' state after the call.
    After,
}

/// Rebuilds each value of a call from the form carve writes it in, with the
/// deserialization replay uses, and compares it with the original:
/// generated code calls [`RebuildCheck::param`] once per parameter.
pub struct RebuildCheck<'a> {
    written: &'a [(&'static str, Value)],
    failure: Option<NotRebuilt>,
}

/// A value that does not rebuild from its carved form.
#[derive(Debug, Clone)]
struct NotRebuilt {
    param: &'static str,
    /// Its carved form, as RON on one line.
    text: String,
    reason: String,
}

impl RebuildCheck<'_> {
    /// Checks parameter `name`: `rebuild` deserializes it from its carved
    /// text as replay does, `same` compares the rebuilt value with the
    /// original (given the captured form, for types without `Debug`). A
    /// panic in either is a failure to rebuild.
    pub fn param<T>(
        &mut self,
        name: &'static str,
        rebuild: impl Fn(&mut ron::Deserializer<'_>) -> Result<T, ron::Error>,
        same: impl FnOnce(&T, &Value) -> Result<(), String>,
    ) {
        if self.failure.is_some() {
            return;
        }
        let Some((_, written)) = self.written.iter().find(|(n, _)| *n == name) else {
            return;
        };
        // Rebuilding recurses once per level, on the test's own stack: a
        // value deeper than any stack holds is left to the store's depth check.
        if depth::depth(written) > depth::SHALLOW {
            return;
        }
        let checked = quietly(|| {
            panic::catch_unwind(AssertUnwindSafe(|| {
                let text = to_ron(written).map_err(|e| format!("it cannot be written: {e}"))?;
                let rebuilt = read_ron(&text, &rebuild).map_err(|e| e.code.to_string())?;
                same(&rebuilt, written)
            }))
        });
        let reason = match checked {
            Ok(Ok(())) => return,
            Ok(Err(reason)) => reason,
            Err(payload) => format!("rebuilding it panicked: {}", panic_message(&*payload)),
        };
        self.failure = Some(NotRebuilt {
            param: name,
            text: shorten(&to_one_line_ron(written)),
            reason,
        });
    }
}

/// The verdict of every set of values checked, by the key of (target,
/// side, values): a number that says it ([`Checked::verdict`]), so that a
/// repeated call reads nothing but the set's table and keys.
#[derive(Default)]
struct Checked {
    seen: Distinct,
    /// Values that do not rebuild: why, numbered [`FAILED`]` | index`.
    failures: Vec<NotRebuilt>,
    /// Arguments that rebuild, kept for calls keyed without capturing
    /// them ([`FrameArgs`]), numbered by index.
    args: Vec<Value>,
    /// By the same index, the last call kept or found with these
    /// arguments ([`repeats_last`]).
    last: Vec<LastCall>,
}

/// The last call with some arguments that a recording kept or found kept:
/// the recording's number and what the call did (its
/// [`encode_observation`]).
#[derive(Default)]
struct LastCall {
    recording: u64,
    observation: Vec<u8>,
}

/// The bit of [`Checked`]'s numbers of values that do not rebuild.
const FAILED: usize = 1 << (usize::BITS - 1);
/// [`Checked`]'s number of a state after a call that rebuilds (no
/// arguments kept).
const REBUILDS: usize = FAILED - 1;

impl Checked {
    /// The failure numbered `number`, if it is one.
    fn verdict(&self, number: usize) -> Option<NotRebuilt> {
        match number & FAILED {
            0 => None,
            _ => self.failures.get(number & !FAILED).cloned(),
        }
    }
}

/// The verdict on the values of a call of `target` keyed `key` (the
/// target's address and their [`encode`]ing, left as it was), if they were
/// checked on this thread: the number of their entry when they rebuild,
/// `Err` (the call counted in [`take_skipped`]) when they do not.
fn checked(target: &'static Target, side: Side, key: &mut Vec<u8>) -> Option<Result<usize, ()>> {
    key.push(side as u8);
    let hash = hash_bytes(key);
    let found = CHECKED.with(|c| {
        let c = c.borrow();
        let number = c.seen.find(hash, key)?;
        Some((number, c.verdict(number)))
    });
    key.pop();
    match found? {
        (number, None) => Some(Ok(number)),
        (_, Some(failure)) => {
            skip(target, side, failure);
            Some(Err(()))
        }
    }
}

/// Whether `values` (`(name: value, …)`) of a call of `target` rebuild,
/// checked by `check` the first time these values are seen on this thread;
/// a call whose values do not is counted in [`take_skipped`]. `key` is the
/// target's address and the [`encode`]ing of `values` (left as it was).
fn rebuilds(
    target: &'static Target,
    side: Side,
    values: &Value,
    key: &mut Vec<u8>,
    check: impl FnOnce(&mut RebuildCheck<'_>),
) -> bool {
    let Value::Struct(_, written) = values else {
        return true;
    };
    key.push(side as u8);
    let hash = hash_bytes(key);
    let known = CHECKED.with(|c| {
        let c = c.borrow();
        Some(c.verdict(c.seen.find(hash, key)?))
    });
    let verdict = match known {
        Some(verdict) => verdict,
        None => {
            let mut checking = RebuildCheck {
                written,
                failure: None,
            };
            capturing(|| check(&mut checking));
            let verdict = checking.failure;
            CHECKED.with(|c| {
                let mut c = c.borrow_mut();
                let number = match (&verdict, side) {
                    (Some(failure), _) => {
                        c.failures.push(failure.clone());
                        FAILED | (c.failures.len() - 1)
                    }
                    // Arguments that rebuild are kept for calls keyed
                    // without them.
                    (None, Side::Before) => {
                        c.args.push(values.clone());
                        c.last.push(LastCall::default());
                        c.args.len() - 1
                    }
                    (None, Side::After) => REBUILDS,
                };
                c.seen.insert(hash, key, number);
            });
            verdict
        }
    };
    key.pop();
    match verdict {
        None => true,
        Some(failure) => {
            skip(target, side, failure);
            false
        }
    }
}

/// [`rebuilds`] of the state `state` of a call's `&mut` arguments after it.
fn rebuilds_after(
    target: &'static Target,
    state: &Value,
    check: impl FnOnce(&mut RebuildCheck<'_>),
) -> bool {
    let mut key = Vec::new();
    start_key(target, state, &mut key);
    rebuilds(target, Side::After, state, &mut key, check)
}

/// Makes `key` the start of the key of a call of `target` with `values`
/// (its arguments, or their state after it): the target's address and the
/// [`encode`]ing of the values ([`TestRecording::push`], [`rebuilds`]).
fn start_key(target: &'static Target, values: &Value, key: &mut Vec<u8>) {
    key.clear();
    key.extend_from_slice(&(target as *const Target as usize).to_le_bytes());
    encode(values, key);
}

/// Calls not carved because a value of theirs does not rebuild, by target
/// and parameter, in the order first seen.
static SKIPPED: Mutex<Vec<SkippedHere>> = Mutex::new(Vec::new());

/// The first value of a target's parameter that did not rebuild, the
/// target whose call it was made in (if nested), the test it was seen in,
/// and how many calls were skipped for the parameter.
struct SkippedHere {
    target: &'static Target,
    side: Side,
    failure: NotRebuilt,
    inside: Option<&'static Target>,
    test: String,
    calls: usize,
}

fn skip(target: &'static Target, side: Side, failure: NotRebuilt) {
    let inside = ENCLOSING.with(Cell::get);
    let mut skipped = lock(&SKIPPED);
    let seen = skipped.iter_mut().find(|s| {
        std::ptr::eq(s.target, target)
            && s.side == side
            && s.failure.param == failure.param
            && s.inside.map(|t| t as *const Target) == inside.map(|t| t as *const Target)
    });
    if let Some(seen) = seen {
        seen.calls += 1;
        return;
    }
    let test = CURRENT
        .with(|c| c.borrow().as_ref().map(|r| r.test.clone()))
        .or_else(|| lock(&ACTIVE).first().map(|a| a.name.clone()))
        .unwrap_or_default();
    skipped.push(SkippedHere {
        target,
        side,
        failure,
        inside,
        test,
        calls: 1,
    });
}

/// Calls that were not carved because a value of theirs does not rebuild
/// from its carved form: one per target, parameter and side, with the
/// first such value seen.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Skipped {
    /// The target's name.
    pub target: String,
    /// The parameter.
    pub param: String,
    /// Whether its state after the call is what does not rebuild.
    pub side: Side,
    /// The first value that does not rebuild, as carve would write it.
    pub text: String,
    /// Why it does not rebuild.
    pub reason: String,
    /// The target whose call these calls were made in, when nested in one:
    /// a value that target is still building need not rebuild.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inside: Option<String>,
    /// The system test it was first seen in.
    pub test: String,
    /// How many calls were skipped for it.
    pub calls: usize,
}

impl Skipped {
    /// What the run says about it, once: what was not carved and why,
    /// where it was seen, and the way out.
    pub fn message(&self) -> String {
        let Skipped {
            target,
            param,
            side,
            text,
            reason,
            inside,
            test,
            calls,
        } = self;
        let when = match side {
            Side::Before => "",
            Side::After => " in its state after the call",
        };
        let (made, way_out) = match inside {
            // Another target may hand it a value half built (a `Url` between
            // two of its own updates): nothing is wrong with the user's
            // round trip, and that target's own call is carved.
            Some(outer) => (
                format!(" made inside a call of `{outer}`"),
                format!(
                    "A target called by another may see a value that one is still building: \
                     the call of `{outer}` is carved as a whole (when its own values rebuild), \
                     and calls of `{target}` made outside it are carved as usual."
                ),
            ),
            None => (
                String::new(),
                "Replay rebuilds arguments from what carve writes: make `FromStr` accept what \
                 `Display` writes (or `Deserialize` read what `Serialize` writes) to carve them."
                    .to_owned(),
            ),
        };
        format!(
            "carve: not carving calls of `{target}`{made} whose argument `{param}` does not \
             rebuild{when}: {text} -> {reason} (first seen in system test `{test}`; {calls} \
             such call(s) skipped). {way_out}"
        )
    }

    /// Adds the calls skipped in another run for the same parameter.
    pub fn absorb(&mut self, other: &Skipped) {
        self.calls += other.calls;
    }

    /// Whether `other` is about the same target, parameter and side, made
    /// inside the same target's calls (or neither nested).
    pub fn same_param(&self, other: &Skipped) -> bool {
        (&self.target, &self.param, self.side, &self.inside)
            == (&other.target, &other.param, other.side, &other.inside)
    }
}

/// Takes the calls skipped so far in this process because a value of theirs
/// does not rebuild.
pub fn take_skipped() -> Vec<Skipped> {
    std::mem::take(&mut *lock(&SKIPPED))
        .into_iter()
        .map(|s| Skipped {
            target: s.target.name(),
            param: s.failure.param.to_owned(),
            side: s.side,
            text: s.failure.text,
            reason: s.failure.reason,
            inside: s.inside.map(Target::name),
            test: s.test,
            calls: s.calls,
        })
        .collect()
}

/// Calls of generic targets at instantiations their attribute does not
/// list: per function and instantiation, the first system test and a count.
static UNLISTED: Mutex<BTreeMap<(String, String), (String, usize)>> =
    Mutex::new(BTreeMap::new());

/// Notes a call of the generic target `function` (in `module_path`) at an
/// instantiation its attribute does not list: `names` are its generic
/// parameters (and `impl Trait` parameters), `types` their types in this
/// call. Only while recording; the record run says so once per function and
/// instantiation ([`Unlisted::message`]).
pub fn unlisted(module_path: &str, function: &str, names: &[&str], types: &[&str]) {
    if !is_recording() || is_capturing() {
        return;
    }
    let function = crate::registry::path_in_crate(module_path, function);
    let bindings: Vec<String> = names
        .iter()
        .zip(types)
        .map(|(name, ty)| format!("{name} = {}", crate::shapes::short_type_name(ty)))
        .collect();
    let test = current_test().unwrap_or_default();
    let mut unlisted = lock(&UNLISTED);
    unlisted
        .entry((function, bindings.join(", ")))
        .or_insert((test, 0))
        .1 += 1;
}

/// Calls of a generic target not carved: their instantiation is not listed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unlisted {
    /// The function's path in its crate (`parse`, `Stack::push`).
    pub function: String,
    /// The instantiation (`S = Cow<str>`).
    pub bindings: String,
    /// The system test it was first seen in.
    pub test: String,
    /// How many calls.
    pub calls: usize,
}

impl Unlisted {
    /// What the record run says about it, once.
    pub fn message(&self) -> String {
        let Unlisted {
            function,
            bindings,
            test,
            calls,
        } = self;
        let seen = format!(
            "carve: not carving calls of `{function}` at `{bindings}`, an instantiation its \
             attribute does not list (first seen in system test `{test}`; {calls} call(s))."
        );
        // A closure's type has no name to write in `generics(…)`: the crate's
        // own calls through `map(|…| …)` (shlex's `join`) reach it so.
        match bindings.contains("{{closure}}") {
            true => format!(
                "{seen} Its type holds a closure, which no `generics(…)` can name: call it at a \
                 type you can name in a system test to carve it."
            ),
            false => format!("{seen} Add `generics({bindings})` to its `#[carve::target(…)]` to carve them."),
        }
    }

    /// Adds the calls of another run.
    pub fn absorb(&mut self, other: &Unlisted) {
        self.calls += other.calls;
    }
}

/// Takes the unlisted calls noted so far in this process.
pub fn take_unlisted() -> Vec<Unlisted> {
    std::mem::take(&mut *lock(&UNLISTED))
        .into_iter()
        .map(|((function, bindings), (test, calls))| Unlisted {
            function,
            bindings,
            test,
            calls,
        })
        .collect()
}

/// Keeps the call of `target` with `args` that did `observation` (of key
/// `key`, see [`TestRecording::push`]) in the recording of the test it
/// belongs to; a call that repeats one kept there is dropped as it is,
/// without its [`Call`] being made.
///
/// `key[args_end..]` is what the call did: a call with arguments keyed
/// without capturing them that did what the last one with these
/// arguments did ([`repeats_last`]) is known to repeat without looking its
/// key up.
fn store(
    target: &'static Target,
    args: FrameArgs,
    observation: Observation,
    key: Vec<u8>,
    args_end: usize,
) {
    let checked = args.checked();
    let recording = CURRENT.with(|c| c.borrow().as_ref().map(|r| r.id));
    if let (Some(number), Some(recording)) = (checked, recording) {
        if repeats_last(number, recording, &key[args_end..]) {
            SCRATCH.with(|s| s.set(key));
            return;
        }
    }
    let hash = hash_bytes(&key);
    let unowned = CURRENT.with(|c| match c.borrow_mut().as_mut() {
        Some(rec) => {
            let kept = rec.push_new(&key, hash, || {
                Some(Call {
                    target,
                    args: args.into_value()?,
                    observation,
                })
            });
            if let (true, Some(number)) = (kept, checked) {
                remember_last(number, rec.id, &key[args_end..]);
            }
            None
        }
        None => Some((args, observation)),
    });
    match unowned {
        None => SCRATCH.with(|s| s.set(key)),
        Some((args, observation)) => {
            let Some(args) = args.into_value() else {
                return;
            };
            let call = Call {
                target,
                args,
                observation,
            };
            if let [only] = lock(&ACTIVE).as_mut_slice() {
                only.foreign_calls.push((call, key));
            }
        }
    }
}

/// Whether the last call with the arguments numbered `number` in
/// [`Checked`] was kept (or found kept) by the recording numbered
/// `recording` and did `observation` (its [`encode_observation`]): then a
/// call with these arguments that did it too repeats one kept there.
fn repeats_last(number: usize, recording: u64, observation: &[u8]) -> bool {
    CHECKED.with(|c| {
        let c = c.borrow();
        c.last.get(number).is_some_and(|last| {
            last.recording == recording && last.observation == observation
        })
    })
}

/// Notes that the recording numbered `recording` keeps a call with the
/// arguments numbered `number` that did `observation` ([`repeats_last`]).
fn remember_last(number: usize, recording: u64, observation: &[u8]) {
    CHECKED.with(|c| {
        if let Some(last) = c.borrow_mut().last.get_mut(number) {
            last.recording = recording;
            last.observation.clear();
            last.observation.extend_from_slice(observation);
        }
    });
}

/// [`encode`] of what a call did: equal bytes exactly when the
/// observations are equal.
fn encode_observation(observation: &Observation, out: &mut Vec<u8>) {
    match &observation.outcome {
        Outcome::Returned(value) => {
            out.push(OUTCOME_RETURNED);
            encode(value, out);
        }
        Outcome::Panicked(message) => {
            out.push(OUTCOME_PANICKED);
            encode_bytes(message.as_bytes(), out);
        }
        Outcome::Crashed(message) => {
            out.push(OUTCOME_CRASHED);
            encode_bytes(message.as_bytes(), out);
        }
    }
    encode_after(&observation.after, out);
}

/// The first byte of [`encode_observation`] of a call that returned.
const OUTCOME_RETURNED: u8 = 0;
/// The first byte of [`encode_observation`] of a call that panicked.
const OUTCOME_PANICKED: u8 = 1;
/// The first byte of [`encode_observation`] of a call that crashed.
const OUTCOME_CRASHED: u8 = 2;

/// The part of [`encode_observation`] that says the state of a call's
/// `&mut` arguments after it.
fn encode_after(after: &Option<Value>, out: &mut Vec<u8>) {
    match after {
        None => out.push(0),
        Some(after) => {
            out.push(1);
            encode(after, out);
        }
    }
}

/// The hash [`Distinct`] finds keys by.
fn hash_bytes(bytes: &[u8]) -> u64 {
    let mut hasher = FastHasher::default();
    hasher.write(bytes);
    hasher.finish()
}

/// A set of distinct keys (byte strings), each with a number: found by
/// their hash and compared in full, so that keys with one hash are told
/// apart. The keys are kept end to end in one buffer; the table holds, per
/// key, its hash, where its bytes are and its number, so that a lookup reads
/// one entry and the key's bytes.
#[derive(Debug, Default)]
struct Distinct {
    table: hashbrown::HashTable<Entry>,
    bytes: Vec<u8>,
}

/// A key of [`Distinct`]: its hash, its bytes (`bytes[start..end]`) and
/// its number.
#[derive(Debug, Clone, Copy)]
struct Entry {
    hash: u64,
    start: usize,
    end: usize,
    number: usize,
}

impl Distinct {
    /// The number of `key` (of hash `hash`), if it is in the set.
    fn find(&self, hash: u64, key: &[u8]) -> Option<usize> {
        let bytes = &self.bytes;
        self.table
            .find(hash, |e| e.hash == hash && bytes.get(e.start..e.end) == Some(key))
            .map(|e| e.number)
    }

    /// Adds `key` (of hash `hash`, not in the set) with its number.
    fn insert(&mut self, hash: u64, key: &[u8], number: usize) {
        let start = self.bytes.len();
        self.bytes.extend_from_slice(key);
        let entry = Entry {
            hash,
            start,
            end: self.bytes.len(),
            number,
        };
        self.table.insert_unique(hash, entry, |e| e.hash);
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // A panic while holding these locks cannot leave them inconsistent (every
    // critical section is a push or a take), so poisoning is ignored.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A fast non-cryptographic hasher (FxHash's mixing) for deduplicating
/// calls, and for generation's fingerprints of what a call did.
#[derive(Default)]
pub(crate) struct FastHasher(u64);

impl Hasher for FastHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
        let mut tail = [0u8; 8];
        tail[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
        self.write_u64(u64::from_le_bytes(tail) ^ bytes.len() as u64);
    }
    fn write_u64(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::Sites;
    use std::collections::HashMap;

    /// The recorder is process-wide: its tests take turns.
    static TURNS: Mutex<()> = Mutex::new(());

    /// `Value`'s `==` (field by field, names by address first) and the
    /// recorder's keys decide which calls are the same: `==` must say what
    /// `Value`'s order says, on every kind, with names equal in text at
    /// other addresses, floats by their bits and a variant's index not
    /// looked at; values must be encoded alike exactly when equal, and runs
    /// of encodings too (none is the start of another).
    #[test]
    fn values_equality_agrees_with_their_order_and_equal_values_hash_alike() {
        let other = |name: &str| -> &'static str { String::leak(name.to_owned()) };
        let variant = |name: &'static str, index, variant: &'static str| Value::UnitVariant {
            name,
            index,
            variant,
        };
        let values = vec![
            Value::Unit,
            Value::None,
            Value::Bool(true),
            Value::Bool(false),
            Value::I64(-1),
            Value::U64(1),
            Value::I128(-1),
            Value::U128(1 << 70),
            Value::F32(0.0),
            Value::F32(-0.0),
            Value::F64(f64::NAN),
            Value::F64(-0.0),
            Value::F64(0.0),
            Value::Char('a'),
            Value::Str("a".into()),
            Value::Str("ab".into()),
            Value::Bytes(vec![1, 2]),
            Value::Some(Box::new(Value::I64(1))),
            Value::Some(Box::new(Value::I64(2))),
            Value::UnitStruct("S"),
            Value::UnitStruct(other("S")),
            variant("E", 0, "A"),
            variant(other("E"), 1, other("A")),
            variant("E", 0, "B"),
            Value::NewtypeStruct("N", Box::new(Value::Unit)),
            Value::NewtypeVariant { name: "E", index: 0, variant: "A", value: Box::new(Value::Unit) },
            Value::NewtypeVariant { name: "E", index: 3, variant: other("A"), value: Box::new(Value::Unit) },
            Value::Seq(vec![Value::I64(1)]),
            Value::Seq(vec![Value::I64(1), Value::I64(2)]),
            Value::Tuple(vec![Value::I64(1)]),
            Value::TupleStruct("T", vec![Value::I64(1)]),
            Value::TupleVariant { name: "E", index: 0, variant: "T", fields: vec![Value::I64(1)] },
            Value::Map(vec![(Value::I64(1), Value::Str("a".into()))]),
            Value::Map(vec![(Value::I64(1), Value::Str("b".into()))]),
            Value::Struct(UNNAMED, vec![("s", Value::Str("a".into()))]),
            Value::Struct(UNNAMED, vec![(other("s"), Value::Str("a".into()))]),
            Value::Struct(UNNAMED, vec![("t", Value::Str("a".into()))]),
            Value::Struct("P", vec![("s", Value::Str("a".into()))]),
            Value::StructVariant { name: "E", index: 0, variant: "S", fields: vec![("s", Value::Unit)] },
            Value::StructVariant { name: "E", index: 1, variant: "S", fields: vec![("s", Value::Unit)] },
        ];
        let encoded = |run: &[&Value]| {
            let mut out = Vec::new();
            run.iter().for_each(|v| encode(v, &mut out));
            out
        };
        let mut equal_pairs = 0;
        for a in &values {
            for b in &values {
                assert_eq!(a == b, a.cmp(b).is_eq(), "{a:?} and {b:?}");
                assert_eq!(a == b, encoded(&[a]) == encoded(&[b]), "{a:?} and {b:?}");
                equal_pairs += usize::from(a == b);
                for c in &values[..12] {
                    for d in &values[..12] {
                        let same = a == b && c == d;
                        assert_eq!(same, encoded(&[a, c]) == encoded(&[b, d]), "{a:?} {c:?}");
                    }
                }
            }
        }
        assert!(equal_pairs > values.len(), "some equal pairs are not the same value twice");
        let call = |outcome| Call {
            target: &HALF,
            args: Value::Struct(UNNAMED, vec![("e", Value::U64(4))]),
            observation: Observation { outcome, after: None },
        };
        let calls = [
            call(Outcome::Returned(Value::U64(2))),
            call(Outcome::Returned(Value::U64(3))),
            call(Outcome::Panicked("odd".into())),
            call(Outcome::Crashed("odd".into())),
            Call {
                observation: Observation {
                    outcome: Outcome::Returned(Value::U64(2)),
                    after: Some(Value::Unit),
                },
                ..call(Outcome::Panicked(String::new()))
            },
        ];
        // Calls that differ in outcome, its kind or the state after: each
        // is the same call as itself only, and as its copy.
        for (i, a) in calls.iter().enumerate() {
            for (j, b) in calls.iter().enumerate() {
                assert_eq!(a == b, i == j, "{a:?} and {b:?}");
                assert_eq!(key_of(a) == key_of(b), i == j, "{a:?} and {b:?}");
            }
            assert!(*a == a.clone());
        }
    }

    /// [`TestRecording::push`]'s key of `call`, as [`begin`] and
    /// [`CallFrame::finish`] make it.
    fn key_of(call: &Call) -> Vec<u8> {
        let mut key = Vec::new();
        start_key(call.target, &call.args, &mut key);
        encode_observation(&call.observation, &mut key);
        key
    }

    /// A call of `half` with argument `e` returning `returned`.
    fn half_call(e: u64, returned: u64) -> Call {
        Call {
            target: &HALF,
            args: Value::Struct(UNNAMED, vec![("e", Value::U64(e))]),
            observation: Observation {
                outcome: Outcome::Returned(Value::U64(returned)),
                after: None,
            },
        }
    }

    #[test]
    fn distinct_calls_whose_keys_hash_alike_are_all_kept_and_repeats_are_not() {
        let calls = [(4, 2), (6, 3), (4, 2), (4, 3), (8, 4), (6, 3), (4, 2)];
        let kept = |hash: &dyn Fn(&[u8]) -> u64| {
            let mut recording = TestRecording::new("halves");
            for (e, returned) in calls {
                let call = half_call(e, returned);
                let key = key_of(&call);
                recording.push_hashed(call, &key, hash(&key));
            }
            let kept: Vec<(Value, Outcome)> = recording
                .calls
                .into_iter()
                .map(|c| (c.args, c.observation.outcome))
                .collect();
            kept
        };
        let first_of_each: Vec<(Value, Outcome)> = [(4, 2), (6, 3), (4, 3), (8, 4)]
            .into_iter()
            .map(|(e, r)| half_call(e, r))
            .map(|c| (c.args, c.observation.outcome))
            .collect();
        // Every key of one hash: only the comparison in full tells calls
        // apart, and each distinct one is kept once, in first-seen order.
        assert_eq!(kept(&|_| 7), first_of_each);
        assert_eq!(kept(&|key| key.len() as u64), first_of_each);
        assert_eq!(kept(&hash_bytes), first_of_each);
    }

    #[test]
    fn a_set_of_keys_tells_apart_keys_of_one_hash_and_keeps_their_numbers() {
        let mut set = Distinct::default();
        let keys: [&[u8]; 4] = [b"a", b"ab", b"", b"b"];
        for (number, key) in keys.iter().enumerate() {
            assert_eq!(set.find(1, key), None);
            set.insert(1, key, number);
        }
        set.insert(2, b"c", 9);
        for (number, key) in keys.iter().enumerate() {
            assert_eq!(set.find(1, key), Some(number), "{key:?}");
            assert_eq!(set.find(2, key), None, "found by its hash only");
        }
        assert_eq!(set.find(2, b"c"), Some(9));
        assert_eq!(set.find(1, b"c"), None);
        assert_eq!(set.find(1, b"abc"), None);
    }

    /// Over many keys (the table grows) with hashes that often collide,
    /// and in the top bits that place them: each key is found with its
    /// number, by its hash only, as a map from (hash, key) finds it.
    #[test]
    fn a_set_of_keys_finds_each_key_as_a_map_does() {
        use rand::rngs::StdRng;
        use rand::{RngExt, SeedableRng};
        let mut rng = StdRng::seed_from_u64(5);
        for round in 0..20 {
            let mut set = Distinct::default();
            let mut map: HashMap<(u64, Vec<u8>), usize> = HashMap::new();
            let hashes: Vec<u64> = (0..rng.random_range(1..40))
                .map(|_| match rng.random_bool(0.5) {
                    true => rng.random(),
                    false => rng.random_range(0..4u64) << 62 | rng.random_range(0..3u64),
                })
                .collect();
            for number in 0..rng.random_range(0..300) {
                let hash = hashes[rng.random_range(0..hashes.len())];
                let key: Vec<u8> = (0..rng.random_range(0..4)).map(|_| rng.random_range(0..3)).collect();
                let found = set.find(hash, &key);
                assert_eq!(found, map.get(&(hash, key.clone())).copied(), "round {round}");
                if found.is_none() {
                    set.insert(hash, &key, number);
                    map.insert((hash, key), number);
                }
            }
            for ((hash, key), number) in &map {
                assert_eq!(set.find(*hash, key), Some(*number), "round {round}");
            }
        }
    }

    #[test]
    fn a_repeated_call_is_kept_once_and_its_key_is_made_as_the_call_is() {
        let _turn = lock(&TURNS);
        start();
        let rebuilds = Cell::new(0);
        record_test("repeats", || {
            for e in [4, 6, 4, 4, 8, 6] {
                half(e, &rebuilds);
            }
        });
        let recordings = stop();
        let mine = recordings.iter().find(|r| r.test == "repeats").unwrap();
        let args: Vec<String> = mine.calls.iter().map(|c| c.args.to_compact_ron()).collect();
        assert_eq!(args, ["(e:\"4\")", "(e:\"6\")", "(e:\"8\")"]);
        for call in &mine.calls {
            let key = key_of(call);
            assert!(mine.seen.find(hash_bytes(&key), &key).is_some(), "{call:?}");
        }
    }

    static SITES: Sites = Sites::new("demo", "half", "", (0, 0), &[], &[]);
    static HALF: Target = Target {
        module_path: "demo",
        fn_name: "half",
        signature: "fn half(e: Even) -> u32",
        file: "",
        line: 0,
        sites: &SITES,
        replay: |_| unreachable!(),
        trace: |_| {},
        uncarvable: || None,
    };

    /// A call of `half(e)` as generated code makes it, with `e` rebuilt
    /// from its text by a parser that rejects odd numbers; counts rebuilds.
    fn half(e: u32, rebuilds: &Cell<usize>) -> u32 {
        let frame = begin(
            &HALF,
            |args| args.arg("e", Ok(Value::Str(e.to_string()))),
            |check| {
                check.param(
                    "e",
                    |de| {
                        rebuilds.set(rebuilds.get() + 1);
                        let text = <String as serde::Deserialize>::deserialize(de)?;
                        match text.parse::<u32>() {
                            Ok(n) if n % 2 == 0 => Ok(n),
                            _ => Err(ron::Error::Message("odd number".into())),
                        }
                    },
                    |rebuilt, _| match *rebuilt == e {
                        true => Ok(()),
                        false => Err("another number".into()),
                    },
                )
            },
        );
        match frame {
            Some(frame) => frame.finish(Ok(e / 2), Value::capture, |_| {}, |_| {}),
            None => e / 2,
        }
    }

    /// An argument that counts how often the recorder builds its value
    /// and keys it; `keyed: false` makes it one keyed from its value only
    /// (as a hash map is).
    struct Counted<'a> {
        value: Value,
        keyed: bool,
        built: &'a Cell<usize>,
    }

    impl Deferred for Counted<'_> {
        fn value(self) -> Result<Value, CaptureError> {
            self.built.set(self.built.get() + 1);
            Ok(self.value)
        }
        fn encode(&self, out: &mut Vec<u8>) -> bool {
            if self.keyed {
                encode(&self.value, out);
            }
            self.keyed
        }
    }

    /// A call of `half` as generated code makes it, with argument `e`
    /// given as `arg` makes it and `returned` as its outcome.
    fn call_half<'a>(arg: impl Fn() -> Counted<'a>, returned: Value) {
        let frame = begin(&HALF, |args| args.arg("e", arg()), |_| {});
        if let Some(frame) = frame {
            frame.finish(Ok(()), |_| Ok(returned), |_| {}, |_| {});
        }
    }

    /// The `(argument, outcome)` of each call `test` carved.
    fn carved(recordings: &[TestRecording], test: &str) -> Vec<(Value, Outcome)> {
        let mine = recordings.iter().find(|r| r.test == test).unwrap();
        mine.calls
            .iter()
            .map(|c| match &c.args {
                Value::Struct(_, fields) => (fields[0].1.clone(), c.observation.outcome.clone()),
                other => panic!("{other:?}"),
            })
            .collect()
    }

    #[test]
    fn a_repeated_call_is_keyed_from_its_arguments_without_building_them() {
        let _turn = lock(&TURNS);
        for keyed in [true, false] {
            start();
            let built = Cell::new(0);
            let test = format!("keyed {keyed}");
            let es = [4, 6, 4, 4, 8, 6];
            record_test(&test, || {
                for e in es {
                    let arg = || Counted {
                        value: Value::U64(e),
                        keyed,
                        built: &built,
                    };
                    call_half(arg, Value::U64(e / 2));
                }
            });
            let kept = carved(&stop(), &test);
            let first: Vec<(Value, Outcome)> = [4, 6, 8]
                .map(|e| (Value::U64(e), Outcome::Returned(Value::U64(e / 2))))
                .into();
            assert_eq!(kept, first);
            // Keyed on the way, each distinct argument is built once;
            // keyed from its value, every time.
            let builds = if keyed { 3 } else { es.len() };
            assert_eq!(built.get(), builds, "keyed: {keyed}");
        }
    }

    #[test]
    fn a_call_repeated_in_the_next_test_on_the_thread_is_carved_in_it_too() {
        let _turn = lock(&TURNS);
        start();
        let built = Cell::new(0);
        for test in ["first", "second"] {
            record_test(test, || {
                for _ in 0..3 {
                    let arg = || Counted {
                        value: Value::U64(4),
                        keyed: true,
                        built: &built,
                    };
                    call_half(arg, Value::U64(2));
                }
            });
        }
        let recordings = stop();
        let once = vec![(Value::U64(4), Outcome::Returned(Value::U64(2)))];
        assert_eq!(carved(&recordings, "first"), once);
        assert_eq!(carved(&recordings, "second"), once);
        assert_eq!(built.get(), 1, "checked once on this thread");
    }

    #[test]
    fn a_repeated_argument_with_a_new_outcome_is_carved_with_the_argument_kept() {
        let _turn = lock(&TURNS);
        start();
        let built = Cell::new(0);
        record_test("outcomes", || {
            for (e, returned) in [(10, 5), (10, 6), (10, 5), (12, 6), (10, 6)] {
                let arg = || Counted {
                    value: Value::Str(format!("{e}")),
                    keyed: true,
                    built: &built,
                };
                call_half(arg, Value::U64(returned));
            }
        });
        let kept = carved(&stop(), "outcomes");
        let expected: Vec<(Value, Outcome)> = [("10", 5), ("10", 6), ("12", 6)]
            .map(|(e, r)| (Value::Str(e.into()), Outcome::Returned(Value::U64(r))))
            .into();
        assert_eq!(kept, expected);
        assert_eq!(built.get(), 2, "10 and 12");
    }

    #[test]
    fn hash_maps_and_odd_floats_are_keyed_as_their_captured_values_are() {
        use crate::value::form::{ArgProbe, ViaSerde as _};
        let _turn = lock(&TURNS);
        start();
        record_test("odd values", || {
            // Equal maps whose iteration orders differ: one call, as their
            // captured values are sorted.
            let maps: Vec<HashMap<String, u32>> = (0..4)
                .map(|n| (0..8).map(|i| (format!("k{}", (i + n) % 8), 1)).collect())
                .collect();
            for map in &maps {
                let form = (&&&&ArgProbe::<HashMap<String, u32>>::new()).arg_form();
                let frame = begin(&HALF, |args| args.arg("e", form.defer(map)), |_| {});
                if let Some(frame) = frame {
                    frame.finish(Ok(()), |_| Ok(Value::Unit), |_| {}, |_| {});
                }
            }
            // Floats by their bits: NaN is itself, -0.0 is not 0.0.
            for x in [0.0, -0.0, f64::NAN, f64::NAN, 0.0, -0.0] {
                let form = (&&&&ArgProbe::<f64>::new()).arg_form();
                let frame = begin(&HALF, |args| args.arg("e", form.defer(&x)), |_| {});
                if let Some(frame) = frame {
                    frame.finish(Ok(()), |_| Ok(Value::Unit), |_| {}, |_| {});
                }
            }
        });
        let kept = carved(&stop(), "odd values");
        let texts: Vec<String> = kept.iter().map(|(v, _)| v.to_compact_ron()).collect();
        assert_eq!(
            texts,
            [
                r#"{"k0":1,"k1":1,"k2":1,"k3":1,"k4":1,"k5":1,"k6":1,"k7":1}"#,
                "0.0",
                "-0.0",
                "NaN"
            ]
        );
    }

    /// Whatever the mix of calls, of arguments keyed on the way or from
    /// their values: the calls carved are the distinct ones (by `Value`'s
    /// `==` of arguments and outcome), each once, in first-seen order.
    #[test]
    fn calls_carved_are_the_distinct_calls_in_first_seen_order() {
        use rand::rngs::StdRng;
        use rand::{RngExt, SeedableRng};
        let _turn = lock(&TURNS);
        let mut rng = StdRng::seed_from_u64(25);
        let args = [
            Value::F64(0.0),
            Value::F64(-0.0),
            Value::F64(f64::NAN),
            Value::Str("a".into()),
            Value::Str("ab".into()),
            Value::Seq(vec![Value::Str("a".into()), Value::Str("b".into())]),
            Value::Seq(vec![Value::Str("ab".into())]),
            Value::UnitStruct("A"),
            Value::UnitStruct(String::leak("A".to_owned())),
        ];
        let outcomes = [Value::U64(1), Value::U64(2), Value::F32(-0.0)];
        for round in 0..20 {
            let calls: Vec<(usize, usize, bool)> = (0..60)
                .map(|_| {
                    let arg = rng.random_range(0..args.len());
                    let outcome = rng.random_range(0..outcomes.len());
                    (arg, outcome, rng.random_bool(0.7))
                })
                .collect();
            start();
            let built = Cell::new(0);
            let test = format!("round {round}");
            record_test(&test, || {
                for &(arg, outcome, keyed) in &calls {
                    let value = args[arg].clone();
                    let make = || Counted {
                        value: value.clone(),
                        keyed,
                        built: &built,
                    };
                    call_half(make, outcomes[outcome].clone());
                }
            });
            let kept = carved(&stop(), &test);
            let mut expected: Vec<(Value, Outcome)> = Vec::new();
            for &(arg, outcome, _) in &calls {
                let call = (args[arg].clone(), Outcome::Returned(outcomes[outcome].clone()));
                if !expected.contains(&call) {
                    expected.push(call);
                }
            }
            assert_eq!(kept, expected, "round {round}");
        }
    }

    /// A returned value that counts how often the recorder builds its
    /// `Value` and keys it; `keyed: false` makes it one keyed from its
    /// value only (as a hash map is).
    struct CountedOutcome<'a> {
        value: Value,
        keyed: bool,
        built: &'a Cell<usize>,
    }

    impl Deferred for &CountedOutcome<'_> {
        fn value(self) -> Result<Value, CaptureError> {
            self.built.set(self.built.get() + 1);
            Ok(self.value.clone())
        }
        fn encode(&self, out: &mut Vec<u8>) -> bool {
            if self.keyed {
                encode(&self.value, out);
            }
            self.keyed
        }
    }

    #[test]
    fn a_repeated_call_is_keyed_from_its_returned_value_without_building_it() {
        let _turn = lock(&TURNS);
        for keyed in [true, false] {
            start();
            let built = Cell::new(0);
            let test = format!("outcome keyed {keyed}");
            let calls = [(4, 2), (4, 2), (6, 3), (4, 2), (4, 5), (6, 3), (4, 5)];
            record_test(&test, || {
                for (e, returned) in calls {
                    let frame = begin(&HALF, |args| args.arg("e", Ok(Value::U64(e))), |_| {});
                    let outcome = CountedOutcome {
                        value: Value::U64(returned),
                        keyed,
                        built: &built,
                    };
                    if let Some(frame) = frame {
                        frame.finish_keyed(Ok(outcome), |v, sink| sink.put(v), |_| {}, |_| {});
                    }
                }
            });
            let kept = carved(&stop(), &test);
            let distinct: Vec<(Value, Outcome)> = [(4, 2), (6, 3), (4, 5)]
                .map(|(e, r)| (Value::U64(e), Outcome::Returned(Value::U64(r))))
                .into();
            assert_eq!(kept, distinct);
            // Keyed on the way, each distinct outcome is built once (for
            // the call that is kept); keyed from its value, every time.
            let builds = if keyed { 3 } else { calls.len() };
            assert_eq!(built.get(), builds, "keyed: {keyed}");
        }
    }

    /// A returned value whose `Serialize` fails, or panics.
    struct Refuses {
        panics: bool,
    }

    impl Serialize for Refuses {
        fn serialize<S: serde::Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
            match self.panics {
                true => panic!("serialize panicked"),
                false => Err(serde::ser::Error::custom("refused")),
            }
        }
    }

    /// Every kind of returned value, as a call of `half` returns it: by
    /// its index in [`returned`]'s pool, or (`None`) a panic of the call.
    fn returned(index: Option<usize>) -> std::thread::Result<Box<dyn erased::Returned>> {
        let Some(index) = index else {
            return Err(Box::new("the call panicked"));
        };
        let map = |n: usize| -> HashMap<String, u32> {
            (0..8).map(|i| (format!("k{}", (i + n) % 8), i as u32)).collect()
        };
        let pool: Vec<Box<dyn erased::Returned>> = vec![
            Box::new("a".to_owned()),
            Box::new("b".to_owned()),
            Box::new(Ok::<_, String>((1u8, Some("x".to_owned())))),
            Box::new(Err::<(u8, Option<String>), _>("e".to_owned())),
            Box::new(f64::NAN),
            Box::new(0.0f64),
            Box::new(-0.0f64),
            // Equal maps that iterate in other orders: keyed from their
            // sorted `Value`.
            Box::new(map(0)),
            Box::new(map(3)),
            Box::new(Refuses { panics: false }),
            Box::new(Refuses { panics: true }),
            Box::new(vec![1u8, 2]),
        ];
        Ok(pool.into_iter().nth(index).expect("in the pool"))
    }

    /// A `Serialize` value of any type, for a pool of returned values.
    mod erased {
        pub trait Returned {
            fn value(&self) -> Result<crate::value::Value, crate::value::CaptureError>;
            fn sink(
                &self,
                sink: &mut super::OutcomeSink<'_>,
            ) -> Result<(), crate::value::CaptureError>;
        }

        impl<T: serde::Serialize> Returned for T {
            fn value(&self) -> Result<crate::value::Value, crate::value::CaptureError> {
                crate::value::Value::capture(self)
            }
            fn sink(
                &self,
                sink: &mut super::OutcomeSink<'_>,
            ) -> Result<(), crate::value::CaptureError> {
                sink.put(crate::value::form::SerializeOutcome.defer(self))
            }
        }
    }

    /// Keyed from the returned value or from its `Value`, the same calls
    /// are carved, in the same order: values that key only from their
    /// `Value` (hash maps), floats by their bits, a `Serialize` that fails
    /// (not carved) or panics (the call's outcome), a call that panicked,
    /// `&mut` states after the call.
    #[test]
    fn calls_keyed_from_their_returned_values_are_carved_as_from_their_values() {
        use rand::rngs::StdRng;
        use rand::{RngExt, SeedableRng};
        let _turn = lock(&TURNS);
        let mut rng = StdRng::seed_from_u64(17);
        for round in 0..20 {
            let calls: Vec<(u64, Option<usize>, Option<u64>)> = (0..40)
                .map(|_| {
                    let e = rng.random_range(0..3);
                    let returned = rng.random_bool(0.9).then(|| rng.random_range(0..12));
                    let after = rng.random_bool(0.2).then(|| rng.random_range(0..2));
                    (e, returned, after)
                })
                .collect();
            let mut carvings = Vec::new();
            for keyed in [false, true] {
                start();
                let test = format!("returned {round} {keyed}");
                record_test(&test, || {
                    for &(e, returned_at, after) in &calls {
                        let frame = begin(&HALF, |args| args.arg("e", Ok(Value::U64(e))), |_| {});
                        let Some(frame) = frame else { continue };
                        let result = returned(returned_at);
                        let after = |state: &mut ArgsBuilder| {
                            if let Some(after) = after {
                                state.arg("e", Ok(Value::U64(after)));
                            }
                        };
                        let ended = panic::catch_unwind(AssertUnwindSafe(|| match keyed {
                            true => frame.finish_keyed(result, |v, sink| v.sink(sink), after, |_| {}),
                            false => frame.finish(result, |v| v.value(), after, |_| {}),
                        }));
                        assert_eq!(ended.is_err(), returned_at.is_none());
                    }
                });
                let recordings = stop();
                let mine = recordings.iter().find(|r| r.test == test).unwrap();
                let calls: Vec<(Value, Observation)> = mine
                    .calls
                    .iter()
                    .map(|c| (c.args.clone(), c.observation.clone()))
                    .collect();
                carvings.push(calls);
            }
            assert_eq!(carvings[0], carvings[1], "round {round}");
            assert!(!carvings[1].is_empty());
        }
    }

    #[test]
    fn calls_that_do_not_rebuild_are_skipped_and_each_distinct_one_is_rebuilt_once() {
        let _turn = lock(&TURNS);
        start();
        let rebuilds = Cell::new(0);
        record_test("halves", || {
            for e in [4, 3, 3, 4, 7] {
                half(e, &rebuilds);
            }
        });
        let recordings = stop();
        let mine = recordings.iter().find(|r| r.test == "halves").unwrap();
        let args: Vec<String> = mine.calls.iter().map(|c| c.args.to_compact_ron()).collect();
        assert_eq!(args, ["(e:\"4\")"]);
        assert_eq!(rebuilds.get(), 3, "4, 3 and 7: once each");
        let skipped: Vec<Skipped> = take_skipped()
            .into_iter()
            .filter(|s| s.target == "half")
            .collect();
        assert_eq!(
            skipped,
            [Skipped {
                target: "half".into(),
                param: "e".into(),
                side: Side::Before,
                text: "\"3\"".into(),
                reason: "odd number".into(),
                inside: None,
                test: "halves".into(),
                calls: 3,
            }]
        );
        assert_eq!(
            skipped[0].message(),
            "carve: not carving calls of `half` whose argument `e` does not rebuild: \"3\" -> \
             odd number (first seen in system test `halves`; 3 such call(s) skipped). Replay \
             rebuilds arguments from what carve writes: make `FromStr` accept what `Display` \
             writes (or `Deserialize` read what `Serialize` writes) to carve them."
        );
    }

    static OUTER_SITES: Sites = Sites::new("demo", "halve_all", "", (0, 0), &[], &[]);
    static HALVE_ALL: Target = Target {
        module_path: "demo",
        fn_name: "halve_all",
        signature: "fn halve_all(n: u32) -> u32",
        file: "",
        line: 0,
        sites: &OUTER_SITES,
        replay: |_| unreachable!(),
        trace: |_| {},
        uncarvable: || None,
    };

    #[test]
    fn calls_skipped_inside_another_targets_call_say_so_and_do_not_blame_the_round_trip() {
        let _turn = lock(&TURNS);
        start();
        let rebuilds = Cell::new(0);
        record_test("nested", || {
            // `halve_all(n)` calls `half` with a value it is still building.
            let frame = begin(&HALVE_ALL, |args| args.arg("n", Ok(Value::U64(3))), |_| {});
            let frame = frame.expect("the arguments rebuild");
            let halved = half(3, &rebuilds) + half(5, &rebuilds);
            frame.finish(Ok(halved), Value::capture, |_| {}, |_| {});
            // Once it has finished, a call is not nested any more.
            half(7, &rebuilds);
        });
        stop();
        let skipped: Vec<Skipped> = take_skipped()
            .into_iter()
            .filter(|s| s.target == "half")
            .collect();
        let seen: Vec<(Option<&str>, &str, usize)> = skipped
            .iter()
            .map(|s| (s.inside.as_deref(), s.text.as_str(), s.calls))
            .collect();
        assert_eq!(seen, [(Some("halve_all"), "\"3\"", 2), (None, "\"7\"", 1)]);
        assert_eq!(
            skipped[0].message(),
            "carve: not carving calls of `half` made inside a call of `halve_all` whose argument \
             `e` does not rebuild: \"3\" -> odd number (first seen in system test `nested`; 2 \
             such call(s) skipped). A target called by another may see a value that one is still \
             building: the call of `halve_all` is carved as a whole (when its own values \
             rebuild), and calls of `half` made outside it are carved as usual."
        );
        assert!(skipped[1].message().contains("make `FromStr` accept"));
        assert!(!skipped[0].same_param(&skipped[1]));
    }

    #[test]
    fn a_value_that_does_not_rebuild_is_quoted_as_carve_writes_it() {
        let _turn = lock(&TURNS);
        start();
        record_test("scratch", || {
            let buffer = Value::Struct("Holder", vec![("buf", Value::UnitStruct("Buffer"))]);
            let refuse = |check: &mut RebuildCheck<'_>| {
                check.param("e", |_| Err::<u64, _>(ron::Error::ExpectedUnit), |_, _| Ok(()))
            };
            assert!(begin(&HALF, |args| args.arg("e", Ok(buffer.clone())), refuse).is_none());
        });
        stop();
        let skipped = take_skipped();
        // With its struct names, as in the carve file: not `(buf:())`.
        assert_eq!(
            skipped.iter().map(|s| s.text.as_str()).collect::<Vec<_>>(),
            ["Holder(buf: Buffer)"]
        );
    }

    #[test]
    fn a_call_whose_state_after_it_does_not_rebuild_is_skipped() {
        let _turn = lock(&TURNS);
        start();
        record_test("pushes", || {
            let frame = begin(&HALF, |args| args.arg("e", Ok(Value::U64(2))), |_| {});
            let frame = frame.expect("the arguments rebuild");
            let refuse = |check: &mut RebuildCheck<'_>| {
                check.param(
                    "e",
                    |_| Err::<u64, _>(ron::Error::Message("no state".into())),
                    |_, _| Ok(()),
                )
            };
            frame.finish(
                Ok(1u32),
                Value::capture,
                |after| after.arg("e", Ok(Value::U64(3))),
                refuse,
            );
        });
        let recordings = stop();
        let mine = recordings.iter().find(|r| r.test == "pushes").unwrap();
        assert!(mine.calls.is_empty(), "{:?}", mine.calls);
        let skipped = take_skipped();
        assert_eq!(
            skipped.iter().map(Skipped::message).collect::<Vec<_>>(),
            ["carve: not carving calls of `half` whose argument `e` does not rebuild in its \
              state after the call: 3 -> no state (first seen in system test `pushes`; 1 such \
              call(s) skipped). Replay rebuilds arguments from what carve writes: make \
              `FromStr` accept what `Display` writes (or `Deserialize` read what `Serialize` \
              writes) to carve them."]
        );
    }

    #[test]
    fn targets_called_while_carve_captures_a_value_are_not_carved() {
        let _turn = lock(&TURNS);
        start();
        let inner = Cell::new(None);
        record_test("captures", || {
            let frame = begin(
                &HALF,
                |args| {
                    // A `Display` that calls a target.
                    inner.set(Some(begin(&HALF, |_| {}, |_| {}).is_some()));
                    args.arg("e", Ok(Value::U64(2)));
                },
                |_| {},
            );
            assert!(frame.is_some(), "the call itself is carved");
            frame.map(|f| f.finish(Ok(1u32), Value::capture, |_| {}, |_| {}));
        });
        stop();
        assert_eq!(inner.get(), Some(false));
        assert!(!capturing(|| CAPTURING.with(Cell::get) == 0));
        assert_eq!(CAPTURING.with(Cell::get), 0);
    }

    #[test]
    fn unlisted_instantiations_say_how_to_list_them() {
        let unlisted = Unlisted {
            function: "parse".into(),
            bindings: "S = Cow<str>".into(),
            test: "reads".into(),
            calls: 2,
        };
        insta::assert_snapshot!(unlisted.message(), @"carve: not carving calls of `parse` at `S = Cow<str>`, an instantiation its attribute does not list (first seen in system test `reads`; 2 call(s)). Add `generics(S = Cow<str>)` to its `#[carve::target(…)]` to carve them.");
    }

    /// shlex's `try_join` reached from its own `join` through `map(|…| …)`:
    /// a closure's type cannot be listed, so the message does not say to.
    #[test]
    fn an_instantiation_at_a_closure_type_is_not_said_to_be_listable() {
        let unlisted = Unlisted {
            function: "try_join".into(),
            bindings: "I = Map<IntoIter<&str>, join<Vec<&str>>::{{closure}}>".into(),
            test: "joins".into(),
            calls: 1,
        };
        insta::assert_snapshot!(unlisted.message(), @"carve: not carving calls of `try_join` at `I = Map<IntoIter<&str>, join<Vec<&str>>::{{closure}}>`, an instantiation its attribute does not list (first seen in system test `joins`; 1 call(s)). Its type holds a closure, which no `generics(…)` can name: call it at a type you can name in a system test to carve it.");
    }
}
