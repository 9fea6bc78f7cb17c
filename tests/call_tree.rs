//! Coverage and generation follow the call tree, on the dogfood's thin
//! `url::parse_query`, which delegates to the `#[carve::instrument]` helpers
//! of an inline module and to the target `cgi::cgi_decode`.

#[path = "dogfood/cgi.rs"]
mod cgi;
#[path = "dogfood/url.rs"]
#[allow(dead_code)]
mod url;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use carve::_internals::carving::store::CarveFile;
use carve::_internals::coverage::reach::Reach;
use carve::_internals::coverage::report::{CallCoverage, Report};
use carve::_internals::coverage::{self, Trace};
use carve::_internals::env::Budget;
use carve::_internals::generation::generate::{generate, Phases, Quiet, Settings};
use carve::_internals::generation::worker::existing_calls;
use carve::_internals::registry::{self, Registry, Sites};

const HELPERS: [&str; 3] = [
    "url::query::pair_of",
    "url::query::pairs",
    "url::query::separator",
];

fn names(functions: impl IntoIterator<Item = &'static Sites>) -> BTreeSet<String> {
    functions.into_iter().map(|s| s.name()).collect()
}

fn parse_query(query: &str) -> Trace {
    coverage::collect(|| url::parse_query(query)).1
}

#[test]
fn a_call_records_every_instrumented_function_it_enters() {
    let trace = parse_query("a=1&b=%41");
    let mut expected: BTreeSet<String> = HELPERS.iter().map(|s| s.to_string()).collect();
    expected.extend(["url::parse_query".into(), "cgi::cgi_decode".into()]);
    assert_eq!(names(trace.functions()), expected);
}

#[test]
fn the_reach_numbers_the_outcomes_of_target_and_helpers() {
    let target = Registry::collect().target("url::parse_query").unwrap();
    let reach = Reach::new(
        target.sites,
        parse_query("a=1").functions(),
        &registry::all_sites(),
    );
    // pairs: `for` 2, `is_empty()` 2; separator: `!contains('&') && contains(';')` 4;
    // pair_of: guard 2, three arms; cgi_decode: 8.
    let counts: BTreeMap<String, usize> = reach
        .functions()
        .iter()
        .map(|s| (s.name(), s.branches.len()))
        .collect();
    assert_eq!(
        counts,
        BTreeMap::from([
            ("cgi::cgi_decode".into(), 8),
            ("url::parse_query".into(), 0),
            ("url::query::pair_of".into(), 5),
            ("url::query::pairs".into(), 4),
            ("url::query::separator".into(), 4),
        ])
    );
    assert_eq!(reach.len(), 21);
}

#[test]
fn a_helper_no_call_entered_is_in_reach_through_its_call_site() {
    let target = Registry::collect().target("url::parse_query").unwrap();
    // Only the target's own function was entered; the helpers are found by
    // the calls it makes, and the helper's outcomes get a finite fitness.
    let reach = Reach::new(target.sites, [], &registry::all_sites());
    assert!(names(reach.functions().iter().copied()).contains("url::query::pair_of"));
    let (_, empty) = coverage::collect(|| coverage::enter(target.sites));
    let pairs = registry::all_sites()
        .into_iter()
        .find(|s| s.name() == "url::query::pairs")
        .unwrap();
    let goal = reach.goal(pairs, 2).unwrap();
    let fitness = reach.fitness(goal, &empty);
    assert!(fitness.level < u32::MAX, "{fitness:?}");
}

#[test]
fn the_report_attributes_helpers_to_the_targets_that_reach_them() {
    let registry = Registry::collect();
    let calls: Vec<CallCoverage> = ["q=carving+unit%21", "a=1&b=%41"]
        .iter()
        .enumerate()
        .map(|(i, q)| CallCoverage {
            test: format!("carved::url::parse_query::{:04}", i + 1),
            target: "url::parse_query".into(),
            call: format!("url::parse_query(q:{q:?})"),
            generated: false,
            passed: true,
            trace: parse_query(q),
        })
        .collect();
    let report = Report::build(&registry, &calls, &BTreeMap::new(), 1);
    let json: serde_json::Value = serde_json::from_str(&report.to_json()).unwrap();
    let function = |name: &str| {
        json["functions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["name"] == name)
            .unwrap_or_else(|| panic!("{name} in {json}"))
            .clone()
    };
    assert_eq!(
        function("url::query::pairs"),
        serde_json::json!({ "name": "url::query::pairs", "kind": "helper", "branches": 4,
            "covered": 3, "reached_from": ["url::parse_query"],
            "boundaries": 0, "boundaries_covered": 0, "mutants": 1, "mutants_killed": 1 }),
        "`is_empty()` true is never taken; its negation is killed by any call"
    );
    assert_eq!(function("cgi::cgi_decode")["kind"], "target");
    assert_eq!(
        function("cgi::cgi_decode")["reached_from"],
        serde_json::json!(["url::parse_query"])
    );
    let target = json["targets"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "url::parse_query")
        .unwrap();
    assert_eq!(target["branches"], 0);
    assert_eq!(target["reach_branches"], 21);
    assert_eq!(target["carved_calls"], 2);
    insta::assert_snapshot!(report.summary(), @r#"
        carve: branch coverage of instrumented functions by carved and generated calls
          function               kind    own outcomes      boundaries  mutants killed  targets: outcomes of all they reach
          cgi::cgi_decode        target     7/8     87.5%         1/5           22/24  not called
          url::parse_query       target     -                     -              -     reach   15/21    71.4%  (2 carved, 0 generated calls)
          url::query::pair_of    helper     2/5     40.0%         -              1/1   reached from url::parse_query
          url::query::pairs      helper     3/4     75.0%         -              1/1   reached from url::parse_query
          url::query::separator  helper     3/4     75.0%         -              3/3   reached from url::parse_query
          url::urlparse          target     0/12     0.0%         -              0/7   not called
          total                            15/33    45.5%         1/5           27/36
        "#);
    insta::assert_snapshot!(report.annotate("url::query::pairs"), @r#"

        url::query::pairs: 3/4 branch outcomes covered (75.0%), weak mutants killed 1/1, tests/dogfood/url.rs
            70     pub fn pairs(query: &str) -> Result<Vec<(String, String)>, DecodeError> {
            71         let mut out = Vec::new();
            72         for pair in query.split(separator(query)) {
        #   73             if pair.is_empty() {
                              ^ missed: `pair.is_empty()` true (closest distance 1)
            74                 continue;
            75             }
            76             out.push(pair_of(pair)?);
            77         }
            78         Ok(out)
            79     }
        "#);
}

#[test]
fn generation_from_the_carved_calls_covers_the_helpers() {
    carve::_internals::panics::install_panic_hook();
    let registry = Registry::collect();
    let target = registry.target("url::parse_query").unwrap();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("carved");
    let file = CarveFile::load(&dir, &CarveFile::path_for(&dir, "url::parse_query")).unwrap();
    let existing = existing_calls(&registry, target, &file, &dir, 1).unwrap();
    let helper_goals: BTreeSet<u32> = existing
        .reach
        .functions()
        .iter()
        .filter(|s| HELPERS.contains(&s.name().as_str()))
        .flat_map(|s| (0..s.branches.len() as u32).map(|id| existing.reach.goal(s, id).unwrap()))
        .collect();
    assert_eq!(helper_goals.len(), 13);
    assert!(
        !helper_goals.is_subset(&existing.covered),
        "the carved calls leave helper outcomes uncovered"
    );
    let settings = Settings {
        seed: 1,
        budget: Budget::Executions(5_000),
        phases: Phases::All,
        until_reach_grows: false,
    };
    let run = generate(target, "url::parse_query", &existing, settings, &mut Quiet);
    let missed: Vec<String> = helper_goals
        .difference(&run.after)
        .map(|g| existing.reach.describe(*g))
        .collect();
    assert!(missed.is_empty(), "missed: {missed:#?}");
    assert!(!run.kept.is_empty());
}

/// After generation only the calls it added are replayed: the baseline
/// extended with them is what replaying every carve file again gives.
#[test]
fn a_baseline_extended_with_new_calls_is_a_fresh_replay() {
    use carve::_internals::carving::store::{Entry, Origin};
    use carve::_internals::generation::worker::Baseline;

    carve::_internals::panics::install_panic_hook();
    let registry = Registry::collect();
    let target = registry.target("url::parse_query").unwrap();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("carved");
    let file = CarveFile::load(&dir, &CarveFile::path_for(&dir, "url::parse_query")).unwrap();
    let mut baseline = Baseline::replay(&registry, target, &file, &dir, 1).unwrap();
    let before = baseline.existing();
    let settings = Settings {
        seed: 1,
        budget: Budget::Executions(2_000),
        phases: Phases::All,
        until_reach_grows: false,
    };
    let run = generate(target, "url::parse_query", &before, settings, &mut Quiet);
    let origin = || Origin::Generated {
        seed: 1,
        added: vec![],
    };
    let added: Vec<Entry> = run
        .kept
        .iter()
        .map(|k| Entry::from_values(origin(), &k.args, &k.observation).unwrap())
        .collect();
    assert!(!added.is_empty());
    baseline.add(&added);
    let extended = baseline.existing();
    let mut after_file = file.clone();
    after_file.entries.extend(added);
    let fresh = existing_calls(&registry, target, &after_file, &dir, 1).unwrap();
    assert_eq!(
        names(extended.reach.functions().iter().copied()),
        names(fresh.reach.functions().iter().copied())
    );
    assert_eq!(extended.covered, fresh.covered);
    assert!(extended.covered.len() > before.covered.len());
    assert_eq!(extended.inapplicable, fresh.inapplicable);
    assert_eq!(extended.known_failures, fresh.known_failures);
    assert_eq!(extended.seeds.len(), fresh.seeds.len());
}
