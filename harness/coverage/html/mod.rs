//! The HTML coverage report (`CARVE_HTML=<dir>`): static, self-contained
//! pages (inline CSS and SVG, no scripts, no external assets) that work
//! from `file://`.
//!
//! - `index.html`: one row per instrumented function, targets and helpers,
//!   with its outcomes covered/total, its boundaries and weak mutants
//!   killed (apart from the outcomes), calls and failures, and the total;
//!   then the found failures. `missed.html` is the same table sorted by
//!   most missed outcomes (two pages rather than a script: sorting works
//!   without JavaScript).
//! - `functions/<name>.html`: the annotated source of one function. Lines
//!   with a missed outcome are highlighted; each condition carries its
//!   outcomes as badges (✓ covered, ✗ missed); a covered badge opens to the
//!   calls that took it, a missed one to its closest distance and the call
//!   that came closest. Missed boundaries and surviving mutants are listed,
//!   and marked under their line. A target's page plots its last
//!   generation run.
//!
//! Markup is written with maud, which escapes every value it is given:
//! source lines, arguments and names are never escaped by hand. Everything
//! shown comes from the [`Report`] (the same numbers as the JSON report) and
//! the generation [`RunHistory`] of each target.

mod chart;

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use maud::{html, Markup, PreEscaped, DOCTYPE};

use crate::coverage::goals::GoalKind;
use crate::coverage::report::{
    show_distance,find_source, FunctionCoverage, GoalCoverage, GoalTotals, Kind, Report, Totals};
use crate::coverage::history::RunHistory;
use crate::registry::{Branch, BranchKind};

/// The stylesheet, inlined into every page.
const STYLE: &str = include_str!("style.css");
/// Calls listed under one covered outcome; the rest are counted.
const CALLS_LISTED: usize = 12;

/// A page of the report: its path inside the report folder and its HTML.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    /// `index.html`, `functions/decode.cgi_decode.html`, ….
    pub path: PathBuf,
    /// The whole document.
    pub html: String,
}

/// Writing the report failed.
#[derive(Debug)]
pub struct HtmlError {
    path: PathBuf,
    error: io::Error,
}

impl fmt::Display for HtmlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "cannot write the HTML report to {}: {}",
            self.path.display(),
            self.error
        )
    }
}

impl std::error::Error for HtmlError {}

/// Writes the report's pages into `dir` (created if needed) and returns the
/// path of its index. Pages of functions that no longer exist are removed
/// from `dir/functions`; nothing else there is touched.
pub fn write(
    report: &Report,
    histories: &BTreeMap<String, RunHistory>,
    dir: &Path,
) -> Result<PathBuf, HtmlError> {
    let sources = read_sources(report);
    let pages = render(report, histories, &sources);
    let error = |path: &Path| {
        let path = path.to_path_buf();
        move |error| HtmlError { path, error }
    };
    let functions = dir.join("functions");
    std::fs::create_dir_all(&functions).map_err(error(&functions))?;
    let written: HashSet<PathBuf> = pages.iter().map(|p| dir.join(&p.path)).collect();
    for page in &pages {
        let path = dir.join(&page.path);
        std::fs::write(&path, &page.html).map_err(error(&path))?;
    }
    if let Ok(read) = std::fs::read_dir(&functions) {
        for path in read.flatten().map(|e| e.path()) {
            if path.extension().is_some_and(|e| e == "html") && !written.contains(&path) {
                let _ = std::fs::remove_file(&path);
            }
        }
    }
    Ok(dir.join("index.html"))
}

/// The source text of every file an instrumented function is in, by its
/// `file!()` path; files not found are left out (their pages list the
/// outcomes without source).
fn read_sources(report: &Report) -> BTreeMap<&'static str, String> {
    let files: BTreeSet<&'static str> = report.functions.iter().map(|f| f.sites.file).collect();
    files
        .into_iter()
        .filter_map(|file| {
            let text = std::fs::read_to_string(find_source(file)?).ok()?;
            Some((file, text))
        })
        .collect()
}

/// Every page of the report, from the report, the last generation run of
/// each target, and the sources by `file!()` path.
pub fn render(
    report: &Report,
    histories: &BTreeMap<String, RunHistory>,
    sources: &BTreeMap<&'static str, String>,
) -> Vec<Page> {
    let names = file_names(report);
    let mut pages = vec![
        Page {
            path: "index.html".into(),
            html: index(report, &names, Order::Name).into_string(),
        },
        Page {
            path: "missed.html".into(),
            html: index(report, &names, Order::Missed).into_string(),
        },
    ];
    for (i, f) in report.functions.iter().enumerate() {
        let history = report
            .target_at(i)
            .and_then(|t| histories.get(&t.name));
        pages.push(Page {
            path: Path::new("functions").join(&names[i]),
            html: function_page(report, i, history, sources.get(f.sites.file)).into_string(),
        });
    }
    pages
}

/// The file name of each function's page, in the order of
/// `report.functions`: its name with `::` as `.` and anything but letters,
/// digits, `_`, `-` and `.` as `_`; a name taken already (two functions of
/// one name, or names that differ only in case, which some file systems
/// confuse) gets a number.
fn file_names(report: &Report) -> Vec<String> {
    let mut taken = HashSet::new();
    report
        .functions
        .iter()
        .map(|f| {
            let base: String = f
                .name()
                .replace("::", ".")
                .chars()
                .map(|c| match c {
                    'a'..='z' | 'A'..='Z' | '0'..='9' | '_' | '-' | '.' => c,
                    _ => '_',
                })
                .collect();
            let mut name = format!("{base}.html");
            let mut n = 2;
            while !taken.insert(name.to_lowercase()) {
                name = format!("{base}-{n}.html");
                n += 1;
            }
            name
        })
        .collect()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Order {
    Name,
    Missed,
}

fn page(title: &str, body: Markup) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) }
                // A constant of this crate, not data: nothing to escape.
                style { (PreEscaped(STYLE)) }
            }
            body { (body) }
        }
    }
}

fn percent(covered: usize, total: usize) -> Option<f64> {
    (total > 0).then(|| 100.0 * covered as f64 / total as f64)
}

/// `covered/total` with a bar and the percentage; a dash when there is
/// nothing to cover.
fn share(totals: Totals) -> Markup {
    let Totals {
        branches, covered, ..
    } = totals;
    html! {
        @match percent(covered, branches) {
            Some(p) => {
                span.bar role="img" aria-label=(format!("{p:.1}% covered")) {
                    span style=(format!("width:{p:.1}%")) {}
                }
                span.covered { (covered) "/" (branches) }
                " "
                span.muted { (format!("{p:.1}%")) }
            }
            None => span.muted title="no branch outcomes" { "–" }
        }
    }
}

/// `met/total` boundaries or weak mutants killed, with the percentage; a
/// dash when there are none. No bar: these are not branch coverage.
fn goal_share(goals: GoalTotals, kind: GoalKind) -> Markup {
    let (met, total) = goals.of(kind);
    let none = match kind {
        GoalKind::Boundary => "no boundaries",
        GoalKind::Mutant => "no mutants",
    };
    html! {
        @match percent(met, total) {
            Some(p) => {
                span.goals data-kind=(kind.as_str()) { (met) "/" (total) }
                " "
                span.muted { (format!("{p:.0}%")) }
            }
            None => span.muted title=(none) { "–" }
        }
    }
}

/// `boundaries 3/5 · weak mutants killed 14/16` for a page's header.
fn goal_summary(goals: GoalTotals) -> Markup {
    html! {
        div { "boundaries: " (goal_share(goals, GoalKind::Boundary)) }
        div { "weak mutants killed: " (goal_share(goals, GoalKind::Mutant)) }
    }
}

fn own(f: &FunctionCoverage) -> Totals {
    f.totals()
}

fn index(report: &Report, names: &[String], order: Order) -> Markup {
    let mut rows: Vec<usize> = (0..report.functions.len()).collect();
    if order == Order::Missed {
        // Most missed first; then by name (the report's order) among equals.
        rows.sort_by_key(|&i| std::cmp::Reverse(report.functions[i].missing().len()));
    }
    let total = report.total();
    let link = |i: usize| format!("functions/{}", names[i]);
    let failures_of = |target: &str| report.failures.iter().filter(|f| f.target == target).count();
    let body = html! {
        header {
            h1 { "carve: branch coverage" }
            div.summary.big {
                div { "all instrumented functions: " (share(total)) }
                (goal_summary(total.goals))
                div { (report.functions.len()) " functions, " (report.targets.len()) " targets" }
                div.muted { "seed " (report.seed) }
            }
        }
        nav.sort {
            "Sort: "
            @if order == Order::Name { strong { "by name" } } @else { a href="index.html" { "by name" } }
            @if order == Order::Missed { strong { "by most missed outcomes" } } @else { a href="missed.html" { "by most missed outcomes" } }
        }
        div.scroll {
            table.functions data-order=(match order { Order::Name => "name", Order::Missed => "missed" }) {
                thead {
                    tr {
                        th { "function" }
                        th { "kind" }
                        th { "outcomes covered" }
                        th.num { "missed" }
                        th.num title="comparisons' boundaries met by a passing call, of those that apply (counted apart from outcomes)" { "boundaries" }
                        th.num title="weak mutants (operators replaced, conditions negated) killed by a passing call, of those that apply" { "mutants killed" }
                        th.num title="carved calls replayed" { "carved" }
                        th.num title="generated calls replayed" { "generated" }
                        th.num title="distinct failing inputs generation found in this run; ✗ open: found failures that still fail" { "failures" }
                        th.wide { "reach / reached from" }
                    }
                }
                tbody {
                    @for &i in &rows {
                        @let f = &report.functions[i];
                        @let target = report.target_at(i);
                        @let open = target.map_or(0, |t| failures_of(&t.name));
                        @let goals = f.goal_totals();
                        tr data-function=(f.name()) data-kind=(f.kind.as_str())
                            data-branches=(f.total()) data-covered=(f.covered_by.len())
                            data-boundaries=(goals.boundaries) data-boundaries-covered=(goals.boundaries_covered)
                            data-mutants=(goals.mutants) data-mutants-killed=(goals.mutants_killed)
                            data-carved=[target.map(|t| t.carved_calls)]
                            data-generated=[target.map(|t| t.generated_calls)]
                            data-failures=[target.map(|t| t.failures)] {
                            td { a href=(link(i)) { code { (f.name()) } } }
                            td { span class=(format!("kind {}", f.kind.as_str())) { (f.kind.as_str()) } }
                            td { (share(own(f))) }
                            td.num { @if f.total() > 0 { (f.missing().len()) } }
                            td.num { (goal_share(goals, GoalKind::Boundary)) }
                            td.num { (goal_share(goals, GoalKind::Mutant)) }
                            td.num { @if let Some(t) = target { (t.carved_calls) } }
                            td.num { @if let Some(t) = target { (t.generated_calls) } }
                            td.num {
                                @if let Some(t) = target { span.found { (t.failures) } }
                                @if open > 0 { " " a.fail href="#failures" { "✗ " (open) " open" } }
                            }
                            td.wide {
                                @match (f.kind, target) {
                                    (Kind::Target, Some(t)) if !t.called() => span.muted { "not called" },
                                    (Kind::Target, Some(t)) => { "reach " (share(report.totals(&t.reach))) }
                                    _ if f.reached_from.is_empty() => span.muted { "not reached" },
                                    _ => {
                                        @for (n, from) in f.reached_from.iter().enumerate() {
                                            @if n > 0 { ", " }
                                            @match target_function(report, from) {
                                                Some(j) => a href=(link(j)) { code { (from) } },
                                                None => code { (from) },
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
                tfoot {
                    tr.total data-branches=(total.branches) data-covered=(total.covered)
                        data-boundaries=(total.goals.boundaries) data-boundaries-covered=(total.goals.boundaries_covered)
                        data-mutants=(total.goals.mutants) data-mutants-killed=(total.goals.mutants_killed) {
                        td { "total" }
                        td {}
                        td { (share(total)) }
                        td.num { (total.branches - total.covered) }
                        td.num { (goal_share(total.goals, GoalKind::Boundary)) }
                        td.num { (goal_share(total.goals, GoalKind::Mutant)) }
                        td.num { (report.targets.iter().map(|t| t.carved_calls).sum::<usize>()) }
                        td.num { (report.targets.iter().map(|t| t.generated_calls).sum::<usize>()) }
                        td.num { (report.targets.iter().map(|t| t.failures).sum::<usize>()) }
                        td.wide {}
                    }
                }
            }
        }
        h2 id="failures" { "Found failures" }
        @if report.failures.is_empty() {
            p.muted { "No found failure fails any more (or none was replayed in this run)." }
        } @else {
            div.scroll {
                table.failures {
                    thead { tr { th { "target" } th { "kind" } th { "location" } th { "minimized input" } th.wide { "message" } } }
                    tbody {
                        @for failure in &report.failures {
                            @let page = target_function(report, &failure.target);
                            tr data-test=(failure.test) {
                                td { @match page { Some(j) => a href=(link(j)) { code { (failure.target) } }, None => code { (failure.target) } } }
                                td.fail { "✗ " (failure.kind.class()) }
                                td { code { (failure.at) } }
                                td { code { (failure.call) } br; span.muted { (failure.test) } }
                                td.wide { (failure.message) }
                            }
                        }
                    }
                }
            }
        }
        p.muted { "Outcomes count true and false of every condition, matched and not matched of every pattern, entered and left of every loop, and each match arm. Boundaries (operands equal at a comparison; one step either side of == and !=) and weak mutants (an operator replaced, && swapped with ||, a condition negated, killed when the condition's value would differ) are counted apart, never in the outcomes. Written by carve (CARVE_HTML)." }
    };
    page("carve: branch coverage", body)
}

/// The outcomes of one condition (or pattern, loop, arm) in a function.
struct Condition<'a> {
    text: &'static str,
    outcomes: Vec<(u32, &'a Branch)>,
}

/// The function's conditions by line, in the order of their outcomes.
fn conditions_by_line(f: &FunctionCoverage) -> BTreeMap<u32, Vec<Condition<'_>>> {
    let mut by_line: BTreeMap<u32, Vec<Condition<'_>>> = BTreeMap::new();
    for (id, branch) in f.sites.branches.iter().enumerate() {
        let line = by_line.entry(branch.line).or_default();
        let same = |c: &Condition<'_>| {
            c.text == branch.condition
                && c.outcomes.first().is_some_and(|(_, b)| {
                    b.col == branch.col && b.kind == branch.kind && branch.kind != BranchKind::MatchArm
                })
        };
        match line.iter_mut().find(|c| same(c)) {
            Some(condition) => condition.outcomes.push((id as u32, branch)),
            None => line.push(Condition {
                text: branch.condition,
                outcomes: vec![(id as u32, branch)],
            }),
        }
    }
    by_line
}

/// The calls that took outcome `id`, or the closest distance and call for a
/// missed one, as a badge that opens to them.
fn badge(report: &Report, f: &FunctionCoverage, id: u32, branch: &Branch) -> Markup {
    let call = |test: &str| report.calls.get(test).cloned().unwrap_or_default();
    match f.covered_by.get(&id) {
        Some(tests) => {
            let first = tests.iter().next().map(|t| format!("{t}: {}", call(t)));
            html! {
                details.badge.ok data-outcome=(id) data-state="covered" {
                    summary title=[first] { "✓ " (branch.side.as_str()) }
                    div.calls {
                        (tests.len()) " call(s) took it:"
                        ul {
                            @for test in tests.iter().take(CALLS_LISTED) {
                                li.call { code.test { (test) } " " code.args { (call(test)) } }
                            }
                        }
                        @if tests.len() > CALLS_LISTED { span.muted { "and " (tests.len() - CALLS_LISTED) " more" } }
                    }
                }
            }
        }
        None => {
            let distance = f.best_distance.get(&id).copied();
            let closest = f.closest.get(&id);
            let title = match (distance, closest) {
                (Some(d), Some(test)) => format!("missed; closest distance {} by {test}: {}", show_distance(d), call(test)),
                _ => "missed; never reached".to_owned(),
            };
            html! {
                details.badge.miss data-outcome=(id) data-state="missed" {
                    summary title=(title) { "✗ " (branch.side.as_str()) }
                    div.calls {
                        @match (distance, closest) {
                            (Some(d), Some(test)) => {
                                "missed; closest distance " span.distance { (show_distance(d)) } ", by"
                                ul { li.closest { code.test { (test) } " " code.args { (call(test)) } } }
                            }
                            _ => "missed; no call reached this condition",
                        }
                    }
                }
            }
        }
    }
}

fn function_page(
    report: &Report,
    index: usize,
    history: Option<&RunHistory>,
    source: Option<&String>,
) -> Markup {
    let f = &report.functions[index];
    let target = report.target_at(index);
    let name = f.name();
    let (first, last) = f.sites.lines;
    let by_line = conditions_by_line(f);
    let missing = f.missing();
    let missed_lines: BTreeSet<u32> = missing
        .iter()
        .map(|id| f.sites.branches[*id as usize].line)
        .collect();
    let missed_goals = goals_by_line(f);
    let failures: Vec<_> = report.failures.iter().filter(|x| Some(x.target.as_str()) == target.map(|t| t.name.as_str())).collect();
    let lines: Vec<(u32, &str)> = source
        .map(|text| {
            text.lines()
                .enumerate()
                .map(|(n, l)| (n as u32 + 1, l))
                .filter(|(n, _)| *n >= first && *n <= last)
                .collect()
        })
        .unwrap_or_default();
    let body = html! {
        nav.crumbs { a href="../index.html" { "← all functions" } " · " a href="../missed.html" { "by most missed" } }
        header {
            h1 { code { (name) } " " span class=(format!("kind {}", f.kind.as_str())) { (f.kind.as_str()) } }
            div.muted { code { (f.sites.file) ":" (first) "–" (last) } }
            div.summary.big {
                div { "own outcomes: " (share(own(f))) }
                (goal_summary(f.goal_totals()))
                @if let Some(t) = target {
                    @if t.called() { div { "reach: " (share(report.totals(&t.reach))) } }
                    div { (t.carved_calls) " carved, " (t.generated_calls) " generated calls" }
                    div { (t.executions) " executions" }
                    div { @if t.failures > 0 || !failures.is_empty() { span.fail { "✗ " } } (failures.len()) " failure(s) still failing" }
                }
                @if !f.reached_from.is_empty() {
                    div { "reached from " (f.reached_from.iter().cloned().collect::<Vec<_>>().join(", ")) }
                }
            }
        }
        @if let Some(run) = history {
            h2 { "Last generation run" }
            (chart::chart(run))
        }
        @if !failures.is_empty() {
            h2 { "Found failures" }
            ul {
                @for failure in &failures {
                    li.fail-item { span.fail { "✗ " (failure.kind.class()) } " at " code { (failure.at) } ": " code { (failure.call) } " " span.muted { (failure.message) } }
                }
            }
        }
        @if !missing.is_empty() {
            h2 { "Missed outcomes" }
            div.scroll {
                table.missed {
                    thead { tr { th { "where" } th { "outcome" } th { "closest distance" } th { "closest call" } } }
                    tbody {
                        @for id in &missing {
                            @let b = &f.sites.branches[*id as usize];
                            tr data-outcome=(id) {
                                td { a href=(format!("#L{}", b.line)) { (b.line) ":" (b.col) } }
                                td { code { (b.condition) } " " span.fail { "✗ " (b.side.as_str()) } }
                                td.num { @match f.best_distance.get(id) { Some(d) => (show_distance(*d)), None => span.muted { "never reached" } } }
                                td { @if let Some(test) = f.closest.get(id).filter(|_| f.best_distance.contains_key(id)) {
                                    code { (test) } " " code { (report.calls.get(test).cloned().unwrap_or_default()) }
                                } }
                            }
                        }
                    }
                }
            }
        }
        @for (kind, title) in [(GoalKind::Boundary, "Missed boundaries"), (GoalKind::Mutant, "Surviving mutants")] {
            @let goals: Vec<&GoalCoverage> = f.missed_goals().filter(|g| g.goal.kind == kind).collect();
            @if !goals.is_empty() {
                h2 { (title) }
                div.scroll {
                    table.goals data-kind=(kind.as_str()) {
                        thead { tr { th { "where" } th { "goal" } th { "closest distance" } th { "closest call" } } }
                        tbody {
                            @for goal in goals {
                                @let at = goal.goal.at(f.sites);
                                tr data-goal=(kind.as_str()) {
                                    td { @if let Some((line, col)) = at { a href=(format!("#L{line}")) { (line) ":" (col) } } }
                                    td { (goal.goal.label) }
                                    td.num { @match goal.best_distance { Some(d) => span.distance { (show_distance(d)) }, None => span.muted { "never reached" } } }
                                    td { @if let Some(test) = &goal.closest {
                                        code { (test) } " " code { (report.calls.get(test).cloned().unwrap_or_default()) }
                                    } }
                                }
                            }
                        }
                    }
                }
            }
        }
        h2 { "Source" }
        @if lines.is_empty() {
            p.muted { "The source file " code { (f.sites.file) } " was not found from the working directory; the outcomes by line:" }
        }
        div.scroll {
            table.src {
                tbody {
                    @if lines.is_empty() {
                        @for (line, conditions) in &by_line {
                            tr.conds.missed[missed_lines.contains(line)] id=(format!("L{line}")) {
                                td.n { (line) }
                                td.code {
                                    @for c in conditions { (condition(report, f, c)) }
                                    (goal_marks(missed_goals.get(line)))
                                }
                            }
                        }
                    }
                    @for (n, text) in &lines {
                        tr.line.missed[missed_lines.contains(n)]
                            .goals-missed[!missed_lines.contains(n) && missed_goals.contains_key(n)]
                            id=(format!("L{n}")) {
                            td.n { a href=(format!("#L{n}")) { (n) } }
                            td.code { (text) }
                        }
                        @if let Some(conditions) = by_line.get(n) {
                            tr.conds {
                                td.n {}
                                td.code {
                                    @for c in conditions { (condition(report, f, c)) }
                                    (goal_marks(missed_goals.get(n)))
                                }
                            }
                        }
                    }
                }
            }
        }
    };
    page(&format!("{name}: carve coverage"), body)
}

/// The function's missed boundaries and surviving mutants by the line of
/// their condition.
fn goals_by_line(f: &FunctionCoverage) -> BTreeMap<u32, Vec<&GoalCoverage>> {
    let mut by_line: BTreeMap<u32, Vec<&GoalCoverage>> = BTreeMap::new();
    for goal in f.missed_goals() {
        if let Some((line, _)) = goal.goal.at(f.sites) {
            by_line.entry(line).or_default().push(goal);
        }
    }
    by_line
}

/// A line's missed boundaries and surviving mutants, after its conditions'
/// badges: a distinct mark (◇, dotted), since they are not outcomes.
fn goal_marks(goals: Option<&Vec<&GoalCoverage>>) -> Markup {
    html! {
        @for goal in goals.into_iter().flatten() {
            @let what = match goal.goal.kind { GoalKind::Boundary => "missed boundary", GoalKind::Mutant => "mutant survives" };
            @let title = match goal.best_distance {
                Some(d) => format!("{what}; closest distance {}", show_distance(d)),
                None => format!("{what}; no call reached this condition"),
            };
            span.goal-miss data-goal=(goal.goal.kind.as_str()) title=(title) {
                "◇ " (what) ": " (goal.goal.label)
            }
        }
    }
}

fn condition(report: &Report, f: &FunctionCoverage, c: &Condition<'_>) -> Markup {
    let kind = c.outcomes.first().map_or("", |(_, b)| b.kind.as_str());
    html! {
        span.cond title=(kind) {
            code { (c.text) }
            @for (id, branch) in &c.outcomes { (badge(report, f, *id, branch)) }
        }
    }
}

/// The index (in [`Report::functions`]) of the function of the target
/// named `target`: a generic target (`parse<String>`) is an instantiation
/// of its function (`parse`), so it is found through the report's targets.
fn target_function(report: &Report, target: &str) -> Option<usize> {
    report
        .targets
        .iter()
        .find(|t| t.name == target)
        .map(|t| t.function)
        .or_else(|| {
            report
                .functions
                .iter()
                .position(|f| f.kind == Kind::Target && f.name() == target)
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coverage;
    use crate::registry::{Branch, BranchKind, Condition, Form, Op, Side, Sites};

    const fn branch(side: Side) -> Branch {
        Branch {
            kind: BranchKind::Condition,
            condition: "a < b",
            side,
            line: 2,
            col: 8,
            parent: u32::MAX,
        }
    }

    static SITES: Sites = Sites::new(
        "k::m",
        "f",
        "m.rs",
        (1, 3),
        &[branch(Side::True), branch(Side::False)],
        &[],
    );
    // The same `a < b` with its goals: one boundary, five mutants.
    static GOALS: Sites = Sites::new(
        "k::g",
        "f",
        "g.rs",
        (1, 3),
        &[branch(Side::True), branch(Side::False)],
        &[],
    )
    .with_conditions(&[Condition {
        branch: 0,
        form: Form::Compare {
            op: Op::Lt,
            index: 0,
        },
    }]);
    // Same name in another case: a case-insensitive file system would mix
    // their pages up.
    static OTHER: Sites = Sites::new("k::M", "F", "m.rs", (5, 6), &[], &[]);

    fn report() -> Report {
        let (_, trace) = coverage::collect(|| {
            coverage::compare(
                &SITES,
                0,
                true,
                coverage::Op::Lt,
                Some(coverage::Cmp::numeric(-2.0)),
            )
        });
        let mut f = FunctionCoverage::new(&SITES);
        f.add("carved::m::f::0001", &trace, true);
        Report {
            seed: 1,
            functions: vec![f, FunctionCoverage::new(&OTHER)],
            targets: Vec::new(),
            calls: BTreeMap::from([(
                "carved::m::f::0001".to_owned(),
                "m::f(s:\"<script>\")".to_owned(),
            )]),
            failures: Vec::new(),
        }
    }

    #[test]
    fn a_generic_targets_failure_links_to_its_functions_page() {
        use crate::coverage::report::{FoundFailure, TargetCoverage};
        use crate::outcome::{Failure, FailureKind};
        let mut report = report();
        report.functions[0].kind = Kind::Target;
        // `f<u8>`, an instantiation of the target function `k::m::f`.
        report.targets.push(TargetCoverage {
            name: "f<u8>".to_owned(),
            function: 0,
            reach: BTreeSet::from([0]),
            carved_calls: 1,
            generated_calls: 1,
            executions: 2,
            failures: 1,
        });
        report.failures.push(FoundFailure {
            test: "generated::f<u8>::0002".to_owned(),
            target: "f<u8>".to_owned(),
            call: "f<u8>(s:\"\")".to_owned(),
            at: Failure::panic(None),
            kind: FailureKind::Panic,
            message: "boom".to_owned(),
        });
        let pages = render(&report, &BTreeMap::new(), &BTreeMap::new());
        let index = &pages[0].html;
        let row = index
            .split("<tr data-test=\"generated::f&lt;u8&gt;::0002\">")
            .nth(1)
            .unwrap_or_else(|| panic!("no failure row in {index}"));
        let cell = &row[..row.find("</td>").unwrap_or(row.len())];
        assert!(cell.contains("href=\"functions/m.f.html\""), "{cell}");
    }

    #[test]
    fn values_are_escaped_and_outcomes_marked() {
        let source = "fn f(a: u8, b: u8) {\n    if a < b { \"<b>\" } else { \"\" }\n}\n".to_owned();
        let pages = render(
            &report(),
            &BTreeMap::new(),
            &BTreeMap::from([("m.rs", source)]),
        );
        let paths: Vec<_> = pages.iter().map(|p| p.path.display().to_string()).collect();
        assert_eq!(
            paths,
            [
                "index.html",
                "missed.html",
                "functions/m.f.html",
                "functions/M.F-2.html"
            ]
        );
        let page = &pages[2].html;
        assert!(!page.contains("<script>") && !page.contains("<b>"), "{page}");
        assert!(page.contains("m::f(s:&quot;&lt;script&gt;&quot;)"), "{page}");
        assert!(page.contains("<code>a &lt; b</code>"), "{page}");
        assert!(page.contains("<tr class=\"line missed\" id=\"L2\">"), "{page}");
        assert_eq!(page.matches("data-state=\"covered\"").count(), 1);
        assert_eq!(page.matches("data-state=\"missed\"").count(), 1);
        // `a < b` with a − b = −2 is 2 from false.
        assert!(
            page.contains("missed; closest distance <span class=\"distance\">2</span>"),
            "{page}"
        );
        let index = &pages[0].html;
        assert!(index.contains("href=\"functions/M.F-2.html\""), "{index}");
        assert!(index.contains("data-branches=\"2\" data-covered=\"1\""), "{index}");
    }

    #[test]
    fn missed_boundaries_and_surviving_mutants_are_counted_and_marked_apart() {
        // `a < b` with a − b = −2 and = 3: both outcomes, not the boundary.
        let mut f = FunctionCoverage::new(&GOALS);
        for (test, diff) in [("carved::g::f::0001", -2.0), ("carved::g::f::0002", 3.0)] {
            let (_, trace) = coverage::collect(|| {
                coverage::compare_with_goals(
                    &GOALS,
                    0,
                    0,
                    diff < 0.0,
                    Op::Lt,
                    || Some(coverage::Cmp::numeric(diff)),
                    || None,
                )
            });
            f.add(test, &trace, true);
        }
        let report = Report {
            functions: vec![f],
            ..report()
        };
        let source = "fn f(a: u8, b: u8) {\n    if a < b { 1 } else { 2 }\n}\n".to_owned();
        let pages = render(&report, &BTreeMap::new(), &BTreeMap::from([("g.rs", source)]));
        let index = &pages[0].html;
        assert!(
            index.contains(
                "data-branches=\"2\" data-covered=\"2\" data-boundaries=\"1\" \
                 data-boundaries-covered=\"0\" data-mutants=\"5\" data-mutants-killed=\"4\""
            ),
            "{index}"
        );
        assert!(index.contains("<span class=\"goals\" data-kind=\"mutant\">4/5</span>"), "{index}");
        let page = &pages[2].html;
        // Every outcome is covered: the line is marked for its goals only.
        assert!(page.contains("<tr class=\"line goals-missed\" id=\"L2\">"), "{page}");
        assert_eq!(page.matches("data-state=\"missed\"").count(), 0);
        assert_eq!(page.matches("<tr data-goal=\"boundary\">").count(), 1, "{page}");
        assert_eq!(page.matches("<tr data-goal=\"mutant\">").count(), 1, "{page}");
        // `<` → `<=` survives; labels are escaped like any other value.
        assert!(page.contains("<td>`&lt;` → `&lt;=` in `a &lt; b`</td>"), "{page}");
        assert!(
            page.contains("title=\"missed boundary; closest distance 2\""),
            "{page}"
        );
    }
}
