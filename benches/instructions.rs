//! A fixed amount of one kind of work, for counting instructions: machine
//! load changes times, not instruction counts, so callgrind compares
//! versions of the recording path exactly.
//!
//! ```text
//! cargo bench --bench instructions --no-run
//! valgrind --tool=callgrind --callgrind-out-file=/dev/null <binary> open 1000
//! ```
//!
//! Modes, each on cgi_decode with the overhead bench's input: `plain` (the
//! untouched copy), `dormant` (`#[carve::target]`, nothing collected),
//! `open` (collected with every goal slot, as replay records it), `met`
//! (collected once every goal in reach is met: the outcome taken only), `gen` and `genmet`
//! (a generation execution: arguments from a value tree, replayed and
//! captured), `loop` (the in-process generation loop, seed 7, the count
//! as its execution budget), `record` (a carved call while a test records,
//! over the overhead bench's 1000 distinct inputs) and `distinct` (the
//! untouched copy over the same inputs), `replay` (the dogfood's 12 carved
//! calls of cgi_decode replayed from their RON in turn, as the overhead
//! bench's "replay throughput" line: count 1200 against 0, over 1200). The
//! count of a call is the
//! difference of runs with 1000 and 0 iterations, over 1000.
//!
//! Which mode matches which line of `cargo bench --bench overhead`: its
//! "generation executions" line runs with every goal open, as `gen` does
//! (`genmet` is the same call once every goal is met); its "recording"
//! line cycles over 1000 distinct inputs for hundreds of thousands of
//! calls, so nearly every call it times repeats one already carved: count
//! those as `record` with 11000 and 1000 iterations, over 10000 (1000 and
//! 0 counts the first call of each input, which also writes and parses its
//! RON once for the rebuild check).

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
#[allow(dead_code)]
mod url;

mod common;
use carve::_internals::call::ArgsInput;
use carve::_internals::registry::Registry;
use std::hint::black_box;

const INPUT: &str = "Hello+World%21+carve+%41%42c+ok";
fn main() {
    carve::_internals::panics::install_panic_hook();
    let mode = std::env::args().nth(1).unwrap();
    let n: u32 = std::env::args().nth(2).unwrap().parse().unwrap();
    let registry = Registry::collect();
    let target = registry.target("cgi::cgi_decode").unwrap();
    let args = carve::_internals::value::Value::Struct(
        "args",
        vec![("s", carve::_internals::value::Value::Str(INPUT.into()))],
    );
    if mode == "met" || mode == "genmet" {
        let met = carve::_internals::coverage::reach::Reach::single(target.sites)
            .with_goals()
            .recording(|_| false);
        carve::_internals::coverage::set_recording(&met);
    }
    if mode == "loop" {
        use carve::_internals::env::Budget;
        use carve::_internals::generation::generate::{
            generate, Existing, Phases, Quiet, Settings,
        };
        let seeds = common::carved_cgi_decode_seeds(target);
        let existing = Existing::seeds(target, seeds);
        let settings = Settings {
            seed: 7,
            budget: Budget::Executions(n as u64),
            phases: Phases::All,
            until_reach_grows: false,
        };
        let run = generate(target, "cgi::cgi_decode", &existing, settings, &mut Quiet);
        eprintln!("executions {}", run.executions);
        return;
    }
    if mode == "replay" {
        // As the overhead bench's replay throughput: the dogfood's carved
        // calls of cgi_decode from their RON, in turn.
        use carve::_internals::carving::store::CarveFile;
        let carved = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("carved");
        let file =
            CarveFile::load(&carved, &CarveFile::path_for(&carved, "cgi::cgi_decode")).unwrap();
        for i in 0..n as usize {
            let entry = &file.entries[i % file.entries.len()];
            black_box((target.replay)(ArgsInput::Ron(black_box(&entry.args)))).ok();
        }
        return;
    }
    if mode == "record" || mode == "distinct" {
        // As the overhead bench records: distinct inputs, each call captured.
        let inputs: Vec<String> = (0..1000).map(|i| format!("{INPUT}{i}")).collect();
        carve::_internals::carving::record::start();
        carve::_internals::carving::record::record_test("bench", || {
            for i in 0..n as usize {
                let s = black_box(inputs[i % inputs.len()].as_str());
                if mode == "record" {
                    black_box(cgi::cgi_decode(s)).ok();
                } else {
                    black_box(cgi::cgi_decode_plain(s)).ok();
                }
            }
        });
        black_box(carve::_internals::carving::record::stop());
        return;
    }
    // warm up
    black_box(carve::_internals::coverage::collect(|| {
        cgi::cgi_decode(black_box(INPUT))
    }))
    .0
    .ok();
    for _ in 0..n {
        match mode.as_str() {
            "plain" => {
                black_box(cgi::cgi_decode_plain(black_box(INPUT))).ok();
            }
            "dormant" => {
                black_box(cgi::cgi_decode(black_box(INPUT))).ok();
            }
            "open" | "met" => {
                black_box(carve::_internals::coverage::collect(|| {
                    cgi::cgi_decode(black_box(INPUT))
                }))
                .0
                .ok();
            }
            _ => {
                black_box(carve::_internals::coverage::collect(|| {
                    (target.replay)(ArgsInput::Value(black_box(&args)))
                }))
                .0
                .ok();
            }
        }
    }
}
