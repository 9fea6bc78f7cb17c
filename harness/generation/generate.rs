//! Generation: new calls of a target that raise its branch coverage.
//!
//! The arguments of the calls a target already has (carved and generated)
//! are mined into a grammar ([`crate::generation::mine`]); the grammar-coverage fuzzer
//! ([`crate::generation::grammar`]) derives new arguments from it; search
//! ([`crate::generation::search`]) then goes after the outcomes the grammar misses,
//! and after them the boundaries and weak mutants ([`crate::coverage::goals`]). Each
//! call runs in-process with branch coverage, straight from the value tree
//! (no RON text per call). A call is kept only if it meets a goal (an
//! outcome, boundary or mutant) that no earlier call met. A call that panics is a found bug: its input is
//! minimized and reported once per panic line. [`crate::generation::worker`] runs all
//! this in a child process, so that aborts and endless loops are survived;
//! a call that crashed an earlier worker comes back with a crash as its
//! [`Executed::failure`],
//! and is minimized and reported once per kind and place the same way.

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use crate::call::{ArgsInput, ReplayError};
use crate::coverage::goals::GoalKind;
use crate::coverage::reach::Reach;
use crate::coverage::counters::{self, Seen};
use crate::coverage::{self, Mutation, Trace};
use crate::env::Budget;
use crate::generation::dictionary::Dictionary;
use crate::generation::goal_set::GoalSet;
use crate::generation::distil;
use crate::generation::repeats::{args_hash, Derivations, Key, Known, Repeats};
pub use crate::generation::kept::Kept;
use crate::generation::grammar::{GrammarFuzzer, Strategy};
use crate::coverage::history::Phase;
use crate::generation::mine::ArgsGrammar;
use crate::generation::sealed::Sealed;
use crate::generation::search::{Evaluate, Individual, Search};
use crate::generation::shrink::shrink;
use crate::value::types::ParamTypes;
use crate::outcome::{last_panic_location, quietly, Failure, Observation, Outcome, Site};
use crate::registry::{Sites, Target};
use crate::value::text::shorten;
use crate::value::Value;

/// A generated call that panicked or crashed, minimized.
#[derive(Debug, Clone)]
pub struct Found {
    /// The smallest arguments found that fail the same way.
    pub args: Value,
    /// What it did (a panic, or a crash).
    pub observation: Observation,
    /// Where it panicked (`file:line`), or the kind and place of the crash
    /// (`stack overflow`, `abort at src/lib.rs:12`): failures are told apart
    /// by it.
    pub failure: Failure,
    /// What the smallest arguments reached before they failed (nothing for
    /// a crash): the functions it entered join the target's reach.
    pub trace: Trace,
}

/// How a call ran, as generation uses it.
#[derive(Debug, Clone)]
pub struct Executed {
    /// What it did.
    pub observation: Observation,
    /// The branch outcomes it reached.
    pub trace: Trace,
    /// How it failed, if it did: a panic at its line, or a crash known
    /// from an earlier worker ([`crate::generation::worker`]).
    pub failure: Option<Failure>,
    /// [`fingerprint`] of `observation`: all a worker's journal keeps of
    /// it, so a call answered from the journal has a stand-in observation.
    /// Strong checks compare these, never the observations, so a retraced
    /// run decides as the run it retraces.
    pub fingerprint: u64,
    /// The edge features of code carve does not instrument that it reached
    /// and no kept call had when it ran ([`counters`]; none unless the
    /// crate was built with the counters): kept in the journal with it, so
    /// a retraced run keeps the same calls.
    pub edges: Vec<u32>,
}

/// A hash of what a call did, the same in every worker of one binary.
/// Only ever compared for equality within a run; FxHash's mixing costs a
/// fraction of SipHash's on every execution.
pub fn fingerprint(observation: &Observation) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = crate::carving::record::FastHasher::default();
    observation.hash(&mut hasher);
    hasher.finish()
}

impl Executed {
    /// How it failed, if it did and failures can be told apart by it (a
    /// panic whose site is unknown cannot).
    fn failed_at(&self) -> Option<&Failure> {
        self.failure.as_ref().filter(|f| f.is_told_apart())
    }

    /// Whether it took its worker process down or hung.
    pub fn crashed(&self) -> bool {
        self.failure.as_ref().is_some_and(|f| f.kind.is_crash())
    }
}

/// Why a call did not run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotRun {
    /// Its arguments did not deserialize into the parameter types.
    Undeserializable,
    /// What it returned could not be captured.
    Uncaptured,
}

/// What generation did for one target.
#[derive(Debug, Clone, Default)]
pub struct Generation {
    /// Goals covered after.
    pub after: GoalSet,
    /// Calls run.
    pub executions: u64,
    /// Calls not run because their arguments ran before
    /// ([`crate::generation::repeats`]): read back instead.
    pub repeated: u64,
    /// Generated arguments that did not deserialize into the parameter types.
    pub undeserializable: u64,
    /// Calls kept (after distilling: [`crate::generation::distil`]).
    pub kept: Vec<Kept>,
    /// Every call kept as the run went, in order, before distilling
    /// dropped those that later ones cover: `kept` is a part of it.
    pub undistilled: Vec<Kept>,
    /// Failures found.
    pub failures: Vec<Found>,
    /// Executions allowed in all: the execution budget, less what a
    /// worker's restarts cost ([`Observer::cap`]). Every execution checks
    /// it ([`execute`], [`kills`]), so the budget is an upper bound
    /// whatever runs the calls (search, minimizing, strong checks).
    limit: u64,
    /// The edge features the kept calls (and the existing ones) reached
    /// ([`counters`]): a call that reaches another is kept.
    seen: Seen,
    /// Values of sealed structs an argument may hold ([`Existing::sealed`]).
    sealed: Sealed,
    /// Whether a kept call entered an instrumented function outside the
    /// reach: with [`Settings::until_reach_grows`], the run stopped there.
    pub reach_grew: bool,
}

/// What generation starts from: the target's reach and what its existing
/// calls (and those of every other target) already do.
#[derive(Debug, Clone)]
pub struct Existing {
    /// The functions whose outcomes are goals, and the goals' numbering.
    pub reach: Reach,
    /// Arguments of the target's existing calls, and of calls made of
    /// values carved for other targets ([`crate::generation::borrowed`]):
    /// the grammar is mined from them, and search starts from them.
    pub seeds: Vec<Value>,
    /// Goals some passing call, of any target, already covers.
    pub covered: BTreeSet<u32>,
    /// Boundary and mutant goals that the existing calls show do not apply
    /// to their operands' types ([`Reach::inapplicable`]).
    pub inapplicable: BTreeSet<u32>,
    /// How its found failures failed (`src/lib.rs:12`, `abort`): not
    /// reported again.
    pub known_failures: BTreeSet<Failure>,
    /// The longest one of the target's own carve-file calls took to replay:
    /// the call timeout is derived from it.
    pub slowest: Duration,
    /// Goals of functions that another target's generation explores (one
    /// exploration per reach, [`crate::generation::owners`]): search never
    /// aims at them here (a grammar derivation that covers one first is
    /// still kept), and once the rest is covered, what is left of the
    /// budget is not spent looking for failures either.
    pub delegated: BTreeSet<u32>,
    /// The sealed structs of the crate and the values of them its API made:
    /// generated arguments hold only those ([`crate::generation::sealed`]).
    pub sealed: Sealed,
}

impl Existing {
    /// `(covered, total)` of the goals of `kind` (`None`: branch outcomes)
    /// that apply.
    pub fn count(&self, kind: Option<GoalKind>) -> (usize, usize) {
        self.reach.count(kind, &self.covered, &self.inapplicable)
    }

    /// Nothing but seeds, for generation on `target` alone (benches and tests).
    #[cfg(any(test, feature = "_internals"))]
    pub fn seeds(target: &'static Target, seeds: Vec<Value>) -> Existing {
        Existing {
            reach: Reach::single(target.sites),
            seeds,
            covered: BTreeSet::new(),
            inapplicable: BTreeSet::new(),
            known_failures: BTreeSet::new(),
            slowest: Duration::ZERO,
            delegated: BTreeSet::new(),
            sealed: Sealed::default(),
        }
    }
}

/// How many rounds a target's generation runs at most: the first, and one
/// whose reach holds the functions outside it that the first round's kept
/// calls entered ([`Settings::until_reach_grows`]).
pub const ROUNDS: u32 = 2;

/// The seed of round `round` of a run with `seed`: a later round derives
/// anew rather than repeat the calls of the first (its calls are stored with
/// the run's seed).
pub fn round_seed(seed: u64, round: u32) -> u64 {
    match round {
        0 => seed,
        n => seed ^ u64::from(n).wrapping_mul(0x9e37_79b9_7f4a_7c15),
    }
}

/// Settings of one generation run.
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    /// Seed of the fuzzer.
    pub seed: u64,
    /// How much to run.
    pub budget: Budget,
    /// Which phases run.
    pub phases: Phases,
    /// Whether the run stops before its last grammar phase once a kept call
    /// entered an instrumented function outside the reach
    /// ([`Generation::reach_grew`]): its caller then runs another round,
    /// whose reach holds that function, with the rest of the budget, so
    /// that search aims at its outcomes in this run and not only the next.
    pub until_reach_grows: bool,
}

/// The phases of generation (all by default; benchmarks compare them alone).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phases {
    /// Grammar, then search on what is left, then grammar.
    All,
    /// Grammar-coverage generation only.
    GrammarOnly,
    /// Search only, seeded from the existing calls.
    SearchOnly,
}

/// Hooks into a generation run, for a worker process to report and save as
/// it goes. Every method does nothing by default.
pub trait Observer {
    /// Whether to run a call with `args` at all (a worker skips inputs known
    /// to crash).
    fn allow(&mut self, _args: &Value) -> bool {
        true
    }
    /// Runs execution number `ordinal` (from 1, every call generation
    /// makes: a derivation's, a search move's or one that minimizes a
    /// failure) with `args`, by calling `run`. A worker times the call, and
    /// answers from its journal instead when it retraces what an earlier
    /// worker ran ([`crate::generation::worker`]).
    fn execute(
        &mut self,
        _ordinal: u64,
        _args: &Value,
        run: &mut dyn FnMut() -> Result<Executed, NotRun>,
    ) -> Result<Executed, NotRun> {
        run()
    }
    /// A call runs against a mutant (`true`) until it returned (`false`):
    /// a worker marks it, so that a mutant that hangs or crashes the worker
    /// is not taken for a crash of the target.
    fn checking_mutant(&mut self, _on: bool) {}
    /// At most how many candidates that crash the minimizer may try on
    /// `failure`: each takes a worker down (none without workers).
    fn crash_shrinks(&self, _failure: &Failure) -> u32 {
        0
    }
    /// How many calls run against mutants ([`coverage::with_mutant`]) may
    /// crash their worker (a mutant may loop forever, which only a worker
    /// survives): strong checks stop after that many. `None`: calls are
    /// never run against mutants.
    fn mutant_crashes(&self) -> Option<u32> {
        None
    }
    /// At most how many executions in all (a worker's restarts cost some
    /// of the budget).
    fn cap(&self) -> u64 {
        u64::MAX
    }
    /// Whether this run retraces one that a crash ended (a worker
    /// restarted): what was said once is not said again.
    fn restarted(&self) -> bool {
        false
    }
    /// A call was kept.
    fn kept(&mut self, _kept: &Kept) {}
    /// Distilling, at the end of the run, dropped kept calls (later kept
    /// calls cover what they did) and named others for the goals the
    /// dropped ones had been named for ([`crate::generation::distil`]).
    /// Not called when nothing is dropped.
    fn distilled(&mut self, _distilled: &distil::Distilled) {}
    /// A failure was found (and minimized).
    fn failure(&mut self, _found: &Found) {}
    /// Progress, before each derivation: derivations drawn, calls run,
    /// outcomes covered. Called often; throttle what it costs.
    fn progress(&mut self, _index: u64, _executions: u64, _covered: usize) {}
    /// A phase starts (phases take turns: each may start many times).
    fn phase(&mut self, _phase: Phase) {}
    /// Something for the user to read about this run, a whole line
    /// (`carve: <target>: …`). A worker sends it to its parent, which
    /// prints it with the target's generation lines; by default it goes
    /// to stderr.
    fn note(&mut self, line: String) {
        eprintln!("{line}");
    }
}

/// An observer that does nothing (benches and tests).
#[cfg(any(test, feature = "_internals"))]
pub struct Quiet;
#[cfg(any(test, feature = "_internals"))]
impl Observer for Quiet {}


/// Generates calls of `target` from its `existing` calls, aiming at every
/// goal in its reach that no passing call covers yet.
///
/// The strategies take turns, each until it stops paying: grammar-coverage
/// generation, then search ([`crate::generation::search`]) on the outcomes
/// still uncovered, the alternating variable method and then the genetic
/// algorithm. A strategy hands over after `patience` executions in a row
/// that cover nothing new and find no new failure; patience starts at
/// [`FIRST_PATIENCE`] and doubles every round, so a strategy that pays
/// keeps the budget, and one that does not costs little. Once every
/// outcome is covered, the rest of the budget goes to the grammar, which
/// also looks for failures.
///
/// Nothing in this schedule depends on the size of the budget, only on what
/// the executions so far found: with the same seed, a run with a larger
/// execution budget makes the same calls as a smaller one first, and so
/// finds at least what it found.
pub fn generate(
    target: &'static Target,
    name: &str,
    existing: &Existing,
    settings: Settings,
    observer: &mut dyn Observer,
) -> Generation {
    let mut generator = Generator {
        target,
        reach: &existing.reach,
        run: Generation {
            after: existing.covered.iter().copied().collect(),
            sealed: existing.sealed.clone(),
            limit: match settings.budget {
                Budget::Executions(n) => n.min(observer.cap()),
                Budget::Time(_) => observer.cap(),
            },
            ..Generation::default()
        },
        failed_at: existing.known_failures.clone(),
        observer,
        budget: settings.budget,
        start: Instant::now(),
        index: 0,
        traces: Vec::new(),
        starts: None,
        patience: u64::MAX,
        unfit_in_turn: 0,
        repeats: Repeats::default(),
        derivations: Derivations::default(),
        last_gain: 0,
        last_find: 0,
        aimed_outcomes: Vec::new(),
        types: ParamTypes::default(),
        dictionary: Dictionary::default(),
        shrinking: (0, Duration::ZERO),
        strong_checks: BTreeMap::new(),
        weakly_killed: BTreeSet::new(),
        checked: BTreeSet::new(),
        mutant_crashes: 0,
        pinned: [BTreeSet::new(), BTreeSet::new()],
        recording: Vec::new(),
        all_open: false,
        existing_seen: Seen::default(),
        outside: BTreeSet::new(),
        name: name.to_owned(),
        unstable_noted: false,
    };
    // Whatever ends the run, later collections on this thread (a replay
    // for the report) record every comparison in full again.
    struct RecordInFull;
    impl Drop for RecordInFull {
        fn drop(&mut self) {
            coverage::set_recording(&[]);
        }
    }
    let _record_in_full = RecordInFull;
    let types = target.param_types();
    generator.types = types.clone();
    generator.dictionary = Dictionary::of_target(&existing.reach, &types, &existing.seeds);
    let Some((grammar, untyped)) =
        ArgsGrammar::mine_typed(&existing.seeds, &types, &generator.dictionary, &existing.sealed)
    else {
        return generator.run;
    };
    // A restarted worker said so already.
    if !untyped.is_empty() && !generator.observer.restarted() {
        generator.observer.note(format!(
            "carve: {name}: generating from carved values only for parameter(s) whose type \
             could not be traced: {}",
            untyped.join("; ")
        ));
    }
    let mut fuzzer =
        match GrammarFuzzer::new(grammar.grammar(), Strategy::DeepForesight, settings.seed) {
            Ok(fuzzer) => fuzzer,
            Err(e) => {
                // Said once: a restarted worker retraces this same start.
                if !generator.observer.restarted() {
                    generator.observer.note(format!(
                        "carve: {name}: the mined grammar is not usable ({e}); nothing generated"
                    ));
                }
                return generator.run;
            }
        };
    let grammar = (settings.phases != Phases::SearchOnly).then_some(&grammar);
    let mut patience = FIRST_PATIENCE;
    if settings.phases != Phases::GrammarOnly {
        // With edge counters, the existing calls' edge features are seen
        // before any call is made: a call that reaches only those is not
        // kept for them.
        if counters::total() > 0 {
            generator.existing_starts(existing);
        }
        generator.recheck_existing(existing);
        generator.record_what_open_goals_read();
        let reach = &existing.reach;
        // Search aims at neither the goals that do not apply nor those
        // another target explores; the grammar still keeps a call that
        // covers one of these first.
        let left_out: BTreeSet<u32> = existing.inapplicable.union(&existing.delegated).copied().collect();
        let mut branches = Turns::new(0, 0..reach.len(), &left_out);
        generator.aimed_outcomes = branches.goals.iter().copied().collect();
        let mut goals = Turns::new(1, reach.len()..reach.all_len(), &left_out);
        while (generator.uncovered(&branches.goals) || generator.uncovered(&goals.goals))
            && !generator.exhausted()
        {
            let before = generator.run.executions;
            if let Some(grammar) = grammar {
                generator.grammar_phase(grammar, &mut fuzzer, patience);
            }
            // Branch outcomes first; boundaries and mutants once search on
            // the branches has had its turn (or has nothing left to cover).
            for turns in [&mut branches, &mut goals] {
                if generator.uncovered(&turns.goals) {
                    generator.search_round(turns, existing, settings.seed, patience);
                }
            }
            // Neither strategy could make a call: more patience will not help.
            if generator.run.executions == before {
                break;
            }
            patience = patience.saturating_mul(2);
        }
    }
    // The rest of the budget goes to a round whose reach holds what the kept
    // calls entered: its search aims there, where this one's grammar only
    // happens upon it.
    let grows = settings.until_reach_grows && generator.run.reach_grew;
    if let Some(grammar) = grammar.filter(|_| !grows) {
        generator.record_what_open_goals_read();
        // A target that shares its reach stops as its turns stop paying:
        // the target that explores the rest looks for failures there.
        let patience = match existing.delegated.is_empty() {
            true => u64::MAX,
            false => patience,
        };
        generator.grammar_phase(grammar, &mut fuzzer, patience);
    }
    generator.distil(existing);
    let index = generator.index;
    let covered = generator.branches_covered();
    generator
        .observer
        .progress(index, generator.run.executions, covered);
    generator.run
}

/// Search on one kind of goals (branch outcomes, or boundaries and
/// mutants), turn after turn.
struct Turns {
    /// Which of [`Generator::pinned`] holds what its search aims at.
    pin: usize,
    /// The goals it aims at.
    goals: BTreeSet<u32>,
    /// Made on its first turn.
    search: Option<Search>,
    /// Calls kept so far that it was offered.
    offered: usize,
    /// Whether the AVM's last turn found anything (at first: yes). Only then
    /// does it get [`AVM_PATIENCE`] times the others' patience.
    avm_paid: bool,
}

impl Turns {
    fn new(pin: usize, goals: std::ops::Range<u32>, left_out: &BTreeSet<u32>) -> Turns {
        Turns {
            pin,
            goals: goals.filter(|g| !left_out.contains(g)).collect(),
            search: None,
            offered: 0,
            avm_paid: true,
        }
    }
}

/// Executions in a row without a new outcome or failure after which a
/// strategy hands over, in the first round; it doubles every round.
pub const FIRST_PATIENCE: u64 = 32;

/// How many times the others' patience the AVM gets while its turns pay:
/// its moves close in on an outcome for a while before they cover it.
const AVM_PATIENCE: u64 = 8;

/// The state of one generation run: every call goes through [`Generator::call`].
struct Generator<'o> {
    target: &'static Target,
    reach: &'o Reach,
    run: Generation,
    failed_at: BTreeSet<Failure>,
    observer: &'o mut dyn Observer,
    budget: Budget,
    start: Instant,
    /// Calls attempted so far (derivations and search moves), from 1.
    index: u64,
    /// Calls kept so far (the first 4096), as generated: seeds of search.
    traces: Vec<Individual>,
    /// The existing calls, run once: where search starts.
    starts: Option<Vec<Individual>>,
    /// Calls in a row (run or repeated) without gain after which the current strategy
    /// hands over (`u64::MAX`: it runs to the end of the budget).
    patience: u64,
    /// Arguments search made in this turn that fit no parameter type (not
    /// run): bounded by the patience, as the grammar's derivations are.
    unfit_in_turn: u64,
    /// The arguments run so far, so that none runs twice.
    repeats: Repeats,
    /// What the grammar's derivations read as, by their keys.
    derivations: Derivations,
    /// The [`Generator::attempts`] when the last gain (a new outcome or
    /// failure) was made, or the current strategy started.
    last_gain: u64,
    /// The [`Generator::attempts`] when the last gain was made, by any
    /// strategy: the run ends on a plateau ([`PLATEAU`]).
    last_find: u64,
    /// The branch outcomes search aims at (none another target explores,
    /// none that does not apply): while one is open, the plateau is longer.
    aimed_outcomes: Vec<u32>,
    /// The parameter types: derivations and minimizing candidates outside
    /// them are not run.
    types: ParamTypes,
    /// The constants offered to the grammar and to search
    /// ([`Dictionary::of_target`]).
    dictionary: Dictionary,
    /// Executions and time spent minimizing kept calls.
    shrinking: (u64, Duration),
    /// Strong checks made per mutant goal ([`STRONG_CHECKS`]).
    strong_checks: BTreeMap<u32, u32>,
    /// Mutant goals the existing calls kill only weakly: aimed at again,
    /// but a call that only weakly kills one is not kept for it.
    weakly_killed: BTreeSet<u32>,
    /// The mutant goals each call (by the hash of its arguments) was
    /// checked against: a call made again (search starts from the carved
    /// calls) is neither checked nor counted twice.
    checked: BTreeSet<(u32, u64)>,
    /// Calls run against mutants that crashed their worker.
    mutant_crashes: u32,
    /// The goals each search (of branch outcomes, of boundaries and
    /// mutants) still aims at, as of its last turn: it reads them off
    /// traces even once met, so their goal slots are still recorded.
    pinned: [BTreeSet<u32>; 2],
    /// What the comparisons record in this thread's collections now, where
    /// less than in full ([`coverage::set_recording`]).
    recording: Vec<(&'static Sites, u32, coverage::Recording)>,
    /// Whether every goal slot is recorded for now (the existing calls
    /// run as search starts: their traces are read for met goals too).
    all_open: bool,
    /// The edge features the existing calls reached (with edge counters,
    /// once they ran as search starts): distilling needs no kept call for them.
    existing_seen: Seen,
    /// The outcomes of functions outside the reach that kept calls took
    /// ([`Reach::outside`]): a call that takes another is kept.
    outside: BTreeSet<(usize, u32)>,
    /// The target's name, for notes.
    name: String,
    /// Whether a call was left out because its outcome changed when it ran
    /// again ([`Generator::all_features`]): said once.
    unstable_noted: bool,
}

/// Calls that weakly kill a mutant goal and are checked against the mutant
/// itself: after this many whose outcome did not change, a weak kill counts.
const STRONG_CHECKS: u32 = 32;

/// A run ends on a plateau: once it has run as many executions without a
/// gain as it had run up to its last gain, and at least [`PLATEAU`] (twice
/// as many and [`OPEN_PLATEAU`] while a branch outcome it aims at is still
/// open: those are found late, after long stretches without a gain). The
/// goals left then are out of reach of what it does (infeasible boundaries,
/// equivalent mutants, outcomes behind a condition no move gets close to),
/// and the budget is an upper bound, not a quota: a target that is done
/// leaves the rest unspent. It depends only on what the executions found,
/// so a larger budget still makes the same calls first.
const PLATEAU: u64 = 2000;
/// [`PLATEAU`] while a branch outcome is open.
const OPEN_PLATEAU: u64 = 5000;

/// The share of the executions so far that minimizing kept calls may spend.
const KEPT_SHRINK_SHARE: f64 = 0.1;
/// Attempts at minimizing one kept call, at most.
const KEPT_SHRINK_ATTEMPTS: u64 = 200;

impl Generator<'_> {
    /// Whether the budget is spent, or the run is on a plateau ([`PLATEAU`]).
    fn exhausted(&self) -> bool {
        if self.run.executions >= self.limit() {
            return true;
        }
        // Checked on every execution: which plateau applies (a set
        // comparison) is asked only once the shorter one could be reached.
        let since = self.attempts().saturating_sub(self.last_find);
        if since >= PLATEAU {
            let plateau = match self.uncovered(&self.aimed_outcomes) {
                true => OPEN_PLATEAU.max(self.last_find.saturating_mul(2)),
                false => PLATEAU.max(self.last_find),
            };
            if since >= plateau {
                return true;
            }
        }
        match self.budget {
            Budget::Executions(_) => false,
            Budget::Time(d) => self.start.elapsed() >= d,
        }
    }

    /// Calls made so far, run or read back as repeats: what patience and
    /// plateaus count, so that a strategy's turn lasts as many calls as if
    /// repeats ran (the budget counts executions only).
    fn attempts(&self) -> u64 {
        self.run.executions + self.run.repeated
    }

    /// Executions allowed in all ([`Generation::limit`]).
    fn limit(&self) -> u64 {
        self.run.limit
    }

    /// Whether the current strategy should hand over: the budget is spent,
    /// or `patience` calls in a row (run or repeated) gained nothing.
    fn out_of_patience(&self) -> bool {
        self.exhausted() || self.attempts().saturating_sub(self.last_gain) >= self.patience
    }

    /// Starts a strategy's turn: it may make `patience` calls without gain.
    fn start_turn(&mut self, patience: u64) {
        self.patience = patience;
        self.unfit_in_turn = 0;
        self.last_gain = self.attempts();
    }

    /// The existing calls as search starts: run once, on the first turn of
    /// the first search.
    fn existing_starts(&mut self, existing: &Existing) -> Vec<Individual> {
        if let Some(starts) = &self.starts {
            return starts.clone();
        }
        self.all_open = true;
        self.record_what_open_goals_read();
        let mut starts = Vec::with_capacity(existing.seeds.len());
        for args in &existing.seeds {
            if let Some((trace, failed)) = self.call(args, Repeats::key(args)) {
                starts.push(Individual {
                    args: args.clone(),
                    failed,
                    trace,
                });
            }
        }
        self.all_open = false;
        self.record_what_open_goals_read();
        self.existing_seen = self.run.seen.clone();
        self.starts = Some(starts.clone());
        starts
    }

    /// Makes this thread's comparisons record what the goals still open
    /// read, and no more: open are the goals not met for good, and those a
    /// search still aims at. Met goals are never met less later (the
    /// existing calls' mutants are rechecked before this is first called),
    /// so no trace is read for what a comparison no longer records.
    fn record_what_open_goals_read(&mut self) {
        // With edge counters, every comparison records in full: the
        // recording's own paths are inlined into the crate's code and
        // counted, and a comparison that records less after a goal is met
        // would show the next call new edges that its arguments did not make.
        let recording = match self.all_open || counters::total() > 0 {
            true => Vec::new(),
            false => {
                let (after, pinned) = (&self.run.after, &self.pinned);
                self.reach.recording(|goal| {
                    !after.has(goal) || pinned.iter().any(|p| p.contains(&goal))
                })
            }
        };
        let same = recording.len() == self.recording.len()
            && recording
                .iter()
                .zip(&self.recording)
                .all(|(a, b)| std::ptr::eq(a.0, b.0) && a.1 == b.1 && a.2 == b.2);
        if !same {
            coverage::set_recording(&recording);
            self.recording = recording;
        }
    }

    /// Whether some goal in `goals` is still uncovered.
    // In the bits of the goals met: asked on every execution of a plateau
    // ([`Generator::exhausted`]), a tree's subset test was 4% of
    // humantime's worker.
    fn uncovered<'g>(&self, goals: impl IntoIterator<Item = &'g u32>) -> bool {
        goals.into_iter().any(|goal| !self.run.after.has(*goal))
    }

    /// Branch outcomes covered (boundaries and mutants are counted apart).
    fn branches_covered(&self) -> usize {
        self.run.after.count_below(self.reach.len())
    }

    /// One round of search on the goals of `turns` still uncovered: the
    /// AVM, then the GA, each until it runs out of patience. The search is
    /// made on its first round, from the existing calls and the calls kept
    /// so far, and goes on from its archive in later rounds, with the calls
    /// kept since.
    fn search_round(&mut self, turns: &mut Turns, existing: &Existing, seed: u64, patience: u64) {
        let search = match &mut turns.search {
            Some(search) => search,
            None => {
                // The existing calls come first: among equally close calls the
                // archive keeps the first, and carved calls are the sanest starts.
                let starts = self.existing_starts(existing);
                let original: Vec<Value> = starts.iter().map(|i| i.args.clone()).collect();
                turns.search.insert(
                    Search::aiming_at(
                        self.reach.clone(),
                        turns.goals.iter().copied(),
                        &self.run.after,
                        starts,
                        seed,
                    )
                    .with_dictionary(&original)
                    .with_types(self.types.clone())
                    .with_sealed(self.run.sealed.clone())
                    .with_text_tokens(&original, &self.dictionary),
                )
            }
        };
        search.offer_all(self.traces[turns.offered..].to_vec());
        turns.offered = self.traces.len();
        // What it aims at stays open while it runs (a kept call, minimized,
        // may meet more than its trace showed the search).
        self.pinned[turns.pin].clone_from(&search.uncovered);
        self.record_what_open_goals_read();
        // Patience counts only new goals, while the AVM may be closing in
        // on one: it gets more of it, as long as its turns pay. Cut off, it
        // takes the goals it climbed least first on its next turn.
        let extra = match turns.avm_paid {
            true => AVM_PATIENCE,
            false => 1,
        };
        self.start_turn(patience.saturating_mul(extra));
        self.observer.phase(Phase::Avm);
        let (covered, failures) = (self.run.after.len(), self.run.failures.len());
        search.avm(self);
        turns.avm_paid = self.run.after.len() > covered || self.run.failures.len() > failures;
        if !search.uncovered.is_empty() {
            self.start_turn(patience);
            self.observer.phase(Phase::Ga);
            search.evolve(self, 16);
        }
        self.pinned[turns.pin].clone_from(&search.uncovered);
        self.record_what_open_goals_read();
    }

    /// Derives and runs calls until the budget is spent, or `patience`
    /// calls in a row gain nothing.
    fn grammar_phase(&mut self, grammar: &ArgsGrammar, fuzzer: &mut GrammarFuzzer, patience: u64) {
        self.observer.phase(Phase::Grammar);
        self.start_turn(patience);
        // Derivations that fit no argument value cost no execution: bound
        // them too, by the patience (a time budget: saturate).
        let bound = match patience {
            u64::MAX => max_derivations(self.budget),
            patience => patience.saturating_mul(10).saturating_add(1000),
        };
        let max_index = self.index.saturating_add(bound);
        // Without sealed structs, what a derivation reads as depends on its
        // tree alone: a tree derived before is told by its key, not read
        // again.
        let by_key = self.run.sealed.is_empty();
        while !self.out_of_patience() && self.index < max_index {
            let derived = fuzzer.derive();
            self.index += 1;
            let tree = derived.derivation_key();
            let known = match by_key {
                true => self.derivations.known(tree),
                false => None,
            };
            let key = match known {
                Some(None) => continue,
                Some(Some(key)) if self.counted_as_repeat(key) => continue,
                Some(Some(key)) => Some(key),
                None => None,
            };
            // Derivations outside the parameter types (a text that does not
            // parse, a value past a type's range) are not run, like those
            // that fit no value.
            let args = grammar.value_of_derived(derived).ok();
            let Some(mut args) = args.filter(|args| self.types.admits(args)) else {
                if by_key && known.is_none() {
                    self.derivations.read(tree, None);
                }
                continue;
            };
            // Receivers and arguments of sealed structs: any value the API
            // made so far, also by calls of this run.
            self.run.sealed.redraw(&mut args, self.index);
            let key = match key {
                Some(key) => key,
                None => {
                    let key = Repeats::key(&args);
                    if by_key {
                        self.derivations.read(tree, Some(key));
                    }
                    // A repeat reaches what it reached: not run.
                    if self.counted_as_repeat(key) {
                        continue;
                    }
                    key
                }
            };
            // Only the calls that covered something new seed the search
            // (`call` keeps them): the grammar's other calls are as close
            // to a goal as the carved ones at best, and worse starts
            // (longer, random) for the AVM.
            self.call_unread(&args, key);
        }
    }

    /// Runs one call: keeps it if it covers something new, reports a new
    /// failure (minimized). Returns what it reached and whether it failed;
    /// `None` when the call could not run.
    fn call(&mut self, args: &Value, key: Key) -> Option<(Trace, bool)> {
        self.call_noted(args, key, true)
    }

    /// [`Generator::call`] for a caller that reads nothing of what the call
    /// reached (the grammar phase): its trace is moved to the repeats, not
    /// cloned for both.
    fn call_unread(&mut self, args: &Value, key: Key) {
        self.call_noted(args, key, false);
    }

    /// [`Generator::call`], which returns what the call reached only when
    /// `read`.
    fn call_noted(&mut self, args: &Value, key: Key, read: bool) -> Option<(Trace, bool)> {
        let met = self.run.after.len();
        let called = self.call_once(args);
        let back = if read { called.clone() } else { None };
        self.repeats.ran(key, called);
        // Goals are only ever added here: a count tells.
        if self.run.after.len() != met {
            self.record_what_open_goals_read();
        }
        back
    }

    /// [`Generator::call`], before the goal slots to skip are updated.
    fn call_once(&mut self, args: &Value) -> Option<(Trace, bool)> {
        let (index, executions, covered) = (self.index, self.run.executions, self.branches_covered());
        self.observer.progress(index, executions, covered);
        if !self.observer.allow(args) {
            return None;
        }
        let executed = execute(self.target, args, &mut self.run, &mut *self.observer)?;
        let after = &self.run.after;
        let added: Vec<u32> = self
            .reach
            .covered_goals_among(
                &executed.trace,
                |goal| !after.has(goal),
                after.absent_in(self.reach.extra_goals()),
            )
            .collect();
        let mut outside: Vec<(usize, u32)> = self
            .reach
            .outside(&executed.trace)
            .filter(|outcome| !self.outside.contains(outcome))
            .collect();
        let failed = executed.failure.is_some();
        let location = executed.failed_at().cloned();
        let Executed {
            observation,
            trace,
            fingerprint,
            mut edges,
            ..
        } = executed;
        // The existing calls run as search starts (every goal slot open
        // only then): what they reach is seen, not a reason to keep them.
        if self.all_open {
            self.run.seen.add(&edges);
            edges.clear();
            self.outside.extend(outside.drain(..));
        }
        // What a passing call returned or left in its `&mut` arguments, the
        // API made: later calls may take it (a stack pushed onto, pushed again).
        if !failed && !self.run.sealed.is_empty() {
            let outputs = [observation.outcome.returned(), observation.after.as_ref()];
            self.run.sealed.add_call(false, args, &outputs);
        }
        // Only kept calls count as covering: a failing call is stored as a
        // failure, and what it reached must still be reached by a passing one.
        match location {
            Some(location) if self.failed_at.insert(location.clone()) => {
                let failure = minimize(
                    self.target,
                    &self.types,
                    args.clone(),
                    (observation, trace.clone()),
                    location,
                    &mut self.run,
                    &mut *self.observer,
                );
                self.observer.failure(&failure);
                self.run.failures.push(failure);
                self.last_gain = self.attempts();
                self.last_find = self.attempts();
            }
            _ if failed => {}
            _ if !added.is_empty() || !edges.is_empty() || !outside.is_empty() => {
                let (added, strong) = self.strongly(args, fingerprint, added);
                if added.is_empty() && edges.is_empty() && outside.is_empty() {
                    return Some((trace, failed));
                }
                let (kept, edges, fingerprint) = self.minimize_kept(
                    Kept {
                        args: args.clone(),
                        observation,
                        added,
                        generated: args.clone(),
                        trace: trace.clone(),
                        features: Vec::new(),
                    },
                    &strong,
                    (edges, fingerprint),
                    &outside,
                );
                let (features, again) = self.all_features(&kept.args, &edges);
                // It ran once more and did something else: what it returns
                // depends on more than its arguments (url's `origin()` of
                // an opaque URL counts up a global), so its replay could
                // never match what would be stored. Not kept.
                if again.is_some_and(|again| again != fingerprint) {
                    if !self.unstable_noted {
                        self.unstable_noted = true;
                        self.observer.note(format!(
                            "carve: {}: not keeping calls whose outcome changes when they run \
                             again with the same arguments (first: {}): replay could not check \
                             them against a snapshot",
                            self.name,
                            shorten(&kept.args.to_compact_ron())
                        ));
                    }
                    return Some((trace, failed));
                }
                let kept = Kept { features, ..kept };
                let outside_before = self.outside.len();
                self.outside.extend(self.reach.outside(&kept.trace));
                self.run.reach_grew |= self.outside.len() > outside_before;
                self.run.after.extend(kept.added.iter().copied());
                self.run.seen.add(&edges);
                self.observer.kept(&kept);
                self.run.kept.push(kept);
                self.last_gain = self.attempts();
                self.last_find = self.attempts();
                if self.traces.len() < 4096 {
                    self.traces.push(Individual {
                        args: args.clone(),
                        failed,
                        trace: trace.clone(),
                    });
                }
            }
            _ => {}
        }
        Some((trace, failed))
    }
}

impl Generator<'_> {
    /// The goals of `added` a call whose observation had `fingerprint` meets for
    /// good, and the mutants among them it strongly kills. A mutant it only
    /// weakly kills (the mutated condition would differ) counts only if
    /// its outcome changes under that mutant too (mutant schemata: the
    /// call run again with the condition mutated), until [`STRONG_CHECKS`]
    /// calls have weakly killed it without: then a weak kill counts, so that
    /// an equivalent mutant does not cost a check on every call.
    fn strongly(
        &mut self,
        args: &Value,
        fingerprint: u64,
        added: Vec<u32>,
    ) -> (Vec<u32>, Vec<(&'static Sites, Mutation)>) {
        let mut met = Vec::with_capacity(added.len());
        let mut strong = Vec::new();
        for goal in added {
            let Some((sites, mutation)) = self.reach.mutation(goal) else {
                met.push(goal);
                continue;
            };
            let checks = self.strong_checks.get(&goal).copied().unwrap_or(0);
            if checks >= STRONG_CHECKS || self.exhausted() || !self.runs_mutants() {
                // The existing calls kill it as weakly: met already.
                if self.weakly_killed.contains(&goal) {
                    self.run.after.insert(goal);
                } else {
                    met.push(goal);
                }
                continue;
            }
            if !self.checked.insert((goal, args_hash(args))) {
                continue;
            }
            self.strong_checks.insert(goal, checks + 1);
            if !self.observer.allow(args) {
                continue;
            }
            let (killed, crashed) = self.kills(args, fingerprint, sites, mutation);
            if killed {
                met.push(goal);
                // Minimizing checks it again on every candidate: not where
                // each check costs a worker.
                if !crashed {
                    strong.push((sites, mutation));
                }
            }
        }
        (met, strong)
    }

    /// Whether calls may still be run against mutants: in a worker, until
    /// the checks crashed it as often as allowed.
    fn runs_mutants(&self) -> bool {
        self.observer
            .mutant_crashes()
            .is_some_and(|allowed| self.mutant_crashes < allowed)
    }

    /// [`kills`], counting the checks that crashed the worker.
    fn kills(
        &mut self,
        args: &Value,
        fingerprint: u64,
        sites: &'static Sites,
        mutation: Mutation,
    ) -> (bool, bool) {
        let (killed, crashed) = kills(
            self.target,
            args,
            fingerprint,
            sites,
            mutation,
            &mut self.run,
            &mut *self.observer,
        );
        self.mutant_crashes += u32::from(crashed);
        (killed, crashed)
    }

    /// Checks the mutant goals the target's existing calls weakly kill
    /// against the mutants themselves, and aims at those none of them
    /// kills strongly (at most [`STRONG_CHECKS`] calls per goal). Goals
    /// only other targets' calls kill stay met.
    fn recheck_existing(&mut self, existing: &Existing) {
        if !self.runs_mutants() {
            return;
        }
        // The goals each passing existing call meets, read once.
        let starts: Vec<(Value, BTreeSet<u32>)> = self
            .existing_starts(existing)
            .into_iter()
            .filter(|start| !start.failed)
            .map(|start| {
                let met = self.reach.covered(&start.trace);
                (start.args, met)
            })
            .collect();
        let weak: Vec<(u32, &'static Sites, Mutation)> = self
            .run
            .after
            .iter()
            // Another target's generation explores delegated goals: they
            // stay met here whatever the existing calls do.
            .filter(|goal| !existing.delegated.contains(goal))
            .filter_map(|&goal| self.reach.mutation(goal).map(|(s, m)| (goal, s, m)))
            .collect();
        for (goal, sites, mutation) in weak {
            let killers: Vec<&Value> = starts
                .iter()
                .filter(|(_, met)| met.contains(&goal))
                .map(|(args, _)| args)
                .collect();
            if killers.is_empty() {
                continue;
            }
            let mut strong = false;
            let mut checks = 0;
            for args in killers.iter().take(STRONG_CHECKS as usize) {
                if self.exhausted() || !self.runs_mutants() {
                    return;
                }
                checks += 1;
                self.checked.insert((goal, args_hash(args)));
                // Run again for its outcome: the existing calls' traces
                // came without one.
                let Some(executed) = execute(self.target, args, &mut self.run, &mut *self.observer)
                else {
                    continue;
                };
                if self.kills(args, executed.fingerprint, sites, mutation).0 {
                    strong = true;
                    break;
                }
            }
            self.strong_checks.insert(goal, checks);
            if !strong && checks < STRONG_CHECKS {
                self.run.after.remove(goal);
                self.weakly_killed.insert(goal);
            }
        }
    }

    /// Shrinks a call about to be kept to the smallest arguments found
    /// that still return and still cover every goal it added (more is
    /// fine: a shrunk call may cover goals its original missed, and its
    /// `added` then says so). Each attempt is an execution; all attempts
    /// together stay within [`KEPT_SHRINK_SHARE`] of the budget.
    ///
    /// `edges` are the edge features it reached first: a smaller call must
    /// reach them too. Returns the call and the edge features it reached
    /// first.
    fn minimize_kept(
        &mut self,
        kept: Kept,
        strong: &[(&'static Sites, Mutation)],
        (edges, fingerprint): (Vec<u32>, u64),
        outside: &[(usize, u32)],
    ) -> (Kept, Vec<u32>, u64) {
        let limit = self.kept_shrink_allowance();
        if limit == 0 {
            return (kept, edges, fingerprint);
        }
        let start = Instant::now();
        let needed: BTreeSet<u32> = kept.added.iter().copied().collect();
        // The last candidate the test held for: the smallest, once shrinking ends.
        let mut smallest: Option<Smallest> = None;
        let sealed = self.run.sealed.clone();
        let shrunk = {
            let Generator {
                target,
                reach,
                run,
                observer,
                types,
                ..
            } = self;
            let mut test = |candidate: &Value| {
                if !observer.allow(candidate) {
                    return false;
                }
                let Some(executed) = execute(target, candidate, run, &mut **observer)
                else {
                    return false;
                };
                let reached = reach.covered(&executed.trace);
                if executed.failure.is_some() || !needed.is_subset(&reached) {
                    return false;
                }
                // Both lists ascend.
                if !is_sorted_subset(&edges, &executed.edges) {
                    return false;
                }
                let took: BTreeSet<(usize, u32)> = reach.outside(&executed.trace).collect();
                if !outside.iter().all(|outcome| took.contains(outcome)) {
                    return false;
                }
                // The mutants it strongly killed, it must still kill so.
                let fingerprint = executed.fingerprint;
                if !strong.iter().all(|(sites, mutation)| {
                    kills(target, candidate, fingerprint, sites, *mutation, run, &mut **observer)
                        .0
                }) {
                    return false;
                }
                // What else it meets counts, but for mutants: only those it
                // was checked against above are killed for good; the others
                // it weakly kills are checked below, once it is the smallest.
                let (added, further) = reached
                    .difference(&run.after)
                    .partition(|goal| needed.contains(goal) || reach.mutation(**goal).is_none());
                smallest = Some(Smallest {
                    observation: executed.observation,
                    added,
                    trace: executed.trace,
                    fingerprint,
                    further,
                    edges: executed.edges,
                });
                true
            };
            shrink(kept.args.clone(), types, &sealed, limit, &mut test)
        };
        self.shrinking.0 += shrunk.attempts as u64;
        self.shrinking.1 += start.elapsed();
        // The start value comes back when no smaller candidate held.
        let Some(smallest) = smallest.filter(|_| shrunk.value != kept.args) else {
            return (kept, edges, fingerprint);
        };
        // A mutant the smallest call weakly kills beyond those it was
        // kept for is checked against it now: named if it kills it (as
        // the call it was minimized from would have been), else still
        // aimed at. Without this, a later call is kept for it alone.
        let mut added = smallest.added;
        added.extend(self.strongly(&shrunk.value, smallest.fingerprint, smallest.further).0);
        added.sort_unstable();
        let kept = Kept {
            args: shrunk.value,
            observation: smallest.observation,
            added,
            generated: kept.generated,
            trace: smallest.trace,
            features: Vec::new(),
        };
        (kept, smallest.edges, smallest.fingerprint)
    }

    /// Every edge feature the call with `args`, about to be kept, reaches:
    /// it runs once more, as an execution of its own (under a key of its
    /// own, as a strong check does), with no feature counted as seen.
    /// `edges`, the features it reached first, are among them whatever the
    /// second run shows. Without the counters, or past the budget: `edges`.
    /// Also the [`fingerprint`] of what the second run did, when it ran.
    fn all_features(&mut self, args: &Value, edges: &[u32]) -> (Vec<u32>, Option<u64>) {
        if counters::total() == 0 || self.run.executions >= self.run.limit {
            return (edges.to_vec(), None);
        }
        let key = Value::Tuple(vec![args.clone(), Value::Str("every edge feature".into())]);
        self.run.executions += 1;
        let target = self.target;
        let none = Seen::default();
        let mut call = || run_call(target, args, Some(&none));
        let (mut features, again) = match self.observer.execute(self.run.executions, &key, &mut call) {
            Ok(executed) if executed.failure.is_none() => (executed.edges, Some(executed.fingerprint)),
            Ok(executed) => (Vec::new(), Some(executed.fingerprint)),
            Err(_) => (Vec::new(), None),
        };
        features.extend_from_slice(edges);
        features.sort_unstable();
        features.dedup();
        (features, again)
    }

    /// Distils the calls this run kept ([`crate::generation::distil`]): those
    /// whose coverage later kept calls hold between them are dropped.
    fn distil(&mut self, existing: &Existing) {
        let kept = std::mem::take(&mut self.run.kept);
        self.run.undistilled.clone_from(&kept);
        let distilled = distil::distil_kept(self.reach, &existing.covered, &self.existing_seen, kept);
        if !distilled.dropped.is_empty() {
            self.observer.distilled(&distilled);
        }
        self.run.kept = distilled.kept;
    }

    /// Attempts the next kept call may spend on minimizing: at most
    /// [`KEPT_SHRINK_ATTEMPTS`], what is left of the budget, and what keeps
    /// all minimizing within [`KEPT_SHRINK_SHARE`] of the executions so far
    /// (plus one call's worth, so the first kept calls are minimized too).
    /// It depends on what ran before, never on the size of the budget: a
    /// larger budget minimizes the same calls the same way.
    fn kept_shrink_allowance(&self) -> usize {
        let (spent, time) = self.shrinking;
        let (executions, attempts) = (self.run.executions, self.attempts());
        let share = (attempts as f64 * KEPT_SHRINK_SHARE) as u64 + KEPT_SHRINK_ATTEMPTS;
        let left = match self.budget {
            Budget::Executions(n) => share.saturating_sub(spent).min(n.saturating_sub(executions)),
            Budget::Time(_) => {
                let within = time.as_secs_f64() <= self.start.elapsed().as_secs_f64() * KEPT_SHRINK_SHARE;
                match within && !self.exhausted() {
                    true => share.saturating_sub(spent),
                    false => 0,
                }
            }
        };
        left.min(KEPT_SHRINK_ATTEMPTS) as usize
    }
}

impl Generator<'_> {
    /// Whether arguments of key `key` ran before (or were not run on
    /// purpose), counting them as a repeat if so: a grammar derivation that
    /// repeats is not run again.
    fn counted_as_repeat(&mut self, key: Key) -> bool {
        let repeat = !matches!(self.repeats.known(key), Known::New | Known::Forgotten);
        if repeat {
            self.run.repeated += 1;
        }
        repeat
    }
}

impl Evaluate for Generator<'_> {
    fn evaluate(&mut self, args: &Value) -> Option<(Trace, bool)> {
        if Evaluate::exhausted(self) {
            return None;
        }
        self.index += 1;
        // Arguments outside the parameter types (a text that does not
        // parse) are not run and cost no execution, as in the grammar
        // phase; they are bounded by the turn's patience instead.
        if !self.types.admits(args) {
            self.unfit_in_turn += 1;
            return None;
        }
        // A repeat is read back, not run.
        let key = Repeats::key(args);
        let read = match self.repeats.known(key) {
            Known::New | Known::Forgotten => return self.call(args, key),
            Known::Ran(trace, failed) => Some((trace.clone(), failed)),
            Known::NotRun => None,
        };
        self.run.repeated += 1;
        read
    }

    fn exhausted(&self) -> bool {
        self.out_of_patience()
            || self.unfit_in_turn >= self.patience.saturating_mul(10).saturating_add(1000)
    }
}

fn max_derivations(budget: Budget) -> u64 {
    match budget {
        Budget::Executions(n) => n.saturating_mul(10).saturating_add(1000),
        Budget::Time(_) => u64::MAX,
    }
}

/// Whether `mutation` of `sites` changes what the call with `args` does
/// (what it did has `fingerprint`): the call run again, as an execution of its
/// own, with the condition mutated. Under a key of its own, so that a
/// mutant that hangs or crashes the worker is told from the call itself: a
/// crash is an outcome that differs. Returns whether it kills the mutant,
/// and whether it crashed.
fn kills(
    target: &'static Target,
    args: &Value,
    fingerprint: u64,
    sites: &'static Sites,
    mutation: Mutation,
    run: &mut Generation,
    observer: &mut dyn Observer,
) -> (bool, bool) {
    if run.executions >= run.limit {
        return (false, false);
    }
    let key = Value::Tuple(vec![
        args.clone(),
        Value::Str(format!("mutant of {} {mutation:?}", sites.name())),
    ]);
    run.executions += 1;
    let mut call = || coverage::with_mutant(sites, mutation, || run_call(target, args, None));
    observer.checking_mutant(true);
    let executed = observer.execute(run.executions, &key, &mut call);
    observer.checking_mutant(false);
    match executed {
        Ok(mutated) => (
            mutated.fingerprint != fingerprint,
            mutated.crashed(),
        ),
        Err(_) => (false, false),
    }
}

/// Runs one call, as execution number `run.executions + 1`, through the
/// observer; `None` when it could not run (the [`Generation::limit`] of
/// executions is reached, its arguments did not deserialize, or what it returned could
/// not be captured).
fn execute(
    target: &'static Target,
    args: &Value,
    run: &mut Generation,
    observer: &mut dyn Observer,
) -> Option<Executed> {
    if run.executions >= run.limit {
        return None;
    }
    run.executions += 1;
    // A value of a sealed struct the API did not make is refused before
    // the call, as a `Deserialize` that checks would refuse it.
    if !run.sealed.admits(args) {
        run.undeserializable += 1;
        return None;
    }
    let seen = &run.seen;
    let mut call = || run_call(target, args, Some(seen));
    match observer.execute(run.executions, args, &mut call) {
        Ok(executed) => Some(executed),
        Err(NotRun::Undeserializable) => {
            run.undeserializable += 1;
            None
        }
        Err(NotRun::Uncaptured) => None,
    }
}

/// What the smallest candidate of [`Generator::minimize_kept`] did.
struct Smallest {
    observation: Observation,
    /// The goals it adds: those it was kept for and those that are no mutant.
    added: Vec<u32>,
    trace: Trace,
    fingerprint: u64,
    /// The further mutants it weakly kills, not yet checked against it.
    further: Vec<u32>,
    /// The edge features it reached first.
    edges: Vec<u32>,
}

/// Whether every item of `small` is in `large` (both ascending).
fn is_sorted_subset(small: &[u32], large: &[u32]) -> bool {
    let mut large = large.iter();
    small.iter().all(|x| large.any(|y| y == x))
}

/// Calls `target` with `args` in this process, collecting coverage, and
/// with `seen`, the edge features it reaches that are not in `seen`
/// ([`counters`]).
pub fn run_call(
    target: &'static Target,
    args: &Value,
    seen: Option<&Seen>,
) -> Result<Executed, NotRun> {
    let call = || coverage::collect(|| quietly(|| (target.replay)(ArgsInput::Value(args))));
    let ((result, trace), edges) = match seen {
        Some(seen) => counters::around(seen, call),
        None => (call(), Vec::new()),
    };
    match result {
        Ok(replayed) => {
            // Two panics on one line (`chars[i + 1], chars[i + 2]`) are one bug.
            let failure = match replayed.observation.outcome {
                Outcome::Panicked(_) => Some(Failure::panic(
                    last_panic_location().and_then(|at| Some(Site::parse(&at)?.line_only())),
                )),
                Outcome::Returned(_) | Outcome::Crashed(_) => None,
            };
            Ok(Executed {
                fingerprint: fingerprint(&replayed.observation),
                observation: replayed.observation,
                trace,
                failure,
                edges,
            })
        }
        Err(ReplayError::Args { .. }) => Err(NotRun::Undeserializable),
        Err(ReplayError::Capture(_)) => Err(NotRun::Uncaptured),
    }
}

/// Delta debugging over the value tree ([`shrink`]): the smallest
/// arguments found that still fail at `location`. Candidates are only ever
/// smaller than the arguments that last failed there, so the result is never
/// larger than any failing input it saw. A candidate that crashes costs a
/// worker restart: at most [`Observer::crash_shrinks`] of them are tried.
fn minimize(
    target: &'static Target,
    types: &ParamTypes,
    args: Value,
    (observation, trace): (Observation, Trace),
    location: Failure,
    run: &mut Generation,
    observer: &mut dyn Observer,
) -> Found {
    const MAX_ATTEMPTS: usize = 2_000;
    let crash_shrinks = observer.crash_shrinks(&location);
    let mut crashes = 0;
    let mut best = (observation, trace);
    let sealed = run.sealed.clone();
    let mut test = |candidate: &Value| {
        // Past the budget or the crashes allowed, nothing more is run.
        if crashes > 0 && crashes >= crash_shrinks {
            return false;
        }
        let Some(executed) = execute(target, candidate, run, observer) else {
            return false;
        };
        if executed.crashed() {
            crashes += 1;
        }
        if executed.failed_at() == Some(&location) {
            best = (executed.observation, executed.trace);
            return true;
        }
        false
    };
    let shrunk = shrink(args, types, &sealed, MAX_ATTEMPTS, &mut test);
    Found {
        args: shrunk.value,
        observation: best.0,
        failure: location,
        trace: best.1,
    }
}
