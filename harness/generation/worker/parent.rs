//! The parent's side of generation in workers: starting them, reading
//! what they send, confirming their crashes, storing what they found.

use std::collections::HashSet;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::carving::layout::StoreError;
use crate::carving::store::{CarveFile, Entry, Origin};
use crate::coverage::reach::Reach;
use crate::coverage::Trace;
use crate::env::{Budget, Config, Pattern, MIN_TIMEOUT};
use crate::outcome::{Ending, FailureKind};
use crate::generation::generate::Existing;
use crate::coverage::history::{Phase, Point};
use super::baseline::Baseline;
use super::error::WorkerError;
use super::journal::{CallMarker, Crash, Scratch};
use super::liveness::SILENCE_LIMIT;
use super::progress::Progress;
use super::protocol::{Distilled, WorkerMessage, WorkerSetup};
use crate::registry::SiteNumbers;
use super::triage::{self, Ended};
use super::{TIMEOUT_FACTOR, MAX_UNCONFIRMED, WORKER_VAR, RESTART_COST, STDERR_TAIL};

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
    /// Worker processes that died while carve built a call's arguments
    /// (their `Deserialize` or `FromStr` hung or aborted): no failure of the
    /// target; the call counts as arguments that did not deserialize.
    pub unbuildable: u32,
    /// Worker processes that a call run against a mutant took down,
    /// confirmed: a mutated condition that never ends. No failure of the
    /// target; the check counts as killing the mutant.
    pub mutant_crashes: u32,
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
    /// What the workers said for the user to read, in the order sent.
    pub notes: Vec<String>,
    /// Kept calls that distilling dropped at the end of the run (later
    /// kept calls cover what they did): not in `stored`, not in the file.
    pub distilled: usize,
    /// Whether the last worker stopped early because a kept call entered
    /// a function outside the reach: the rest of the budget is for another
    /// round ([`generate_in_rounds`]).
    pub reach_grew: bool,
}

/// Which round of a target's generation [`generate_in_workers`] runs.
#[derive(Debug, Clone, Copy, Default)]
pub struct Round {
    /// 0 for the first ([`crate::generation::generate::ROUNDS`]).
    pub number: u32,
    /// Executions of the rounds before it: its history goes on from there.
    pub spent: u64,
}

/// Generates calls of `target_name` in rounds: the first from `before`;
/// when it stopped because a kept call entered an instrumented function
/// outside the reach (a trait method std calls, a helper no call site
/// names by type), another with the rest of the budget, from what
/// `baseline` shows once it has taken in what the first stored: the reach
/// grown by those functions (owned, as every function, by one target),
/// the kept calls among the seeds. `baseline` takes in all that is stored.
pub fn generate_in_rounds(
    target_name: &str,
    baseline: &mut Baseline,
    before: &Existing,
    config: &Config,
) -> Result<Summary, WorkerError> {
    let start = Instant::now();
    let mut summary = generate_in_workers(target_name, baseline, before, config, Round::default())?;
    baseline.add_traced(summary.stored.iter().map(|found| (found.entry(), found.trace())));
    // The stored entries before this are seeds already.
    let mut seeded = 0;
    for number in 1..crate::generation::generate::ROUNDS {
        if !summary.reach_grew {
            break;
        }
        let Some(budget) = summary.rest_of(config.budget, start) else {
            break;
        };
        baseline.seed_with(summary.stored[seeded..].iter().map(Found::entry));
        seeded = summary.stored.len();
        let existing = baseline.existing();
        let config = Config {
            budget,
            ..config.clone()
        };
        let round = Round {
            number,
            spent: summary.executions,
        };
        let next = generate_in_workers(target_name, baseline, &existing, &config, round)?;
        baseline.add_traced(next.stored.iter().map(|found| (found.entry(), found.trace())));
        summary.absorb(next);
    }
    Ok(summary)
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

/// How many times the call timeout a worker confirming a timeout gives
/// every call: a call slowed past the timeout by a loaded machine is not
/// slowed as much twice in a row, a hang hangs at any timeout.
const CONFIRM_TIMEOUT_FACTOR: u32 = 4;

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
fn generate_in_workers(
    target_name: &str,
    baseline: &Baseline,
    existing: &Existing,
    config: &Config,
    round: Round,
) -> Result<Summary, WorkerError> {
    let goals = existing.reach.len();
    let timeout = call_timeout(config, existing.slowest);
    let exe = std::env::current_exe().map_err(WorkerError::StartWorker)?;
    let path = CarveFile::path_for(&config.dir, target_name);
    let scratch = Scratch::create(target_name).map_err(WorkerError::WorkerIo)?;
    let start_at = baseline.start(existing)?;
    let mut setup = WorkerSetup {
        scratch: scratch.dir().to_owned(),
        seed: config.seed,
        budget: config.budget.into(),
        cap: u64::MAX,
        // Set for each worker below.
        timeout_ms: 0,
        restart: false,
        crashes: Vec::new(),
        unbuildable: Vec::new(),
        start: start_at,
        round: round.number,
        counters: crate::coverage::counters::decision(),
    };
    let mut summary = Summary::default();
    let mut found = Vec::new();
    let mut distilled = None;
    let numbers = SiteNumbers::new();
    // With other targets generating beside it, a bar would overwrite theirs.
    let mut progress = Progress::new(target_name, config.budget).in_lines(config.jobs != Some(1));
    let total = goals as usize;
    let mut pending: Option<Pending> = None;
    let start = Instant::now();
    let mut first = true;
    loop {
        let spent_on_restarts = summary.restarts() * RESTART_COST;
        let cap = match config.budget {
            Budget::Executions(n) => n.saturating_sub(spent_on_restarts),
            Budget::Time(_) => u64::MAX,
        };
        let Some(budget) = remaining(config.budget, start) else {
            break;
        };
        CallMarker::reset(scratch.dir()).map_err(WorkerError::WorkerIo)?;
        let history = &mut summary.history;
        setup.budget = budget.into();
        setup.cap = cap;
        let worker_timeout = match &pending {
            Some(p) if p.timeout => timeout * CONFIRM_TIMEOUT_FACTOR,
            _ => timeout,
        };
        setup.timeout_ms = u64::try_from(worker_timeout.as_millis().max(1)).unwrap_or(u64::MAX);
        setup.restart = !std::mem::take(&mut first);
        let ran = run_worker(
            &exe,
            target_name,
            &setup,
            &mut |executions, covered, phase| {
                progress.tick(executions, covered, total);
                // A restarted worker retraces the calls before: their points
                // are in the history already.
                let executions_in_run = round.spent + executions;
                let new = history.last().is_none_or(|p| {
                    executions_in_run > p.executions
                        || (executions_in_run == p.executions && phase.is_some_and(|f| f != p.phase))
                });
                if let Some(phase) = phase.filter(|_| new) {
                    history.push(Point {
                        phase,
                        executions: executions_in_run,
                        covered: covered as u64,
                    });
                }
            },
            &mut Received {
                found: &mut found,
                notes: &mut summary.notes,
                numbers: &numbers,
                distilled: &mut distilled,
            },
        );
        // Saved before the next worker starts: it retraces the run, and
        // leaves out what the carve file holds by then.
        let mut found: Vec<Found> = std::mem::take(&mut found)
            .into_iter()
            .map(|f| f.expected_by(&config.expected_panics))
            .collect();
        let distilled = distilled.take();
        if let Some(distilled) = &distilled {
            // A call kept twice with the same arguments is one entry.
            let calls = |found: &[Found]| -> HashSet<String> {
                found.iter().map(|f| f.entry().args.clone()).collect()
            };
            let before = calls(&found).len();
            found.retain_mut(|found| found.distil(distilled));
            summary.distilled += before - calls(&found).len();
        }
        let stored = store_found(&config.dir, &path, target_name, found);
        let run = ran?;
        let save_error = |e| WorkerError::Worker {
            target: target_name.to_owned(),
            message: WorkerError::Save(e).to_string(),
        };
        let stored = stored.map_err(save_error)?;
        // What earlier workers of the run stored is in the file already.
        if let Some(distilled) = &distilled {
            summary.distilled +=
                distil_stored(&config.dir, &path, &mut summary.stored, distilled).map_err(save_error)?;
        }
        summary.stored.extend(stored);
        summary.executions = run.executions;
        summary.undeserializable = run.undeserializable;
        summary.reach_grew = run.reach_grew;
        let Some(ended) = run.crash else {
            // The call waiting for confirmation ran again, and returned.
            if let Some(unconfirmed) = pending.take() {
                summary.count_unconfirmed(&unconfirmed);
            }
            break;
        };
        let marked = CallMarker::read(scratch.dir()).map_err(WorkerError::WorkerIo)?;
        let Some((number, hash)) = marked.in_call() else {
            return Err(WorkerError::Worker {
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
        if marked.in_setup() {
            // Not in the call: while carve built its arguments (slab's
            // `Deserialize` of a key near `usize::MAX` fills memory until the
            // timeout). No failure of the target: the next worker takes the
            // call as arguments that do not deserialize. A call waiting for
            // confirmation before it ran and returned.
            if let Some(unconfirmed) = pending.take() {
                summary.count_unconfirmed(&unconfirmed);
            }
            summary.unbuildable += 1;
            setup.unbuildable.push(hash);
            if summary.budget_spent(config.budget, number) {
                break;
            }
            continue;
        }
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
        match marked.in_mutant() {
            true => summary.mutant_crashes += 1,
            false => summary.crashes += 1,
        }
        let triage = triage::classify(ended, &run.stderr_tail, timeout);
        setup.crashes.push(Crash {
            hash,
            at: triage.failure,
            message: triage.message,
        });
        if summary.budget_spent(config.budget, number) {
            break;
        }
    }
    // Time ran out before the waiting call ran again: not kept either.
    if let Some(unconfirmed) = pending.take() {
        summary.count_unconfirmed(&unconfirmed);
    }
    if let Budget::Executions(n) = config.budget {
        let restarts = summary.restarts() * RESTART_COST;
        if summary.restarts() > 0 && summary.executions.saturating_add(restarts) >= n {
            progress.finish();
            let unbuildable = match summary.unbuildable {
                0 => String::new(),
                n => format!(" and {n} argument(s) that took a worker down while carve built them"),
            };
            let mutants = match summary.mutant_crashes {
                0 => String::new(),
                n => format!(" and {n} check(s) against mutants that hung or crashed a worker"),
            };
            eprintln!(
                "carve: {target_name}: generation spent its budget: {} worker crash(es){unbuildable}{mutants} \
                 took {} of the {n} executions in the budget ({RESTART_COST} per restart); what \
                 was found is saved",
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
    /// What is left of `budget` after this summary's executions and
    /// restarts, or the time since `start`; none when it would not pay for
    /// a round's start ([`RESTART_COST`]).
    fn rest_of(&self, budget: Budget, start: Instant) -> Option<Budget> {
        match budget {
            Budget::Executions(n) => {
                let spent = self.executions.saturating_add(self.restarts() * RESTART_COST);
                let rest = n.saturating_sub(spent);
                (rest >= RESTART_COST).then_some(Budget::Executions(rest))
            }
            Budget::Time(_) => remaining(budget, start),
        }
    }

    /// Adds what a later round did.
    fn absorb(&mut self, round: Summary) {
        self.executions += round.executions;
        self.stored.extend(round.stored);
        self.crashes += round.crashes;
        self.unbuildable += round.unbuildable;
        self.mutant_crashes += round.mutant_crashes;
        self.unconfirmed_timeouts += round.unconfirmed_timeouts;
        self.unconfirmed_crashes += round.unconfirmed_crashes;
        self.undeserializable += round.undeserializable;
        self.history.extend(round.history);
        self.notes.extend(round.notes);
        self.distilled += round.distilled;
        self.reach_grew = round.reach_grew;
    }

    /// Calls kept.
    pub fn kept(&self) -> usize {
        self.stored
            .iter()
            .filter(|found| matches!(found, Found::Kept(..)))
            .count()
    }

    /// Calls kept although they name no goal of `reach` (the reach
    /// generation started from), as `(for edge features of code carve does
    /// not instrument, for outcomes of functions outside the reach)`
    /// ([`crate::coverage::counters`], [`Reach::outside`]).
    pub fn kept_beyond_goals(&self, reach: &Reach) -> (usize, usize) {
        let mut counts = (0, 0);
        let mut outside = std::collections::BTreeSet::new();
        for found in &self.stored {
            let Found::Kept(entry, trace) = found else {
                continue;
            };
            let mut new = false;
            for outcome in reach.outside(trace) {
                new |= outside.insert(outcome);
            }
            if !matches!(&entry.origin, Origin::Generated { added, .. } if added.is_empty()) {
                continue;
            }
            match new {
                true => counts.1 += 1,
                false => counts.0 += 1,
            }
        }
        counts
    }

    /// Failures found (panics an `expected_panics` pattern matches are not).
    pub fn failures(&self) -> usize {
        self.stored
            .iter()
            .filter(|found| matches!(found, Found::Failure(e, _) if e.origin.is_open_failure()))
            .count()
    }

    /// Panics found that an `expected_panics` pattern matches.
    pub fn expected(&self) -> usize {
        self.stored.len() - self.kept() - self.failures()
    }

    /// ` (2 worker crash(es) survived; …)` for the generation line: what
    /// took workers down, apart from the target's failures; empty when
    /// nothing did.
    pub fn restart_note(&self) -> String {
        let mut parts = Vec::new();
        if self.crashes > 0 {
            parts.push(format!("{} worker crash(es) survived", self.crashes));
        }
        if self.unbuildable > 0 {
            parts.push(format!(
                "{} argument(s) took a worker down while carve built them: left out",
                self.unbuildable
            ));
        }
        if self.mutant_crashes > 0 {
            parts.push(format!(
                "{} check(s) against mutants hung or crashed a worker: mutants killed, no failure",
                self.mutant_crashes
            ));
        }
        match parts.is_empty() {
            true => String::new(),
            false => format!(" ({})", parts.join("; ")),
        }
    }

    /// Workers restarted after one died: confirmed crashes, and arguments
    /// that took a worker down while they were built.
    fn restarts(&self) -> u64 {
        u64::from(self.crashes) + u64::from(self.unbuildable) + u64::from(self.mutant_crashes)
    }

    /// Whether `executions` calls and the restarts so far spend an
    /// execution budget (a time budget the workers watch themselves).
    fn budget_spent(&self, budget: Budget, executions: u64) -> bool {
        match budget {
            Budget::Executions(n) => executions.saturating_add(self.restarts() * RESTART_COST) >= n,
            Budget::Time(_) => false,
        }
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
#[derive(Default)]
struct WorkerRun {
    /// Calls made so far in the run, as the worker last said.
    executions: u64,
    undeserializable: u64,
    /// Whether it said it finished.
    done: bool,
    /// Whether it stopped for another round ([`Summary::reach_grew`]).
    reach_grew: bool,
    /// How it crashed, if it did.
    crash: Option<Ended>,
    /// The end of what it wrote to stderr.
    stderr_tail: String,
}

impl WorkerRun {
    /// Takes in one line from the worker of `target_name`; an error (a line
    /// that is not a message, a trace that does not fit this binary, the
    /// worker's own error) names the target: workers of several targets run
    /// at once.
    fn read(
        &mut self,
        line: &str,
        target_name: &str,
        on_progress: &mut dyn FnMut(u64, usize, Option<Phase>),
        received: &mut Received<'_>,
    ) -> Result<(), WorkerError> {
        line.parse::<WorkerMessage>()
            .map_err(|e| e.message)
            .and_then(|message| self.apply(message, on_progress, received))
            .map_err(|message| WorkerError::Worker {
                target: target_name.to_owned(),
                message,
            })
    }

    /// Takes in one message; a worker's own error ends the run, and so does
    /// a call that timed out (`crash` is then set), or a trace that does not
    /// fit this test binary.
    fn apply(
        &mut self,
        message: WorkerMessage,
        on_progress: &mut dyn FnMut(u64, usize, Option<Phase>),
        received: &mut Received<'_>,
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
            WorkerMessage::Kept { entry, trace } => {
                let trace = trace.to_trace(received.numbers).map_err(|e| e.message)?;
                received.found.push(Found::Kept(entry, trace));
            }
            WorkerMessage::Failure { entry, trace } => {
                let trace = trace.to_trace(received.numbers).map_err(|e| e.message)?;
                received.found.push(Found::Failure(entry, trace));
            }
            WorkerMessage::Note { line } => received.notes.push(line),
            WorkerMessage::Distilled(distilled) => *received.distilled = Some(distilled),
            WorkerMessage::Error { message } => return Err(message),
            WorkerMessage::Done {
                executions,
                undeserializable,
                reach_grew,
            } => {
                self.executions = executions;
                self.undeserializable = undeserializable;
                self.reach_grew = reach_grew;
                self.done = true;
            }
        }
        Ok(())
    }
}

/// Where what the workers send is kept.
struct Received<'a> {
    /// Calls kept and failures found.
    found: &'a mut Vec<Found>,
    /// Lines for the user.
    notes: &'a mut Vec<String>,
    /// The functions by number, to read traces with.
    numbers: &'a SiteNumbers,
    /// What distilling changed, once the worker distilled.
    distilled: &'a mut Option<Distilled>,
}

/// What a worker found, for the carve file, with what the call reached as
/// the worker traced it: the parent counts coverage from it, without
/// running the call again.
#[derive(Debug, Clone, PartialEq)]
pub enum Found {
    /// A generated call that covered new goals.
    Kept(Entry, Trace),
    /// A failing input (its trace is empty for a crash).
    Failure(Entry, Trace),
}

impl Found {
    /// The failure marked `expected: true` when it is a panic whose message
    /// one of `patterns` matches; anything else as it is.
    pub fn expected_by(self, patterns: &[Pattern]) -> Found {
        let Found::Failure(mut entry, trace) = self else {
            return self;
        };
        mark_if_expected(&mut entry, patterns);
        Found::Failure(entry, trace)
    }

    /// Applies `distilled`: `false` when it is a kept call distilling
    /// dropped; a kept call it renamed is named for its new goals.
    fn distil(&mut self, distilled: &Distilled) -> bool {
        let Found::Kept(entry, _) = self else {
            return true;
        };
        if distilled.dropped.contains(&entry.args) {
            return false;
        }
        let renamed = distilled.renamed.iter().find(|(args, _)| *args == entry.args);
        if let (Some((_, goals)), Origin::Generated { added, .. }) = (renamed, &mut entry.origin) {
            added.clone_from(goals);
        }
        true
    }

    /// Its entry.
    pub fn entry(&self) -> &Entry {
        match self {
            Found::Kept(entry, _) | Found::Failure(entry, _) => entry,
        }
    }

    /// What its call reached, as the worker traced it.
    pub fn trace(&self) -> &Trace {
        match self {
            Found::Kept(_, trace) | Found::Failure(_, trace) => trace,
        }
    }
}

/// Runs one worker to its end: generation finished, the worker crashed
/// (died, a call overran the call timeout, or the worker froze), or it
/// failed. What it found and said is added to `received` in every case.
fn run_worker(
    exe: &Path,
    target_name: &str,
    setup: &WorkerSetup,
    on_progress: &mut dyn FnMut(u64, usize, Option<Phase>),
    received: &mut Received<'_>,
) -> Result<WorkerRun, WorkerError> {
    let (mut child, lines, stderr) = spawn_worker(exe, target_name, setup)?;
    let stop = |child: &mut Child| {
        let _ = child.kill();
        let _ = child.wait();
    };
    let mut run = WorkerRun::default();
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
        if let Err(e) = run.read(&line, target_name, on_progress, received) {
            stop(&mut child);
            return Err(e);
        }
        if run.crash.is_some() {
            stop(&mut child);
            run.stderr_tail = tail(stderr);
            return Ok(run);
        }
    }
    let status = child.wait().map_err(WorkerError::WorkerIo)?;
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
) -> Result<(Child, mpsc::Receiver<String>, JoinHandle<String>), WorkerError> {
    let line = setup.to_line()?;
    let mut child = Command::new(exe)
        .env(WORKER_VAR, target_name)
        .env("RUST_BACKTRACE", "0")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(WorkerError::StartWorker)?;
    let (Some(mut stdin), Some(stdout), Some(stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        return Err(WorkerError::WorkerIo(io::Error::other("worker without stdio")));
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

/// Marks `entry` `expected: true` when it is an open found failure whose
/// stored panic message one of `patterns` matches; returns whether it did.
fn mark_if_expected(entry: &mut Entry, patterns: &[Pattern]) -> bool {
    if let (
        Origin::Found {
            expected: expected @ false,
            ..
        },
        Ending::Failed {
            kind: FailureKind::Panic,
            message,
        },
    ) = (&mut entry.origin, &entry.outcome.ending)
    {
        *expected = patterns.iter().any(|p| p.matches(message));
        return *expected;
    }
    false
}

/// Marks `expected: true` the found failures of the carve file at `path`
/// (in the carve folder `dir`) whose stored panic one of `patterns`
/// matches: a pattern added after generation found the panic applies to it
/// at the next generation. Loaded and written once, under the carve
/// folder's lock. Returns the entries marked.
pub fn mark_expected(
    dir: &Path,
    path: &Path,
    patterns: &[Pattern],
) -> Result<Vec<Entry>, StoreError> {
    if patterns.is_empty() {
        return Ok(Vec::new());
    }
    let target = CarveFile::target_of(dir, path);
    CarveFile::update(dir, path, &target, |entries| {
        entries
            .iter_mut()
            .filter_map(|entry| mark_if_expected(entry, patterns).then(|| entry.clone()))
            .collect()
    })
}

/// Applies `distilled` to what earlier workers of the run `stored` in the
/// carve file at `path` (in the carve folder `dir`): the calls it dropped
/// are taken out of the file, those it renamed named anew, in one write
/// under the carve folder's lock; no other entry is touched. Returns how
/// many calls it took out.
fn distil_stored(
    dir: &Path,
    path: &Path,
    stored: &mut Vec<Found>,
    distilled: &Distilled,
) -> Result<usize, StoreError> {
    let before = stored.clone();
    stored.retain_mut(|found| found.distil(distilled));
    if *stored == before {
        return Ok(0);
    }
    let ours: HashSet<String> = before.iter().map(|f| f.entry().args.clone()).collect();
    let target = CarveFile::target_of(dir, path);
    let taken_out = CarveFile::update(dir, path, &target, |entries| {
        let mut taken_out = Vec::new();
        entries.retain_mut(|entry| {
            if !ours.contains(&entry.args) {
                return true;
            }
            let mut found = Found::Kept(entry.clone(), Trace::default());
            let keep = matches!(entry.origin, Origin::Found { .. }) || found.distil(distilled);
            match keep {
                true => *entry = found.entry().clone(),
                false => taken_out.push(()),
            }
            keep
        });
        taken_out
    })?;
    Ok(taken_out.len())
}

/// Adds what workers `found` to the carve file at `path` in the carve
/// folder `dir`, in the order found, each unless an entry already there has
/// its arguments. Loaded, changed and written once, under the carve
/// folder's lock, so that what another process (a generate with another
/// seed, a record) wrote meanwhile is kept. Returns what was added.
fn store_found(
    dir: &Path,
    path: &Path,
    target_name: &str,
    found: Vec<Found>,
) -> Result<Vec<Found>, StoreError> {
    if found.is_empty() {
        return Ok(Vec::new());
    }
    // A target no system test called has no file until its first call is kept.
    CarveFile::update(dir, path, target_name, |entries| {
        let mut stored: HashSet<String> = entries.iter().map(|e| e.args.clone()).collect();
        let added: Vec<Found> = found
            .into_iter()
            .filter(|found| stored.insert(found.entry().args.clone()))
            .collect();
        entries.extend(added.iter().map(|found| found.entry().clone()));
        added
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::carving::store::Origin;
    use crate::generation::testing;
    use crate::registry::Sites;

    /// A later round gets what the rounds before left of an execution
    /// budget, restarts counted, only when that pays for starting it; a
    /// round's figures add up in the run's.
    #[test]
    fn a_later_round_gets_the_rest_of_the_budget_when_it_pays_for_its_start() {
        let first = Summary {
            executions: 1_500,
            crashes: 2,
            reach_grew: true,
            ..Summary::default()
        };
        let start = Instant::now();
        assert_eq!(first.rest_of(Budget::Executions(2_000), start), Some(Budget::Executions(300)));
        let little = 1_500 + 2 * RESTART_COST + RESTART_COST - 1;
        assert_eq!(first.rest_of(Budget::Executions(little), start), None);
        assert_eq!(first.rest_of(Budget::Executions(1_000), start), None);
        let long = Budget::Time(Duration::from_secs(3_600));
        assert!(matches!(first.rest_of(long, start), Some(Budget::Time(d)) if d > Duration::from_secs(3_500)));
        let mut run = first.clone();
        run.absorb(Summary {
            executions: 300,
            undeserializable: 4,
            ..Summary::default()
        });
        assert_eq!((run.executions, run.crashes, run.undeserializable), (1_800, 2, 4));
        assert!(!run.reach_grew, "the last round's word counts");
    }

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

    /// A kept call that names no goal was kept for an edge feature, unless
    /// it took an outcome outside the reach that no call stored before it
    /// took.
    #[test]
    fn calls_kept_beyond_goals_are_told_apart_by_what_they_took_outside() {
        static TARGET: Sites = Sites::new("k::m", "target", "m.rs", (1, 2), &[], &[]);
        static HELPER: Sites = Sites::new("k::m", "helper", "m.rs", (3, 4), &[], &[]);
        let reach = Reach::single(&TARGET);
        let kept = |added: Vec<String>, helper: bool| {
            let origin = Origin::Generated { seed: 1, added };
            let entries = match helper {
                true => vec![(&TARGET, 0, 0.0), (&HELPER, 0, 0.0)],
                false => vec![(&TARGET, 0, 0.0)],
            };
            Found::Kept(testing::returned(origin, 1), Trace::from_entries(entries))
        };
        let summary = Summary {
            stored: vec![
                kept(vec![], false),
                // Enters the helper first, named for no goal.
                kept(vec![], true),
                // Enters it again: nothing new outside, so an edge's.
                kept(vec![], true),
                // Named for a goal: neither.
                kept(vec!["0".into()], false),
            ],
            ..Summary::default()
        };
        assert_eq!(summary.kept_beyond_goals(&reach), (2, 1));
    }

    /// What workers found goes into the carve file in one write, in the
    /// order found, each call once: what the file holds already (another
    /// run, an earlier worker of this one) is left out and not counted.
    #[test]
    fn found_entries_are_stored_in_one_write_each_call_once() {
        let (_scratch, dir) = testing::scratch();
        let path = CarveFile::path_for(&dir, "f");
        let entry = testing::returned;
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
            "f",
            vec![
                Found::Kept(entry(generated(), 2), Trace::default()),
                Found::Kept(entry(generated(), 1), Trace::default()),
                Found::Failure(entry(found(), 3), Trace::default()),
                Found::Kept(entry(generated(), 2), Trace::default()),
            ],
        );
        let text = std::fs::read_to_string(&path).unwrap();
        // Nothing new: nothing counted.
        let again = store_found(&dir, &path, "f", vec![Found::Kept(entry(generated(), 3), Trace::default())]);
        assert_eq!(
            stored.unwrap(),
            [
                Found::Kept(entry(generated(), 2), Trace::default()),
                Found::Failure(entry(found(), 3), Trace::default())
            ]
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

    /// Distilling takes the calls it dropped out of what an earlier worker
    /// of the run stored, and names anew those it renamed, in the file and
    /// in the run's summary; the system call, another seed's call and the
    /// found failure are left as they are.
    #[test]
    fn distilling_takes_dropped_calls_out_of_what_earlier_workers_stored() {
        let (_scratch, dir) = testing::scratch();
        let path = CarveFile::path_for(&dir, "f");
        let entry = testing::returned;
        let generated = |seed: u64, added: &[&str]| Origin::Generated {
            seed,
            added: added.iter().map(|a| a.to_string()).collect(),
        };
        let found = Origin::Found {
            seed: 1,
            at: "src/lib.rs:1".into(),
            expected: false,
        };
        let before = [entry(Origin::System("t".into()), 1), entry(generated(2, &[]), 2)];
        CarveFile::write(&path, &CarveFile::render("f", &before)).unwrap();
        let mut stored = store_found(
            &dir,
            &path,
            "f",
            vec![
                Found::Kept(entry(generated(1, &["a"]), 3), Trace::default()),
                Found::Failure(entry(found.clone(), 4), Trace::default()),
                Found::Kept(entry(generated(1, &["b"]), 5), Trace::default()),
            ],
        )
        .unwrap();
        let distilled = Distilled {
            // `(x: 2)` is another run's: not this run's to drop.
            dropped: vec!["(x: 3)".into(), "(x: 2)".into()],
            renamed: vec![("(x: 5)".into(), vec!["a".into(), "b".into()])],
        };
        let taken_out = distil_stored(&dir, &path, &mut stored, &distilled);
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(taken_out.unwrap(), 1);
        let after = [
            Found::Failure(entry(found, 4), Trace::default()),
            Found::Kept(entry(generated(1, &["a", "b"]), 5), Trace::default()),
        ];
        assert_eq!(stored, after);
        let entries: Vec<Entry> = before.into_iter().chain(after.iter().map(|f| f.entry().clone())).collect();
        assert_eq!(text, CarveFile::render("f", &entries));
    }

    /// A found panic whose message a pattern matches is marked expected and
    /// counted apart from failures; a crash or another message is not.
    #[test]
    fn a_panic_an_expected_pattern_matches_is_no_failure() {
        let found = |outcome: &str| {
            let origin = Origin::Found {
                seed: 1,
                at: "src/lib.rs:1".into(),
                expected: false,
            };
            let outcome = crate::carving::store::StoredOutcome::parse(outcome).unwrap();
            Found::Failure(Entry::new(origin, "(x: 1)", outcome, None), Trace::default())
        };
        let settings = crate::env::Settings::parse(
            Path::new("Cargo.toml"),
            "[package.metadata.carve]\nexpected_panics = [\"year .* 9999\"]\n",
        )
        .unwrap();
        let patterns = settings.of("t").expected_panics;
        let marked: Vec<bool> = [
            r#"Panicked("year 10000 is after 9999")"#,
            r#"Panicked("index out of bounds")"#,
            r#"Crashed("timeout: year 10000 is after 9999")"#,
        ]
        .into_iter()
        .map(|outcome| {
            let found = found(outcome).expected_by(&patterns);
            !found.entry().origin.is_open_failure()
        })
        .collect();
        assert_eq!(marked, [true, false, false]);
        let kept = Found::Kept(
            Entry::new(
                Origin::Generated { seed: 1, added: vec![] },
                "(x: 2)",
                crate::carving::store::StoredOutcome::parse("Returned(())").unwrap(),
                None,
            ),
            Trace::default(),
        );
        let summary = Summary {
            stored: vec![
                found(r#"Panicked("year 10000 is after 9999")"#).expected_by(&patterns),
                found(r#"Panicked("index out of bounds")"#),
                kept.clone(),
                kept.expected_by(&patterns),
            ],
            ..Summary::default()
        };
        assert_eq!((summary.kept(), summary.failures(), summary.expected()), (2, 1, 1));
    }

    /// What a worker sends is kept in the order sent, traces read back into
    /// this binary's functions; a line that is not a message, or a trace of
    /// another binary, stops generation naming the target.
    #[test]
    fn messages_are_kept_in_order_and_bad_ones_name_their_target() {
        let mut run = WorkerRun::default();
        let (mut found, mut notes) = (Vec::new(), Vec::new());
        let numbers = SiteNumbers::new();
        let mut distilled = None;
        let mut received = Received {
            found: &mut found,
            notes: &mut notes,
            numbers: &numbers,
            distilled: &mut distilled,
        };
        let mut read = |line: &str| {
            run.read(line, "a::f", &mut |_, _, _| {}, &mut received)
                .map_err(|e| e.to_string())
        };
        let kept = "carve-worker Kept(entry:(origin:Generated(seed:1,added:[]),args:\"(x: 1)\",\
                    outcome:\"Returned(())\",after:None),trace:[])";
        assert_eq!(read("carve-worker Note(line:\"one\")"), Ok(()));
        assert_eq!(read(kept), Ok(()));
        assert_eq!(read("carve-worker Note(line:\"two\")"), Ok(()));
        assert_eq!(
            read("carve-worker Kept(entry:(origin:Generated(seed:1,added:[]),args:\"(x: 2)\",outcome:\"Returned(())\",after:None),trace:[(4294967295,0,0)])"),
            Err(format!(
                "a::f: generation stopped: a worker sent a trace naming function number \
                 4294967295, but this test binary registers {}",
                numbers.registered()
            ))
        );
        assert_eq!(
            read("hello"),
            Err("a::f: generation stopped: a worker sent a malformed message: \"hello\" (it \
                 does not start with `carve-worker `)"
                .into())
        );
        assert_eq!(notes, ["one", "two"]);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].entry().args, "(x: 1)");
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
