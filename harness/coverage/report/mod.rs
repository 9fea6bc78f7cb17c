//! Coverage reports: which branch outcomes of every instrumented function
//! the carved and generated calls cover, through which targets, and by
//! which tests.
//!
//! Coverage follows the call tree. Each call's [`Trace`] holds the outcomes
//! of every instrumented function it entered, directly or through others.
//! An outcome is covered when any passing call (one that returned) of any
//! target took it. A target's *reach* is itself plus every instrumented
//! function any of its calls entered.
//!
//! Beside branch outcomes, each function's boundary and weak-mutation goals
//! ([`crate::coverage::goals`]) are counted the same way, by passing calls
//! only, and reported apart: branch numbers stay those of `cargo llvm-cov
//! --branch`.
//!
//! The runner collects one [`CallCoverage`] per replayed call and what
//! generation did per target ([`GenerationStats`]), and builds a [`Report`]
//! from them: its summary is printed after every run, its JSON is written to
//! `CARVE_REPORT`, its lcov tracefile to `CARVE_LCOV`, `CARVE_ANNOTATE`
//! prints annotated sources, and
//! [`crate::coverage::html`] renders it as pages (`CARVE_HTML`).
//!
//! This module holds the model; trials leave their calls in a [`Calls`]
//! sink (`sink.rs`), and each rendering has a file of its own: the text
//! summary (`summary.rs`), the JSON (`json.rs`), the lcov tracefile
//! (`lcov.rs`) and the annotated source (`annotate.rs`).
//!
//! ```
//! use carve::coverage::report::FunctionCoverage;
//! # static SITES: carve::registry::Sites = carve::registry::Sites::new("c::m", "f", "f.rs", (1, 2), &[], &[]);
//! let cov = FunctionCoverage::new(&SITES);
//! assert_eq!(cov.total(), 0);
//! assert_eq!(cov.percent(), None); // nothing to cover: shown as `-`
//! ```

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::coverage::goals::{self, Goal, GoalKind};
use crate::coverage::Trace;
use crate::outcome::{Failure, FailureKind};
use crate::registry::{Registry, Sites};

mod annotate;
mod json;
mod lcov;
mod sink;
mod summary;

pub(crate) use annotate::edit_distance;
pub use sink::Calls;

/// The coverage of one replayed (or generated) call.
#[derive(Debug, Clone)]
pub struct CallCoverage {
    /// The test that made the call (`carved::cgi::cgi_decode::0001`).
    pub test: String,
    /// The target called.
    pub target: String,
    /// The call as people read it: `decode::cgi_decode(s:"%B1")`.
    pub call: String,
    /// Whether the call was generated (else carved).
    pub generated: bool,
    /// Whether the call returned (a call that panicked covers nothing).
    pub passed: bool,
    /// What it reached.
    pub trace: Trace,
}

/// A failing input generation found, still failing when it was replayed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundFailure {
    /// Its test (`generated::split_pair::0003`).
    pub test: String,
    /// The target called.
    pub target: String,
    /// The minimized call: `split_pair(s:"")`.
    pub call: String,
    /// Its found entry's `at`: where it panicked (`src/lib.rs:12`), or
    /// the kind and place of its crash (`abort at src/lib.rs:12`).
    pub at: Failure,
    /// How it fails now: a panic (replayed, it still panics) or the kind of
    /// crash its carve file says (not replayed, listed as found).
    pub kind: FailureKind,
    /// The panic message, or how the process ended.
    pub message: String,
}

/// What generation did for one target in this run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GenerationStats {
    /// Calls generation ran.
    pub executions: u64,
    /// Distinct failing inputs found (panics, aborts, timeouts).
    pub failures: usize,
}

/// Whether a function is a target or a helper.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Registered by `#[carve::target]`: its calls are carved.
    Target,
    /// Instrumented by `#[carve::instrument]` (or a method of a target's impl
    /// block that is not carved): counted where targets reach it.
    Helper,
}

impl Kind {
    /// `target` or `helper`, as both reports write it.
    pub const fn as_str(self) -> &'static str {
        match self {
            Kind::Target => "target",
            Kind::Helper => "helper",
        }
    }
}

impl Serialize for Kind {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// Coverage of one instrumented function's branch outcomes.
#[derive(Debug, Clone)]
pub struct FunctionCoverage {
    /// Its outcomes.
    pub sites: &'static Sites,
    /// Target or helper.
    pub kind: Kind,
    /// The tests whose passing calls took each covered outcome.
    pub covered_by: BTreeMap<u32, BTreeSet<String>>,
    /// The smallest distance any call came to each reached outcome.
    pub best_distance: BTreeMap<u32, f64>,
    /// The test whose call came closest to each reached outcome (among
    /// equally close ones, the first by name, so that the report does not
    /// depend on the order calls ran in).
    pub closest: BTreeMap<u32, String>,
    /// The targets (other than itself) whose calls entered it.
    pub reached_from: BTreeSet<String>,
    /// Its boundary and weak-mutation goals, in goal order, with what the
    /// calls added so far did for each.
    pub goals: Vec<GoalCoverage>,
    /// Passing calls that entered it (the lcov tracefile's function and
    /// line counts).
    pub entered: usize,
}

/// What the calls added so far did for one boundary or weak-mutation goal.
/// Kept per goal rather than per call: a suite may replay 100,000 calls.
#[derive(Debug, Clone)]
pub struct GoalCoverage {
    /// The goal.
    pub goal: Goal,
    /// Some passing call evaluated its condition.
    pub evaluated: bool,
    /// Some passing call showed that it applies to its operands' type.
    pub shown_to_apply: bool,
    /// Passing calls that met it.
    pub met: usize,
    /// The first test by name whose passing call met it (so that the
    /// report does not depend on the order calls ran in).
    pub met_by: Option<String>,
    /// The smallest distance to it of any call that evaluated its
    /// condition (a call that did not pass only counts here, never as
    /// meeting it).
    pub best_distance: Option<f64>,
    /// The test whose call came closest (the first by name among equally
    /// close ones).
    pub closest: Option<String>,
}

impl GoalCoverage {
    fn new(goal: Goal) -> GoalCoverage {
        GoalCoverage {
            goal,
            evaluated: false,
            shown_to_apply: false,
            met: 0,
            met_by: None,
            best_distance: None,
            closest: None,
        }
    }

    /// Whether it counts: some passing call showed it applies, or no
    /// passing call evaluated its condition (nothing is known then, and it
    /// counts as missed). A relational mutant of `==` on a type without an
    /// order does not count.
    pub fn applies(&self) -> bool {
        !self.evaluated || self.shown_to_apply
    }

    /// Whether some passing call met it.
    pub fn is_met(&self) -> bool {
        self.met > 0
    }

    fn add(&mut self, sites: &Sites, test: &str, trace: &Trace, passed: bool) {
        // A call that did not evaluate the condition neither meets the goal
        // nor says how close it came (its approach level is not kept, as for
        // outcomes): skip the fitness, the costly part, for most goals.
        if !self.goal.evaluated(sites, trace) {
            return;
        }
        if passed {
            self.evaluated = true;
            self.shown_to_apply |= self.goal.applies_in(sites, trace);
        }
        let fitness = self.goal.fitness(sites, trace);
        if passed && fitness.covered() {
            self.met += 1;
            if self.met_by.as_deref().is_none_or(|t| test < t) {
                self.met_by = Some(test.to_owned());
            }
        }
        // Distances of calls that reached the condition, as for outcomes:
        // a failing call at distance 0 met nothing and says nothing.
        let distance = fitness.distance;
        if fitness.level != 0 || !distance.is_finite() || (distance == 0.0 && !passed) {
            return;
        }
        let best = self.best_distance.unwrap_or(f64::INFINITY);
        if distance < best
            || (distance == best && self.closest.as_deref().is_none_or(|c| test < c))
        {
            self.closest = Some(test.to_owned());
        }
        self.best_distance = Some(best.min(distance));
    }
}

/// Boundaries and weak mutants that apply, and of those, met: counted
/// apart from branch outcomes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct GoalTotals {
    /// Boundary goals that apply.
    pub boundaries: usize,
    /// Of those, met by a passing call.
    pub boundaries_covered: usize,
    /// Weak mutants that apply.
    pub mutants: usize,
    /// Of those, weakly killed by a passing call.
    pub mutants_killed: usize,
}

impl std::ops::Add for GoalTotals {
    type Output = GoalTotals;

    fn add(self, other: GoalTotals) -> GoalTotals {
        GoalTotals {
            boundaries: self.boundaries + other.boundaries,
            boundaries_covered: self.boundaries_covered + other.boundaries_covered,
            mutants: self.mutants + other.mutants,
            mutants_killed: self.mutants_killed + other.mutants_killed,
        }
    }
}

impl GoalTotals {
    /// `(met, total)` of the goals of `kind`.
    pub fn of(self, kind: GoalKind) -> (usize, usize) {
        match kind {
            GoalKind::Boundary => (self.boundaries_covered, self.boundaries),
            GoalKind::Mutant => (self.mutants_killed, self.mutants),
        }
    }

    /// `boundaries 3/5, weak mutants killed 14/16`, leaving out a kind with
    /// no goals; empty when there are none.
    pub fn describe(self) -> String {
        GOAL_KINDS
            .iter()
            .filter_map(|(kind, what)| {
                let (met, total) = self.of(*kind);
                (total > 0).then(|| format!("{what} {met}/{total}"))
            })
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The goal kinds as the reports name their counts.
const GOAL_KINDS: [(GoalKind, &str); 2] = [
    (GoalKind::Boundary, "boundaries"),
    (GoalKind::Mutant, "weak mutants killed"),
];

impl FunctionCoverage {
    /// A helper with nothing covered yet.
    pub fn new(sites: &'static Sites) -> FunctionCoverage {
        FunctionCoverage {
            sites,
            kind: Kind::Helper,
            covered_by: BTreeMap::new(),
            best_distance: BTreeMap::new(),
            closest: BTreeMap::new(),
            reached_from: BTreeSet::new(),
            goals: goals::goals(sites)
                .into_iter()
                .map(GoalCoverage::new)
                .collect(),
            entered: 0,
        }
    }

    /// The function's path inside its crate.
    pub fn name(&self) -> String {
        self.sites.name()
    }

    /// Adds what one call made by `test` reached here; a call that did not
    /// pass only counts for distances, never as covering.
    pub fn add(&mut self, test: &str, trace: &Trace, passed: bool) {
        self.entered += usize::from(passed && trace.entered(self.sites));
        for (id, distance) in trace.reached(self.sites) {
            if distance == 0.0 && !passed {
                continue;
            }
            let best = self.best_distance.entry(id).or_insert(f64::INFINITY);
            let closest = self.closest.get(&id);
            if distance < *best
                || (distance == *best && closest.is_none_or(|c| test < c.as_str()))
            {
                self.closest.insert(id, test.to_owned());
            }
            *best = best.min(distance);
            if distance == 0.0 {
                self.covered_by
                    .entry(id)
                    .or_default()
                    .insert(test.to_owned());
            }
        }
        for goal in &mut self.goals {
            goal.add(self.sites, test, trace, passed);
        }
    }

    /// Its boundaries and weak mutants that apply, and how many were met.
    pub fn goal_totals(&self) -> GoalTotals {
        let mut totals = GoalTotals::default();
        for goal in self.goals.iter().filter(|g| g.applies()) {
            let (all, met) = match goal.goal.kind {
                GoalKind::Boundary => (&mut totals.boundaries, &mut totals.boundaries_covered),
                GoalKind::Mutant => (&mut totals.mutants, &mut totals.mutants_killed),
            };
            *all += 1;
            *met += usize::from(goal.is_met());
        }
        totals
    }

    /// The goals that apply and no passing call met, in goal order:
    /// missed boundaries and surviving mutants.
    pub fn missed_goals(&self) -> impl Iterator<Item = &GoalCoverage> {
        self.goals.iter().filter(|g| g.applies() && !g.is_met())
    }

    /// Number of branch outcomes.
    pub fn total(&self) -> usize {
        self.sites.branches.len()
    }

    /// Outcomes some passing call took.
    #[cfg(any(test, feature = "_internals"))]
    pub fn covered(&self) -> BTreeSet<u32> {
        self.covered_by.keys().copied().collect()
    }

    /// Outcomes no passing call took.
    pub fn missing(&self) -> BTreeSet<u32> {
        (0..self.total() as u32)
            .filter(|id| !self.covered_by.contains_key(id))
            .collect()
    }

    /// Outcomes `test` took.
    #[cfg(any(test, feature = "_internals"))]
    pub fn covered_by_test(&self, test: &str) -> BTreeSet<u32> {
        self.covered_by
            .iter()
            .filter(|(_, tests)| tests.contains(test))
            .map(|(id, _)| *id)
            .collect()
    }

    /// Its own outcomes and goals, covered and total.
    pub fn totals(&self) -> Totals {
        Totals {
            branches: self.total(),
            covered: self.covered_by.len(),
            goals: self.goal_totals(),
        }
    }

    /// `covered / total` in percent; `None` when there is nothing to cover.
    pub fn percent(&self) -> Option<f64> {
        (self.total() > 0).then(|| 100.0 * self.covered_by.len() as f64 / self.total() as f64)
    }

    /// `` `c == '%'` true `` for outcome `id`.
    pub fn describe(&self, id: u32) -> String {
        let b = &self.sites.branches[id as usize];
        format!("`{}` {}", b.condition, b.side)
    }
}

/// What one target's calls did: its own function is in
/// [`Report::functions`]; this adds the calls and the reach.
#[derive(Debug, Clone)]
pub struct TargetCoverage {
    /// The target's name.
    pub name: String,
    /// Index of its own function in [`Report::functions`].
    pub function: usize,
    /// Indices (in [`Report::functions`]) of the functions its calls
    /// entered, itself included.
    pub reach: BTreeSet<usize>,
    /// Carved calls replayed.
    pub carved_calls: usize,
    /// Generated calls replayed.
    pub generated_calls: usize,
    /// Executions in this run: replays and generation.
    pub executions: u64,
    /// Distinct failing inputs generation found in this run.
    pub failures: usize,
}

impl TargetCoverage {
    /// Whether any call of it ran.
    pub fn called(&self) -> bool {
        self.carved_calls + self.generated_calls > 0
    }
}

/// Covered and total outcomes over some functions, and apart from them,
/// their boundaries and weak mutants.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Totals {
    /// Branch outcomes.
    pub branches: usize,
    /// Of those, covered.
    pub covered: usize,
    /// Boundaries and weak mutants (the JSON report adds their fields
    /// after `covered`).
    #[serde(flatten)]
    pub goals: GoalTotals,
}

impl Totals {
    /// `covered / branches` in percent; `None` when there is nothing to cover.
    pub fn percent(self) -> Option<f64> {
        (self.branches > 0).then(|| 100.0 * self.covered as f64 / self.branches as f64)
    }

    fn show(self) -> String {
        match self.percent() {
            Some(p) => format!("{:>4}/{:<4} {p:>5.1}%", self.covered, self.branches),
            None => format!("{:>4} {:<4} {:>6}", "-", "", ""),
        }
    }
}

/// Coverage of every instrumented function of a test binary.
#[derive(Debug, Clone)]
pub struct Report {
    /// The seed of the run.
    pub seed: u64,
    /// Every instrumented function, targets and helpers, sorted by name.
    pub functions: Vec<FunctionCoverage>,
    /// Every target, sorted by name.
    pub targets: Vec<TargetCoverage>,
    /// Each replayed call as people read it, by test name.
    pub calls: BTreeMap<String, String>,
    /// Found failures that still fail, by test name ([`Report::with_failures`]).
    pub failures: Vec<FoundFailure>,
}

impl Report {
    /// Builds the report from the calls replayed in this run and what
    /// generation did per target.
    pub fn build(
        registry: &Registry,
        calls: &[CallCoverage],
        generation: &BTreeMap<String, GenerationStats>,
        seed: u64,
    ) -> Report {
        let mut all = crate::registry::all_sites();
        // Every target submits its table; a target built by hand (tests)
        // may not have, and must still be listed.
        for (_, target) in registry.targets() {
            if !all.iter().any(|s| std::ptr::eq(*s, target.sites)) {
                all.push(target.sites);
            }
        }
        all.sort_by_key(|s| (s.name(), s.file, s.lines));
        let mut functions: Vec<FunctionCoverage> =
            all.into_iter().map(FunctionCoverage::new).collect();
        let index_of = |sites: &Sites, functions: &[FunctionCoverage]| {
            functions.iter().position(|f| std::ptr::eq(f.sites, sites))
        };
        let mut targets: BTreeMap<&str, TargetCoverage> = BTreeMap::new();
        for (name, target) in registry.targets() {
            let function = index_of(target.sites, &functions).unwrap_or_default();
            functions[function].kind = Kind::Target;
            let stats = generation.get(name).copied().unwrap_or_default();
            targets.insert(
                name,
                TargetCoverage {
                    name: name.to_owned(),
                    function,
                    reach: BTreeSet::from([function]),
                    carved_calls: 0,
                    generated_calls: 0,
                    executions: stats.executions,
                    failures: stats.failures,
                },
            );
        }
        let mut texts = BTreeMap::new();
        for call in calls {
            let Some(target) = targets.get_mut(call.target.as_str()) else {
                continue;
            };
            texts.insert(call.test.clone(), call.call.clone());
            target.executions += 1;
            if call.generated {
                target.generated_calls += 1;
            } else {
                target.carved_calls += 1;
            }
            for sites in call.trace.functions() {
                let Some(i) = index_of(sites, &functions) else {
                    continue;
                };
                target.reach.insert(i);
                if i != target.function {
                    functions[i].reached_from.insert(call.target.clone());
                }
                functions[i].add(&call.test, &call.trace, call.passed);
            }
        }
        Report {
            seed,
            functions,
            targets: targets.into_values().collect(),
            calls: texts,
            failures: Vec::new(),
        }
    }

    /// The report with the found failures that still fail.
    pub fn with_failures(self, failures: Vec<FoundFailure>) -> Report {
        Report { failures, ..self }
    }

    /// Covered and total outcomes (and goals) of the functions at `indices`.
    pub fn totals<'a>(&self, indices: impl IntoIterator<Item = &'a usize>) -> Totals {
        indices
            .into_iter()
            .map(|&i| self.functions[i].totals())
            .fold(Totals::default(), |t, f| Totals {
                branches: t.branches + f.branches,
                covered: t.covered + f.covered,
                goals: t.goals + f.goals,
            })
    }

    /// Covered and total outcomes over every instrumented function: the
    /// number to compare with `cargo llvm-cov --branch`.
    pub fn total(&self) -> Totals {
        self.totals(&(0..self.functions.len()).collect::<Vec<_>>())
    }

    /// The target whose function is at `index`, if it is one.
    pub fn target_at(&self, index: usize) -> Option<&TargetCoverage> {
        // A generic function is a target per instantiation: the row shows
        // one that was called, when there is one.
        let mut at = self.targets.iter().filter(|t| t.function == index);
        let first = at.clone().next();
        at.find(|t| t.called()).or(first)
    }
}

/// A distance as people read it: whole and ordinary numbers as they are
/// (`6`, `0.5`), tiny or huge ones (float boundaries are a few ulps away)
/// with an exponent (`5e-324`), not as hundreds of digits.
pub(crate) fn show_distance(d: f64) -> String {
    let magnitude = d.abs();
    if magnitude != 0.0 && magnitude.is_finite() && !(1e-4..1e16).contains(&magnitude) {
        format!("{d:e}")
    } else {
        format!("{d}")
    }
}

/// `file!()` paths are relative to the workspace root, tests run in the
/// package root: look in the working directory and its ancestors.
pub(crate) fn find_source(file: &str) -> Option<PathBuf> {
    let cwd = std::env::current_dir().ok()?;
    cwd.ancestors()
        .map(|dir| dir.join(file))
        .find(|p| p.is_file())
        .or_else(|| {
            let p = Path::new(file);
            p.is_file().then(|| p.to_owned())
        })
}

#[cfg(test)]
mod tests {
    use super::annotate::{annotate_function, edit_distance};
    use super::*;
    use crate::coverage;
    use crate::registry::{Branch, BranchKind, Condition, Form, Op, Side};

    static SITES: Sites = Sites::new(
        "krate::m",
        "f",
        "f.rs",
        (1, 3),
        &[
            Branch {
                kind: BranchKind::Condition,
                condition: "x > 0",
                side: Side::True,
                line: 2,
                col: 8,
                parent: u32::MAX,
            },
            Branch {
                kind: BranchKind::Condition,
                condition: "x > 0",
                side: Side::False,
                line: 2,
                col: 8,
                parent: u32::MAX,
            },
        ],
        &[],
    );

    #[test]
    fn set_operations_per_test() {
        let (_, positive) =
            coverage::collect(|| coverage::compare(&SITES, 0, true, coverage::Op::Gt, None));
        let (_, negative) =
            coverage::collect(|| coverage::compare(&SITES, 0, false, coverage::Op::Gt, None));
        let mut cov = FunctionCoverage::new(&SITES);
        cov.add("a", &positive, true);
        assert_eq!(cov.missing(), BTreeSet::from([1]));
        cov.add("b", &negative, true);
        assert_eq!(cov.covered_by_test("a"), BTreeSet::from([0]));
        let only_b: BTreeSet<u32> = cov
            .covered_by_test("b")
            .difference(&cov.covered_by_test("a"))
            .copied()
            .collect();
        assert_eq!(only_b, BTreeSet::from([1]));
        assert_eq!(cov.percent(), Some(100.0));
        assert_eq!(cov.describe(1), "`x > 0` false");
    }

    #[test]
    fn a_call_that_did_not_pass_covers_nothing_but_keeps_its_distances() {
        let (_, trace) =
            coverage::collect(|| coverage::compare(&SITES, 0, true, coverage::Op::Gt, None));
        let mut cov = FunctionCoverage::new(&SITES);
        cov.add("panicked", &trace, false);
        assert!(cov.covered().is_empty());
        assert_eq!(cov.best_distance.get(&0), None);
        assert_eq!(cov.best_distance.get(&1), Some(&1.0));
    }

    #[test]
    fn the_closest_call_is_the_first_by_name_among_equally_close_ones() {
        let call = |diff: f64| {
            coverage::collect(|| {
                coverage::compare(
                    &SITES,
                    0,
                    false,
                    coverage::Op::Gt,
                    Some(coverage::Cmp::numeric(diff)),
                )
            })
            .1
        };
        // `x > 0` with x = -3 is 4 from true, x = -1 is 2 from true.
        let mut cov = FunctionCoverage::new(&SITES);
        cov.add("c", &call(-3.0), true);
        assert_eq!(cov.closest.get(&0).map(String::as_str), Some("c"));
        cov.add("d", &call(-1.0), true);
        cov.add("b", &call(-1.0), true);
        cov.add("e", &call(-1.0), true);
        assert_eq!(cov.best_distance.get(&0), Some(&2.0));
        assert_eq!(cov.closest.get(&0).map(String::as_str), Some("b"));
    }

    // `if x > limit { .. }` on line 2: one boundary, five operator mutants.
    const GT: [Branch; 2] = [
        Branch {
            kind: BranchKind::Condition,
            condition: "x > limit",
            side: Side::True,
            line: 2,
            col: 8,
            parent: u32::MAX,
        },
        Branch {
            kind: BranchKind::Condition,
            condition: "x > limit",
            side: Side::False,
            line: 2,
            col: 8,
            parent: u32::MAX,
        },
    ];
    const GT_CONDITIONS: [Condition; 1] = [Condition {
        branch: 0,
        form: Form::Compare {
            op: Op::Gt,
            index: 0,
        },
    }];
    static GOALS: Sites =
        Sites::new("krate::m", "g", "no/such/g.rs", (1, 3), &GT, &[]).with_conditions(&GT_CONDITIONS);

    /// A call of `x > limit` on `sites`.
    fn gt(sites: &'static Sites, x: i64, limit: i64) -> Trace {
        coverage::collect(|| {
            coverage::enter(sites);
            coverage::compare_with_goals(
                sites,
                0,
                0,
                x > limit,
                Op::Gt,
                || Some(coverage::Cmp::numeric((x - limit) as f64)),
                || None,
            )
        })
        .1
    }

    fn goal_totals(b: (usize, usize), m: (usize, usize)) -> GoalTotals {
        GoalTotals {
            boundaries: b.1,
            boundaries_covered: b.0,
            mutants: m.1,
            mutants_killed: m.0,
        }
    }

    #[test]
    fn only_a_call_at_the_boundary_meets_it_and_branch_counts_do_not_move() {
        let mut cov = FunctionCoverage::new(&GOALS);
        // Nothing ran: every goal counts, and is missed.
        assert_eq!(cov.goal_totals(), goal_totals((0, 1), (0, 5)));
        cov.add("far-below", &gt(&GOALS, 0, 5), true);
        cov.add("far-above", &gt(&GOALS, 9, 5), true);
        assert_eq!(cov.covered().len(), 2, "both outcomes");
        // `>` → `>=` differs only at x == limit: it survives with the boundary.
        assert_eq!(cov.goal_totals(), goal_totals((0, 1), (4, 5)));
        let missed: Vec<&str> = cov.missed_goals().map(|g| g.goal.label.as_str()).collect();
        assert_eq!(
            missed,
            [
                "`x > limit` at its boundary (equal operands)",
                "`>` → `>=` in `x > limit`"
            ]
        );
        let boundary = &cov.goals[0];
        assert_eq!(
            (boundary.best_distance, boundary.closest.as_deref()),
            (Some(4.0), Some("far-above"))
        );
        cov.add("z-at", &gt(&GOALS, 5, 5), true);
        cov.add("at", &gt(&GOALS, 5, 5), true);
        assert_eq!(cov.goal_totals(), goal_totals((1, 1), (5, 5)));
        assert_eq!(cov.missed_goals().count(), 0);
        assert_eq!((cov.goals[0].met, cov.goals[0].met_by.as_deref()), (2, Some("at")));
        // Branch outcomes are what they were: goals are never mixed in.
        assert_eq!((cov.covered().len(), cov.total()), (2, 2));
        assert_eq!(cov.covered_by_test("at"), BTreeSet::from([1]));
    }

    #[test]
    fn a_call_that_did_not_pass_never_meets_a_goal() {
        let mut cov = FunctionCoverage::new(&GOALS);
        cov.add("panicked", &gt(&GOALS, 5, 5), false);
        assert_eq!(cov.goal_totals(), goal_totals((0, 1), (0, 5)));
        let boundary = &cov.goals[0];
        assert!(!boundary.evaluated && !boundary.is_met());
        // At distance 0 it says nothing; farther, it counts for distances.
        assert_eq!(boundary.best_distance, None);
        cov.add("panicked-far", &gt(&GOALS, 7, 5), false);
        assert_eq!(cov.goals[0].best_distance, Some(2.0));
        assert_eq!(cov.goal_totals().boundaries_covered, 0);
    }

    /// A report of `GOALS` as a target called at 0 and 9 (not at 5), and
    /// `SITES` as a helper without conditions.
    fn goal_report() -> Report {
        let mut g = FunctionCoverage::new(&GOALS);
        g.kind = Kind::Target;
        g.add("carved::m::g::0001", &gt(&GOALS, 0, 5), true);
        g.add("carved::m::g::0002", &gt(&GOALS, 9, 5), true);
        let (_, helper) =
            coverage::collect(|| coverage::compare(&SITES, 0, true, coverage::Op::Gt, None));
        let mut f = FunctionCoverage::new(&SITES);
        f.add("carved::m::g::0001", &helper, true);
        f.reached_from.insert("m::g".to_owned());
        Report {
            seed: 3,
            functions: vec![f, g],
            targets: vec![TargetCoverage {
                name: "m::g".to_owned(),
                function: 1,
                reach: BTreeSet::from([0, 1]),
                carved_calls: 2,
                generated_calls: 0,
                executions: 2,
                failures: 0,
            }],
            calls: BTreeMap::new(),
            failures: Vec::new(),
        }
    }

    #[test]
    fn the_json_report_adds_goal_fields_beside_the_branch_fields() {
        let json: serde_json::Value = serde_json::from_str(&goal_report().to_json()).unwrap();
        assert_eq!(
            json["targets"][0],
            serde_json::json!({ "name": "m::g", "branches": 2, "covered": 2,
                "reach_branches": 4, "reach_covered": 3, "carved_calls": 2,
                "generated_calls": 0, "executions": 2, "failures": 0,
                "boundaries": 1, "boundaries_covered": 0, "mutants": 5, "mutants_killed": 4,
                "reach_boundaries": 1, "reach_boundaries_covered": 0,
                "reach_mutants": 5, "reach_mutants_killed": 4 })
        );
        assert_eq!(
            json["functions"][0],
            serde_json::json!({ "name": "m::f", "kind": "helper", "branches": 2,
                "covered": 1, "reached_from": ["m::g"], "boundaries": 0,
                "boundaries_covered": 0, "mutants": 0, "mutants_killed": 0 })
        );
        assert_eq!(json["functions"][1]["mutants_killed"], 4);
        assert_eq!(
            json["total"],
            serde_json::json!({ "branches": 4, "covered": 3, "boundaries": 1,
                "boundaries_covered": 0, "mutants": 5, "mutants_killed": 4 })
        );
    }

    #[test]
    fn the_summary_shows_goals_in_their_own_aligned_columns() {
        let summary = goal_report().summary();
        insta::assert_snapshot!(summary, @r#"
            carve: branch coverage of instrumented functions by carved and generated calls
              function  kind    own outcomes      boundaries  mutants killed  targets: outcomes of all they reach
              m::f      helper     1/2     50.0%         -               -    reached from m::g
              m::g      target     2/2    100.0%         0/1             4/5  reach    3/4     75.0%  (2 carved, 0 generated calls)
              total                3/4     75.0%         0/1             4/5
            "#);
    }

    #[test]
    fn an_annotate_filter_that_matches_nothing_names_the_closest_functions() {
        let report = goal_report();
        assert_eq!(report.annotate("xyz"), "");
        insta::assert_snapshot!(report.annotate_misses("xyz").unwrap(), @"CARVE_ANNOTATE=xyz matches no instrumented function; names are: m::f, m::g. It selects the names that contain it; `all` selects every one.");
        assert_eq!(report.annotate_misses("m::"), None);
        assert_eq!(report.annotate_misses(""), None, "`all`");
        let mut many = goal_report();
        let more = ["parse", "parse_query", "urlparse", "decode", "cgi_decode", "hex_value"];
        for name in more {
            let sites: &'static Sites =
                Box::leak(Box::new(Sites::new("krate::u", name, "u.rs", (1, 2), &[], &[])));
            many.functions.push(FunctionCoverage::new(sites));
        }
        insta::assert_snapshot!(many.annotate_misses("parse_qery").unwrap(), @"CARVE_ANNOTATE=parse_qery matches no instrumented function; names are (the 5 closest of 8): u::parse_query, u::parse, u::urlparse, u::decode, m::f. It selects the names that contain it; `all` selects every one.");
        assert_eq!(edit_distance("kitten", "Sitting"), 3);
        assert_eq!(edit_distance("", "ab"), 2);
    }

    #[test]
    fn the_annotated_source_marks_missed_boundaries_and_surviving_mutants() {
        // Without the source: listed by location.
        let listing = goal_report().annotate("m::g");
        insta::assert_snapshot!(listing, @r#"

            m::g: 2/2 branch outcomes covered (100.0%), boundaries 0/1, weak mutants killed 4/5, no/such/g.rs
              (source not found; missed outcomes and goals:)
              no/such/g.rs:2:8 missed boundary: `x > limit` at its boundary (equal operands)
              no/such/g.rs:2:8 mutant survives: `>` → `>=` in `x > limit`
            "#);
        // With it: under their line, marked `~` where no outcome is missed.
        let path = std::env::temp_dir().join(format!("carve-annotate-{}.rs", std::process::id()));
        std::fs::write(&path, "fn g(x: i64, limit: i64) -> bool {\n    if x > limit { true } else { false }\n}\n").unwrap();
        let file: &'static str = Box::leak(path.display().to_string().into_boxed_str());
        let sites: &'static Sites = Box::leak(Box::new(
            Sites::new("krate::m", "g", file, (1, 3), &GT, &[]).with_conditions(&GT_CONDITIONS),
        ));
        let mut cov = FunctionCoverage::new(sites);
        cov.add("a", &gt(sites, 0, 5), true);
        cov.add("b", &gt(sites, 7, 5), true);
        let listing = annotate_function(&cov).replace(file, "g.rs");
        let _ = std::fs::remove_file(&path);
        insta::assert_snapshot!(listing, @r#"

            m::g: 2/2 branch outcomes covered (100.0%), boundaries 0/1, weak mutants killed 4/5, g.rs
                 1 fn g(x: i64, limit: i64) -> bool {
            ~    2     if x > limit { true } else { false }
                          ^ missed boundary: `x > limit` at its boundary (equal operands) (closest distance 2)
                          ^ mutant survives: `>` → `>=` in `x > limit` (closest distance 2)
                 3 }
            "#);
    }

    #[test]
    fn distances_are_shown_without_hundreds_of_digits() {
        let shown: Vec<String> = [6.0, 0.5, 5e-324, f64::EPSILON, 1e20, 0.0]
            .into_iter()
            .map(show_distance)
            .collect();
        assert_eq!(shown, ["6", "0.5", "5e-324", "2.220446049250313e-16", "1e20", "0"]);
    }

    #[test]
    fn totals_show_a_dash_when_there_is_nothing_to_cover() {
        let none = Totals::default();
        assert_eq!(none.percent(), None);
        assert!(none.show().trim_start().starts_with('-'));
        let some = Totals {
            branches: 4,
            covered: 3,
            ..Totals::default()
        };
        assert_eq!(
            some.show().split_whitespace().collect::<Vec<_>>(),
            ["3/4", "75.0%"]
        );
    }
}
