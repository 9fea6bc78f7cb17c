//! The recorder: captures each call of a target while system tests run.
//!
//! Global state, like coverage's per-thread branch recording, because calls
//! are made deep inside the user's code where nothing can be passed in. A
//! process-wide flag says whether anything records (one relaxed load is all
//! a dormant target pays);
//! each system test owns a thread-local [`TestRecording`], so tests running in
//! parallel threads never share a buffer and their calls cannot interleave.
//! Calls are kept as [`Value`]s, not RON text: text is written once per
//! distinct call, by the store, after the tests ran.
//!
//! Generated code calls [`begin`] before the body and [`CallFrame::finish`]
//! after it:
//!
//! ```
//! # use carve::carving::record;
//! # use carve::value::Value;
//! # fn double(x: u32) -> u32 { x * 2 }
//! # static SITES: carve::registry::Sites = carve::registry::Sites::new("demo", "double", "", (0, 0), &[], &[]);
//! # static TARGET: carve::registry::Target = carve::registry::Target {
//! #     module_path: "demo", fn_name: "double", signature: "fn double(x: u32) -> u32",
//! #     file: "", line: 0, sites: &SITES, replay: |_| unreachable!(), trace: |_| {} };
//! record::start();
//! record::record_test("doubles", || {
//!     let x = 21;
//!     let frame = record::begin(&TARGET, |args| args.arg("x", Value::capture(&x))).unwrap();
//!     let result = std::panic::catch_unwind(|| double(x));
//!     assert_eq!(frame.finish(result, |r| Value::capture(r), |_| {}), 42);
//! });
//! let recordings = record::stop();
//! assert_eq!(recordings[0].calls.len(), 1);
//! ```

use std::cell::RefCell;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::panic;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use crate::outcome::{panic_message, Observation, Outcome};
use crate::registry::Target;
use crate::value::text::UNNAMED;
use crate::value::{CaptureError, Value};

static RECORDING: AtomicBool = AtomicBool::new(false);
static FINISHED: Mutex<Vec<TestRecording>> = Mutex::new(Vec::new());
/// System tests running now, for calls made on threads they spawned.
static ACTIVE: Mutex<Vec<ActiveTest>> = Mutex::new(Vec::new());
static WARNED_UNATTRIBUTED: AtomicBool = AtomicBool::new(false);

struct ActiveTest {
    name: String,
    /// Calls made on threads without a recording context of their own.
    foreign_calls: Vec<Call>,
}

thread_local! {
    static CURRENT: RefCell<Option<TestRecording>> = const { RefCell::new(None) };
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
    index: HashMap<u64, Vec<usize>>,
}

impl TestRecording {
    fn new(test: &str) -> Self {
        TestRecording {
            test: test.to_owned(),
            ..Default::default()
        }
    }

    /// Adds `call` unless an identical one (same target, arguments, outcome)
    /// is already there.
    fn push(&mut self, call: Call) {
        let mut hasher = FastHasher::default();
        call.hash(&mut hasher);
        let slot = self.index.entry(hasher.finish()).or_default();
        if slot.iter().any(|&i| self.calls[i] == call) {
            return;
        }
        slot.push(self.calls.len());
        self.calls.push(call);
    }
}

/// Whether calls are being carved now. Generated code checks this first.
#[inline(always)]
pub fn is_recording() -> bool {
    RECORDING.load(Ordering::Relaxed)
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
                    for call in active.remove(pos).foreign_calls {
                        rec.push(call);
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

/// Collects the named arguments of a call.
#[derive(Debug, Default)]
pub struct ArgsBuilder {
    fields: Vec<(&'static str, Value)>,
    error: Option<(&'static str, CaptureError)>,
}

impl ArgsBuilder {
    /// Adds argument `name`, captured in its form (see
    /// [`form`](crate::value::form)).
    pub fn arg(&mut self, name: &'static str, captured: Result<Value, CaptureError>) {
        if self.error.is_some() {
            return;
        }
        match captured {
            Ok(v) => self.fields.push((name, v)),
            Err(e) => self.error = Some((name, e)),
        }
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
    args: Value,
}

/// Starts carving a call of `target` if this thread records for a system test.
/// `capture` names and captures each argument.
pub fn begin(target: &'static Target, capture: impl FnOnce(&mut ArgsBuilder)) -> Option<CallFrame> {
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
    let mut args = ArgsBuilder::default();
    capture(&mut args);
    Some(CallFrame {
        target,
        args: args.finish_or_warn(target)?,
    })
}

impl CallFrame {
    /// Records how the call ended and hands back its result, resuming the
    /// panic if it panicked. `capture` captures a returned value in its form
    /// (see [`form`](crate::value::form)), `after` the `&mut` arguments'
    /// state.
    pub fn finish<R>(
        self,
        result: std::thread::Result<R>,
        capture: impl FnOnce(&R) -> Result<Value, CaptureError>,
        after: impl FnOnce(&mut ArgsBuilder),
    ) -> R {
        let outcome = match &result {
            Ok(value) => capture(value).map(Outcome::Returned),
            Err(payload) => Ok(Outcome::Panicked(panic_message(&**payload))),
        };
        let mut after_args = ArgsBuilder::default();
        after(&mut after_args);
        let after = if after_args.fields.is_empty() && after_args.error.is_none() {
            Some(None)
        } else {
            after_args.finish_or_warn(self.target).map(Some)
        };
        match (outcome, after) {
            (Ok(outcome), Some(after)) => store(Call {
                target: self.target,
                args: self.args,
                observation: Observation { outcome, after },
            }),
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
}

fn store(call: Call) {
    let unowned = CURRENT.with(|c| match c.borrow_mut().as_mut() {
        Some(rec) => {
            rec.push(call);
            None
        }
        None => Some(call),
    });
    if let Some(call) = unowned {
        if let [only] = lock(&ACTIVE).as_mut_slice() {
            only.foreign_calls.push(call);
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // A panic while holding these locks cannot leave them inconsistent (every
    // critical section is a push or a take), so poisoning is ignored.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A fast non-cryptographic hasher (FxHash's mixing) for deduplicating calls.
#[derive(Default)]
struct FastHasher(u64);

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
