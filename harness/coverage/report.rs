//! Coverage reports: which branch outcomes of each target the carved and
//! generated calls cover, and by which tests.
//!
//! Replayed calls log their [`Trace`] here; after the tests ran, the runner
//! builds a [`Report`] and prints its summary, writes its JSON
//! (`CARVE_REPORT`) and, on request (`CARVE_ANNOTATE`), an annotated source
//! listing that marks what no test reaches.
//!
//! ```
//! use carve::coverage::report::TargetCoverage;
//! # static SITES: carve::registry::Sites = carve::registry::Sites::new("c::m", "f", "f.rs", (1, 2), &[], &[]);
//! let mut cov = TargetCoverage::new("m::f".into(), &SITES);
//! assert_eq!(cov.total(), 0);
//! assert!(cov.missing().is_empty());
//! ```

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::coverage::Trace;
use crate::registry::Registry;
use crate::registry::Sites;

/// The coverage of one replayed (or generated) call.
#[derive(Debug, Clone)]
pub struct CallCoverage {
    /// The test that made the call (`carved::cgi::cgi_decode::0001`).
    pub test: String,
    /// The target called.
    pub target: String,
    /// Whether the call was generated (else carved).
    pub generated: bool,
    /// What it reached.
    pub trace: Trace,
}

static LOG: Mutex<Vec<CallCoverage>> = Mutex::new(Vec::new());

/// Logs a call's coverage for the report.
pub fn log(call: CallCoverage) {
    LOG.lock().unwrap_or_else(|e| e.into_inner()).push(call);
}

static GENERATION: Mutex<BTreeMap<String, (u64, usize)>> = Mutex::new(BTreeMap::new());

/// Notes what generation did for `target`: executions and failures found.
pub fn note_generation(target: &str, executions: u64, failures: usize) {
    let mut stats = GENERATION.lock().unwrap_or_else(|e| e.into_inner());
    let entry = stats.entry(target.to_owned()).or_default();
    entry.0 += executions;
    entry.1 += failures;
}

/// Takes everything logged so far.
pub fn take_log() -> Vec<CallCoverage> {
    std::mem::take(&mut *LOG.lock().unwrap_or_else(|e| e.into_inner()))
}

/// Coverage of one target's branch outcomes.
#[derive(Debug, Clone)]
pub struct TargetCoverage {
    /// The target's name.
    pub name: String,
    /// Its outcomes.
    pub sites: &'static Sites,
    /// The tests that took each covered outcome.
    pub covered_by: BTreeMap<u32, BTreeSet<String>>,
    /// The smallest distance seen to each reached outcome.
    pub best_distance: BTreeMap<u32, f64>,
    /// Carved calls replayed.
    pub carved_calls: usize,
    /// Generated calls replayed.
    pub generated_calls: usize,
    /// Executions of the target (replays and generation).
    pub executions: usize,
    /// Distinct failing inputs found by generation.
    pub failures: usize,
}

impl TargetCoverage {
    /// Nothing covered yet.
    pub fn new(name: String, sites: &'static Sites) -> TargetCoverage {
        TargetCoverage {
            name,
            sites,
            covered_by: BTreeMap::new(),
            best_distance: BTreeMap::new(),
            carved_calls: 0,
            generated_calls: 0,
            executions: 0,
            failures: 0,
        }
    }

    /// Adds one call made by `test`.
    pub fn add(&mut self, test: &str, trace: &Trace) {
        for (id, distance) in trace.reached(self.sites) {
            let best = self.best_distance.entry(id).or_insert(f64::INFINITY);
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

    /// Outcomes some test took.
    pub fn covered(&self) -> BTreeSet<u32> {
        self.covered_by.keys().copied().collect()
    }

    /// Outcomes no test took.
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

    /// `covered / total` in percent (100 when there is nothing to cover).
    pub fn percent(&self) -> f64 {
        if self.total() == 0 {
            100.0
        } else {
            100.0 * self.covered_by.len() as f64 / self.total() as f64
        }
    }

    /// `` `c == '%'` true `` for outcome `id`.
    pub fn describe(&self, id: u32) -> String {
        let b = &self.sites.branches[id as usize];
        format!("`{}` {}", b.condition, b.outcome)
    }
}

/// Coverage of every target of a test binary.
#[derive(Debug, Clone)]
pub struct Report {
    /// The seed of the run.
    pub seed: u64,
    /// Per target, sorted by name.
    pub targets: Vec<TargetCoverage>,
}

impl Report {
    /// Builds the report of every registered target from logged calls.
    pub fn build(registry: &Registry, calls: &[CallCoverage], seed: u64) -> Report {
        let mut targets: BTreeMap<String, TargetCoverage> = registry
            .targets()
            .map(|(name, t)| {
                (
                    name.to_owned(),
                    TargetCoverage::new(name.to_owned(), t.sites),
                )
            })
            .collect();
        for call in calls {
            if let Some(cov) = targets.get_mut(&call.target) {
                cov.add(&call.test, &call.trace);
                cov.executions += 1;
                if call.generated {
                    cov.generated_calls += 1;
                } else {
                    cov.carved_calls += 1;
                }
            }
        }
        Report {
            seed,
            targets: targets.into_values().collect(),
        }
    }

    /// One line per target: covered/total outcomes and percent.
    pub fn summary(&self) -> String {
        let width = self.targets.iter().map(|t| t.name.len()).max().unwrap_or(0);
        let mut out =
            String::from("carve: branch coverage of targets by carved and generated calls\n");
        for t in &self.targets {
            let _ = writeln!(
                out,
                "  {:width$}  {:>3}/{:<3} {:>5.1}%  ({} carved, {} generated calls)",
                t.name,
                t.covered_by.len(),
                t.total(),
                t.percent(),
                t.carved_calls,
                t.generated_calls,
            );
        }
        out
    }

    /// The JSON report of the contract.
    pub fn to_json(&self) -> String {
        let mut out = format!("{{ \"seed\": {},\n  \"targets\": [", self.seed);
        for (i, t) in self.targets.iter().enumerate() {
            let _ = write!(
                out,
                "{}\n    {{ \"name\": {}, \"branches\": {}, \"covered\": {}, \"carved_calls\": {}, \
                 \"generated_calls\": {}, \"executions\": {}, \"failures\": {} }}",
                if i == 0 { "" } else { "," },
                json_string(&t.name),
                t.total(),
                t.covered_by.len(),
                t.carved_calls,
                t.generated_calls,
                t.executions,
                t.failures,
            );
        }
        out.push_str("\n  ] }\n");
        out
    }

    /// Source listings of the targets whose name contains `filter` (all when
    /// empty), each line with a missed outcome marked `#` and followed by
    /// what it misses.
    pub fn annotate(&self, filter: &str) -> String {
        let mut out = String::new();
        for t in self.targets.iter().filter(|t| t.name.contains(filter)) {
            out.push_str(&annotate_target(t));
        }
        out
    }
}

fn annotate_target(t: &TargetCoverage) -> String {
    let mut out = format!(
        "\n{}: {}/{} branch outcomes covered ({:.1}%), {}\n",
        t.name,
        t.covered_by.len(),
        t.total(),
        t.percent(),
        t.sites.file
    );
    let Some(source) = find_source(t.sites.file).and_then(|p| std::fs::read_to_string(p).ok())
    else {
        out.push_str("  (source not found; missed outcomes:)\n");
        for id in t.missing() {
            let _ = writeln!(out, "  {} missed {}", t.sites.location(id), t.describe(id));
        }
        return out;
    };
    let (first, last) = t.sites.lines;
    let mut missed_by_line: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    for id in t.missing() {
        missed_by_line
            .entry(t.sites.branches[id as usize].line)
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
            let col = t.sites.branches[*id as usize].col as usize;
            let distance = match t.best_distance.get(id) {
                Some(d) => format!(" (closest distance {d})"),
                None => " (never reached)".to_owned(),
            };
            let _ = writeln!(
                out,
                "       {}^ missed: {}{distance}",
                " ".repeat(col.saturating_sub(1)),
                t.describe(*id)
            );
        }
    }
    out
}

/// `file!()` paths are relative to the workspace root, tests run in the
/// package root: look in the working directory and its ancestors.
fn find_source(file: &str) -> Option<PathBuf> {
    let cwd = std::env::current_dir().ok()?;
    cwd.ancestors()
        .map(|dir| dir.join(file))
        .find(|p| p.is_file())
        .or_else(|| {
            let p = Path::new(file);
            p.is_file().then(|| p.to_owned())
        })
}

fn json_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coverage;
    use crate::registry::Branch;

    static SITES: Sites = Sites::new(
        "krate::m",
        "f",
        "f.rs",
        (1, 3),
        &[
            Branch {
                kind: "condition",
                condition: "x > 0",
                outcome: "true",
                line: 2,
                col: 8,
                parent: u32::MAX,
            },
            Branch {
                kind: "condition",
                condition: "x > 0",
                outcome: "false",
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
        let mut cov = TargetCoverage::new("m::f".into(), &SITES);
        cov.add("a", &positive);
        assert_eq!(cov.missing(), BTreeSet::from([1]));
        cov.add("b", &negative);
        assert_eq!(cov.covered_by_test("a"), BTreeSet::from([0]));
        let only_b: BTreeSet<u32> = cov
            .covered_by_test("b")
            .difference(&cov.covered_by_test("a"))
            .copied()
            .collect();
        assert_eq!(only_b, BTreeSet::from([1]));
        assert_eq!(cov.percent(), 100.0);
        assert_eq!(cov.describe(1), "`x > 0` false");
    }

    #[test]
    fn json_escapes_names() {
        assert_eq!(json_string("a\"b\\c\n"), "\"a\\\"b\\\\c\\u000a\"");
    }
}
