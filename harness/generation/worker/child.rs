//! The worker's side: reads its setup, runs generation in-process and
//! reports to its parent, marking and journaling each call.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::io::{self, BufRead};
use std::path::Path;
use std::time::{Duration, Instant};

use crate::carving::identity::CallId;
use crate::carving::store::{CarveFile, Entry, Origin};
use crate::coverage::reach::Reach;
use crate::coverage::Trace;
use crate::env::{Budget, Config};
use crate::generation::distil;
use crate::generation::generate::{
    self, Executed, Found, Kept, NotRun, Observer, Settings,
};
use crate::coverage::history::Phase;
use crate::outcome::{Failure, FailureKind, Observation, Outcome};
use crate::registry::{Registry, Target};
use crate::value::Value;
use super::error::WorkerError;
use super::journal::{CallMarker, Crash, Journal};
use crate::generation::repeats::args_hash;
use super::liveness::Liveness;
use super::protocol::{Channel, Distilled, WireTrace, WorkerMessage, WorkerSetup};
use crate::registry::SiteNumbers;
use super::triage;
use super::{PROGRESS_EVERY, RESTART_COST, CRASH_SHRINK_SHARE};

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
    // Which edge counters count is read from the symbols before any call.
    let (liveness, setup) = start(
        channel,
        read_setup,
        |setup| Duration::from_millis(setup.timeout_ms),
        |setup| crate::coverage::counters::adopt(setup.counters.take()),
    );
    match worker(registry, config, target_name, setup, &liveness) {
        Ok(()) => std::process::exit(0),
        Err(e) => fail(&liveness, &e),
    }
}

/// Starts the heartbeat, then reads the setup with `read_setup` and does
/// the work before the first call with `prepare`; exits, telling the parent
/// why, when the setup cannot be read. The parent takes a worker silent for
/// [`super::liveness::SILENCE_LIMIT`] for frozen, from its start: the
/// heartbeat speaks from the first, as reading the setup and `prepare`
/// (which edge counters count: the parent's decision, taken over, or, when
/// that does not fit, the symbols read from a test binary of tens of
/// megabytes) may take that long on a loaded machine; neither is a call,
/// which alone can hang.
fn start<S>(
    channel: Channel,
    read_setup: impl FnOnce() -> Result<S, WorkerError>,
    timeout: impl FnOnce(&S) -> Duration,
    prepare: impl FnOnce(&mut S),
) -> (std::sync::Arc<Liveness>, S) {
    // No call runs before the setup gives the timeout.
    let liveness = Liveness::start(channel, Duration::MAX);
    let mut setup = match read_setup() {
        Ok(setup) => setup,
        Err(e) => fail(&liveness, &e),
    };
    liveness.set_timeout(timeout(&setup));
    prepare(&mut setup);
    (liveness, setup)
}

/// Tells the parent why the worker cannot go on, and exits.
fn fail(liveness: &Liveness, error: &WorkerError) -> ! {
    liveness.send(&WorkerMessage::Error {
        message: error.to_string(),
    });
    std::process::exit(3)
}

/// The setup the parent sends first, on stdin.
fn read_setup() -> Result<WorkerSetup, WorkerError> {
    let mut line = String::new();
    io::stdin().lock().read_line(&mut line).map_err(WorkerError::WorkerIo)?;
    Ok(WorkerSetup::from_line(line.trim_end_matches('\n'))?)
}

fn worker(
    registry: &Registry,
    config: &Config,
    target_name: &str,
    setup: WorkerSetup,
    liveness: &Liveness,
) -> Result<(), WorkerError> {
    let target = registry
        .target(target_name)
        .ok_or_else(|| WorkerError::UnknownTarget(target_name.to_owned()))?;
    let path = CarveFile::path_for(&config.dir, target_name);
    // Where the parent's replay of the carve files left off: no call of
    // theirs runs again here.
    let existing = setup.start.existing(target)?;
    let budget = Budget::from(setup.budget);
    let settings = Settings {
        seed: generate::round_seed(setup.seed, setup.round),
        budget,
        phases: generate::Phases::All,
        until_reach_grows: setup.round + 1 < generate::ROUNDS,
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
        // A later round's worker said what the first round's did.
        restart: setup.restart || setup.round > 0,
        cap: setup.cap,
        crashes: setup.crashes.into_iter().map(|c| (c.hash, c)).collect(),
        unbuildable: setup.unbuildable.into_iter().collect(),
        journal: Journal::open(scratch).map_err(WorkerError::WorkerIo)?,
        marker: CallMarker::open(scratch).map_err(WorkerError::WorkerIo)?,
        replayed: HashSet::new(),
        undeserializable: 0,
        last_report: (0, Instant::now()),
        phase: None,
        reported: None,
        last_seen: (0, 0, 0),
        numbers: SiteNumbers::new(),
    };
    let generation = generate::generate(target, target_name, &existing, settings, &mut observer);
    observer.journal.flush().map_err(WorkerError::WorkerIo)?;
    observer.send_progress();
    liveness.send(&WorkerMessage::Done {
        executions: generation.executions,
        undeserializable: generation.undeserializable,
        reach_grew: settings.until_reach_grows && generation.reach_grew,
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
    /// Calls whose arguments took a worker of this run down while they were
    /// built, by argument hash.
    unbuildable: HashSet<u64>,
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
    /// The functions by number, for the traces sent.
    numbers: SiteNumbers,
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

    /// Sends a call's entry and its `trace` to the parent (`message`), which
    /// adds the entry to the carve file unless an entry there has its
    /// arguments, and counts what the trace covers. A call answered from the
    /// journal is left out if an earlier worker of this run stored it
    /// already, and runs again for its observation otherwise (its trace is
    /// the journal's, as it ran first). Ends the worker if the entry cannot
    /// be made or the file not read.
    fn save(
        &mut self,
        origin: Origin,
        args: &Value,
        (observation, trace): (&Observation, &Trace),
        message: fn(Entry, WireTrace) -> WorkerMessage,
    ) {
        let entry = (|| -> Result<Option<(Entry, WireTrace)>, WorkerError> {
            let trace = WireTrace::of(trace, &self.numbers)?;
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
            Ok(Some((entry, trace)))
        })();
        match entry {
            Ok(Some((entry, trace))) => self.send(message(entry, trace)),
            Ok(None) => {}
            Err(e) => fail(self.liveness, &e),
        }
    }

    /// The observation of a call made before (it returned or panicked).
    fn run_again(&self, args: &Value) -> Option<Observation> {
        self.liveness.call_started();
        let ran = generate::run_call(self.target, args, None);
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
        // Keyed as the carve file keys its entries: compact RON would leave
        // struct names out and never match an argument that has one.
        self.crashing.is_empty()
            || !self.crashing.contains(CallId::of_value(args).as_str())
    }

    fn execute(
        &mut self,
        ordinal: u64,
        args: &Value,
        run: &mut dyn FnMut() -> Result<Executed, NotRun>,
    ) -> Result<Executed, NotRun> {
        let hash = args_hash(args);
        let result = if self.unbuildable.contains(&hash) {
            Err(NotRun::Undeserializable)
        } else if let Some(crash) = self.crashes.get(&hash) {
            let observation = Observation {
                outcome: Outcome::Crashed(crash.message.clone()),
                after: None,
            };
            Ok(Executed {
                fingerprint: generate::fingerprint(&observation),
                observation,
                trace: Trace::default(),
                failure: Some(crash.at.clone()),
                edges: Vec::new(),
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
                fail(self.liveness, &WorkerError::WorkerIo(e));
            }
            result
        };
        if result.as_ref().err() == Some(&NotRun::Undeserializable) {
            self.undeserializable += 1;
        }
        result
    }

    fn checking_mutant(&mut self, on: bool) {
        self.marker.mutant(on);
        self.liveness.mutant(on);
    }

    fn crash_shrinks(&self, failure: &Failure) -> u32 {
        let hang = failure.kind == FailureKind::Timeout;
        crash_allowance(self.budget, hang, self.timeout)
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
            (&kept.observation, &kept.trace),
            |entry, trace| WorkerMessage::Kept { entry, trace },
        );
    }

    fn distilled(&mut self, distilled: &distil::Distilled) {
        // The arguments as the entries sent with `Kept` hold them.
        let args = |kept: &Kept| {
            let origin = Origin::Generated {
                seed: self.seed,
                added: Vec::new(),
            };
            Entry::from_values(origin, &kept.args, &kept.observation).map(|entry| entry.args)
        };
        let distilled = (|| -> Result<Distilled, WorkerError> {
            // Two calls whose arguments read the same are one entry: one
            // that stays keeps it.
            let staying: HashSet<String> = distilled.kept.iter().map(args).collect::<Result<_, _>>()?;
            let mut dropped: Vec<String> = Vec::new();
            for kept in &distilled.dropped {
                let text = args(kept)?;
                if !staying.contains(&text) && !dropped.contains(&text) {
                    dropped.push(text);
                }
            }
            Ok(Distilled {
                dropped,
                renamed: distilled
                    .renamed
                    .iter()
                    .map(|&i| &distilled.kept[i])
                    .map(|kept| {
                        let added = kept.added.iter().map(|goal| self.reach.describe(*goal)).collect();
                        Ok((args(kept)?, added))
                    })
                    .collect::<Result<_, WorkerError>>()?,
            })
        })();
        match distilled {
            Ok(distilled) => self.send(WorkerMessage::Distilled(distilled)),
            Err(e) => fail(self.liveness, &e),
        }
    }

    fn failure(&mut self, found: &Found) {
        let origin = Origin::Found {
            seed: self.seed,
            at: found.failure.to_string(),
            expected: false,
        };
        self.save(
            origin,
            &found.args,
            (&found.observation, &found.trace),
            |entry, trace| WorkerMessage::Failure { entry, trace },
        );
    }

    fn note(&mut self, line: String) {
        // A worker's stderr is not shown: the parent prints what it is sent.
        self.send(WorkerMessage::Note { line });
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
                fail(self.liveness, &WorkerError::WorkerIo(e));
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
    use crate::generation::worker::liveness::tests::Lines;
    use crate::generation::worker::liveness::HEARTBEAT;

    /// A worker speaks from its start: reading its setup and the work before
    /// its first call (the edge counters' symbols) took over 5 s on a loaded
    /// machine, and the parent took the silent worker for frozen (bs58: five
    /// targets stopped with "a worker ended outside any call of the target").
    #[test]
    fn a_worker_is_heard_while_it_reads_its_setup_and_prepares() {
        let lines = Lines::default();
        let heard = std::cell::RefCell::new(Vec::new());
        let (liveness, setup) = start(
            Channel::to(lines.clone()),
            || {
                std::thread::sleep(4 * HEARTBEAT);
                heard.borrow_mut().push(lines.take());
                Ok(Duration::from_millis(250))
            },
            |timeout| *timeout,
            |_| {
                std::thread::sleep(4 * HEARTBEAT);
                heard.borrow_mut().push(lines.take());
            },
        );
        assert_eq!(setup, Duration::from_millis(250));
        for messages in heard.take() {
            assert!(messages.contains(&WorkerMessage::Alive), "{messages:?}");
            assert!(!messages.contains(&WorkerMessage::TimedOut), "{messages:?}");
        }
        // The setup's timeout holds for the calls after it.
        liveness.call_started();
        std::thread::sleep(250 * Duration::from_millis(1) + 4 * HEARTBEAT);
        assert!(lines.take().contains(&WorkerMessage::TimedOut));
        liveness.call_ended();
    }
}
