//! Generation on the dogfood: from one carved call of `cgi_decode`, the
//! grammar-coverage fuzzer over the mined grammar reaches every branch
//! outcome and finds the trailing-`%` bug, minimized.

#[path = "dogfood/cgi.rs"]
mod cgi;

use std::collections::BTreeSet;

use carve::env::{Budget, DEFAULT_BUDGET};
use carve::generation::generate::{generate, Existing, Quiet, Settings};
use carve::outcome::Outcome;
use carve::registry::Registry;
use carve::value::Value;

fn args(s: &str) -> Value {
    Value::Struct("args", vec![("s", Value::Str(s.into()))])
}

fn run(seed: u64) -> carve::generation::generate::Generation {
    carve::outcome::install_panic_hook();
    let target = Registry::collect()
        .target("cgi::cgi_decode")
        .expect("registered");
    let (_, trace) = carve::coverage::collect(|| cgi::cgi_decode("Hello+World"));
    let covered: BTreeSet<u32> = trace.covered(target.sites).collect();
    let settings = Settings {
        seed,
        budget: Budget::Executions(DEFAULT_BUDGET),
        skip: 0,
        phases: carve::generation::generate::Phases::All,
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
        generation.before.len(),
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
    let kept = |g: &carve::generation::generate::Generation| {
        g.kept.iter().map(|k| k.args.clone()).collect::<Vec<_>>()
    };
    assert_eq!(kept(&a), kept(&b));
    assert_eq!(a.executions, b.executions);
}
