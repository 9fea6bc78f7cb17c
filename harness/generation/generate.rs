//! Generation: new calls of a target that raise its branch coverage.
//!
//! The arguments of the calls a target already has (carved and generated)
//! are mined into a grammar ([`crate::generation::mine`]); the grammar-coverage fuzzer
//! ([`crate::generation::grammar`]) derives new arguments from it; search
//! ([`crate::generation::search`]) then goes after the outcomes the grammar misses. Each
//! call runs in-process with branch coverage, straight from the value tree
//! (no RON text per call). A call is kept only if it covers an outcome that
//! no earlier call covered. A call that panics is a found bug: its input is
//! minimized and reported once per panic line. [`crate::generation::worker`] runs all
//! this in a child process, so that aborts and endless loops are survived.

use std::collections::BTreeSet;
use std::io::{IsTerminal, Write as _};
use std::time::Instant;

use crate::call::{ArgsInput, ReplayError};
use crate::coverage::reach::Reach;
use crate::coverage::{self, Trace};
use crate::env::Budget;
use crate::generation::grammar::{GrammarFuzzer, Strategy};
use crate::generation::mine::ArgsGrammar;
use crate::generation::search::{Evaluate, Individual, Search};
use crate::generation::types::ParamTypes;
use crate::outcome::{last_panic_location, quietly, Observation, Outcome};
use crate::registry::Target;
use crate::value::Value;

/// A generated call worth keeping.
#[derive(Debug, Clone)]
pub struct Kept {
    /// Its arguments.
    pub args: Value,
    /// What it did.
    pub observation: Observation,
    /// The goals it covered first.
    pub added: Vec<u32>,
}

/// A generated call that panicked, minimized.
#[derive(Debug, Clone)]
pub struct Failure {
    /// The smallest arguments found that panic at the same place.
    pub args: Value,
    /// What it did (a panic).
    pub observation: Observation,
    /// Where it panicked (`file:line`): failures are told apart by it.
    pub location: String,
}

/// What generation did for one target.
#[derive(Debug, Clone, Default)]
pub struct Generation {
    /// Goals covered after.
    pub after: BTreeSet<u32>,
    /// Calls run.
    pub executions: u64,
    /// Generated arguments that did not deserialize into the parameter types.
    pub undeserializable: u64,
    /// Calls kept.
    pub kept: Vec<Kept>,
    /// Failures found.
    pub failures: Vec<Failure>,
}

/// What generation starts from: the target's reach and what its existing
/// calls (and those of every other target) already do.
#[derive(Debug, Clone)]
pub struct Existing {
    /// The functions whose outcomes are goals, and the goals' numbering.
    pub reach: Reach,
    /// Arguments of the target's existing calls: the grammar is mined from
    /// them, and search starts from them.
    pub seeds: Vec<Value>,
    /// Goals some passing call, of any target, already covers.
    pub covered: BTreeSet<u32>,
    /// Where its found failures panicked (`file:line`): not reported again.
    pub known_failures: BTreeSet<String>,
}

impl Existing {
    /// Nothing but seeds, for generation on `target` alone (benches and tests).
    #[cfg(any(test, feature = "_internals"))]
    pub fn seeds(target: &'static Target, seeds: Vec<Value>) -> Existing {
        Existing {
            reach: Reach::single(target.sites),
            seeds,
            covered: BTreeSet::new(),
            known_failures: BTreeSet::new(),
        }
    }
}

/// Settings of one generation run.
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    /// Seed of the fuzzer.
    pub seed: u64,
    /// How much to run.
    pub budget: Budget,
    /// Derivations to draw without running them first: a restarted worker
    /// skips what its predecessor ran, so the sequence is the same as
    /// without the restart.
    pub skip: u64,
    /// Which phases run.
    pub phases: Phases,
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
    /// Derivation `index` (from 1) is about to run with `args`.
    fn before_call(&mut self, _index: u64, _args: &Value) {}
    /// A call of the target starts now: any call, a derivation's, a search
    /// move's or one that minimizes a failure (a worker times each call).
    fn call_started(&mut self) {}
    /// The call that started last has returned or panicked.
    fn call_ended(&mut self) {}
    /// A call was kept.
    fn kept(&mut self, _kept: &Kept) {}
    /// A failure was found (and minimized).
    fn failure(&mut self, _failure: &Failure) {}
    /// Progress, before each derivation: derivations drawn, calls run,
    /// outcomes covered. Called often; throttle what it costs.
    fn progress(&mut self, _index: u64, _executions: u64, _covered: usize) {}
}

/// An observer that does nothing (benches and tests).
#[cfg(any(test, feature = "_internals"))]
pub struct Quiet;
#[cfg(any(test, feature = "_internals"))]
impl Observer for Quiet {}


/// Generates calls of `target` from its `existing` calls, aiming at every
/// goal in its reach that no passing call covers yet.
///
/// Grammar-coverage generation runs first (up to half the budget, less when
/// it stops finding new outcomes); then search ([`crate::generation::search`]) goes after
/// the outcomes still uncovered, the alternating variable method up to 65%
/// of the budget and the genetic algorithm up to 80%; the rest goes back to
/// the grammar, which also looks for failures.
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
            after: existing.covered.clone(),
            ..Generation::default()
        },
        failed_at: existing.known_failures.clone(),
        observer,
        budget: settings.budget,
        start: Instant::now(),
        index: 0,
        traces: Vec::new(),
        search_limit: 1.0,
        types: ParamTypes::default(),
    };
    let types = target.param_types();
    generator.types = types.clone();
    let Some((grammar, untyped)) = ArgsGrammar::mine_typed(&existing.seeds, &types) else {
        return generator.run;
    };
    // A restarted worker (`skip` > 0) said so already.
    if !untyped.is_empty() && settings.skip == 0 {
        eprintln!(
            "carve: {name}: generating from carved values only for parameter(s) whose type \
             could not be traced: {}",
            untyped.join("; ")
        );
    }
    let mut fuzzer =
        match GrammarFuzzer::new(grammar.grammar(), Strategy::DeepForesight, settings.seed) {
            Ok(fuzzer) => fuzzer,
            Err(e) => {
                eprintln!(
                    "carve: {name}: the mined grammar is not usable ({e}); nothing generated"
                );
                return generator.run;
            }
        };
    let total = existing.reach.len() as usize;
    let (grammar_share, search_share) = match settings.phases {
        Phases::All => (0.5, (0.65, 0.8)),
        Phases::GrammarOnly => (1.0, (0.0, 0.0)),
        Phases::SearchOnly => (0.0, (0.8, 1.0)),
    };
    generator.grammar_phase(
        &grammar,
        &mut fuzzer,
        settings.skip,
        grammar_share,
        Some(STAGNATION),
    );
    if generator.run.after.len() < total
        && !generator.exhausted(1.0)
        && settings.phases != Phases::GrammarOnly
    {
        generator.search_phase(existing, settings.seed, search_share);
    }
    if settings.phases != Phases::SearchOnly {
        generator.grammar_phase(&grammar, &mut fuzzer, settings.skip, 1.0, None);
    }
    let index = generator.index;
    generator
        .observer
        .progress(index, generator.run.executions, generator.run.after.len());
    generator.run
}

/// Calls without new coverage after which the grammar hands over to search.
const STAGNATION: u64 = 1_000;

/// The state of one generation run: every call goes through [`Generator::call`].
struct Generator<'o> {
    target: &'static Target,
    reach: &'o Reach,
    run: Generation,
    failed_at: BTreeSet<String>,
    observer: &'o mut dyn Observer,
    budget: Budget,
    start: Instant,
    /// Calls attempted so far (derivations and search moves), from 1.
    index: u64,
    /// Calls of the grammar phase, seeds of the search.
    traces: Vec<Individual>,
    /// The fraction of the budget search may spend up to.
    search_limit: f64,
    /// The parameter types: derivations and minimizing candidates outside
    /// them are not run.
    types: ParamTypes,
}

impl Generator<'_> {
    /// Whether `fraction` of the budget is spent.
    fn exhausted(&self, fraction: f64) -> bool {
        match self.budget {
            Budget::Executions(n) => self.run.executions as f64 >= n as f64 * fraction,
            Budget::Time(d) => self.start.elapsed().as_secs_f64() >= d.as_secs_f64() * fraction,
        }
    }

    /// Searches for the goals still uncovered, from the existing calls and
    /// the grammar phase's: the AVM up to `shares.0` of the budget, then the
    /// GA up to `shares.1`.
    fn search_phase(&mut self, existing: &Existing, seed: u64, shares: (f64, f64)) {
        // The existing calls come first: among equally close calls the
        // archive keeps the first, and carved calls are the sanest starts.
        let mut starts = Vec::with_capacity(existing.seeds.len() + self.traces.len());
        for args in &existing.seeds {
            if let Some((trace, failed)) = self.call(args) {
                starts.push(Individual {
                    args: args.clone(),
                    failed,
                    trace,
                });
            }
        }
        let original: Vec<Value> = starts.iter().map(|i| i.args.clone()).collect();
        starts.append(&mut self.traces);
        let mut search = Search::new(existing.reach.clone(), &self.run.after, starts, seed)
            .with_dictionary(&original)
            .with_types(self.types.clone());
        self.search_limit = shares.0;
        search.avm(self);
        self.search_limit = shares.1;
        search.evolve(self, 16);
    }

    /// Derives and runs calls until `fraction` of the budget is spent, or
    /// after `stagnation` calls in a row that cover nothing new.
    /// Derivations up to `skip` are drawn but not run (a restarted worker).
    fn grammar_phase(
        &mut self,
        grammar: &ArgsGrammar,
        fuzzer: &mut GrammarFuzzer,
        skip: u64,
        fraction: f64,
        stagnation: Option<u64>,
    ) {
        // Derivations that fit no argument value cost no execution: bound them too.
        // A time budget has no bound on derivations (`u64::MAX`): saturate.
        let max_index = self
            .index
            .saturating_add(skip)
            .saturating_add(max_derivations(self.budget));
        let mut last_gain = (self.run.executions, self.run.after.len());
        while !self.exhausted(fraction) && self.index < max_index {
            if self.run.after.len() > last_gain.1 {
                last_gain = (self.run.executions, self.run.after.len());
            }
            if stagnation
                .is_some_and(|n| self.run.executions - last_gain.0 >= n && self.index > skip)
            {
                break;
            }
            let tree = fuzzer.fuzz_tree();
            self.index += 1;
            if self.index <= skip {
                continue;
            }
            // Derivations outside the parameter types (a text that does not
            // parse, a value past a type's range) are not run, like those
            // that fit no value.
            let Ok(args) = grammar.value_of(&tree) else {
                continue;
            };
            if !self.types.admits(&args) {
                continue;
            }
            if let Some((trace, failed)) = self.call(&args) {
                if self.traces.len() < 4096 {
                    self.traces.push(Individual {
                        args,
                        failed,
                        trace,
                    });
                }
            }
        }
    }

    /// Runs one call: keeps it if it covers something new, reports a new
    /// failure (minimized). Returns what it reached and whether it failed;
    /// `None` when the call could not run.
    fn call(&mut self, args: &Value) -> Option<(Trace, bool)> {
        let (index, executions, covered) = (self.index, self.run.executions, self.run.after.len());
        self.observer.progress(index, executions, covered);
        if !self.observer.allow(args) {
            return None;
        }
        self.run.executions += 1;
        self.observer.before_call(self.index, args);
        let (observation, trace, location) =
            execute(self.target, args, &mut self.run, &mut *self.observer)?;
        let failed = !matches!(observation.outcome, Outcome::Returned(_));
        let added: Vec<u32> = self
            .reach
            .covered_goals(&trace)
            .filter(|goal| !self.run.after.contains(goal))
            .collect();
        // Only kept calls count as covering: a failing call is stored as a
        // failure, and what it reached must still be reached by a passing one.
        match (&observation.outcome, location) {
            (Outcome::Panicked(_), Some(location)) if self.failed_at.insert(location.clone()) => {
                let failure = minimize(
                    self.target,
                    &self.types,
                    args.clone(),
                    observation,
                    location,
                    &mut self.run,
                    &mut *self.observer,
                );
                self.observer.failure(&failure);
                self.run.failures.push(failure);
            }
            (Outcome::Panicked(_), _) => {}
            _ if !added.is_empty() => {
                self.run.after.extend(added.iter().copied());
                let kept = Kept {
                    args: args.clone(),
                    observation,
                    added,
                };
                self.observer.kept(&kept);
                self.run.kept.push(kept);
            }
            _ => {}
        }
        Some((trace, failed))
    }
}

impl Evaluate for Generator<'_> {
    fn evaluate(&mut self, args: &Value) -> Option<(Trace, bool)> {
        if Evaluate::exhausted(self) {
            return None;
        }
        self.index += 1;
        self.call(args)
    }

    fn exhausted(&self) -> bool {
        Generator::exhausted(self, self.search_limit)
    }
}

fn max_derivations(budget: Budget) -> u64 {
    match budget {
        Budget::Executions(n) => n.saturating_mul(10).saturating_add(1000),
        Budget::Time(_) => u64::MAX,
    }
}

/// Runs one call; `None` when its arguments did not deserialize.
fn execute(
    target: &'static Target,
    args: &Value,
    run: &mut Generation,
    observer: &mut dyn Observer,
) -> Option<(Observation, Trace, Option<String>)> {
    observer.call_started();
    let (result, trace) = coverage::collect(|| quietly(|| (target.replay)(ArgsInput::Value(args))));
    observer.call_ended();
    match result {
        Ok(replayed) => {
            // Two panics on one line (`chars[i + 1], chars[i + 2]`) are one bug.
            let location = match replayed.observation.outcome {
                Outcome::Panicked(_) => last_panic_location().map(|l| {
                    l.rsplit_once(':')
                        .map_or(l.clone(), |(line, _col)| line.to_owned())
                }),
                Outcome::Returned(_) | Outcome::Crashed(_) => None,
            };
            Some((replayed.observation, trace, location))
        }
        Err(ReplayError::Args { .. }) => {
            run.undeserializable += 1;
            None
        }
        Err(ReplayError::Capture(_)) => None,
    }
}

/// Delta debugging over the value tree: tries smaller arguments (shorter
/// strings and sequences, numbers closer to 0, `None`) and keeps any that
/// still panics at the same location, until none does.
fn minimize(
    target: &'static Target,
    types: &ParamTypes,
    mut args: Value,
    mut observation: Observation,
    location: String,
    run: &mut Generation,
    observer: &mut dyn Observer,
) -> Failure {
    const MAX_ATTEMPTS: usize = 2_000;
    let mut attempts = 0;
    'smaller: while attempts < MAX_ATTEMPTS {
        for candidate in crate::generation::shrink::candidates(&args) {
            // A candidate outside the parameter types would only fail to
            // deserialize.
            if !types.admits(&candidate) {
                continue;
            }
            attempts += 1;
            run.executions += 1;
            if let Some((obs, _, Some(at))) = execute(target, &candidate, run, observer) {
                if at == location {
                    args = candidate;
                    observation = obs;
                    continue 'smaller;
                }
            }
            if attempts >= MAX_ATTEMPTS {
                break 'smaller;
            }
        }
        break;
    }
    Failure {
        args,
        observation,
        location,
    }
}

/// Progress on stderr: a bar on a terminal, a line per quarter of the
/// budget otherwise.
pub struct Progress {
    name: String,
    terminal: bool,
    budget: Budget,
    next_line: u64,
}

impl Progress {
    /// Progress of generating calls of `name` within `budget`.
    pub fn new(name: &str, budget: Budget) -> Progress {
        Progress {
            name: name.to_owned(),
            terminal: std::io::stderr().is_terminal(),
            budget,
            next_line: 1,
        }
    }

    /// Reports in lines, not with a bar, when `lines` is true: bars of
    /// targets generated at once would overwrite each other on one line.
    pub fn in_lines(mut self, lines: bool) -> Progress {
        self.terminal &= !lines;
        self
    }

    /// Shows `executions` calls run and `covered` of `total` outcomes.
    pub fn tick(&mut self, executions: u64, covered: usize, total: usize) {
        let step = match self.budget {
            Budget::Executions(n) => (n / 4).max(1),
            Budget::Time(_) => 10_000,
        };
        if self.terminal {
            let fraction = match self.budget {
                Budget::Executions(n) => executions as f64 / n.max(1) as f64,
                Budget::Time(_) => 0.0,
            };
            let filled = ((fraction * 30.0) as usize).min(30);
            eprint!(
                "\r  {} [{}{}] {executions} calls, {covered}/{total} outcomes",
                self.name,
                "#".repeat(filled),
                " ".repeat(30 - filled)
            );
            let _ = std::io::stderr().flush();
        } else if executions >= self.next_line {
            eprintln!(
                "  {}: {executions} calls, {covered}/{total} outcomes",
                self.name
            );
            self.next_line = executions + step;
        }
    }

    /// Ends the bar.
    pub fn finish(&self) {
        if self.terminal {
            eprintln!();
        }
    }
}
