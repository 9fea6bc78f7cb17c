//! Generation in worker processes, so that a target that aborts, overflows
//! its stack or never returns cannot take generation down with it.
//!
//! The test binary re-executes itself as a worker (`CARVE_WORKER=<target>`)
//! that runs [`generate`] in-process, saves every kept call and failure to
//! the carve file as soon as it is found (atomically, under the carve
//! folder's lock), and reports to its parent ([`protocol`]): progress, and
//! a heartbeat every 100 ms that says whether the call running now has
//! overrun the call timeout ([`liveness`]). A worker that exits abnormally,
//! or whose call overran, crashed on some call; a worker that cannot save
//! stops at once and fails the run. Generation is deterministic, so the parent
//! restarts a worker that redraws the same derivations without running those
//! already run, and runs the suspect window carefully, announcing each call
//! before making it; the call that crashes is stored as a `Found` entry with
//! a `Crashed` outcome, and generation resumes after it.

pub mod liveness;
pub mod protocol;

use std::collections::BTreeSet;
use std::io::{self, BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::call::ArgsInput;
use crate::carving::lock::CarveDirLock;
use crate::carving::store::{CarveFile, Entry, Origin, StoreError, StoredOutcome};
use crate::coverage;
use crate::coverage::reach::Reach;
use crate::env::{Budget, Config};
use crate::error::Error;
use crate::generation::generate::{self, Existing, Failure, Kept, Observer, Progress, Settings};
use crate::generation::history::{Phase, Point};
use crate::outcome::{describe_exit, quietly, Observation, Outcome};
use crate::registry::{Registry, Target};
use crate::value::Value;
use liveness::{Liveness, SILENCE_LIMIT};
use protocol::{Channel, WorkerMessage};

/// How long one generated call may run, from its own start.
pub const CALL_TIMEOUT: Duration = Duration::from_secs(1);
/// The variable that makes a test binary a worker for the named target.
pub const WORKER_VAR: &str = "CARVE_WORKER";
/// Derivations a worker may run between two progress lines.
const PROGRESS_EVERY: u64 = 256;
/// Restarts after which the parent gives up on a target.
const MAX_RESTARTS: u32 = 32;

/// What generation did for a target, over all its workers.
#[derive(Debug, Clone, Default)]
pub struct Summary {
    /// Calls run.
    pub executions: u64,
    /// Calls kept.
    pub kept: usize,
    /// Failures found (panics, aborts, timeouts).
    pub failures: usize,
    /// Worker processes that crashed.
    pub crashes: u32,
    /// Generated arguments that did not deserialize into the parameter types.
    pub undeserializable: u64,
    /// Goals covered against executions, with the phase, as the workers
    /// reported them.
    pub history: Vec<Point>,
}

/// Generates calls of `target_name` in worker processes; the carve file is
/// updated as they go. `goals` is the number of outcomes in its reach (for
/// progress).
pub fn generate_in_workers(
    target_name: &str,
    goals: u32,
    config: &Config,
) -> Result<Summary, Error> {
    let exe = std::env::current_exe().map_err(Error::StartWorker)?;
    let path = CarveFile::path_for(&config.dir, target_name);
    let mut summary = Summary::default();
    // With other targets generating beside it, a bar would overwrite theirs.
    let mut progress = Progress::new(target_name, config.budget).in_lines(config.jobs != Some(1));
    let total = goals as usize;
    let (mut skip, mut careful_until) = (0u64, 0u64);
    let start = Instant::now();
    while let Some(budget) = remaining(config.budget, summary.executions, start) {
        let run = run_worker(
            &exe,
            target_name,
            budget,
            skip,
            careful_until,
            &mut |executions, covered, phase| {
                let executions = summary.executions + executions;
                progress.tick(executions, covered, total);
                if let Some(phase) = phase {
                    summary.history.push(Point {
                        phase,
                        executions,
                        covered: covered as u64,
                    });
                }
            },
        )?;
        summary.executions += run.executions;
        summary.kept += run.kept;
        summary.failures += run.failures;
        summary.undeserializable += run.undeserializable;
        let Some(crash) = run.crash else { break };
        summary.crashes += 1;
        if summary.crashes > MAX_RESTARTS {
            eprintln!(
                "carve: {target_name}: generation stopped after {MAX_RESTARTS} worker crashes; \
                 what was found is saved"
            );
            break;
        }
        match run.calling {
            // The call announced last is the one that crashed.
            Some((index, args)) if index <= careful_until => {
                if store_crash(&config.dir, &path, config.seed, &crash, &args)? {
                    summary.failures += 1;
                }
                skip = index;
                careful_until = 0;
            }
            // Somewhere after the last progress line: run that window again, carefully.
            _ => {
                skip = run.last_index;
                careful_until = run.last_index + PROGRESS_EVERY + 1;
            }
        }
    }
    progress.finish();
    Ok(summary)
}

fn remaining(budget: Budget, executions: u64, start: Instant) -> Option<Budget> {
    match budget {
        Budget::Executions(n) => (executions < n).then(|| Budget::Executions(n - executions)),
        Budget::Time(d) => d
            .checked_sub(start.elapsed())
            .filter(|d| !d.is_zero())
            .map(Budget::Time),
    }
}

/// What one worker process did before it ended.
struct WorkerRun {
    executions: u64,
    undeserializable: u64,
    kept: usize,
    failures: usize,
    last_index: u64,
    calling: Option<(u64, String)>,
    /// Whether it said it finished.
    done: bool,
    /// How it crashed, if it did.
    crash: Option<String>,
}

impl WorkerRun {
    /// Takes in one message; a worker's own error ends the run, and so does
    /// a call that timed out (`crash` is then set).
    fn apply(
        &mut self,
        message: WorkerMessage,
        on_progress: &mut dyn FnMut(u64, usize, Option<Phase>),
    ) -> Result<(), String> {
        match message {
            WorkerMessage::Alive => {}
            WorkerMessage::TimedOut => {
                self.crash = Some(format!(
                    "did not return within {}s",
                    CALL_TIMEOUT.as_secs()
                ));
            }
            WorkerMessage::Progress {
                derivation,
                executions,
                covered,
                phase,
            } => {
                self.last_index = derivation;
                self.executions = executions;
                on_progress(executions, covered as usize, phase);
            }
            WorkerMessage::Calling { derivation, args } => self.calling = Some((derivation, args)),
            WorkerMessage::Kept => self.kept += 1,
            WorkerMessage::Failure => self.failures += 1,
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

/// Runs one worker to its end: generation finished, the worker crashed
/// (died, a call overran the call timeout, or the worker froze), or it
/// failed.
fn run_worker(
    exe: &Path,
    target_name: &str,
    budget: Budget,
    skip: u64,
    careful_until: u64,
    on_progress: &mut dyn FnMut(u64, usize, Option<Phase>),
) -> Result<WorkerRun, Error> {
    let (mut child, lines) = spawn_worker(exe, target_name, budget, skip, careful_until)?;
    let stop = |child: &mut Child| {
        let _ = child.kill();
        let _ = child.wait();
    };
    let mut run = WorkerRun {
        executions: 0,
        undeserializable: 0,
        kept: 0,
        failures: 0,
        last_index: skip,
        calling: None,
        done: false,
        crash: None,
    };
    loop {
        // The heartbeat comes every 100 ms, whatever the worker does.
        let line = match lines.recv_timeout(SILENCE_LIMIT) {
            Ok(line) => line,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                stop(&mut child);
                run.crash = Some(format!(
                    "stopped responding for {}s",
                    SILENCE_LIMIT.as_secs()
                ));
                return Ok(run);
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        };
        let applied = line
            .parse::<WorkerMessage>()
            .map_err(Error::from)
            .and_then(|message| {
                run.apply(message, on_progress)
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
            return Ok(run);
        }
    }
    let status = child.wait().map_err(Error::WorkerIo)?;
    if !(run.done && status.success()) {
        run.crash = Some(describe_exit(status));
    }
    Ok(run)
}

/// Starts a worker; its protocol lines arrive on the receiver.
fn spawn_worker(
    exe: &Path,
    target_name: &str,
    budget: Budget,
    skip: u64,
    careful_until: u64,
) -> Result<(Child, mpsc::Receiver<String>), Error> {
    let budget_text = match budget {
        Budget::Executions(n) => n.to_string(),
        Budget::Time(d) => format!("{}ms", d.as_millis().max(1)),
    };
    let mut child = Command::new(exe)
        .env(WORKER_VAR, target_name)
        .env("CARVE_WORKER_SKIP", skip.to_string())
        .env("CARVE_WORKER_CAREFUL", careful_until.to_string())
        .env("CARVE_BUDGET", budget_text)
        .env("RUST_BACKTRACE", "0")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(Error::StartWorker)?;
    let Some(stdout) = child.stdout.take() else {
        return Err(Error::WorkerIo(io::Error::other("worker without stdout")));
    };
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    Ok((child, rx))
}

/// Stores a crashing call as a `Found` entry, once per kind of crash.
/// Returns whether it was new.
fn store_crash(
    dir: &Path,
    path: &Path,
    seed: u64,
    crash: &str,
    args: &str,
) -> Result<bool, Error> {
    let outcome = StoredOutcome::of(&Outcome::Crashed(crash.to_owned()))?;
    let origin = Origin::Found {
        seed,
        at: crash.to_owned(),
        expected: false,
    };
    let entry = Entry::new(origin, args, outcome, None);
    append_entry(dir, path, entry, |e| {
        matches!(&e.origin, Origin::Found { at, .. } if at == crash)
    })
    .map_err(Error::Save)
}

/// Adds `entry` to the carve file at `path` in the carve folder `dir`,
/// unless an entry already there `stands_for` it. Loaded, changed and
/// written under the carve folder's lock, so that what another process (a
/// generate with another seed, a record) wrote meanwhile is kept. Returns
/// whether it was added.
fn append_entry(
    dir: &Path,
    path: &Path,
    entry: Entry,
    stands_for: impl Fn(&Entry) -> bool,
) -> Result<bool, StoreError> {
    let _lock = CarveDirLock::acquire(dir)?;
    let file = CarveFile::load(dir, path)?;
    if file.entries.iter().any(stands_for) {
        return Ok(false);
    }
    let mut entries = file.entries;
    entries.push(entry);
    CarveFile::write(path, &CarveFile::render(&file.target, &entries))?;
    Ok(true)
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
    // The heartbeat starts before the carve files are read: loading and
    // mining them is not a call and cannot time out.
    let liveness = Liveness::start(channel);
    match worker(registry, config, target_name, &liveness) {
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

fn worker(
    registry: &Registry,
    config: &Config,
    target_name: &str,
    liveness: &Liveness,
) -> Result<(), Error> {
    let number = |var: &str| {
        std::env::var(var)
            .ok()
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(0)
    };
    let target = registry
        .target(target_name)
        .ok_or_else(|| Error::UnknownTarget(target_name.to_owned()))?;
    let path = CarveFile::path_for(&config.dir, target_name);
    let file = CarveFile::load(&config.dir, &path)?;
    let existing = existing_calls(registry, target, &file, &config.dir, config.seed)?;
    let settings = Settings {
        seed: config.seed,
        budget: config.budget,
        skip: number("CARVE_WORKER_SKIP"),
        phases: generate::Phases::All,
    };
    let crashing = file
        .entries
        .iter()
        .filter(|e| e.outcome.is_crash())
        .map(|e| crate::carving::replay::strip_layout(&e.args))
        .collect();
    let mut observer = Reporter {
        reach: &existing.reach,
        crashing,
        liveness,
        careful_until: number("CARVE_WORKER_CAREFUL"),
        dir: &config.dir,
        path: &path,
        seed: config.seed,
        last_report: (0, Instant::now()),
        phase: None,
        reported: None,
        last_seen: (0, 0, 0),
    };
    let generation = generate::generate(target, target_name, &existing, settings, &mut observer);
    observer.send_progress();
    liveness.send(&WorkerMessage::Done {
        executions: generation.executions,
        undeserializable: generation.undeserializable,
    });
    Ok(())
}

/// Replays the carve files to learn where generation for `target` starts:
/// its own entries (`file`) give the seeds, known failures and the
/// functions its calls enter; every passing call of every target in `dir`
/// counts for what is already covered, except the calls other targets'
/// generation with this `seed` made. Those are left out so that each
/// target's generation depends only on its own file and on what the run
/// started from: targets then generate in any order, at once
/// (`CARVE_JOBS`) or on different machines (nextest partitions), with the
/// same files as one after another. Crashing entries are not run.
pub fn existing_calls(
    registry: &Registry,
    target: &'static Target,
    file: &CarveFile,
    dir: &Path,
    seed: u64,
) -> Result<Existing, Error> {
    let mut seeds = Vec::new();
    let mut known_failures = BTreeSet::new();
    let mut entered: Vec<&'static crate::registry::Sites> = Vec::new();
    let mut passing = Vec::new();
    let mut replay = |called: &'static Target, entry: &Entry| {
        if entry.outcome.is_crash() {
            return None;
        }
        let (replayed, trace) =
            coverage::collect(|| quietly(|| (called.replay)(ArgsInput::Ron(&entry.args))));
        let replayed = replayed.ok()?;
        if matches!(replayed.observation.outcome, Outcome::Returned(_)) {
            passing.push(trace.clone());
        }
        Some((replayed, trace))
    };
    for entry in &file.entries {
        if let Origin::Found { at, .. } = &entry.origin {
            known_failures.insert(at.clone());
        }
        if let Some((replayed, trace)) = replay(target, entry) {
            for sites in trace.functions() {
                if !entered.iter().any(|e| std::ptr::eq(*e, sites)) {
                    entered.push(sites);
                }
            }
            seeds.extend(replayed.args);
        }
    }
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
            replay(called, entry);
        }
    }
    let reach = Reach::new(target.sites, entered, &crate::registry::all_sites());
    let covered = passing
        .iter()
        .flat_map(|trace| reach.covered(trace))
        .collect();
    Ok(Existing {
        reach,
        seeds,
        covered,
        known_failures,
    })
}

/// Whether generation with `seed` made the entry of this `origin`.
fn made_with(origin: &Origin, seed: u64) -> bool {
    match origin {
        Origin::Generated { seed: made, .. } | Origin::Found { seed: made, .. } => *made == seed,
        Origin::System(_) => false,
    }
}

/// Reports to the parent and saves what is found, as it is found. A save
/// that fails ends the worker at once: every call it would go on to keep
/// would be lost too.
struct Reporter<'a> {
    reach: &'a Reach,
    /// Arguments known to crash, without layout.
    crashing: BTreeSet<String>,
    liveness: &'a Liveness,
    careful_until: u64,
    /// The carve folder.
    dir: &'a Path,
    /// The target's carve file in it.
    path: &'a Path,
    seed: u64,
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
            derivation: index,
            executions,
            covered: covered as u64,
            phase: self.phase,
        });
    }

    /// Adds a call to the carve file: loaded, changed and written under the
    /// carve folder's lock, so that what another process (a generate with
    /// another seed, a record) wrote since this worker started is kept.
    /// Reports it to the parent (`message`) only if it was added: another
    /// run may have stored the same call already. Ends the worker if the
    /// save fails.
    fn save(
        &self,
        origin: Origin,
        args: &Value,
        observation: &Observation,
        message: WorkerMessage,
    ) {
        let added = Entry::from_values(origin, args, observation)
            .map_err(Error::from)
            .and_then(|entry| {
                let args = entry.args.clone();
                self.liveness
                    .write(|| append_entry(self.dir, self.path, entry, |e| e.args == args))
                    .map_err(Error::Save)
            });
        match added {
            Ok(true) => self.send(message),
            Ok(false) => {}
            Err(e) => fail(self.liveness, &e),
        }
    }

}

impl Observer for Reporter<'_> {
    fn allow(&mut self, args: &Value) -> bool {
        self.crashing.is_empty() || !self.crashing.contains(&args.to_compact_ron())
    }

    fn before_call(&mut self, index: u64, args: &Value) {
        if index <= self.careful_until {
            let text = ron::ser::to_string_pretty(
                args,
                ron::ser::PrettyConfig::new()
                    .indentor("    ")
                    .new_line("\n"),
            )
            .unwrap_or_else(|_| args.to_compact_ron());
            self.send(WorkerMessage::Calling {
                derivation: index,
                args: text,
            });
        }
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
            WorkerMessage::Kept,
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
            WorkerMessage::Failure,
        );
    }

    fn call_started(&mut self) {
        self.liveness.call_started();
    }

    fn call_ended(&mut self) {
        self.liveness.call_ended();
    }

    fn progress(&mut self, index: u64, executions: u64, covered: usize) {
        self.last_seen = (index, executions, covered);
        let (last_index, last_time) = self.last_report;
        let changed = self.reported != self.phase.map(|phase| (phase, covered));
        if changed
            || index >= last_index + PROGRESS_EVERY
            || last_time.elapsed() >= Duration::from_millis(100)
        {
            self.send_progress();
        }
    }

    fn phase(&mut self, phase: Phase) {
        self.phase = Some(phase);
    }
}
