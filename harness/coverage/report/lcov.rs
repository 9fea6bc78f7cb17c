//! The lcov tracefile of a [`Report`] (`CARVE_LCOV`), for the tools that
//! read lcov: `genhtml`, `lcov --summary`, Codecov, Coveralls, editor
//! gutters.
//!
//! What each record holds, for the instrumented functions of one source file
//! (functions compiled uninstrumented, `const fn` and `async fn`, are left
//! out: carve knows nothing of them):
//!
//! - `FN`/`FNDA`: each function at its first line, with the passing calls
//!   that entered it.
//! - `BRDA:<line>,<block>,<branch>,<taken>`: one per branch outcome, so `BRF`
//!   and `BRH` are carve's own branch counts. `taken` is the number of
//!   passing calls that took the outcome; `0` when none did though its
//!   branch ran (its control-dependence parent was taken, or it has none and
//!   the function was entered), `-` when its branch never ran. A block is one
//!   branch of a line: the outcomes of one condition or pattern.
//! - `DA`: carve measures branches, not lines: the lines it knows ran are the
//!   function's first line (calls that entered it) and the lines of its
//!   branches (calls that reached them). Other lines are not listed, so
//!   `LF`/`LH` count those lines only.
//!
//! Only calls that returned count, as in every carve report: a call that
//! panicked covers nothing. `SF` is an absolute path where the source is
//! found (genhtml reads it from anywhere; Codecov and Coveralls map absolute
//! paths of a CI checkout onto the repository), else the path rustc gave.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use super::{find_source, FunctionCoverage, Report};

impl Report {
    /// The lcov tracefile of every instrumented function.
    pub fn to_lcov(&self) -> String {
        self.lcov_with(|file| {
            find_source(file)
                .map(|p| p.display().to_string())
                .unwrap_or_else(|| file.to_owned())
        })
    }

    /// The tracefile with `SF` paths made by `source_file` from the paths
    /// rustc gave (`file!()`).
    fn lcov_with(&self, source_file: impl Fn(&str) -> String) -> String {
        let mut files: BTreeMap<String, Vec<&FunctionCoverage>> = BTreeMap::new();
        for f in &self.functions {
            if f.sites.uninstrumented.is_none() {
                files.entry(source_file(f.sites.file)).or_default().push(f);
            }
        }
        let mut out = String::new();
        for (path, mut functions) in files {
            functions.sort_by_key(|f| (f.sites.lines, f.name()));
            out.push_str(&record(&path, &functions));
        }
        out
    }
}

/// Where one outcome is and whether it ran.
#[derive(Default)]
struct LineRun<'a> {
    /// An outcome on the line is reached whenever its function runs.
    whole: bool,
    /// Else, the passing calls that took a parent of its outcomes.
    tests: BTreeSet<&'a str>,
}

/// One `SF` … `end_of_record` block: the functions of one file.
fn record(path: &str, functions: &[&FunctionCoverage]) -> String {
    let mut out = format!("TN:\nSF:{path}\n");
    // line → how many passing calls ran it (the largest count where two
    // functions share a line).
    let mut lines: BTreeMap<u32, usize> = BTreeMap::new();
    // (line, block, branch) → taken.
    let mut branches: BTreeMap<(u32, usize, usize), String> = BTreeMap::new();
    // Blocks of a line so far, by (function, column, condition, kind).
    let mut blocks: BTreeMap<u32, Vec<(usize, u32, &str, &str)>> = BTreeMap::new();
    for (index, f) in functions.iter().enumerate() {
        let first = f.sites.lines.0.max(1);
        let name = f.name();
        // `FN:<line>,<name>`: the form every lcov reader takes.
        let _ = writeln!(out, "FN:{first},{name}");
        let _ = writeln!(out, "FNDA:{},{name}", f.entered);
        let entry = lines.entry(first).or_default();
        *entry = (*entry).max(f.entered);
        let mut runs: BTreeMap<u32, LineRun<'_>> = BTreeMap::new();
        let mut within: BTreeMap<(u32, usize), usize> = BTreeMap::new();
        for (id, b) in f.sites.branches.iter().enumerate() {
            // Outcomes of macro-made code may have no line: the function's.
            let line = if b.line == 0 { first } else { b.line };
            let key = (index, b.col, b.condition, b.kind.as_str());
            let line_blocks = blocks.entry(line).or_default();
            let block = match line_blocks.iter().position(|k| *k == key) {
                Some(block) => block,
                None => {
                    line_blocks.push(key);
                    line_blocks.len() - 1
                }
            };
            let branch = within.entry((line, block)).or_default();
            let run = runs.entry(line).or_default();
            let parent_tests = b.parent().and_then(|p| f.covered_by.get(&p));
            let branch_ran = match b.parent() {
                None => {
                    run.whole = true;
                    f.entered > 0
                }
                Some(_) => {
                    run.tests.extend(parent_tests.into_iter().flatten().map(String::as_str));
                    parent_tests.is_some_and(|t| !t.is_empty())
                }
            };
            let taken = match f.covered_by.get(&(id as u32)) {
                Some(tests) if !tests.is_empty() => tests.len().to_string(),
                _ if branch_ran => "0".to_owned(),
                _ => "-".to_owned(),
            };
            branches.insert((line, block, *branch), taken);
            *branch += 1;
        }
        for (line, run) in runs {
            let count = if run.whole { f.entered } else { run.tests.len() };
            let entry = lines.entry(line).or_default();
            *entry = (*entry).max(count);
        }
    }
    let hit = functions.iter().filter(|f| f.entered > 0).count();
    let _ = writeln!(out, "FNF:{}\nFNH:{hit}", functions.len());
    for ((line, block, branch), taken) in &branches {
        let _ = writeln!(out, "BRDA:{line},{block},{branch},{taken}");
    }
    let taken = branches
        .values()
        .filter(|t| !matches!(t.as_str(), "0" | "-"))
        .count();
    let _ = writeln!(out, "BRF:{}\nBRH:{taken}", branches.len());
    for (line, count) in &lines {
        let _ = writeln!(out, "DA:{line},{count}");
    }
    let ran = lines.values().filter(|c| **c > 0).count();
    let _ = writeln!(out, "LF:{}\nLH:{ran}\nend_of_record", lines.len());
    out
}

#[cfg(test)]
mod tests {
    use super::super::{FunctionCoverage, Kind, Report, TargetCoverage};
    use crate::coverage::{self, Op, Trace};
    use crate::registry::{Branch, BranchKind, Side, Sites};
    use std::collections::{BTreeMap, BTreeSet};

    const fn branch(condition: &'static str, side: Side, line: u32, parent: u32) -> Branch {
        Branch {
            kind: BranchKind::Condition,
            condition,
            side,
            line,
            col: 8,
            parent,
        }
    }

    // fn sign(x: i64) -> i64 {      // line 1
    //     if x > 0 {                // line 2: outcomes 0, 1
    //         if x > 9 { .. }       // line 3: outcomes 2, 3 (under 0)
    //     } else if x < -9 { .. }   // line 4: outcomes 4, 5 (under 1)
    // }
    const SIGN: [Branch; 6] = [
        branch("x > 0", Side::True, 2, u32::MAX),
        branch("x > 0", Side::False, 2, u32::MAX),
        branch("x > 9", Side::True, 3, 0),
        branch("x > 9", Side::False, 3, 0),
        branch("x < -9", Side::True, 4, 1),
        branch("x < -9", Side::False, 4, 1),
    ];
    static SIGN_SITES: Sites = Sites::new("krate::m", "sign", "src/m.rs", (1, 6), &SIGN, &[]);
    // A helper in the same file no call entered, and one in another file.
    const UNUSED_BRANCHES: [Branch; 2] = [
        branch("y", Side::True, 9, u32::MAX),
        branch("y", Side::False, 9, u32::MAX),
    ];
    static UNUSED: Sites = Sites::new("krate::m", "unused", "src/m.rs", (8, 10), &UNUSED_BRANCHES, &[]);
    static OTHER: Sites = Sites::new("krate::n", "other", "src/n.rs", (1, 3), &[], &[]);
    static ASYNC: Sites =
        Sites::new("krate::n", "later", "src/n.rs", (5, 7), &[], &[]).uninstrumented("async fn");

    /// A call of `sign(x)`.
    fn sign(x: i64) -> Trace {
        coverage::collect(|| {
            coverage::enter(&SIGN_SITES);
            if coverage::compare(&SIGN_SITES, 0, x > 0, Op::Gt, None) {
                coverage::compare(&SIGN_SITES, 2, x > 9, Op::Gt, None);
            } else {
                coverage::compare(&SIGN_SITES, 4, x < -9, Op::Lt, None);
            }
        })
        .1
    }

    fn report() -> Report {
        let mut f = FunctionCoverage::new(&SIGN_SITES);
        f.kind = Kind::Target;
        for (test, x, passed) in [("a", 5, true), ("b", 50, true), ("c", 7, true), ("d", -1, false)] {
            f.add(test, &sign(x), passed);
        }
        let functions = vec![
            f,
            FunctionCoverage::new(&UNUSED),
            FunctionCoverage::new(&OTHER),
            FunctionCoverage::new(&ASYNC),
        ];
        Report {
            seed: 1,
            functions,
            targets: vec![TargetCoverage {
                name: "m::sign".to_owned(),
                function: 0,
                reach: BTreeSet::from([0]),
                carved_calls: 4,
                generated_calls: 0,
                executions: 4,
                failures: 0,
            }],
            calls: BTreeMap::new(),
            failures: Vec::new(),
        }
    }

    #[test]
    fn every_outcome_is_one_brda_with_the_passing_calls_that_took_it() {
        let lcov = report().lcov_with(|file| format!("/p/{file}"));
        // x > 0: taken by a, b, c; its false side only by d, which
        // panicked: 0. x > 9: b took it, a and c not. x < -9: its parent
        // (x > 0 false) was never taken by a passing call: `-`.
        insta::assert_snapshot!(lcov, @r"
        TN:
        SF:/p/src/m.rs
        FN:1,m::sign
        FNDA:3,m::sign
        FN:8,m::unused
        FNDA:0,m::unused
        FNF:2
        FNH:1
        BRDA:2,0,0,3
        BRDA:2,0,1,0
        BRDA:3,0,0,1
        BRDA:3,0,1,2
        BRDA:4,0,0,-
        BRDA:4,0,1,-
        BRDA:9,0,0,-
        BRDA:9,0,1,-
        BRF:8
        BRH:3
        DA:1,3
        DA:2,3
        DA:3,3
        DA:4,0
        DA:8,0
        DA:9,0
        LF:6
        LH:3
        end_of_record
        TN:
        SF:/p/src/n.rs
        FN:1,n::other
        FNDA:0,n::other
        FNF:1
        FNH:0
        BRF:0
        BRH:0
        DA:1,0
        LF:1
        LH:0
        end_of_record
        ");
    }

    #[test]
    fn branch_counts_are_the_reports_own() {
        let report = report();
        let lcov = report.lcov_with(str::to_owned);
        let sum = |key: &str| -> usize {
            lcov.lines()
                .filter_map(|l| l.strip_prefix(key))
                .map(|n| n.parse::<usize>().unwrap())
                .sum()
        };
        let total = report.total();
        assert_eq!((sum("BRH:"), sum("BRF:")), (total.covered, total.branches));
        assert_eq!((total.covered, total.branches), (3, 8));
        let brda = lcov.lines().filter(|l| l.starts_with("BRDA:")).count();
        assert_eq!(brda, total.branches);
    }

    #[test]
    fn outcomes_of_two_conditions_on_one_line_are_two_blocks() {
        // `if a > 1 && b > 2` on line 2: two conditions, one line.
        const TWO: [Branch; 4] = [
            branch("a > 1", Side::True, 2, u32::MAX),
            branch("a > 1", Side::False, 2, u32::MAX),
            Branch {
                col: 20,
                ..branch("b > 2", Side::True, 2, 0)
            },
            Branch {
                col: 20,
                ..branch("b > 2", Side::False, 2, 0)
            },
        ];
        static SITES: Sites = Sites::new("k::m", "both", "m.rs", (0, 3), &TWO, &[]);
        let (_, trace) = coverage::collect(|| {
            coverage::enter(&SITES);
            coverage::compare(&SITES, 0, false, Op::Gt, None)
        });
        let mut f = FunctionCoverage::new(&SITES);
        f.add("t", &trace, true);
        let report = Report {
            functions: vec![f],
            targets: Vec::new(),
            ..report()
        };
        let lcov = report.lcov_with(str::to_owned);
        let lines: Vec<&str> = lcov
            .lines()
            .filter(|l| l.starts_with("BRDA:") || l.starts_with("DA:") || l.starts_with("FN:"))
            .collect();
        // A function without a first line (0) is put at line 1.
        assert_eq!(
            lines,
            [
                "FN:1,m::both",
                "BRDA:2,0,0,0",
                "BRDA:2,0,1,1",
                "BRDA:2,1,0,-",
                "BRDA:2,1,1,-",
                "DA:1,1",
                "DA:2,1"
            ]
        );
    }
}
