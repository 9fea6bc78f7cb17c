//! Generation on the dogfood: from one carved call of `cgi_decode`, the
//! grammar-coverage fuzzer over the mined grammar reaches every branch
//! outcome and finds the trailing-`%` bug, minimized. And on a byte-string
//! subject (`http::api_version`): text carried in bytes gets the string
//! grammar and search's character moves.

#[path = "dogfood/cgi.rs"]
mod cgi;
#[path = "dogfood/url.rs"]
#[allow(dead_code)]
mod url;

use std::collections::BTreeSet;

use carve::_internals::env::{Budget, DEFAULT_BUDGET};
use carve::_internals::generation::generate::{
    generate, Existing, Kept, Observer, Phases, Quiet, Settings,
};
use carve::_internals::outcome::Outcome;
use carve::_internals::registry::{Registry, Side};
use carve::_internals::value::Value;

/// A byte-string subject, as a protocol parser over `&[u8]` would be.
mod http {
    /// The API version an HTTP request line asks for: `v` and a digit
    /// starting its path (`GET /v2/users HTTP/1.1` asks for 2); 0 for none.
    #[carve::target]
    pub fn api_version(line: &[u8]) -> u8 {
        let Some(space) = line.iter().position(|b| *b == b' ') else {
            return 0;
        };
        let path = &line[space + 1..];
        if path.len() >= 3 && path[0] == b'/' && path[1] == b'v' && path[2].is_ascii_digit() {
            return path[2] - b'0';
        }
        0
    }
}

/// A target whose helper no call site names: `count` calls `Words::next`
/// from inside std, so the helper is not in the target's reach until a
/// kept call enters it.
mod words {
    pub struct Words<'a> {
        rest: &'a str,
    }

    #[carve::instrument]
    impl<'a> Iterator for Words<'a> {
        type Item = &'a str;

        fn next(&mut self) -> Option<&'a str> {
            let rest = self.rest.trim_start();
            if rest.is_empty() {
                return None;
            }
            let end = rest.find(' ').unwrap_or(rest.len());
            let (word, after) = rest.split_at(end);
            self.rest = after;
            // A comment counts as an empty word.
            if word.starts_with('#') {
                return Some("");
            }
            Some(word)
        }
    }

    /// How many words `s` has (none past 40 bytes).
    #[carve::target]
    pub fn count_words(s: &str) -> usize {
        if s.len() > 40 {
            return 0;
        }
        Words { rest: s }.count()
    }
}

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
    carve::_internals::panics::install_panic_hook();
    let target = Registry::collect()
        .target("cgi::cgi_decode")
        .expect("registered");
    let covered = hello_world_coverage();
    let settings = Settings {
        seed,
        budget,
        phases: carve::_internals::generation::generate::Phases::All,
        until_reach_grows: false,
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
        failure
            .failure
            .to_string()
            .starts_with("tests/dogfood/cgi.rs:"),
        "{}",
        failure.failure
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

/// Goals another target explores (one exploration per reach) are never
/// aimed at: with every goal of `cgi_decode` delegated, search never runs,
/// and generation stops when its grammar turn stops paying instead of
/// spending the budget.
#[test]
fn delegated_goals_are_left_to_their_owner() {
    carve::_internals::panics::install_panic_hook();
    let target = Registry::collect()
        .target("cgi::cgi_decode")
        .expect("registered");
    let mut existing = Existing {
        covered: hello_world_coverage(),
        ..Existing::seeds(target, vec![args("Hello+World")])
    };
    existing.delegated = (0..existing.reach.all_len()).collect();
    let settings = Settings {
        seed: 1,
        budget: Budget::Executions(DEFAULT_BUDGET),
        phases: Phases::All,
        until_reach_grows: false,
    };
    let generation = generate(target, "cgi::cgi_decode", &existing, settings, &mut Quiet);
    let full = run(1);
    assert!(
        generation.executions < DEFAULT_BUDGET / 10,
        "{} executions",
        generation.executions
    );
    // Without delegation the same run looks for failures until it ends on a
    // plateau.
    assert!(
        full.executions > 2 * generation.executions,
        "{} executions",
        full.executions
    );
}

/// A function that no call site names (a trait method std calls) is
/// outside the reach the run starts from; a generated call that takes one
/// of its outcomes first is kept for it, as for an edge feature, so that its
/// outcomes are covered by the kept calls (and it joins the next run's
/// reach). Without that, only the call for `count_words`' open outcome (a
/// long text, which never enters `Words::next`) would be kept.
#[test]
fn outcomes_of_functions_outside_the_reach_are_kept_for() {
    carve::_internals::panics::install_panic_hook();
    let target = Registry::collect()
        .target("words::count_words")
        .expect("registered");
    let seed = Value::Struct("args", vec![("s", Value::Str("one #two three".into()))]);
    let (_, trace) = carve::_internals::coverage::collect(|| words::count_words("one #two three"));
    let existing = Existing {
        covered: trace.covered(target.sites).collect(),
        ..Existing::seeds(target, vec![seed])
    };
    let next = carve::_internals::registry::all_sites()
        .into_iter()
        .find(|s| s.function.ends_with("::next") && s.file.ends_with("generation.rs"))
        .expect("Words::next is instrumented");
    assert!(existing
        .reach
        .functions()
        .iter()
        .all(|f| !std::ptr::eq(*f, next)));
    let settings = Settings {
        seed: 1,
        budget: Budget::Executions(2_000),
        phases: Phases::All,
        until_reach_grows: false,
    };
    let generation = generate(
        target,
        "words::count_words",
        &existing,
        settings,
        &mut Quiet,
    );
    let taken: BTreeSet<u32> = generation
        .kept
        .iter()
        .flat_map(|kept| existing.reach.outside(&kept.trace).collect::<Vec<_>>())
        .filter(|(sites, _)| *sites == next as *const _ as usize)
        .map(|(_, id)| id)
        .collect();
    // Both outcomes of both conditions, and the entry.
    let all: BTreeSet<u32> = (0..=next.branches.len() as u32).collect();
    assert_eq!(
        taken,
        all,
        "kept: {:?}",
        generation.kept.iter().map(|k| &k.args).collect::<Vec<_>>()
    );
}

/// The budget is an upper bound, not a quota: once its calls stop finding
/// anything new (every outcome of `cgi_decode` is covered early, and its
/// one failure found), a run ends on a plateau: after at least 2,000 calls
/// without a gain, and as many as it took to make its last one. Calls whose
/// arguments ran before count there, but are not run again.
#[test]
fn a_run_that_stops_finding_ends_on_a_plateau() {
    let generation = run(1);
    assert_eq!(generation.after.len(), 8, "every outcome is reached");
    let calls = generation.executions + generation.repeated;
    assert!(
        (2000..DEFAULT_BUDGET).contains(&calls),
        "{} executions, {} repeats",
        generation.executions,
        generation.repeated
    );
    assert!(generation.repeated > 0, "no derivation repeated another");
}

/// An execution budget is an upper bound on the calls run, whatever runs
/// them: derivations, search moves, minimizing kept calls and failures.
#[test]
fn an_execution_budget_is_an_upper_bound() {
    for seed in 0..4 {
        for budget in [5, 25, 60, 150, 400] {
            let run = run_with(seed, Budget::Executions(budget));
            assert!(
                run.executions <= budget,
                "seed {seed}: {} executions in a budget of {budget}",
                run.executions
            );
        }
    }
}

/// Phases hand over by what the calls so far found, never by the size of
/// the budget: a larger budget makes the same calls first, so it keeps
/// everything a smaller one kept and finds every failure it found.
#[test]
fn a_larger_budget_never_loses_what_a_smaller_one_found() {
    for seed in 0..4 {
        let mut smaller: Option<carve::_internals::generation::generate::Generation> = None;
        for budget in [25, 50, 100, 200, 500, 1000, 3000] {
            let larger = run_with(seed, Budget::Executions(budget));
            if let Some(smaller) = &smaller {
                // As generated: the smaller run may have had to stop
                // minimizing its last kept call when its budget ran out.
                // Before distilling: a later call of the larger run may
                // make one of the smaller run's redundant.
                let kept: Vec<&Value> = smaller.undistilled.iter().map(|k| &k.generated).collect();
                let again: Vec<&Value> = larger
                    .undistilled
                    .iter()
                    .map(|k| &k.generated)
                    .take(kept.len())
                    .collect();
                assert_eq!(kept, again, "seed {seed}, budget {budget}");
                assert!(
                    smaller.after.is_subset(&larger.after),
                    "seed {seed}, budget {budget}"
                );
                for failure in &smaller.failures {
                    assert!(
                        larger.failures.iter().any(|f| f.failure == failure.failure),
                        "seed {seed}, budget {budget}: lost {}",
                        failure.failure
                    );
                }
            }
            smaller = Some(larger);
        }
    }
}

/// From the dogfood's four carved URLs, generation covers every outcome of
/// `urlparse`. One of them, a scheme with a `+`, `-` or `.`, has no
/// gradient (`"+-.".contains(c)`): the grammar finds it, search does not,
/// so search's turns must not take the whole budget.
#[test]
fn from_the_carved_urls_generation_covers_all_of_urlparse() {
    carve::_internals::panics::install_panic_hook();
    let target = Registry::collect()
        .target("url::urlparse")
        .expect("registered");
    let urls = [
        "https://www.fuzzingbook.org/html/Carver.html?q=carving+unit%21#top",
        "http://example.com/?a=1&b=%41",
        "example.com",
        "1http://x",
    ];
    let mut covered = BTreeSet::new();
    for u in urls {
        let (_, trace) = carve::_internals::coverage::collect(|| url::urlparse(u));
        covered.extend(trace.covered(target.sites));
    }
    let seeds = urls
        .iter()
        .map(|u| Value::Struct("args", vec![("url", Value::Str((*u).into()))]))
        .collect();
    let existing = Existing {
        covered,
        ..Existing::seeds(target, seeds)
    };
    let settings = Settings {
        seed: 1,
        budget: Budget::Executions(DEFAULT_BUDGET),
        phases: Phases::All,
        until_reach_grows: false,
    };
    let generation = generate(target, "url::urlparse", &existing, settings, &mut Quiet);
    assert_eq!(
        generation.after.len(),
        target.sites.branches.len(),
        "kept: {:?}",
        generation.kept.iter().map(|k| &k.args).collect::<Vec<_>>()
    );
}

#[test]
fn a_time_budget_runs_until_the_time_is_spent() {
    // A time budget leaves derivations unbounded; this used to overflow.
    let generation = run_with(1, Budget::Time(std::time::Duration::from_millis(300)));
    assert!(generation.executions > 0);
}

/// The carved request lines of `api_version`: neither has a `v`.
const REQUEST_LINES: [&[u8]; 2] = [b"GET /a HTTP/1.1", b"HEAD /b HTTP/1.0"];

/// `api_version`'s arguments with `line` as a byte string (`Value::Bytes`,
/// as the proc macro carves `&[u8]`).
fn line_bytes(line: &[u8]) -> Value {
    Value::Struct("args", vec![("line", Value::Bytes(line.to_vec()))])
}

/// `api_version`'s arguments with `line` as a sequence of integers (how
/// `&[u8]` was carved before byte strings).
fn line_integers(line: &[u8]) -> Value {
    let items = line.iter().map(|b| Value::U64(u64::from(*b))).collect();
    Value::Struct("args", vec![("line", Value::Seq(items))])
}

/// Records after how many executions the needle was first covered.
struct Needle {
    id: u32,
    executions: u64,
    found_at: Option<u64>,
}

impl Observer for Needle {
    fn progress(&mut self, _index: u64, executions: u64, _covered: usize) {
        self.executions = executions;
    }

    fn kept(&mut self, kept: &Kept) {
        if kept.added.contains(&self.id) && self.found_at.is_none() {
            // `progress` ran before the call was counted.
            self.found_at = Some(self.executions + 1);
        }
    }
}

/// Executions generation needs, from `seeds`, to cover `api_version`'s
/// `path[2].is_ascii_digit()` true (after a `/v`), `None` when `budget`
/// is not enough; and how many generated values did not fit `&[u8]`.
fn executions_to_needle(
    seeds: Vec<Value>,
    seed: u64,
    budget: u64,
    phases: Phases,
) -> (Option<u64>, u64) {
    carve::_internals::panics::install_panic_hook();
    let target = Registry::collect()
        .target("http::api_version")
        .expect("registered");
    let id = target
        .sites
        .branches
        .iter()
        .position(|b| b.condition.contains("is_ascii_digit") && b.side == Side::True)
        .expect("the needle is a counted outcome") as u32;
    let mut covered = BTreeSet::new();
    for line in REQUEST_LINES {
        let (_, trace) = carve::_internals::coverage::collect(|| http::api_version(line));
        covered.extend(trace.covered(target.sites));
    }
    assert!(!covered.contains(&id), "the carved calls miss the needle");
    let settings = Settings {
        seed,
        budget: Budget::Executions(budget),
        phases,
        until_reach_grows: false,
    };
    let existing = Existing {
        covered,
        ..Existing::seeds(target, seeds)
    };
    let mut needle = Needle {
        id,
        executions: 0,
        found_at: None,
    };
    let generation = generate(
        target,
        "http::api_version",
        &existing,
        settings,
        &mut needle,
    );
    (needle.found_at, generation.undeserializable)
}

/// Before byte strings got the string grammar and search moved their bytes,
/// no seed covered the needle within 20,000 executions (the grammar only
/// recombined the bytes carved, none a `v`, and search could not move a
/// byte); see [`needle_figures`].
#[test]
fn byte_strings_get_the_string_grammar_and_character_moves() {
    for seed in 1..=5 {
        let seeds = REQUEST_LINES.iter().map(|l| line_bytes(l)).collect();
        let (found, undeserializable) = executions_to_needle(seeds, seed, 5_000, Phases::All);
        assert!(found.is_some(), "seed {seed}: needle not covered");
        assert_eq!(undeserializable, 0, "seed {seed}: every value fits `&[u8]`");
    }
}

/// The figures: executions to the needle for seeds 1..=10, from byte
/// strings and from sequences of integers, by budget and phases
/// (`cargo test --test generation -- --ignored --nocapture needle_figures`).
#[test]
#[ignore]
fn needle_figures() {
    let forms = [
        ("bytes", line_bytes as fn(&[u8]) -> Value),
        ("integers", line_integers),
    ];
    for (budget, phases) in [
        (2_000, Phases::All),
        (5_000, Phases::All),
        (DEFAULT_BUDGET, Phases::All),
        (DEFAULT_BUDGET, Phases::GrammarOnly),
        (DEFAULT_BUDGET, Phases::SearchOnly),
    ] {
        for (what, form) in forms {
            let found: Vec<(Option<u64>, u64)> = (1..=10)
                .map(|seed| {
                    let seeds = REQUEST_LINES.iter().map(|l| form(l)).collect();
                    executions_to_needle(seeds, seed, budget, phases)
                })
                .collect();
            let runs: Vec<String> = found
                .iter()
                .map(|(at, _)| at.map_or("-".into(), |n| n.to_string()))
                .collect();
            let undeserializable: u64 = found.iter().map(|(_, u)| u).sum();
            let phases = format!("{phases:?}");
            eprintln!(
                "{budget:>6} {phases:<12} {what:<9} executions to the needle: {} \
                 ({undeserializable} undeserializable)",
                runs.join(" ")
            );
        }
    }
}

/// Every kept call is minimized before it is stored: its arguments are no
/// larger than the generated ones, still return, and still cover what the
/// generated call added; a string that only has to hold one character to
/// take a branch is that character.
#[test]
fn kept_calls_are_minimized() {
    use carve::_internals::generation::shrink::Size;
    let generation = run(1);
    assert!(!generation.kept.is_empty());
    let target = Registry::collect()
        .target("cgi::cgi_decode")
        .expect("registered");
    let mut shrunk = 0;
    for kept in &generation.kept {
        assert!(
            Size::of(&kept.args) <= Size::of(&kept.generated),
            "{kept:?}"
        );
        shrunk += usize::from(kept.args != kept.generated);
        let Value::Struct(_, fields) = &kept.args else {
            panic!("not arguments: {kept:?}")
        };
        let Value::Str(s) = &fields[0].1 else {
            panic!("not a string: {kept:?}")
        };
        assert!(s.chars().count() <= 3, "not minimal: {s:?}");
        let (result, trace) = carve::_internals::coverage::collect(|| cgi::cgi_decode(s));
        assert!(result.is_ok() || s.contains('%'), "{s:?} still returns");
        let covered: BTreeSet<u32> = trace.covered(target.sites).collect();
        assert!(
            kept.added.iter().all(|goal| covered.contains(goal)),
            "{s:?} covers {covered:?}, not all of {:?}",
            kept.added
        );
    }
    assert!(
        shrunk > 0,
        "nothing needed shrinking: {:?}",
        generation.kept
    );
}
