//! Generation in worker processes, so that a target that aborts, overflows
//! its stack or never returns cannot take generation down with it.
//!
//! The test binary re-executes itself as a worker (`CARVE_WORKER=<target>`)
//! that runs [`generate`] in-process and reports to its parent
//! ([`protocol`]): every kept call and failure as soon as it is found, with
//! its entry, progress, and a heartbeat every 100 ms that says whether the
//! call running now has overrun the call timeout ([`liveness`]). The parent
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

pub mod journal;
pub mod liveness;
pub mod protocol;
pub mod triage;

use std::collections::{BTreeSet, HashMap, HashSet};
use std::io::{self, BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::call::ArgsInput;
use crate::carving::lock::CarveDirLock;
use crate::carving::store::{CarveFile, Entry, Origin, StoreError};
use crate::coverage;
use crate::coverage::reach::Reach;
use crate::coverage::Trace;
use crate::env::{Budget, Config, MIN_TIMEOUT};
use crate::error::Error;
use crate::generation::generate::{
    self, Ending, Executed, Existing, Failure, Kept, NotRun, Observer, Progress, Settings,
};
use crate::generation::history::{Phase, Point};
use crate::outcome::{quietly, Observation, Outcome};
use crate::registry::{Registry, Target};
use crate::value::{depth, Value};
use journal::{args_hash, CallMarker, Crash, Journal, Scratch};
use liveness::{Liveness, SILENCE_LIMIT};
use protocol::{Channel, Start, WorkerMessage, WorkerSetup};
use triage::Ended;

/// How many times the slowest carved call's time a generated call may run
/// before it counts as hung (when `CARVE_TIMEOUT` is not set).
pub const TIMEOUT_FACTOR: u32 = 10;
/// Crashes of one target's run that did not happen again when their call
/// ran again in a fresh worker, after which generation stops: the machine
/// is too loaded for the call timeout (unconfirmed crashes cost no budget,
/// so that the run stays the same as one without them; this bounds them).
const MAX_UNCONFIRMED: u32 = 16;
/// The variable that makes a test binary a worker for the named target.
pub const WORKER_VAR: &str = "CARVE_WORKER";
/// Derivations a worker may run between two progress lines.
const PROGRESS_EVERY: u64 = 256;
/// Executions of the budget one worker restart costs: about what starting
/// a worker (a process, loading and replaying the carve files, retracing
/// the journal) takes in time, in calls of a quick target.
pub const RESTART_COST: u64 = 100;
/// The share of the budget that minimizing crashing inputs may spend on
/// restarts, per crash.
const CRASH_SHRINK_SHARE: f64 = 0.05;
/// How much of a worker's stderr the parent keeps, to tell crashes apart.
const STDERR_TAIL: usize = 16 * 1024;

/// What generation did for a target, over all its workers.
#[derive(Debug, Clone, Default)]
pub struct Summary {
    /// Calls run.
    pub executions: u64,
    /// What was added to the carve file, in its order: calls kept and
    /// failures found (panics, aborts, stack overflows, timeouts).
    pub stored: Vec<Found>,
    /// Worker processes that crashed, confirmed: the crashing call, run
    /// again in a fresh worker, crashed it too.
    pub crashes: u32,
    /// Timeouts that did not happen again when their call ran again in a
    /// fresh worker: not kept (a loaded machine, not a hang).
    pub unconfirmed_timeouts: u32,
    /// Other crashes that did not happen again: not kept.
    pub unconfirmed_crashes: u32,
    /// Generated arguments that did not deserialize into the parameter types.
    pub undeserializable: u64,
    /// Goals covered against executions, with the phase, as the workers
    /// reported them.
    pub history: Vec<Point>,
}

/// The call timeout of generation for a target whose carve-file calls took
/// at most `slowest` each: `CARVE_TIMEOUT` when set, else
/// [`TIMEOUT_FACTOR`] times `slowest`, at least [`MIN_TIMEOUT`] (as AFL
/// calibrates its timeout on its seeds).
pub fn call_timeout(config: &Config, slowest: Duration) -> Duration {
    config
        .timeout
        .unwrap_or_else(|| (slowest * TIMEOUT_FACTOR).max(MIN_TIMEOUT))
}

/// A crash waiting for its confirmation: the next worker runs the same call
/// again (it retraces the run to it), and only if that crashes too is the
/// crash kept.
struct Pending {
    /// The call's number in the run, and the hash of its arguments.
    number: u64,
    hash: u64,
    /// Whether it was a timeout (the call overran, or the worker froze).
    timeout: bool,
}

/// Generates calls of `target_name` in worker processes; the carve file is
/// updated as they go. `existing` is what its calls cover now (the
/// outcomes in its reach, for progress; the slowest carved call's time,
/// for the call timeout), as `baseline` showed it: every worker starts
/// from it, sent in its setup, and replays no carve-file call (not what
/// the workers before it added either: so each retraces the same run).
pub fn generate_in_workers(
    target_name: &str,
    baseline: &Baseline,
    existing: &Existing,
    config: &Config,
) -> Result<Summary, Error> {
    let goals = existing.reach.len();
    let timeout = call_timeout(config, existing.slowest);
    let exe = std::env::current_exe().map_err(Error::StartWorker)?;
    let path = CarveFile::path_for(&config.dir, target_name);
    let scratch = Scratch::create(target_name).map_err(Error::WorkerIo)?;
    let start_at = baseline.start(existing)?;
    let mut setup = WorkerSetup {
        scratch: scratch.dir().to_owned(),
        seed: config.seed,
        budget: config.budget.into(),
        cap: u64::MAX,
        timeout_ms: u64::try_from(timeout.as_millis().max(1)).unwrap_or(u64::MAX),
        restart: false,
        crashes: Vec::new(),
        start: start_at,
    };
    let mut summary = Summary::default();
    let mut found = Vec::new();
    // With other targets generating beside it, a bar would overwrite theirs.
    let mut progress = Progress::new(target_name, config.budget).in_lines(config.jobs != Some(1));
    let total = goals as usize;
    let mut pending: Option<Pending> = None;
    let start = Instant::now();
    let mut first = true;
    loop {
        let spent_on_restarts = u64::from(summary.crashes) * RESTART_COST;
        let cap = match config.budget {
            Budget::Executions(n) => n.saturating_sub(spent_on_restarts),
            Budget::Time(_) => u64::MAX,
        };
        let Some(budget) = remaining(config.budget, start) else {
            break;
        };
        CallMarker::reset(scratch.dir()).map_err(Error::WorkerIo)?;
        let history = &mut summary.history;
        setup.budget = budget.into();
        setup.cap = cap;
        setup.restart = !std::mem::take(&mut first);
        let ran = run_worker(
            &exe,
            target_name,
            &setup,
            &mut |executions, covered, phase| {
                progress.tick(executions, covered, total);
                // A restarted worker retraces the calls before: their points
                // are in the history already.
                let new = history.last().is_none_or(|p| {
                    executions > p.executions
                        || (executions == p.executions && phase.is_some_and(|f| f != p.phase))
                });
                if let Some(phase) = phase.filter(|_| new) {
                    history.push(Point {
                        phase,
                        executions,
                        covered: covered as u64,
                    });
                }
            },
            &mut found,
        );
        // Saved before the next worker starts: it retraces the run, and
        // leaves out what the carve file holds by then.
        let stored = store_found(&config.dir, &path, std::mem::take(&mut found));
        let run = ran?;
        let stored = stored.map_err(|e| Error::Worker {
            target: target_name.to_owned(),
            message: Error::Save(e).to_string(),
        })?;
        summary.stored.extend(stored);
        summary.executions = run.executions;
        summary.undeserializable = run.undeserializable;
        let Some(ended) = run.crash else {
            // The call waiting for confirmation ran again, and returned.
            if let Some(unconfirmed) = pending.take() {
                summary.count_unconfirmed(&unconfirmed);
            }
            break;
        };
        let marked = CallMarker::read(scratch.dir()).map_err(Error::WorkerIo)?;
        let Some((number, hash)) = marked.in_call() else {
            return Err(Error::Worker {
                target: target_name.to_owned(),
                message: format!(
                    "a worker ended outside any call of the target ({}); stderr ends with:\n{}",
                    describe(ended, timeout),
                    run.stderr_tail.trim_end()
                ),
            });
        };
        // The call it died in was made too.
        summary.executions = summary.executions.max(number);
        // A crash is kept only once a fresh worker, retracing the run to
        // the same call, crashed on it too: a call that overran the timeout
        // once on a loaded machine is no hang.
        let confirmed = match pending.take() {
            Some(p) if p.number == number && p.hash == hash => true,
            Some(p) => {
                summary.count_unconfirmed(&p);
                false
            }
            None => false,
        };
        if !confirmed {
            pending = Some(Pending {
                number,
                hash,
                timeout: matches!(ended, Ended::TimedOut | Ended::Frozen),
            });
            if summary.unconfirmed_timeouts + summary.unconfirmed_crashes >= MAX_UNCONFIRMED {
                progress.finish();
                eprintln!(
                    "carve: {target_name}: generation ended early: {MAX_UNCONFIRMED} calls \
                     crashed or timed out once but not when run again (a loaded machine?); what \
                     was found is saved. Set CARVE_TIMEOUT higher (it was {}) or run with fewer \
                     CARVE_JOBS",
                    triage::seconds(timeout)
                );
                return Ok(summary);
            }
            continue;
        }
        summary.crashes += 1;
        let triage = triage::classify(ended, &run.stderr_tail, timeout);
        setup.crashes.push(Crash {
            hash,
            at: triage.at,
            message: triage.message,
        });
        if let Budget::Executions(n) = config.budget {
            if number.saturating_add(u64::from(summary.crashes) * RESTART_COST) >= n {
                break;
            }
        }
    }
    // Time ran out before the waiting call ran again: not kept either.
    if let Some(unconfirmed) = pending.take() {
        summary.count_unconfirmed(&unconfirmed);
    }
    if let Budget::Executions(n) = config.budget {
        let restarts = u64::from(summary.crashes) * RESTART_COST;
        if summary.crashes > 0 && summary.executions.saturating_add(restarts) >= n {
            progress.finish();
            eprintln!(
                "carve: {target_name}: generation ended early: {} worker crash(es) took {} of \
                 the {n} executions in the budget ({RESTART_COST} per restart); what was found \
                 is saved",
                summary.crashes,
                restarts.min(n)
            );
            return Ok(summary);
        }
    }
    progress.finish();
    Ok(summary)
}

impl Summary {
    /// Calls kept.
    pub fn kept(&self) -> usize {
        self.stored.len() - self.failures()
    }

    /// Failures found.
    pub fn failures(&self) -> usize {
        self.stored
            .iter()
            .filter(|found| matches!(found, Found::Failure(_)))
            .count()
    }

    fn count_unconfirmed(&mut self, crash: &Pending) {
        match crash.timeout {
            true => self.unconfirmed_timeouts += 1,
            false => self.unconfirmed_crashes += 1,
        }
    }

    /// `(2 unconfirmed timeout(s) not kept)` for the generation line; empty
    /// when there were none.
    pub fn unconfirmed(&self) -> String {
        let mut out = String::new();
        if self.unconfirmed_timeouts > 0 {
            out += &format!(" ({} unconfirmed timeout(s) not kept)", self.unconfirmed_timeouts);
        }
        if self.unconfirmed_crashes > 0 {
            out += &format!(" ({} unconfirmed crash(es) not kept)", self.unconfirmed_crashes);
        }
        out
    }
}

/// What is left of the budget: all of an execution budget (a worker
/// retraces the run from its start), the rest of a time budget.
fn remaining(budget: Budget, start: Instant) -> Option<Budget> {
    match budget {
        Budget::Executions(n) => (n > 0).then_some(budget),
        Budget::Time(d) => d
            .checked_sub(start.elapsed())
            .filter(|d| !d.is_zero())
            .map(Budget::Time),
    }
}

fn describe(ended: Ended, timeout: Duration) -> String {
    match ended {
        Ended::TimedOut => format!("a call did not return within {}", triage::seconds(timeout)),
        Ended::Frozen => format!("it stopped responding for {}s", SILENCE_LIMIT.as_secs()),
        Ended::Exited(status) => crate::outcome::describe_exit(status),
    }
}

/// What one worker process did before it ended.
struct WorkerRun {
    /// Calls made so far in the run, as the worker last said.
    executions: u64,
    undeserializable: u64,
    /// Whether it said it finished.
    done: bool,
    /// How it crashed, if it did.
    crash: Option<Ended>,
    /// The end of what it wrote to stderr.
    stderr_tail: String,
}

impl WorkerRun {
    /// Takes in one message; a worker's own error ends the run, and so does
    /// a call that timed out (`crash` is then set).
    fn apply(
        &mut self,
        message: WorkerMessage,
        on_progress: &mut dyn FnMut(u64, usize, Option<Phase>),
        found: &mut Vec<Found>,
    ) -> Result<(), String> {
        match message {
            WorkerMessage::Alive => {}
            WorkerMessage::TimedOut => self.crash = Some(Ended::TimedOut),
            WorkerMessage::Progress {
                executions,
                covered,
                undeserializable,
                phase,
            } => {
                self.executions = executions;
                self.undeserializable = undeserializable;
                on_progress(executions, covered as usize, phase);
            }
            WorkerMessage::Kept { entry } => found.push(Found::Kept(entry)),
            WorkerMessage::Failure { entry } => found.push(Found::Failure(entry)),
            WorkerMessage::Error { message } => return Err(message),
            WorkerMessage::Done {
                executions,
                undeserializable,
            } => {
                self.executions = executions;
                self.undeserializable = undeserializable;
                self.done = true;
            }
        }
        Ok(())
    }
}

/// What a worker found, for the carve file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Found {
    /// A generated call that covered new goals.
    Kept(Entry),
    /// A failing input.
    Failure(Entry),
}

impl Found {
    /// Its entry.
    pub fn entry(&self) -> &Entry {
        match self {
            Found::Kept(entry) | Found::Failure(entry) => entry,
        }
    }
}

/// Runs one worker to its end: generation finished, the worker crashed
/// (died, a call overran the call timeout, or the worker froze), or it
/// failed. What it found is added to `found` in every case.
fn run_worker(
    exe: &Path,
    target_name: &str,
    setup: &WorkerSetup,
    on_progress: &mut dyn FnMut(u64, usize, Option<Phase>),
    found: &mut Vec<Found>,
) -> Result<WorkerRun, Error> {
    let (mut child, lines, stderr) = spawn_worker(exe, target_name, setup)?;
    let stop = |child: &mut Child| {
        let _ = child.kill();
        let _ = child.wait();
    };
    let mut run = WorkerRun {
        executions: 0,
        undeserializable: 0,
        done: false,
        crash: None,
        stderr_tail: String::new(),
    };
    let tail = |stderr: JoinHandle<String>| stderr.join().unwrap_or_default();
    loop {
        // The heartbeat comes every 100 ms, whatever the worker does.
        let line = match lines.recv_timeout(SILENCE_LIMIT) {
            Ok(line) => line,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                stop(&mut child);
                run.crash = Some(Ended::Frozen);
                run.stderr_tail = tail(stderr);
                return Ok(run);
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        };
        let applied = line
            .parse::<WorkerMessage>()
            .map_err(Error::from)
            .and_then(|message| {
                run.apply(message, on_progress, found)
                    .map_err(|message| Error::Worker {
                        target: target_name.to_owned(),
                        message,
                    })
            });
        if let Err(e) = applied {
            stop(&mut child);
            return Err(e);
        }
        if run.crash.is_some() {
            stop(&mut child);
            run.stderr_tail = tail(stderr);
            return Ok(run);
        }
    }
    let status = child.wait().map_err(Error::WorkerIo)?;
    run.stderr_tail = tail(stderr);
    if !(run.done && status.success()) {
        run.crash = Some(Ended::Exited(status));
    }
    Ok(run)
}

/// Starts a worker and sends it its `setup`; its protocol lines arrive on
/// the receiver, and the thread returns the end of its stderr once it
/// closes.
fn spawn_worker(
    exe: &Path,
    target_name: &str,
    setup: &WorkerSetup,
) -> Result<(Child, mpsc::Receiver<String>, JoinHandle<String>), Error> {
    let line = setup.to_line()?;
    let mut child = Command::new(exe)
        .env(WORKER_VAR, target_name)
        .env("RUST_BACKTRACE", "0")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(Error::StartWorker)?;
    let (Some(mut stdin), Some(stdout), Some(stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        return Err(Error::WorkerIo(io::Error::other("worker without stdio")));
    };
    // From a thread: a setup larger than the pipe holds is read while the
    // parent reads the worker's lines. A worker that died before reading it
    // shows as a crash, not here.
    std::thread::spawn(move || {
        let _ = writeln!(stdin, "{line}");
    });
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    // Read all along, or a worker that prints much would block on a full
    // pipe; only the end is kept.
    let stderr = std::thread::spawn(move || {
        let mut tail: Vec<u8> = Vec::new();
        let mut stderr = stderr;
        let mut buf = [0u8; 8192];
        while let Ok(n) = stderr.read(&mut buf) {
            if n == 0 {
                break;
            }
            tail.extend_from_slice(&buf[..n]);
            if tail.len() > 2 * STDERR_TAIL {
                tail.drain(..tail.len() - STDERR_TAIL);
            }
        }
        let from = tail.len().saturating_sub(STDERR_TAIL);
        String::from_utf8_lossy(&tail[from..]).into_owned()
    });
    Ok((child, rx, stderr))
}

/// Adds what workers `found` to the carve file at `path` in the carve
/// folder `dir`, in the order found, each unless an entry already there has
/// its arguments. Loaded, changed and written once, under the carve
/// folder's lock, so that what another process (a generate with another
/// seed, a record) wrote meanwhile is kept. Returns what was added.
fn store_found(dir: &Path, path: &Path, found: Vec<Found>) -> Result<Vec<Found>, StoreError> {
    if found.is_empty() {
        return Ok(Vec::new());
    }
    let _lock = CarveDirLock::acquire(dir)?;
    let CarveFile {
        target,
        mut entries,
        ..
    } = CarveFile::load(dir, path)?;
    let mut stored: HashSet<String> = entries.iter().map(|e| e.args.clone()).collect();
    let added: Vec<Found> = found
        .into_iter()
        .filter(|found| stored.insert(found.entry().args.clone()))
        .collect();
    if !added.is_empty() {
        entries.extend(added.iter().map(|found| found.entry().clone()));
        CarveFile::write(path, &CarveFile::render(&target, &entries))?;
    }
    Ok(added)
}

/// The worker's side: runs when `CARVE_WORKER` names a target. Never returns.
///
/// Exit code 0 when generation finished; 3 when it could not go on (a carve
/// file could not be read or saved), after telling the parent why; 4 when
/// the parent is gone.
pub fn worker_main(registry: &Registry, config: &Config, target_name: &str) -> ! {
    let channel = match Channel::take_stdout() {
        Ok(channel) => channel,
        Err(e) => {
            eprintln!("carve worker: cannot set up the channel to the parent: {e}");
            std::process::exit(3)
        }
    };
    let setup = match read_setup() {
        Ok(setup) => setup,
        Err(e) => {
            let _ = channel.send(&WorkerMessage::Error {
                message: e.to_string(),
            });
            std::process::exit(3)
        }
    };
    // The heartbeat starts before generation: mining the seeds is not a
    // call and cannot time out. The parent sends the timeout it derived.
    let liveness = Liveness::start(channel, Duration::from_millis(setup.timeout_ms));
    match worker(registry, config, target_name, setup, &liveness) {
        Ok(()) => std::process::exit(0),
        Err(e) => fail(&liveness, &e),
    }
}

/// Tells the parent why the worker cannot go on, and exits.
fn fail(liveness: &Liveness, error: &Error) -> ! {
    liveness.send(&WorkerMessage::Error {
        message: error.to_string(),
    });
    std::process::exit(3)
}

/// The setup the parent sends first, on stdin.
fn read_setup() -> Result<WorkerSetup, Error> {
    let mut line = String::new();
    io::stdin().lock().read_line(&mut line).map_err(Error::WorkerIo)?;
    Ok(WorkerSetup::from_line(line.trim_end_matches('\n'))?)
}

fn worker(
    registry: &Registry,
    config: &Config,
    target_name: &str,
    setup: WorkerSetup,
    liveness: &Liveness,
) -> Result<(), Error> {
    let target = registry
        .target(target_name)
        .ok_or_else(|| Error::UnknownTarget(target_name.to_owned()))?;
    let path = CarveFile::path_for(&config.dir, target_name);
    // Where the parent's replay of the carve files left off: no call of
    // theirs runs again here.
    let existing = setup.start.existing(target)?;
    let budget = Budget::from(setup.budget);
    let settings = Settings {
        seed: setup.seed,
        budget,
        phases: generate::Phases::All,
    };
    install_crash_frame_hook();
    let scratch = &setup.scratch;
    let mut observer = Reporter {
        target,
        reach: &existing.reach,
        crashing: setup.start.crashing,
        liveness,
        dir: &config.dir,
        path: &path,
        stored: None,
        seed: setup.seed,
        budget,
        timeout: Duration::from_millis(setup.timeout_ms),
        restart: setup.restart,
        cap: setup.cap,
        crashes: setup.crashes.into_iter().map(|c| (c.hash, c)).collect(),
        journal: Journal::open(scratch).map_err(Error::WorkerIo)?,
        marker: CallMarker::open(scratch).map_err(Error::WorkerIo)?,
        replayed: HashSet::new(),
        undeserializable: 0,
        last_report: (0, Instant::now()),
        phase: None,
        reported: None,
        last_seen: (0, 0, 0),
    };
    let generation = generate::generate(target, target_name, &existing, settings, &mut observer);
    observer.journal.flush().map_err(Error::WorkerIo)?;
    observer.send_progress();
    liveness.send(&WorkerMessage::Done {
        executions: generation.executions,
        undeserializable: generation.undeserializable,
    });
    Ok(())
}

/// On Unix, a worker that aborts in a call names the innermost frame of the
/// user's code on stderr first ([`triage::FRAME_PREFIX`]), so that aborts
/// at different places are different failures. The backtrace is taken in
/// the signal handler: not async-signal-safe in general, but the process is
/// ending anyway, and a handler that hangs is ended by the parent as a
/// timeout would be. A stack overflow is left alone: Rust's handler runs on
/// a small alternate stack, too small for a backtrace.
fn install_crash_frame_hook() {
    #[cfg(unix)]
    {
        extern "C" fn on_abort(_: libc::c_int) {
            // SAFETY: querying the current alternate stack is always allowed.
            let on_alt_stack = unsafe {
                let mut current: libc::stack_t = std::mem::zeroed();
                libc::sigaltstack(std::ptr::null(), &mut current) == 0
                    && current.ss_flags & libc::SS_ONSTACK != 0
            };
            if !on_alt_stack {
                let backtrace = std::backtrace::Backtrace::force_capture().to_string();
                if let Some(frame) = triage::user_frame_line(&backtrace) {
                    let line = format!("\n{}{frame}\n", triage::FRAME_PREFIX);
                    // SAFETY: writing a buffer this function owns to fd 2.
                    unsafe { libc::write(2, line.as_ptr().cast(), line.len()) };
                }
            }
            // SAFETY: back to the default action; abort() raises again.
            unsafe { libc::signal(libc::SIGABRT, libc::SIG_DFL) };
        }
        // SAFETY: installs a handler for SIGABRT, which nothing else in a
        // worker handles.
        unsafe {
            libc::signal(libc::SIGABRT, on_abort as extern "C" fn(libc::c_int) as libc::sighandler_t)
        };
    }
}

/// Where generation for `target` starts, as [`Baseline::replay`] shows it
/// (for carve's own tests: generation replays once and keeps the baseline).
#[cfg(any(test, feature = "_internals"))]
pub fn existing_calls(
    registry: &Registry,
    target: &'static Target,
    file: &CarveFile,
    dir: &Path,
    seed: u64,
) -> Result<Existing, Error> {
    Ok(Baseline::replay(registry, target, file, dir, seed)?.existing())
}

/// What replaying the carve files showed ([`Baseline::replay`]), kept so that
/// the calls generation adds are replayed alone, not every file again, to
/// tell what it covered.
pub struct Baseline {
    target: &'static Target,
    /// Arguments of the target's own calls that replayed.
    seeds: Vec<Value>,
    known_failures: BTreeSet<String>,
    /// The functions the target's own calls enter, in the order first
    /// entered.
    entered: Vec<&'static crate::registry::Sites>,
    /// What each passing call, of any target, reached.
    passing: Vec<Trace>,
    /// The longest one of the target's own calls took.
    slowest: Duration,
    /// Arguments of the target's own calls that crashed, without layout.
    crashing: BTreeSet<String>,
}

impl Baseline {
    /// Replays the carve files in `dir` once per run, to learn where generation
    /// for `target` starts (workers are sent what it showed, [`Baseline::start`]):
    /// its own entries (`file`) give the seeds, known failures and the
    /// functions its calls enter; every passing call of every target in `dir`
    /// counts for what is already covered, except the calls other targets'
    /// generation with this `seed` made. Those are left out so that each
    /// target's generation depends only on its own file and on what the run
    /// started from: targets then generate in any order, at once
    /// (`CARVE_JOBS`) or on different machines (nextest partitions), with the
    /// same files as one after another. Crashing entries are not run.
    pub fn replay(
        registry: &Registry,
        target: &'static Target,
        file: &CarveFile,
        dir: &Path,
        seed: u64,
    ) -> Result<Baseline, Error> {
        let mut baseline = Baseline {
            target,
            seeds: Vec::new(),
            known_failures: BTreeSet::new(),
            entered: Vec::new(),
            passing: Vec::new(),
            slowest: Duration::ZERO,
            crashing: BTreeSet::new(),
        };
        baseline.add(&file.entries);
        for path in CarveFile::list(dir)? {
            if path == file.path {
                continue;
            }
            // A file that does not load fails its own test; here it only
            // covers nothing.
            let Ok(other) = CarveFile::load(dir, &path) else {
                continue;
            };
            let Some(called) = registry.target(&other.target) else {
                continue;
            };
            for entry in other.entries.iter().filter(|e| !made_with(&e.origin, seed)) {
                baseline.replay_one(called, entry);
            }
        }
        Ok(baseline)
    }

    /// Replays `entries` of the target's own, added to its carve file after
    /// those replayed so far: what generation stored.
    pub fn add(&mut self, entries: &[Entry]) {
        for entry in entries {
            if let Origin::Found { at, .. } = &entry.origin {
                self.known_failures.insert(at.clone());
            }
            if entry.outcome.is_crash() {
                self.crashing
                    .insert(crate::carving::replay::strip_layout(&entry.args));
            }
            let started = Instant::now();
            let replayed = self.replay_one(self.target, entry);
            // The call timeout is derived from how long these take.
            self.slowest = self.slowest.max(started.elapsed());
            if let Some((args, functions)) = replayed {
                for sites in functions {
                    if !self.entered.iter().any(|e| std::ptr::eq(*e, sites)) {
                        self.entered.push(sites);
                    }
                }
                self.seeds.extend(args);
            }
        }
    }

    /// Replays one call of `called`: its arguments, if they deserialized,
    /// and the functions it entered. A passing call's trace is kept.
    #[allow(clippy::type_complexity)]
    fn replay_one(
        &mut self,
        called: &'static Target,
        entry: &Entry,
    ) -> Option<(Option<Value>, Vec<&'static crate::registry::Sites>)> {
        if entry.outcome.is_crash() {
            return None;
        }
        let (replayed, trace) =
            coverage::collect(|| quietly(|| (called.replay)(ArgsInput::Ron(&entry.args))));
        let replayed = replayed.ok()?;
        let functions = trace.functions().collect();
        if matches!(replayed.observation.outcome, Outcome::Returned(_)) {
            self.passing.push(trace);
        }
        Some((replayed.args, functions))
    }

    /// Where a worker starts: `existing` (what [`Baseline::existing`]
    /// said) as it travels in its setup.
    pub fn start(&self, existing: &Existing) -> Result<Start, Error> {
        // Seeds nest as deep as carve writes values.
        Ok(depth::with_stack(|| {
            Start::new(existing, &self.entered, self.crashing.clone())
        })?)
    }

    /// Where generation starts, or what it reached.
    pub fn existing(&self) -> Existing {
        let reach = Reach::new(
            self.target.sites,
            self.entered.iter().copied(),
            &crate::registry::all_sites(),
        )
        .with_goals();
        let covered = self
            .passing
            .iter()
            .flat_map(|trace| reach.covered(trace))
            .collect();
        let inapplicable = reach.inapplicable(&self.passing);
        Existing {
            reach,
            seeds: self.seeds.clone(),
            covered,
            inapplicable,
            known_failures: self.known_failures.clone(),
            slowest: self.slowest,
        }
    }
}

/// Whether generation with `seed` made the entry of this `origin`.
fn made_with(origin: &Origin, seed: u64) -> bool {
    match origin {
        Origin::Generated { seed: made, .. } | Origin::Found { seed: made, .. } => *made == seed,
        Origin::System(_) => false,
    }
}

/// Reports to the parent and saves what is found, as it is found; runs
/// the calls, timed and marked, or answers them from the journal and the
/// crash list while retracing what earlier workers did. A save that fails
/// ends the worker at once: every call it would go on to keep would be lost
/// too.
struct Reporter<'a> {
    target: &'static Target,
    reach: &'a Reach,
    /// Arguments known to crash, without layout.
    crashing: BTreeSet<String>,
    liveness: &'a Liveness,
    /// The carve folder.
    dir: &'a Path,
    /// The target's carve file in it.
    path: &'a Path,
    /// The arguments of the calls in the carve file, read once, when a call
    /// answered from the journal is kept: what the workers before this one
    /// found is in it by then.
    stored: Option<HashSet<String>>,
    seed: u64,
    budget: Budget,
    /// The call timeout.
    timeout: Duration,
    /// Whether a worker ran for the target before this one.
    restart: bool,
    /// Executions allowed in all: the budget less the restarts.
    cap: u64,
    /// Calls that crashed a worker of this run, by argument hash.
    crashes: HashMap<u64, Crash>,
    journal: Journal,
    marker: CallMarker,
    /// Hashes of the arguments of calls answered from the journal: their
    /// observations were not kept.
    replayed: HashSet<u64>,
    /// Calls whose arguments did not deserialize, so far.
    undeserializable: u64,
    last_report: (u64, Instant),
    /// The phase running, for the history.
    phase: Option<Phase>,
    /// The phase and coverage of the last progress line sent: a change in
    /// either is sent at once, so the history sees every step.
    reported: Option<(Phase, usize)>,
    /// The last progress seen: derivation, executions, covered.
    last_seen: (u64, u64, usize),
}

impl Reporter<'_> {
    fn send(&self, message: WorkerMessage) {
        self.liveness.send(&message);
    }

    /// Sends the last progress seen.
    fn send_progress(&mut self) {
        let (index, executions, covered) = self.last_seen;
        self.last_report = (index, Instant::now());
        self.reported = self.phase.map(|phase| (phase, covered));
        self.send(WorkerMessage::Progress {
            executions,
            covered: covered as u64,
            undeserializable: self.undeserializable,
            phase: self.phase,
        });
    }

    /// Sends a call's entry to the parent (`message`), which adds it to
    /// the carve file unless an entry there has its arguments. A call
    /// answered from the journal is left out if an earlier worker of this
    /// run stored it already, and runs again for its observation otherwise.
    /// Ends the worker if the entry cannot be made or the file not read.
    fn save(
        &mut self,
        origin: Origin,
        args: &Value,
        observation: &Observation,
        message: fn(Entry) -> WorkerMessage,
    ) {
        let entry = (|| -> Result<Option<Entry>, Error> {
            let mut entry = Entry::from_values(origin.clone(), args, observation)?;
            if self.replayed.contains(&args_hash(args)) {
                if self.stored.is_none() {
                    let file = CarveFile::load(self.dir, self.path)?;
                    self.stored = Some(file.entries.into_iter().map(|e| e.args).collect());
                }
                if self.stored.as_ref().is_some_and(|s| s.contains(&entry.args)) {
                    return Ok(None);
                }
                if let Some(observation) = self.run_again(args) {
                    entry = Entry::from_values(origin, args, &observation)?;
                }
            }
            Ok(Some(entry))
        })();
        match entry {
            Ok(Some(entry)) => self.send(message(entry)),
            Ok(None) => {}
            Err(e) => fail(self.liveness, &e),
        }
    }

    /// The observation of a call made before (it returned or panicked).
    fn run_again(&self, args: &Value) -> Option<Observation> {
        self.liveness.call_started();
        let ran = generate::run_call(self.target, args);
        self.liveness.call_ended();
        ran.ok().map(|executed| executed.observation)
    }
}

/// How many crashing calls [`CRASH_SHRINK_SHARE`] of `budget` pays for:
/// each costs a restart, and a hang the call `timeout` first; with a time
/// budget, twice (the crash is confirmed in a fresh worker).
fn crash_allowance(budget: Budget, hang: bool, timeout: Duration) -> u32 {
    let allowance = match budget {
        Budget::Executions(n) => n as f64 * CRASH_SHRINK_SHARE / RESTART_COST as f64,
        Budget::Time(d) => {
            let once = if hang { timeout.as_secs_f64() + 0.1 } else { 0.1 };
            let restart = 2.0 * once;
            d.as_secs_f64() * CRASH_SHRINK_SHARE / restart
        }
    };
    allowance as u32
}

impl Observer for Reporter<'_> {
    fn restarted(&self) -> bool {
        self.restart || !self.crashes.is_empty()
    }

    fn allow(&mut self, args: &Value) -> bool {
        self.crashing.is_empty() || !self.crashing.contains(&args.to_compact_ron())
    }

    fn execute(
        &mut self,
        ordinal: u64,
        args: &Value,
        run: &mut dyn FnMut() -> Result<Executed, NotRun>,
    ) -> Result<Executed, NotRun> {
        let hash = args_hash(args);
        let result = if let Some(crash) = self.crashes.get(&hash) {
            let observation = Observation {
                outcome: Outcome::Crashed(crash.message.clone()),
                after: None,
            };
            Ok(Executed {
                fingerprint: generate::fingerprint(&observation),
                observation,
                trace: Trace::default(),
                ending: Ending::Crashed {
                    at: crash.at.clone(),
                },
            })
        } else if let Some(result) = self.journal.replay(hash) {
            self.replayed.insert(hash);
            result
        } else {
            self.marker.started(ordinal, hash);
            self.liveness.call_started();
            let result = run();
            self.liveness.call_ended();
            self.marker.ended(ordinal);
            if let Err(e) = self.journal.record(hash, &result) {
                fail(self.liveness, &Error::WorkerIo(e));
            }
            result
        };
        if result.as_ref().err() == Some(&NotRun::Undeserializable) {
            self.undeserializable += 1;
        }
        result
    }

    fn crash_shrinks(&self, at: &str) -> u32 {
        crash_allowance(self.budget, at.starts_with("timeout"), self.timeout)
    }

    fn cap(&self) -> u64 {
        self.cap
    }

    fn mutant_crashes(&self) -> Option<u32> {
        // A mutant that crashes may well hang first.
        Some(crash_allowance(self.budget, true, self.timeout).max(1))
    }

    fn kept(&mut self, kept: &Kept) {
        let added = kept
            .added
            .iter()
            .map(|goal| self.reach.describe(*goal))
            .collect();
        self.save(
            Origin::Generated {
                seed: self.seed,
                added,
            },
            &kept.args,
            &kept.observation,
            |entry| WorkerMessage::Kept { entry },
        );
    }

    fn failure(&mut self, failure: &Failure) {
        let origin = Origin::Found {
            seed: self.seed,
            at: failure.location.clone(),
            expected: false,
        };
        self.save(
            origin,
            &failure.args,
            &failure.observation,
            |entry| WorkerMessage::Failure { entry },
        );
    }

    fn progress(&mut self, index: u64, executions: u64, covered: usize) {
        self.last_seen = (index, executions, covered);
        let (last_index, last_time) = self.last_report;
        let changed = self.reported != self.phase.map(|phase| (phase, covered));
        if changed
            || index >= last_index + PROGRESS_EVERY
            || last_time.elapsed() >= Duration::from_millis(100)
        {
            // What is journaled by now is not run again after a crash.
            if let Err(e) = self.journal.flush() {
                fail(self.liveness, &Error::WorkerIo(e));
            }
            self.send_progress();
        }
    }

    fn phase(&mut self, phase: Phase) {
        self.phase = Some(phase);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(timeout: Option<&str>) -> Config {
        let lookup = |name: &str| match name {
            "CARVE_TIMEOUT" => timeout.map(str::to_owned),
            _ => None,
        };
        Config::from_lookup(lookup, Path::new("/p")).unwrap()
    }

    /// Ten times the slowest carved call, at least a second; `CARVE_TIMEOUT`
    /// wins.
    #[test]
    fn the_call_timeout_is_calibrated_on_the_carved_calls() {
        let derived = |slowest| call_timeout(&config(None), slowest);
        assert_eq!(derived(Duration::from_micros(16)), Duration::from_secs(1));
        assert_eq!(derived(Duration::from_millis(300)), Duration::from_secs(3));
        let set = config(Some("500ms"));
        assert_eq!(call_timeout(&set, Duration::from_secs(2)), Duration::from_millis(500));
    }

    /// What workers found goes into the carve file in one write, in the
    /// order found, each call once: what the file holds already (another
    /// run, an earlier worker of this one) is left out and not counted.
    #[test]
    fn found_entries_are_stored_in_one_write_each_call_once() {
        let dir = std::env::temp_dir().join(format!("carve-store-found-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = CarveFile::path_for(&dir, "f");
        let entry = |origin: Origin, x: u32| {
            let outcome = crate::carving::store::StoredOutcome::parse("Returned(())").unwrap();
            Entry::new(origin, &format!("(x: {x})"), outcome, None)
        };
        let generated = || Origin::Generated {
            seed: 1,
            added: vec![],
        };
        let found = || Origin::Found {
            seed: 1,
            at: "src/lib.rs:1".into(),
            expected: false,
        };
        let system = entry(Origin::System("t".into()), 1);
        CarveFile::write(&path, &CarveFile::render("f", std::slice::from_ref(&system))).unwrap();
        let stored = store_found(
            &dir,
            &path,
            vec![
                Found::Kept(entry(generated(), 2)),
                Found::Kept(entry(generated(), 1)),
                Found::Failure(entry(found(), 3)),
                Found::Kept(entry(generated(), 2)),
            ],
        );
        let text = std::fs::read_to_string(&path).unwrap();
        // Nothing new: nothing counted.
        let again = store_found(&dir, &path, vec![Found::Kept(entry(generated(), 3))]);
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(
            stored.unwrap(),
            [Found::Kept(entry(generated(), 2)), Found::Failure(entry(found(), 3))]
        );
        assert_eq!(
            text,
            CarveFile::render(
                "f",
                &[system, entry(generated(), 2), entry(found(), 3)]
            )
        );
        assert_eq!(again.unwrap(), []);
    }

    /// Calls of [`COUNTED`] made so far.
    static COUNTED_CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    static COUNTED_SITES: crate::registry::Sites =
        crate::registry::Sites::new("demo", "counted", "", (0, 0), &[], &[]);
    /// A target that counts its calls.
    static COUNTED: Target = Target {
        module_path: "demo",
        fn_name: "counted",
        signature: "fn counted(x: u64)",
        file: "",
        line: 0,
        sites: &COUNTED_SITES,
        replay: |args| {
            COUNTED_CALLS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            let x = match args {
                ArgsInput::Ron(text) => text.len() as u64,
                ArgsInput::Value(_) => 0,
            };
            Ok(crate::call::Replayed {
                args: Some(Value::Struct("args", vec![("x", Value::U64(x))])),
                observation: Observation {
                    outcome: Outcome::Returned(Value::Unit),
                    after: None,
                },
            })
        },
        trace: |_| {},
    };

    /// The parent replays the carve files once per run; a worker starts
    /// from what that showed, sent in its setup, and runs no call of theirs
    /// (nor does a restarted one: every start reads the same setup).
    #[test]
    fn a_worker_start_replays_no_existing_call() {
        use std::sync::atomic::Ordering::SeqCst;
        let dir = std::env::temp_dir().join(format!("carve-start-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = CarveFile::path_for(&dir, "counted");
        let entry = |args: &str, outcome: &str| {
            let outcome = crate::carving::store::StoredOutcome::parse(outcome).unwrap();
            Entry::new(Origin::System("t".into()), args, outcome, None)
        };
        let entries = [
            entry("(x: 1)", "Returned(())"),
            entry("(x: 22)", "Returned(())"),
            entry("(x: 333)", "Crashed(\"abort\")"),
        ];
        CarveFile::write(&path, &CarveFile::render("counted", &entries)).unwrap();
        let file = CarveFile::load(&dir, &path).unwrap();
        let registry = Registry::collect();
        let baseline = Baseline::replay(&registry, &COUNTED, &file, &dir, 1).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        // The crashing call is not run.
        assert_eq!(COUNTED_CALLS.load(SeqCst), 2);
        let existing = baseline.existing();
        let setup = WorkerSetup {
            scratch: dir.clone(),
            seed: 1,
            budget: Budget::Executions(10).into(),
            cap: 10,
            timeout_ms: 1000,
            restart: false,
            crashes: vec![],
            start: baseline.start(&existing).unwrap(),
        };
        for _start in 0..3 {
            let line = setup.to_line().unwrap();
            let read = WorkerSetup::from_line(&line).unwrap();
            let started = read.start.existing(&COUNTED).unwrap();
            assert_eq!(started.seeds, existing.seeds);
            assert_eq!(started.covered, existing.covered);
            assert_eq!(started.inapplicable, existing.inapplicable);
            assert_eq!(started.known_failures, existing.known_failures);
            assert_eq!(started.reach.all_len(), existing.reach.all_len());
            assert_eq!(read.start.crashing, ["(x:333)".to_owned()].into());
        }
        assert_eq!(COUNTED_CALLS.load(SeqCst), 2, "a worker start ran a carve-file call");
    }

    #[test]
    fn unconfirmed_crashes_are_counted_apart_by_kind() {
        let mut summary = Summary::default();
        assert_eq!(summary.unconfirmed(), "");
        let pending = |timeout| Pending {
            number: 1,
            hash: 2,
            timeout,
        };
        summary.count_unconfirmed(&pending(true));
        summary.count_unconfirmed(&pending(true));
        summary.count_unconfirmed(&pending(false));
        assert_eq!(
            summary.unconfirmed(),
            " (2 unconfirmed timeout(s) not kept) (1 unconfirmed crash(es) not kept)"
        );
    }
}
