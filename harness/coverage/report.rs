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
//! The runner collects one [`CallCoverage`] per replayed call and what
//! generation did per target ([`GenerationStats`]), and builds a [`Report`]
//! from them: its summary is printed after every run, its JSON is written to
//! `CARVE_REPORT`, `CARVE_ANNOTATE` prints annotated sources, and
//! [`crate::coverage::html`] renders it as pages (`CARVE_HTML`).
//!
//! ```
//! use carve::coverage::report::FunctionCoverage;
//! # static SITES: carve::registry::Sites = carve::registry::Sites::new("c::m", "f", "f.rs", (1, 2), &[], &[]);
//! let cov = FunctionCoverage::new(&SITES);
//! assert_eq!(cov.total(), 0);
//! assert_eq!(cov.percent(), None); // nothing to cover: shown as `-`
//! ```

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde::Serialize;

use crate::coverage::Trace;
use crate::registry::{Registry, Sites};

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
    /// Where it panicked (`src/lib.rs:12`), or how its process ended.
    pub at: String,
    /// Panic or crash.
    pub kind: FailureKind,
    /// The panic message, or how the process ended.
    pub message: String,
}

/// How a found failure fails.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailureKind {
    /// The call panics (replayed: it still does).
    Panic,
    /// The call takes its process down (abort, overflow, timeout): not
    /// replayed, it is listed as found.
    Crash,
}

impl FailureKind {
    /// `panic` or `crash`.
    pub const fn as_str(self) -> &'static str {
        match self {
            FailureKind::Panic => "panic",
            FailureKind::Crash => "crash",
        }
    }
}

/// Where replayed calls leave their coverage and found failures their
/// description: one per run, shared by the trials of that run, drained by
/// the runner when they are done.
#[derive(Debug, Clone, Default)]
pub struct Calls(Arc<Mutex<Sink>>);

#[derive(Debug, Default)]
struct Sink {
    calls: Vec<CallCoverage>,
    failures: Vec<FoundFailure>,
}

impl Calls {
    fn sink(&self) -> std::sync::MutexGuard<'_, Sink> {
        // Each critical section is one push or take: never left inconsistent.
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Adds one call.
    pub fn push(&self, call: CallCoverage) {
        self.sink().calls.push(call);
    }

    /// Takes every call added so far.
    pub fn take(&self) -> Vec<CallCoverage> {
        std::mem::take(&mut self.sink().calls)
    }

    /// Adds a found failure that still fails.
    pub fn push_failure(&self, failure: FoundFailure) {
        self.sink().failures.push(failure);
    }

    /// Takes every found failure added so far, sorted by test name.
    pub fn take_failures(&self) -> Vec<FoundFailure> {
        let mut failures = std::mem::take(&mut self.sink().failures);
        failures.sort_by(|a, b| a.test.cmp(&b.test));
        failures
    }
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
}

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
        }
    }

    /// The function's path inside its crate.
    pub fn name(&self) -> String {
        self.sites.name()
    }

    /// Adds what one call made by `test` reached here; a call that did not
    /// pass only counts for distances, never as covering.
    pub fn add(&mut self, test: &str, trace: &Trace, passed: bool) {
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
    }

    /// Number of branch outcomes.
    pub fn total(&self) -> usize {
        self.sites.branches.len()
    }

    /// Outcomes some passing call took.
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
    pub fn covered_by_test(&self, test: &str) -> BTreeSet<u32> {
        self.covered_by
            .iter()
            .filter(|(_, tests)| tests.contains(test))
            .map(|(id, _)| *id)
            .collect()
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

/// Covered and total outcomes over some functions.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Totals {
    /// Branch outcomes.
    pub branches: usize,
    /// Of those, covered.
    pub covered: usize,
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

    /// Covered and total outcomes of the functions at `indices`.
    pub fn totals<'a>(&self, indices: impl IntoIterator<Item = &'a usize>) -> Totals {
        indices
            .into_iter()
            .map(|&i| &self.functions[i])
            .fold(Totals::default(), |t, f| Totals {
                branches: t.branches + f.total(),
                covered: t.covered + f.covered_by.len(),
            })
    }

    /// Covered and total outcomes over every instrumented function: the
    /// number to compare with `cargo llvm-cov --branch`.
    pub fn total(&self) -> Totals {
        self.totals(&(0..self.functions.len()).collect::<Vec<_>>())
    }

    /// The target whose function is at `index`, if it is one.
    pub fn target_at(&self, index: usize) -> Option<&TargetCoverage> {
        self.targets.iter().find(|t| t.function == index)
    }

    /// One line per instrumented function (own outcomes covered/total; for
    /// targets also their reach and calls), hints where a number means
    /// nothing, and the total.
    pub fn summary(&self) -> String {
        let width = self
            .functions
            .iter()
            .map(|f| f.name().len())
            .max()
            .unwrap_or(0)
            .max(5);
        let mut out = String::from(
            "carve: branch coverage of instrumented functions by carved and generated calls\n",
        );
        let _ = writeln!(
            out,
            "  {:width$}  kind    own outcomes      targets: outcomes of all they reach",
            "function"
        );
        let mut blind = Vec::new();
        for (i, f) in self.functions.iter().enumerate() {
            let own = Totals {
                branches: f.total(),
                covered: f.covered_by.len(),
            };
            let detail = match (f.kind, self.target_at(i)) {
                (Kind::Target, Some(t)) if !t.called() => "not called".to_owned(),
                (Kind::Target, Some(t)) => {
                    if t.reach.len() == 1 && f.total() == 0 {
                        blind.push(format!("`{}`", t.name));
                    }
                    format!(
                        "reach {}  ({} carved, {} generated calls)",
                        self.totals(&t.reach).show(),
                        t.carved_calls,
                        t.generated_calls
                    )
                }
                _ if f.reached_from.is_empty() => "not reached".to_owned(),
                _ => format!(
                    "reached from {}",
                    f.reached_from
                        .iter()
                        .map(String::as_str)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            };
            let kind = f.kind.as_str();
            let _ = writeln!(
                out,
                "  {:width$}  {kind}  {}  {detail}",
                f.name(),
                own.show()
            );
        }
        let _ = writeln!(out, "  {:width$}          {}", "total", self.total().show());
        if !blind.is_empty() {
            let _ = writeln!(
                out,
                "carve: hint: {} {} no branch outcomes and {} no instrumented function; if the \
                 logic is in functions they call, mark those with `#[carve::instrument]` (on an \
                 inline `mod`, it instruments every function in it)",
                blind.join(", "),
                if blind.len() == 1 { "has" } else { "have" },
                if blind.len() == 1 { "reaches" } else { "reach" },
            );
        }
        out
    }

    /// The JSON report of the contract.
    pub fn to_json(&self) -> String {
        #[derive(Serialize)]
        struct Json<'a> {
            seed: u64,
            targets: Vec<JsonTarget<'a>>,
            functions: Vec<JsonFunction>,
            total: Totals,
        }
        #[derive(Serialize)]
        struct JsonTarget<'a> {
            name: &'a str,
            branches: usize,
            covered: usize,
            reach_branches: usize,
            reach_covered: usize,
            carved_calls: usize,
            generated_calls: usize,
            executions: u64,
            failures: usize,
        }
        #[derive(Serialize)]
        struct JsonFunction {
            name: String,
            kind: Kind,
            branches: usize,
            covered: usize,
            reached_from: Vec<String>,
        }
        let json = Json {
            seed: self.seed,
            targets: self
                .targets
                .iter()
                .map(|t| {
                    let own = &self.functions[t.function];
                    let reach = self.totals(&t.reach);
                    JsonTarget {
                        name: &t.name,
                        branches: own.total(),
                        covered: own.covered_by.len(),
                        reach_branches: reach.branches,
                        reach_covered: reach.covered,
                        carved_calls: t.carved_calls,
                        generated_calls: t.generated_calls,
                        executions: t.executions,
                        failures: t.failures,
                    }
                })
                .collect(),
            functions: self
                .functions
                .iter()
                .map(|f| JsonFunction {
                    name: f.name(),
                    kind: f.kind,
                    branches: f.total(),
                    covered: f.covered_by.len(),
                    reached_from: f.reached_from.iter().cloned().collect(),
                })
                .collect(),
            total: self.total(),
        };
        let mut text = serde_json::to_string_pretty(&json)
            .unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"));
        text.push('\n');
        text
    }

    /// Source listings of the functions whose name contains `filter` (all
    /// when empty), each line with a missed outcome marked `#` and followed
    /// by what it misses.
    pub fn annotate(&self, filter: &str) -> String {
        let mut out = String::new();
        for f in self.functions.iter().filter(|f| f.name().contains(filter)) {
            out.push_str(&annotate_function(f));
        }
        out
    }
}

fn annotate_function(f: &FunctionCoverage) -> String {
    let share = match f.percent() {
        Some(p) => format!(
            "{}/{} branch outcomes covered ({p:.1}%)",
            f.covered_by.len(),
            f.total()
        ),
        None => "no branch outcomes".to_owned(),
    };
    let mut out = format!("\n{}: {share}, {}\n", f.name(), f.sites.file);
    let Some(source) = find_source(f.sites.file).and_then(|p| std::fs::read_to_string(p).ok())
    else {
        out.push_str("  (source not found; missed outcomes:)\n");
        for id in f.missing() {
            let _ = writeln!(out, "  {} missed {}", f.sites.location(id), f.describe(id));
        }
        return out;
    };
    let (first, last) = f.sites.lines;
    let mut missed_by_line: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    for id in f.missing() {
        missed_by_line
            .entry(f.sites.branches[id as usize].line)
            .or_default()
            .push(id);
    }
    for (n, line) in source.lines().enumerate() {
        let n = n as u32 + 1;
        if n < first || n > last {
            continue;
        }
        let missed = missed_by_line.get(&n);
        let _ = writeln!(
            out,
            "{} {n:>4} {line}",
            if missed.is_some() { '#' } else { ' ' }
        );
        for id in missed.into_iter().flatten() {
            let col = f.sites.branches[*id as usize].col as usize;
            let distance = match f.best_distance.get(id) {
                Some(d) => format!(" (closest distance {d})"),
                None => " (never reached)".to_owned(),
            };
            let _ = writeln!(
                out,
                "       {}^ missed: {}{distance}",
                " ".repeat(col.saturating_sub(1)),
                f.describe(*id)
            );
        }
    }
    out
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
    use super::*;
    use crate::coverage;
    use crate::registry::{Branch, BranchKind, Side};

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

    #[test]
    fn totals_show_a_dash_when_there_is_nothing_to_cover() {
        let none = Totals::default();
        assert_eq!(none.percent(), None);
        assert!(none.show().trim_start().starts_with('-'));
        let some = Totals {
            branches: 4,
            covered: 3,
        };
        assert_eq!(
            some.show().split_whitespace().collect::<Vec<_>>(),
            ["3/4", "75.0%"]
        );
    }
}
