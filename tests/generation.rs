//! Generation on the dogfood: from one carved call of `cgi_decode`, the
//! grammar-coverage fuzzer over the mined grammar reaches every branch
//! outcome and finds the trailing-`%` bug, minimized.

#[path = "dogfood/cgi.rs"]
mod cgi;

use std::collections::BTreeSet;

use carve::_internals::env::{Budget, DEFAULT_BUDGET};
use carve::_internals::generation::generate::{generate, Existing, Quiet, Settings};
use carve::_internals::outcome::Outcome;
use carve::_internals::registry::Registry;
use carve::_internals::value::Value;

fn args(s: &str) -> Value {
    Value::Struct("args", vec![("s", Value::Str(s.into()))])
}

/// What the carved call `cgi_decode("Hello+World")` covers.
fn hello_world_coverage() -> BTreeSet<u32> {
    let target = Registry::collect()
        .target("cgi::cgi_decode")
        .expect("registered");
    let (_, trace) = carve::_internals::coverage::collect(|| cgi::cgi_decode("Hello+World"));
    trace.covered(target.sites).collect()
}

fn run(seed: u64) -> carve::_internals::generation::generate::Generation {
    run_with(seed, Budget::Executions(DEFAULT_BUDGET))
}

fn run_with(seed: u64, budget: Budget) -> carve::_internals::generation::generate::Generation {
    carve::_internals::outcome::install_panic_hook();
    let target = Registry::collect()
        .target("cgi::cgi_decode")
        .expect("registered");
    let covered = hello_world_coverage();
    let settings = Settings {
        seed,
        budget,
        skip: 0,
        phases: carve::_internals::generation::generate::Phases::All,
    };
    let existing = Existing {
        covered,
        ..Existing::seeds(target, vec![args("Hello+World")])
    };
    generate(target, "cgi::cgi_decode", &existing, settings, &mut Quiet)
}

#[test]
fn from_hello_world_generation_covers_cgi_decode_and_finds_the_trailing_percent() {
    let generation = run(1);
    assert_eq!(
        hello_world_coverage().len(),
        5,
        "Hello+World misses `c == '%'` true and both match arms"
    );
    assert_eq!(
        generation.after.len(),
        8,
        "every outcome is reached: {generation:?}"
    );
    assert_eq!(generation.failures.len(), 1, "{:?}", generation.failures);
    let failure = &generation.failures[0];
    assert_eq!(
        failure.args,
        args("%"),
        "minimized to the shortest failing input"
    );
    assert!(
        matches!(&failure.observation.outcome, Outcome::Panicked(m) if m.contains("index out of bounds"))
    );
    assert!(
        failure.location.starts_with("tests/dogfood/cgi.rs:"),
        "{}",
        failure.location
    );
    for kept in &generation.kept {
        assert!(
            !kept.added.is_empty(),
            "only calls that add coverage are kept"
        );
    }
}

#[test]
fn the_same_seed_generates_the_same_calls() {
    let (a, b) = (run(7), run(7));
    let kept = |g: &carve::_internals::generation::generate::Generation| {
        g.kept.iter().map(|k| k.args.clone()).collect::<Vec<_>>()
    };
    assert_eq!(kept(&a), kept(&b));
    assert_eq!(a.executions, b.executions);
}

#[test]
fn a_time_budget_runs_until_the_time_is_spent() {
    // A time budget leaves derivations unbounded; this used to overflow.
    let generation = run_with(1, Budget::Time(std::time::Duration::from_millis(300)));
    assert!(generation.executions > 0);
}
