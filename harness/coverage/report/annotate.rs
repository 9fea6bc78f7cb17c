//! The annotated-source renderer of a [`Report`] (`CARVE_ANNOTATE`): each
//! function's source, lines with a missed outcome or goal marked and
//! followed by what they miss.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::{find_source, show_distance, FunctionCoverage, GoalCoverage, Report};
use crate::coverage::goals::GoalKind;

impl Report {
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

    /// Why [`Report::annotate`] shows nothing for `filter` (`CARVE_ANNOTATE`),
    /// when no instrumented function's name contains it: the names there are,
    /// or the closest few of them. `None` when some name matches.
    pub fn annotate_misses(&self, filter: &str) -> Option<String> {
        const SHOWN: usize = 5;
        let mut names: Vec<String> = self.functions.iter().map(FunctionCoverage::name).collect();
        if names.iter().any(|name| name.contains(filter)) {
            return None;
        }
        let intro = format!("CARVE_ANNOTATE={filter} matches no instrumented function");
        if names.is_empty() {
            return Some(format!("{intro}; this test binary has none"));
        }
        let all = names.len();
        if all > SHOWN {
            let distance = |name: &str| {
                // The closest of the whole path and its last segment, so
                // that `decode` finds `cgi::decode` and `cgi::dcode` alike.
                let last = name.rsplit("::").next().unwrap_or(name);
                edit_distance(filter, name).min(edit_distance(filter, last))
            };
            names.sort_by_cached_key(|name| (distance(name), name.clone()));
            names.truncate(SHOWN);
        }
        let which = match all > SHOWN {
            true => format!(" (the {SHOWN} closest of {all})"),
            false => String::new(),
        };
        Some(format!(
            "{intro}; names are{which}: {}. It selects the names that contain it; `all` \
             selects every one.",
            names.join(", ")
        ))
    }
}

/// The Levenshtein distance between `a` and `b`, in characters, ignoring case.
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.to_lowercase().chars().collect();
    let b: Vec<char> = b.to_lowercase().chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substituted = diagonal + usize::from(ca != cb);
            diagonal = row[j + 1];
            row[j + 1] = substituted.min(row[j] + 1).min(row[j + 1] + 1);
        }
    }
    row[b.len()]
}

pub(super) fn annotate_function(f: &FunctionCoverage) -> String {
    let share = match f.percent() {
        Some(p) => format!(
            "{}/{} branch outcomes covered ({p:.1}%)",
            f.covered_by.len(),
            f.total()
        ),
        None => "no branch outcomes".to_owned(),
    };
    let goals = f.goal_totals().describe();
    let goals = match goals.is_empty() {
        true => goals,
        false => format!(", {goals}"),
    };
    let mut out = format!("\n{}: {share}{goals}, {}\n", f.name(), f.sites.file);
    let Some(source) = find_source(f.sites.file).and_then(|p| std::fs::read_to_string(p).ok())
    else {
        out.push_str("  (source not found; missed outcomes and goals:)\n");
        for id in f.missing() {
            let _ = writeln!(out, "  {} missed {}", f.sites.location(id), f.describe(id));
        }
        for goal in f.missed_goals() {
            let _ = writeln!(
                out,
                "  {} {}: {}",
                goal_location(f, goal),
                missed_goal_marker(goal.goal.kind),
                goal.goal.label
            );
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
    let mut goals_by_line: BTreeMap<u32, Vec<&GoalCoverage>> = BTreeMap::new();
    for goal in f.missed_goals() {
        if let Some((line, _)) = goal.goal.at(f.sites) {
            goals_by_line.entry(line).or_default().push(goal);
        }
    }
    // Boundaries first, then mutants, each in goal order.
    for goals in goals_by_line.values_mut() {
        goals.sort_by_key(|g| g.goal.kind);
    }
    let distance = |best: Option<f64>| match best {
        Some(d) => format!(" (closest distance {})", show_distance(d)),
        None => " (never reached)".to_owned(),
    };
    for (n, line) in source.lines().enumerate() {
        let n = n as u32 + 1;
        if n < first || n > last {
            continue;
        }
        let missed = missed_by_line.get(&n);
        let goals = goals_by_line.get(&n);
        // `#`: a branch outcome is missed; `~`: only boundaries or mutants.
        let marker = match (missed, goals) {
            (Some(_), _) => '#',
            (None, Some(_)) => '~',
            (None, None) => ' ',
        };
        let _ = writeln!(out, "{marker} {n:>4} {line}");
        let indent = |branch: u32| {
            let col = f.sites.branches[branch as usize].col as usize;
            " ".repeat(col.saturating_sub(1))
        };
        for id in missed.into_iter().flatten() {
            let _ = writeln!(
                out,
                "       {}^ missed: {}{}",
                indent(*id),
                f.describe(*id),
                distance(f.best_distance.get(id).copied())
            );
        }
        for goal in goals.into_iter().flatten() {
            let _ = writeln!(
                out,
                "       {}^ {}: {}{}",
                " ".repeat(goal.goal.at(f.sites).map_or(0, |(_, col)| col as usize).saturating_sub(1)),
                missed_goal_marker(goal.goal.kind),
                goal.goal.label,
                distance(goal.best_distance)
            );
        }
    }
    out
}

/// How the annotated source introduces a goal no passing call met.
fn missed_goal_marker(kind: GoalKind) -> &'static str {
    match kind {
        GoalKind::Boundary => "missed boundary",
        GoalKind::Mutant => "mutant survives",
    }
}

/// `file:line:col` of a goal's condition.
fn goal_location(f: &FunctionCoverage, goal: &GoalCoverage) -> String {
    match goal.goal.at(f.sites) {
        Some((line, col)) => format!("{}:{line}:{col}", f.sites.file),
        None => f.sites.file.to_owned(),
    }
}
