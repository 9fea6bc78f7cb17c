//! Generation in worker processes, so that a target that aborts, overflows
//! its stack or never returns cannot take generation down with it.
//!
//! The parent ([`parent`]) replays the carve files once per run
//! ([`Baseline`]) and re-executes the test binary as a worker
//! (`CARVE_WORKER=<target>`, [`child`]), sending it on its stdin where
//! generation starts (the seeds, what is covered) with its budget, call
//! timeout and the run's crash list ([`protocol::WorkerSetup`]): no worker
//! start runs a carve-file call again. The worker runs
//! [`generate`](crate::generation::generate::generate) in-process and
//! reports to its parent ([`protocol`]): every kept call and failure as
//! soon as it is found, with its entry and what the call reached as the
//! worker traced it (the parent counts what generation covered from these,
//! running no call again), what it has to say to the user (printed with
//! the target's generation lines), progress, and a heartbeat every
//! 100 ms that says whether the call running now has overrun the call
//! timeout ([`liveness`]). The parent
//! keeps the entries and adds them to the carve file once each worker has
//! ended (atomically, under the carve folder's lock): a worker that dies
//! loses nothing it reported, and a run without crashes writes the file
//! once, not once per kept call. A save that fails fails the run.
//!
//! A worker that dies in a call of the target, or whose call overran,
//! crashed on that call: before each call it marks the call's number and
//! arguments where the parent can read them after its death ([`journal`]).
//! The parent tells the crash's kind and place ([`triage`]) and starts a
//! new worker, which retraces the run to the same call and runs it again:
//! only if it crashes again is the crash confirmed (a call that overran the
//! timeout once on a loaded machine is no hang, and is not kept: the run
//! goes on as if it had not crashed). A confirmed crash's call is added to
//! the run's crash list and a new worker started. That worker retraces
//! the run so far from the journal of the calls made (their results, not
//! the calls themselves) and the crash list, so it makes the same decisions
//! in every phase: the crashing call ends as `Crashed`, becomes a failure
//! of its own kind and place, is minimized like a panic (each smaller
//! candidate that crashes costs one more restart, within a small share of
//! the budget) and saved as a `Found` entry; generation goes on after it.
//! A run with crashes is therefore deterministic per seed, like one
//! without. Each restart costs [`RESTART_COST`] executions of the budget
//! (with a time budget, the time it takes), so a target that crashes on
//! every call still ends within its budget.

mod baseline;
mod child;
mod error;
pub mod journal;
pub mod liveness;
mod parent;
mod progress;
pub mod protocol;
pub mod triage;

pub use baseline::Baseline;
#[cfg(any(test, feature = "_internals"))]
pub use baseline::existing_calls;
pub use child::worker_main;
/// The variable that makes a test binary a worker for the named target.
pub use crate::env::role::WORKER_VAR;
pub use error::WorkerError;
pub use parent::{generate_in_rounds, mark_expected};

/// How many times the slowest carved call's time a generated call may run
/// before it counts as hung (when `CARVE_TIMEOUT` is not set).
pub const TIMEOUT_FACTOR: u32 = 10;
/// Crashes of one target's run that did not happen again when their call
/// ran again in a fresh worker, after which generation stops: the machine
/// is too loaded for the call timeout (unconfirmed crashes cost no budget,
/// so that the run stays the same as one without them; this bounds them).
const MAX_UNCONFIRMED: u32 = 16;
/// Derivations a worker may run between two progress lines.
const PROGRESS_EVERY: u64 = 256;
/// Executions of the budget one worker restart costs: about what starting
/// a worker (a process, reading its setup and mining its seeds, retracing
/// the journal) takes in time, in calls of a quick target.
pub const RESTART_COST: u64 = 100;
/// The share of the budget that minimizing crashing inputs may spend on
/// restarts, per crash.
const CRASH_SHRINK_SHARE: f64 = 0.05;
/// How much of a worker's stderr the parent keeps, to tell crashes apart.
const STDERR_TAIL: usize = 16 * 1024;
