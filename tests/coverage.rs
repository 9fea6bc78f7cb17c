//! Branch coverage of instrumented code: what is counted, what a call
//! covers, distances, and that instrumentation keeps evaluation order and
//! side effects.

#[path = "dogfood/cgi.rs"]
mod cgi;
#[path = "dogfood/maths.rs"]
#[allow(dead_code)]
mod maths;

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::path::Path;

use carve::_internals::call::ArgsInput;
use carve::_internals::carving::store::CarveFile;
use carve::_internals::coverage::report::FunctionCoverage;
use carve::_internals::coverage::{self, Trace};
use carve::_internals::registry::Registry;
use carve::_internals::registry::{self, Sites};

fn target_sites(name: &str) -> &'static Sites {
    Registry::collect()
        .target(name)
        .unwrap_or_else(|| panic!("{name} is registered"))
        .sites
}

fn helper_sites(name: &str) -> &'static Sites {
    registry::all_sites()
        .into_iter()
        .find(|s| s.name() == name)
        .unwrap_or_else(|| panic!("{name} is instrumented"))
}

/// `condition side` of every outcome `trace` covered in `sites`.
fn covered(sites: &Sites, trace: &Trace) -> BTreeSet<String> {
    trace.covered(sites).map(|id| label(sites, id)).collect()
}

fn label(sites: &Sites, id: u32) -> String {
    let b = &sites.branches[id as usize];
    format!("{} {}", b.condition, b.side)
}

fn labels(items: &[&str]) -> BTreeSet<String> {
    items.iter().map(|s| s.to_string()).collect()
}

#[test]
fn cgi_decode_has_eight_outcomes_by_hand_count() {
    let sites = target_sites("cgi::cgi_decode");
    let all: Vec<String> = (0..sites.branches.len() as u32)
        .map(|id| label(sites, id))
        .collect();
    // while i < chars.len(): 2; if c == '+': 2; else if c == '%': 2; match: 2 arms.
    assert_eq!(
        all,
        [
            "i < chars.len() true",
            "i < chars.len() false",
            "c == '+' true",
            "c == '+' false",
            "c == '%' true",
            "c == '%' false",
            "(Some(high), Some(low)) taken",
            "_ taken",
        ]
    );
    assert_eq!(sites.location(2), "tests/dogfood/cgi.rs:21:12");
}

#[test]
fn a_plus_b_alone_leaves_the_percent_branches_uncovered() {
    let sites = target_sites("cgi::cgi_decode");
    let (result, trace) = coverage::collect(|| cgi::cgi_decode("a+b"));
    assert_eq!(result, Ok("a b".to_string()));
    assert_eq!(
        covered(sites, &trace),
        labels(&[
            "i < chars.len() true",
            "i < chars.len() false",
            "c == '+' true",
            "c == '+' false",
            "c == '%' false"
        ])
    );
    // The chapter's finding: '%' was compared against but never matched.
    // Only 'a' and 'b' reach `c == '%'`: 'a' is 97 − 37 = 60 code points away.
    assert_eq!(trace.distance(sites, 4), Some(60.0));
    assert_eq!(
        trace.distance(sites, 6),
        None,
        "the match arms were never reached"
    );
}

#[test]
fn the_carved_suite_covers_every_outcome_of_cgi_decode() {
    let registry = Registry::collect();
    let target = registry.target("cgi::cgi_decode").unwrap();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("carved");
    let file = CarveFile::load(&dir, &dir.join("cgi/cgi_decode.ron")).unwrap();
    let mut cov = FunctionCoverage::new(target.sites);
    for (i, entry) in file.entries.iter().enumerate() {
        let (replayed, trace) = coverage::collect(|| (target.replay)(ArgsInput::Ron(&entry.args)));
        assert!(replayed.is_ok());
        cov.add(
            &format!("carved::cgi::cgi_decode::{:04}", i + 1),
            &trace,
            true,
        );
    }
    assert!(cov.missing().is_empty(), "missing: {:?}", cov.missing());
    let outcomes: Vec<String> = cov
        .covered()
        .into_iter()
        .map(|id| label(target.sites, id))
        .collect();
    assert_eq!(outcomes.len(), 8);
    // "%zz" is the only carved call that takes the invalid-encoding arm.
    let invalid: Vec<_> = cov.covered_by[&7].iter().collect();
    assert_eq!(invalid.len(), 1);
}

#[test]
fn test_me_distance_is_the_chapters() {
    let sites = target_sites("maths::test_me");
    // x == 2 * (y + 1) with x = 5, y = 1: |5 - 4| = 1 to true.
    let (_, trace) = coverage::collect(|| maths::test_me(5, 1));
    assert_eq!(trace.distance(sites, 0), Some(1.0));
    assert_eq!(trace.distance(sites, 1), Some(0.0));
    // Large values do not overflow the distance.
    let (_, trace) = coverage::collect(|| maths::test_me(i64::MIN, 0));
    assert_eq!(trace.distance(sites, 0), Some(2f64.powi(63) + 2.0));
}

#[carve::instrument]
fn dot_after_seconds(stamp: &str) -> u32 {
    if stamp.as_bytes().get(8) == Some(&b'.') {
        1
    } else {
        0
    }
}

/// `b.get(i) == Some(&b'.')`, as humantime's parser checks for fractional
/// seconds: the distance is the bytes', and a text too short to have one
/// is farther than any byte there.
#[test]
fn an_option_comparison_has_the_distance_of_its_contents() {
    let sites = helper_sites("dot_after_seconds");
    let distance = |stamp: &str| {
        let (_, trace) = coverage::collect(|| dot_after_seconds(stamp));
        trace.distance(sites, 0).expect("reached")
    };
    assert_eq!(distance("23:08:32."), 0.0);
    assert_eq!(distance("23:08:32-"), 1.0, "`-` is one below `.`");
    assert_eq!(distance("23:08:320"), 2.0);
    assert!(distance("23:08:32") > distance("23:08:32z"));
}

thread_local! {
    static EVENTS: RefCell<Vec<&'static str>> = const { RefCell::new(Vec::new()) };
}

fn event<T>(name: &'static str, value: T) -> T {
    EVENTS.with(|e| e.borrow_mut().push(name));
    value
}

fn events() -> Vec<&'static str> {
    EVENTS.with(|e| std::mem::take(&mut *e.borrow_mut()))
}

/// Conditions with side effects, for checking evaluation order.
#[carve::instrument]
fn short_circuit(x: i32) -> u8 {
    if event("a", x) > 0 && event("b", x) < 10 || event("c", x) == -5 {
        1
    } else {
        0
    }
}

#[test]
fn instrumentation_keeps_short_circuit_and_evaluation_order() {
    for (x, expected_events, result) in [
        (5, vec!["a", "b"], 1),
        (-5, vec!["a", "c"], 1),
        (20, vec!["a", "b", "c"], 0),
    ] {
        let plain = short_circuit(x);
        let plain_events = events();
        let (instrumented, _) = coverage::collect(|| short_circuit(x));
        assert_eq!((plain, instrumented), (result, result));
        assert_eq!(plain_events, expected_events);
        assert_eq!(
            events(),
            expected_events,
            "each operand runs once, in order"
        );
    }
}

#[test]
fn operands_of_and_or_are_atomic_conditions_with_their_own_parents() {
    let sites = helper_sites("short_circuit");
    let all: Vec<String> = (0..sites.branches.len() as u32)
        .map(|id| label(sites, id))
        .collect();
    assert_eq!(
        all,
        [
            "event(\"a\", x) > 0 true",
            "event(\"a\", x) > 0 false",
            "event(\"b\", x) < 10 true",
            "event(\"b\", x) < 10 false",
            "event(\"c\", x) == -5 true",
            "event(\"c\", x) == -5 false",
        ]
    );
    // `b` is evaluated only when `a` is true; `c` only when `b` is false.
    assert_eq!(sites.branches[2].parent(), Some(0));
    assert_eq!(sites.branches[4].parent(), Some(3));
    assert_eq!(sites.depth(4), 2);
    let (_, trace) = coverage::collect(|| short_circuit(-3));
    events();
    // a false: `c` is reached (its parent chain is not), its distance is |-3 - -5|.
    assert_eq!(trace.distance(sites, 4), Some(2.0));
    assert_eq!(
        sites.approach_level(2, |id| trace.distance(sites, id) == Some(0.0)),
        1
    );
}

/// Every construct that has outcomes (written out on purpose).
#[allow(clippy::manual_flatten)]
#[carve::instrument]
fn constructs(items: &[Option<u8>], word: &str) -> u32 {
    let mut total = 0;
    for item in items {
        if let Some(v) = item {
            total += u32::from(*v);
        }
    }
    let mut rest = items.iter();
    while let Some(Some(_)) = rest.next() {
        total += 1;
    }
    let Some(first) = word.chars().next() else {
        return total;
    };
    let weigh = |c: char| if c.is_ascii_digit() { 10 } else { 1 };
    total += match first {
        'a' => 100,
        c if c.is_uppercase() => 200,
        c => weigh(c),
    };
    total
}

#[test]
fn loops_lets_matches_guards_and_closures_are_counted() {
    let sites = helper_sites("constructs");
    let all: Vec<String> = (0..sites.branches.len() as u32)
        .map(|id| label(sites, id))
        .collect();
    assert_eq!(
        all,
        [
            "for item in items entered",
            "for item in items left",
            "let Some(v) matched",
            "let Some(v) not matched",
            "let Some(Some(_)) matched",
            "let Some(Some(_)) not matched",
            "let Some(first) matched",
            "let Some(first) not matched",
            "c.is_ascii_digit() true",
            "c.is_ascii_digit() false",
            "'a' taken",
            "c.is_uppercase() true",
            "c.is_uppercase() false",
            "c taken",
            "c taken",
        ]
    );
    let (result, trace) = coverage::collect(|| constructs(&[Some(2), None], "7"));
    assert_eq!(result, constructs(&[Some(2), None], "7"));
    assert_eq!(result, 2 + 1 + 10);
    let missed: BTreeSet<String> = (0..sites.branches.len() as u32)
        .filter(|id| trace.distance(sites, *id) != Some(0.0))
        .map(|id| label(sites, id))
        .collect();
    assert_eq!(
        missed,
        labels(&[
            "let Some(first) not matched",
            "c.is_ascii_digit() false",
            "'a' taken",
            "c.is_uppercase() true",
            "c taken"
        ]),
    );
    let (result, _) = coverage::collect(|| constructs(&[], ""));
    assert_eq!(result, 0);
}

/// A parser's digit reader with a local helper, as ipnet's
/// `Parser::read_digit` has `fn parse_digit` inside it.
#[carve::instrument]
fn digits_sum(text: &str) -> u32 {
    fn digit(c: char) -> Option<u32> {
        if c.is_ascii_digit() {
            c.to_digit(10)
        } else {
            None
        }
    }
    text.chars().filter_map(digit).sum()
}

#[test]
fn a_nested_function_is_instrumented_as_a_function_of_its_own() {
    let sites = helper_sites("digits_sum::digit");
    let (sum, trace) = coverage::collect(|| digits_sum("1a2"));
    assert_eq!(sum, 3);
    assert_eq!(
        covered(sites, &trace),
        labels(&["c.is_ascii_digit() true", "c.is_ascii_digit() false"])
    );
    // The outer function has no branch of its own.
    assert!(helper_sites("digits_sum").branches.is_empty());
}

/// A condition around a closure that has conditions of its own.
#[carve::instrument]
fn scheme_ok(scheme: &str) -> bool {
    if scheme
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
    {
        return true;
    }
    false
}

#[test]
fn a_condition_around_a_closure_with_conditions_shows_its_source_text() {
    let sites = helper_sites("scheme_ok");
    let all: Vec<String> = (0..sites.branches.len() as u32)
        .map(|id| label(sites, id))
        .collect();
    // The closure's operands are numbered first: they are rewritten first.
    assert_eq!(
        all,
        [
            "c.is_ascii_alphanumeric() true",
            "c.is_ascii_alphanumeric() false",
            "\"+-.\".contains(c) true",
            "\"+-.\".contains(c) false",
            "scheme.chars().all(| c | c.is_ascii_alphanumeric() || \"+-.\".contains(c)) true",
            "scheme.chars().all(| c | c.is_ascii_alphanumeric() || \"+-.\".contains(c)) false",
        ]
    );
    let line = include_str!("coverage.rs")
        .lines()
        .position(|l| l == "    if scheme")
        .expect("scheme_ok's condition")
        + 1;
    assert_eq!(sites.location(4), format!("tests/coverage.rs:{line}:8"));
    let (result, trace) = coverage::collect(|| scheme_ok("a_b"));
    assert!(!result);
    assert!(covered(sites, &trace).contains(
        "scheme.chars().all(| c | c.is_ascii_alphanumeric() || \"+-.\".contains(c)) false"
    ));
}

/// A kind of shape with equality but no order.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Shape {
    Round,
    Square,
}

/// Comparisons of types carve knows the difference of, and of types it
/// knows only through their `PartialOrd` or `PartialEq`.
#[carve::instrument]
fn mixed(n: u8, version: (u32, u32), shape: Shape, name: &str, ratio: f32) -> u8 {
    let mut score = 0;
    if n >= 10 {
        score += 1;
    }
    if version < (1, 2) {
        score += 2;
    }
    if shape == Shape::Round {
        score += 4;
    }
    if name > "m" {
        score += 8;
    }
    if ratio != 0.5 {
        score += 16;
    }
    score
}

#[test]
fn goals_follow_the_operand_types() {
    use carve::_internals::coverage::goals::GoalKind;
    let sites = helper_sites("mixed");
    let calls = [
        (10, (1, 2), Shape::Round, "m", 0.5f32.next_down()),
        (9, (1, 1), Shape::Square, "n", 0.5f32.next_up()),
        (11, (2, 0), Shape::Round, "a", 0.5),
    ];
    let traces: Vec<Trace> = calls
        .iter()
        .map(|&(n, v, s, name, r)| coverage::collect(|| mixed(n, v, s, name, r)).1)
        .collect();
    let mut report = FunctionCoverage::new(sites);
    for (i, trace) in traces.iter().enumerate() {
        report.add(&format!("call {i}"), trace, true);
    }
    let tally = report.goal_totals();
    let missed: Vec<String> = report
        .missed_goals()
        .map(|g| g.goal.describe(sites))
        .collect();
    // Boundaries: `n >= 10` (met by 10) and `ratio != 0.5` either side
    // (met by the adjacent floats); a tuple and a string have none.
    assert_eq!(
        (tally.boundaries, tally.boundaries_covered),
        (3, 3),
        "{missed:?}"
    );
    // Mutants: five per ordered comparison (u8, tuple, str, f32) and one,
    // `==` → `!=`, for the shape without an order.
    assert_eq!(tally.mutants, 4 * 5 + 1, "{missed:?}");
    // Every comparison saw its operands equal, less and greater ("m",
    // "a", "n"; (1, 2), (1, 1), (2, 0); …): every mutant is killed.
    assert_eq!(tally.mutants_killed, tally.mutants, "{missed:?}");
    assert!(report
        .missed_goals()
        .all(|g| g.goal.kind != GoalKind::Boundary));
    // Instrumented or not, the function computes the same.
    for (&(n, v, s, name, r), trace) in calls.iter().zip(&traces) {
        let (instrumented, again) = coverage::collect(|| mixed(n, v, s, name, r));
        assert_eq!(instrumented, mixed(n, v, s, name, r));
        assert_eq!(&again, trace, "recording is deterministic");
    }
}

#[carve::instrument]
fn two_less(n: u8) -> u8 {
    n - 1 - 1
}

/// Where the last panic on this thread happened, as `file:line`.
fn panic_location(f: impl FnOnce() + std::panic::UnwindSafe) -> String {
    thread_local!(static AT: RefCell<String> = const { RefCell::new(String::new()) });
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        let before = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if let Some(l) = info.location() {
                AT.with(|at| *at.borrow_mut() = format!("{}:{}", l.file(), l.line()));
            }
            before(info)
        }));
    });
    assert!(std::panic::catch_unwind(f).is_err(), "it panics");
    AT.with(|at| at.borrow().clone())
}

#[test]
fn an_overflow_in_an_instrumented_operation_panics_where_the_operation_is_written() {
    // The line of `n - 1 - 1` in `two_less`, above.
    let line = line!() - 23;
    // 0: the inner operation overflows; 1: the outer one, whose left
    // operand carve rewrote.
    for n in [0, 1] {
        let plain = panic_location(move || {
            two_less(n);
        });
        let instrumented = panic_location(move || {
            coverage::collect(|| two_less(n));
        });
        assert_eq!(plain, format!("tests/coverage.rs:{line}"), "{n}");
        assert_eq!(instrumented, plain, "{n}");
    }
}
