//! Search-based generation against the search chapter's figures, as counts
//! measured in one run (30 seeds each):
//!
//! ```text
//! cargo bench --bench search
//! ```
//!
//! - `test_me(x, y)` with x, y anywhere in the i64 range: evaluations until
//!   `x == 2 * (y + 1)` is true (the chapter's hill climber: 58,743 at ±100,000);
//! - `cgi_decode` from the single call `"Hello+World"`, search alone:
//!   evaluations until every branch outcome is covered (the chapter's GA: a
//!   median of about 62,400, failing on 9 of 30 seeds);
//! - the dogfood's needle, from calls that never reach it, within the default
//!   budget;
//!
//! each beside random generation and grammar generation alone on the same
//! budget, and the default pipeline (the strategies taking turns) beside the
//! best single strategy.

#[path = "../tests/dogfood/cgi.rs"]
#[allow(dead_code)]
mod cgi;
#[path = "../tests/dogfood/maths.rs"]
#[allow(dead_code)]
mod maths;

use std::collections::BTreeSet;

use carve::_internals::call::ArgsInput;
use carve::_internals::coverage;
use carve::_internals::coverage::reach::Reach;
use carve::_internals::env::{Budget, DEFAULT_BUDGET};
use carve::_internals::generation::generate::{generate, Existing, Observer, Phases, Settings};
use carve::_internals::generation::search::{Calls, Evaluate, Individual, Search};
use carve::_internals::outcome::quietly;
use carve::_internals::registry::{Registry, Target};
use carve::_internals::value::Value;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

const SEEDS: u64 = 30;

/// Notes when every outcome is covered.
struct FullCoverage {
    total: usize,
    at: Option<u64>,
}

impl Observer for FullCoverage {
    fn progress(&mut self, _index: u64, executions: u64, covered: usize) {
        if covered >= self.total && self.at.is_none() {
            self.at = Some(executions);
        }
    }
}

fn two(x: i64, y: i64) -> Value {
    Value::Struct("args", vec![("x", Value::I64(x)), ("y", Value::I64(y))])
}

fn covered_by(target: &'static Target, calls: &[Value]) -> BTreeSet<u32> {
    let mut covered = BTreeSet::new();
    for args in calls {
        let (_, trace) = coverage::collect(|| quietly(|| (target.replay)(ArgsInput::Value(args))));
        covered.extend(trace.covered(target.sites));
    }
    covered
}

/// Median of the successful runs, and how many succeeded.
fn summary(results: &[Option<u64>]) -> String {
    let mut ok: Vec<u64> = results.iter().flatten().copied().collect();
    ok.sort();
    let median = if ok.is_empty() {
        "-".to_owned()
    } else {
        ok[ok.len() / 2].to_string()
    };
    format!(
        "median {median:>6} evaluations, {:>2}/{} seeds",
        ok.len(),
        results.len()
    )
}

/// The default pipeline's median against the best single strategy's (goal:
/// at most 2x), and whether it succeeds on every seed where one strategy
/// alone does.
fn against_best(pipeline: &[Option<u64>], singles: &[&Vec<Option<u64>>]) -> String {
    let median = |results: &[Option<u64>]| {
        let mut ok: Vec<u64> = results.iter().flatten().copied().collect();
        ok.sort();
        (ok.len() == results.len()).then(|| ok[ok.len() / 2])
    };
    let best = singles.iter().filter_map(|r| median(r)).min();
    let ratio = match (median(pipeline), best) {
        (Some(p), Some(b)) => format!(
            "{:.2}x the best single strategy (goal <= 2x)",
            p as f64 / b as f64
        ),
        _ => "no single strategy succeeds on every seed".to_owned(),
    };
    let lost = (0..pipeline.len())
        .filter(|&i| pipeline[i].is_none() && singles.iter().any(|r| r[i].is_some()))
        .count();
    format!("{ratio}; fails on {lost} seed(s) where a single strategy succeeds")
}

/// Calls with uniformly random i64 arguments until everything is covered.
fn random_ints(
    target: &'static Target,
    seed: u64,
    budget: u64,
    start: &BTreeSet<u32>,
) -> Option<u64> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut covered = start.clone();
    for n in 1..=budget {
        let args = two(rng.random(), rng.random());
        covered.extend(covered_by(target, &[args]));
        if covered.len() == target.sites.branches.len() {
            return Some(n);
        }
    }
    None
}

fn run_generate(
    target: &'static Target,
    name: &str,
    seeds: &[Value],
    seed: u64,
    phases: Phases,
) -> Option<u64> {
    let covered = covered_by(target, seeds);
    let settings = Settings {
        seed,
        budget: Budget::Executions(DEFAULT_BUDGET),
        phases,
        until_reach_grows: false,
    };
    let mut full = FullCoverage {
        total: target.sites.branches.len(),
        at: None,
    };
    let existing = Existing {
        covered,
        ..Existing::seeds(target, seeds.to_vec())
    };
    let run = generate(target, name, &existing, settings, &mut full);
    full.at
        .or((run.after.len() == target.sites.branches.len()).then_some(run.executions))
}

fn main() {
    carve::_internals::panics::install_panic_hook();
    let registry = Registry::collect();
    println!("search-based generation, {SEEDS} seeds each, budget {DEFAULT_BUDGET} executions\n");

    let test_me = registry.target("maths::test_me").expect("registered");
    let mut avm = Vec::new();
    let mut random = Vec::new();
    for seed in 0..SEEDS {
        let mut rng = StdRng::seed_from_u64(seed);
        let start = two(rng.random(), rng.random());
        let mut counter = Calls::new(test_me, DEFAULT_BUDGET);
        let (first, failed) = counter.evaluate(&start).expect("runs");
        let covered: BTreeSet<u32> = first.covered(test_me.sites).collect();
        let seeds = vec![Individual {
            args: start,
            failed,
            trace: first,
        }];
        let mut search = Search::new(Reach::single(test_me.sites), &covered, seeds, seed);
        search.avm(&mut counter);
        avm.push(search.uncovered.is_empty().then_some(counter.evaluations));
        random.push(random_ints(test_me, seed, DEFAULT_BUDGET, &covered));
    }
    println!("test_me(x, y), x and y anywhere in i64, until `x == 2 * (y + 1)` is true");
    println!(
        "  AVM (carve)          {}   (goal <= 200, 30/30)",
        summary(&avm)
    );
    println!("  random               {}", summary(&random));
    println!("  chapter hill climber 58743 iterations at +-100000\n");

    let cgi = registry.target("cgi::cgi_decode").expect("registered");
    let hello = [Value::Struct(
        "args",
        vec![("s", Value::Str("Hello+World".into()))],
    )];
    let results = |phases| {
        (0..SEEDS)
            .map(|seed| run_generate(cgi, "cgi::cgi_decode", &hello, seed, phases))
            .collect::<Vec<_>>()
    };
    println!("cgi_decode from \"Hello+World\", until all 8 branch outcomes are covered");
    let (search, grammar, pipeline) = (
        results(Phases::SearchOnly),
        results(Phases::GrammarOnly),
        results(Phases::All),
    );
    println!(
        "  default pipeline     {}   {}",
        summary(&pipeline),
        against_best(&pipeline, &[&search, &grammar])
    );
    println!(
        "  search alone         {}   (goal <= 2000, 30/30)",
        summary(&search)
    );
    println!("  grammar alone        {}", summary(&grammar));
    println!("  chapter GA           median about 62400, 21/30 seeds\n");

    let needle = registry.target("maths::needle").expect("registered");
    let carved = [two(3, 4), two(2_000_000, 5)];
    let start = covered_by(needle, &carved);
    let results = |phases| {
        (0..SEEDS)
            .map(|seed| run_generate(needle, "maths::needle", &carved, seed, phases))
            .collect::<Vec<_>>()
    };
    println!("needle(x, y) from (3, 4) and (2000000, 5), until all 6 branch outcomes are covered");
    let (search, grammar, pipeline) = (
        results(Phases::SearchOnly),
        results(Phases::GrammarOnly),
        results(Phases::All),
    );
    println!(
        "  default pipeline     {}   {} (goal 30/30 within the default budget)",
        summary(&pipeline),
        against_best(&pipeline, &[&search, &grammar])
    );
    println!("  search alone         {}", summary(&search));
    println!("  grammar alone        {}", summary(&grammar));
    let random: Vec<_> = (0..SEEDS)
        .map(|seed| random_ints(needle, seed, DEFAULT_BUDGET, &start))
        .collect();
    println!("  random               {}", summary(&random));
}
