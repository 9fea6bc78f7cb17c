//! Grammar coverage as measured in the chapter "Grammar Coverage" of The
//! Fuzzing Book: the average total length of the inputs a fuzzer produces
//! until it has covered every expansion of the grammar.
//!
//! ```text
//! cargo bench --bench grammar
//! ```
//!
//! Each figure averages a fresh fuzzer per seed over seeds 0..100, beside
//! the chapter's figure (an average over 50 runs of its Python fuzzers).
//! The first table uses the chapter's limits (`min_nonterminals` 0,
//! `max_nonterminals` 10). The second tunes these limits for the two
//! foresight strategies on other seeds (1000..1100) and measures the best
//! pair on seeds 0..100, so that no figure is tuned on the seeds it is
//! measured on. Limits under which some expansion can never be chosen would
//! fuzz forever; runs are cut after 1000 inputs and such limits skipped.
//!
//! No strategy can do with less than 38 characters on CGI (8 escapes for
//! the 16 hex digits, 13 other letters and a plus) or 27 on EXPR (10
//! digits, 4 spaced binary operators, 2 signs, parentheses and a point).

use std::ops::Range;

use carve::_internals::generation::grammar::{
    examples, Grammar, GrammarFuzzer, Strategy, START_SYMBOL,
};

const SEEDS: Range<u64> = 0..100;
const TUNING_SEEDS: Range<u64> = 1000..1100;
const MAX_INPUTS: usize = 1000;

/// `min_nonterminals` and `max_nonterminals`.
type Limits = (usize, usize);
const BOOK_LIMITS: Limits = (0, 10);

const STRATEGIES: [(Strategy, &str); 4] = [
    (Strategy::Random, "tracking (random)"),
    (Strategy::Simple, "simple"),
    (Strategy::DeepForesight, "deep foresight"),
    (Strategy::ShortestPath, "shortest path"),
];

/// The chapter's figures, per grammar, in the order of `STRATEGIES`.
const BOOK: [(&str, [Option<f64>; 4]); 2] = [
    ("CGI", [Some(211.34), Some(68.64), Some(40.38), None]),
    ("EXPR", [Some(138.12), Some(52.28), Some(50.74), None]),
];

/// Averages over `seeds` of the total length and the number of inputs
/// until full coverage; `None` if some seed does not get there.
fn measure(
    grammar: &Grammar,
    strategy: Strategy,
    (min, max): Limits,
    seeds: Range<u64>,
) -> Option<(f64, f64)> {
    let runs = seeds.clone().count() as f64;
    let (mut length, mut inputs) = (0, 0);
    for seed in seeds {
        let fuzzer = GrammarFuzzer::new(grammar, strategy, seed).expect("valid grammar");
        let mut fuzzer = fuzzer.with_min_nonterminals(min).with_max_nonterminals(max);
        let (run_length, run_inputs) = until_covered(&mut fuzzer)?;
        length += run_length;
        inputs += run_inputs;
    }
    Some((length as f64 / runs, inputs as f64 / runs))
}

/// The total length and number of inputs `fuzzer` produces until
/// `max_expansion_coverage - expansion_coverage` is empty.
fn until_covered(fuzzer: &mut GrammarFuzzer) -> Option<(usize, usize)> {
    let all = fuzzer.max_expansion_coverage(START_SYMBOL, None);
    let (mut length, mut inputs) = (0, 0);
    while !all.is_subset(&fuzzer.expansion_coverage()) {
        if inputs == MAX_INPUTS {
            return None;
        }
        length += fuzzer.fuzz().chars().count();
        inputs += 1;
    }
    Some((length, inputs))
}

/// The limits giving the least average length on `TUNING_SEEDS`.
fn tune(grammar: &Grammar, strategy: Strategy) -> Limits {
    let pairs = (0..=6).flat_map(|min| (1..=12).map(move |max| (min, max)));
    let length = |&limits: &Limits| {
        let measured = measure(grammar, strategy, limits, TUNING_SEEDS);
        (measured.map_or(f64::INFINITY, |(length, _)| length), limits)
    };
    let mut lengths: Vec<(f64, Limits)> = pairs.map(|limits| length(&limits)).collect();
    lengths.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    lengths[0].1
}

fn book_figure(figure: Option<f64>) -> String {
    figure.map_or("–".to_string(), |f| format!("{f:.2}"))
}

fn row(grammar: &str, name: &str, limits: Limits, measured: Option<(f64, f64)>, book: Option<f64>) {
    let (min, max) = limits;
    let (length, inputs) = match measured {
        Some((length, inputs)) => (format!("{length:.2}"), format!("{inputs:.1}")),
        None => ("not covered".to_string(), "–".to_string()),
    };
    let book = book_figure(book);
    println!("{grammar:<7} {name:<18} {min:>3} {max:>3} {length:>11} {inputs:>7} {book:>8}");
}

fn header(title: &str) {
    println!("\n{title}");
    let columns = (
        "grammar",
        "strategy",
        "min",
        "max",
        "avg length",
        "inputs",
        "book",
    );
    let (g, s, min, max, length, inputs, book) = columns;
    println!("{g:<7} {s:<18} {min:>3} {max:>3} {length:>11} {inputs:>7} {book:>8}");
}

fn main() {
    let grammars = [examples::cgi(), examples::expr()];
    println!("Average total length of the inputs until full expansion coverage");
    println!("(seeds {SEEDS:?}, one fresh fuzzer per seed; inputs: their average number)");

    header("Chapter's limits (min_nonterminals 0, max_nonterminals 10)");
    for (grammar, (name, book)) in grammars.iter().zip(BOOK) {
        for ((strategy, label), figure) in STRATEGIES.into_iter().zip(book) {
            let measured = measure(grammar, strategy, BOOK_LIMITS, SEEDS);
            row(name, label, BOOK_LIMITS, measured, figure);
        }
    }

    header(&format!(
        "Limits tuned on seeds {TUNING_SEEDS:?} (min 0..=6, max 1..=12)"
    ));
    for (grammar, (name, book)) in grammars.iter().zip(BOOK) {
        for ((strategy, label), figure) in STRATEGIES.into_iter().zip(book).skip(2) {
            let limits = tune(grammar, strategy);
            let measured = measure(grammar, strategy, limits, SEEDS);
            row(name, label, limits, measured, figure);
        }
    }
}
