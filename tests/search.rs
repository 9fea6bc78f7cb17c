//! Search-based generation on the dogfood: the alternating variable method
//! and the genetic algorithm reach what recombination does not.

#[path = "dogfood/cgi.rs"]
#[allow(dead_code)]
mod cgi;
#[path = "dogfood/maths.rs"]
#[allow(dead_code)]
mod maths;

use std::collections::BTreeSet;

use carve::_internals::call::ArgsInput;
use carve::_internals::coverage;
use carve::_internals::coverage::fitness::fitness_within;
use carve::_internals::coverage::reach::Reach;
use carve::_internals::env::{Budget, DEFAULT_BUDGET};
use carve::_internals::generation::generate::{generate, Existing, Quiet, Settings};
use carve::_internals::generation::search::{Calls, Evaluate, Individual, Search};
use carve::_internals::registry::{Registry, Side, Target};
use carve::_internals::value::Value;

/// A subject whose arguments have nothing the AVM can move.
mod modes {
    use serde::{Deserialize, Serialize};

    /// A mode, with unit variants only.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
    pub enum Mode {
        /// The mode carved.
        Read,
        /// A mode no call used.
        Write,
    }

    /// Whether `mode` writes.
    #[carve::target]
    pub fn writes(mode: Mode) -> bool {
        if mode == Mode::Write {
            return true;
        }
        false
    }
}

fn target(name: &str) -> &'static Target {
    Registry::collect()
        .target(name)
        .unwrap_or_else(|| panic!("{name} is registered"))
}

fn two(x: i64, y: i64) -> Value {
    Value::Struct("args", vec![("x", Value::I64(x)), ("y", Value::I64(y))])
}

fn seed_individual(counter: &mut Calls, args: Value) -> Individual {
    let (trace, failed) = counter.evaluate(&args).expect("seed call runs");
    Individual {
        args,
        failed,
        trace,
    }
}

#[test]
fn avm_hits_test_me_anywhere_in_the_i64_range_quickly() {
    carve::_internals::panics::install_panic_hook();
    let t = target("maths::test_me");
    for (x, y) in [
        (0, 0),
        (i64::MAX, i64::MIN),
        (-123_456_789_012, 987_654_321_098),
        (i64::MIN, i64::MAX / 3),
    ] {
        let mut counter = Calls::new(t, 1000);
        let start = seed_individual(&mut counter, two(x, y));
        let covered: BTreeSet<u32> = start.trace.covered(t.sites).collect();
        assert!(
            !covered.contains(&0),
            "({x}, {y}) does not hit the true branch already"
        );
        let mut search = Search::new(Reach::single(t.sites), &covered, vec![start], 1);
        let found = search.avm(&mut counter);
        assert!(
            search.uncovered.is_empty(),
            "({x}, {y}): not covered in {} evaluations",
            counter.evaluations
        );
        assert!(
            counter.evaluations <= 200,
            "({x}, {y}): {} evaluations",
            counter.evaluations
        );
        assert_eq!(found.len(), 1);
    }
}

#[test]
fn fitness_is_approach_level_plus_normalized_distance() {
    let t = target("maths::needle");
    let (_, trace) = coverage::collect(|| maths::needle(5, 0));
    // The innermost `(x ^ y) & 0xff == 0x59` true is two levels below `x > 1_000_000`,
    // which missed by 1_000_000 - 5 + 1.
    let inner = (0..t.sites.branches.len() as u32)
        .find(|id| t.sites.depth(*id) == 2 && t.sites.branches[*id as usize].side == Side::True)
        .unwrap();
    let f = fitness_within(t.sites, inner, &trace);
    assert_eq!((f.level, f.distance), (2, 999_996.0));
    assert!((f.value() - (2.0 + 999_996.0 / 999_997.0)).abs() < 1e-12);
}

#[test]
fn generation_finds_the_needle_from_calls_that_never_reach_it() {
    carve::_internals::panics::install_panic_hook();
    let t = target("maths::needle");
    let seeds = [two(3, 4), two(2_000_000, 5)];
    let mut covered = BTreeSet::new();
    for seed in &seeds {
        let (_, trace) = coverage::collect(|| (t.replay)(ArgsInput::Value(seed)));
        covered.extend(trace.covered(t.sites));
    }
    assert_eq!(
        covered.len(),
        3,
        "the carved calls take `x > 1_000_000` both ways and miss `y == 3x - 7`"
    );
    for seed in 1..=5 {
        let settings = Settings {
            seed,
            budget: Budget::Executions(DEFAULT_BUDGET),
            phases: carve::_internals::generation::generate::Phases::All,
            until_reach_grows: false,
        };
        let existing = Existing {
            covered: covered.clone(),
            ..Existing::seeds(t, seeds.to_vec())
        };
        let generation = generate(t, "maths::needle", &existing, settings, &mut Quiet);
        assert_eq!(
            generation.after.len(),
            t.sites.branches.len(),
            "seed {seed}: {:?}",
            generation.after
        );
    }
}

#[test]
fn avm_returns_when_no_move_can_be_made() {
    // The AVM used to loop forever here: no variable, so no call, so the
    // budget was never spent.
    carve::_internals::panics::install_panic_hook();
    let t = target("modes::writes");
    let mut counter = Calls::new(t, u64::MAX);
    let read = Value::Struct(
        "args",
        vec![(
            "mode",
            Value::UnitVariant {
                name: "Mode",
                index: 0,
                variant: "Read",
            },
        )],
    );
    let start = seed_individual(&mut counter, read);
    let covered: BTreeSet<u32> = start.trace.covered(t.sites).collect();
    let mut search = Search::new(Reach::single(t.sites), &covered, vec![start], 1);
    assert!(!search.uncovered.is_empty());
    search.avm(&mut counter);
    assert_eq!(counter.evaluations, 1, "nothing to move, nothing run");
}
