//! What carve costs, as ratios measured in one run:
//!
//! ```text
//! cargo bench --bench overhead
//! ```
//!
//! - dormant: `#[carve::target]` cgi_decode (carving and branch
//!   instrumentation compiled in) while nothing records, against an untouched
//!   copy (goal ≤ 1.05x);
//! - branch recording: the same call while coverage is collected, with
//!   branch distances and every goal slot, as replay records them (aim ≤ 3x);
//! - branch recording, goals met: the same once generation met every
//!   goal in the function's reach, so that each comparison records the
//!   outcome taken only, without distances (goal ≤ 2x);
//! - recording: one carved call against the plain call (goal ≤ 2x, issue 25), beside
//!   the naive design that writes RON text per call;
//! - generation executions: one execution as generation makes it (a call
//!   from a value tree, deserialized, run with branch coverage, its outcome
//!   captured) per second, against plain calls per second (goal ≥ 0.5,
//!   issue 25), with every goal open and once every goal is met (as
//!   most executions of a run are made: each comparison records the
//!   outcome taken only);
//! - generation loop: the whole generation loop (`generate`: grammar
//!   derivations, search, coverage, keeping calls) run in-process on
//!   cgi_decode for a fixed number of executions, in executions per second
//!   against plain calls per second of the inputs it generated (short
//!   strings, so plain calls are cheap; goal ≥ 0.25, issue 25), and in
//!   calls per second, counting the calls whose arguments ran before,
//!   which the loop reads back instead of running (each costs it a
//!   derivation, not an execution);
//! - replay throughput: carved calls replayed per second (RON parse, call,
//!   outcome capture);
//! - replay vs system: replaying the unit calls carved from the browser
//!   system test against running that test (goal ≥ 100x).
//!
//! Times are medians of several rounds, with the contenders interleaved so
//! that machine noise hits both; only ratios are meant to be compared.

#[path = "../tests/dogfood/bank.rs"]
#[allow(dead_code)]
mod bank;
#[path = "../tests/dogfood/browser.rs"]
#[allow(dead_code)]
mod browser;
#[path = "../tests/dogfood/cgi.rs"]
mod cgi;
#[path = "../tests/dogfood/maths.rs"]
#[allow(dead_code)]
mod maths;
#[path = "../tests/dogfood/url.rs"]
mod url;

mod common;

use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};

use carve::_internals::call::ArgsInput;
use carve::_internals::carving::record;
use carve::_internals::carving::store::CarveFile;
use carve::_internals::env::Budget;
use carve::_internals::generation::generate::{
    generate, Executed, Existing, NotRun, Observer, Phases, Settings,
};
use carve::_internals::registry::Registry;
use carve::_internals::value::Value;

const INPUT: &str = "Hello+World%21+carve+%41%42c+ok"; // takes every branch
const ROUNDS: usize = 11;

/// Median time per iteration of each contender, measured in interleaved rounds.
fn compare<const N: usize>(iterations: u32, contenders: [&mut dyn FnMut(); N]) -> [Duration; N] {
    let mut contenders = contenders;
    let mut samples = vec![Vec::with_capacity(ROUNDS); N];
    for _ in 0..ROUNDS {
        for (i, f) in contenders.iter_mut().enumerate() {
            let start = Instant::now();
            for _ in 0..iterations {
                f();
            }
            samples[i].push(start.elapsed() / iterations);
        }
    }
    std::array::from_fn(|i| {
        samples[i].sort();
        samples[i][ROUNDS / 2]
    })
}

fn ratio(a: Duration, b: Duration) -> f64 {
    a.as_secs_f64() / b.as_secs_f64()
}

/// The inputs a generation run calls its target with, in order.
#[derive(Default)]
struct Inputs(Vec<String>);

impl Observer for Inputs {
    fn execute(
        &mut self,
        _ordinal: u64,
        args: &Value,
        run: &mut dyn FnMut() -> Result<Executed, NotRun>,
    ) -> Result<Executed, NotRun> {
        if let Value::Struct(_, fields) = args {
            if let Some((_, Value::Str(s))) = fields.first() {
                self.0.push(s.clone());
            }
        }
        run()
    }
}

/// Executions of the real generation loop per second against plain calls
/// per second of the inputs it generated.
fn generation_throughput() {
    const EXECUTIONS: u64 = 20_000;
    let registry = Registry::collect();
    let target = registry.target("cgi::cgi_decode").expect("registered");
    // The carved calls are the seeds, as in `CARVE=generate`.
    let seeds = common::carved_cgi_decode_seeds(target);
    let existing = Existing::seeds(target, seeds);
    let settings = Settings {
        seed: 7,
        budget: Budget::Executions(EXECUTIONS),
        phases: Phases::All,
        until_reach_grows: false,
    };
    let mut inputs = Inputs::default();
    let first = generate(target, "cgi::cgi_decode", &existing, settings, &mut inputs);
    let (executions, repeated) = (first.executions, first.repeated);
    let inputs = inputs.0;
    let [plain, generation] = compare(
        1,
        [
            &mut || {
                // Generated inputs may panic (the chapter's bug): plain calls
                // pay for catching it too, as generation does.
                for s in &inputs {
                    let s = black_box(s.as_str());
                    carve::_internals::outcome::quietly(|| {
                        std::panic::catch_unwind(|| cgi::cgi_decode_plain(s)).ok()
                    });
                }
            },
            &mut || {
                let run = generate(
                    target,
                    "cgi::cgi_decode",
                    &existing,
                    settings,
                    &mut carve::_internals::generation::generate::Quiet,
                );
                assert_eq!(run.executions, executions, "generation is deterministic");
            },
        ],
    );
    let per_execution = generation.as_secs_f64() / executions as f64;
    let per_plain = plain.as_secs_f64() / inputs.len() as f64;
    println!(
        "generation loop (cgi_decode)     {:>10.0}/s      {:.3} of plain calls/s ({:.0}/s) of its {} inputs (goal >= 0.25)",
        1.0 / per_execution,
        per_plain / per_execution,
        1.0 / per_plain,
        inputs.len()
    );
    // Calls whose arguments ran before are read back, not run: they cost
    // the loop a derivation each, and are not executions.
    let per_call = generation.as_secs_f64() / (executions + repeated) as f64;
    println!(
        "  with its {} repeats read back   {:>10.0} calls/s {:.3} of plain calls/s",
        repeated,
        1.0 / per_call,
        per_plain / per_call
    );
}

fn main() {
    carve::_internals::panics::install_panic_hook();
    // `cargo bench` passes `--bench`; any other argument is a filter we ignore.
    println!(
        "carve overhead benchmark (input {:?}, {} chars)\n",
        INPUT,
        INPUT.chars().count()
    );

    let [plain, dormant] = compare(
        200_000,
        [
            &mut || {
                black_box(cgi::cgi_decode_plain(black_box(INPUT))).ok();
            },
            &mut || {
                black_box(cgi::cgi_decode(black_box(INPUT))).ok();
            },
        ],
    );
    println!("plain cgi_decode                 {:>10.1?}/call", plain);
    println!(
        "dormant #[carve::target]         {:>10.1?}/call   {:.3}x plain (goal <= 1.05x)",
        dormant,
        ratio(dormant, plain)
    );

    let [plain_again, covered] = compare(
        100_000,
        [
            &mut || {
                black_box(cgi::cgi_decode_plain(black_box(INPUT))).ok();
            },
            &mut || {
                black_box(carve::_internals::coverage::collect(|| {
                    cgi::cgi_decode(black_box(INPUT))
                }))
                .0
                .ok();
            },
        ],
    );
    println!(
        "branch recording (coverage)      {:>10.1?}/call   {:.2}x plain (aim <= 3x)",
        covered,
        ratio(covered, plain_again)
    );

    // The same once generation met every goal in cgi_decode's reach: its
    // comparisons record the outcome taken, with no distance or goal slot
    // computed.
    let decode_sites = Registry::collect()
        .target("cgi::cgi_decode")
        .expect("registered")
        .sites;
    let met = carve::_internals::coverage::reach::Reach::single(decode_sites)
        .with_goals()
        .recording(|_| false);
    carve::_internals::coverage::set_recording(&met);
    let [plain_met, covered_met] = compare(
        100_000,
        [
            &mut || {
                black_box(cgi::cgi_decode_plain(black_box(INPUT))).ok();
            },
            &mut || {
                black_box(carve::_internals::coverage::collect(|| {
                    cgi::cgi_decode(black_box(INPUT))
                }))
                .0
                .ok();
            },
        ],
    );
    carve::_internals::coverage::set_recording(&[]);
    println!(
        "branch recording, goals met      {:>10.1?}/call   {:.2}x plain (goal <= 2x)",
        covered_met,
        ratio(covered_met, plain_met)
    );

    // Generation's execution: a call from a value tree (deserialize, call,
    // capture the outcome) with branch coverage, against the plain call.
    let registry_for_generation = Registry::collect();
    let target = registry_for_generation
        .target("cgi::cgi_decode")
        .expect("registered");
    let args = carve::_internals::value::Value::Struct(
        "args",
        vec![("s", carve::_internals::value::Value::Str(INPUT.into()))],
    );
    // Plain calls and generation executions, interleaved.
    let executions_against_plain = || {
        compare(
            50_000,
            [
                &mut || {
                    black_box(cgi::cgi_decode_plain(black_box(INPUT))).ok();
                },
                &mut || {
                    black_box(carve::_internals::coverage::collect(|| {
                        (target.replay)(ArgsInput::Value(black_box(&args)))
                    }))
                    .0
                    .ok();
                },
            ],
        )
    };
    let [plain_calls, executions] = executions_against_plain();
    println!(
        "generation executions/s          {:>10.0}/s      {:.3} of plain calls/s ({:.0}/s) (goal >= 0.5)",
        1.0 / executions.as_secs_f64(),
        plain_calls.as_secs_f64() / executions.as_secs_f64(),
        1.0 / plain_calls.as_secs_f64()
    );
    // The same execution once generation met every goal in the reach, as
    // most of a run's executions are made: recording lowered to the
    // outcome taken (`coverage::Recording`).
    carve::_internals::coverage::set_recording(&met);
    let [plain_calls_met, executions_met] = executions_against_plain();
    carve::_internals::coverage::set_recording(&[]);
    println!(
        "  once every goal is met          {:>10.0}/s      {:.3} of plain calls/s",
        1.0 / executions_met.as_secs_f64(),
        plain_calls_met.as_secs_f64() / executions_met.as_secs_f64(),
    );

    generation_throughput();

    // Recording: distinct inputs so that every call is captured, hashed and
    // stored; the buffer is dropped between rounds to keep memory flat.
    let inputs: Vec<String> = (0..1000).map(|i| format!("{INPUT}{i}")).collect();
    let next = std::cell::Cell::new(0usize);
    let pick = || {
        next.set((next.get() + 1) % inputs.len());
        inputs[next.get()].as_str()
    };
    record::start();
    let [plain_distinct, recording, naive] = record::record_test("bench", || {
        compare(
            20_000,
            [
                &mut || {
                    black_box(cgi::cgi_decode_plain(black_box(pick()))).ok();
                },
                &mut || {
                    black_box(cgi::cgi_decode(black_box(pick()))).ok();
                },
                &mut || {
                    let s = black_box(pick());
                    let args = ron::to_string(&(s,)).unwrap();
                    let out = cgi::cgi_decode_plain(s);
                    let outcome = ron::to_string(&out).unwrap();
                    black_box((args, outcome));
                },
            ],
        )
    });
    let carved = record::stop();
    println!(
        "recording (captured calls)       {:>10.1?}/call   {:.2}x plain (goal <= 2x); {} distinct calls kept",
        recording,
        ratio(recording, plain_distinct),
        carved.iter().map(|r| r.calls.len()).sum::<usize>()
    );
    println!(
        "naive: ron::to_string per call   {:>10.1?}/call   {:.2}x plain",
        naive,
        ratio(naive, plain_distinct)
    );

    // Replay throughput over the dogfood's carved calls of cgi_decode.
    let registry = Registry::collect();
    let carved_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("carved");
    let load = |target: &str| {
        CarveFile::load(&carved_dir, &CarveFile::path_for(&carved_dir, target))
            .expect("dogfood carve files are committed")
    };
    let decode = load("cgi::cgi_decode");
    let decode_target = registry.target("cgi::cgi_decode").expect("registered");
    let [replay] = compare(
        2_000,
        [&mut || {
            for entry in &decode.entries {
                black_box((decode_target.replay)(ArgsInput::Ron(&entry.args))).ok();
            }
        }],
    );
    let per_call = replay / decode.entries.len() as u32;
    println!(
        "replay (parse + call + capture)  {:>10.1?}/call   {:.0} calls/s",
        per_call,
        1.0 / per_call.as_secs_f64()
    );

    // The chapter's point: the unit calls carved from the browser system test
    // replay far faster than the system test runs.
    let from_browser: Vec<_> = ["url::urlparse", "url::parse_query", "cgi::cgi_decode"]
        .into_iter()
        .flat_map(|name| {
            let target = registry.target(name).expect("registered");
            load(name)
                .entries
                .into_iter()
                .filter(|e| e.origin.system_test() == Some("browses_pages"))
                .map(move |e| (target, e.args))
        })
        .collect();
    let [system, units] = compare(
        3,
        [&mut || browser::browse_examples(), &mut || {
            for (target, args) in &from_browser {
                black_box((target.replay)(ArgsInput::Ron(args))).ok();
            }
        }],
    );
    println!(
        "system test browses_pages        {:>10.1?}\nreplay of its {} carved calls   {:>10.1?}   {:.0}x faster (goal >= 100x)",
        system,
        from_browser.len(),
        units,
        ratio(system, units)
    );
}
