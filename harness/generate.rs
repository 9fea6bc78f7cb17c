//! Generation: new calls of a target that raise its branch coverage.
//!
//! The arguments of the calls a target already has (carved and generated)
//! are mined into a grammar ([`crate::mine`]); the grammar-coverage fuzzer
//! ([`crate::grammar`]) derives new arguments from it; each call runs
//! in-process with branch coverage, straight from the value tree (no RON text
//! per call). A call is kept only if it covers an outcome that no earlier
//! call covered. A call that panics is a found bug: its input is minimized
//! and reported once per panic location.

use std::collections::BTreeSet;
use std::io::{IsTerminal, Write as _};
use std::time::Instant;

use crate::coverage;
use crate::env::Budget;
use crate::grammar::{GrammarFuzzer, Strategy};
use crate::mine::ArgsGrammar;
use crate::outcome::{last_panic_location, quietly, Observation, Outcome};
use crate::registry::Target;
use crate::replay::{ArgsInput, ReplayError};
use crate::value::Value;

/// A generated call worth keeping.
#[derive(Debug, Clone)]
pub struct Kept {
    /// Its arguments.
    pub args: Value,
    /// What it did.
    pub observation: Observation,
    /// The outcomes it covered first.
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
    /// Outcomes covered before (by the existing calls).
    pub before: BTreeSet<u32>,
    /// Outcomes covered after.
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

/// Settings of one generation run.
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    /// Seed of the fuzzer.
    pub seed: u64,
    /// How much to run.
    pub budget: Budget,
    /// Show progress on stderr.
    pub progress: bool,
}

/// Generates calls of `target` from the arguments of its existing calls
/// (`seeds`), which already cover `covered`.
pub fn generate(
    target: &'static Target,
    name: &str,
    seeds: &[Value],
    covered: BTreeSet<u32>,
    known_failures: &BTreeSet<String>,
    settings: Settings,
) -> Generation {
    let total = target.sites.branches.len();
    let mut run = Generation {
        before: covered.clone(),
        after: covered,
        ..Generation::default()
    };
    let Some(grammar) = ArgsGrammar::mine(seeds) else {
        return run;
    };
    let mut fuzzer =
        match GrammarFuzzer::new(grammar.grammar(), Strategy::DeepForesight, settings.seed) {
            Ok(fuzzer) => fuzzer,
            Err(e) => {
                eprintln!(
                    "carve: {name}: the mined grammar is not usable ({e}); nothing generated"
                );
                return run;
            }
        };
    let mut progress = Progress::new(name, settings);
    let start = Instant::now();
    let mut failed_at: BTreeSet<String> = known_failures.clone();
    // The whole budget is used: after full coverage, generation still looks for failures.
    while !exhausted(settings.budget, run.executions, start) {
        let tree = fuzzer.fuzz_tree();
        let Ok(args) = grammar.value_of(&tree) else {
            continue;
        };
        run.executions += 1;
        progress.tick(run.executions, run.after.len(), total);
        let Some((observation, reached, location)) = execute(target, &args, &mut run) else {
            continue;
        };
        let added: Vec<u32> = reached.difference(&run.after).copied().collect();
        run.after.extend(added.iter().copied());
        match (&observation.outcome, location) {
            (Outcome::Panicked(_), Some(location)) if failed_at.insert(location.clone()) => {
                let failure = minimize(target, args, observation, location, &mut run);
                run.failures.push(failure);
            }
            (Outcome::Panicked(_), _) => {}
            _ if !added.is_empty() => run.kept.push(Kept {
                args,
                observation,
                added,
            }),
            _ => {}
        }
    }
    progress.finish(run.executions, run.after.len(), total);
    run
}

fn exhausted(budget: Budget, executions: u64, start: Instant) -> bool {
    match budget {
        Budget::Executions(n) => executions >= n,
        Budget::Time(d) => start.elapsed() >= d,
    }
}

/// Runs one call; `None` when its arguments did not deserialize.
fn execute(
    target: &'static Target,
    args: &Value,
    run: &mut Generation,
) -> Option<(Observation, BTreeSet<u32>, Option<String>)> {
    let (result, trace) = coverage::collect(|| quietly(|| (target.replay)(ArgsInput::Value(args))));
    match result {
        Ok(replayed) => {
            // Two panics on one line (`chars[i + 1], chars[i + 2]`) are one bug.
            let location = match replayed.observation.outcome {
                Outcome::Panicked(_) => last_panic_location().map(|l| {
                    l.rsplit_once(':')
                        .map_or(l.clone(), |(line, _col)| line.to_owned())
                }),
                Outcome::Returned(_) => None,
            };
            Some((
                replayed.observation,
                trace.covered(target.sites).collect(),
                location,
            ))
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
    mut args: Value,
    mut observation: Observation,
    location: String,
    run: &mut Generation,
) -> Failure {
    const MAX_ATTEMPTS: usize = 2_000;
    let mut attempts = 0;
    'smaller: while attempts < MAX_ATTEMPTS {
        for candidate in crate::shrink::candidates(&args) {
            attempts += 1;
            run.executions += 1;
            if let Some((obs, _, Some(at))) = execute(target, &candidate, run) {
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

/// Progress: a bar on a terminal, a line per tenth of the budget otherwise.
struct Progress {
    name: String,
    terminal: bool,
    budget: Budget,
    enabled: bool,
    next_line: u64,
}

impl Progress {
    fn new(name: &str, settings: Settings) -> Progress {
        Progress {
            name: name.to_owned(),
            terminal: std::io::stderr().is_terminal(),
            budget: settings.budget,
            enabled: settings.progress,
            next_line: 1,
        }
    }

    fn tick(&mut self, executions: u64, covered: usize, total: usize) {
        if !self.enabled {
            return;
        }
        let step = match self.budget {
            Budget::Executions(n) => (n / 4).max(1),
            Budget::Time(_) => 10_000,
        };
        if self.terminal && executions.is_multiple_of(64) {
            let fraction = match self.budget {
                Budget::Executions(n) => executions as f64 / n.max(1) as f64,
                Budget::Time(_) => 0.0,
            };
            let filled = (fraction * 30.0) as usize;
            eprint!(
                "\r  {} [{}{}] {executions} calls, {covered}/{total} outcomes",
                self.name,
                "#".repeat(filled.min(30)),
                " ".repeat(30 - filled.min(30))
            );
            let _ = std::io::stderr().flush();
        } else if !self.terminal && executions >= self.next_line {
            eprintln!(
                "  {}: {executions} calls, {covered}/{total} outcomes",
                self.name
            );
            self.next_line = executions + step;
        }
    }

    fn finish(&self, executions: u64, covered: usize, total: usize) {
        if self.enabled && self.terminal {
            eprintln!(
                "\r  {}: {executions} calls, {covered}/{total} outcomes{}",
                self.name,
                " ".repeat(20)
            );
        }
    }
}
